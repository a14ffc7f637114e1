// The toolwire inspector page: plain DOM code, no framework, no build step.
//
// Everything the server under test sends (tool names, descriptions, results, logs) is untrusted:
// it reaches the page only through textContent, attributes and data: URLs built here, never as
// HTML. The backend contract (endpoints, event stream, shapes) is described in the inspector
// package; this file follows it.
//
// The Resources and Prompts tabs live in primitives.js, the server's questions in
// questions.js, the page's access (its token, a server that refused the inspector) in
// access.js, the views of MCP Apps in apps.js, all loaded after this file. They share one global object,
// window.toolwireInspector, filled here:
//   h, api, pretty, isObject, firstLine, clock  DOM and backend helpers
//   token, connect(onLost), setConnection(...)  the page's token; the event stream, which
//                                               access.js opens once the token is known good
//   contentBlock(block), resourceBody(contents) the content renderers
//   trafficMessage(entry), showView(viewId)     the traffic renderer, the tab switch
//   buildForm(schema, emptyText)                the form builder of tool arguments: a field
//                                               {node, read(), write(value), problems()}
//   findCall(id), findTool(name)                the Call with that id, the tool of that
//                                               name, or null
//   activeCall()                                the id of the call shown under the form
//   state                                       the last State received (null before)
//   stateListeners                              functions called with every State, after
//                                               this file has rendered it
//   callListeners, questionListeners            functions called with every `call` event
//                                               (after it is merged) and `question` event
//   activeCallListeners                         functions called with the new activeCall()
//                                               when it changes
"use strict";

