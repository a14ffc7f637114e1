"""One legacy HTTP session and the answer of one request: where each message goes."""

from __future__ import annotations

import asyncio
import functools
import secrets
from typing import Any

from ...protocol.revisions import FEATURES
from ..base import Connect
from ..store.contract import SessionStore
from .sse import Stream

JSON = dict[str, Any]

KEPT_STREAMS = 64  # finished request streams a session keeps for resumption


class Reply:
    """Where the messages of one request go while its POST is being answered."""

    def __init__(self, stream: Stream, mid: str | int) -> None:
        self.stream = stream
        self.mid = mid
        self.answered = False

    def final(self, data: bytes) -> None:
        self.answered = True
        self.stream.push(data, last=True)

    def related(self, data: bytes) -> None:
        self.stream.push(data)


class Session:
    """A legacy session: one connection, its request streams and its GET stream."""

    def __init__(self, connect: Connect, store: SessionStore, session_id: str) -> None:
        self.id = session_id
        self.version = "2025-03-26"
        self.last_used = asyncio.get_running_loop().time()
        self.store = store
        self.replies: dict[str | int, Reply] = {}
        self.streams: dict[str, Stream] = {}
        self._counter = 0
        self._tag = secrets.token_hex(3)  # stream ids stay unique across worker processes
        self.standalone = self._new_stream()
        self.standalone_open = 0  # readers of the GET stream, a resumed one included
        self.owner: list[str | None] | None = None  # who opened it, when callers authenticate
        self.connection = connect(self.unrelated)
        self.connection.route = self.route
        self.connection.close_sse = self.hang_up

    def state(self) -> JSON:
        """What another worker needs to continue this session."""
        connection: Any = self.connection
        return {
            "version": self.version,
            "capabilities": connection.client_capabilities,
            "client_info": connection.client_info,
            "log_level": connection.log_level,
            "subscriptions": sorted(connection.subscriptions),
            "owner": self.owner,
        }

    def pin(self, version: str) -> None:
        """Serve this session at ``version`` without an ``initialize`` (stateless mode)."""
        connection: Any = self.connection
        self.version = version
        connection.features = FEATURES[version]

    def restore(self, state: JSON) -> None:
        connection: Any = self.connection
        self.version = state["version"]
        connection.features = FEATURES[self.version]
        connection.client_capabilities = state.get("capabilities") or {}
        connection.client_info = state.get("client_info")
        connection.log_level = state.get("log_level")
        connection.subscriptions = set(state.get("subscriptions") or ())
        self.owner = state.get("owner")

    def _new_stream(self) -> Stream:
        self._counter += 1
        stream = Stream(f"{self._tag}{self._counter}")
        if self.store.shared:
            stream.sink = functools.partial(self.store.record, self.id, stream.id)
        self.streams[stream.id] = stream
        excess = len(self.streams) - KEPT_STREAMS
        if excess > 0:  # forget the oldest finished ones (looked for from the oldest on)
            finished = []
            for kept in self.streams.values():
                if kept.done:
                    finished.append(kept.id)
                    if len(finished) == excess:
                        break
            for old in finished:
                del self.streams[old]
        return stream

    def request_stream(self, request_id: str | int | None = None) -> Stream:
        stream = self._new_stream()
        stream.request_id = request_id
        return stream

    def hang_up(self, mid: str | int, retry_ms: int | None) -> bool:
        """End the SSE connection carrying request ``mid``'s stream, not the stream: the
        client resumes it with ``Last-Event-ID``. False if no such connection is open."""
        reply = self.replies.get(mid)
        return reply is not None and not reply.answered and reply.stream.hang_up(retry_ms)

    def unrelated(self, data: bytes) -> None:
        self.standalone.push(data)

    def route(self, related: str | int | None, data: bytes) -> None:
        reply = self.replies.get(related) if related is not None else None
        if reply is not None and not reply.answered:
            reply.related(data)
        else:  # not tied to a request still being answered: the GET stream (HT-17)
            self.standalone.push(data)
