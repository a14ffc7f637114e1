"""Streamable HTTP: an ASGI application serving one MCP endpoint, for both eras.

* Legacy revisions (2025-03-26 … 2025-11-25; 2024-11-05 clients are served too): a
  session per ``initialize`` (``Mcp-Session-Id``), POST of one message, the answer as JSON
  or as an SSE stream that also carries that request's notifications and server requests,
  a GET stream for everything else, resumption with ``Last-Event-ID``, DELETE to end.
* 2026-07-28: every POST stands alone — no session, ``Mcp-Method``/``Mcp-Name`` checked
  against the body, and closing the response stream cancels the request.

A request is answered with plain JSON when its answer is all there is to send, and with
SSE as soon as something else (progress, a log line, a question for the user) has to go
out first. Safety is on by default: ``Host`` and ``Origin`` are checked against DNS
rebinding, bodies are bounded, and open streams are counted. With a resource server
configured (``Server(..., auth=ResourceServer(...))``) its metadata is served and every
request must bring a bearer token (:mod:`.auth`).
"""

from __future__ import annotations

import asyncio
import logging
import secrets
from collections.abc import Callable, Iterable, Sequence
from typing import Any, Protocol

import orjson

from ... import jsonrpc
from ...errors import RPCError
from ...protocol.revisions import LEGACY_REVISIONS
from ..asgi import (
    Receive,
    Scope,
    Send,
    closing_connection,
    json_answer,
    plain,
    request_headers,
    settle,
)
from ..base import Connection
from ..http_trace import HttpRequest, current_request
from ..store.contract import SessionStore, StoreUnavailable
from ..store.stores import MemoryStore
from . import limits
from .answer import Answering
from .auth import MetadataDocument, authenticate, owner_of
from .changes import ChangeRelay
from .guard import Guard, Rejection, read_body
from .health import Health
from .resume import Followed, resume
from .routes import router, wrapped
from .rules import accepts, check_mirrored_headers, is_modern, kind_of, status_of
from .session import Reply, Session
from .sse import Stream
from .stop import Stopping

logger = logging.getLogger("toolwire")

JSON = dict[str, Any]
# Requests that change what a session remembers: another worker must see the change.
SESSION_STATE_METHODS = frozenset(
    {"logging/setLevel", "resources/subscribe", "resources/unsubscribe"}
)
STORE_DOWN = "The session store is unavailable; try again shortly"
LISTEN = "subscriptions/listen"


INSIDE = "toolwire.past_middleware"  # in the scope of a request the middleware passed on


class HttpServer(Protocol):
    """What the HTTP app needs of a server."""

    def connect(self, send: Callable[[bytes], None]) -> Connection: ...

    async def start(self) -> None: ...

    async def stop(self) -> None: ...

    def header_params(self, tool: str) -> dict[str, str]: ...

    async def drain_connections(self, grace: float) -> None: ...

    def end_listening(self) -> None: ...

    shutdown_grace: float
    change_hooks: list[Callable[[JSON], None]]
    shared_store: Any  # the store, when other workers share it (tasks are kept there)

    def announce_list_changed(self, kind: str) -> None: ...


