"""The official SDK's ``Client`` over a stdio pipe whose every line, both ways, reaches a
:class:`~mcp_spec.WireChecker` as the bytes that crossed it."""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import anyio
import mcp_types
from mcp.shared.message import SessionMessage

from mcp_spec import WireChecker

ROOT = Path(__file__).resolve().parents[2]


@contextlib.asynccontextmanager
async def tapped_stdio(args: list[str], checker: WireChecker) -> AsyncIterator[Any]:
    """A transport for the official ``Client``: ``python *args`` over stdio, each raw line
    both ways given to ``checker``, as it was on the pipe."""
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    process = await anyio.open_process([sys.executable, *args], env=env)
    assert process.stdout is not None and process.stdin is not None
    stdout, stdin = process.stdout, process.stdin
    to_client, from_server = anyio.create_memory_object_stream[SessionMessage | Exception](32)
    to_server, from_client = anyio.create_memory_object_stream[SessionMessage](32)

    async def read() -> None:
        buffer = b""
        async with to_client:
            async for chunk in stdout:
                buffer += chunk
                while b"\n" in buffer:
                    line, buffer = buffer.split(b"\n", 1)
                    if line.strip():
                        checker.server_sent(line)
                        message = mcp_types.jsonrpc_message_adapter.validate_json(line)
                        await to_client.send(SessionMessage(message))

    async def write() -> None:
        async with from_client:
            async for item in from_client:
                data = item.message.model_dump_json(by_alias=True, exclude_unset=True).encode()
                checker.client_sent(data)
                await stdin.send(data + b"\n")

    try:
        async with anyio.create_task_group() as group:
            group.start_soon(read)
            group.start_soon(write)
            yield from_server, to_server
            await to_server.aclose()
            await stdin.aclose()
            with anyio.fail_after(10):
                await process.wait()
            group.cancel_scope.cancel()
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
