// The server's questions, answered at the page: while a tool runs it may ask the user for
// input (elicitation/create: a form, or a URL to visit) or ask the client's model
// (sampling/createMessage: the person at the page types the model's reply). Each open question
// is shown above the tabs until it is answered or its call ends.
//
// Loaded after inspector.js, whose helpers it uses through the one global object
// window.toolwireInspector (h, api, pretty, isObject, contentBlock, buildForm, findCall,
// state, stateListeners, callListeners, questionListeners; described at the top of
// inspector.js). This file adds nothing to that object: it only registers listeners.
//
// As in inspector.js, everything the server sends is untrusted and reaches the page only
// through textContent and attributes, never as HTML; a URL it asks the user to visit is shown
// as text, never followed.
"use strict";

(function () {
  const shared = window.toolwireInspector;
  const { h, api, pretty, isObject, contentBlock, buildForm, findCall } = shared;
  const $ = (id) => document.getElementById(id);

  const TITLES = { elicitation: "The server asks you", sampling: "The server asks its model" };
  const shown = new Map(); // question id -> {question, node, refreshCall()}

  const text = (value) => (typeof value === "string" ? value : "");
  const isQuestion = (value) => isObject(value) && Number.isInteger(value.id);
  const order = (question) => [typeof question.askedAt === "number" ? question.askedAt : 0, question.id];
  const before = (a, b) => {
    const [x, y] = [order(a), order(b)];
    return x[0] < y[0] || (x[0] === y[0] && x[1] < y[1]);
  };

  // ------------------------------------------------------------------ the list

  /** A question whose call has ended cannot change that call any more. The backend closes
   *  such questions itself; the page also drops them at once, so a question never outlives
   *  the call that asked it on screen. */
  function stale(question) {
    const call = Number.isInteger(question.call) ? findCall(question.call) : null;
    return call !== null && call.status !== "running";
  }

  /** On (re)connect the state holds every open question: drop the others, add the new ones,
   *  and leave the ones already shown alone (with what was typed into them). */
  function onState(state) {
    const all = Array.isArray(state.questions) ? state.questions : [];
    const questions = all.filter((question) => isQuestion(question) && !stale(question));
    const open = new Set(questions.map((question) => question.id));
    for (const id of [...shown.keys()]) if (!open.has(id)) remove(id);
    for (const question of questions) if (!shown.has(question.id)) add(question);
    for (const entry of shown.values()) entry.refreshCall();
    updatePanel();
  }

  function onQuestion(event) {
    if (!isQuestion(event)) return;
    if (event.status === "closed") remove(event.id);
    else if (event.status === "open" && !shown.has(event.id) && !stale(event)) add(event);
    updatePanel();
  }

  function onCall(call) {
    for (const [id, entry] of [...shown]) {
      if (entry.question.call !== call.id) continue;
      if (call.status === "running") entry.refreshCall();
      else remove(id);
    }
    updatePanel();
  }

  /** Oldest first. Only the new node is inserted, so typing in another one is not disturbed. */
  function add(question) {
    const entry = questionView(question);
    const later = [...shown.values()].filter((other) => before(question, other.question));
    const next = later.sort((a, b) => (before(a.question, b.question) ? -1 : 1))[0];
    $("question-list").insertBefore(entry.node, next ? next.node : null);
    shown.set(question.id, entry);
  }

  function remove(id) {
    const entry = shown.get(id);
    if (!entry) return;
    entry.node.remove();
    shown.delete(id);
  }

  function updatePanel() {
    $("questions").hidden = shown.size === 0;
    $("questions-count").textContent = shown.size > 1 ? `(${shown.size})` : "";
  }

  // ------------------------------------------------------------------ one question

  function callLabel(question) {
    if (!Number.isInteger(question.call)) return "asked outside any known tool call";
    const call = findCall(question.call);
    return call ? `asked by call #${call.id} ${call.tool}` : `asked by call #${question.call}`;
  }

  /** The frame every question shares: title, the call that asked, the body, an error line,
   *  the buttons. `answer(action)` gives the body to POST, or a string saying what is wrong. */
  function questionView(question) {
    const kind = question.kind === "sampling" ? "sampling" : "elicitation";
    const params = isObject(question.params) ? question.params : {};
    const call = h("span", { class: "muted", testid: "question-call" }, callLabel(question));
    const error = h("p", { class: "form-error question-error", testid: "question-error", role: "alert", hidden: true });
    const body = kind === "sampling" ? samplingBody(params) : elicitationBody(params);
    const buttons = body.actions.map(([action, label, testid]) =>
      h("button", { type: action === "accept" ? "submit" : "button", class: action === "accept" ? "primary" : "", testid, "data-action": action }, label),
    );
    const form = h("form", { class: "question-form", testid: "question-form", novalidate: true }, body.nodes, error, h("div", "actions", buttons));
    const node = h(
      "article",
      { class: `question question-${kind}`, testid: "question", "data-question-id": question.id, "data-kind": kind, "aria-label": TITLES[kind] },
      h("div", "question-head", h("h2", {}, TITLES[kind]), call),
      form,
      h("details", "question-params", h("summary", "block-title", "params"), h("pre", {}, pretty(params))),
    );
    const showError = (message) => {
      error.textContent = message;
      error.hidden = !message;
    };
    const send = async (action) => {
      const answer = body.answer(action);
      if (typeof answer === "string") return showError(answer);
      showError("");
      for (const button of buttons) button.disabled = true;
      try {
        await api("POST", `/api/questions/${question.id}/answer`, answer);
        node.dataset.state = "answered"; // its `closed` event removes it
      } catch (failure) {
        showError(failure.message);
        for (const button of buttons) button.disabled = false;
      }
    };
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      send("accept");
    });
    for (const button of buttons) {
      if (button.dataset.action !== "accept") button.addEventListener("click", () => send(button.dataset.action));
    }
    const refreshCall = () => (call.textContent = callLabel(question));
    return { question, node, refreshCall };
  }

  const ELICITATION_ACTIONS = [
    ["accept", "Accept", "question-accept"],
    ["decline", "Decline", "question-decline"],
    ["cancel", "Cancel", "question-cancel"],
  ];

  function elicitationBody(params) {
    const message = h("pre", { class: "question-message", testid: "question-message" }, text(params.message));
    if (params.mode === "url") return urlBody(params, message);
    const schema = isObject(params.requestedSchema) ? params.requestedSchema : { type: "object", properties: {} };
    const form = buildForm(schema, "The server asks for no fields: accept, decline or cancel.");
    form.write(defaults(schema));
    const answer = (action) => {
      if (action !== "accept") return { action };
      const content = form.read() || {};
      const problems = contentProblems(schema, content, form.problems());
      return problems.length ? problems.join("; ") : { action, content };
    };
    return { nodes: [message, h("div", "question-fields", form.node)], actions: ELICITATION_ACTIONS, answer };
  }

  /** URL mode: the server wants the user to visit a page (say, to sign in). The URL is shown
   *  as selectable text, not a link: nothing opens it but the "Open the page" button, there
   *  only for an http(s) URL, in a new tab that cannot reach back to the inspector. */
  function urlBody(params, message) {
    const address = text(params.url);
    const url = h("code", { class: "question-url", testid: "question-url" }, address);
    const web = /^https?:\/\//i.test(address);
    const open = web && h("button", {
      type: "button", testid: "question-open",
      onclick: () => window.open(address, "_blank", "noopener,noreferrer"),
    }, "Open the page");
    const note = h("div", "muted", "Read the address; open it if you trust it, then accept, decline or cancel.");
    const id = text(params.elicitationId) && h("div", "muted", `elicitation id ${params.elicitationId}`);
    return { nodes: [message, h("div", "block", url, " ", open), note, id], actions: ELICITATION_ACTIONS, answer: (action) => ({ action }) };
  }

  /** The schema's defaults, so the form starts as the server suggests. */
  function defaults(schema) {
    const properties = isObject(schema.properties) ? schema.properties : {};
    const out = {};
    for (const [name, property] of Object.entries(properties)) {
      if (isObject(property) && "default" in property) out[name] = property.default;
    }
    return out;
  }

  /** What a client should check before it accepts: required fields and the declared bounds. */
  function contentProblems(schema, content, formProblems) {
    const missing = formProblems.filter((problem) => problem.missing).map((problem) => problem.path);
    const problems = missing.length ? [`Missing required: ${missing.join(", ")}`] : [];
    for (const problem of formProblems) if (!problem.missing) problems.push(`${problem.path}: ${problem.text}`);
    const properties = isObject(schema.properties) ? schema.properties : {};
    for (const [name, value] of Object.entries(content)) {
      const property = isObject(properties[name]) ? properties[name] : {};
      if (typeof value === "number") {
        if (property.type === "integer" && !Number.isInteger(value)) problems.push(`${name}: a whole number`);
        if (typeof property.minimum === "number" && value < property.minimum) problems.push(`${name}: at least ${property.minimum}`);
        if (typeof property.maximum === "number" && value > property.maximum) problems.push(`${name}: at most ${property.maximum}`);
      } else if (typeof value === "string") {
        if (typeof property.minLength === "number" && value.length < property.minLength) problems.push(`${name}: at least ${property.minLength} characters`);
        if (typeof property.maxLength === "number" && value.length > property.maxLength) problems.push(`${name}: at most ${property.maxLength} characters`);
      }
    }
    return problems;
  }

  // ------------------------------------------------------------------ sampling

  function samplingBody(params) {
    const messages = (Array.isArray(params.messages) ? params.messages : []).map(samplingMessage);
    const facts = [
      typeof params.maxTokens === "number" && `max tokens ${params.maxTokens}`,
      typeof params.temperature === "number" && `temperature ${params.temperature}`,
      Array.isArray(params.stopSequences) && params.stopSequences.length > 0 && `stop at ${JSON.stringify(params.stopSequences)}`,
    ].filter(Boolean);
    const system = text(params.systemPrompt)
      && h("div", "question-system", h("span", "block-title", "system prompt "), h("span", { testid: "question-system-prompt" }, params.systemPrompt));
    const reply = h("textarea", { rows: 4, testid: "question-reply", "aria-label": "The model's reply", placeholder: "Type the reply the model would give…" });
    const answer = (action) => {
      if (action !== "accept") return { action };
      return reply.value.trim() ? { action, text: reply.value } : "Type the reply first.";
    };
    const nodes = [
      h("div", { class: "question-messages", testid: "question-message" }, messages),
      system,
      facts.length > 0 && h("div", { class: "question-facts muted", testid: "question-facts" }, facts.join(" · ")),
      h("label", { class: "section-title" }, "Your reply, as the model", reply),
    ];
    return { nodes, actions: [["accept", "Send", "question-accept"], ["decline", "Decline", "question-decline"]], answer };
  }

  function samplingMessage(message) {
    const role = isObject(message) ? text(message.role) || "?" : "?";
    const content = isObject(message) ? message.content : message;
    const blocks = Array.isArray(content) ? content : [content];
    const node = h(
      "div",
      { class: `message role-${role === "assistant" ? "assistant" : "user"}`, testid: "sampling-message" },
      h("div", { class: "message-role", testid: "message-role" }, role),
      blocks.map(contentBlock),
    );
    node.dataset.role = role;
    return node;
  }

  // ------------------------------------------------------------------ wiring

  shared.stateListeners.push(onState);
  shared.questionListeners.push(onQuestion);
  shared.callListeners.push(onCall);
  if (shared.state) onState(shared.state); // a state that arrived while this file loaded
})();
