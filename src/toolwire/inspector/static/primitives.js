// The inspector page's Resources and Prompts tabs: browse and read resources, fill in URI
// templates, render prompts with their arguments, with the server's completion suggestions.
//
// Loaded after inspector.js, whose helpers it uses through the one global object
// window.toolwireInspector (h, api, pretty, isObject, firstLine, contentBlock, resourceBody,
// trafficMessage, showView, state, stateListeners; described at the top of inspector.js).
// This file adds nothing to that object: it only registers a state listener.
//
// As in inspector.js, everything the server sends is untrusted and reaches the page only
// through textContent, attributes and data: URLs, never as HTML.
"use strict";

(function () {
  const shared = window.toolwireInspector;
  const { h, api, pretty, isObject, firstLine, contentBlock, resourceBody, trafficMessage, showView } = shared;
  const $ = (id) => document.getElementById(id);

  const COMPLETE_DELAY_MS = 150; // ask for suggestions once typing pauses
  const MAX_SUGGESTIONS = 100; // completion/complete answers hold at most 100 values
  const CONTEXT_SINCE = "2025-06-18"; // completion context.arguments exists from this revision

  const view = {
    server: {},
    resources: [],
    templates: [],
    prompts: [],
    resource: null, // the selection in the Resources tab: {kind: "resource"|"template", key}
    resourceShown: null, // the definition (as JSON) its detail was built from
    prompt: null, // the selected prompt's name
    promptShown: null,
  };

  const list = (value) => (Array.isArray(value) ? value.filter(isObject) : []);
  const text = (value) => (typeof value === "string" ? value : "");

  function onState(state) {
    view.server = isObject(state.server) ? state.server : {};
    view.resources = list(state.resources).filter((resource) => typeof resource.uri === "string");
    view.templates = list(state.resourceTemplates).filter((template) => typeof template.uriTemplate === "string");
    view.prompts = list(state.prompts).filter((prompt) => typeof prompt.name === "string");
    renderTabs();
    renderResourceLists();
    syncResourceDetail();
    renderPromptList();
    syncPromptDetail();
  }

  // ------------------------------------------------------------------ tabs

  const capabilities = () => (isObject(view.server.capabilities) ? view.server.capabilities : {});

  /** A tab shows when the ready server offers its capability; while the server (re)starts
   *  the tab stays as it was, so a reload does not move the developer elsewhere. */
  function renderTabs() {
    const ready = view.server.status === "ready";
    for (const [tabId, capability] of [["resources-tab", "resources"], ["prompts-tab", "prompts"]]) {
      const tab = $(tabId);
      if (ready) tab.hidden = !isObject(capabilities()[capability]);
      if (tab.hidden && tab.getAttribute("aria-selected") === "true") showView("tool-view");
    }
    const resources = view.resources.length + view.templates.length;
    $("resources-count").textContent = resources ? String(resources) : "";
    $("prompts-count").textContent = view.prompts.length ? String(view.prompts.length) : "";
  }

  // ------------------------------------------------------------------ shared pieces

  const canComplete = () => isObject(capabilities().completions);
  const sendsContext = () => text(view.server.protocolVersion) >= CONTEXT_SINCE;

  let inputIds = 0;
  const nextId = (prefix) => `${prefix}-${++inputIds}`;

  /** A text input whose <datalist> holds the server's completion suggestions for `name`,
   *  asked (debounced) as the user types or focuses it. `others()` gives the other filled
   *  fields, sent as context.arguments where the revision has them. */
  function completingInput(ref, name, others, attributes) {
    const suggestions = h("datalist", { id: nextId("suggestions"), testid: "suggestions" });
    const input = h("input", { type: "text", autocomplete: "off", spellcheck: "false", list: suggestions.id, ...attributes });
    let timer = null;
    let asked = 0;
    const ask = async () => {
      const mine = ++asked;
      const body = { ref, argument: { name, value: input.value } };
      const context = others();
      if (sendsContext() && Object.keys(context).length) body.context = { arguments: context };
      let answer;
      try {
        answer = await api("POST", "/api/complete", body);
      } catch (error) {
        return; // no suggestions: the field works without them
      }
      if (mine !== asked || !isObject(answer) || !isObject(answer.result)) return;
      const completion = isObject(answer.result.completion) ? answer.result.completion : {};
      const values = (Array.isArray(completion.values) ? completion.values : []).filter((value) => typeof value === "string");
      suggestions.replaceChildren(...values.slice(0, MAX_SUGGESTIONS).map((value) => h("option", { value })));
      suggestions.dataset.value = input.value; // what the suggestions were asked for
    };
    const schedule = () => {
      if (!canComplete()) return;
      clearTimeout(timer);
      timer = setTimeout(ask, COMPLETE_DELAY_MS);
    };
    input.addEventListener("input", schedule);
    input.addEventListener("focus", schedule);
    return { input, suggestions };
  }

  function field(id, name, required, title, description, control) {
    return h(
      "div",
      "field",
      h(
        "div",
        "field-head",
        h("label", { class: "field-label", for: id }, name),
        required && h("span", { class: "required", title: "required", "aria-hidden": "true" }, "*"),
        title && h("span", "muted", title),
      ),
      control,
      description && h("div", { class: "help", testid: "field-help" }, description),
    );
  }

  function errorView(message, testid) {
    return h(
      "div",
      { class: "result is-error", testid, role: "alert" },
      h("span", { class: "result-label error-label" }, "Error"),
      h("pre", "failure", message),
    );
  }

  function trafficView(traffic) {
    const messages = Array.isArray(traffic) ? traffic.filter(isObject) : [];
    return [
      h("div", "section-title", `JSON-RPC traffic (${messages.length} messages)`),
      h("ol", { class: "traffic", testid: "exchange-traffic" }, messages.map(trafficMessage)),
    ];
  }

  /** POST one exchange and render its outcome into `output`, unless a newer one started. */
  async function exchange(output, path, body, render, errorTestid) {
    const mine = (output.dataset.exchange = String(Number(output.dataset.exchange || 0) + 1));
    output.setAttribute("aria-busy", "true");
    let answer;
    try {
      answer = await api("POST", path, body);
    } catch (error) {
      answer = { error: error.message, traffic: [] };
    }
    if (output.dataset.exchange !== mine) return;
    output.removeAttribute("aria-busy");
    const ok = isObject(answer) && isObject(answer.result) && !("error" in answer);
    const outcome = ok ? render(answer.result) : errorView(text(answer && answer.error) || "No answer", errorTestid);
    output.replaceChildren(outcome, ...trafficView(answer && answer.traffic));
  }

  function listItem(testid, selected, onClick, heading, ...details) {
    const button = h(
      "button",
      { type: "button", class: selected ? "primitive-item selected" : "primitive-item", testid },
      h("span", "primitive-name", heading),
      details,
    );
    if (selected) button.setAttribute("aria-current", "true");
    button.addEventListener("click", onClick);
    return button;
  }

  // ------------------------------------------------------------------ resources

  const sizeText = (size) => (typeof size === "number" ? `${size} bytes` : "");
  const facts = (item) => [text(item.mimeType), sizeText(item.size)].filter(Boolean).join(" · ");
  const isSelected = (kind, key) => view.resource !== null && view.resource.kind === kind && view.resource.key === key;

  function renderResourceLists() {
    $("resource-list").replaceChildren(...view.resources.map(resourceItem));
    $("template-list").replaceChildren(...view.templates.map(templateItem));
    $("resource-list-empty").hidden = view.resources.length > 0;
    $("template-list-empty").hidden = view.templates.length > 0;
  }

  function resourceItem(resource) {
    const button = listItem(
      "resource-item",
      isSelected("resource", resource.uri),
      () => selectResource("resource", resource.uri),
      text(resource.title) || text(resource.name) || resource.uri,
      h("code", "primitive-uri", resource.uri),
      facts(resource) && h("span", "primitive-facts muted", facts(resource)),
      firstLine(resource.description) && h("span", "primitive-summary muted", firstLine(resource.description)),
    );
    button.dataset.uri = resource.uri;
    return h("li", {}, button);
  }

  function templateItem(template) {
    const button = listItem(
      "template-item",
      isSelected("template", template.uriTemplate),
      () => selectResource("template", template.uriTemplate),
      text(template.title) || text(template.name) || template.uriTemplate,
      h("code", "primitive-uri", template.uriTemplate),
      firstLine(template.description) && h("span", "primitive-summary muted", firstLine(template.description)),
    );
    button.dataset.template = template.uriTemplate;
    return h("li", {}, button);
  }

  function findResource(selection) {
    if (selection === null) return null;
    if (selection.kind === "resource") return view.resources.find((item) => item.uri === selection.key) || null;
    return view.templates.find((item) => item.uriTemplate === selection.key) || null;
  }

  /** Selecting a resource reads it at once; a template waits for its variables. */
  function selectResource(kind, key) {
    view.resource = { kind, key };
    view.resourceShown = null;
    $("resource-detail").replaceChildren(); // nothing of the previous selection stays
    renderResourceLists();
    syncResourceDetail();
    showView("resources-view");
    if (kind === "resource") $("resource-detail").querySelector('[data-testid="resource-read"]').click();
  }

  /** After a state event: rebuild the detail only when its definition changed, keeping
   *  what was typed and the last outcome. */
  function syncResourceDetail() {
    const detail = $("resource-detail");
    if (view.resource === null) return;
    const item = findResource(view.resource);
    if (!item) {
      view.resourceShown = null;
      const gone = h("p", { class: "muted placeholder", testid: "resource-gone" }, `The server does not list ${view.resource.key} now.`);
      return detail.replaceChildren(gone);
    }
    const shown = JSON.stringify(item);
    if (shown === view.resourceShown) return;
    view.resourceShown = shown;
    const old = detail.querySelector('[data-testid="exchange-output"]');
    const typed = {};
    for (const input of detail.querySelectorAll('[data-testid="template-field"]')) typed[input.dataset.variable] = input.value;
    const output = old || h("div", { class: "exchange-output", testid: "exchange-output" });
    const body = view.resource.kind === "resource" ? resourceDetail(item, output) : templateDetail(item, output, typed);
    detail.replaceChildren(body, output);
  }

  function detailHead(name, title, code, about, description) {
    return [
      h("div", "tool-head", h("h2", { testid: "primitive-name" }, name), title && h("span", "muted", title)),
      h("div", {}, h("code", { testid: "primitive-uri" }, code), about && h("span", "muted", ` · ${about}`)),
      description && h("pre", { class: "description", testid: "primitive-description" }, description),
    ];
  }

  function resourceDetail(resource, output) {
    const read = h("button", { type: "button", class: "primary", testid: "resource-read" }, "Read");
    read.addEventListener("click", () => readResource(resource.uri, output));
    const head = detailHead(text(resource.name) || resource.uri, text(resource.title), resource.uri, facts(resource), text(resource.description));
    return h("div", {}, head, h("div", "actions", read));
  }

  function readResource(uri, output) {
    return exchange(output, "/api/resources/read", { uri }, contentsView, "resource-error");
  }

  function contentsView(result) {
    const contents = list(result.contents);
    const label = h("span", "result-label", `Contents (${contents.length})`);
    const body = contents.length ? contents.map(contentsItem) : h("p", "muted", "No contents.");
    return h("div", { class: "result", testid: "resource-contents" }, label, body);
  }

  const JSON_MIME = /^application\/([a-z0-9.+-]+\+)?json$/i;

  /** One resources/read content, shown as an embedded resource is; JSON text is re-indented. */
  function contentsItem(contents) {
    let shown = contents;
    let format = null;
    if (typeof contents.text === "string" && JSON_MIME.test(text(contents.mimeType))) {
      try {
        shown = { ...contents, text: pretty(JSON.parse(contents.text)) };
        format = "json";
      } catch (error) {
        format = null; // not valid JSON after all: shown as it came
      }
    }
    const mime = text(contents.mimeType);
    const title = h("div", "block-title", h("code", {}, text(contents.uri)), mime && ` · ${mime}`, format && " · pretty-printed");
    const block = h("div", { class: "block resource", testid: "resource-content" }, title, resourceBody(shown));
    block.dataset.uri = text(contents.uri);
    if (format) block.dataset.format = format;
    return block;
  }

  // ------------------------------------------------------------------ URI templates (RFC 6570)

  const OPERATORS = {
    "": { first: "", separator: ",", named: false, reserved: false },
    "+": { first: "", separator: ",", named: false, reserved: true },
    "#": { first: "#", separator: ",", named: false, reserved: true },
    ".": { first: ".", separator: ".", named: false, reserved: false },
    "/": { first: "/", separator: "/", named: false, reserved: false },
    ";": { first: ";", separator: ";", named: true, reserved: false },
    "?": { first: "?", separator: "&", named: true, reserved: false },
    "&": { first: "&", separator: "&", named: true, reserved: false },
  };
  const UNRESERVED = /[A-Za-z0-9\-._~]/;
  const RESERVED = /[:/?#[\]@!$&'()*+,;=]/;

  /** The parts of a template: literal strings and expressions {operator, names}. */
  function parseTemplate(template) {
    const parts = [];
    let position = 0;
    for (const found of template.matchAll(/\{([^{}]*)\}/g)) {
      parts.push(template.slice(position, found.index));
      const expression = found[1];
      const operator = expression !== "" && "+#./;?&".includes(expression[0]) ? expression[0] : "";
      const names = expression
        .slice(operator.length)
        .split(",")
        .map((spec) => spec.replace(/(\*|:\d+)$/, "").trim())
        .filter(Boolean);
      parts.push({ operator, names });
      position = found.index + found[0].length;
    }
    parts.push(template.slice(position));
    return parts;
  }

  const templateVariables = (parts) => [...new Set(parts.filter(isObject).flatMap((part) => part.names))];

  function encode(value, reserved) {
    let out = "";
    for (const char of value) {
      const keep = UNRESERVED.test(char) || (reserved && RESERVED.test(char));
      out += keep ? char : encodeURIComponent(char).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
    }
    return out;
  }

  /** Expand the template; a variable left empty is undefined (left out, RFC 6570 3.2.1). */
  function expandTemplate(parts, values) {
    return parts
      .map((part) => {
        if (!isObject(part)) return part;
        const rule = OPERATORS[part.operator];
        const expanded = part.names
          .filter((name) => text(values[name]) !== "")
          .map((name) => {
            const value = encode(values[name], rule.reserved);
            return rule.named ? `${name}=${value}` : value;
          });
        return expanded.length ? rule.first + expanded.join(rule.separator) : "";
      })
      .join("");
  }

  function templateDetail(template, output, typed) {
    const parts = parseTemplate(template.uriTemplate);
    const variables = templateVariables(parts);
    const inputs = new Map();
    const values = () => Object.fromEntries([...inputs].map(([name, input]) => [name, input.value]));
    const others = (name) => () => Object.fromEntries(Object.entries(values()).filter(([key, value]) => key !== name && value !== ""));
    const ref = { type: "ref/resource", uri: template.uriTemplate };
    const fields = variables.map((name) => {
      const id = nextId("template-field");
      const { input, suggestions } = completingInput(ref, name, others(name), { id, testid: "template-field", "data-variable": name });
      input.value = text(typed[name]);
      inputs.set(name, input);
      return field(id, name, true, "", "", [input, suggestions]);
    });
    const uri = h("code", { testid: "template-uri" }, "");
    const missing = h("p", { class: "missing", testid: "template-missing" }, "");
    const update = () => {
      uri.textContent = expandTemplate(parts, values());
      const empty = variables.filter((name) => inputs.get(name).value === "");
      missing.hidden = empty.length === 0;
      missing.textContent = `Not filled in: ${empty.join(", ")}`;
    };
    const read = h("button", { type: "submit", class: "primary", testid: "resource-read" }, "Read");
    const form = h(
      "form",
      { novalidate: true, testid: "template-form" },
      h("span", "section-title", "Variables"),
      fields.length ? fields : h("p", "muted", "This template has no variables."),
      h("div", "template-uri", "URI ", uri),
      missing,
      h("div", "actions", read),
    );
    form.addEventListener("input", update);
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      readResource(expandTemplate(parts, values()), output);
    });
    update();
    const head = detailHead(text(template.name) || template.uriTemplate, text(template.title), template.uriTemplate, text(template.mimeType), text(template.description));
    return h("div", {}, head, form);
  }

  // ------------------------------------------------------------------ prompts

  const promptArguments = (prompt) => list(prompt.arguments).filter((argument) => typeof argument.name === "string");

  function renderPromptList() {
    $("prompt-list").replaceChildren(...view.prompts.map(promptItem));
    $("prompt-list-empty").hidden = view.prompts.length > 0;
  }

  function promptItem(prompt) {
    const names = promptArguments(prompt).map((argument) => (argument.required ? `${argument.name}*` : argument.name));
    const button = listItem(
      "prompt-item",
      prompt.name === view.prompt,
      () => selectPrompt(prompt.name),
      prompt.name,
      text(prompt.title) && h("span", "primitive-title", text(prompt.title)),
      firstLine(prompt.description) && h("span", "primitive-summary muted", firstLine(prompt.description)),
      h("span", { class: "primitive-facts muted", testid: "prompt-item-arguments" }, names.length ? `(${names.join(", ")})` : "no arguments"),
    );
    button.dataset.prompt = prompt.name;
    return h("li", {}, button);
  }

  function selectPrompt(name) {
    view.prompt = name;
    view.promptShown = null;
    $("prompt-detail").replaceChildren();
    renderPromptList();
    syncPromptDetail();
    showView("prompts-view");
  }

  function syncPromptDetail() {
    const detail = $("prompt-detail");
    if (view.prompt === null) return;
    const prompt = view.prompts.find((item) => item.name === view.prompt);
    if (!prompt) {
      view.promptShown = null;
      const gone = h("p", { class: "muted placeholder", testid: "prompt-gone" }, `The server does not list ${view.prompt} now.`);
      return detail.replaceChildren(gone);
    }
    const shown = JSON.stringify(prompt);
    if (shown === view.promptShown) return;
    view.promptShown = shown;
    const old = detail.querySelector('[data-testid="exchange-output"]');
    const typed = {};
    for (const input of detail.querySelectorAll('[data-testid="prompt-argument"]')) typed[input.dataset.argument] = input.value;
    const output = old || h("div", { class: "exchange-output", testid: "exchange-output" });
    detail.replaceChildren(promptDetail(prompt, output, typed), output);
  }

  /** One text input per argument. Empty fields are left out of the request, and a missing
   *  required one is only pointed out: the server's own error is what the developer sees. */
  function promptDetail(prompt, output, typed) {
    const declared = promptArguments(prompt);
    const inputs = new Map();
    const filled = () => Object.fromEntries([...inputs].filter(([, input]) => input.value !== "").map(([name, input]) => [name, input.value]));
    const others = (name) => () => Object.fromEntries(Object.entries(filled()).filter(([key]) => key !== name));
    const ref = { type: "ref/prompt", name: prompt.name };
    const fields = declared.map((argument) => {
      const id = nextId("prompt-argument");
      const attributes = { id, testid: "prompt-argument", "data-argument": argument.name, "aria-required": argument.required ? "true" : "false" };
      const { input, suggestions } = completingInput(ref, argument.name, others(argument.name), attributes);
      input.value = text(typed[argument.name]);
      inputs.set(argument.name, input);
      return field(id, argument.name, argument.required === true, text(argument.title), text(argument.description), [input, suggestions]);
    });
    const missing = h("p", { class: "missing", testid: "prompt-missing" }, "");
    const update = () => {
      const empty = declared.filter((argument) => argument.required === true && inputs.get(argument.name).value === "");
      missing.hidden = empty.length === 0;
      missing.textContent = `Required: ${empty.map((argument) => argument.name).join(", ")}`;
    };
    const get = h("button", { type: "submit", class: "primary", testid: "prompt-get" }, "Get");
    const form = h(
      "form",
      { novalidate: true, testid: "prompt-form" },
      h("span", "section-title", "Arguments"),
      fields.length ? fields : h("p", "muted", "This prompt takes no arguments."),
      missing,
      h("div", "actions", get),
    );
    form.addEventListener("input", update);
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      const body = { name: prompt.name, arguments: filled() };
      exchange(output, "/api/prompts/get", body, messagesView, "prompt-error");
    });
    update();
    const head = [
      h("div", "tool-head", h("h2", { testid: "primitive-name" }, prompt.name), text(prompt.title) && h("span", "muted", text(prompt.title))),
      text(prompt.description) && h("pre", { class: "description", testid: "primitive-description" }, text(prompt.description)),
    ];
    return h("div", {}, head, form);
  }

  function messagesView(result) {
    const messages = Array.isArray(result.messages) ? result.messages : [];
    const description = text(result.description);
    return h(
      "div",
      { class: "result", testid: "prompt-messages" },
      h("span", "result-label", `Messages (${messages.length})`),
      description && h("p", { class: "prompt-description", testid: "prompt-result-description" }, description),
      messages.length ? messages.map(messageView) : h("p", "muted", "No messages."),
    );
  }

  function messageView(message) {
    const role = isObject(message) && typeof message.role === "string" ? message.role : "?";
    const kind = role === "user" || role === "assistant" ? role : "other";
    const content = isObject(message) ? message.content : message;
    const node = h(
      "div",
      { class: `message role-${kind}`, testid: "prompt-message" },
      h("div", { class: "message-role", testid: "message-role" }, role),
      contentBlock(content),
    );
    node.dataset.role = role;
    return node;
  }

  // ------------------------------------------------------------------ wiring

  shared.stateListeners.push(onState);
  if (shared.state) onState(shared.state); // a state that arrived while this file loaded
})();
