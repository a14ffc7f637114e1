"""``ctx.state`` in one process: whose state it is on each transport, its errors, its TTL.

In memory and over stdio the state belongs to the connection's one client; over HTTP
without authentication, to the legacy session; a 2026-07-28 HTTP request without
authentication names nobody and gets an ``isError`` result that says why. (Across workers
with Redis: tests/test_state_scaleout.py.) Every message is schema-checked.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from toolwire import Context, Server
from toolwire.transports.store.stores import MemoryStore

from http_server import serve_http
from wire import checked_client

pytestmark = pytest.mark.timeout(30)

STDIO_SERVER = Path(__file__).parent / "servers" / "prod_state.py"


def build() -> Server:
    mcp = Server("state")

    @mcp.tool()
    async def bump(ctx: Context) -> int:
        """Count this caller's calls."""
        count = int(await ctx.state.get("count", 0)) + 1
        await ctx.state.set("count", count)
        return count

    @mcp.tool()
    async def keep(value: Any, ctx: Context) -> str:
        """Keep any value (to show what cannot be kept)."""
        await ctx.state.set("kept", value)
        return "kept"

    @mcp.tool()
    async def keep_object(ctx: Context) -> str:
        """Try to keep something JSON cannot hold."""
        await ctx.state.set("kept", object())
        return "kept"

    return mcp


async def test_in_memory_each_client_has_its_own_state() -> None:
    mcp = build()
    async with checked_client(mcp, "2026-07-28") as one, checked_client(mcp, "2025-11-25") as two:
        assert [(await one.call_tool("bump", {})).structured["result"] for _ in range(3)] == [
            1,
            2,
            3,
        ]
        assert (await two.call_tool("bump", {})).structured["result"] == 1
        assert (await one.call_tool("bump", {})).structured["result"] == 4


@pytest.mark.parametrize("revision", ["2025-11-25", "2026-07-28"])
async def test_over_stdio_the_state_is_the_processs(revision: str) -> None:
    command = [sys.executable, str(STDIO_SERVER)]
    async with checked_client(command, revision) as client:
        await client.call_tool("remember", {"key": "k", "value": [1, "two"]})
        assert (await client.call_tool("recall", {"key": "k"})).structured["value"] == [1, "two"]
        await client.call_tool("forget", {"key": "k"})
        assert (await client.call_tool("recall", {"key": "k"})).structured["value"] is None


async def test_over_http_without_auth_a_legacy_session_has_its_own_state() -> None:
    with serve_http(build()) as url:
        async with (
            checked_client(url, "2025-11-25") as one,
            checked_client(url, "2025-06-18") as two,
        ):
            assert (await one.call_tool("bump", {})).structured["result"] == 1
            assert (await one.call_tool("bump", {})).structured["result"] == 2
            assert (await two.call_tool("bump", {})).structured["result"] == 1


async def test_over_http_2026_without_auth_says_why_there_is_no_state() -> None:
    with serve_http(build()) as url:
        async with checked_client(url, "2026-07-28") as client:
            result = await client.call_tool("bump", {})
    assert result.is_error
    assert "2026-07-28 is stateless" in result.text
    assert "Turn on authentication" in result.text


async def test_values_must_be_json(caplog: pytest.LogCaptureFixture) -> None:
    async with checked_client(build(), "2025-11-25") as client:
        assert (await client.call_tool("keep", {"value": {"a": [1, None]}})).text == "kept"
        refused = await client.call_tool("keep_object", {})
    assert refused.is_error  # a programming error: masked for the model, clear in the log
    assert "ctx.state values must be JSON-serializable" in caplog.text


async def test_memory_values_expire(monkeypatch: pytest.MonkeyPatch) -> None:
    now = [1000.0]
    monkeypatch.setattr("toolwire.transports.store.stores.time.monotonic", lambda: now[0])
    store = MemoryStore()
    await store.set_value("a", b"1", 5.0)
    assert await store.get_value("a") == b"1"
    now[0] += 4.9
    assert await store.get_value("a") == b"1"
    now[0] += 0.2
    assert await store.get_value("a") is None
    await store.set_value("b", b"2", 1.0)
    await store.delete_value("b")
    assert await store.get_value("b") is None
