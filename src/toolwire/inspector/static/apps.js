// The views of MCP Apps (extension io.modelcontextprotocol/ui): when a call of a tool with a
// view (_meta.ui.resourceUri) finishes under the form, the page renders the view below the
// result, the way a host does, with the official host bridge (AppBridge of
// @modelcontextprotocol/ext-apps, shipped as app-bridge.js).
//
// The view runs in the spec's double iframe: an outer frame on the inspector's second origin
// (the sandbox proxy, sandbox.js, under the view's Content-Security-Policy) and the view's
// own document inside it. The bridge gives the view the tool's arguments and result, then
// carries out what the view asks: tools/call (only tools whose visibility includes "app";
// each shows in the history like any call), resources/read, size changes, and messages,
// model-context updates, logs and links, which the panel lists for the person (a link opens
// only when the person clicks it).
//
// A module, loaded after the page's other scripts, whose helpers it uses through
// window.toolwireInspector (described at the top of inspector.js); it adds nothing to it.
import { AppBridge, PostMessageTransport } from "/static/app-bridge.js";

const shared = window.toolwireInspector;
const { h, api, isObject } = shared;
const $ = (id) => document.getElementById(id);

const HOST_INFO = { name: "toolwire-inspector", version: "1" };
const TEARDOWN_MS = 2000; // how long a view may take to answer ui/resource-teardown
const MIN_HEIGHT = 60;
const MAX_HEIGHT = 2000;

let current = null; // {callId, bridge, node} of the view on the page
const opened = new Set(); // ids of the calls whose view was opened
const waiting = new Map(); // id of a call the view made -> resolve(call) once it finished

/** A tool's view: its resourceUri (the older flat key too) and who may call it. */
function viewOf(tool) {
  const meta = tool && isObject(tool._meta) ? tool._meta : {};
  const ui = isObject(meta.ui) ? meta.ui : {};
  const uri = typeof ui.resourceUri === "string" ? ui.resourceUri : meta["ui/resourceUri"];
  if (typeof uri !== "string" || !uri.startsWith("ui://")) return null;
  const visibility = Array.isArray(ui.visibility) ? ui.visibility : ["model", "app"];
  return { uri, visibility };
}

shared.callListeners.push((call) => {
  const done = call.status !== "running";
  const resolve = waiting.get(call.id);
  if (resolve && done) {
    waiting.delete(call.id);
    resolve(call);
  }
  if (done && call.id === shared.activeCall()) openFor(call);
});

shared.activeCallListeners.push((id) => {
  if (current !== null && current.callId !== id) close();
  const call = id === null ? null : shared.findCall(id);
  if (call && call.status !== "running") openFor(call); // it finished before the page knew
});

async function openFor(call) {
  const view = viewOf(shared.findTool(call.tool));
  if (view === null || opened.has(call.id)) return;
  opened.add(call.id);
  close();
  const node = h("div", "app-view-item", h("div", "app-view-head", h("span", "block-title", "App view"), h("code", {}, view.uri)));
  const panel = $("app-view");
  panel.append(node);
  panel.hidden = false;
  current = { callId: call.id, bridge: null, node };
  let opening;
  try {
    opening = await api("POST", "/api/apps/open", { uri: view.uri });
  } catch (error) {
    node.append(h("p", { class: "form-error", testid: "app-error" }, error.message));
    return;
  }
  if (current === null || current.node !== node) return; // the person moved on meanwhile
  current.bridge = render(node, call, view, opening);
}

