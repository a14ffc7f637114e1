"""Roots on the client: ``Client(roots=...)`` answers ``roots/list`` (a legacy server request,
or a 2026-07-28 input request), and ``set_roots`` changes them and tells a legacy server.

The server is built on the official MCP Python SDK (``interop/sdk_roots_server.py``, a real
stdio subprocess); every message is checked against the negotiated revision's schema.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import orjson
import pytest

from toolwire import Client, ServerError

from mcp_spec import WireChecker

pytestmark = pytest.mark.timeout(60)

SERVER = [sys.executable, str(Path(__file__).parent / "interop" / "sdk_roots_server.py")]


@pytest.mark.parametrize("revision", ["2025-06-18", "2025-11-25", "2026-07-28"])
async def test_the_server_gets_the_roots_and_their_changes(revision: str) -> None:
    checker = WireChecker(revision)
    sent: list[dict[str, Any]] = []

    def tap(direction: str, data: bytes) -> None:
        if direction == "send":
            checker.client_sent(data)
            sent.append(orjson.loads(data))
        else:
            checker.server_sent(data)

    roots: list[Any] = ["file:///work/a", {"uri": "file:///work/b", "name": "B"}]
    async with Client(SERVER, protocol_version=revision, roots=roots, tap=tap) as client:
        first = await client.call_tool("roots", {})
        assert first.text == "file:///work/a|\nfile:///work/b|B"

        await client.set_roots(["file:///work/c"])
        assert client.roots == [{"uri": "file:///work/c"}]
        second = await client.call_tool("roots", {})
        assert second.text == "file:///work/c|"
    assert checker.client_issues == [] and checker.checked > 0
    answers = [m["result"]["roots"] for m in sent if "roots" in m.get("result", {})]
    answers += [
        answer["roots"]
        for m in sent
        for answer in (m.get("params") or {}).get("inputResponses", {}).values()
    ]
    assert answers == [
        [{"uri": "file:///work/a"}, {"uri": "file:///work/b", "name": "B"}],
        [{"uri": "file:///work/c"}],
    ]

    changed = [m for m in sent if m.get("method") == "notifications/roots/list_changed"]
    # 2026-07-28 has no such notification: the server asks again when it needs the roots
    assert len(changed) == (0 if revision == "2026-07-28" else 1)


async def test_the_roots_capability_is_declared_per_revision() -> None:
    seen: list[dict[str, Any]] = []

    def tap(direction: str, data: bytes) -> None:
        if direction == "send":
            seen.append(orjson.loads(data))

    for revision in ("2025-11-25", "2026-07-28"):
        async with Client(SERVER, protocol_version=revision, roots=[], tap=tap) as client:
            assert client.roots == []
    initialize = next(m for m in seen if m.get("method") == "initialize")
    assert initialize["params"]["capabilities"]["roots"] == {"listChanged": True}
    discover = next(m for m in seen if m.get("method") == "server/discover")
    meta = discover["params"]["_meta"]
    assert meta["io.modelcontextprotocol/clientCapabilities"]["roots"] == {}


async def test_a_client_without_roots_declares_none() -> None:
    async with Client(SERVER, protocol_version="2025-11-25") as client:
        assert "roots" not in client.capabilities
        with pytest.raises(ServerError, match="roots capability"):  # the server cannot ask
            await client.call_tool("roots", {})
        with pytest.raises(ValueError, match="roots="):
            await client.set_roots(["file:///x"])


@pytest.mark.parametrize(
    ("roots", "problem"),
    [
        (["/work/a"], "file:// URI"),
        (["https://example.com/a"], "file:// URI"),
        ([{"name": "no uri"}], "file:// URI"),
        ([{"uri": "file:///a", "name": 3}], "name"),
        ([{"uri": "file:///a", "path": "/a"}], "unknown fields"),
        ("file:///a", "not a single root"),
    ],
)
def test_roots_that_are_not_file_uris_are_refused(roots: Any, problem: str) -> None:
    with pytest.raises(ValueError, match=problem):
        Client("python server.py", roots=roots)
