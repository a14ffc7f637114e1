"""The inspector's HTTP routes: the page, its JSON API and its event stream.

The page can call tools, some of them destructive, so the API answers only the page it served:
the ``Host`` must be this loopback address (no DNS rebinding), a cross-site ``Origin`` is
refused, and every API request carries the random token from the URL printed at start-up
(other local users and other sites do not have it). The one route without the token is
``/oauth/callback``, where an authorization server sends the browser back during a sign-in
the page started; it is taken only with the ``state`` that sign-in sent.
"""

from __future__ import annotations

import asyncio
import hmac
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import orjson

from .sandbox import Sandbox, ViewRefused, open_view
from .session import InspectedServer, NotReady
from .web import EventStream, Request, Response

STATIC = Path(__file__).parent / "static"
CONTENT_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".svg": "image/svg+xml",
    ".png": "image/png",
}
# The page loads nothing from elsewhere; data: URLs are how results show images and audio;
# it frames only the sandbox origin, where app views render (inspector/sandbox.py).
PAGE_POLICY = (
    "default-src 'self'; img-src 'self' data:; media-src 'self' data:; "
    "style-src 'self' 'unsafe-inline'; frame-src {sandbox}; frame-ancestors 'none'; "
    "base-uri 'none'"
)
MAX_QUEUED_EVENTS = 1000
CALLBACK = "/oauth/callback"  # where the authorization server sends the browser back

JSON = dict[str, Any]


def _needs_uri(params: JSON) -> str | None:
    return None if isinstance(params.get("uri"), str) else 'send {"uri": "..."}'


def _needs_prompt(params: JSON) -> str | None:
    arguments = params.get("arguments", {})
    if not isinstance(params.get("name"), str):
        return 'send {"name": PROMPT, "arguments": {...}}'
    if not isinstance(arguments, dict) or not all(isinstance(v, str) for v in arguments.values()):
        return "prompt arguments must be an object of strings"
    return None


def _needs_completion(params: JSON) -> str | None:
    if not isinstance(params.get("ref"), dict) or not isinstance(params.get("argument"), dict):
        return 'send {"ref": {...}, "argument": {"name": ..., "value": ...}}'
    return None


# The page's other requests: its path -> the MCP method and a check of its parameters.
EXCHANGES: dict[str, tuple[str, Callable[[JSON], str | None]]] = {
    "/api/resources/read": ("resources/read", _needs_uri),
    "/api/prompts/get": ("prompts/get", _needs_prompt),
    "/api/complete": ("completion/complete", _needs_completion),
}  # a tab that stops reading is dropped rather than buffered forever


