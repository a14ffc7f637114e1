"""Following a request's stream while its client may go away, at the cost of one wait.

Most answers come within a few milliseconds of their request (an async tool, a call a proxy
passes on): the response's task waits for the stream to change and nothing else. The client
leaving is watched (a task reading ``receive`` until ``http.disconnect``) only once a wait has
lasted :data:`WATCH_AFTER_S`, so a call that ends soon costs no task, no ``asyncio.wait`` and
no cancellation, while a long one still learns that its client went away (CN-10 cancels a
2026-07-28 call, a legacy SSE stream is let go for its client to resume).
"""

from __future__ import annotations

import asyncio
from typing import Any

from ..asgi import Receive, disconnected
from .sse import Stream

# How long a wait lasts before the client's departure is watched too.
WATCH_AFTER_S = 0.05


class Follower:
    """The events of ``stream`` after ``after``, until it ends, the client leaves or one of
    ``stops`` is done (another reader took over, the call let its connection go)."""

    __slots__ = (
        "_listening",
        "_timer",
        "_waiter",
        "after",
        "receive",
        "stops",
        "stream",
        "watcher",
    )

    def __init__(
        self,
        stream: Stream,
        receive: Receive,
        *stops: asyncio.Future[Any] | None,
        after: int = 0,
    ) -> None:
        self.stream = stream
        self.receive = receive
        self.after = after
        self.stops = [stop for stop in stops if stop is not None]
        for stop in self.stops:
            stop.add_done_callback(self._wake)
        stream.listen(self._wake)
        self._listening = True
        self.watcher: asyncio.Future[None] | None = None  # reads receive() once started
        self._waiter: asyncio.Future[None] | None = None
        self._timer: asyncio.TimerHandle | None = None

    @property
    def gone(self) -> bool:
        """The client went away (or its connection failed)."""
        watcher = self.watcher
        return watcher is not None and watcher.done() and not watcher.cancelled()

    def ended(self) -> bool:
        """No event is to be followed any more: the client left or a stop is done."""
        return self.gone or any(stop.done() for stop in self.stops)

    async def next(self) -> tuple[int, bytes] | None:
        """The next event as ``(seq, data)``, None once there is none to follow (the stream
        ended, the client left or a stop is done): even one that is ready is not given then."""
        stream = self.stream
        while not self.ended():
            if self.after < stream.seq and stream.events:
                seq, data = _following(stream, self.after)
                self.after = seq
                return seq, data
            if stream.done:
                return None
            await self._wait()
        return None

    async def _wait(self) -> None:
        """Until the stream changes, a stop is done or the client leaves."""
        loop = asyncio.get_running_loop()
        self._waiter = waiter = loop.create_future()
        if self.watcher is None and self._timer is None:
            self._timer = loop.call_later(WATCH_AFTER_S, self.watch)
        try:
            await waiter
        finally:
            self._waiter = None

    def watch(self) -> None:
        """Watch for the client's departure from now on."""
        if self.watcher is None:
            self.watcher = asyncio.ensure_future(disconnected(self.receive))
            self.watcher.add_done_callback(self._wake)

    def _wake(self, _: object = None) -> None:
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    def close(self) -> None:
        """Stop watching (the response is over or goes on elsewhere)."""
        if self._listening:  # (not closed already)
            self._listening = False
            for stop in self.stops:
                stop.remove_done_callback(self._wake)
            self.stream.unlisten(self._wake)
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if self.watcher is not None:
            self.watcher.remove_done_callback(self._wake)
            self.watcher.cancel()


def _following(stream: Stream, after: int) -> tuple[int, bytes]:
    """The first kept event after sequence number ``after`` (one is kept: the last)."""
    events = stream.events
    index = after + 1 - events[0][0]  # where it is when sequence numbers follow each other
    if index <= 0:
        return events[0]  # (older events are no longer kept)
    if index < len(events) and events[index][0] == after + 1:
        return events[index]
    return next(event for event in events if event[0] > after)