class HttpApp(Stopping, Answering):
    """``mcp.http_app(path="/mcp", ...)``: an ASGI application for one MCP endpoint.

    Options: ``json_response=True`` never streams (notifications of a request go to the GET
    stream instead); ``stateless=True`` keeps no legacy sessions (each request stands
    alone, the revision taken from ``MCP-Protocol-Version``); ``allowed_hosts`` /
    ``allowed_origins`` (default: loopback only, the DNS-rebinding defence for local
    servers; ``["*"]`` to accept any); ``max_body_bytes``; ``max_streams`` open at once,
    ``max_client_streams`` of them for one client and ``max_session_streams`` for one
    session; ``max_sessions`` kept, ``max_client_sessions`` for one client, the least
    recently used idle one evicted past either (see :mod:`.limits`); ``retry_ms``
    for SSE reconnects; ``body_timeout`` for slow uploads; ``session_idle`` seconds after
    which a session nobody used is forgotten (a later request gets 404 and the client
    initializes again, HT-24); ``store`` to share sessions between workers;
    ``auth`` (default: the server's own ``auth``), a :class:`~toolwire.auth.ResourceServer`
    whose metadata is served and whose tokens every request must bring. ``health``: the
    liveness and readiness endpoints (``/healthz``, ``/readyz``; ``False`` for none, or a
    :class:`~.health.Health`); ``drain_delay``: seconds ``mcp.run(transport="http")``
    keeps serving, not ready, after ``SIGTERM`` before it drains (for load balancers to
    notice); ``middleware``: Starlette ``Middleware(cls, ...)`` entries around every HTTP
    request, the first outermost (FastMCP's ``http_app(middleware=[...])``, :mod:`.routes`).
    """

    # @mcp.custom_route(...)'s router, and the author's Starlette middleware around every
    # request (see .routes): class defaults, each set on an instance that has some
    routes: Any = None
    middleware: Any = None

    def __init__(
        self,
        server: HttpServer,
        *,
        path: str = "/mcp",
        json_response: bool = False,
        stateless: bool = False,
        allowed_hosts: Iterable[str] | None = None,
        allowed_origins: Iterable[str] | None = None,
        max_body_bytes: int = 4 * 1024 * 1024,
        max_streams: int = limits.MAX_STREAMS,
        max_client_streams: int | None = limits.MAX_CLIENT_STREAMS,
        max_session_streams: int | None = limits.MAX_SESSION_STREAMS,
        max_sessions: int | None = limits.MAX_SESSIONS,
        max_client_sessions: int | None = limits.MAX_CLIENT_SESSIONS,
        retry_ms: int = 1000,
        body_timeout: float = 30.0,
        session_idle: float = 3600.0,
        store: SessionStore | None = None,
        auth: Any = None,
        health: Any = True,
        drain_delay: float = 0.0,
        middleware: Sequence[Any] = (),
    ) -> None:
        self.server = server
        self.health = Health.of(health)  # /healthz and /readyz (see .health)
        self.drain_delay = drain_delay  # seconds still served, not ready, after SIGTERM
        self.draining = False  # a shutdown began: readiness is false
        self.own_runner = False  # mcp.run() serves it: its runner drains on SIGTERM
        self._unwatch: Callable[[], None] | None = None  # another runner: the signal watch
        self._stopped: asyncio.Future[None] | None = None  # stop() began
        self.auth = auth if auth is not None else getattr(server, "auth", None)
        self.metadata = MetadataDocument(self.auth) if self.auth is not None else None
        self.store: SessionStore = store or MemoryStore()
        self.path = path.rstrip("/") or "/"
        self.json_response = json_response
        self.stateless = stateless
        self.guard = Guard(allowed_hosts, allowed_origins)
        self.max_body_bytes = max_body_bytes
        self.streams = limits.Streams(max_streams, max_client_streams, max_session_streams)
        self.retry_ms = retry_ms
        self.body_timeout = body_timeout
        self.session_idle = session_idle
        self.sessions = limits.SessionTable(max_sessions, max_client_sessions, self.streams)
        self.closing = False  # set once the app is shutting down: cut calls say so
        self.modern_calls: set[Stream] = set()  # 2026-07-28 calls being answered
        self.followed = Followed()  # streams served from the shared store's log
        self.posts = 0  # POST requests being handled, from their first byte to their answer
        self.requests: set[asyncio.Task[Any] | None] = set()  # the tasks handling requests
        self._stragglers: set[asyncio.Task[Any]] = set()  # those cut by a stop (after grace)
        self._posts_done: asyncio.Event | None = None  # set when none are left (while draining)
        self.changes = ChangeRelay(server, self.store, lambda: self.sessions.values())
        # Set on the instance only when used: past 29 attributes, every lookup is slower.
        routes = getattr(server, "custom_routes", ())
        if routes:
            self.routes = router(routes)
        if middleware:
            self.middleware = wrapped(self._inside, middleware)

    # ------------------------------------------------------------ ASGI entry

    async def _inside(self, scope: Scope, receive: Receive, send: Send) -> None:
        """The request, past the author's middleware: served by :meth:`__call__` itself, so
        an app without middleware pays for no extra call."""
        scope[INSIDE] = True
        await self(scope, receive, send)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self._lifespan(receive, send)
            return
        if scope["type"] != "http":
            return
        if self.middleware is not None and INSIDE not in scope:
            await self.middleware(scope, receive, send)  # back here through _inside
            return
        if self.draining:  # each answer closes its connection: the next request goes elsewhere
            send = closing_connection(send)
        path = scope["path"]
        root = scope.get("root_path", "")
        if root and path.startswith(root):  # mounted under a prefix (Starlette's Mount)
            path = path[len(root) :]
        if self.health is not None and path in self.health.paths:  # no auth, no MCP traffic
            await self.health.answer(self, path, scope["method"], send)
            return
        if (path.rstrip("/") or "/") != self.path:
            if self.metadata is not None and scope["path"] in self.metadata.paths:
                await self.metadata.serve(scope["method"], send)
                return
            if self.routes is not None:
                await self.routes(scope, receive, send)
                return
            await plain(send, 404, b"Not Found")
            return
        headers = request_headers(scope)
        method = scope["method"]
        if method == "POST":  # counted before any wait: a drain waits for it (see drain)
            self.posts += 1
        handling = asyncio.current_task()
        self.requests.add(handling)
        try:
            self.guard.check(headers)
            identity = None
            if self.auth is not None and method in ("POST", "GET", "DELETE"):
                # before any body (SB-02)
                identity = await authenticate(self.auth, headers, scope, self.store)
            limits.current_client.set(limits.client_of(scope, identity))
            current_request.set(HttpRequest(scope, headers, identity))
            if method == "POST":
                client = scope.get("client")  # tells 2026-07-28 callers apart without auth
                await self._post(headers, receive, send, identity, client[0] if client else None)
            elif method == "GET":
                await self._get(headers, receive, send, identity)
            elif method == "DELETE":
                await self._delete(headers, send, identity)
            else:
                raise Rejection(
                    405, "Method Not Allowed", headers=[(b"allow", b"GET, POST, DELETE")]
                )
        except Rejection as rejected:
            await rejected.send(send)
        except StoreUnavailable as exc:  # raised before any answer started: 503, retry
            logger.warning("Answered 503: %s", exc)
            down = Rejection.rpc(503, RPCError(jsonrpc.INTERNAL_ERROR, STORE_DOWN))
            down.headers.append((b"retry-after", b"1"))
            await down.send(send)
        except asyncio.CancelledError:
            if handling not in self._stragglers:
                raise
            # cut by the stop, which said where (see _end_stragglers): it ends quietly
        finally:
            self.requests.discard(handling)
            if method == "POST":
                self.posts -= 1
                if not self.posts and self._posts_done is not None:
                    self._posts_done.set()

    async def _lifespan(self, receive: Receive, send: Send) -> None:
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                await self.server.start()
                await self.store.start(self.changes.received)
                if self.store.shared:
                    self.server.change_hooks.append(self.changes.publish)
                    self.server.shared_store = self.store  # tasks are seen by every worker
                    handover = getattr(getattr(self.server, "tasks", None), "handover", None)
                    if handover is not None:  # resumable tasks other workers hand over
                        self.store.take_runs(handover.adopt)
                if not self.own_runner:  # uvicorn module:app, gunicorn: stop on its signal
                    # lazy: the HTTP stack, only when serving HTTP
                    from .run import stop_with_the_runner

                    self._unwatch = stop_with_the_runner(self.stop)
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                if self._unwatch is not None:
                    self._unwatch()
                if self.own_runner:  # it drained already
                    await self.close()
                else:  # the stop its signal began, or one now: tasks too get their grace
                    await self.stop()
                if self.changes.publish in self.server.change_hooks:
                    self.server.change_hooks.remove(self.changes.publish)
                if self.server.shared_store is self.store:
                    self.server.shared_store = None
                await self.store.close()
                if self.auth is not None and hasattr(self.auth, "aclose"):
                    await self.auth.aclose()
                await self.server.stop()
                await send({"type": "lifespan.shutdown.complete"})
                return

    # ------------------------------------------------------------ POST

    async def _post(
        self,
        headers: dict[str, str],
        receive: Receive,
        send: Send,
        identity: Any,
        peer: str | None = None,
    ) -> None:
        content_type = headers.get("content-type", "").split(";")[0].strip().lower()
        if content_type != "application/json":
            raise Rejection(415, "Content-Type must be application/json")
        body = await read_body(receive, self.max_body_bytes, self.body_timeout)
        try:
            message = jsonrpc.loads(body)
        except RPCError as exc:
            raise Rejection.rpc(400, exc) from None
        wants_json, wants_sse = accepts(headers.get("accept", ""))
        if not (wants_json or wants_sse):
            raise Rejection(406, "Accept must include application/json or text/event-stream")
        if self.json_response:
            wants_sse = False
            if not wants_json:
                raise Rejection(406, "This endpoint answers with application/json only")
        if is_modern(message, headers):
            await self._post_modern(
                message, headers, receive, send, wants_json, wants_sse, identity, peer
            )
        else:
            await self._post_legacy(
                message, body, headers, receive, send, wants_json, wants_sse, identity, peer
            )

    # ---------------------------------------------------------------- modern

    async def _post_modern(
        self,
        message: Any,
        headers: dict[str, str],
        receive: Receive,
        send: Send,
        wants_json: bool,
        wants_sse: bool,
        identity: Any,
        peer: str | None = None,
    ) -> None:
        check_mirrored_headers(message, headers, self.server.header_params)
        if self.closing and isinstance(message, dict) and message.get("method") == LISTEN:
            # a stream read as the app closed: nothing would end it
            raise Rejection(503, "The server is shutting down", headers=[(b"retry-after", b"1")])
        if not wants_json:  # no stream for it: refused before it runs
            refused = self.streams.refusal(None, jsonrpc.request_id(message))
            if refused is not None:
                raise refused
        stream = Stream("modern")
        reply = Reply(stream, message.get("id"))
        connection = self.server.connect(reply.related)
        connection.peer = peer
        connection.route = lambda _related, data: reply.related(data)
        connection.identity = identity
        if not connection.feed_message(message, reply.final):  # a notification (or response)
            connection.close()
            await plain(send, 202, b"")  # nothing to answer (HT-09)
            return
        self.modern_calls.add(stream)
        try:
            await self._answer(stream, reply, receive, send, wants_json, wants_sse, resumable=False)
        finally:
            self.modern_calls.discard(stream)
            if not reply.answered:  # the client closed the stream: that cancels (CN-10)
                connection.cancel(message["id"])
            connection.close()

    # ---------------------------------------------------------------- legacy

    async def _post_legacy(
        self,
        message: Any,
        body: bytes,
        headers: dict[str, str],
        receive: Receive,
        send: Send,
        wants_json: bool,
        wants_sse: bool,
        identity: Any,
        peer: str | None = None,
    ) -> None:
        if kind_of(message) == "request" and message.get("method") == "initialize":
            await self._initialize(message, send, identity)
            return
        session = await self._session(headers, identity)
        session.connection.peer = peer  # who calls, for admission, if no token says so
        kind = kind_of(message)
        if kind != "request":  # a batch, a notification, a response, or something invalid
            answer: asyncio.Future[bytes] = asyncio.get_running_loop().create_future()
            connection = session.connection
            connection.identity = identity  # feeding is synchronous: no one else's
            before = dict(connection.in_flight) if kind == "batch" else {}
            answered = connection.feed_message(message, settle(answer))
            found = (
                await limits.batch_answer(connection, before, answer, receive) if answered else b""
            )
            if self.stateless:  # nothing outlives a stateless request
                connection.close()
            if found is None:  # its sender is gone, and so are its calls
                return
            data = found
            if not answered:
                await plain(send, 202, b"")  # nothing to answer (HT-09)
                return
            status = 200 if data[:1] == b"[" else status_of(data)  # a refused batch: 400
            await json_answer(send, status, data, None if self.stateless else session.id)
            return
        if not wants_json:  # only a stream can carry its answer: refused if none may open
            refused = self.streams.refusal(None if self.stateless else session.id, message["id"])
            if refused is not None:
                raise refused
        stream = session.request_stream(message["id"])
        reply = Reply(stream, message["id"])
        session.replies[message["id"]] = reply
        try:
            session.connection.identity = identity
            session.connection.feed_message(message, reply.final)
            await self._answer(
                stream,
                reply,
                receive,
                send,
                wants_json,
                wants_sse,
                resumable=session.version >= "2025-11-25",
                session=session,
            )
        finally:
            if reply.answered:
                session.replies.pop(message["id"], None)
            if self.stateless:  # nothing outlives a stateless request
                if not reply.answered:
                    session.connection.cancel(message["id"])
                session.connection.close()
        method = message.get("method")
        if (
            isinstance(method, str)  # a malformed request's method may be anything
            and method in SESSION_STATE_METHODS
            and self.store.shared
            and not self.stateless
        ):
            try:  # answered already: the next request through another worker may miss it
                await self.store.save_session(session.id, session.state())
            except StoreUnavailable as exc:
                logger.warning("Could not save session state: %s", exc)

    async def _initialize(self, message: JSON, send: Send, identity: Any) -> None:
        if self.stateless:
            connection = self.server.connect(_ignore)
            connection.identity = identity
            answer: list[bytes] = []
            connection.feed_message(message, answer.append)
            connection.close()
            await json_answer(send, status_of(answer[0]), answer[0], None)
            return
        self.sessions.forget_idle(self.session_idle)
        for evicted, begun_here in self.sessions.make_room(
            message.get("id")
        ):  # they answer 404 from now on
            await limits.retire(evicted, self.store, everywhere=begun_here)
        session = Session(self.server.connect, self.store, secrets.token_urlsafe(24))
        if self.auth is not None:  # the session belongs to whoever opened it (SB-03)
            session.owner = owner_of(identity)
            session.connection.identity = identity
        answer = []
        session.connection.feed_message(message, answer.append)
        result = orjson.loads(answer[0]).get("result")
        if result is None:  # refused (invalid params): no session for it (HT-21)
            session.connection.close()
            await json_answer(send, status_of(answer[0]), answer[0], None)
            return
        session.version = result.get("protocolVersion", session.version)
        if self.store.shared:
            try:
                await self.store.save_session(session.id, session.state())
            except StoreUnavailable:
                session.connection.close()  # no session without its shared state
                raise
        self.sessions[session.id] = session
        self.sessions.begun.add(session.id)
        await json_answer(send, 200, answer[0], session.id)

    async def _session(self, headers: dict[str, str], identity: Any) -> Session:
        version = headers.get("mcp-protocol-version")
        if version is not None and version not in LEGACY_REVISIONS:
            raise Rejection.rpc(
                400,
                RPCError(jsonrpc.INVALID_REQUEST, f"Unsupported MCP-Protocol-Version {version!r}"),
            )
        if self.stateless:
            alone = Session(self.server.connect, self.store, "stateless")
            alone.pin(version or "2025-03-26")
            alone.connection.close_sse = None  # nothing to resume: a call's stream stays open
            return alone
        session_id = headers.get("mcp-session-id")
        if session_id is None:
            raise Rejection.rpc(
                400, RPCError(jsonrpc.INVALID_REQUEST, "Mcp-Session-Id header is required")
            )
        session = self.sessions.get(session_id)
        if self.store.shared:  # the store has the truth: another worker may have changed it
            state = await self.store.load_session(session_id)
            if state is None:  # ended (or expired) wherever it was
                self.sessions.pop(session_id, None)
                session = None
            else:  # (another request may have restored it here meanwhile: one object)
                session = self.sessions.get(session_id)
                if session is None:  # begun through another worker
                    session = self.sessions[session_id] = Session(
                        self.server.connect, self.store, session_id
                    )
                session.restore(state)
        if session is None or (self.auth is not None and session.owner != owner_of(identity)):
            # someone else's session is, to this caller, no session at all (SB-03)
            raise Rejection.rpc(404, RPCError(jsonrpc.INVALID_REQUEST, "Session not found"))
        session.last_used = asyncio.get_running_loop().time()
        self.sessions.touch(session_id)
        return session

    # ------------------------------------------------------------ GET and DELETE

    async def _get(
        self, headers: dict[str, str], receive: Receive, send: Send, identity: Any
    ) -> None:
        if self.stateless:
            raise Rejection(405, "This endpoint keeps no streams", headers=[(b"allow", b"POST")])
        if "text/event-stream" not in headers.get("accept", ""):
            raise Rejection(406, "GET needs Accept: text/event-stream")
        session = await self._session(headers, identity)
        if self.closing:  # its session was read as the app closed: nothing would end it
            raise Rejection(503, "The server is shutting down", headers=[(b"retry-after", b"1")])
        last = headers.get("last-event-id")
        if last is not None:  # resume one stream after its last event the client saw
            await resume(session, self.store, last, receive, send, self._resumed, self.followed)
            return
        if session.standalone_open:  # one GET stream per session; a resumption takes it over
            raise Rejection.rpc(
                409,
                RPCError(
                    jsonrpc.INVALID_REQUEST,
                    "Invalid request: a GET stream is already open for this session",
                ),
            )
        session.standalone_open += 1
        try:  # event ids and a priming event from 2025-11-25 on (older clients choke on it)
            await self._stream(
                session.standalone,
                receive,
                send,
                resumable=session.version >= "2025-11-25",
                session_id=session.id,
            )
        finally:
            session.standalone_open -= 1

    async def _resumed(
        self, stream: Stream, receive: Receive, send: Send, *, session_id: str, after: int
    ) -> None:
        await self._stream(
            stream, receive, send, resumable=True, session_id=session_id, after=after, resumed=True
        )

    async def _delete(self, headers: dict[str, str], send: Send, identity: Any) -> None:
        if self.stateless:
            raise Rejection(405, "This endpoint keeps no sessions", headers=[(b"allow", b"POST")])
        session = await self._session(headers, identity)
        self.sessions.pop(session.id, None)
        await self.store.drop_session(session.id)
        await session.connection.drain(0.0)
        for stream in session.streams.values():
            stream.close()
        await plain(send, 200, b"")


def _ignore(data: bytes) -> None:
    return None