function render(node, call, view, opening) {
  const frame = h("iframe", { testid: "app-frame", title: `app view ${view.uri}` });
  frame.className = opening.prefersBorder === false ? "app-frame borderless" : "app-frame";
  const events = h("ol", { class: "app-events", testid: "app-events" });
  node.append(frame, h("div", "block-title", "What the view asked"), events);
  const record = (kind, text, extra) => {
    const item = h("li", { testid: "app-event", "data-kind": kind }, h("span", "app-event-kind", kind), " ", text, extra || "");
    events.append(item);
  };

  const bridge = new AppBridge(
    null,
    HOST_INFO,
    {
      openLinks: {},
      serverTools: {},
      serverResources: {},
      logging: {},
      message: { text: {} },
      updateModelContext: { text: {}, structuredContent: {} },
      sandbox: { csp: opening.csp, permissions: opening.permissions },
    },
    {
      hostContext: {
        theme: "light",
        platform: "web",
        displayMode: "inline",
        availableDisplayModes: ["inline"],
        toolInfo: { tool: shared.findTool(call.tool) },
      },
    },
  );
  bridge.onsandboxready = () => {
    bridge.sendSandboxResourceReady({ html: opening.html, csp: opening.csp, permissions: opening.permissions });
  };
  bridge.oninitialized = () => {
    bridge.sendToolInput({ arguments: isObject(call.arguments) ? call.arguments : {} });
    if (isObject(call.result)) bridge.sendToolResult(call.result);
    else bridge.sendToolCancelled({ reason: call.failure || call.status });
  };
  bridge.onsizechange = ({ height }) => {
    if (typeof height === "number" && height > 0) {
      frame.style.height = `${Math.min(MAX_HEIGHT, Math.max(MIN_HEIGHT, Math.ceil(height)))}px`;
    }
  };
  bridge.oncalltool = async (params) => {
    const tool = shared.findTool(params.name);
    const target = tool && viewOf(tool);
    const visible = target ? target.visibility.includes("app") : tool !== null;
    if (!visible) {
      record("refused", `tools/call ${params.name}: ${tool ? "not visible to apps" : "no such tool"}`);
      throw new Error(`The tool ${params.name} is not available to apps`);
    }
    record("tools/call", params.name);
    return await callTool(params.name, isObject(params.arguments) ? params.arguments : {});
  };
  bridge.onreadresource = async (params) => {
    record("resources/read", String(params.uri));
    const read = await api("POST", "/api/resources/read", { uri: params.uri });
    if ("error" in read) throw new Error(read.error);
    return read.result;
  };
  bridge.onopenlink = async ({ url }) => {
    const safe = /^https?:\/\//i.test(String(url));
    const open = safe && h("button", { type: "button", testid: "app-open-link" }, "Open");
    if (open) open.addEventListener("click", () => window.open(url, "_blank", "noopener,noreferrer"));
    record("open-link", String(url), open ? [" ", open] : " (not http or https: not offered)");
    return safe ? {} : { isError: true };
  };
  bridge.onmessage = async (params) => {
    record("message", summary(params.content));
    return {};
  };
  bridge.onupdatemodelcontext = async (params) => {
    const parts = [summary(params.content), params.structuredContent === undefined ? "" : JSON.stringify(params.structuredContent)];
    record("model-context", parts.filter(Boolean).join(" "));
    return {};
  };
  bridge.onloggingmessage = (params) => record("log", `${params.level}: ${typeof params.data === "string" ? params.data : JSON.stringify(params.data)}`);
  bridge.onrequestteardown = () => close();

  bridge.connect(new PostMessageTransport(frame.contentWindow, frame.contentWindow)).then(
    () => {
      frame.src = opening.sandbox; // the proxy announces itself once loaded
    },
    (error) => record("error", `the bridge failed: ${error.message}`),
  );
  return bridge;
}

/** Content blocks in one line: the text of text blocks, the type of the others. */
function summary(content) {
  const blocks = Array.isArray(content) ? content : isObject(content) ? [content] : [];
  return blocks.map((block) => (isObject(block) && block.type === "text" ? String(block.text) : `[${isObject(block) ? block.type : "?"}]`)).join(" ");
}

/** Run a tool for the view, through the inspector like a call from the form. */
async function callTool(name, args) {
  const started = await api("POST", "/api/calls", { tool: name, arguments: args });
  const known = shared.findCall(started.id);
  const finished =
    known && known.status !== "running"
      ? known
      : await new Promise((resolve) => waiting.set(started.id, resolve));
  if (isObject(finished.result)) return finished.result;
  throw new Error(finished.failure || `the call ${finished.status}`);
}

/** Tear the current view down (the view may answer ui/resource-teardown first). */
function close() {
  if (current === null) return;
  const { bridge, node } = current;
  current = null;
  const panel = $("app-view");
  const gone = () => {
    if (bridge !== null) bridge.close().catch(() => {});
    node.remove();
    panel.hidden = panel.childElementCount === 0;
  };
  if (bridge === null) return gone();
  const timer = new Promise((resolve) => setTimeout(resolve, TEARDOWN_MS));
  Promise.race([bridge.teardownResource({}), timer]).then(gone, gone);
}
