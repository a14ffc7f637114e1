"""A downstream connection of the proxy, and its fast path for a plain ``tools/call`` of a
legacy session.

A call that needs nothing of the proxy but forwarding (no middleware, no call guard, no
``_meta`` — so no progress token —, an upstream already connected over stdio with room to
write, or in memory) is written upstream from the line that brought it, and answered from
the upstream's answer the moment it is read: no task, no future awaited, no extra pass of
the event loop.
The upstream's result is shaped for the downstream revision as on the slow path, and the
call stays in the connection's ``in_flight`` (cancellation, shutdown, stdio's limit on
calls in flight) and in its upstream's calls (the upstream's log messages and questions
reach it). An upstream that needs input first (a 2026-07-28 ``input_required`` round)
continues in a task, as the slow path would.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import TYPE_CHECKING, Any, Protocol

from .. import jsonrpc
from ..client.answers import result_of
from ..errors import ClientError, ClientTimeout, RPCError
from ..protocol import shaping
from ..server.dispatch.methods import METHODS
from ..server.request import Host
from ..server.session import Reply, Request, ServerConnection, _deliver
from .upstream import JSON, Call, Upstream, current_call, quietly, upstream_error

if TYPE_CHECKING:
    from ..protocol.revisions import Features

_CALL_TOOL = METHODS["tools/call"]


class Forwarding(Host, Protocol):
    """What the fast path needs of the proxy (:class:`~toolwire.proxy.server.ProxyServer`)."""

    def upstream_for(self, connection: ServerConnection, asking: bool = True) -> Upstream: ...

    def call_result(self, name: str, result: JSON, features: Features) -> JSON: ...


class ProxyConnection(ServerConnection):
    """A downstream connection that closes its upstream connection when it closes, and
    forwards a plain ``tools/call`` on the fast path (below)."""

    upstream: Upstream | None = None  # its own, if it has one
    shares = False  # True once it is known never to get one

    def __init__(self, server: Forwarding, send: Reply) -> None:
        super().__init__(server, send)
        self.fast_calls: dict[str | int, FastCall] = {}

    def _request(self, message: JSON, reply: Reply) -> None:
        if (
            message["method"] == "tools/call"
            and self.features is not None
            and start(self.server, self, message, reply)  # type: ignore[arg-type]
        ):
            return
        super()._request(message, reply)

    def cancel(self, mid: str | int) -> None:
        call = self.fast_calls.get(mid)
        if call is None:
            super().cancel(mid)
        else:
            call.cancel()

    def close(self) -> None:
        upstream = self.upstream
        subscriptions = set(self.subscriptions) if self.features is not None else set()
        super().close()
        server: Any = self.server
        with contextlib.suppress(RuntimeError):  # no loop: nothing left to close
            loop = asyncio.get_running_loop()
            if upstream is not None:
                self.upstream = None
                server.forget(upstream)
                server.later(loop, upstream.close())
            if subscriptions and server._shared is not None:
                for uri in subscriptions:  # the shared upstream's, now one holder fewer
                    server.later(loop, quietly(server._shared.unsubscribe(uri, self)))


def start(server: Forwarding, connection: ProxyConnection, message: JSON, reply: Reply) -> bool:
    """Forward ``message`` (a legacy session's ``tools/call``) on the fast path; False when
    it needs the slow one (nothing was done then)."""
    if server.middleware or dict.get(server.methods, "tools/call") is not _CALL_TOOL:
        return False
    params = message.get("params")
    if (
        type(params) is not dict
        or "_meta" in params
        or "inputResponses" in params
        or "requestState" in params
    ):
        return False
    arguments = params.get("arguments")
    if not isinstance(params.get("name"), str) or not (
        arguments is None or isinstance(arguments, dict)
    ):
        return False  # the slow path says what is wrong
    upstream = server.upstream_for(connection)
    client: Any = upstream._client
    if client is None or client.ended is not None or client._tap is not None:
        return False
    send_now = getattr(client._transport, "send_now", None)
    if send_now is None:
        return False
    uid = next(client._ids)
    wire = client._modern_params(params) if client.modern else params
    if not send_now(jsonrpc.request_bytes(uid, "tools/call", wire)):
        return False
    FastCall(server, connection, message["id"], params, reply, upstream, client, uid)
    return True


class FastCall:
    """One call on the fast path. It stands in the upstream client's pending answers where
    a future would (``done``, ``set_result``, ``set_exception``), so the client's reader
    answers the downstream call itself; and it hears the upstream letting the call's stream
    go (``let_go``) as a call's ``on_let_go`` would, at no cost to calls that do not."""

    __slots__ = (
        "_done",
        "call",
        "client",
        "connection",
        "deadlines",
        "marker",
        "params",
        "reply",
        "request",
        "server",
        "uid",
        "upstream",
    )

    def __init__(
        self,
        server: Forwarding,
        connection: ProxyConnection,
        mid: str | int,
        params: JSON,
        reply: Reply,
        upstream: Upstream,
        client: Any,
        uid: int,
    ) -> None:
        self.server = server
        self.connection = connection
        self.params = params
        self.reply = reply
        self.upstream = upstream
        self.client = client
        self.uid = uid
        self._done = False
        request = Request(
            mid,
            "tools/call",
            params,
            connection.features,  # type: ignore[arg-type]
            None,
            connection.client_capabilities,
            connection.client_info,
            connection.log_level,
        )
        request.identity = connection.identity
        self.request = request
        # (no task of its own: see _rounds; a context only if the upstream says something)
        self.call = Call(connection, make_context=lambda: connection.context_for(request))
        upstream.calls.append(self.call)
        client._pending[uid] = self
        loop = asyncio.get_running_loop()
        self.marker: asyncio.Future[None] = loop.create_future()
        connection.in_flight[mid] = self.marker
        connection.fast_calls[mid] = self
        deadlines = client.fast_deadlines or Deadlines.of(client, loop)
        self.deadlines = deadlines
        if deadlines is not None:
            deadlines.add(self)

    # ------------------------------------------------------------ as the client's future

    def done(self) -> bool:
        return self._done

    def set_result(self, message: JSON) -> None:
        """The upstream's answer: answer the downstream call with it."""
        if self._done:
            return
        self._done = True
        request = self.request
        try:
            result = result_of("tools/call", message)
            if result.get("resultType") not in (None, "complete"):
                self._continue(result)
                return
            answer = shaping.complete(
                self.server.call_result(self.params["name"], result, request.features),
                request.features,
                self.server.info_for(request.features),
            )
            data = jsonrpc.result_bytes(request.id, answer)
        except RPCError as exc:
            data = jsonrpc.error_bytes(request.id, exc)
        except ClientError as exc:
            data = jsonrpc.error_bytes(request.id, upstream_error(exc))
        self._answer(data)

    def let_go(self, retry_ms: int | None) -> None:
        """The upstream let the call's stream go (its ``on_let_go``): so does the
        downstream's, where it can (:meth:`toolwire.Context.close_sse_connection`)."""
        if not self._done:
            self.call.context.close_sse_connection(retry_ms)

    def set_exception(self, exc: BaseException) -> None:
        """The upstream connection failed (or could not deliver the answer)."""
        if self._done:
            return
        self._done = True
        error = upstream_error(exc) if isinstance(exc, Exception) else None
        if error is None:
            error = RPCError(jsonrpc.INTERNAL_ERROR, "Internal error")
        self._answer(jsonrpc.error_bytes(self.request.id, error))

    # ------------------------------------------------------------ ending

    def expire(self) -> None:
        """No answer within the upstream client's timeout: as on the slow path, the
        upstream is told to stop and the caller gets the timeout as an error."""
        if self._done:
            return
        self._done = True
        self._abandon("timed out")
        timeout = ClientTimeout(f"tools/call timed out after {self.client.timeout:g} s")
        self._answer(jsonrpc.error_bytes(self.request.id, upstream_error(timeout)))

    def cancel(self) -> None:
        """The downstream client cancelled the call: the upstream is told, nothing is
        answered (CN-04)."""
        self.request.cancelled = True
        if self._done:
            return
        self._done = True
        self._abandon("cancelled by the client")
        self._settle()

    def _abandon(self, reason: str) -> None:
        client = self.client
        client._pending.pop(self.uid, None)
        if client.ended is None:
            notice = {"requestId": self.uid, "reason": reason}
            send_now = client._transport.send_now
            send_now(jsonrpc.notification_bytes("notifications/cancelled", notice))

    def _answer(self, data: bytes) -> None:
        if not self.connection.closed and not self.request.cancelled:
            _deliver(self.reply, data)
        self._settle()

    def _settle(self, task: asyncio.Task[None] | None = None) -> None:
        """The call ended (or goes on in ``task``): out of the in-flight tables."""
        if self.deadlines is not None:
            self.deadlines.discard(self)
        connection = self.connection
        mid = self.request.id
        if connection.fast_calls.get(mid) is self:
            del connection.fast_calls[mid]
        if task is None:
            self.upstream.calls.remove(self.call)
            self.call.finish()
        if connection.in_flight.get(mid) is self.marker:
            if task is None:
                del connection.in_flight[mid]
                if connection.on_settled is not None:
                    connection.on_settled()
            else:
                connection.in_flight[mid] = task
        if not self.marker.done():
            self.marker.set_result(None)

    # ------------------------------------------------------------ input rounds

    def _continue(self, result: JSON) -> None:
        """The upstream needs input first (2026-07-28): the rounds go on in a task, with the
        client's answers, as on the slow path."""
        connection = self.connection
        request = self.request
        task = asyncio.ensure_future(connection._run(request, self._rounds(result), self.reply))
        connection._running[request.id] = request
        self._settle(task)
        task.add_done_callback(lambda done: connection._forget(request.id, done))

    async def _rounds(self, result: JSON) -> JSON:
        call = self.call
        marker = current_call.set(call)
        call.task = asyncio.current_task()
        try:
            result = await self.client._rounds("tools/call", dict(self.params), result)
        except (ClientError, RPCError) as exc:
            raise upstream_error(exc) from None
        finally:
            current_call.reset(marker)
            self.upstream.calls.remove(call)
            call.finish()
        return self.server.call_result(self.params["name"], result, self.request.features)


class Deadlines:
    """When the fast calls of one upstream client time out: each ``client.timeout`` seconds
    after it started, so the order they start in is the order they expire in. One timer,
    for the oldest call still waiting, stands for all (instead of one timer per call)."""

    __slots__ = ("calls", "loop", "seconds", "timer")

    def __init__(self, loop: asyncio.AbstractEventLoop, seconds: float) -> None:
        self.loop = loop
        self.seconds = seconds
        self.calls: dict[FastCall, float] = {}  # waiting, oldest first -> when it expires
        self.timer: asyncio.TimerHandle | None = None

    @classmethod
    def of(cls, client: Any, loop: asyncio.AbstractEventLoop) -> Deadlines | None:
        """The client's deadlines (None: its calls never time out)."""
        if client.timeout is None:
            return None
        deadlines: Deadlines | None = client.fast_deadlines
        if deadlines is None:
            deadlines = client.fast_deadlines = cls(loop, client.timeout)
        return deadlines

    def add(self, call: FastCall) -> None:
        deadline = self.calls[call] = self.loop.time() + self.seconds
        if self.timer is None:
            self.timer = self.loop.call_at(deadline, self._due)

    def discard(self, call: FastCall) -> None:
        self.calls.pop(call, None)  # (the timer finds it gone)

    def _due(self) -> None:
        self.timer = None
        now = self.loop.time()
        calls = self.calls
        while calls:
            call, deadline = next(iter(calls.items()))
            if deadline > now:
                self.timer = self.loop.call_at(deadline, self._due)
                return
            del calls[call]
            call.expire()
