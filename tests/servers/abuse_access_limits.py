"""An HTTP server behind pre-shared tokens (``StaticTokens``) with a tight per-tool limit on
``search`` and a slow ``"*"`` rate for every other name, the setting in which a flood of
made-up tool names used to push a caller's real bucket out of the table.

Run as a script it serves HTTP on a free port (``mcp.run(transport="http", port=0)``); the
port is in uvicorn's "Uvicorn running on ..." line on stderr.
"""

from __future__ import annotations

from toolwire import Server
from toolwire.auth import AccessToken, ResourceServer, StaticTokens
from toolwire.server import RateLimiter

TOKENS = {
    "alice-token": AccessToken(subject="alice", scopes=frozenset({"mcp"})),
    "bob-token": AccessToken(subject="bob", scopes=frozenset({"mcp"})),
}

mcp = Server(
    "abuse-limits",
    auth=ResourceServer("http://127.0.0.1/mcp", [], StaticTokens(TOKENS)),
    rate_limits=RateLimiter(per_tool={"search": "3/hour", "*": "5/hour"}),
    # Large batches let the probe send its 110,000 names quickly; refused calls end at once.
    max_batch_size=5_000,
)


@mcp.tool()
def search(query: str) -> str:
    """Search for something."""
    return f"results for {query}"


if __name__ == "__main__":
    mcp.run(transport="http", port=0, log_level="info")
