"""Server-sent event streams that outlive their HTTP connection.

On legacy revisions a client whose SSE connection drops may come back with
``Last-Event-ID`` and must lose nothing (HT-20): each :class:`Stream` keeps the events it
carried (a bounded log) and any number of readers can follow it from a given event on.
Event ids are ``<stream id>/<sequence>``, unique within the session and naming their
stream (HT-19).
"""

from __future__ import annotations

import asyncio
import re
from collections import deque
from collections.abc import Callable

MAX_KEPT_EVENTS = 1024


def frame(data: bytes, event_id: str | None = None) -> bytes:
    """One SSE ``message`` event carrying one JSON-RPC message."""
    if event_id is None:
        return b"event: message\ndata: " + data + b"\n\n"
    return b"event: message\nid: " + event_id.encode() + b"\ndata: " + data + b"\n\n"


def priming(event_id: str, retry_ms: int) -> bytes:
    """The first event of a resumable stream: an id and no data, plus the reconnect delay (HT-11)."""
    return b"id: " + event_id.encode() + b"\nretry: " + str(retry_ms).encode() + b"\ndata: \n\n"


def retry(retry_ms: int) -> bytes:
    """The reconnect delay alone (no event): sent before the server ends a connection whose
    stream goes on (HT-12)."""
    return b"retry: " + str(retry_ms).encode() + b"\n\n"


# ``<stream id>/<sequence>``: ASCII only and bounded, so a hostile header costs nothing.
_EVENT_ID = re.compile(r"([A-Za-z0-9_-]{1,64})/(0|[1-9][0-9]{0,17})", re.ASCII)


def parse_event_id(value: str) -> tuple[str, int] | None:
    """``(stream id, sequence)`` of an event id this module made, else None."""
    match = _EVENT_ID.fullmatch(value)
    if match is None:
        return None
    return match[1], int(match[2])


class Stream:
    """The messages of one SSE stream, in order, with the ones already sent kept for replay."""

    def __init__(self, stream_id: str, max_events: int = MAX_KEPT_EVENTS) -> None:
        self.id = stream_id
        self.events: deque[tuple[int, bytes]] = deque(maxlen=max_events)
        self.seq = 0
        self.done = False
        self.request_id: str | int | None = None  # the request this stream answers, if any
        # Told (synchronously) of every event and of the end: the readers waiting.
        self._listeners: list[Callable[[], None]] = []
        # Called with (seq, data, last) for every event: a shared store keeps a copy.
        self.sink: Callable[[int, bytes, bool], None] | None = None
        # Set while an SSE connection carries this stream (or may: a response not yet
        # started); done, with a reconnect delay (or None), when that connection is to end.
        self.release: asyncio.Future[int | None] | None = None

    def push(self, data: bytes, *, last: bool = False) -> None:
        if self.done:
            return
        self.seq += 1
        self.events.append((self.seq, data))
        self.done = last
        if self.sink is not None:
            self.sink(self.seq, data, last)
        self._wake()

    def close(self) -> None:
        self.done = True
        self._wake()

    def _wake(self) -> None:
        for listener in self._listeners:
            listener()

    def listen(self, listener: Callable[[], None]) -> None:
        """Call ``listener()`` at every event and when the stream ends (it must not block)."""
        self._listeners.append(listener)

    def unlisten(self, listener: Callable[[], None]) -> None:
        self._listeners.remove(listener)

    def carried(self) -> asyncio.Future[int | None]:
        """A connection now carries this stream: the future is done once :meth:`hang_up`
        asks it to end."""
        self.release = asyncio.get_running_loop().create_future()
        return self.release

    def dropped(self, release: asyncio.Future[int | None]) -> None:
        """The connection that called :meth:`carried` no longer carries this stream."""
        if self.release is release:
            self.release = None

    def hang_up(self, retry_ms: int | None = None) -> bool:
        """End the connection carrying this stream, not the stream: the client comes back
        with ``Last-Event-ID`` (after ``retry_ms``) for what follows (SEP-1699). False when
        no connection carries it (or the stream is over)."""
        release = self.release
        if self.done or release is None or release.done():
            return False
        release.set_result(retry_ms)
        return True

    def event_id(self, seq: int) -> str:
        return f"{self.id}/{seq}"