(function () {
  // ------------------------------------------------------------------ DOM helpers

  const $ = (id) => document.getElementById(id);

  /** Create an element. `props` is a class name, or attributes ("testid" -> data-testid,
   *  "class", "on..." -> listeners); children are nodes or strings (added as text). */
  function h(tag, props, ...children) {
    const node = document.createElement(tag);
    const attributes = typeof props === "string" ? { class: props } : props || {};
    for (const [key, value] of Object.entries(attributes)) {
      if (value === undefined || value === null || value === false) continue;
      if (key === "testid") node.dataset.testid = value;
      else if (key === "class") node.className = value;
      else if (key.startsWith("on") && typeof value === "function") {
        node.addEventListener(key.slice(2), value);
      } else node.setAttribute(key, value === true ? "" : String(value));
    }
    appendAll(node, children);
    return node;
  }

  function appendAll(node, children) {
    for (const child of children) {
      if (child === null || child === undefined || child === false) continue;
      if (Array.isArray(child)) appendAll(node, child);
      else node.append(child instanceof Node ? child : document.createTextNode(String(child)));
    }
  }

  const pretty = (value) => JSON.stringify(value, null, 2);
  const isObject = (value) => value !== null && typeof value === "object" && !Array.isArray(value);

  function clock(ms) {
    if (typeof ms !== "number") return "";
    const date = new Date(ms);
    const hms = date.toLocaleTimeString([], { hour12: false });
    return `${hms}.${String(date.getMilliseconds()).padStart(3, "0")}`;
  }

  function duration(call) {
    const ms = call.durationMs;
    if (typeof ms !== "number") return call.status === "running" ? "running…" : "";
    if (ms < 10) return `${ms.toFixed(1)} ms`;
    return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(2)} s`;
  }

  // ------------------------------------------------------------------ backend

  const token = readToken();

  /** The token comes in the URL once; sessionStorage keeps it for a reload of the tab. */
  function readToken() {
    const fromUrl = new URLSearchParams(location.search).get("token");
    try {
      if (fromUrl) sessionStorage.setItem("toolwire-token", fromUrl);
      return fromUrl || sessionStorage.getItem("toolwire-token") || "";
    } catch (error) {
      return fromUrl || "";
    }
  }

  async function api(method, path, body) {
    const init = { method, headers: { "X-Toolwire-Token": token } };
    if (body !== undefined) {
      init.headers["Content-Type"] = "application/json";
      init.body = JSON.stringify(body);
    }
    const response = await fetch(path, init);
    const data = await response.json().catch(() => null);
    if (!response.ok) {
      throw new Error((data && data.error) || `${method} ${path}: HTTP ${response.status}`);
    }
    return data;
  }

  /** EventSource reconnects by itself; the first `state` event after it resyncs the page.
   *  `onLost(source)` is told of each lost connection (access.js finds out why). */
  function connect(onLost) {
    const source = new EventSource(`/api/events?token=${encodeURIComponent(token)}`);
    source.addEventListener("open", () => setConnection("live"));
    source.addEventListener("error", () => {
      setConnection("reconnecting");
      onLost(source);
    });
    source.addEventListener("state", (event) => onState(JSON.parse(event.data)));
    source.addEventListener("call", (event) => onCall(JSON.parse(event.data)));
    source.addEventListener("log", (event) => onLog(JSON.parse(event.data)));
    source.addEventListener("question", (event) => {
      const question = JSON.parse(event.data);
      for (const listener of shared.questionListeners) listener(question);
    });
  }

  function setConnection(state, label = state, hint = "") {
    $("connection").dataset.state = state;
    $("connection").textContent = label;
    $("connection").title = hint;
  }

  // ------------------------------------------------------------------ page state

  const app = {
    tools: [],
    calls: new Map(), // id -> Call
    logs: [],
    selected: null, // the selected tool's name
    schemaKey: null, // its inputSchema as JSON, to notice a changed schema
    form: null, // the root field of the form
    jsonMode: false,
    activeCall: null, // the call shown under the form
    historyCall: null, // the call selected in the history
  };

  const findTool = (name) => app.tools.find((tool) => tool.name === name) || null;

  /** The call shown under the form changed (a new call, or another tool picked). */
  function setActiveCall(id) {
    app.activeCall = id;
    for (const listener of shared.activeCallListeners) listener(id);
  }

  function onState(state) {
    shared.state = state;
    app.tools = Array.isArray(state.tools) ? state.tools : [];
    app.calls = new Map((state.calls || []).map((call) => [call.id, call]));
    app.logs = (state.logs || []).slice();
    renderHeader(state.server || {});
    syncSelectedTool();
    renderToolList();
    renderRun();
    renderHistory();
    renderLogs();
    for (const listener of shared.stateListeners) listener(state);
  }

  /** Keep the newest copy of a call: a finished call never goes back to running. */
  function mergeCall(call) {
    const known = app.calls.get(call.id);
    if (known && known.status !== "running" && call.status === "running") return;
    app.calls.set(call.id, call);
  }

  function onCall(call) {
    mergeCall(call);
    if (call.id === app.activeCall) renderRun();
    renderHistoryList();
    if (call.id === app.historyCall) renderHistoryDetail();
    for (const listener of shared.callListeners) listener(call);
  }

  /** A new log entry, or a longer copy of one shown (more lines of its traceback came). */
  function onLog(log) {
    const known = app.logs.findIndex((entry) => entry.id === log.id);
    if (known >= 0) {
      app.logs[known] = log;
      const shown = $("logs").querySelector(`[data-log-id="${Number(log.id)}"]`);
      if (shown) shown.replaceWith(logLine(log));
      return;
    }
    app.logs.push(log);
    if (app.logs.length > 1000) app.logs.splice(0, app.logs.length - 1000);
    $("logs").append(logLine(log));
    updateLogCount();
  }

  // ------------------------------------------------------------------ header

  function renderHeader(server) {
    const status = server.status || "starting";
    $("server-name").textContent = server.name || server.file || "…";
    $("server-version").textContent = server.version ? `v${server.version}` : "";
    $("server-title").textContent = server.title || "";
    $("server-file").textContent = server.file || "";
    $("protocol-version").textContent = server.protocolVersion || "–";
    $("server-status").textContent = status;
    $("server-status").dataset.status = status;
    $("server-status").dataset.generation = String(server.generation ?? 0);
    $("failure-banner").hidden = status !== "failed";
    $("failure-text").textContent = status === "failed" ? server.error || "(no details)" : "";
    $("instructions").hidden = !server.instructions;
    $("instructions-text").textContent = server.instructions || "";
    document.title = `${server.name || server.file || "server"} – toolwire inspector`;
  }

  // ------------------------------------------------------------------ tool list

  const toolTitle = (tool) => tool.title || (tool.annotations && tool.annotations.title) || "";
  const firstLine = (text) => (typeof text === "string" ? text.trim().split("\n")[0] : "");

  /** destructiveHint only means something for a tool that is not read-only. */
  function badges(tool) {
    const hints = tool.annotations || {};
    const shown = [];
    if (hints.readOnlyHint === true) shown.push("read-only");
    if (hints.readOnlyHint !== true && hints.destructiveHint === true) shown.push("destructive");
    if (hints.idempotentHint === true) shown.push("idempotent");
    if (hints.openWorldHint === true) shown.push("open-world");
    const ui = isObject(tool._meta) && isObject(tool._meta.ui) ? tool._meta.ui : null;
    if (ui && Array.isArray(ui.visibility) && !ui.visibility.includes("model")) shown.push("app-only");
    else if (ui && typeof ui.resourceUri === "string") shown.push("app");
    return shown.map((name) => h("span", { class: `badge badge-${name}`, testid: `badge-${name}` }, name));
  }

  function renderToolList() {
    const query = $("tool-filter").value.trim().toLowerCase();
    const matches = (tool) =>
      [tool.name, toolTitle(tool), tool.description || ""].join("\n").toLowerCase().includes(query);
    const shown = app.tools.filter(matches);
    $("tool-list").replaceChildren(...shown.map(toolItem));
    $("tool-list-empty").hidden = shown.length > 0;
    $("tool-list-empty").textContent = app.tools.length ? "No tool matches the filter." : "No tools.";
  }

  function toolItem(tool) {
    const selected = tool.name === app.selected;
    const title = toolTitle(tool);
    const summary = firstLine(tool.description);
    const button = h(
      "button",
      { type: "button", class: selected ? "tool-item selected" : "tool-item", testid: "tool-item" },
      h("span", { class: "tool-item-name", testid: "tool-item-name" }, tool.name),
      title && h("span", { class: "tool-item-title", testid: "tool-item-title" }, title),
      summary && h("span", { class: "tool-item-summary", testid: "tool-item-summary" }, summary),
      h("span", "badges", badges(tool)),
    );
    button.dataset.tool = tool.name;
    if (selected) button.setAttribute("aria-current", "true");
    button.addEventListener("click", () => selectTool(tool.name));
    return h("li", {}, button);
  }

  function selectTool(name) {
    if (name !== app.selected) {
      app.selected = name;
      setActiveCall(null);
      app.form = null;
      buildToolPanel();
    }
    showView("tool-view");
    renderToolList();
  }

  /** After a state event: keep the selected tool and what was typed. A tool that is gone
   *  (say, the file has a syntax error for a moment) stays selected and comes back with its
   *  form when the server lists it again. */
  function syncSelectedTool() {
    const tool = findTool(app.selected);
    showPanel(tool);
    if (tool && JSON.stringify(tool.inputSchema || {}) !== app.schemaKey) buildToolPanel();
    else if (tool) fillToolHead(tool);
  }

  // ------------------------------------------------------------------ tool panel

  function showPanel(tool) {
    const placeholder = $("tool-placeholder");
    placeholder.hidden = Boolean(tool);
    placeholder.textContent = app.selected === null ? "Pick a tool on the left." : `The server does not list ${app.selected} now.`;
    $("tool-panel").hidden = !tool;
  }

  function fillToolHead(tool) {
    $("tool-name").textContent = tool.name;
    $("tool-title").textContent = toolTitle(tool);
    $("tool-description").textContent = tool.description || "";
    $("tool-description").hidden = !tool.description;
  }

  function buildToolPanel() {
    const tool = findTool(app.selected);
    showPanel(tool);
    if (!tool) return;
    fillToolHead(tool);
    const previous = app.form ? app.form.read() : undefined;
    app.schemaKey = JSON.stringify(tool.inputSchema || {});
    app.form = buildForm(tool.inputSchema || {});
    $("form-fields").replaceChildren(app.form.node);
    if (previous !== undefined) app.form.write(previous);
    if (app.jsonMode) $("json-editor").value = pretty(app.form.read() || {});
    showJsonError("");
    updateProblems();
    renderRun();
  }

  /** Required fields left empty are listed, but the call still goes out: the server's own
   *  answer to invalid arguments is worth seeing. */
  function updateProblems() {
    const problems = app.form && !app.jsonMode ? app.form.problems() : [];
    const missing = problems.filter((p) => p.missing).map((p) => p.path);
    const other = problems.filter((p) => !p.missing).map((p) => `${p.path}: ${p.text}`);
    const parts = missing.length ? [`Missing required: ${missing.join(", ")}`] : [];
    if (other.length) parts.push(other.join("; "));
    $("missing-fields").hidden = problems.length === 0;
    $("missing-fields").textContent = parts.join(". ");
  }

  function parseArguments(text) {
    if (!text.trim()) return { value: {} };
    let value;
    try {
      value = JSON.parse(text);
    } catch (error) {
      return { error: `Invalid JSON: ${error.message}` };
    }
    return isObject(value) ? { value } : { error: "The arguments must be a JSON object." };
  }

  function showJsonError(text) {
    $("json-error").textContent = text;
    $("json-error").hidden = !text;
  }

  function setJsonMode(on) {
    app.jsonMode = on;
    $("json-mode").hidden = !on;
    $("form-fields").hidden = on;
    $("json-toggle").setAttribute("aria-pressed", on ? "true" : "false");
    $("json-toggle").textContent = on ? "Form" : "JSON";
    updateProblems();
  }

  /** Form -> JSON serializes the form; JSON -> form fills it when the text parses. */
  function toggleJson() {
    if (!app.form) return;
    if (!app.jsonMode) {
      $("json-editor").value = pretty(app.form.read() || {});
      showJsonError("");
      return setJsonMode(true);
    }
    const parsed = parseArguments($("json-editor").value);
    if (parsed.error) return showJsonError(parsed.error);
    const unknown = Object.keys(parsed.value).filter((key) => !app.form.keys.includes(key));
    if (unknown.length) {
      return showJsonError(`The form has no field for: ${unknown.join(", ")} (stayed in JSON mode)`);
    }
    app.form.write(parsed.value);
    showJsonError("");
    setJsonMode(false);
  }

  async function submitCall(event) {
    event.preventDefault();
    if (!app.selected || !app.form) return;
    let args;
    if (app.jsonMode) {
      const parsed = parseArguments($("json-editor").value);
      if (parsed.error) return showJsonError(parsed.error);
      args = parsed.value;
    } else {
      updateProblems();
      if (app.form.problems().some((p) => p.blocking)) return; // a JSON field that does not parse
      args = app.form.read() || {};
    }
    $("call-button").disabled = true;
    try {
      const call = await api("POST", "/api/calls", { tool: app.selected, arguments: args });
      mergeCall(call);
      setActiveCall(call.id);
      renderRun();
      renderHistoryList();
    } catch (error) {
      $("run").replaceChildren(h("p", { class: "form-error", testid: "call-error" }, error.message));
    } finally {
      $("call-button").disabled = false;
    }
  }

  async function cancelCall(id) {
    try {
      mergeCall(await api("POST", `/api/calls/${id}/cancel`));
    } catch (error) {
      return; // it finished meanwhile; its event brings the outcome
    }
    renderRun();
  }

  // ------------------------------------------------------------------ form builder
  //
  // A field is {node, read(), write(value), problems()}. read() gives the JSON value, or
  // undefined when the field is left empty (then it is omitted from the arguments).

  let fieldIds = 0;
  const nextId = () => `field-${++fieldIds}`;
  const joinPath = (base, key) => (base === "" ? String(key) : `${base}.${key}`);

  function lookup(root, ref) {
    if (typeof ref !== "string" || !ref.startsWith("#/")) return null;
    let node = root;
    for (const raw of ref.slice(2).split("/")) {
      const key = decodeURIComponent(raw).replace(/~1/g, "/").replace(/~0/g, "~");
      if (!node || typeof node !== "object" || !(key in node)) return null;
      node = node[key];
    }
    return isObject(node) ? node : null;
  }

  /** Follow $ref (to #/$defs/... or #/definitions/...) and single-member allOf. */
  function resolve(schema, root) {
    let current = isObject(schema) ? schema : {};
    for (let hops = 0; hops < 32; hops++) {
      if (typeof current.$ref === "string") {
        const target = lookup(root, current.$ref);
        if (!target) return current;
        const { $ref, ...rest } = current;
        current = { ...target, ...rest };
      } else if (Array.isArray(current.allOf) && current.allOf.length === 1) {
        const { allOf, ...rest } = current;
        current = { ...resolve(allOf[0], root), ...rest };
      } else return current;
    }
    return current;
  }

  const isNullSchema = (schema) => schema.type === "null" || (schema.const === null && !schema.type);

  /** Optional[X] shapes (anyOf/oneOf with a null branch, type [X, "null"]) become X + nullable. */
  function simplify(schema, root) {
    let current = resolve(schema, root);
    let nullable = false;
    const union = current.anyOf || current.oneOf;
    if (Array.isArray(union)) {
      const branches = union.map((branch) => resolve(branch, root));
      const others = branches.filter((branch) => !isNullSchema(branch));
      if (others.length === 1 && others.length < branches.length) {
        const { anyOf, oneOf, ...rest } = current;
        current = { ...others[0], ...rest };
        nullable = true;
      }
    }
    if (Array.isArray(current.type)) {
      const types = current.type.filter((type) => type !== "null");
      nullable = nullable || types.length < current.type.length;
      if (types.length === 1) current = { ...current, type: types[0] };
    }
    return { schema: current, nullable };
  }

  /** The options of a oneOf/anyOf whose every branch is a const (titled enums), else null. */
  function constOptions(schema) {
    const union = Array.isArray(schema.oneOf) ? schema.oneOf : schema.anyOf;
    if (!Array.isArray(union) || !union.length) return null;
    return union.every((branch) => isObject(branch) && "const" in branch) ? union : null;
  }

  function kindOf(schema) {
    if (Array.isArray(schema.enum) && schema.enum.length) return "enum";
    if ("const" in schema || constOptions(schema)) return "enum";
    if (schema.anyOf || schema.oneOf || schema.allOf || Array.isArray(schema.type)) return "json";
    const type = schema.type || (schema.properties ? "object" : undefined);
    if (type === "number" || type === "integer") return "number";
    if (type === "string" || type === "boolean") return type;
    if (type === "array") return isObject(schema.items) ? "array" : "json";
    return type === "object" && schema.properties ? "object" : "json";
  }

  function buildForm(schema, emptyText) {
    const ctx = { root: schema, schema: resolve(schema, schema), path: "", name: "arguments", emptyText };
    return objectField({ ...ctx, required: true, nullable: false, top: true, depth: 0 });
  }

  function buildField(ctx) {
    const { schema, nullable } = simplify(ctx.schema, ctx.root);
    const field = { ...ctx, schema, nullable };
    if (ctx.depth > 16) return jsonField(field);
    const builders = {
      enum: choiceField,
      string: stringField,
      number: numberField,
      boolean: booleanField,
      array: arrayField,
      object: objectField,
      json: jsonField,
    };
    return builders[kindOf(schema)](field);
  }

  function constraintHint(schema) {
    const hints = [];
    const bound = (value, exclusive) => (typeof exclusive === "number" ? exclusive : exclusive === true ? value : null);
    const low = bound(schema.minimum, schema.exclusiveMinimum);
    const high = bound(schema.maximum, schema.exclusiveMaximum);
    if (typeof low === "number") hints.push(`> ${low}`);
    else if (typeof schema.minimum === "number") hints.push(`≥ ${schema.minimum}`);
    if (typeof high === "number") hints.push(`< ${high}`);
    else if (typeof schema.maximum === "number") hints.push(`≤ ${schema.maximum}`);
    const labels = {
      multipleOf: "multiple of",
      minLength: "min length",
      maxLength: "max length",
      minItems: "min items",
      maxItems: "max items",
      format: "format",
      pattern: "pattern",
    };
    for (const [key, label] of Object.entries(labels)) {
      if (typeof schema[key] === "number" || typeof schema[key] === "string") hints.push(`${label} ${schema[key]}`);
    }
    return hints.join(", ");
  }

  function typeName(ctx) {
    const type = ctx.schema.type || (ctx.schema.properties ? "object" : "json");
    return `${typeof type === "string" ? type : "json"}${ctx.nullable ? " | null" : ""}`;
  }

  function fieldHelp(schema) {
    const hint = constraintHint(schema);
    const parts = [
      typeof schema.description === "string" && h("span", "help-text", schema.description),
      hint && h("span", "hint", hint),
      "default" in schema && h("span", "hint", `default: ${JSON.stringify(schema.default)}`),
    ].filter(Boolean);
    return parts.length ? h("div", { class: "help", testid: "field-help" }, parts) : null;
  }

  const isRequired = (ctx) => ctx.required && !ctx.nullable;
  const requiredMark = () => h("span", { class: "required", title: "required", "aria-hidden": "true" }, "*");
  const typeLabel = (ctx) => h("span", "type", typeName(ctx));

  function fieldset(ctx, kind, legend, ...body) {
    const node = h("fieldset", { class: `field field-${kind}`, testid: "field" }, h("legend", {}, legend), body);
    node.dataset.path = ctx.path;
    node.dataset.kind = kind;
    return node;
  }

  /** A leaf field: a label tied to the control, the type, the control and the help text. */
  function leaf(ctx, kind, control, io) {
    control.id = nextId();
    control.dataset.inputFor = ctx.path;
    if (isRequired(ctx)) control.setAttribute("aria-required", "true");
    const head = h(
      "div",
      "field-head",
      h("label", { for: control.id, class: "field-label" }, ctx.name),
      isRequired(ctx) && requiredMark(),
      typeof ctx.schema.title === "string" && ctx.schema.title && h("span", { class: "muted", testid: "field-title" }, ctx.schema.title),
      typeLabel(ctx),
    );
    const node = h("div", { class: `field field-${kind}`, testid: "field" }, head, control, fieldHelp(ctx.schema));
    node.dataset.path = ctx.path;
    node.dataset.kind = kind;
    return {
      node,
      read() {
        const value = io.read();
        if (value !== undefined) return value;
        return ctx.required && ctx.nullable ? null : undefined; // a required Optional[X]: null
      },
      write: io.write,
      problems() {
        const issue = io.invalid ? io.invalid() : null;
        if (issue) return [{ path: ctx.path, text: issue, blocking: Boolean(io.blocking) }];
        const missing = isRequired(ctx) && io.read() === undefined;
        return missing ? [{ path: ctx.path, text: "required", missing: true }] : [];
      },
    };
  }

  function placeholder(schema) {
    if ("default" in schema && schema.default !== null) {
      return typeof schema.default === "string" ? schema.default : JSON.stringify(schema.default);
    }
    return Array.isArray(schema.examples) && schema.examples.length ? String(schema.examples[0]) : "";
  }

  const asText = (value) => (value === undefined || value === null ? "" : typeof value === "string" ? value : JSON.stringify(value));

  function stringField(ctx) {
    const input = h("input", { type: "text", placeholder: placeholder(ctx.schema), autocomplete: "off" });
    return leaf(ctx, "string", input, {
      read: () => (input.value === "" ? undefined : input.value),
      write: (value) => (input.value = asText(value)),
    });
  }

  /** Typed numbers become JSON numbers; bounds are shown and set on the input, and values out
   *  of range are still sent (the server's validation message is what the developer tests). */
  function numberField(ctx) {
    const schema = ctx.schema;
    const integer = schema.type === "integer";
    const input = h("input", {
      type: "number",
      inputmode: integer ? "numeric" : "decimal",
      step: typeof schema.multipleOf === "number" ? schema.multipleOf : integer ? 1 : "any",
      min: typeof schema.minimum === "number" ? schema.minimum : null,
      max: typeof schema.maximum === "number" ? schema.maximum : null,
      placeholder: placeholder(schema),
    });
    return leaf(ctx, integer ? "integer" : "number", input, {
      read: () => (input.value === "" || !Number.isFinite(Number(input.value)) ? undefined : Number(input.value)),
      write: (value) => (input.value = asText(value)),
      invalid: () => (input.validity.badInput ? "not a number" : null),
    });
  }

  /** A required boolean is a checkbox; an optional one a select (unset / true / false). */
  function booleanField(ctx) {
    if (isRequired(ctx)) {
      const box = h("input", { type: "checkbox" });
      box.checked = ctx.schema.default === true;
      return leaf(ctx, "boolean", box, { read: () => box.checked, write: (value) => (box.checked = value === true) });
    }
    const unset = "default" in ctx.schema ? `unset (default ${JSON.stringify(ctx.schema.default)})` : "unset";
    const options = [["", unset], ["true", "true"], ["false", "false"]];
    const select = h("select", {}, options.map(([value, text]) => h("option", { value }, text)));
    return leaf(ctx, "boolean", select, {
      read: () => (select.value === "" ? undefined : select.value === "true"),
      write: (value) => (select.value = value === true ? "true" : value === false ? "false" : ""),
    });
  }

  /** enum, const and oneOf/anyOf of consts: a select whose options stand for the schema's own
   *  JSON values, labelled by their titles (oneOf const/title, or the legacy enumNames). */
  function choiceField(ctx) {
    const branches = Array.isArray(ctx.schema.enum) || "const" in ctx.schema ? null : constOptions(ctx.schema);
    const values = branches ? branches.map((branch) => branch.const) : Array.isArray(ctx.schema.enum) ? ctx.schema.enum : [ctx.schema.const];
    const names = branches ? branches.map((branch) => branch.title) : Array.isArray(ctx.schema.enumNames) ? ctx.schema.enumNames : [];
    const raw = (value) => (typeof value === "string" ? value : JSON.stringify(value));
    const label = (value, index) => (typeof names[index] === "string" && names[index] ? `${names[index]} (${raw(value)})` : raw(value));
    const unset = isRequired(ctx) ? "choose…" : "unset";
    const first = "default" in ctx.schema ? `unset (default ${raw(ctx.schema.default)})` : unset;
    const options = values.map((value, index) => h("option", { value: String(index) }, label(value, index)));
    const select = h("select", {}, h("option", { value: "" }, first), options);
    if (values.length === 1 && isRequired(ctx)) select.value = "0";
    return leaf(ctx, "enum", select, {
      read: () => (select.value === "" ? undefined : values[Number(select.value)]),
      write: (value) => {
        const index = values.findIndex((candidate) => JSON.stringify(candidate) === JSON.stringify(value));
        select.value = index < 0 ? "" : String(index);
      },
    });
  }

  /** Schemas the builder does not understand (unions, free-form objects): JSON text. */
  function jsonField(ctx) {
    const area = h("textarea", { rows: 3, spellcheck: "false", class: "json-field", placeholder: "JSON value" });
    const parse = () => {
      if (area.value.trim() === "") return { value: undefined };
      try {
        return { value: JSON.parse(area.value) };
      } catch (error) {
        return { error: "invalid JSON" };
      }
    };
    return leaf(ctx, "json", area, {
      read: () => parse().value,
      write: (value) => (area.value = value === undefined ? "" : pretty(value)),
      invalid: () => parse().error || null,
      blocking: true,
    });
  }

  /** Items are built by the same builder; removing one renumbers the rest (paths follow). */
  function arrayField(ctx) {
    let items = [];
    const list = h("ol", "array-items");
    const itemField = (index, value) => {
      const path = joinPath(ctx.path, index);
      const name = `${ctx.name}[${index}]`;
      const schema = ctx.schema.items;
      const child = buildField({ root: ctx.root, schema, path, name, required: true, depth: ctx.depth + 1 });
      if (value !== undefined) child.write(value);
      const attributes = { type: "button", class: "small", testid: "array-remove", "aria-label": `Remove ${name}` };
      const remove = h("button", attributes, "Remove");
      remove.addEventListener("click", () => removeAt(index));
      child.row = h("li", "array-item", child.node, remove);
      return child;
    };
    const render = (values) => {
      items = values.map((value, index) => itemField(index, value));
      list.replaceChildren(...items.map((item) => item.row));
    };
    const removeAt = (index) => {
      const values = items.map((item) => item.read());
      values.splice(index, 1);
      render(values);
      updateProblems();
    };
    const attributes = { type: "button", class: "small", testid: "array-add", "aria-label": `Add to ${ctx.name}` };
    const add = h("button", attributes, "+ Add item");
    add.addEventListener("click", () => {
      items.push(itemField(items.length, undefined));
      list.append(items[items.length - 1].row);
      updateProblems();
    });
    const legend = [ctx.name, isRequired(ctx) && requiredMark(), typeLabel(ctx)];
    return {
      node: fieldset(ctx, "array", legend, fieldHelp(ctx.schema), list, add),
      read() {
        if (!items.length) return ctx.required ? (ctx.nullable ? null : []) : undefined;
        return items.map((item) => item.read()).filter((value) => value !== undefined);
      },
      write: (value) => render(Array.isArray(value) ? value : []),
      problems: () => items.flatMap((item) => item.problems()),
    };
  }

  /** Nested objects: a fieldset; an optional one has a "send" switch and builds its fields
   *  when first switched on (so recursive models stay finite). */
  function objectField(ctx) {
    const required = new Set(Array.isArray(ctx.schema.required) ? ctx.schema.required : []);
    const properties = Object.entries(ctx.schema.properties || {});
    const optional = !ctx.top && !isRequired(ctx);
    const body = h("div", "object-body");
    let children = null;
    const build = () => {
      children = properties.map(([key, schema]) => {
        const path = joinPath(ctx.path, key);
        const depth = ctx.depth + 1;
        return [key, buildField({ root: ctx.root, schema, path, name: key, required: required.has(key), depth })];
      });
      body.replaceChildren(...children.map(([, child]) => child.node));
      const none = ctx.top ? ctx.emptyText || "This tool takes no arguments." : "No declared properties.";
      if (!children.length) body.append(h("p", "muted", none));
    };
    const toggle = h("input", { type: "checkbox", testid: "object-toggle", "aria-label": `send ${ctx.name}` });
    const setEnabled = (on) => {
      toggle.checked = on;
      if (on && !children) build();
      body.hidden = !on;
    };
    const enabled = () => {
      if (optional && !toggle.checked) return false;
      if (!children) build();
      return true;
    };
    toggle.addEventListener("input", () => setEnabled(toggle.checked));
    if (optional) setEnabled(false);
    else build();
    const legend = [optional && toggle, ctx.name, !optional && requiredMark(), typeLabel(ctx)];
    return {
      node: ctx.top ? h("div", "form-root", body) : fieldset(ctx, "object", legend, fieldHelp(ctx.schema), body),
      keys: properties.map(([key]) => key),
      read() {
        if (!enabled()) return ctx.required && ctx.nullable ? null : undefined;
        const out = {};
        for (const [key, child] of children) {
          const value = child.read();
          if (value !== undefined) out[key] = value;
        }
        return out;
      },
      write(value) {
        if (optional) setEnabled(isObject(value));
        if (!children) return;
        for (const [key, child] of children) child.write(isObject(value) ? value[key] : undefined);
      },
      problems: () => (enabled() ? children.flatMap(([, child]) => child.problems()) : []),
    };
  }

  // ------------------------------------------------------------------ calls and results

  function renderRun() {
    const call = app.activeCall === null ? null : app.calls.get(app.activeCall);
    $("run").replaceChildren(...(call ? [callView(call, true)] : []));
  }

  function callView(call, live) {
    const running = call.status === "running";
    const cancel = live && running && h("button", { type: "button", testid: "cancel-button", class: "danger-outline" }, "Cancel");
    if (cancel) cancel.addEventListener("click", () => cancelCall(call.id));
    const head = h(
      "div",
      "call-head",
      h("span", { class: "status-pill", testid: "call-status", "data-status": call.status }, call.status),
      h("span", "muted", `#${call.id} ${call.tool}`),
      h("span", { class: "muted", testid: "call-duration" }, duration(call)),
      cancel,
    );
    const logs = running || (call.logs && call.logs.length) ? callLogs(call) : null;
    const task = isObject(call.serverTask) ? taskView(call.serverTask) : null;
    const body = running ? [task, progressView(call.progress), logs] : [task, logs, resultView(call)];
    const attributes = { class: "call", testid: live ? "active-call" : "history-call", "data-call-id": call.id };
    return h("div", attributes, head, body);
  }

  /** A call the server runs as a task (Tasks extension): its id, status and message, as
   *  the inspector last polled them. */
  function taskView(task) {
    return h(
      "div",
      { class: "task-state muted", testid: "task-state", "data-status": task.status || "" },
      `task ${task.taskId || "?"}: ${task.status || "?"}`,
      task.statusMessage ? ` – ${task.statusMessage}` : "",
    );
  }

  function progressView(progress) {
    const bar = h("progress", { testid: "progress-bar", "aria-label": "progress" });
    const total = progress && typeof progress.total === "number" && progress.total > 0 ? progress.total : null;
    if (total !== null) {
      bar.max = total;
      bar.value = Math.min(progress.progress, total);
    } // without a value the bar is indeterminate
    bar.dataset.mode = total === null ? "indeterminate" : "determinate";
    const count = !progress ? "" : total === null ? `${progress.progress}` : `${progress.progress} / ${total}`;
    return h(
      "div",
      "progress",
      bar,
      h("span", { class: "progress-count muted", testid: "progress-count" }, count),
      h("span", { class: "progress-message", testid: "progress-message" }, (progress && progress.message) || ""),
    );
  }

  const callLogs = (call) => h("ol", { class: "log-list call-logs", testid: "call-logs" }, (call.logs || []).map(logLine));

  function resultView(call) {
    const result = call.result;
    if (!isObject(result)) {
      const cancelled = call.status === "cancelled";
      const kind = cancelled ? "result is-cancelled" : "result is-failed";
      return h(
        "div",
        { class: kind, testid: "result", "data-status": call.status },
        h("span", "result-label", cancelled ? "Cancelled" : "Failed"),
        h("pre", { class: "failure", testid: "result-failure" }, call.failure || "(no result)"),
        call.traceback && tracebackView(call.traceback),
      );
    }
    const isError = result.isError === true;
    const label = isError
      ? h("span", { class: "result-label error-label", testid: "result-error" }, "Error")
      : h("span", "result-label", "Result");
    const structured = "structuredContent" in result && h(
      "div",
      "block",
      h("div", "block-title", "structuredContent"),
      h("pre", { testid: "structured-content" }, pretty(result.structuredContent)),
    );
    const meta = result._meta && h("details", "block meta", h("summary", "block-title", "_meta"), h("pre", {}, pretty(result._meta)));
    const content = (Array.isArray(result.content) ? result.content : []).map(contentBlock);
    const attributes = { class: isError ? "result is-error" : "result", testid: "result", "data-status": call.status };
    return h("div", attributes, label, content, call.traceback && tracebackView(call.traceback), structured, meta);
  }

  /** The traceback the server logged for a masked error (matched by its reference id):
   *  the developer's own frames and the exception in one block, the whole traceback (with
   *  toolwire's, the standard library's and other libraries' frames) folded under it. */
  function tracebackView(traceback) {
    const frames = Array.isArray(traceback.frames) ? traceback.frames : [];
    const own = frames.filter((frame) => frame.own);
    const shown = own.length ? own : frames;
    const others = frames.length - shown.length;
    const title = traceback.reference ? `Traceback (reference ${traceback.reference})` : "Traceback";
    const fold = others ? `Whole traceback (${others} more ${others === 1 ? "frame" : "frames"}: toolwire, libraries)` : "Whole traceback";
    return h(
      "div",
      { class: "block traceback", testid: "traceback", "data-reference": traceback.reference || "" },
      h("div", "block-title", title),
      h(
        "pre",
        { testid: "traceback-frames" },
        shown.map((frame) => h("div", { class: "frame", testid: "traceback-frame", "data-file": frame.file }, frame.text)),
        h("div", { class: "exception", testid: "traceback-exception" }, traceback.exception || ""),
      ),
      h("details", { testid: "traceback-whole" }, h("summary", "muted", fold), h("pre", {}, traceback.text || "")),
    );
  }

  const MIME = /^[a-z0-9.+-]+\/[a-z0-9.+-]+$/i;
  const dataUrl = (mime, data) => `data:${MIME.test(mime || "") ? mime : "application/octet-stream"};base64,${String(data || "")}`;

  function annotationsView(annotations) {
    if (!isObject(annotations)) return null;
    const parts = Object.entries(annotations).map(([key, value]) => `${key}: ${Array.isArray(value) ? value.join(", ") : value}`);
    return parts.length ? h("div", { class: "annotations muted", testid: "content-annotations" }, parts.join(" · ")) : null;
  }

  function media(kind, mime, data, testid) {
    if (kind === "image") return h("img", { testid, src: dataUrl(mime, data), alt: `image (${mime || "unknown type"})` });
    return h("audio", { testid, controls: true, src: dataUrl(mime, data) });
  }

  function contentBlock(block) {
    if (!isObject(block)) return unknownBlock(block);
    const note = annotationsView(block.annotations);
    switch (block.type) {
      case "text":
        return h("div", "block", h("pre", { class: "content-text", testid: "content-text" }, String(block.text ?? "")), note);
      case "image":
      case "audio": {
        const caption = h("div", "muted", `${block.type} · ${block.mimeType || "no MIME type"}`);
        const player = media(block.type, block.mimeType, block.data, `content-${block.type}`);
        return h("div", `block block-${block.type}`, player, caption, note);
      }
      case "resource_link":
        return resourceLink(block, note);
      case "resource":
        return embeddedResource(block, note);
      default:
        return unknownBlock(block);
    }
  }

  function resourceLink(block, note) {
    const facts = [block.mimeType, typeof block.size === "number" && `${block.size} bytes`].filter(Boolean);
    return h(
      "div",
      { class: "block resource-link", testid: "content-resource-link" },
      h("div", "block-title", "resource link"),
      h("div", {}, h("strong", {}, block.title || block.name || ""), " ", h("code", { testid: "resource-uri" }, block.uri || "")),
      block.description && h("div", "muted", block.description),
      facts.length > 0 && h("div", "muted", facts.join(" · ")),
      note,
    );
  }

  /** How many bytes a base64 text decodes to (each 4 characters are 3 bytes, less padding). */
  function base64Size(data) {
    const clean = String(data || "").replace(/\s+/g, "");
    const padding = clean.endsWith("==") ? 2 : clean.endsWith("=") ? 1 : 0;
    return Math.max(0, Math.floor((clean.length * 3) / 4) - padding);
  }

  /** Text is shown; image and audio blobs are played; any other blob is a download link.
   *  (Also what the Resources tab shows of each resources/read content.) */
  function resourceBody(resource) {
    const mime = resource.mimeType || "";
    const kind = mime.split("/")[0];
    if (typeof resource.text === "string") return h("pre", { testid: "content-resource-text" }, resource.text);
    if (kind === "image" || kind === "audio") return media(kind, mime, resource.blob, `content-resource-${kind}`);
    const name = String(resource.uri || "resource").split("/").pop() || "resource";
    const link = { href: dataUrl(mime, resource.blob), download: name, testid: "content-resource-download" };
    return h("a", link, `Download ${name} (${base64Size(resource.blob)} bytes)`);
  }

  function embeddedResource(block, note) {
    const resource = isObject(block.resource) ? block.resource : {};
    const mime = resource.mimeType || "";
    const title = h("div", "block-title", "embedded resource ", h("code", {}, resource.uri || ""), mime && ` · ${mime}`);
    return h("div", { class: "block resource", testid: "content-resource" }, title, resourceBody(resource), note);
  }

  function unknownBlock(block) {
    return h("div", "block", h("div", "block-title", "unknown content"), h("pre", { testid: "content-unknown" }, pretty(block)));
  }

  // ------------------------------------------------------------------ history

  function renderHistory() {
    renderHistoryList();
    renderHistoryDetail();
  }

  function renderHistoryList() {
    const calls = [...app.calls.values()].sort((a, b) => b.id - a.id);
    $("history-list").replaceChildren(...calls.map(historyItem));
    $("history-empty").hidden = calls.length > 0;
    $("history-count").textContent = calls.length ? String(calls.length) : "";
  }

  function historyItem(call) {
    const selected = call.id === app.historyCall;
    const button = h(
      "button",
      { type: "button", class: selected ? "history-item selected" : "history-item", testid: "history-item" },
      h("span", "history-tool", `#${call.id} ${call.tool}`),
      h("span", { class: "status-pill", "data-status": call.status }, call.status),
      h("span", "muted", duration(call)),
    );
    button.dataset.status = call.status;
    button.dataset.callId = String(call.id);
    if (selected) button.setAttribute("aria-current", "true");
    button.addEventListener("click", () => selectHistory(call.id));
    return h("li", {}, button);
  }

  /** Show the copy we have at once, then the backend's full copy (with all its traffic). */
  async function selectHistory(id) {
    app.historyCall = id;
    renderHistory();
    try {
      mergeCall(await api("GET", `/api/calls/${id}`));
    } catch (error) {
      return;
    }
    if (app.historyCall === id) renderHistory();
  }

  function renderHistoryDetail() {
    const call = app.historyCall === null ? null : app.calls.get(app.historyCall);
    if (!call) {
      const hint = "Select a call to see its arguments, result and JSON-RPC traffic.";
      return $("history-detail").replaceChildren(h("p", "muted placeholder", hint));
    }
    const traffic = Array.isArray(call.traffic) ? call.traffic : [];
    $("history-detail").replaceChildren(
      h("h3", {}, `#${call.id} ${call.tool} `, h("span", "muted", `${clock(call.startedAt)} · ${duration(call)}`)),
      h("div", "section-title", "Arguments"),
      h("pre", { testid: "history-arguments" }, pretty(call.arguments ?? {})),
      h("div", "section-title", "Outcome"),
      callView(call, false),
      h("div", "section-title", `JSON-RPC traffic (${traffic.length} messages)`),
      h("ol", { class: "traffic", testid: "traffic" }, traffic.map(trafficMessage)),
    );
  }

  function trafficSummary(message) {
    if (!isObject(message)) return "";
    if (typeof message.method === "string") return "id" in message ? `${message.method} (id ${message.id})` : message.method;
    return "error" in message ? `error response (id ${message.id})` : `response (id ${message.id})`;
  }

  function trafficMessage(entry) {
    const sent = entry.direction === "send";
    const head = h(
      "div",
      "traffic-head",
      h("span", "direction", sent ? "→ sent" : "← received"),
      h("span", "method", trafficSummary(entry.message)),
      h("time", "muted", clock(entry.time)),
    );
    const attributes = { class: `traffic-message ${sent ? "sent" : "received"}`, testid: "traffic-message" };
    const item = h("li", attributes, head, h("pre", {}, pretty(entry.message)));
    item.dataset.direction = entry.direction;
    return item;
  }

  async function clearHistory() {
    try {
      await api("POST", "/api/history/clear", {});
      onState(await api("GET", "/api/state"));
    } catch (error) {
      $("history-empty").textContent = `Could not clear the history: ${error.message}`;
    }
  }

  // ------------------------------------------------------------------ logs

  /** One log entry: a message, with its traceback shown as for a call's error. */
  function logLine(log) {
    let data = typeof log.data === "string" ? log.data : JSON.stringify(log.data);
    const traceback = isObject(log.traceback) ? log.traceback : null;
    const at = traceback ? data.indexOf(traceback.text) : -1;
    if (at >= 0) data = data.slice(0, at).trimEnd(); // the message; its traceback is shown below
    const line = h(
      "li",
      { class: `log level-${log.level}`, testid: "log-line" },
      h("time", "muted", clock(log.time)),
      h("span", "level", log.level),
      log.logger && h("span", "logger", log.logger),
      h("div", "log-data", data, traceback && tracebackView(traceback)),
    );
    line.dataset.level = log.level;
    if (log.id !== undefined) line.dataset.logId = String(log.id);
    return line;
  }

  function renderLogs() {
    $("logs").replaceChildren(...app.logs.map(logLine));
    updateLogCount();
  }

  function updateLogCount() {
    $("logs-empty").hidden = app.logs.length > 0;
    $("logs-count").textContent = app.logs.length ? String(app.logs.length) : "";
  }

  // ------------------------------------------------------------------ tabs and wiring

  function showView(viewId) {
    for (const tab of document.querySelectorAll(".tab")) {
      tab.setAttribute("aria-selected", tab.dataset.view === viewId ? "true" : "false");
      $(tab.dataset.view).hidden = tab.dataset.view !== viewId;
    }
  }

  async function reload() {
    try {
      await api("POST", "/api/reload", {});
    } catch (error) {
      $("server-status").textContent = `reload failed: ${error.message}`;
    }
  }

  function wire() {
    for (const tab of document.querySelectorAll(".tab")) {
      tab.addEventListener("click", () => showView(tab.dataset.view));
    }
    $("tool-filter").addEventListener("input", renderToolList);
    $("reload").addEventListener("click", reload);
    $("json-toggle").addEventListener("click", toggleJson);
    $("call-form").addEventListener("submit", submitCall);
    $("call-form").addEventListener("input", updateProblems);
    $("call-form").addEventListener("change", updateProblems);
    $("history-clear").addEventListener("click", clearHistory);
  }

  const shared = { h, api, pretty, isObject, firstLine, clock, contentBlock, resourceBody, trafficMessage, showView, token, connect, setConnection };
  const findCall = (id) => app.calls.get(id) || null;
  const activeCall = () => app.activeCall;
  Object.assign(shared, { buildForm, findCall, findTool, activeCall, state: null, stateListeners: [], callListeners: [], questionListeners: [], activeCallListeners: [] });
  window.toolwireInspector = shared;
  wire();
})();
