"""One client connection: messages in, answers out, for both eras of MCP.

A transport hands every received message (one JSON text) to :meth:`ServerConnection.feed`
and gives a ``send`` callable for what goes back. Legacy clients (2024-11-05 … 2025-11-25)
``initialize`` once and the connection remembers what was negotiated; modern clients
(2026-07-28) say everything on each request in ``_meta`` and nothing is remembered
between requests (JR-32).

Fast methods are answered inline; ``tools/call`` runs as a task, so pipelined calls run
concurrently and are answered by id, in whatever order they finish.
"""

from __future__ import annotations

import asyncio
import functools
import logging
from collections.abc import Callable
from typing import Any

from .. import jsonrpc
from ..errors import RPCError, ToolError
from ..functions.inspection import cancelled_from_outside
from ..protocol import shaping
from ..protocol.revisions import (
    FEATURES,
    META_CLIENT_CAPABILITIES,
    META_CLIENT_INFO,
    META_LOG_LEVEL,
    META_PROTOCOL_VERSION,
    META_SUBSCRIPTION_ID,
    MODERN_REVISIONS,
    SUPPORTED_NEWEST_FIRST,
    Features,
    is_modern_initialize,
    negotiate_legacy,
)
from .context import Context
from .request import JSON as JSON
from .request import LOG_RANK, Host, Rule
from .request import Request as Request

logger = logging.getLogger("toolwire")

Reply = Callable[[bytes], None]

# 2026-07-28 replaced resources/subscribe with subscriptions/listen's resourceSubscriptions.
LEGACY_ONLY = frozenset(
    {"initialize", "ping", "logging/setLevel", "resources/subscribe", "resources/unsubscribe"}
)
MODERN_ONLY = frozenset({"server/discover", "subscriptions/listen"})


def _is_implementation(value: Any) -> bool:
    """A client's ``Implementation`` (clientInfo): an object with name and version strings."""
    return (
        isinstance(value, dict)
        and isinstance(value.get("name"), str)
        and isinstance(value.get("version"), str)
    )


def _deliver(reply: Reply, data: bytes) -> None:
    """Hand one answer to the transport, once: a transport that fails is logged, and the
    request is never run again nor answered twice."""
    try:
        reply(data)
    except Exception:
        logger.exception("Could not send an answer")


