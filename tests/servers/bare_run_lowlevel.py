"""The low-level server started the asyncio way at module level, no ``__main__`` guard:
``asyncio.run(server.run_stdio_async())``. Under ``toolwire`` the import ends there."""

from __future__ import annotations

import asyncio
from typing import Any

from toolwire import types
from toolwire.lowlevel import Server

server = Server("bare-lowlevel")


@server.list_tools()
async def list_tools() -> list[types.Tool]:
    schema = {"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}}}
    return [types.Tool(name="add", description="Add two numbers.", inputSchema=schema)]


@server.call_tool()
async def call_tool(name: str, arguments: dict[str, Any]) -> list[types.TextContent]:
    total = arguments["a"] + arguments["b"]
    return [types.TextContent(type="text", text=str(total))]


asyncio.run(server.run_stdio_async())
