"""A server whose tool set changes while it runs, with tag filters and a visibility rule.

``build()`` makes a fresh server (in-memory tests); run as a script it serves stdio.

* ``echo``, ``add_dynamic(names)`` (adds tools in one burst), ``remove_dynamic(names)``,
  ``churn()`` (adds, removes, disables and enables in one burst), ``set_enabled(name, enabled)``
  (a sync tool on a worker thread), ``hidden_echo`` (registered disabled).
* ``debug_dump`` is tagged ``internal`` (and ``admin``): the server excludes ``internal``.
* ``build(include_tags=[...])`` / ``--include-tags a,b`` keeps only tools with one of those
  tags (the exclusion still wins).
* ``admin_reset`` is tagged ``admin``: only clients named ``admin`` (clientInfo) see it.
* ``beta_search`` is tagged ``beta``: only requests whose ``_meta`` has ``example.com/beta: true``
  see it (2026-07-28 requests carry ``_meta`` on every request).
* ``page_size=2``, so listings are paginated after filtering.
"""

from __future__ import annotations

import argparse
from typing import Any

from toolwire import Server

BETA_KEY = "example.com/beta"


def visible(tool: Any, request: Any) -> bool:
    """The request-dependent part of visibility: who is asking, and what they asked for."""
    if "admin" in tool.tags:
        return (request.client_info or {}).get("name") == "admin"
    if "beta" in tool.tags:
        return (request.meta or {}).get(BETA_KEY) is True
    return True


def _dynamic(name: str) -> Any:
    def dynamic(x: int = 0) -> str:
        return f"{name}:{x}"

    dynamic.__doc__ = f"The dynamic tool {name}."
    return dynamic


def build(include_tags: list[str] | None = None) -> Server:
    mcp = Server(
        "live-tools",
        version="0.0.1",
        page_size=2,
        include_tags=include_tags,
        exclude_tags={"internal"},
        visibility=visible,
    )

    @mcp.tool()
    def echo(text: str) -> str:
        """Return the text unchanged."""
        return text

    @mcp.tool()
    async def add_dynamic(names: list[str]) -> str:
        """Register one tool per name, all in one burst."""
        for name in names:
            mcp.add_tool(_dynamic(name), name=name)
        return f"added {len(names)}"

    @mcp.tool(tags={"beta"})
    def beta_search(query: str) -> str:
        """Search (beta testers only)."""
        return f"found {query}"

    @mcp.tool()
    async def remove_dynamic(names: list[str]) -> str:
        """Unregister the named tools, all in one burst."""
        for name in names:
            mcp.remove_tool(name)
        return f"removed {len(names)}"

    @mcp.tool()
    async def churn() -> str:
        """Add, remove, disable and enable in one burst (the list ends as it started)."""
        mcp.add_tool(_dynamic("scratch"), name="scratch")
        mcp.remove_tool("scratch")
        mcp.disable_tool("echo")
        mcp.enable_tool("echo")
        return "churned"

    @mcp.tool(blocking=True)
    def set_enabled(name: str, enabled: bool) -> str:
        """Enable or disable a tool from a worker thread."""
        if enabled:
            mcp.enable_tool(name)
        else:
            mcp.disable_tool(name)
        return f"{name} {'enabled' if enabled else 'disabled'}"

    @mcp.tool()
    def hidden_echo(text: str) -> str:
        """Like echo, but registered disabled."""
        return text

    mcp.disable_tool("hidden_echo")

    @mcp.tool(tags={"internal", "admin"})
    def debug_dump() -> str:
        """Internal state (never listed: the server excludes the internal tag)."""
        return "secret internals"

    @mcp.tool(tags={"admin"})
    def admin_reset() -> str:
        """Reset everything (admins only)."""
        return "reset"

    return mcp


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--include-tags", default=None, help="comma-separated tags")
    options = parser.parse_args()
    build(options.include_tags.split(",") if options.include_tags else None).run()