class InspectorApp:
    def __init__(self, session: InspectedServer, token: str, sandbox: Sandbox) -> None:
        self.session = session
        session.emit = self.publish
        self.token = token
        self.sandbox = sandbox
        self.port = 0  # set once the listening socket is bound
        self._streams: set[asyncio.Queue[tuple[str, Any] | None]] = set()

    # ------------------------------------------------------------ events

    def publish(self, event: str, data: Any) -> None:
        """Send an event to every open page."""
        for queue in list(self._streams):
            if queue.qsize() >= MAX_QUEUED_EVENTS:
                self._streams.discard(queue)
                queue.put_nowait(None)  # ends that stream; the page reconnects and resyncs
            else:
                queue.put_nowait((event, data))

    def close_streams(self) -> None:
        for queue in list(self._streams):
            queue.put_nowait(None)
        self._streams.clear()

    def _event_stream(self) -> EventStream:
        queue: asyncio.Queue[tuple[str, Any] | None] = asyncio.Queue()
        queue.put_nowait(("state", self.session.state()))
        self._streams.add(queue)
        return EventStream(queue, lambda: self._streams.discard(queue))

    # ------------------------------------------------------------ requests

    async def handle(self, request: Request) -> Response | EventStream:
        refusal = self._refuse(request)
        if refusal is not None:
            return refusal
        path, method = request.path, request.method
        if path == CALLBACK and method == "GET":
            return self._signed_in(request)
        if not path.startswith("/api/"):
            if method != "GET":
                return Response.error(405, "method not allowed")
            return self._static(path)
        if path == "/api/events" and method == "GET":
            return self._event_stream()
        if path == "/api/state" and method == "GET":
            return Response.json(self.session.state())
        if path == "/api/calls" and method == "POST":
            return self._start_call(request)
        if path in EXCHANGES and method == "POST":
            return await self._exchange(request, *EXCHANGES[path])
        if path == "/api/apps/open" and method == "POST":
            return await self._open_view(request)
        if path == "/api/sign-in" and method == "POST":
            return await self._sign_in(request)
        if path == "/api/reload" and method == "POST":
            self.session.reload()
            return Response.json({"ok": True}, 202)
        if path == "/api/history/clear" and method == "POST":
            self.session.clear_history()
            return Response.json({"ok": True})
        if path.startswith("/api/questions/") and method == "POST":
            return self._answer(request, path.removeprefix("/api/questions/"))
        if path.startswith("/api/calls/"):
            return self._one_call(path.removeprefix("/api/calls/"), method)
        return Response.error(404, "no such endpoint")

    def _refuse(self, request: Request) -> Response | None:
        allowed = {f"127.0.0.1:{self.port}", f"localhost:{self.port}"}
        if request.headers.get("host") not in allowed:
            return Response.error(403, "wrong Host: open the inspector at the printed address")
        origin = request.headers.get("origin")
        if origin is not None and origin.removeprefix("http://") not in allowed:
            return Response.error(403, "cross-origin requests are refused")
        if not request.path.startswith("/api/"):
            return None
        given = request.headers.get("x-toolwire-token") or request.query.get("token") or ""
        if not hmac.compare_digest(given.encode(), self.token.encode()):
            return Response.error(403, "missing or wrong token: open the printed address")
        if request.method == "POST" and request.body:
            kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
            if kind != "application/json":
                return Response.error(415, "send JSON (Content-Type: application/json)")
        return None

    def _static(self, path: str) -> Response:
        name = "index.html" if path == "/" else path.removeprefix("/static/")
        file = STATIC / name
        packed = file.with_name(f"{file.name}.gz")  # the app bridge, shipped compressed
        # Only files directly in static/: no "..", no subfolders, nothing else on disk.
        if "/" in name or file.suffix not in CONTENT_TYPES:
            return Response.error(404, "not found")
        if packed.is_file():
            headers = {"Content-Encoding": "gzip", "Vary": "Accept-Encoding"}
            return Response(200, packed.read_bytes(), CONTENT_TYPES[file.suffix], headers)
        if not file.is_file():
            return Response.error(404, "not found")
        if file.suffix != ".html":
            return Response(200, file.read_bytes(), CONTENT_TYPES[file.suffix])
        headers = {
            "Content-Security-Policy": PAGE_POLICY.format(sandbox=self.sandbox.origin),
            "Referrer-Policy": "no-referrer",
            "X-Frame-Options": "DENY",
        }
        return Response(200, file.read_bytes(), CONTENT_TYPES[file.suffix], headers)

    async def _open_view(self, request: Request) -> Response:
        """An app view for the page: the server's ``ui://`` resource, read and checked, and
        the one-time sandbox address to render it at."""
        try:
            params = request.json()
        except orjson.JSONDecodeError:
            return Response.error(400, "the body is not JSON")
        uri = params.get("uri") if isinstance(params, dict) else None
        if not isinstance(uri, str) or not uri.startswith("ui://"):
            return Response.error(400, 'send {"uri": "ui://..."}')
        try:
            read = await self.session.exchange("resources/read", {"uri": uri})
        except NotReady as exc:
            return Response.error(409, str(exc))
        if "error" in read:
            return Response.error(409, f"Reading {uri} failed: {read['error']}")
        try:
            view = open_view(uri, read["result"])
        except ViewRefused as exc:
            return Response.error(409, str(exc))
        view["sandbox"] = self.sandbox.register(view, f"http://{request.headers['host']}")
        view["traffic"] = read["traffic"]
        return Response.json(view)

    def _start_call(self, request: Request) -> Response:
        try:
            body = request.json()
        except orjson.JSONDecodeError:
            return Response.error(400, "the body is not JSON")
        if not isinstance(body, dict) or not isinstance(body.get("tool"), str):
            return Response.error(400, 'send {"tool": NAME, "arguments": {...}}')
        arguments = body.get("arguments", {})
        if not isinstance(arguments, dict):
            return Response.error(400, "arguments must be a JSON object")
        try:
            call = self.session.call(body["tool"], arguments)
        except NotReady as exc:
            return Response.error(409, str(exc))
        return Response.json(call.as_json(), 202)

    async def _exchange(
        self, request: Request, method: str, check: Callable[[JSON], str | None]
    ) -> Response:
        try:
            params = request.json()
        except orjson.JSONDecodeError:
            return Response.error(400, "the body is not JSON")
        problem = "the body must be a JSON object" if not isinstance(params, dict) else None
        problem = problem or check(params)
        if problem:
            return Response.error(400, problem)
        try:
            return Response.json(await self.session.exchange(method, params))
        except NotReady as exc:
            return Response.error(409, str(exc))

    async def _sign_in(self, request: Request) -> Response:
        # The redirect comes back to the address the page was opened at (127.0.0.1 or
        # localhost), where the tab keeps its token.
        redirect_uri = f"http://{request.headers['host']}{CALLBACK}"
        try:
            return Response.json({"location": await self.session.begin_sign_in(redirect_uri)})
        except NotReady as exc:
            return Response.error(409, str(exc))

    def _signed_in(self, request: Request) -> Response:
        """The authorization server's redirect back: the sign-in goes on, the tab goes back
        to the page."""
        sign_in = self.session.sign_in
        callback = f"http://{request.headers['host']}{CALLBACK}?{urlencode(request.query)}"
        if sign_in is None or not sign_in.returned(callback):
            return Response.error(404, "no sign-in is waiting for this answer")
        return Response(302, b"", "text/plain", {"Location": "/"})

    def _answer(self, request: Request, rest: str) -> Response:
        number, _, action = rest.partition("/")
        if action != "answer" or not number.isdigit():
            return Response.error(404, "no such endpoint")
        try:
            body = request.json()
        except orjson.JSONDecodeError:
            return Response.error(400, "the body is not JSON")
        if not isinstance(body, dict):
            return Response.error(400, "the body must be a JSON object")
        try:
            refused = self.session.questions.answer(int(number), body)
        except KeyError:
            return Response.error(404, "no such open question")
        if refused is not None:
            return Response.error(400, refused)
        return Response.json({"ok": True})

    def _one_call(self, rest: str, method: str) -> Response:
        number, _, action = rest.partition("/")
        call = self.session.calls.get(int(number)) if number.isdigit() else None
        if call is None:
            return Response.error(404, "no such call")
        if action == "" and method == "GET":
            return Response.json(call.as_json())
        if action == "cancel" and method == "POST":
            if self.session.cancel(call.id) is None:
                return Response.error(409, "the call already finished")
            return Response.json(call.as_json())
        return Response.error(404, "no such endpoint")
