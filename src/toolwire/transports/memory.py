"""An in-process pair: a client talking to a server object without pipes or sockets.

Messages are still encoded to bytes and decoded again, so what a test sees in memory is
what a client would see on the wire.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Protocol

from .base import Connection, QueueReceiver


class Connectable(Protocol):
    """Anything that opens a server-side connection answering through ``send``."""

    def connect(self, send: Callable[[bytes], None]) -> Connection: ...


class MemoryTransport(QueueReceiver):
    def __init__(self, server: Connectable) -> None:
        super().__init__()
        self._loop = asyncio.get_running_loop()
        self._connection = server.connect(self.deliver)

    async def send(self, data: bytes) -> None:
        # The server handles the message on a later loop pass, as if it crossed a pipe.
        self._loop.call_soon(self._connection.feed, bytes(data))

    async def close(self) -> None:
        await self._connection.drain(0.5)
        self.end()
