"""Test drivers that check every message against the negotiated revision's JSON Schema.

* :class:`RawServer` runs a server script as a real stdio subprocess and speaks raw bytes
  to it, so tests can send anything, malformed input included.
* :func:`checked_client` is toolwire's own ``Client`` with a tap that feeds a
  :class:`~mcp_spec.WireChecker`, for in-memory and stdio tests alike.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import orjson

from toolwire import Client

from mcp_spec import WireChecker

SERVERS = Path(__file__).resolve().parent / "servers"
EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
MODERN = "2026-07-28"
TIMEOUT = 15.0


def modern_meta(version: str = MODERN, **extra: Any) -> dict[str, Any]:
    return {
        "io.modelcontextprotocol/protocolVersion": version,
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "tests", "version": "0"},
        **extra,
    }


class RawPeer:
    """Raw JSON-RPC conversations on top of a ``send``/``recv`` pair (subclasses give those)."""

    notifications: list[dict[str, Any]]
    _ids: int

    async def send(self, message: dict[str, Any]) -> None:
        raise NotImplementedError

    async def recv(self, timeout: float = TIMEOUT) -> Any:
        raise NotImplementedError

    async def response(self, mid: Any, timeout: float = TIMEOUT) -> dict[str, Any]:
        """Read until the response with id ``mid``; notifications on the way are kept."""
        while True:
            message = await self.recv(timeout)
            if isinstance(message, dict) and "method" in message and "id" not in message:
                self.notifications.append(message)
                continue
            if isinstance(message, dict) and message.get("id") == mid:
                return message
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


class RawServer(RawPeer):
    """A server subprocess driven with raw JSON-RPC lines; the server's output is checked."""

    def __init__(self, process: asyncio.subprocess.Process, checker: WireChecker) -> None:
        self.process = process
        self.checker = checker
        self.notifications: list[dict[str, Any]] = []
        self.lines: list[bytes] = []
        self._ids = 0

    @classmethod
    async def start(
        cls,
        script: str | Path,
        *args: str,
        revision: str | None = None,
        env: dict[str, str] | None = None,
    ) -> RawServer:
        path = Path(script)
        if not path.is_absolute():
            path = SERVERS / path
        process = await asyncio.create_subprocess_exec(
            sys.executable,
            str(path),
            *args,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            env={**os.environ, **(env or {})},
        )
        return cls(process, WireChecker(revision))

    async def send_raw(self, data: bytes) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(data if data.endswith(b"\n") else data + b"\n")
        await self.process.stdin.drain()

    async def send(self, message: dict[str, Any] | list[Any]) -> None:
        self.checker.client_sent(message if isinstance(message, dict) else orjson.dumps(message))
        await self.send_raw(orjson.dumps(message))

    async def recv(self, timeout: float = TIMEOUT) -> Any:
        """The next message the server wrote (checked against the schema)."""
        assert self.process.stdout is not None
        line = await asyncio.wait_for(self.process.stdout.readline(), timeout)
        if not line:
            raise EOFError("the server closed stdout")
        self.lines.append(line)
        self.checker.server_sent(line)
        return orjson.loads(line)

    async def close(self, timeout: float = TIMEOUT) -> tuple[int, bytes, bytes]:
        """Close stdin and wait for the exit; returns (exit code, rest of stdout, stderr)."""
        assert self.process.stdin is not None and self.process.stdout is not None
        assert self.process.stderr is not None
        if not self.process.stdin.is_closing():
            self.process.stdin.close()
        try:
            rest, err = await asyncio.wait_for(
                asyncio.gather(self.process.stdout.read(), self.process.stderr.read()), timeout
            )
            code = await asyncio.wait_for(self.process.wait(), timeout)
        except asyncio.TimeoutError:
            self.process.kill()
            await self.process.wait()
            raise
        for line in rest.splitlines(keepends=True):
            if line.strip():
                self.checker.server_sent(line)
        return code, rest, err


@contextlib.asynccontextmanager
async def raw_server(script: str | Path, *args: str, **options: Any) -> AsyncIterator[RawServer]:
    async with stopped_after(await RawServer.start(script, *args, **options)) as server:
        yield server


@contextlib.asynccontextmanager
async def stopped_after(server: RawServer) -> AsyncIterator[RawServer]:
    """``server`` for the block; closed afterwards, and killed if it does not exit."""
    try:
        yield server
    finally:
        if server.process.returncode is None:
            with contextlib.suppress(Exception):
                await server.close()
        if server.process.returncode is None:
            server.process.kill()
            await server.process.wait()


@contextlib.asynccontextmanager
async def checked_client(
    target: Any, protocol_version: str | None = None, **options: Any
) -> AsyncIterator[Client]:
    """toolwire's ``Client`` whose traffic is checked against the negotiated revision
    (``extension_methods``: see :class:`~mcp_spec.WireChecker`)."""
    checker = WireChecker(
        protocol_version,
        extension_methods=options.pop("extension_methods", ()),
        extension_result_types=options.pop("extension_result_types", ()),
    )

    def tap(direction: str, data: bytes) -> None:
        (checker.client_sent if direction == "send" else checker.server_sent)(data)

    async with Client(target, protocol_version=protocol_version, tap=tap, **options) as client:
        client.checker = checker  # type: ignore[attr-defined]
        yield client
    assert checker.checked > 0, "the checker saw no message"
