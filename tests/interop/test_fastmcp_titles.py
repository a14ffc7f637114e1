"""``toolwire.FastMCP`` lists tools with the titles FastMCP 4 gives them.

``servers/fastmcp4_titles.py`` runs over stdio on FastMCP 4 (the one ``fastmcp-tasks``
pins, tests/interop/peers.py) and, as a copy ``toolwire migrate`` rewrote, on toolwire; the
official client (``mcp.Client``) lists the tools of both, and each tool's name, title and
annotations must be the same: a title of its own, its annotations' title, or one made from
its name (a mounted tool's with its namespace). Every message toolwire sends is checked
against the schema of the negotiated revision.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import IO, Any

import anyio
import pytest
from mcp import Client

from interop import peers
from interop.test_lowlevel_sdk_styles import stderr as stderr  # the fixture
from interop.test_lowlevel_sdk_styles import stdio
from migrated import migrated

from mcp_spec import WireChecker

pytestmark = [pytest.mark.timeout(180), pytest.mark.peers("fastmcp-tasks")]

SCRIPT = Path(__file__).resolve().parent.parent / "servers" / "fastmcp4_titles.py"


async def titles(command: list[str], stderr: IO[str], checker: WireChecker | None) -> Any:
    with anyio.fail_after(90):
        async with Client(stdio(command, stderr, checker), mode="legacy") as client:
            listed = (await client.list_tools()).tools
    return sorted(
        (tool.name, tool.title, tool.annotations.title if tool.annotations else None)
        for tool in listed
    )


async def test_fastmcp_lists_the_titles_fastmcp_4_gives(tmp_path: Path, stderr: IO[str]) -> None:
    expected = await titles([peers.fastmcp_tasks(), str(SCRIPT)], stderr, None)
    assert expected == [
        ("annotated", "From Annotations", "From Annotations"),
        ("get_forecast", "Get Forecast", None),
        ("given", "A Given Title", None),
        ("news_top_headlines", "News Top Headlines", None),
        ("shout-text", "Shout Text", None),
    ]
    copy = migrated(SCRIPT, tmp_path)
    assert "from toolwire import FastMCP\n" in copy.read_text(encoding="utf-8")
    checker = WireChecker()
    assert await titles([sys.executable, str(copy)], stderr, checker) == expected
    checker.close()
    assert checker.checked >= 2, checker.checked
