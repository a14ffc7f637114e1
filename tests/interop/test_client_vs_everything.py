"""toolwire's client against the reference server ``@modelcontextprotocol/server-everything``
(from the npm registry, run by Node over stdio)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from interop import peers
from toolwire import Client

pytestmark = pytest.mark.peers("npm-everything")


@pytest.fixture(scope="module")
def everything() -> list[str]:
    node, folder = peers.everything()
    return [node, str(folder / "dist" / "index.js"), "stdio"]


async def _exercise(command: list[str], revision: str | None, log: Path) -> None:
    with log.open("w") as stderr:
        async with Client(command, protocol_version=revision, stderr=stderr) as client:
            # The reference server speaks the legacy revisions: our client falls back by itself.
            assert client.protocol_version == (revision or "2025-11-25")
            assert client.server_info["name"] == "mcp-servers/everything"
            names = [tool["name"] for tool in await client.list_tools()]
            assert {"echo", "get-sum", "get-structured-content", "get-tiny-image"} <= set(names)

            echoed = await client.call_tool("echo", {"message": "hi"})
            assert not echoed.is_error and echoed.text == "Echo: hi"
            summed = await client.call_tool("get-sum", {"a": 2, "b": 3})
            assert "5" in summed.text
            image = await client.call_tool("get-tiny-image", {})
            assert any(block["type"] == "image" for block in image.content)


@pytest.mark.parametrize("revision", ["2025-06-18", "2025-11-25", None])
async def test_our_client_against_the_reference_server(
    everything: list[str], revision: str | None, tmp_path: Path
) -> None:
    await asyncio.wait_for(_exercise(everything, revision, tmp_path / "stderr.log"), 60)
