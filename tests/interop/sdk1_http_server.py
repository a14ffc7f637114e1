"""A server on the official MCP Python SDK 1.x (``FastMCP``) over Streamable HTTP, run by the
interpreter of a virtualenv that has it: binds 127.0.0.1 on a free port, prints its URL on
stdout once it accepts connections, and serves until it is stopped."""

from __future__ import annotations

import socket

import uvicorn
from mcp.server.fastmcp import FastMCP

server = FastMCP("sdk-1-server")


@server.tool()
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


class Announced(uvicorn.Server):
    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets)
        port = self.servers[0].sockets[0].getsockname()[1]
        print(f"http://127.0.0.1:{port}/mcp", flush=True)


if __name__ == "__main__":
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    config = uvicorn.Config(server.streamable_http_app(), log_level="warning")
    Announced(config).run(sockets=[sock])
