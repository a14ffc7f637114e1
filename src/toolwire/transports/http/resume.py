"""Resuming an SSE stream with ``Last-Event-ID`` (legacy revisions, HT-20).

A GET with ``Last-Event-ID: <stream id>/<sequence>`` continues that one stream after the
event the client saw last:

* a stream this worker carries is followed from its own memory, up to its end;
* with a shared store, a stream another worker carries (or carried: it may have died) is
  served from the store's event log: what was recorded, then each event its worker appends,
  up to the call's answer. When that worker is gone (its heartbeat expired, see
  :class:`~toolwire.transports.store.RedisStore`), the stream ends with a JSON-RPC error
  for its request (-32603, :data:`WORKER_GONE`), also written to the log so that every later
  resumption ends the same way;
* an id that is not well formed (ASCII ``[A-Za-z0-9_-]{1,64}/<digits>``, at most 18 digits),
  names no stream of the session, or lies past the end of its stream, is refused at once
  with ``400`` and a JSON-RPC error (-32600): nothing waits for an event that cannot come.
  (``404`` stays what it means for a session, HT-24: the session is gone, initialize again.)
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from ... import jsonrpc
from ...errors import RPCError
from ..asgi import Receive, Send
from ..store.contract import SessionStore, StoreUnavailable, StreamLog, WriterGone
from .guard import Rejection
from .session import Session
from .sse import Stream, parse_event_id

logger = logging.getLogger("toolwire")

WORKER_GONE = (
    "The worker serving this request is gone; it may have taken effect, so check before "
    "sending it again"
)

# How a stream is sent: (stream, receive, send, session_id=, after=)
StreamOut = Callable[..., Awaitable[None]]


class Followed:
    """The streams a worker serves from the shared log: ended together when it closes, and
    one that starts after that (its lookup in the store outlasted the close) at once."""

    def __init__(self) -> None:
        self.streams: set[Stream] = set()
        self.closed = False

    def add(self, stream: Stream) -> None:
        self.streams.add(stream)
        if self.closed:
            stream.close()

    def discard(self, stream: Stream) -> None:
        self.streams.discard(stream)

    def close(self) -> None:
        self.closed = True
        for stream in list(self.streams):
            stream.close()


def refused(message: str) -> Rejection:
    return Rejection.rpc(400, RPCError(jsonrpc.INVALID_REQUEST, message))


async def resume(
    session: Session,
    store: SessionStore,
    last_event_id: str,
    receive: Receive,
    send: Send,
    stream_out: StreamOut,
    followed: Followed,
) -> None:
    """Answer a GET carrying ``Last-Event-ID`` for ``session``; a stream served from the
    shared log is in ``followed`` while it lasts (the app ends them when it closes)."""
    parsed = parse_event_id(last_event_id)
    if parsed is None:
        raise refused("Last-Event-ID is not an event id of this server")
    stream_id, after = parsed
    stream = session.streams.get(stream_id)
    if stream is not None:
        if after > stream.seq:
            raise refused("Last-Event-ID is past the end of its stream")
        standalone = int(stream is session.standalone)  # resuming it opens the GET stream
        session.standalone_open += standalone
        try:
            await stream_out(stream, receive, send, session_id=session.id, after=after)
        finally:
            session.standalone_open -= standalone
        return
    log = await store.find_stream(session.id, stream_id) if store.shared else None
    if log is None:
        raise refused("Last-Event-ID names no stream of this session")
    if after > log.last:
        raise refused("Last-Event-ID is past the end of its stream")
    await _from_log(session, store, log, stream_id, after, receive, send, stream_out, followed)


async def _from_log(
    session: Session,
    store: SessionStore,
    log: StreamLog,
    stream_id: str,
    after: int,
    receive: Receive,
    send: Send,
    stream_out: StreamOut,
    followed: Followed,
) -> None:
    """Serve a stream another worker writes (or wrote) from the shared event log."""
    replayed = Stream(stream_id)
    replayed.seq = after
    followed.add(replayed)

    async def copy() -> None:
        seq = after
        try:
            async for seq, data, last in store.follow(session.id, log, stream_id, after):
                replayed.seq = seq - 1
                replayed.push(data, last=last)
        except WriterGone:
            if log.request_id is not None:  # the call can never be answered: say so
                error = RPCError(jsonrpc.INTERNAL_ERROR, WORKER_GONE)
                data = jsonrpc.error_bytes(log.request_id, error)
                await store.conclude(session.id, stream_id, seq + 1, data)
                replayed.seq = seq
                replayed.push(data, last=True)
        except StoreUnavailable as exc:  # the client may resume again later
            logger.warning("Stopped following stream %s: %s", stream_id, exc)
        finally:
            replayed.close()

    copier = asyncio.ensure_future(copy())
    try:
        await stream_out(replayed, receive, send, session_id=session.id, after=after)
    finally:
        copier.cancel()
        followed.discard(replayed)


CUT_AT_SHUTDOWN = (
    "The server is shutting down and the call was cut short; it may have taken effect, so "
    "check before sending it again"
)


def cut_answer(mid: Any, closing: bool) -> tuple[int, bytes]:
    """The answer to a call whose stream ended before its response: the server is shutting
    down (503: the call ran, or began to, so it is not for sending again blindly) or the
    session ended (404, HT-24)."""
    if closing:
        error = RPCError(jsonrpc.INTERNAL_ERROR, CUT_AT_SHUTDOWN)
        return 503, jsonrpc.error_bytes(mid, error)
    error = RPCError(jsonrpc.INTERNAL_ERROR, "The session ended before the call was answered")
    return 404, jsonrpc.error_bytes(mid, error)
