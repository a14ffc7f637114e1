"""Tools that meet argument names they have no parameter for (``{"nite": ...}``).

``python unknown_args.py`` serves it over stdio; ``python unknown_args.py ignore`` (or
``ignore-all``) builds the server with ``unknown_arguments="ignore"`` (``"ignore-all"``).
"""

from __future__ import annotations

import sys
from typing import Any

from pydantic import BaseModel

from toolwire import Arg, Server


class Trip(BaseModel):
    city: str
    days: int = 1


def build(unknown_arguments: Any = "reject") -> Server:
    mcp = Server("unknown-args", unknown_arguments=unknown_arguments)

    @mcp.tool()
    def forecast(city: str, night: bool = False) -> str:
        """Weather for a city (the fast path: primitive parameters)."""
        return f"{city} at {'night' if night else 'day'}"

    @mcp.tool()
    def plan(trip: Trip, night: bool = False) -> str:
        """A trip (the pydantic path: a model parameter)."""
        return f"{trip.city} for {trip.days} days, night={night}"

    @mcp.tool(unknown_arguments="ignore")
    def lenient(city: str) -> str:
        """Drops what it does not know."""
        return city

    @mcp.tool(unknown_arguments="reject")
    def strict(city: str) -> str:
        """Refuses what it does not know, whatever the server's default."""
        return city

    @mcp.tool()
    def tagged(city: str, **labels: Any) -> str:
        """Takes any further names."""
        return f"{city} {sorted(labels.items())}"

    @mcp.tool()
    def traced(city: str, _trace: str = "-") -> str:
        """Has a parameter whose name starts with an underscore."""
        return f"{city} {_trace}"

    @mcp.tool()
    def search(query: str, _kind: str = "any") -> str:
        """Transformed below: ``_kind`` hidden with a fixed value."""
        return f"{query} ({_kind})"

    mcp.transform_tool(
        "search", name="find_books", arguments={"_kind": Arg(hide=True, value="book")}
    )

    @mcp.prompt()
    def greet(name: str) -> str:
        """A prompt with one argument."""
        return f"Hello {name}"

    return mcp


if __name__ == "__main__":
    build(sys.argv[1] if len(sys.argv) > 1 else "reject").run()
