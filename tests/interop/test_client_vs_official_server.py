"""toolwire's client against a server built on the official MCP Python SDK, over stdio."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest

from toolwire import Client, ServerError

SERVER = [sys.executable, str(Path(__file__).with_name("sdk_server.py"))]


async def _exercise(revision: str | None) -> None:
    async with Client(SERVER, protocol_version=revision) as client:
        # Our client picks 2026-07-28 by itself when the server speaks it (the SDK's does).
        assert client.protocol_version == (revision or "2026-07-28")
        tools = {tool["name"]: tool for tool in await client.list_tools()}
        assert set(tools) >= {"add", "stats", "fail"}
        assert tools["add"]["inputSchema"]["required"] == ["a", "b"]

        added = await client.call_tool("add", {"a": 2, "b": 3})
        assert not added.is_error and added.text == "5"
        assert added.structured == {"result": 5}

        summary = await client.call_tool("stats", {"values": [1, 2, 3]})
        assert summary.structured == {"count": 3, "mean": 2.0}

        failed = await client.call_tool("fail", {"message": "nope"})
        assert failed.is_error and failed.text  # the SDK masks the message itself

        with pytest.raises(ServerError):
            await client.request("no/such/method")


@pytest.mark.parametrize("revision", ["2025-06-18", "2025-11-25", "2026-07-28", None])
async def test_our_client_lists_and_calls_the_official_servers_tools(revision: str | None) -> None:
    await asyncio.wait_for(_exercise(revision), 30)
