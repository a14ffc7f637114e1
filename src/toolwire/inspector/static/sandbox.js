// The sandbox proxy of an MCP App view (the spec's double iframe), on the inspector's second
// origin and under the view's Content-Security-Policy (an HTTP header of this page).
//
// It tells the page it is ready, takes the view's HTML from the page once
// (ui/notifications/sandbox-resource-ready), writes it into an inner sandboxed iframe, which
// inherits this page's origin and policy, and relays every other message both ways: the
// page's only from the page's origin, the view's only from the inner frame. Messages of the
// proxy's own protocol (ui/notifications/sandbox-*) are never relayed.
"use strict";

(function () {
  const host = new URLSearchParams(location.search).get("host");
  const FEATURES = { camera: "camera", microphone: "microphone", geolocation: "geolocation", clipboardWrite: "clipboard-write" };
  let inner = null;

  const isProxyMessage = (message) =>
    message && typeof message.method === "string" && message.method.startsWith("ui/notifications/sandbox-");

  function load(params) {
    if (inner !== null || !params || typeof params.html !== "string") return; // one view per proxy
    inner = document.createElement("iframe");
    inner.setAttribute("sandbox", "allow-scripts allow-same-origin allow-forms");
    const granted = Object.keys(params.permissions || {}).filter((name) => name in FEATURES);
    if (granted.length) inner.setAttribute("allow", granted.map((name) => FEATURES[name]).join("; "));
    inner.title = "app view";
    document.body.append(inner);
    const doc = inner.contentDocument;
    doc.open();
    doc.write(params.html);
    doc.close();
  }

  window.addEventListener("message", (event) => {
    const message = event.data;
    if (event.source === window.parent) {
      if (event.origin !== host) return;
      if (isProxyMessage(message)) {
        if (message.method === "ui/notifications/sandbox-resource-ready") load(message.params);
        return;
      }
      if (inner !== null) inner.contentWindow.postMessage(message, location.origin);
    } else if (inner !== null && event.source === inner.contentWindow) {
      if (!isProxyMessage(message)) window.parent.postMessage(message, host);
    }
  });

  window.parent.postMessage({ jsonrpc: "2.0", method: "ui/notifications/sandbox-proxy-ready", params: {} }, host);
})();
