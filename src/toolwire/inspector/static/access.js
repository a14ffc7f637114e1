// The page's way in, and the server's: a page opened without its token, or with a token of an
// earlier run of `toolwire dev`, says to open the printed address (instead of reconnecting
// forever); an inspector that stopped answering says so; a server that refused the inspector
// (HTTP 401 or 403) explains how in: the `--header` command, or an OAuth sign-in that the
// inspector runs and the browser completes at the authorization server.
//
// Loaded last: it opens the event stream (shared.connect) once the token is known good, so
// every other file's listeners are in place before the first state arrives.
"use strict";

(function () {
  const shared = window.toolwireInspector;
  const $ = (id) => document.getElementById(id);
  const REFUSED_TOKEN = "missing or wrong token";

  /** What the inspector says of this page's token: {verdict: "ok" | "refused" | "down"}. */
  async function probe() {
    try {
      const response = await fetch("/api/state", { headers: { "X-Toolwire-Token": shared.token } });
      if (response.status !== 403) return { verdict: "ok" };
      const data = await response.json().catch(() => null);
      return { verdict: "refused", reason: (data && data.error) || "HTTP 403" };
    } catch (error) {
      return { verdict: "down" };
    }
  }

  function showTokenPage(reason) {
    $("token-reason").textContent = reason.startsWith(REFUSED_TOKEN)
      ? "The inspector does not know this page's token: it belongs to an earlier run of toolwire dev."
      : reason;
    $("token-example").textContent = `${location.origin}/?token=…`;
    for (const part of document.querySelectorAll(".topbar, .banner, .instructions, .questions, .layout")) {
      part.hidden = true;
    }
    $("token-page").hidden = false;
  }

  /** The event stream broke: a new run of the inspector refuses the token; a stopped one
   *  does not answer (the stream keeps trying, and "open" shows it live again). */
  async function lost(source) {
    const { verdict, reason } = await probe();
    if (verdict === "refused") {
      source.close();
      showTokenPage(reason);
    } else if (verdict === "down") {
      const hint = "toolwire dev is not answering: start it again and open the address it prints";
      shared.setConnection("stopped", "inspector stopped", hint);
    }
  }

  async function start() {
    if (!shared.token) {
      showTokenPage("This address has no token.");
      return;
    }
    const { verdict, reason } = await probe();
    if (verdict === "refused") showTokenPage(reason);
    else shared.connect(lost);
  }

  // ------------------------------------------------------------------ a refusing server

  function renderAuth(state) {
    const server = state.server || {};
    const auth = server.status === "failed" ? server.auth : null;
    $("failure-title").textContent = auth ? "The server needs authorization." : "The server failed to start.";
    $("auth-help").hidden = !auth;
    if (auth) $("auth-command").textContent = auth.command;
  }

  async function signIn() {
    const button = $("sign-in");
    button.disabled = true;
    $("sign-in-error").hidden = true;
    try {
      const answer = await shared.api("POST", "/api/sign-in", {});
      window.location.assign(answer.location);
    } catch (error) {
      $("sign-in-error").textContent = `The sign-in did not start: ${error.message}`;
      $("sign-in-error").hidden = false;
      button.disabled = false;
    }
  }

  shared.stateListeners.push(renderAuth);
  $("sign-in").addEventListener("click", signIn);
  start();
})();
