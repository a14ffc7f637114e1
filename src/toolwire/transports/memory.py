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
    """A server: it opens connections answering through ``send``, and is started (its
    lifespan entered) before the first one and stopped after the last."""

    def connect(self, send: Callable[[bytes], None]) -> Connection: ...

    async def start(self) -> None: ...

    async def stop(self) -> None: ...


class MemoryTransport(QueueReceiver):
    def __init__(self, server: Connectable) -> None:
        super().__init__()
        self._loop = asyncio.get_running_loop()
        self._server = server
        self._connection = server.connect(self.deliver)
        self._started = False

    async def open(self) -> None:
        await self._server.start()
        self._started = True

    async def send(self, data: bytes) -> None:
        # The server handles the message on a later loop pass, as if it crossed a pipe.
        self._loop.call_soon(self._connection.feed, bytes(data))

    def send_now(self, data: bytes) -> bool:
        """As :meth:`send`, without awaiting: nothing here waits to be written before it
        (a proxy forwards a call this way, :mod:`toolwire.proxy.fast`)."""
        self._loop.call_soon(self._connection.feed, bytes(data))
        return True

    async def close(self) -> None:
        await self._connection.drain(0.5)
        if self._started:
            self._started = False
            await self._server.stop()
        self.end()
