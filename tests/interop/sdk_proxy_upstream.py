"""A server built on the official MCP Python SDK, for the proxy's interop tests: progress,
an elicitation and a call that waits to be cancelled."""

from __future__ import annotations

import sys

import anyio
from mcp.server.mcpserver import Context, MCPServer
from pydantic import BaseModel

server = MCPServer("official-sdk-upstream")


class Name(BaseModel):
    name: str


@server.tool()
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@server.tool()
async def steps(count: int, ctx: Context) -> str:
    """Report progress at each step."""
    for step in range(1, count + 1):
        await ctx.report_progress(step, count)
    return f"{count} steps"


@server.tool()
async def greet(ctx: Context) -> str:
    """Ask the user's name."""
    answer = await ctx.elicit("Your name?", Name)
    return f"Hello {answer.data.name}" if answer.action == "accept" else answer.action


@server.tool()
async def wait_forever(ctx: Context) -> str:
    """Say it started (progress), then wait until cancelled."""
    await ctx.report_progress(1)
    await anyio.sleep_forever()
    return "never"


if __name__ == "__main__":
    server.run(sys.argv[1] if len(sys.argv) > 1 else "stdio")
