"""The transport contract on the client side: send a message, receive messages, close."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any, Protocol


class Connection(Protocol):
    """The server side of one connection, as a transport sees it."""

    def feed(self, data: bytes, reply: Callable[[bytes], None] | None = None) -> bool: ...

    def feed_message(self, message: Any, reply: Callable[[bytes], None]) -> bool: ...

    def send(self, data: bytes) -> None: ...

    route: Callable[[str | int | None, bytes], None] | None
    in_flight: dict[str | int, Any]  # requests still being answered
    identity: Any  # the authenticated caller of the messages fed next (HTTP with auth)

    def send_related(self, related: str | int | None, data: bytes) -> None: ...

    def cancel(self, mid: str | int) -> None: ...

    def batch_refusal(self, batch: list[Any]) -> Any: ...  # why a batch would be refused

    def close(self) -> None: ...

    async def drain(self, grace: float) -> None: ...


Connect = Callable[[Callable[[bytes], None]], Connection]


class ClientTransport(Protocol):
    """A message pipe to one server. ``receive`` returns None once the server is gone."""

    async def send(self, data: bytes) -> None: ...

    async def receive(self) -> bytes | None: ...

    async def close(self) -> None: ...


class QueueReceiver:
    """Incoming messages in a queue; ``None`` marks the end of the stream."""

    def __init__(self) -> None:
        self.incoming: asyncio.Queue[bytes | None] = asyncio.Queue()
        self.ended = False
        # The reader may take a message at once (an answer it is waiting for) when nothing
        # is queued before it; it returns True if it did. Saves a task switch per answer.
        self.take_now: Callable[[bytes], bool] | None = None

    def deliver(self, data: bytes) -> None:
        if self.ended:
            return
        take_now = self.take_now
        if take_now is not None and self.incoming.empty() and take_now(data):
            return
        self.incoming.put_nowait(data)

    def end(self) -> None:
        if not self.ended:
            self.ended = True
            self.incoming.put_nowait(None)

    async def receive(self) -> bytes | None:
        if self.ended and self.incoming.empty():
            return None
        return await self.incoming.get()
