"""Bounds and fairness on Streamable HTTP: what one client may hold at once.

A *client* is the authenticated caller when the endpoint checks tokens (its issuer and
subject, client id or token digest), else the peer address (``scope["client"]``: behind a reverse proxy, let
the ASGI server take it from ``X-Forwarded-For``, as uvicorn does for trusted proxies).

* **Streams.** At most ``max_streams`` SSE streams are open at once (then 503), at most
  ``max_client_streams`` of them for one client and ``max_session_streams`` for one
  session (then 429); a resumed stream counts like any other. A stream has one reader: a
  resumption (``Last-Event-ID``) of a stream someone is reading takes it over, in its
  place in the counts, and the older response ends, so reconnecting after a connection
  the server has not yet seen die works even at a limit, while reading one stream many
  times over holds one stream. A request that accepts JSON as well gets a JSON answer
  when no stream is free (what belongs to it goes to the GET stream).
* **Sessions.** At most ``max_sessions`` legacy sessions are kept, ``max_client_sessions``
  of them for one client. A new one past a limit evicts the least recently used *idle*
  session (no stream open, no call in flight) of that client, or of anyone when the total
  is reached; an evicted session answers 404 and its client initializes again (HT-24).
  When none is idle the ``initialize`` is refused (429 for one client, 503 in total).
* With a shared store each worker bounds the sessions it began and holds: a client may
  have up to ``max_client_sessions`` per worker. A session this worker began is ended
  everywhere when evicted (dropped from the store); one it only continued is just
  forgotten here and reloaded from the store when used again.

Every refusal carries ``Retry-After`` and a JSON-RPC error (-31429, ``jsonrpc.SERVER_BUSY``)
a client can act on.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
from collections.abc import Iterator
from typing import Any

from ... import jsonrpc
from ...errors import RPCError
from ..asgi import Receive, disconnected
from .guard import Rejection
from .session import Session

MAX_STREAMS = 1000
MAX_CLIENT_STREAMS = 100
MAX_SESSION_STREAMS = 32
MAX_SESSIONS = 10_000
MAX_CLIENT_SESSIONS = 100
RETRY_AFTER_S = 1

# Who the request being handled comes from (set once per HTTP request).
current_client: contextvars.ContextVar[str] = contextvars.ContextVar(
    "toolwire_http_client", default="-"
)


def client_of(scope: Any, identity: Any) -> str:
    """The authenticated caller, else the peer address."""
    if identity is not None:  # str(): its subject or client id, else a digest of the token
        return f"token:{getattr(identity, 'issuer', None) or ''}|{identity}"
    peer = scope.get("client")
    return f"peer:{peer[0]}" if peer else "peer:-"


def busy(status: int, message: str, mid: str | int | None = None) -> Rejection:
    """A refusal the client can act on: try again after ``Retry-After`` seconds."""
    rejection = Rejection.rpc(status, RPCError(jsonrpc.SERVER_BUSY, message), mid)
    rejection.headers.append((b"retry-after", str(RETRY_AFTER_S).encode()))
    return rejection


class Streams:
    """Open SSE streams: in total, per client, per session, and who reads each one."""

    def __init__(self, total: int, per_client: int | None, per_session: int | None) -> None:
        self.max_total = total
        self.max_client = per_client
        self.max_session = per_session
        self.open = 0
        self.by_client: dict[str, int] = {}
        self.by_session: dict[str, int] = {}
        # (session, stream) -> its reader's future and the client its place is counted for
        self._readers: dict[tuple[str, str], tuple[asyncio.Future[None], str]] = {}

    def refusal(self, session_id: str | None, mid: str | int | None = None) -> Rejection | None:
        """Why one more stream may not open now (None: it may)."""
        if self.open >= self.max_total:
            return busy(503, "Too many open streams on this server; retry later", mid)
        client = current_client.get()
        if self.max_client is not None and self.by_client.get(client, 0) >= self.max_client:
            return busy(
                429, f"Too many open streams for this client (at most {self.max_client})", mid
            )
        if (
            session_id is not None
            and self.max_session is not None
            and self.by_session.get(session_id, 0) >= self.max_session
        ):
            return busy(
                429, f"Too many open streams for this session (at most {self.max_session})", mid
            )
        return None

    def session_streams(self, session_id: str) -> int:
        return self.by_session.get(session_id, 0)

    @contextlib.contextmanager
    def opened(
        self, session_id: str | None, stream_id: str | None = None
    ) -> Iterator[asyncio.Future[None] | None]:
        """Count one stream while the block runs; raises the refusal if none may open.

        With a session and a ``stream_id`` (a stream ``Last-Event-ID`` may resume) the block
        is that stream's one reader: it yields a future that is done once another reader
        took over. A reader that takes over takes the older one's place in the counts too,
        so it is never refused and adds nothing: a client reconnecting before the server
        saw its old connection die is served, and resuming one stream a thousand times
        holds one stream."""
        if session_id is None or stream_id is None:
            client = self._count(session_id)
            try:
                yield None
            finally:
                self._uncount(client, session_id)
            return
        key = (session_id, stream_id)
        held = self._readers.get(key)
        if held is None:
            client = self._count(session_id)
        else:  # its place is ours; the older response ends
            previous, client = held
            previous.set_result(None)
        mine: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._readers[key] = (mine, client)
        try:
            yield mine
        finally:
            held = self._readers.get(key)
            if held is not None and held[0] is mine:  # not taken over: its place is freed
                del self._readers[key]
                self._uncount(client, session_id)
            if not mine.done():
                mine.cancel()

    def _count(self, session_id: str | None) -> str:
        refused = self.refusal(session_id)
        if refused is not None:
            raise refused
        client = current_client.get()
        self.open += 1
        self.by_client[client] = self.by_client.get(client, 0) + 1
        if session_id is not None:
            self.by_session[session_id] = self.by_session.get(session_id, 0) + 1
        return client

    def _uncount(self, client: str, session_id: str | None) -> None:
        self.open -= 1
        _decrement(self.by_client, client)
        if session_id is not None:
            _decrement(self.by_session, session_id)


def _decrement(counts: dict[str, int], key: str) -> None:
    left = counts.get(key, 0) - 1
    if left > 0:
        counts[key] = left
    else:
        counts.pop(key, None)


class SessionTable(dict[str, Session]):
    """The sessions this worker holds, least recently used first, counted per client."""

    def __init__(self, total: int | None, per_client: int | None, streams: Streams) -> None:
        super().__init__()
        self.max_total = total
        self.max_client = per_client
        self.streams = streams
        self.client: dict[str, str] = {}  # session id -> client
        self.by_client: dict[str, dict[str, None]] = {}  # client -> its sessions, LRU first
        self.begun: set[str] = set()  # begun here (not continued from another worker)
        self._swept = 0.0  # when idle sessions were last looked for

    # ---------------------------------------------------------------- bookkeeping

    def __setitem__(self, session_id: str, session: Session) -> None:
        if session_id in self:
            self._unlink(session_id)
        super().__setitem__(session_id, session)
        client = current_client.get()
        self.client[session_id] = client
        self.by_client.setdefault(client, {})[session_id] = None

    def __delitem__(self, session_id: str) -> None:
        super().__delitem__(session_id)
        self._unlink(session_id)

    def pop(self, session_id: str, *default: Any) -> Any:
        if session_id in self:
            self._unlink(session_id)
        return super().pop(session_id, *default)

    def clear(self) -> None:
        super().clear()
        self.client.clear()
        self.by_client.clear()
        self.begun.clear()

    def _unlink(self, session_id: str) -> None:
        client = self.client.pop(session_id, None)
        self.begun.discard(session_id)
        if client is not None:
            mine = self.by_client.get(client)
            if mine is not None:
                mine.pop(session_id, None)
                if not mine:
                    del self.by_client[client]

    def touch(self, session_id: str) -> None:
        """Used just now: the most recently used of all and of its client."""
        session = super().pop(session_id, None)
        if session is None:
            return
        super().__setitem__(session_id, session)
        client = self.client.get(session_id)
        mine = self.by_client.get(client) if client is not None else None
        if mine is not None and mine.pop(session_id, 0) is None:
            mine[session_id] = None

    # ---------------------------------------------------------------- limits

    def idle(self, session: Session) -> bool:
        return not (
            session.standalone_open
            or session.connection.in_flight
            or self.streams.session_streams(session.id)
        )

    def make_room(self, mid: str | int | None = None) -> list[tuple[Session, bool]]:
        """Before a new session of the current client: evict what must go for it, and say
        which (each with whether it was begun here). Raises a 429 or 503 refusal when a
        limit is reached and no session that would do is idle."""
        evicted: list[tuple[Session, bool]] = []
        client = current_client.get()
        mine = self.by_client.get(client, {})
        if self.max_client is not None and len(mine) >= self.max_client:
            oldest = self._oldest_idle(mine)
            if oldest is None:
                raise busy(
                    429,
                    f"Too many sessions for this client (at most {self.max_client}, all busy); "
                    "end one with DELETE or retry later",
                    mid,
                )
            evicted.append((oldest, oldest.id in self.begun))
            del self[oldest.id]
        if self.max_total is not None and len(self) >= self.max_total:
            oldest = self._oldest_idle(self)
            if oldest is None:
                raise busy(503, "Too many sessions on this server; retry later", mid)
            evicted.append((oldest, oldest.id in self.begun))
            del self[oldest.id]
        return evicted

    def forget_idle(self, idle_s: float) -> None:
        """Drop sessions unused for ``idle_s`` seconds (looked for when sessions are created,
        at most once a minute), so clients that never DELETE cannot pile them up."""
        now = asyncio.get_running_loop().time()
        if now - self._swept < min(60.0, idle_s):
            return
        self._swept = now
        for session in list(self.values()):
            busy = session.standalone_open or session.replies or session.connection.in_flight
            if now - session.last_used > idle_s and not busy:
                del self[session.id]
                session.connection.close()
                for stream in session.streams.values():
                    stream.close()

    def _oldest_idle(self, ids: dict[str, Any]) -> Session | None:
        for session_id in ids:
            session = dict.get(self, session_id)
            if session is not None and self.idle(session):
                return session
        return None


async def batch_answer(
    connection: Any,
    before: dict[Any, Any],
    answer: asyncio.Future[bytes],
    receive: Receive,
) -> bytes | None:
    """The answer of a batch, or None when its sender went away first.

    A batch is answered with one JSON body, which no ``Last-Event-ID`` can resume: once
    its sender is gone nobody can receive it, so the batch's calls still running are
    cancelled instead of being run to completion for nobody (a dropped *SSE* stream of a
    legacy session is not a cancellation: its client may resume it).
    """
    started = [(m, t) for m, t in connection.in_flight.items() if before.get(m) is not t]
    gone: asyncio.Future[Any] = asyncio.ensure_future(disconnected(receive))
    try:
        await asyncio.wait([answer, gone], return_when=asyncio.FIRST_COMPLETED)
    finally:
        gone.cancel()
    if answer.done():
        return answer.result()
    for mid, task in started:
        if connection.in_flight.get(mid) is task:
            connection.cancel(mid)
    return None


async def retire(session: Session, store: Any, *, everywhere: bool) -> None:
    """An evicted session: closed here, and ended in a shared store if it began here."""
    session.connection.close()
    for stream in session.streams.values():
        stream.close()
    if everywhere and store.shared:
        await store.drop_session(session.id)
