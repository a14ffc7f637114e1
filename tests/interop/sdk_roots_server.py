"""A server built on the official MCP Python SDK (test-only) whose tool asks for the client's
roots: a ``roots/list`` request on legacy revisions, an ``InputRequiredResult`` on 2026-07-28."""

from __future__ import annotations

import sys
from typing import Annotated

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.resolve import ListRoots, Resolve
from mcp_types import ListRootsResult

server = MCPServer("official-sdk-roots-server")


def ask_for_roots() -> ListRoots:
    return ListRoots()


@server.tool()
def roots(found: Annotated[ListRootsResult, Resolve(ask_for_roots)]) -> str:
    """The client's roots, one ``uri|name`` a line."""
    return "\n".join(f"{root.uri}|{root.name or ''}" for root in found.roots)


if __name__ == "__main__":
    server.run(sys.argv[1] if len(sys.argv) > 1 else "stdio")
