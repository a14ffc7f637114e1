"""A client for any MCP server: a command (stdio subprocess), a URL (Streamable HTTP) or a
server object (in memory).

::

    async with Client("python calculator.py") as client:
        tools = await client.list_tools()
        result = await client.call_tool("add", {"a": 2, "b": 3})
        text, structured = result.text, result.structured

The client picks the revision itself: 2026-07-28 when the server answers
``server/discover``, else the newest legacy revision the server accepts at ``initialize``.

``call_tool`` checks ``structuredContent`` against the tool's ``outputSchema`` (a mismatch
raises :class:`ClientError`). With ``cache_tools=True``, ``list_tools`` is cached for the
``ttlMs`` the server gives (2026-07-28) and until ``notifications/tools/list_changed``.
:class:`~toolwire.client.SyncClient` offers the same calls without ``async``.

Bounds that hold by default: every request, and every message the client writes, has a
deadline (``timeout``, 60 s; a call's own ``timeout=`` overrides it) whose expiry raises
:class:`~toolwire.ClientTimeout`; an answer larger than ``max_message_bytes`` (64 MiB)
fails its request without being read whole; at most ``max_server_requests`` (32) of the
server's requests are answered at once, the excess at once with a JSON-RPC error; and a
malformed answer raises :class:`ClientError` naming what was wrong.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import itertools
import logging
import shlex
import sys
from collections.abc import Callable, Iterable
from typing import Any, TypeVar

from .. import __version__, jsonrpc
from ..errors import ClientError, ClientTimeout, RPCError
from ..protocol.let_go import declare
from ..protocol.revisions import (
    META_CLIENT_CAPABILITIES,
    META_CLIENT_INFO,
    META_LOG_LEVEL,
    META_PROTOCOL_VERSION,
    META_SUBSCRIPTION_ID,
    MODERN_REVISIONS,
    REVISIONS,
)
from ..transports.base import MAX_MESSAGE_BYTES, ClientTransport
from .answers import Deadline, result_of
from .handshake import ClientHandshake, _object
from .let_go import ClientLetGo, LetGoHandler
from .outputs import OutputChecks
from .primitives import PRIMITIVE_NOTIFICATIONS, ClientPrimitives
from .questions import MAX_SERVER_REQUESTS, Handler, ServerQuestions
from .roots import ClientRoots, RootLike, roots_of
from .skills import ClientSkills
from .tools import CallResult, ClientTools, ProgressHandler

__all__ = ["CallResult", "Client"]

logger = logging.getLogger("toolwire.client")

JSON = dict[str, Any]

MAX_INPUT_ROUNDS = 10
KEPT_NOTIFICATIONS = 1_000
CANCEL_GRACE = 2.0  # seconds the notifications/cancelled of a timed-out request may take
T = TypeVar("T")


class Client(
    ClientTools,
    ClientPrimitives,
    ClientRoots,
    ClientSkills,
    ServerQuestions,
    ClientHandshake,
    ClientLetGo,
):
    """``async with Client(target) as c``: target is a command, an ``http(s)://`` URL or a
    server object.

    ``headers`` go on every HTTP request; ``auth`` authorizes HTTP requests: a bearer token
    string, or :class:`~toolwire.client.oauth.flow.OAuth` for the OAuth flow. ``cache_tools=True``
    keeps the tool list between :meth:`list_tools` calls (see there). ``roots`` (``file://``
    URIs, or dicts with ``uri`` and ``name``) are offered to servers that ask ``roots/list``;
    :meth:`set_roots` changes them.

    ``extensions`` declares the protocol extensions this client supports (identifier ->
    settings, ``{}`` for none; in ``initialize``, and on each 2026-07-28 request);
    :attr:`server_extensions` are the server's. ``timeout`` (seconds, ``None`` for none) is
    the deadline of every request, writing it
    included, and of every notification or answer the client writes. ``connect_timeout`` is
    the deadline of each request of the handshake, a command's start included (``timeout``
    by default; a server may take longer to start, say while ``npx`` downloads it, than a
    call may take). ``max_message_bytes``
    bounds one message from the server; ``max_server_requests`` bounds the server's requests
    answered at once. ``telemetry=True`` (or a :class:`toolwire.telemetry.Telemetry`) traces
    every request and sends its trace context to the server (``pip install toolwire[otel]``).
    ``relay_let_go=True`` declares that this client relays a call's let-go (a proxy does):
    a toolwire server with no stream of its own to end then tells it when a call lets its
    stream go, and the call's ``on_let_go`` hears it (:mod:`toolwire.client.let_go`).
    """

    def __init__(
        self,
        target: Any,
        *,
        protocol_version: str | None = None,
        client_info: JSON | None = None,
        capabilities: JSON | None = None,
        extensions: dict[str, JSON] | None = None,
        timeout: float | None = 60.0,
        connect_timeout: float | None = None,
        env: dict[str, str] | None = None,
        cwd: str | None = None,
        stderr: Any = None,
        tap: Callable[[str, bytes], None] | None = None,
        elicitation_handler: Handler | None = None,
        sampling_handler: Handler | None = None,
        roots: Iterable[RootLike] | None = None,
        log_handler: Callable[[JSON], Any] | None = None,
        log_level: str | None = None,
        headers: dict[str, str] | None = None,
        auth: Any = None,
        cache_tools: bool = False,
        max_message_bytes: int = MAX_MESSAGE_BYTES,
        max_server_requests: int = MAX_SERVER_REQUESTS,
        telemetry: Any = None,
        relay_let_go: bool = False,
    ) -> None:
        if not isinstance(target, (list, tuple)):
            from .mcp_config import is_config  # lazy: only for an mcpServers configuration

            if is_config(target):  # an mcpServers configuration (toolwire.client.mcp_config)
                from .mcp_config import single  # lazy: only for an mcpServers configuration

                given: dict[str, Any] = {"env": env, "cwd": cwd, "headers": headers}
                target = single(target, given)
                env, cwd, headers = given["env"], given["cwd"], given["headers"]
        if protocol_version is not None and protocol_version not in REVISIONS:
            raise ValueError(
                f"Unknown protocol version {protocol_version!r}; known: {', '.join(REVISIONS)}"
            )
        self.target = target
        self.requested_version = protocol_version
        self.protocol_version: str | None = None
        self.client_info = client_info or {"name": "toolwire", "version": __version__}
        self.capabilities = dict(capabilities or {})
        if extensions:
            self.capabilities["extensions"] = {
                **self.capabilities.get("extensions", {}),
                **{identifier: dict(settings) for identifier, settings in extensions.items()},
            }
        # Answers to the server's questions: handler(params) -> result, sync or async.
        self._answerers: dict[str, Handler] = {}
        if elicitation_handler is not None:
            self._answerers["elicitation/create"] = elicitation_handler
            self.capabilities.setdefault("elicitation", {})
        if sampling_handler is not None:
            self._answerers["sampling/createMessage"] = sampling_handler
            self.capabilities.setdefault("sampling", {})
        self.relay_let_go = relay_let_go
        if relay_let_go:
            self.capabilities = declare(self.capabilities)
        self._roots = None if roots is None else roots_of(roots)
        if self._roots is not None:
            self._answerers["roots/list"] = self._list_roots
            self.capabilities.setdefault("roots", {"listChanged": True})
        self.log_handler = log_handler
        self.log_level = log_level
        self._tasks: set[asyncio.Task[None]] = set()
        self._answering: dict[str | int, asyncio.Task[None]] = {}  # the server's open questions
        self._acknowledgements: dict[str | int, asyncio.Future[None]] = {}
        self.timeout = timeout
        self.connect_timeout = connect_timeout
        self.max_message_bytes = max_message_bytes
        self.max_server_requests = max_server_requests
        self.server_info: JSON = {}
        self.server_capabilities: JSON = {}
        self.instructions: str | None = None
        self._transport_options: JSON = {"env": env, "cwd": cwd, "stderr": stderr}
        self._transport: ClientTransport | None = None
        self._ids = itertools.count(1)
        self._pending: dict[str | int, asyncio.Future[JSON]] = {}
        self._progress: dict[str | int, ProgressHandler] = {}
        self._let_go: dict[str | int, LetGoHandler] = {}  # request id -> its on_let_go
        self._reader: asyncio.Task[None] | None = None
        # The server's notifications, oldest first; a long session keeps the latest
        # KEPT_NOTIFICATIONS to KEPT_NOTIFICATIONS * 2 of them.
        self.notifications: list[JSON] = []
        self.ended: ClientError | None = None  # set when the server went away
        self._dispatching = False
        self._tap = tap  # sees every message: tap("send" | "receive", data)
        self._http_headers = dict(headers or {})
        self.auth = auth  # a bearer token or an OAuth (HTTP targets only)
        # list_tools cache: the tools, and the loop time they expire (None: until changed)
        self.cache_tools = cache_tools
        self._tools: list[JSON] | None = None
        self._tools_expiry: float | None = None
        self._tools_generation = 0  # bumped by notifications/tools/list_changed
        self._outputs = OutputChecks()
        if telemetry:  # True, or a toolwire.telemetry.Telemetry: spans for every request
            from ..telemetry import Telemetry  # lazy: only with telemetry on

            (Telemetry() if telemetry is True else telemetry).wrap_client(self)

    # ------------------------------------------------------------ connection

    async def __aenter__(self) -> Client:
        await self.connect()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()

    async def connect(self) -> None:
        self._transport = await self._open_transport()
        self._reader = asyncio.create_task(self._read())
        try:
            await self._handshake()
        except BaseException:
            await self.close()
            raise

    async def _open_transport(self) -> ClientTransport:
        target = self.target
        http_target = isinstance(target, str) and target.startswith(("http://", "https://"))
        if self.auth is not None and not http_target:
            raise ClientError("auth= applies to http(s) URLs only")
        if hasattr(target, "connect") and not isinstance(target, (str, list, tuple)):
            # lazy: only for a server in this process
            from ..transports.memory import MemoryTransport

            memory = MemoryTransport(target)
            await memory.open()
            return memory
        if http_target:
            # lazy: the HTTP stack, only for an HTTP server
            from ..transports.http_client import HttpClientTransport

            http = HttpClientTransport(
                target,
                headers=self._http_headers,
                timeout=self.timeout if self.timeout is not None else 60.0,
                auth=self.auth,
                max_message_bytes=self.max_message_bytes,
            )
            await http.open()
            return http
        command = shlex.split(target) if isinstance(target, str) else list(target)
        if command and command[0].endswith(".py"):
            command = [sys.executable, *command]
        # lazy: only for a server run as a subprocess
        from ..transports.process import SubprocessTransport

        transport = SubprocessTransport(
            command, max_message_bytes=self.max_message_bytes, **self._transport_options
        )
        await transport.start()
        return transport

    @property
    def server_extensions(self) -> JSON:
        """The extensions the server advertised (identifier -> settings), ``{}`` if none."""
        extensions = self.server_capabilities.get("extensions")
        return extensions if isinstance(extensions, dict) else {}

    @property
    def modern(self) -> bool:
        return self.protocol_version in MODERN_REVISIONS

    def _modern_params(self, params: JSON, version: str | None = None) -> JSON:
        meta = dict(params.get("_meta") or {})
        meta[META_PROTOCOL_VERSION] = version or self.protocol_version
        capabilities = self.capabilities
        if capabilities.get("roots"):  # 2026-07-28 has no roots/list_changed to promise
            capabilities = {**capabilities, "roots": {}}
        meta[META_CLIENT_CAPABILITIES] = capabilities
        meta[META_CLIENT_INFO] = self.client_info
        if self.log_level is not None:
            meta[META_LOG_LEVEL] = self.log_level
        return {**params, "_meta": meta}

    async def close(self) -> None:
        if self._transport is not None:
            await self._transport.close()
        if self._reader is not None:
            self._reader.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._reader
        self._fail_pending(ClientError("The connection is closed"))

    # ------------------------------------------------------------ messages

    async def _send(self, data: bytes) -> None:
        assert self._transport is not None
        if self._tap is not None:
            self._show(self._tap, "send", data)
        await self._transport.send(data)

    @staticmethod
    def _show(tap: Callable[[str, bytes], None], direction: str, data: bytes) -> None:
        try:
            tap(direction, data)
        except Exception:  # an observer's bug must not break the connection
            logger.exception("The client's tap failed")

    def _take_now(self, data: bytes) -> bool:
        """Resolve a waiting request straight from the transport when every earlier message
        has been handled (so a call's notifications still come before its answer)."""
        if self._dispatching or self._tap is not None:
            return False
        try:
            message = jsonrpc.loads(data)
        except RPCError:
            return False
        if not isinstance(message, dict) or "method" in message:
            return False
        mid = message.get("id")
        if not isinstance(mid, (str, int)):
            return False
        future = self._pending.pop(mid, None)
        if future is None:
            return False
        if not future.done():
            future.set_result(message)
        return True

    async def _read(self) -> None:
        assert self._transport is not None
        if hasattr(self._transport, "take_now"):
            self._transport.take_now = self._take_now
        if hasattr(self._transport, "on_failure"):
            self._transport.on_failure = self._fail_request
        if hasattr(self._transport, "on_let_go"):
            self._transport.on_let_go = self._heard_let_go
        while True:
            self._dispatching = False
            data = await self._transport.receive()
            self._dispatching = True
            if data is None:
                reason = getattr(self._transport, "ended_reason", None) or "the server went away"
                self.ended = ClientError(f"The connection closed: {reason}")
                self._fail_pending(self.ended)
                return
            if self._tap is not None:
                self._show(self._tap, "receive", data)
            try:
                message = jsonrpc.loads(data)
            except RPCError:
                logger.warning("Ignoring a message that is not JSON: %.200r", data)
                continue
            try:
                if isinstance(message, list):  # a batch (2025-03-26): each message in turn
                    for item in message:
                        await self._dispatch(item)
                else:
                    await self._dispatch(message)
            except Exception:
                logger.exception("Failed to handle a message from the server")

    async def _dispatch(self, message: Any) -> None:
        if not isinstance(message, dict):
            logger.warning("Ignoring a message that is not an object: %.200r", message)
            return
        mid = message.get("id")
        if "method" in message:
            if "id" not in message:
                if isinstance(message["method"], str) and isinstance(
                    message.get("params", {}), dict
                ):
                    await self._notification(message)
                else:
                    logger.warning("Ignoring a malformed notification: %.200r", message)
            else:
                await self._question(message)
            return
        future = self._pending.pop(mid, None) if isinstance(mid, (str, int)) else None
        if future is None:
            logger.warning(
                "Ignoring an answer to no request the client is waiting for: %.200r", message
            )
        elif not future.done():
            future.set_result(message)

    def _fail_request(self, mid: Any, error: str | Exception) -> None:
        """The transport could not deliver request ``mid``'s answer (too large, or refused
        over HTTP, say)."""
        future = self._pending.pop(mid, None) if isinstance(mid, (str, int)) else None
        if future is not None and not future.done():
            future.set_exception(error if isinstance(error, Exception) else ClientError(error))

    async def _notification(self, message: JSON) -> None:
        self.notifications.append(message)
        if len(self.notifications) > 2 * KEPT_NOTIFICATIONS:
            del self.notifications[:-KEPT_NOTIFICATIONS]
        if message["method"] == "notifications/tools/list_changed":
            self.invalidate_tools()
        elif message["method"] == "notifications/cancelled":  # the server withdrew a question
            rid = (message.get("params") or {}).get("requestId")
            answering = self._answering.get(rid) if isinstance(rid, (str, int)) else None
            if answering is not None:
                answering.cancel()  # and no answer is sent (CN-04)
        elif message["method"] == "notifications/subscriptions/acknowledged":
            sid = _object(_object(message.get("params")).get("_meta")).get(META_SUBSCRIPTION_ID)
            waiting = self._acknowledgements.pop(sid, None) if sid is not None else None
            if waiting is not None and not waiting.done():
                waiting.set_result(None)
        elif message["method"] in PRIMITIVE_NOTIFICATIONS:
            await self._primitive_notification(message)
        elif (
            message["method"] == "notifications/message"
            and (self.relay_let_go or self._let_go)
            and self._let_go_notice(message)
        ):
            pass  # the call it concerns was told
        elif message["method"] == "notifications/message" and self.log_handler is not None:
            outcome = self.log_handler(message.get("params") or {})
            if inspect.isawaitable(outcome):
                await outcome
        elif message["method"] == "notifications/progress":
            params = message.get("params") or {}
            token = params.get("progressToken")
            handler = self._progress.get(token) if isinstance(token, (str, int)) else None
            if handler is not None:
                outcome = handler(
                    params.get("progress", 0), params.get("total"), params.get("message")
                )
                if inspect.isawaitable(outcome):
                    await outcome

    def _fail_pending(self, error: Exception) -> None:
        for future in self._pending.values():
            if not future.done():
                future.set_exception(error)
        self._pending.clear()

    async def _notify(
        self, method: str, params: JSON | None = None, timeout: float | None = None
    ) -> None:
        assert self._transport is not None
        await self._send_within(
            jsonrpc.notification_bytes(method, params), method, timeout or self.timeout
        )

    async def _send_within(self, data: bytes, what: str, timeout: float | None = None) -> None:
        """Write ``data``, waiting at most ``timeout`` (the client's) for a blocked write."""
        seconds = timeout or self.timeout
        if seconds is None:
            await self._send(data)
            return
        deadline = Deadline(None, asyncio.current_task())
        deadline.writing = True
        timer = asyncio.get_running_loop().call_later(seconds, deadline)
        try:
            await self._send(data)
        except asyncio.CancelledError:
            if deadline.interrupted():
                raise ClientTimeout(f"Sending {what} timed out after {seconds:g} s") from None
            raise
        finally:
            timer.cancel()

    async def _request(
        self,
        method: str,
        params: JSON | None = None,
        timeout: float | None = None,
        *,
        mid: int | None = None,
        on_let_go: LetGoHandler | None = None,
    ) -> JSON:
        if self._transport is None:
            raise ClientError("The client is not connected")
        if self.ended is not None:  # fail at once rather than write to a dead server
            raise self.ended
        if mid is None:  # telemetry picks it first, for its span
            mid = next(self._ids)
        loop = asyncio.get_running_loop()
        future: asyncio.Future[JSON] = loop.create_future()
        self._pending[mid] = future
        if on_let_go is not None:
            self._let_go[mid] = on_let_go
        seconds = timeout or self.timeout
        # A timer rather than asyncio.wait_for: the answer wakes this task directly. It runs
        # from before the write, which a server that stops reading can block.
        deadline = Deadline(future, asyncio.current_task())
        timer = loop.call_later(seconds, deadline) if seconds is not None else None
        try:
            deadline.writing = True
            await self._send(jsonrpc.request_bytes(mid, method, params))
            deadline.writing = False
            response = await future
        except asyncio.TimeoutError:
            await self._abandon(mid, method, "timed out")
            raise ClientTimeout(f"{method} timed out after {seconds:g} s") from None
        except asyncio.CancelledError:  # the caller gave up: tell the server to stop (CN-11)
            if deadline.interrupted():
                await self._abandon(mid, method, "timed out")
                raise ClientTimeout(
                    f"{method} timed out after {seconds:g} s (the server is not reading)"
                ) from None
            await self._abandon(mid, method, "cancelled by the client")
            raise
        except BaseException:
            self._pending.pop(mid, None)
            raise
        finally:
            if timer is not None:
                timer.cancel()
            if on_let_go is not None:
                self._let_go.pop(mid, None)
        return result_of(method, response)

    async def _abandon(self, mid: int, method: str, reason: str) -> None:
        """Stop waiting for request ``mid`` and say so to the server; an answer that still
        arrives is dropped (CN-05). ``initialize`` is never cancelled (LC-12). Sending the
        notification waits at most ``CANCEL_GRACE`` seconds."""
        self._pending.pop(mid, None)
        if method != "initialize" and self.ended is None:
            grace = min(CANCEL_GRACE, self.timeout or CANCEL_GRACE)
            with contextlib.suppress(Exception):
                await self._notify(
                    "notifications/cancelled", {"requestId": mid, "reason": reason}, grace
                )

    async def request(
        self,
        method: str,
        params: JSON | None = None,
        *,
        timeout: float | None = None,
        on_let_go: LetGoHandler | None = None,
    ) -> JSON:
        """Send any request in the negotiated revision and return its raw result.
        ``on_let_go(retry_ms)`` is called if the server lets the request's stream go
        before answering (:mod:`toolwire.client.let_go`)."""
        params = dict(params or {})
        if not self.modern:
            return await self._request(method, params, timeout, on_let_go=on_let_go)
        wire = self._modern_params(params)
        result = await self._request(method, wire, timeout, on_let_go=on_let_go)
        return await self._rounds(method, params, result, timeout, on_let_go)

    async def _rounds(
        self,
        method: str,
        params: JSON,
        result: JSON,
        timeout: float | None = None,
        on_let_go: LetGoHandler | None = None,
    ) -> JSON:
        """The final result of ``method`` (2026-07-28) whose first answer was ``result``: while
        the server needs input, the client answers and asks again (MP-08)."""
        for attempt in range(MAX_INPUT_ROUNDS):
            if attempt:
                wire = self._modern_params(params)
                result = await self._request(method, wire, timeout, on_let_go=on_let_go)
            if result.get("resultType", "complete") != "input_required":
                return result
            # The server needs answers first: give them and ask again with a new id (MP-08).
            requests = result.get("inputRequests") or {}
            try:
                answers = {
                    key: await self._answer(r["method"], r.get("params") or {})
                    for key, r in requests.items()
                }
            except RPCError as exc:  # no handler, or it failed: nothing to retry with
                raise ClientError(
                    f"{method} needs input the client could not give: {exc.message}"
                ) from exc
            params = {
                k: v for k, v in params.items() if k not in ("inputResponses", "requestState")
            }
            params["inputResponses"] = answers
            if "requestState" in result:
                params["requestState"] = result["requestState"]
        raise ClientError(f"{method} still needed input after {MAX_INPUT_ROUNDS} rounds")

    async def notify(self, method: str, params: JSON | None = None) -> None:
        """Send a notification (an extension's, say) in the negotiated revision."""
        params = dict(params or {})
        await self._notify(method, self._modern_params(params) if self.modern else params or None)

    async def ping(self) -> None:
        """Check that the server answers: ``ping`` on legacy revisions, ``server/discover``
        on 2026-07-28, which has no ``ping``."""
        await self.request("server/discover" if self.modern else "ping")
