"""Per-session visibility: ``ctx.enable_components``/``disable_components``/``reset_components``.

The server is ``servers/session_components.py``: its admin tool, resource and prompt are
disabled server-wide; ``unlock`` shows them to the calling session alone, ``hide_echo`` (a
sync tool, on a worker thread) hides ``echo`` from it. Two sessions of one server (in memory,
and over HTTP on a real uvicorn) show that only the session that changed its rules sees the
change, and only it is told (``notifications/*/list_changed``); over stdio, one session.
2026-07-28 has no sessions: over HTTP the call is refused with an ``isError`` result and
nothing changes; a stdio or in-memory connection (one client) holds the rules itself. Every message is checked against the schema of the revision in use.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
from collections.abc import AsyncIterator
from typing import Any

import pytest

from servers.live_peer import load
from toolwire import Client, ServerError

from http_server import serve_http
from wire import MODERN, SERVERS, checked_client

pytestmark = pytest.mark.timeout(60)

LEGACY = "2025-11-25"
SCRIPT = SERVERS / "session_components.py"
EVERYONE_TOOLS = ["echo", "unlock", "hide_echo", "reset", "publish"]
CHANGED = {
    "tools": "notifications/tools/list_changed",
    "resources": "notifications/resources/list_changed",
    "prompts": "notifications/prompts/list_changed",
}


@contextlib.asynccontextmanager
async def two_sessions(transport: str, revision: str) -> AsyncIterator[tuple[Client, Client]]:
    """Two sessions of one server (memory, http), or of two processes of it (stdio)."""
    async with contextlib.AsyncExitStack() as stack:
        if transport == "memory":
            server = load("session_components").mcp
            targets: list[Any] = [server, server]
        elif transport == "http":
            url = stack.enter_context(serve_http(load("session_components").mcp))
            targets = [url, url]
        else:
            targets = [[sys.executable, str(SCRIPT)]] * 2
        clients = [
            await stack.enter_async_context(checked_client(target, revision)) for target in targets
        ]
        for client in clients:
            client.arrived = watched(client)  # type: ignore[attr-defined]
        yield clients[0], clients[1]
        for client in clients:
            assert client.checker.client_issues == []  # type: ignore[attr-defined]


def changes(client: Client) -> list[str]:
    wanted = set(CHANGED.values())
    return [n["method"] for n in client.notifications if n["method"] in wanted]


def watched(client: Client) -> asyncio.Event:
    """An event set on each notification ``client`` receives."""
    arrived = asyncio.Event()
    handle = client._notification

    async def noted(message: dict[str, Any]) -> None:
        await handle(message)
        arrived.set()

    client._notification = noted  # type: ignore[method-assign]
    return arrived


async def until(client: Client, expected: list[str]) -> None:
    """Wait (10 s at most) until ``client`` has received the list changes ``expected``: a
    change every session gets travels on HTTP's GET stream, which a round trip does not
    wait for."""
    arrived = client.arrived  # type: ignore[attr-defined]

    async def wait() -> None:
        while len(changes(client)) < len(expected):
            arrived.clear()
            await arrived.wait()

    await asyncio.wait_for(wait(), 10)
    assert changes(client) == expected


async def tool_names(client: Client) -> list[str]:
    return [tool["name"] for tool in await client.list_tools()]


async def sync_point(client: Client) -> None:
    """A round trip: notifications sent before its answer have arrived once it is back."""
    await client.request("tools/list")


async def refused(call: Any) -> ServerError:
    with pytest.raises(ServerError) as info:
        await call
    return info.value


@pytest.mark.parametrize("transport", ["memory", "http", "stdio"])
async def test_a_session_unlocks_components_for_itself_alone(transport: str) -> None:
    async with two_sessions(transport, LEGACY) as (mine, other):
        for client in (mine, other):
            assert await tool_names(client) == EVERYONE_TOOLS
            assert [r["uri"] for r in await client.list_resources()] == ["docs://readme"]
            assert await client.list_prompts() == []

        assert (await mine.call_tool("unlock")).text == "unlocked"
        await sync_point(mine)
        # Told once per list whose visible set changed, and only this session.
        assert sorted(changes(mine)) == sorted(CHANGED.values())
        assert await tool_names(mine) == ["echo", "drop_table", *EVERYONE_TOOLS[1:]]
        assert (await mine.call_tool("drop_table", {"name": "t"})).text == "dropped t"
        uris = [r["uri"] for r in await mine.list_resources()]
        assert uris == ["admin://audit", "docs://readme"]
        assert (await mine.read_resource("admin://audit")).text == "audit log"
        assert [p["name"] for p in await mine.list_prompts()] == ["incident"]
        prompt = await mine.get_prompt("incident", {"summary": "disk full"})
        assert "disk full" in str(prompt.messages)

        await sync_point(other)
        assert changes(other) == []
        assert await tool_names(other) == EVERYONE_TOOLS
        error = await refused(other.call_tool("drop_table", {"name": "t"}))
        assert error.code == -32602 and "Unknown tool: 'drop_table'" in error.message
        error = await refused(other.read_resource("admin://audit"))
        assert error.code == -32002
        error = await refused(other.get_prompt("incident", {"summary": "x"}))
        assert error.code == -32602

        # A sync tool, on a worker thread, hides a tool from its own session.
        assert (await mine.call_tool("hide_echo")).text == "hidden"
        await sync_point(mine)
        assert changes(mine).count(CHANGED["tools"]) == 2
        assert "echo" not in await tool_names(mine)
        error = await refused(mine.call_tool("echo", {"text": "hi"}))
        assert "Unknown tool: 'echo'" in error.message
        assert (await other.call_tool("echo", {"text": "hi"})).text == "hi"

        # Forgetting the rules: back to what every session sees.
        assert (await mine.call_tool("reset")).text == "reset"
        await sync_point(mine)
        assert await tool_names(mine) == EVERYONE_TOOLS
        assert len(changes(mine)) == 3 + 1 + 3
        await sync_point(other)
        assert changes(other) == []
        if transport != "stdio":  # one server: a change for everyone reaches the other too
            assert (await mine.call_tool("publish")).text == "published"
            # ...after anything sent to it before: it was never told of the session's changes
            await until(other, [CHANGED["resources"], CHANGED["prompts"]])


@pytest.mark.parametrize("transport", ["memory", "http"])
async def test_a_rule_that_changes_nothing_sends_nothing(transport: str) -> None:
    async with two_sessions(transport, LEGACY) as (mine, other):
        assert (await mine.call_tool("reset")).text == "reset"
        await sync_point(mine)
        await sync_point(other)
        assert changes(mine) == changes(other) == []


@pytest.mark.parametrize("transport", ["memory", "http"])
async def test_resources_and_prompts_are_enabled_for_everyone_like_tools(transport: str) -> None:
    async with two_sessions(transport, LEGACY) as (mine, other):
        assert (await mine.call_tool("publish")).text == "published"
        for client in (mine, other):
            await until(client, [CHANGED["resources"], CHANGED["prompts"]])
            uris = [r["uri"] for r in await client.list_resources()]
            assert uris == ["admin://audit", "docs://readme"]
            assert [p["name"] for p in await client.list_prompts()] == ["incident"]
            assert (await client.read_resource("admin://audit")).text == "audit log"


async def test_2026_07_28_over_http_has_no_session_to_hold_the_rules() -> None:
    async with two_sessions("http", MODERN) as (client, _):
        result = await client.call_tool("unlock")
        assert result.is_error
        assert "needs a session" in result.text and "2026-07-28" in result.text
        assert "HTTP" in result.text and "enable_tool" in result.text
        assert await tool_names(client) == EVERYONE_TOOLS
        error = await refused(client.call_tool("drop_table", {"name": "t"}))
        assert error.code == -32602


@pytest.mark.parametrize("transport", ["memory", "stdio"])
async def test_2026_07_28_over_one_connection_the_connection_holds_the_rules(
    transport: str,
) -> None:
    """A stdio (or in-memory) connection has one client: on 2026-07-28 its rules live with
    it, as a legacy session's do, and no other connection sees them."""
    async with two_sessions(transport, MODERN) as (mine, other):
        await mine.listen()  # told of tool list changes alone
        await other.listen()
        assert (await mine.call_tool("unlock")).text == "unlocked"
        await sync_point(mine)
        assert changes(mine) == [CHANGED["tools"]]
        assert await tool_names(mine) == ["echo", "drop_table", *EVERYONE_TOOLS[1:]]
        assert (await mine.call_tool("drop_table", {"name": "t"})).text == "dropped t"
        assert (await mine.read_resource("admin://audit")).text == "audit log"
        listed = await mine.request("tools/list")
        assert listed["cacheScope"] == "private"  # it is this connection's listing
        assert await tool_names(other) == EVERYONE_TOOLS
        error = await refused(other.call_tool("drop_table", {"name": "t"}))
        assert error.code == -32602
        assert (await mine.call_tool("hide_echo")).text == "hidden"
        assert "echo" not in await tool_names(mine)
        assert (await mine.call_tool("reset")).text == "reset"
        assert await tool_names(mine) == EVERYONE_TOOLS
        await sync_point(mine)
        assert changes(mine) == [CHANGED["tools"]] * 3  # on its listen stream
        await sync_point(other)
        assert changes(other) == []


async def test_rules_are_checked() -> None:
    from toolwire.server.components.visibility import rule

    with pytest.raises(ValueError, match="Name the components"):
        rule(True, (), (), None)
    with pytest.raises(ValueError, match="Unknown component kinds"):
        rule(True, "x", (), "tool")
    assert rule(False, "x", "admin", "tools") == (
        False,
        frozenset({"x"}),
        frozenset({"admin"}),
        frozenset({"tools"}),
    )
