"""The transport contract on the client side: send a message, receive messages, close."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any, Protocol

from .. import jsonrpc
from ..errors import RPCError


class Connection(Protocol):
    """The server side of one connection, as a transport sees it."""

    def feed(self, data: bytes, reply: Callable[[bytes], None] | None = None) -> bool: ...

    def feed_message(self, message: Any, reply: Callable[[bytes], None]) -> bool: ...

    def send(self, data: bytes) -> None: ...

    route: Callable[[str | int | None, bytes], None] | None
    in_flight: dict[str | int, Any]  # requests still being answered
    identity: Any  # the authenticated caller of the messages fed next (HTTP with auth)
    peer: str | None  # the client's network address (HTTP), for admission without a token
    on_settled: Callable[[], None] | None  # told each time a request in flight ends
    # Ends the connection carrying a request's SSE stream (request id, reconnect delay in
    # ms or None), the stream going on; set by a transport that can (HTTP, legacy sessions).
    close_sse: Callable[[str | int, int | None], bool] | None
    transport: str | None  # "stdio" when it is the stdio transport's one connection

    def send_related(self, related: str | int | None, data: bytes) -> None: ...

    def cancel(self, mid: str | int) -> None: ...

    def close(self) -> None: ...

    async def drain(self, grace: float) -> None: ...


Connect = Callable[[Callable[[bytes], None]], Connection]


class ClientTransport(Protocol):
    """A message pipe to one server. ``receive`` returns None once the server is gone."""

    async def send(self, data: bytes) -> None: ...

    async def receive(self) -> bytes | None: ...

    async def close(self) -> None: ...


#: The largest message a client transport reads (a stdio line, an HTTP body or SSE event):
#: the same bound the stdio server keeps.
MAX_MESSAGE_BYTES = 64 * 1024 * 1024
#: The most bytes of messages a client transport holds for its reader before it stops
#: reading from the server (backpressure); one message of any allowed size always fits.
MAX_QUEUED_BYTES = 8 * 1024 * 1024


class QueueReceiver:
    """Incoming messages in a queue; ``None`` marks the end of the stream.

    The queue is bounded by size: a transport's reading side awaits :meth:`put`, which waits
    while ``max_queued_bytes`` are already waiting for the reader, so a server that writes
    faster than the client reads is slowed down instead of filling the client's memory.
    """

    def __init__(self, max_queued_bytes: int = MAX_QUEUED_BYTES) -> None:
        self.incoming: asyncio.Queue[bytes | None] = asyncio.Queue()
        self.ended = False
        self.max_queued_bytes = max_queued_bytes
        self._queued_bytes = 0
        self._room: asyncio.Event | None = None  # set when a waiting put may go on
        # The reader may take a message at once (an answer it is waiting for) when nothing
        # is queued before it; it returns True if it did. Saves a task switch per answer.
        self.take_now: Callable[[bytes], bool] | None = None
        # Fails request ``mid`` on the client side (with the exception, or a ClientError with
        # the text); without it a JSON-RPC error answer is delivered instead.
        self.on_failure: Callable[[Any, str | Exception], None] | None = None

    def deliver(self, data: bytes) -> None:
        if self.ended:
            return
        take_now = self.take_now
        if take_now is not None and self.incoming.empty() and take_now(data):
            return
        self._queued_bytes += len(data)
        self.incoming.put_nowait(data)

    async def put(self, data: bytes) -> None:
        """Deliver ``data`` once the queue has room for it."""
        while self._queued_bytes >= self.max_queued_bytes and not self.ended:
            if self._room is None:
                self._room = asyncio.Event()
            self._room.clear()
            await self._room.wait()
        self.deliver(data)

    def fail(self, mid: Any, error: str | Exception) -> None:
        """Request ``mid`` cannot be answered (its answer was too large, or the server
        refused it over HTTP, say)."""
        if self.on_failure is not None:
            self.on_failure(mid, error)
        elif mid is not None:
            failure = RPCError(jsonrpc.INTERNAL_ERROR, str(error))
            self.deliver(jsonrpc.error_bytes(mid, failure))

    def end(self) -> None:
        if not self.ended:
            self.ended = True
            self.incoming.put_nowait(None)
            if self._room is not None:
                self._room.set()

    async def receive(self) -> bytes | None:
        if self.ended and self.incoming.empty():
            return None
        data = await self.incoming.get()
        if data is not None:
            self._queued_bytes -= len(data)
            room = self._room
            if room is not None and self._queued_bytes < self.max_queued_bytes:
                room.set()
        return data
