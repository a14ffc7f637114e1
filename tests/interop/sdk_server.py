"""A server built on the official MCP Python SDK (test-only), for toolwire's client to talk to."""

from __future__ import annotations

import sys

from mcp.server.mcpserver import MCPServer
from pydantic import BaseModel

server = MCPServer("official-sdk-server")


class Stats(BaseModel):
    count: int
    mean: float


@server.tool()
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@server.tool()
def stats(values: list[float]) -> Stats:
    """Count and mean of some numbers."""
    return Stats(count=len(values), mean=sum(values) / len(values))


@server.tool()
def fail(message: str) -> str:
    """Always fails."""
    raise ValueError(message)


if __name__ == "__main__":
    server.run(sys.argv[1] if len(sys.argv) > 1 else "stdio")
