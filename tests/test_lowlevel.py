"""The low-level API (``@server.list_tools()`` / ``@server.call_tool()`` handlers, as in the
official SDK's tutorial) over memory and over a real stdio subprocess."""

from __future__ import annotations

import importlib.util
import logging
import re
import sys
from types import ModuleType
from typing import Any

import pytest

from toolwire import ServerError, types
from toolwire.lowlevel import Server
from toolwire.server.compat.lowlevel import to_call_result

from wire import SERVERS, checked_client

LEGACY = "2025-06-18"
MODERN = "2026-07-28"
SCRIPT = SERVERS / "lowlevel_tutorial.py"
MASKED = re.compile(r"Tool '(\w+)' failed with an internal error \(reference [0-9a-f]{8}\)")

# A dict result's text block: indented JSON, as the official SDK's low-level server writes it.
WEATHER_TEXT = '{\n  "temperature": 22.5,\n  "condition": "partly cloudy",\n  "humidity": 65\n}'


def text(value: str) -> dict[str, Any]:
    return {"type": "text", "text": value}


def body(raw: dict[str, Any]) -> dict[str, Any]:
    """A result without the modern envelope (resultType, serverInfo)."""
    out = {k: v for k, v in raw.items() if k not in ("resultType", "_meta")}
    return out


