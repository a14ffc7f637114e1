"""A client and host that survive servers that crash, flood, or send nonsense."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest

from toolwire import Client, ClientError
from toolwire.client import Host

FRAGILE = [sys.executable, str(Path(__file__).with_name("servers") / "fragile.py")]


async def test_a_crashed_server_is_reported_clearly(tmp_path: Path) -> None:
    with (tmp_path / "stderr.log").open("w") as stderr:
        async with Client(FRAGILE, stderr=stderr, timeout=10) as client:
            with pytest.raises(ClientError, match="exited with code 3"):
                await client.call_tool("crash", {"code": 3})
            with pytest.raises(ClientError, match="exited with code 3"):  # fails at once, too
                await asyncio.wait_for(client.call_tool("add", {"a": 1, "b": 2}), 5)


async def test_the_host_restarts_a_crashed_server(tmp_path: Path) -> None:
    with (tmp_path / "stderr.log").open("w") as stderr:
        async with Host(
            {"fragile": FRAGILE},
            trusted={"fragile"},
            confirm=lambda _r: True,
            stderr=stderr,
            timeout=10,
        ) as host:
            names = {tool.name for tool in await host.list_tools()}
            assert {"add", "crash"} <= names
            with pytest.raises(ClientError, match="exited with code 7"):
                await host.call_tool("crash", {"code": 7})
            await asyncio.wait_for(host.restart("fragile"), 20)
            result = await host.call_tool("add", {"a": 2, "b": 3})
            assert not result.is_error and result.text == "5"


async def test_garbage_from_the_server_does_not_stop_the_client(tmp_path: Path) -> None:
    with (tmp_path / "stderr.log").open("w") as stderr:
        async with Client(FRAGILE, stderr=stderr, timeout=10) as client:
            flooded = await asyncio.wait_for(client.call_tool("flood", {"lines": 1000}), 20)
            assert flooded.text == "flooded 1000"
            result = await asyncio.wait_for(client.call_tool("add", {"a": 20, "b": 22}), 10)
            assert result.structured == {"result": 42}
