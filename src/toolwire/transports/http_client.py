"""The client end of Streamable HTTP: one POST per message, answers as JSON or SSE.

The transport keeps the client's send/receive/close contract: the client hands it encoded
messages and reads every message the server sends back (answers, notifications, server
requests) from :meth:`HttpClientTransport.receive`. What HTTP needs on top of the message
is worked out here, by reading the outgoing message:

* legacy revisions: the ``Mcp-Session-Id`` given at ``initialize`` and the negotiated
  ``MCP-Protocol-Version`` go on every later request; a GET stream carries what the server
  sends outside a request (``notifications/tools/list_changed``); a 404 for an expired
  session is answered by initializing again, once, and sending the message again; an SSE
  stream (a request's or the GET stream) that ends after an event id is resumed with a GET
  carrying ``Last-Event-ID``, after the server's ``retry`` delay (``http_client_sse``);
* 2026-07-28: ``MCP-Protocol-Version``, ``Mcp-Method`` and ``Mcp-Name`` mirror the body;
  a ``notifications/cancelled`` is not posted — the request's response stream is closed,
  which is how a stateless server learns of it; a response stream that ends without the
  answer fails its request at once.

``auth`` puts ``Authorization: Bearer`` on every request (AU-17): a fixed token, or an
object with the :class:`HttpAuth` calls (``toolwire.client.oauth.flow.OAuth``), which is asked
what to do when the server answers 401 or 403; the request is then sent again, a few times
at most. An authorization that fails on a 401 ends the connection (nothing more can be
asked of the server); one that fails on a 403 fails that request only.

Answers are read in pieces and never beyond ``max_message_bytes`` (a JSON body, or one SSE
event): a larger answer fails its request with a :class:`~toolwire.ClientError` and the
response is closed unread; one on the GET stream ends that stream.

``httpx`` is imported when the transport is opened: ``pip install 'toolwire[http]'``.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import functools
import logging
from collections.abc import AsyncIterator, Callable
from typing import Any

import orjson

from .. import jsonrpc
from .._pip import extra_install
from ..errors import ClientError, RPCError, Unauthorized
from ..protocol.header_params import NAMED_METHODS, header_params
from ..protocol.revisions import META_IDEMPOTENCY_KEY, META_PROTOCOL_VERSION, MODERN_REVISIONS
from .base import MAX_MESSAGE_BYTES, QueueReceiver
from .http_client_auth import (
    MAX_AUTH_RETRIES,
    AuthFailed,
    HttpAuth,
    answer_challenge,
    authorize_request,
)
from .http_client_sse import Cursor, TooLarge, answers, events
from .http_trace import copy_trace_context

logger = logging.getLogger("toolwire.client")

JSON = dict[str, Any]

ACCEPT = "application/json, text/event-stream"
LISTEN_WAIT = 5.0  # seconds the start of a session waits for its GET stream to open


def _httpx() -> Any:
    try:
        import httpx  # optional: httpx (the http extra)
    except ImportError:  # pragma: no cover - depends on the environment
        raise ClientError(f"HTTP targets need httpx: {extra_install('http')}") from None
    return httpx


class _SessionExpired(Exception):
    """The server answered 404 for our session id."""


class HttpClientTransport(QueueReceiver):
    """Speaks Streamable HTTP to ``url``; ``headers`` are added to every request."""

    mirrors_header_params = True  # 2026-07-28: the client drops tools it could not mirror

    def __init__(
        self,
        url: str,
        *,
        headers: dict[str, str] | None = None,
        timeout: float = 60.0,
        auth: str | HttpAuth | None = None,
        max_message_bytes: int = MAX_MESSAGE_BYTES,
    ) -> None:
        super().__init__()
        self.max_message_bytes = max_message_bytes
        self.url = url
        self.extra_headers = dict(headers or {})
        self.timeout = timeout
        self.auth = auth
        self.ended_reason: str | None = None
        self.session_id: str | None = None
        self.protocol_version: str | None = None  # the legacy revision negotiated
        self._http: Any = None
        self._initialize: JSON | None = None  # replayed when the session expires
        self._initialize_id: Any = None
        self._requests: dict[Any, asyncio.Task[None]] = {}  # request id -> its POST
        self._tasks: set[asyncio.Task[None]] = set()
        self._listener: asyncio.Task[None] | None = None
        self._listening = asyncio.Event()  # the GET stream has its answer (or failed)
        self._reinit = asyncio.Lock()
        self._listings: set[Any] = set()  # ids of tools/list requests in flight
        self._header_params: dict[str, dict[str, str]] = {}  # tool -> {param: header}
        # Told when a request's stream was let go (it ended after an event id and before
        # the answer, SEP-1699): on_let_go(request id, the server's retry in ms or None).
        self.on_let_go: Callable[[Any, int | None], None] | None = None

    async def open(self) -> None:
        httpx = _httpx()
        self._http = httpx.AsyncClient(
            timeout=httpx.Timeout(self.timeout, read=None), follow_redirects=False
        )

    # ------------------------------------------------------------ contract

    async def send(self, data: bytes) -> None:
        if self._http is None:
            raise ClientError("The HTTP transport is not open")
        try:
            message = orjson.loads(data)
        except orjson.JSONDecodeError:
            message = None
        if not isinstance(message, dict):  # a batch or something odd: post it as it is
            self._spawn(self._post(data, None, None))
            return
        method = message.get("method")
        if method == "notifications/cancelled":
            await self._cancel(message, data)
            return
        if method is not None and "id" in message:  # a request: answered on its own task
            mid = message["id"]
            if method == "initialize":
                self._initialize, self._initialize_id = message, mid
            elif method == "tools/list":
                self._listings.add(mid)
            task = self._spawn(self._post(data, message, mid))
            self._requests[mid] = task
            task.add_done_callback(functools.partial(self._forget, mid))
            return
        # a notification or our answer to a server request: 202 expected
        await self._post(data, message, None)
        if method == "notifications/initialized" and self.session_id is not None:
            self._listen()
            # A server may ask or tell something on the GET stream as soon as the session
            # starts, and drops what it cannot send: open that stream before the next request.
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(self._listening.wait(), min(self.timeout, LISTEN_WAIT))

    async def close(self) -> None:
        tasks = [*self._tasks, *([self._listener] if self._listener else [])]
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(BaseException):
                await task
        if self._http is not None:
            if self.session_id is not None:  # end the session politely (HT-23)
                with contextlib.suppress(Exception):
                    headers = self._headers(None)
                    await self._authorization(headers, "DELETE")
                    await self._http.delete(self.url, headers=headers)
            await self._http.aclose()
            self._http = None
        self.end()

    # ------------------------------------------------------------ posting

    def _spawn(self, work: Any) -> asyncio.Task[None]:
        task: asyncio.Task[None] = asyncio.ensure_future(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    def _forget(self, mid: Any, task: asyncio.Task[None]) -> None:
        if self._requests.get(mid) is task:
            del self._requests[mid]

    @staticmethod
    def _version_of(message: JSON | None) -> str | None:
        params = message.get("params") if message else None
        meta = params.get("_meta") if isinstance(params, dict) else None
        version = meta.get(META_PROTOCOL_VERSION) if isinstance(meta, dict) else None
        return version if isinstance(version, str) else None

    def _headers(self, message: JSON | None) -> dict[str, str]:
        headers = {"Accept": ACCEPT, "Content-Type": "application/json", **self.extra_headers}
        modern = self._version_of(message)
        if modern is not None and modern in MODERN_REVISIONS:
            headers["MCP-Protocol-Version"] = modern
            assert message is not None
            method = message.get("method")
            if isinstance(method, str):
                headers["Mcp-Method"] = method
                key = NAMED_METHODS.get(method)
                params = message.get("params") or {}
                if key is not None and isinstance(params.get(key), str):
                    headers["Mcp-Name"] = params[key]
                if method == "tools/call":
                    headers.update(self._mirrored(params))
            return headers
        if self.session_id is not None:
            headers["Mcp-Session-Id"] = self.session_id
        if self.protocol_version is not None:
            headers["MCP-Protocol-Version"] = self.protocol_version
        return headers

    async def _post(self, data: bytes, message: JSON | None, mid: Any) -> None:
        try:
            try:
                await self._exchange(data, message, mid)
            except _SessionExpired:
                await self._renew()
                await self._exchange(data, message, mid, retry=False)
            except _httpx().TransportError as exc:
                if not _keyed(message):  # it may have run: not sent again blindly
                    raise
                logger.info("A keyed call's connection failed (%s): sending it again", exc)
                await self._exchange(data, message, mid)  # it runs once however often sent
        except asyncio.CancelledError:
            raise
        except _SessionExpired:
            self._fail(mid, "The server forgot the session again after a new initialize")
        except AuthFailed as exc:
            self._auth_failed(mid, exc)
        except Exception as exc:  # the connection failed: the request must not hang
            logger.debug("HTTP request failed", exc_info=True)
            self.fail(mid, f"HTTP request failed: {_single(exc)}")

    def _fail(self, mid: Any, text: str) -> None:
        if mid is not None:
            error = RPCError(jsonrpc.INTERNAL_ERROR, text)
            self.deliver(jsonrpc.error_bytes(mid, error))

    def _auth_failed(self, mid: Any, exc: AuthFailed) -> None:
        logger.warning("Authorization failed: %s", exc)
        self.fail(mid, Unauthorized(401 if exc.fatal else 403, f"Authorization failed: {exc}"))
        if exc.fatal:  # the server will not talk to us at all
            self.ended_reason = f"authorization failed: {exc}"
            self.end()

    # ------------------------------------------------------------ authorization

    async def _authorization(self, headers: dict[str, str], method: str = "POST") -> str | None:
        """Put the ``Authorization`` header in ``headers``; returns its value."""
        if self.auth is None:
            return None
        return await authorize_request(self.auth, self.url, self._http, headers, method)

    @contextlib.asynccontextmanager
    async def _open(
        self, method: str, headers: dict[str, str], content: bytes | None = None
    ) -> AsyncIterator[Any]:
        """The streamed response to a request, sent again after a 401/403 the authorization
        scheme could answer."""
        for attempt in range(MAX_AUTH_RETRIES + 1):
            sent = await self._authorization(headers, method)
            async with self._http.stream(
                method, self.url, content=content, headers=headers
            ) as response:
                if attempt < MAX_AUTH_RETRIES and await answer_challenge(
                    self.auth, self.url, self._http, response, sent, attempt
                ):
                    continue
                yield response
                return

    async def _exchange(
        self, data: bytes, message: JSON | None, mid: Any, *, retry: bool = True
    ) -> None:
        is_initialize = message is not None and message.get("method") == "initialize"
        headers = self._headers(message)
        copy_trace_context(message, headers)
        if is_initialize:
            headers.pop("Mcp-Session-Id", None)
            headers.pop("MCP-Protocol-Version", None)
        async with self._open("POST", headers, data) as response:
            expired = response.status_code == 404 and self.session_id is not None
            if expired and retry and not is_initialize:
                raise _SessionExpired
            if is_initialize and response.headers.get("mcp-session-id"):
                self.session_id = response.headers["mcp-session-id"]
            resumable = self._version_of(message) not in MODERN_REVISIONS
            await self._read_answer(response, mid, remember=is_initialize, resumable=resumable)

    async def _read_answer(
        self, response: Any, mid: Any, *, remember: bool = False, resumable: bool = False
    ) -> None:
        try:
            await self._read_message(response, mid, remember, resumable)
        except TooLarge:
            logger.warning("An HTTP answer was larger than %s bytes", self.max_message_bytes)
            if mid is not None:
                self.fail(
                    mid,
                    f"The server's answer is larger than {self.max_message_bytes} bytes "
                    "(max_message_bytes); it was not read",
                )

    async def _read_message(self, response: Any, mid: Any, remember: bool, resumable: bool) -> None:
        status = response.status_code
        limit = self.max_message_bytes
        if status == 202 or (mid is None and status < 300):
            await _body(response, limit)
            return
        kind = response.headers.get("content-type", "").split(";")[0].strip().lower()
        if kind == "text/event-stream":
            await self._read_stream(response, mid, remember, resumable)
            return
        body = await _body(response, limit)
        if kind == "application/json" and body:
            if status < 300:
                await self._take(body, remember)
                return
            # an error status: its body answers the request only if it is JSON-RPC (an
            # OAuth error document, say, is not a message)
            with contextlib.suppress(orjson.JSONDecodeError):
                answer = orjson.loads(body)
                if isinstance(answer, dict) and answer.get("jsonrpc") == "2.0":
                    if mid is None or answer.get("id") == mid:
                        await self._take(body, remember)
                        return
                    if "error" not in answer:
                        await self._take(body, remember)  # a stray result: the client says so
                    elif status not in (401, 403):
                        # This request's error whatever id it carries: a server that refuses
                        # a request before reading it says null, or "server-error".
                        await self._take(orjson.dumps({**answer, "id": mid}), remember)
                        return
        if mid is not None:
            text = body.decode(errors="replace").strip()[:200]
            failure = f"HTTP {status}" + (f": {text}" if text else "")
            if status in (401, 403):
                challenge = response.headers.get("www-authenticate")
                self.fail(mid, Unauthorized(status, failure, challenge))
            else:
                self._fail(mid, failure)

    async def _read_stream(self, response: Any, mid: Any, remember: bool, resumable: bool) -> None:
        """The messages of an SSE response; when it ends before the answer to ``mid``, the
        rest is asked for (legacy revisions) or the request fails (2026-07-28, where a
        closed stream means a cancelled request)."""
        cursor = Cursor()
        last = None
        broke = False
        try:
            async for data in events(response, self.max_message_bytes, cursor):
                last = data
                await self._take(data, remember)
        except _httpx().TransportError as exc:  # the connection dropped: maybe resumable
            logger.debug("An HTTP response stream broke off: %s", exc)
            broke = True
        if mid is None or answers(last, mid):
            return
        if resumable and cursor.last_id is not None:
            if not broke:  # the server ended it: it let the stream go
                self._let_go(mid, cursor)
            await self._resume(cursor, mid)
        else:
            self._fail(mid, "The server closed the response stream without answering")

    async def _resume(self, cursor: Cursor, mid: Any) -> None:
        """Resume a response stream that ended before its answer: after the server's
        ``retry`` delay, a GET with ``Last-Event-ID`` (HT-12, HT-20), again while each
        reconnection brings events, until the answer to ``mid`` arrives."""
        while cursor.resumable():
            await asyncio.sleep(cursor.delay)
            cursor.idle += 1
            try:
                async with self._open("GET", self._stream_headers(cursor)) as response:
                    if response.status_code != 200:  # 405, or 404: the session is gone
                        await _body(response, self.max_message_bytes)
                        break
                    async for data in events(response, self.max_message_bytes, cursor):
                        await self._take(data, False)
                        if answers(data, mid):
                            return
            except _httpx().TransportError as exc:
                logger.debug("Resuming an HTTP response stream failed: %s", exc)
            else:  # the server ended this one too before the answer: let go again
                if cursor.resumable():
                    self._let_go(mid, cursor)
        self._fail(mid, "The server's response stream ended without an answer; resuming it failed")

    def _let_go(self, mid: Any, cursor: Cursor) -> None:
        if self.on_let_go is not None:
            retry = cursor.retry
            self.on_let_go(mid, None if retry is None else round(retry * 1000))

    def _stream_headers(self, cursor: Cursor | None = None) -> dict[str, str]:
        headers = self._headers(None)
        headers["Accept"] = "text/event-stream"
        headers.pop("Content-Type", None)
        if cursor is not None and cursor.last_id is not None:
            headers["Last-Event-ID"] = cursor.last_id
        return headers

    def _mirrored(self, params: JSON) -> dict[str, str]:
        """``Mcp-Param-*`` headers for the arguments a tool mirrors (``x-mcp-header``)."""
        arguments = params.get("arguments")
        wanted = self._header_params.get(params.get("name"))  # type: ignore[arg-type]
        if not wanted or not isinstance(arguments, dict):
            return {}
        headers = {}
        for param, header in wanted.items():
            value = arguments.get(param)
            if value is None:
                continue
            if isinstance(value, bool):
                text = "true" if value else "false"
            elif isinstance(value, int):
                text = str(value)
            else:
                text = str(value)
                if not text.isascii() or not text.isprintable() or text != text.strip():
                    text = f"=?base64?{base64.b64encode(text.encode()).decode()}?="
            headers[f"Mcp-Param-{header}"] = text
        return headers

    def _learn_tools(self, data: bytes) -> None:
        """Which arguments each listed tool mirrors into headers."""
        try:
            message = orjson.loads(data)
        except orjson.JSONDecodeError:
            return
        if not isinstance(message, dict) or message.get("id") not in self._listings:
            return
        self._listings.discard(message.get("id"))
        for tool in (message.get("result") or {}).get("tools") or []:
            if not isinstance(tool, dict) or not isinstance(tool.get("name"), str):
                continue
            mirrored, _ = header_params(tool.get("inputSchema"))  # the client drops invalid ones
            if mirrored:
                self._header_params[tool["name"]] = mirrored
            else:
                self._header_params.pop(tool["name"], None)

    async def _take(self, data: bytes, remember: bool) -> None:
        if self._listings:
            self._learn_tools(data)
        if remember:  # the negotiated revision goes on every later request
            with contextlib.suppress(orjson.JSONDecodeError, AttributeError):
                result = orjson.loads(data).get("result") or {}
                version = result.get("protocolVersion")
                if isinstance(version, str):
                    self.protocol_version = version
        await self.put(data)

    async def _renew(self) -> None:
        """Initialize again (once) after the server forgot the session (HT-24)."""
        expired = self.session_id
        async with self._reinit:
            if self.session_id != expired:  # another request renewed it already
                return
            if self._initialize is None:
                raise _SessionExpired
            logger.info("The HTTP session expired; initializing again")
            self.session_id = None
            if self._listener is not None:
                self._listener.cancel()
                self._listener = None
            headers = {"Accept": ACCEPT, "Content-Type": "application/json", **self.extra_headers}
            await self._authorization(headers)
            body = orjson.dumps(self._initialize)
            response = await self._http.post(self.url, content=body, headers=headers)
            if response.status_code != 200 or not response.headers.get("mcp-session-id"):
                raise _SessionExpired
            self.session_id = response.headers["mcp-session-id"]
            initialized = jsonrpc.notification_bytes("notifications/initialized", None)
            headers = self._headers(None)
            await self._authorization(headers)
            await self._http.post(self.url, content=initialized, headers=headers)
            self._listen()

    async def _cancel(self, message: JSON, data: bytes) -> None:
        rid = (message.get("params") or {}).get("requestId")
        task = self._requests.get(rid)
        try:
            if self.session_id is not None:  # legacy: tell the server, then stop reading
                with contextlib.suppress(Exception):
                    await self._post(data, message, None)
        finally:  # even when the client stopped waiting for the notification's POST
            if task is not None:  # closing the response stream cancels a modern request
                task.cancel()

    # ------------------------------------------------------------ the GET stream

    def _listen(self) -> None:
        if self._listener is None or self._listener.done():
            self._listening.clear()
            self._listener = asyncio.ensure_future(self._get_stream())
            self._listener.add_done_callback(lambda _: self._listening.set())

    async def _get_stream(self) -> None:
        """What the server sends outside any request: list changes, logs, its questions.
        A stream that ends after an event id is resumed, after the server's ``retry`` delay,
        with ``Last-Event-ID`` (HT-12)."""
        cursor = Cursor()
        while True:
            try:
                async with self._open("GET", self._stream_headers(cursor)) as response:
                    self._listening.set()
                    if response.status_code != 200:  # 405: the server keeps no such stream
                        await _body(response, self.max_message_bytes)
                        return
                    async for data in events(response, self.max_message_bytes, cursor):
                        await self.put(data)
            except asyncio.CancelledError:
                raise
            except AuthFailed as exc:
                self._auth_failed(None, exc)
                return
            except TooLarge:
                logger.warning(
                    "The GET stream sent an event larger than %s bytes; it is closed",
                    self.max_message_bytes,
                )
                return
            except Exception:
                logger.debug("The GET stream broke off", exc_info=True)
            if not cursor.resumable():
                return
            await asyncio.sleep(cursor.delay)
            cursor.idle += 1


def _keyed(message: JSON | None) -> bool:
    """A call sent with an idempotency key, which a toolwire server runs once."""
    params = message.get("params") if message is not None else None
    meta = params.get("_meta") if isinstance(params, dict) else None
    return isinstance(meta, dict) and META_IDEMPOTENCY_KEY in meta


def _single(error: BaseException) -> BaseException:
    """The one error an exception group holds (a failed connect can come wrapped in one)."""
    inner = getattr(error, "exceptions", None)
    while isinstance(inner, tuple) and len(inner) == 1:
        error = inner[0]
        inner = getattr(error, "exceptions", None)
    return error


async def _body(response: Any, limit: int) -> bytes:
    """The body of ``response``, read in pieces; :class:`TooLarge` past ``limit`` bytes."""
    declared = response.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > limit:
        raise TooLarge
    parts: list[bytes] = []
    size = 0
    async for chunk in response.aiter_bytes():
        size += len(chunk)
        if size > limit:
            raise TooLarge
        parts.append(chunk)
    return b"".join(parts)
