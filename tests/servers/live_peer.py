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
from wire import TIMEOUT, RawServer, modern_meta, raw_server

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


class MemoryPeer:
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

    async def response(self, mid: Any, timeout: float = TIMEOUT) -> dict[str, Any]:
        while True:
            message = await self.recv(timeout)
            if isinstance(message, dict) and "method" in message and "id" not in message:
                self.notifications.append(message)
                continue
            if isinstance(message, dict) and message.get("id") == mid:
                return message  # type: ignore[no-any-return]
            raise AssertionError(f"unexpected message while waiting for {mid!r}: {message!r}")

    def next_id(self) -> int:
        self._ids += 1
        return self._ids

    async def request(
        self, method: str, params: dict[str, Any] | None = None, *, modern: bool = False
    ) -> dict[str, Any]:
        mid = self.next_id()
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": mid, "method": method}
        if modern:
            params = {
                **(params or {}),
                "_meta": {**modern_meta(), **((params or {}).get("_meta") or {})},
            }
        if params is not None:
            message["params"] = params
        await self.send(message)
        return await self.response(mid)

    async def notify(self, method: str, params: dict[str, Any] | None = None) -> None:
        message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            message["params"] = params
        await self.send(message)

    async def initialize(self, revision: str) -> dict[str, Any]:
        response = await self.request(
            "initialize",
            {
                "protocolVersion": revision,
                "capabilities": {},
                "clientInfo": {"name": "tests", "version": "0"},
            },
        )
        await self.notify("notifications/initialized")
        return response

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
