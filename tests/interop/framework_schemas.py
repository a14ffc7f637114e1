"""Run by the interpreter of the FastMCP virtualenv (tests/interop/peers.py): publish the
functions of tests/schema_corpus.py with the official SDK's ``MCPServer`` and with FastMCP,
and print {framework: {tool name: input schema, or {"error": why it was refused}}} as JSON."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from schema_corpus import SIGNATURES


async def _official() -> dict[str, Any]:
    from mcp.server.mcpserver import MCPServer

    out: dict[str, Any] = {}
    for fn in SIGNATURES:
        server = MCPServer("corpus")
        try:
            server.tool()(fn)
            (tool,) = await server.list_tools()
            out[fn.__name__] = tool.input_schema
        except Exception as exc:
            out[fn.__name__] = {"error": f"{type(exc).__name__}: {exc}"[:300]}
    return out


async def _fastmcp() -> dict[str, Any]:
    from fastmcp import FastMCP

    out: dict[str, Any] = {}
    for fn in SIGNATURES:
        server = FastMCP("corpus")
        try:
            server.tool(fn)
            (tool,) = await server.list_tools()
            out[fn.__name__] = tool.parameters
        except Exception as exc:
            out[fn.__name__] = {"error": f"{type(exc).__name__}: {exc}"[:300]}
    return out


async def main() -> None:
    result = {"mcp (MCPServer)": await _official(), "FastMCP": await _fastmcp()}
    json.dump(result, sys.stdout, default=str)


if __name__ == "__main__":
    asyncio.run(main())