class ServerConnection:
    """The server side of one connection (one stdio pipe pair, one in-memory pair)."""

    def __init__(self, server: Host, send: Reply) -> None:
        self.server = server
        self.send = send
        self.features: Features | None = None  # legacy: negotiated at initialize
        self.client_info: JSON | None = None
        self.client_capabilities: JSON | None = None
        # What initialize offered this session (None: not known here, e.g. a session
        # continued from another worker): list changes go only where the list was offered.
        self.offered: JSON | None = None
        self.log_level: str | None = None
        # Who is calling (an AccessToken), set by an authenticating transport before it
        # feeds a message; copied into each Request made from that message.
        self.identity: Any = None
        # The client's network address (HTTP), what tells unauthenticated callers apart.
        self.peer: str | None = None
        self.on_settled: Callable[[], None] | None = None  # a request in flight ended
        # Set by a transport whose requests may be answered on SSE streams the client can
        # resume (HTTP, legacy sessions): ends the connection carrying one (Context).
        self.close_sse: Callable[[str | int, int | None], bool] | None = None
        self.in_flight: dict[str | int, asyncio.Future[None]] = {}
        self._running: dict[str | int, Request] = {}  # the requests of in_flight, by id
        self.listeners: dict[str | int, JSON] = {}  # subscriptions/listen id -> accepted filter
        self.subscriptions: set[str] = set()  # resource URIs (legacy resources/subscribe)
        # This session's own rules showing or hiding components (ctx.enable_components,
        # ctx.disable_components; see toolwire.server.components.visibility), on top of the server's.
        self.rules: tuple[Rule, ...] | None = None
        # "stdio" when the stdio transport serves it (one client for its whole life)
        self.transport: str | None = None
        self._listening: dict[str | int, asyncio.Future[None]] = {}
        self._outgoing: dict[str, asyncio.Future[JSON]] = {}  # our requests to the client
        self._next_id = 0
        self.route: Callable[[str | int | None, bytes], None] | None = None
        self.closed = False
        server._connections.add(self)

    # ---------------------------------------------------------------- receiving

    def feed(self, data: bytes | str, reply: Reply | None = None) -> bool:
        """Handle one received message. Never raises: bad input gets an error response.

        Answers go to ``reply`` when given (an HTTP transport answers each POST on its own
        response), else to the connection's ``send``. True if an answer will be sent.
        """
        reply = reply or self.send
        try:
            message = jsonrpc.loads(data)
        except RPCError as exc:
            _deliver(reply, jsonrpc.error_bytes(None, exc))
            return True
        if isinstance(message, list):
            return self._batch(message, reply)
        return self._message(message, reply)

    def feed_message(self, message: Any, reply: Reply) -> bool:
        """Handle one decoded message (or batch); True if an answer will go to ``reply``."""
        if isinstance(message, list):
            return self._batch(message, reply)
        return self._message(message, reply)

    def _message(self, message: Any, reply: Reply) -> bool:
        """Dispatch one decoded message; True if a response will be sent through ``reply``."""
        try:
            kind = jsonrpc.classify(message)
        except RPCError as exc:
            if (
                isinstance(message, dict)
                and "id" not in message
                and isinstance(message.get("method"), str)
            ):
                # A malformed notification is still a notification: never answered (JR-13).
                logger.warning("Ignoring a malformed notification: %s", exc.message)
                return False
            _deliver(reply, jsonrpc.error_bytes(jsonrpc.request_id(message), exc))
            return True
        if kind == "request":
            self._request(message, reply)
            return True
        if kind == "notification":
            try:
                self._notification(message)
            except Exception:  # a notification is never answered, not even with an error
                logger.exception("Failed to handle notification %r", message.get("method"))
        else:  # a response to a request of ours (string ids); unknown ones are dropped
            mid = message.get("id")
            waiting = self._outgoing.get(mid) if isinstance(mid, str) else None
            if waiting is not None and not waiting.done():
                waiting.set_result(message)
        return False

    def _batch(self, batch: list[Any], send: Reply) -> bool:
        # Only 2025-03-26 defined batches (JR-15), and never with initialize in them.
        if not batch or self.features is None or not self.features.batches:
            send(
                jsonrpc.error_bytes(
                    None,
                    RPCError(jsonrpc.INVALID_REQUEST, "Invalid request: batches are not supported"),
                )
            )
            return True
        refusal = self._batch_refusal(batch)
        if refusal is not None:  # refused before any of it runs
            send(jsonrpc.error_bytes(None, refusal))
            return True
        parts: list[bytes] = []
        expected: int | None = None  # known once all are dispatched (some answer inline)

        def collect(data: bytes) -> None:
            parts.append(data)
            if len(parts) == expected:
                send(b"[" + b",".join(parts) + b"]")

        count = 0
        calls: list[tuple[Request, asyncio.Future[None]]] = []  # the batch's calls still running
        for message in batch:
            if (
                isinstance(message, dict)
                and message.get("method") == "initialize"
                and "id" in message
            ):
                error = RPCError(
                    jsonrpc.INVALID_REQUEST, "Invalid request: initialize cannot be part of a batch"
                )
                collect(jsonrpc.error_bytes(jsonrpc.request_id(message), error))
                count += 1
                continue
            mid = jsonrpc.request_id(message)
            before = self.in_flight.get(mid) if mid is not None else None
            count += self._message(message, collect)
            if mid is not None and self.in_flight.get(mid) not in (None, before):
                calls.append((self._running[mid], self.in_flight[mid]))  # it started a call
        # A cancelled call sends nothing (CN-04): one cancelled by a later member of the batch
        # is not waited for; one cancelled later still, once every call of the batch has ended.
        count -= sum(request.cancelled for request, _ in calls)
        expected = count
        if count and len(parts) == count:
            send(b"[" + b",".join(parts) + b"]")
        elif calls:

            def finish(_: object) -> None:
                if parts and len(parts) < count:
                    send(b"[" + b",".join(parts) + b"]")

            tasks = [task for _, task in calls]
            asyncio.gather(*tasks, return_exceptions=True).add_done_callback(finish)
        return count > 0

    def _batch_refusal(self, batch: list[Any]) -> RPCError | None:
        """Why a batch is refused whole: more messages than ``max_batch_size``. (Each of its
        calls then passes the caller's admission like any other: see
        :mod:`toolwire.server.dispatch.call_slots`.)"""
        limit = self.server.max_batch_size
        if limit is not None and len(batch) > limit:
            return RPCError(
                jsonrpc.INVALID_REQUEST,
                f"Invalid request: a batch holds at most {limit} messages (this one has "
                f"{len(batch)}); send fewer at a time",
            )
        return None

    def _notification(self, message: JSON) -> None:
        method = message["method"]
        params = message.get("params") or {}
        if method == "notifications/cancelled":
            rid = params.get("requestId")
            # unknown, late or malformed cancels are ignored (CN-07); not 2.0 nor true for 1
            if isinstance(rid, (str, int)) and not isinstance(rid, bool) and rid in self.in_flight:
                logger.debug("Request %r cancelled: %s", rid, params.get("reason"))
                self.cancel(rid)
        elif method == "notifications/roots/list_changed":
            self.server.roots_changed(self)
        elif isinstance(method, str) and method in self.server.extension_notifications:
            self.server.extension_notified(self, method, params)
        # notifications/initialized and anything else need no action.

    # ---------------------------------------------------------------- requests

    def _request(self, message: JSON, reply: Reply) -> None:
        """Answer one request, now or when its task ends: exactly once, whatever the handler
        returns or raises (encoding never raises, see :mod:`toolwire.jsonrpc`)."""
        mid = message["id"]
        method = message["method"]
        params = message.get("params") or {}
        try:
            if "_meta" in params and not isinstance(params["_meta"], dict):
                raise RPCError(jsonrpc.INVALID_PARAMS, 'Invalid params: "_meta" must be an object')
            if method == "initialize" and not is_modern_initialize(params):
                data = jsonrpc.result_bytes(mid, self._initialize(params))
            else:
                request = self._resolve(mid, method, params)
                request.identity = self.identity
                request.rules = self.rules
                handler = self.server.methods.get(method)
                if handler is None or method in (
                    LEGACY_ONLY if request.features.modern else MODERN_ONLY
                ):
                    raise RPCError(jsonrpc.METHOD_NOT_FOUND, f"Method not found: {method}")
                if self.server.middleware:
                    outcome = self.server.through_middleware(self, request, handler)
                else:
                    outcome = handler(self, request)
                if isinstance(outcome, bytes):  # a pre-serialized result
                    data = jsonrpc.result_fragment_bytes(mid, outcome)
                elif isinstance(outcome, dict):
                    data = jsonrpc.result_bytes(
                        mid,
                        shaping.complete(
                            outcome, request.features, self.server.info_for(request.features)
                        ),
                    )
                else:  # a coroutine: answered when it finishes
                    task = asyncio.ensure_future(self._run(request, outcome, reply))
                    self.in_flight[mid] = task
                    self._running[mid] = request
                    task.add_done_callback(functools.partial(self._forget, mid))
                    return
        except RPCError as exc:
            data = jsonrpc.error_bytes(mid, exc)
        except Exception:
            logger.exception("Internal error handling %s", method)
            data = jsonrpc.error_bytes(mid, RPCError(jsonrpc.INTERNAL_ERROR, "Internal error"))
        _deliver(reply, data)

    def _forget(self, mid: str | int, task: asyncio.Task[None]) -> None:
        if self.in_flight.get(mid) is task:
            del self.in_flight[mid]
            self._running.pop(mid, None)
            if self.on_settled is not None:
                self.on_settled()

    def cancel(self, mid: str | int) -> None:
        """Stop a request in flight: its tool is cancelled, and nothing more is sent for it,
        no progress, no log message, no response, even if the tool catches the cancellation
        and returns (CN-04, CN-12)."""
        request = self._running.get(mid)
        if request is not None:
            request.cancelled = True
        task = self.in_flight.get(mid)
        if task is not None:
            task.cancel()

    def _resolve(self, mid: str | int, method: str, params: JSON) -> Request:
        """Work out which revision a request speaks and what its client can do."""
        meta = params.get("_meta")
        if not isinstance(meta, dict):
            meta = None
        version = meta.get(META_PROTOCOL_VERSION) if meta else None
        if version is not None and (version in MODERN_REVISIONS or self.features is None):
            if not isinstance(version, str):
                raise RPCError(
                    jsonrpc.INVALID_PARAMS,
                    f"Invalid params: _meta[{META_PROTOCOL_VERSION!r}] must be a string",
                )
            if version not in MODERN_REVISIONS:
                raise RPCError(
                    jsonrpc.UNSUPPORTED_PROTOCOL_VERSION,
                    "Unsupported protocol version",
                    # every revision served, as server/discover lists them (LC-18)
                    {"supported": list(SUPPORTED_NEWEST_FIRST), "requested": version},
                )
            capabilities = meta.get(META_CLIENT_CAPABILITIES)  # type: ignore[union-attr]
            if not isinstance(capabilities, dict):
                raise RPCError(
                    jsonrpc.INVALID_PARAMS,
                    f"Invalid params: _meta[{META_CLIENT_CAPABILITIES!r}] is required and must be an object",
                )
            level = meta.get(META_LOG_LEVEL)  # type: ignore[union-attr]
            if META_LOG_LEVEL in meta and not (isinstance(level, str) and level in LOG_RANK):  # type: ignore[operator]
                shown = repr(level) if isinstance(level, str) else type(level).__name__
                raise RPCError(jsonrpc.INVALID_PARAMS, f"Invalid params: unknown log level {shown}")
            info = meta.get(META_CLIENT_INFO)  # type: ignore[union-attr]
            if META_CLIENT_INFO in meta and not _is_implementation(info):  # type: ignore[operator]
                raise RPCError(
                    jsonrpc.INVALID_PARAMS,
                    f"Invalid params: _meta[{META_CLIENT_INFO!r}] must be an object with "
                    "name and version strings",
                )
            return Request(mid, method, params, FEATURES[version], meta, capabilities, info, level)
        if self.features is not None:
            return Request(
                mid,
                method,
                params,
                self.features,
                meta,
                self.client_capabilities,
                self.client_info,
                self.log_level,
            )
        if method == "ping":  # allowed before initialization (PI-01)
            return Request(
                mid, method, params, FEATURES[SUPPORTED_NEWEST_FIRST[-1]], meta, None, None, None
            )
        raise RPCError(
            jsonrpc.INVALID_PARAMS,
            f"Invalid params: _meta[{META_PROTOCOL_VERSION!r}] is required "
            "(or send initialize first to use a revision before 2026-07-28)",
        )

    def _initialize(self, params: JSON) -> JSON:
        info = params.get("clientInfo")
        if not (  # what every revision's InitializeRequest requires (LC-02)
            isinstance(params.get("protocolVersion"), str)
            and isinstance(params.get("capabilities"), dict)
            and _is_implementation(info)
        ):
            raise RPCError(
                jsonrpc.INVALID_PARAMS,
                "Invalid params: initialize needs a protocolVersion string, a capabilities "
                "object and a clientInfo object with name and version strings",
            )
        features = FEATURES[negotiate_legacy(params.get("protocolVersion"))]
        self.features = features
        capabilities = params.get("capabilities")
        self.client_capabilities = capabilities if isinstance(capabilities, dict) else {}
        info = params.get("clientInfo")
        self.client_info = info if isinstance(info, dict) else None
        self.offered = self.server.capabilities(features)
        result: JSON = {
            "protocolVersion": features.revision,
            "capabilities": self.offered,
            "serverInfo": self.server.info_for(features),
        }
        if self.server.instructions:
            result["instructions"] = self.server.instructions
        return result

    async def _run(self, request: Request, work: Any, reply: Reply) -> None:
        try:
            result = await work
            data = jsonrpc.result_bytes(
                request.id,
                shaping.complete(result, request.features, self.server.info_for(request.features)),
            )
        except asyncio.CancelledError:
            if self._cancelled(request):
                return  # a cancelled request gets no response (CN-04)
            # The handler raised CancelledError itself (nobody cancelled it): a failure.
            logger.error("%s raised CancelledError without being cancelled", request.method)
            data = jsonrpc.error_bytes(
                request.id, RPCError(jsonrpc.INTERNAL_ERROR, "Internal error")
            )
        except RPCError as exc:
            data = jsonrpc.error_bytes(request.id, exc)
        except BaseException:  # SystemExit or the like from a handler: answered, never fatal
            logger.exception("Internal error handling %s", request.method)
            data = jsonrpc.error_bytes(
                request.id, RPCError(jsonrpc.INTERNAL_ERROR, "Internal error")
            )
        if not self.closed and not request.cancelled:  # even if the tool caught the cancel
            _deliver(reply, data)

    def _cancelled(self, request: Request) -> bool:
        """Whether the task running ``request`` was cancelled from outside (by the client,
        a closing connection or the transport), not by a CancelledError its handler raised."""
        return request.cancelled or self.closed or cancelled_from_outside()

    # ---------------------------------------------------------------- sending

    def notify(
        self, method: str, params: JSON | None = None, related: str | int | None = None
    ) -> None:
        """Send a notification; ``related`` is the id of the request it belongs to, if any."""
        if not self.closed:
            self.send_related(related, jsonrpc.notification_bytes(method, params))

    def send_related(self, related: str | int | None, data: bytes) -> None:
        """Send a message that belongs to request ``related`` (None: to none in particular).

        One stream carries everything unless a transport set :attr:`route` to put each
        message on the stream of the request it belongs to (HTTP).
        """
        if self.route is None:
            self.send(data)
        else:
            self.route(related, data)

    def context_for(self, request: Request, answers: JSON | None = None) -> Context:
        return Context(self, request, answers)

    async def request(self, method: str, params: JSON, related: str | int | None = None) -> Any:
        """Ask the client something (legacy sessions only) and wait for its result."""
        self._next_id += 1
        rid = f"toolwire-{self._next_id}"
        waiting: asyncio.Future[JSON] = asyncio.get_running_loop().create_future()
        self._outgoing[rid] = waiting
        try:
            self.send_related(related, jsonrpc.request_bytes(rid, method, params))
            response = await waiting
        except asyncio.CancelledError:  # the call that asked ended: withdraw the question
            if not self.closed:
                self.notify(
                    "notifications/cancelled",
                    {"requestId": rid, "reason": "the request that asked was cancelled"},
                    related=related,
                )
            raise
        finally:
            self._outgoing.pop(rid, None)
        if "error" in response:
            error = response.get("error") or {}
            raise ToolError(
                f"The client could not answer {method}: {error.get('message', 'no reason given')}"
            )
        return response.get("result")

    def listen(self, request: Request, accepted: JSON) -> Any:
        """Open a subscriptions/listen stream: acknowledge it now, answer it when it ends (MP-10)."""
        mid = request.id
        self.listeners[mid] = accepted
        ended: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._listening[mid] = ended
        self.notify(
            "notifications/subscriptions/acknowledged",
            {"_meta": {META_SUBSCRIPTION_ID: mid}, "notifications": accepted},
            related=mid,
        )
        return self._listen_until(mid, ended)

    async def _listen_until(self, mid: str | int, ended: asyncio.Future[None]) -> JSON:
        try:
            await ended
        finally:
            accepted = self.listeners.pop(mid, None)
            self._listening.pop(mid, None)
            uris = accepted.get("resourceSubscriptions") if accepted else None
            unwatch = getattr(self.server, "unwatch_later", None)
            if uris and unwatch is not None:  # (a mounted proxy's resources, upstream)
                unwatch(uris)
        return {"_meta": {META_SUBSCRIPTION_ID: mid}}

    def tell_listeners(self, kind: str, method: str) -> None:
        """Send ``method`` on every stream that asked for ``kind`` notifications."""
        for mid, accepted in list(self.listeners.items()):
            if accepted.get(kind):
                self.notify(method, {"_meta": {META_SUBSCRIPTION_ID: mid}}, related=mid)

    def end_listening(self) -> None:
        """End the listen streams: a closing server answers them (MP-11)."""
        for ended in self._listening.values():
            if not ended.done():
                ended.set_result(None)

    async def drain(self, grace: float) -> None:
        """End listen streams, give in-flight calls ``grace`` seconds, then cancel the rest."""
        self.end_listening()
        pending = [task for task in self.in_flight.values() if not task.done()]
        if pending:
            _done, late = await asyncio.wait(pending, timeout=grace)
            for task in late:
                task.cancel()
            if late:
                await asyncio.wait(late, timeout=1.0)
        self.close()

    def close(self) -> None:
        self.closed = True
        self.server._connections.discard(self)
        unwatch = getattr(self.server, "unwatch_later", None)
        if unwatch is not None and (self.subscriptions or self.listeners):
            # its subscriptions end with it (a mounted proxy's resources: upstream too)
            uris = [*self.subscriptions]
            for accepted in self.listeners.values():
                uris += accepted.get("resourceSubscriptions", ())
            self.listeners.clear()  # (told once: their streams' ends have nothing more to say)
            unwatch(uris)
        for waiting in self._outgoing.values():
            waiting.cancel()
