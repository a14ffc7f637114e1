"""The mounting server of tests/test_mount.py and tests/test_transforms.py: a toolwire
server mounted with a prefix, a proxy of tests/servers/proxy_upstream.py (a stdio
subprocess) mounted with another, and transforms on a local, a mounted and a proxied tool."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from toolwire import Context, Server
from toolwire.composition.transforms import Arg

UPSTREAM = [sys.executable, str(Path(__file__).with_name("proxy_upstream.py"))]


class City(BaseModel):
    city: str


weather = Server("weather")


@weather.tool()
async def forecast(city: str, days: int = 1, ctx: Context | None = None) -> dict[str, Any]:
    """The forecast for a city."""
    assert ctx is not None
    await ctx.info(f"forecast for {city}")
    for day in range(1, days + 1):
        await ctx.report_progress(day, days, f"day {day}")
    return {"city": city, "days": days, "sky": "clear"}


@weather.tool()
async def where(ctx: Context) -> str:
    """Ask the user which city."""
    answer = await ctx.elicit("Which city?", City)
    return f"Weather for {answer.data.city}" if answer.action == "accept" else answer.action


@weather.tool(tags={"internal"})
def secret() -> str:
    """Hidden by the mounting server's visibility."""
    return "secret"


@weather.resource("weather://today", mime_type="text/plain")
def today() -> str:
    """Today's weather."""
    return "sunny"


CITIES = ("oslo", "paris", "rome")


@weather.resource(
    "weather://{city}/week", complete={"city": lambda v: [c for c in CITIES if c.startswith(v)]}
)
def week(city: str) -> str:
    """A week of weather in a city."""
    return f"a week of sun in {city}"


@weather.prompt(complete={"city": lambda v: [c.title() for c in CITIES if c.startswith(v)]})
def plan(city: str) -> str:
    """Plan a day out."""
    return f"Plan a day out in {city}"


mcp = Server(
    "main",
    visibility=lambda tool, request: "internal" not in tool.tags,
)
calls: list[str] = []


@mcp.add_middleware
async def record(call: Any, call_next: Any) -> Any:
    if call.tool_name is not None:
        calls.append(call.tool_name)
    return await call_next(call)


@mcp.tool()
def search(query: str, kind: str = "any", limit: int = 10) -> dict[str, Any]:
    """Search the catalogue."""
    return {"query": query, "kind": kind, "limit": limit}


@mcp.tool()
def seen() -> list[str]:
    """The tools the middleware saw called."""
    return calls


@mcp.tool()
def grow_weather(name: str) -> str:
    """Add a tool to the mounted weather server (its list changes)."""
    weather.add_tool(lambda: f"I am {name}", name=name, description="A grown tool.")
    return name


@mcp.tool()
def shrink_weather(name: str) -> str:
    """Disable a tool of the mounted weather server."""
    weather.disable_tool(name)
    return name


@mcp.tool()
def touch_weather(uri: str) -> str:
    """Say that a resource of the mounted weather server changed (its own URI)."""
    weather.resource_updated(uri)
    return uri


mcp.mount(weather, prefix="weather")
mcp.mount(Server.proxy(UPSTREAM), prefix="up")

# a transform on a local tool, on a mounted one and on a proxied one
mcp.transform_tool(
    "search",
    name="find_books",
    description="Find books by title.",
    arguments={"query": Arg(name="title"), "kind": Arg(hide=True, value="book")},
)
mcp.transform_tool(
    "weather_forecast",
    name="paris_forecast",
    arguments={"city": Arg(hide=True, value="Paris"), "days": Arg(name="n", default=2)},
)


async def twice(arguments: dict[str, Any], original: Any) -> Any:
    first = await original(arguments)
    second = await original(arguments)
    return {"sums": [first["structuredContent"]["result"], second["structuredContent"]["result"]]}


mcp.transform_tool(
    "up_add",
    name="add_twice",
    title="Add, twice",
    wrap=twice,
    output_schema={
        "type": "object",
        "properties": {"sums": {"type": "array", "items": {"type": "integer"}}},
        "required": ["sums"],
    },
)

if __name__ == "__main__":
    mcp.run()
