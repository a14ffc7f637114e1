"""Raw JSON-RPC drivers for the live_* servers, in memory and over stdio, with one API.

:class:`MemoryPeer` speaks raw messages to a server object's connection (what the memory
transport does, minus the client); :class:`wire.RawServer` does the same to a subprocess.
Both check every message against the revision's schema. ``open_peer("memory" | "stdio",
module_name)`` gives either, so one test body covers both transports.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib.util
from collections.abc import AsyncIterator
from pathlib import Path
from types import ModuleType
from typing import Any

import orjson

from mcp_spec import WireChecker
from wire import TIMEOUT, RawPeer, RawServer, raw_server

HERE = Path(__file__).resolve().parent


def load(module_name: str) -> ModuleType:
    """Import ``tests/servers/<module_name>.py`` (it is not a package)."""
    spec = importlib.util.spec_from_file_location(
        f"_live_{module_name}", HERE / f"{module_name}.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class MemoryPeer(RawPeer):
    """A server object's connection driven with raw messages (the shape of RawServer)."""

    def __init__(self, server: Any, revision: str | None = None) -> None:
        self.server = server
        self.checker = WireChecker(revision)
        self.notifications: list[dict[str, Any]] = []
        self._inbox: asyncio.Queue[bytes] = asyncio.Queue()
        self._ids = 0
        self._closed = False
        self.connection = server.connect(self._inbox.put_nowait)

    async def send(self, message: dict[str, Any]) -> None:
        self.checker.client_sent(message)
        # Fed on a later loop pass, as if it crossed a pipe (as the memory transport does).
        asyncio.get_running_loop().call_soon(self.connection.feed, orjson.dumps(message))

    async def recv(self, timeout: float = TIMEOUT) -> Any:
        data = await asyncio.wait_for(self._inbox.get(), timeout)
        self.checker.server_sent(data)
        return orjson.loads(data)

    async def close(self, timeout: float = TIMEOUT) -> tuple[int, bytes, bytes]:
        """The end of input, as when stdin closes: (0, what the server still sent, b"")."""
        if not self._closed:
            self._closed = True
            # Like EOF on a pipe: the end comes after every message already sent.
            arrived = asyncio.get_running_loop().create_future()
            asyncio.get_running_loop().call_soon(arrived.set_result, None)
            await arrived
            await asyncio.wait_for(self.connection.drain(self.server.shutdown_grace), timeout)
        rest = b""
        while not self._inbox.empty():
            data = self._inbox.get_nowait()
            self.checker.server_sent(data)
            rest += data + b"\n"
        return 0, rest, b""


@contextlib.asynccontextmanager
async def open_peer(
    transport: str, module_name: str, *, revision: str | None = None
) -> AsyncIterator[MemoryPeer | RawServer]:
    """A raw driver for ``tests/servers/<module_name>.py`` (its ``build()`` in memory)."""
    if transport == "memory":
        module = load(module_name)
        peer = MemoryPeer(module.build(), revision)
        try:
            yield peer
        finally:
            await peer.close()
    else:
        async with raw_server(f"{module_name}.py", revision=revision) as server:
            yield server