def load_tutorial() -> ModuleType:
    spec = importlib.util.spec_from_file_location("lowlevel_tutorial", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def tutorial() -> Server:
    server = load_tutorial().server
    assert isinstance(server, Server)
    return server


NUMBERS = {
    "type": "object",
    "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
    "required": ["a", "b"],
}


async def check_tutorial(client: Any, revision: str, *, stdio: bool) -> None:
    tools = {t["name"]: t for t in await client.list_tools()}
    assert list(tools) == ["add", "divide", "get_weather", "stats", "custom", "crash", "parse"]
    assert tools["add"] == {"name": "add", "description": "Add two numbers", "inputSchema": NUMBERS}
    assert tools["divide"] == {
        "name": "divide",
        "title": "Divide",
        "description": "Divide a by b",
        "inputSchema": NUMBERS,
        "annotations": {"readOnlyHint": True, "idempotentHint": True},
    }
    assert tools["get_weather"]["outputSchema"]["required"] == [
        "temperature",
        "condition",
        "humidity",
    ]

    result = await client.call_tool("add", {"a": 2, "b": 3})
    assert body(result.raw) == {"content": [text("5")]}
    result = await client.call_tool("divide", {"a": 1, "b": 4})
    assert body(result.raw) == {"content": [text("0.25")]}
    result = await client.call_tool("divide", {"a": 1, "b": 0})
    assert body(result.raw) == {"content": [text("Cannot divide by zero")], "isError": True}

    weather = {"temperature": 22.5, "condition": "partly cloudy", "humidity": 65}
    result = await client.call_tool("get_weather", {"city": "London"})
    assert body(result.raw) == {
        "content": [text(WEATHER_TEXT)],
        "structuredContent": weather,
    }
    result = await client.call_tool("stats", {"values": [1, 2, 3.5]})
    assert body(result.raw) == {
        "content": [text("3 values")],
        "structuredContent": {"sum": 6.5, "count": 3},
    }
    result = await client.call_tool("custom")
    assert body(result.raw) == {"content": [text("Quota exceeded")], "isError": True}

    for name in ("crash", "parse"):  # an unexpected error, and one from inside a library
        result = await client.call_tool(name)
        assert result.is_error and len(result.content) == 1
        match = MASKED.fullmatch(result.text)
        assert match and match.group(1) == name, result.text

    result = await client.call_tool("nope")
    assert body(result.raw) == {"content": [text("Unknown tool: nope")], "isError": True}
    if revision >= MODERN:
        assert result.raw["resultType"] == "complete"
        assert result.raw["_meta"]["io.modelcontextprotocol/serverInfo"] == {
            "name": "example-server",
            "version": "1.0.0",
        }


@pytest.mark.parametrize("revision", [LEGACY, MODERN])
async def test_tutorial_server_in_memory(
    tutorial: Server, revision: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.ERROR, logger="toolwire")
    async with checked_client(tutorial, revision) as client:
        await check_tutorial(client, revision, stdio=False)
    assert "secret connection string" in caplog.text  # the details went to the log


@pytest.mark.parametrize("revision", [LEGACY, MODERN])
async def test_tutorial_server_over_stdio(revision: str) -> None:
    async with checked_client([sys.executable, str(SCRIPT)], revision) as client:
        await check_tutorial(client, revision, stdio=True)


async def test_old_revisions_see_old_shapes(tutorial: Server) -> None:
    async with checked_client(tutorial, "2024-11-05") as client:
        tools = {t["name"]: t for t in await client.list_tools()}
        assert "title" not in tools["divide"] and "annotations" not in tools["divide"]
        assert "outputSchema" not in tools["get_weather"]
        result = await client.call_tool("get_weather", {"city": "Paris"})
        assert "structuredContent" not in result.raw
        assert result.content == [text(WEATHER_TEXT)]


async def test_sync_handlers_dict_definitions_and_pagination() -> None:
    server = Server("sync", page_size=2)

    @server.list_tools()
    def tools() -> list[Any]:
        return [
            {"name": "one", "inputSchema": {"type": "object"}},
            types.Tool(name="two", inputSchema={"type": "object"}),
            {"name": "three", "inputSchema": {"type": "object"}},
        ]

    @server.call_tool()
    def call(name: str, arguments: dict[str, Any]) -> Any:
        if name == "one":
            return "plain string"
        if name == "two":
            return None
        return [
            "text",
            types.ImageContent(type="image", data="iVBORw==", mimeType="image/png"),
            {"type": "text", "text": "a dict block"},
        ]

    async with checked_client(server, LEGACY) as client:
        first = await client.request("tools/list")
        assert [t["name"] for t in first["tools"]] == ["one", "two"]
        assert "nextCursor" in first
        assert [t["name"] for t in await client.list_tools()] == ["one", "two", "three"]
        assert (await client.call_tool("one")).raw == {"content": [text("plain string")]}
        assert (await client.call_tool("two")).raw == {"content": []}
        assert (await client.call_tool("three")).raw == {
            "content": [
                text("text"),
                {"type": "image", "data": "iVBORw==", "mimeType": "image/png"},
                text("a dict block"),
            ]
        }


async def test_a_server_without_handlers() -> None:
    server = Server("empty")
    async with checked_client(server, LEGACY) as client:
        assert await client.list_tools() == []
        with pytest.raises(ServerError) as info:
            await client.call_tool("anything")
        assert info.value.code == -32602


async def test_tool_error_and_mask_errors_false() -> None:
    from toolwire import ToolError

    server = Server("errors", mask_errors=False)

    @server.call_tool()
    async def call(name: str, arguments: dict[str, Any]) -> list[types.TextContent]:
        if name == "refuse":
            raise ToolError("No, not today.")
        raise RuntimeError("details for the developer")

    async with checked_client(server, MODERN) as client:
        result = await client.call_tool("refuse")
        assert body(result.raw) == {"content": [text("No, not today.")], "isError": True}
        result = await client.call_tool("boom")
        assert result.is_error
        assert result.text.startswith("RuntimeError: details for the developer (reference ")


def test_to_call_result_shapes() -> None:
    block = types.TextContent(type="text", text="a")
    assert to_call_result([block]) == {"content": [text("a")]}
    assert to_call_result({"k": 1}) == {
        "content": [text('{\n  "k": 1\n}')],  # indented, as the SDK writes it
        "structuredContent": {"k": 1},
    }
    assert to_call_result(([block], {"k": 1})) == {
        "content": [text("a")],
        "structuredContent": {"k": 1},
    }
    assert to_call_result(types.CallToolResult(content=[block])) == {"content": [text("a")]}
    assert to_call_result(None) == {"content": []}
    assert to_call_result(3) == {"content": [text("3")]}
