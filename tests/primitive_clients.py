"""A toolwire ``Client`` for the resource, prompt and completion tests: every message both
ways is validated against the revision's JSON Schema (strictly on the client's side too,
since the client's messages are toolwire's), and what the client sent is kept."""

from __future__ import annotations

import asyncio
import contextlib
import sys
from collections.abc import AsyncIterator
from typing import Any

import orjson

from toolwire import Client

from mcp_spec import WireChecker
from wire import SERVERS

SDK_SERVER = [sys.executable, str(SERVERS / "sdk_primitives.py")]
TIMEOUT = 15.0


@contextlib.asynccontextmanager
async def strict_client(
    target: Any, revision: str, **options: Any
) -> AsyncIterator[tuple[Client, list[dict[str, Any]]]]:
    """``(client, sent)``: a connected client whose traffic is schema-checked; ``sent`` holds
    every message the client wrote."""
    checker = WireChecker(revision, strict_client=True)
    sent: list[dict[str, Any]] = []

    def tap(direction: str, data: bytes) -> None:
        if direction == "send":
            sent.append(orjson.loads(data))
            checker.client_sent(data)
        else:
            checker.server_sent(data)

    client = Client(target, protocol_version=revision, tap=tap, timeout=TIMEOUT, **options)
    await asyncio.wait_for(client.connect(), TIMEOUT)
    try:
        yield client, sent
    finally:
        await asyncio.wait_for(client.close(), TIMEOUT)
    assert checker.checked > 0, "the checker saw no message"
    assert not checker.client_issues, checker.client_issues


class Changes:
    """Collects change notifications (a ``change_handler``) and lets a test wait for one."""

    def __init__(self) -> None:
        self.seen: list[dict[str, Any]] = []
        self._arrived = asyncio.Condition()

    async def __call__(self, message: dict[str, Any]) -> None:
        async with self._arrived:
            self.seen.append(message)
            self._arrived.notify_all()

    def methods(self) -> list[str]:
        return [message.get("method", "") for message in self.seen]

    async def wait_for(self, method: str, count: int = 1, timeout: float = TIMEOUT) -> None:
        async def arrived() -> None:
            async with self._arrived:
                await self._arrived.wait_for(lambda: self.methods().count(method) >= count)

        await asyncio.wait_for(arrived(), timeout)
