// The probe view's own script, run after the official App class (as McpApp): each button
// asks the host for one thing and writes the outcome where the test reads it.
const out = (id, value) => {
  document.getElementById(id).textContent = typeof value === "string" ? value : JSON.stringify(value);
};
const violations = [];
document.addEventListener("securitypolicyviolation", (event) => {
  violations.push(`${event.violatedDirective} ${event.blockedURI}`);
  out("violations", violations.join("\n"));
});
try {
  out("top", String(window.top.location.href));
} catch (error) {
  out("top", "blocked");
}
const app = new McpApp({ name: "Probe", version: "1.0.0" });
app.ontoolinput = (params) => out("input", params.arguments);
app.ontoolresult = (result) => out("result", result.structuredContent);
const act = (id, run) =>
  document.getElementById(id).addEventListener("click", async () => {
    out("outcome", "…");
    try {
      out("outcome", (await run()) ?? "done");
    } catch (error) {
      out("outcome", `error: ${error.message}`);
    }
  });
act("bump", async () => (await app.callServerTool({ name: "bump", arguments: {} })).structuredContent);
act("model-only", () => app.callServerTool({ name: "model_only", arguments: {} }));
act("fetch", () => fetch("https://example.com/").then(() => "fetched", () => "failed"));
act("link", () => app.openLink({ url: "https://example.com/docs" }));
act("message", () => app.sendMessage({ role: "user", content: [{ type: "text", text: "hello from the view" }] }));
act("context", () => app.updateModelContext({ content: [{ type: "text", text: "the view's state" }] }));
act("log", async () => {
  await app.sendLog({ level: "info", data: "probe log" });
  return "logged";
});
act("grow", async () => {
  document.getElementById("filler").style.height = "600px";
  return "grown";
});
await app.connect();
out("host", app.getHostVersion());
