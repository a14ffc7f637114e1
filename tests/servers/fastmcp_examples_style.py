"""A server in FastMCP's style with what FastMCP's published examples use beyond
fastmcp3_style.py: components in files (``FileSystemProvider`` and the standalone ``@tool``,
``@resource``, ``@prompt`` of ``fastmcp_components/``), the skill folders of
``fastmcp_skills/`` (``SkillsDirectoryProvider``), mounting with ``namespace=``,
``ctx.transport`` and ``ctx.session_id`` with per-session state, and per-session visibility
(``ctx.enable_components`` and ``ctx.reset_visibility``). tests/interop/test_fastmcp_examples_style.py runs it on FastMCP
itself and on toolwire after ``toolwire migrate``."""

from pathlib import Path

from fastmcp import Context, FastMCP
from fastmcp.server.providers import FileSystemProvider
from fastmcp.server.providers.skills import SkillsDirectoryProvider

weather = FastMCP("weather")


@weather.tool
def forecast(city: str) -> str:
    """The forecast for a city."""
    return f"Sunny in {city}"


@weather.resource("weather://today", mime_type="text/plain")
def today() -> str:
    """Today's weather."""
    return "sunny"


components = FileSystemProvider(root=Path(__file__).parent / "fastmcp_components")
mcp = FastMCP("fastmcp-examples", providers=[components])
mcp.mount(weather, namespace="weather")
mcp.add_provider(SkillsDirectoryProvider(roots=Path(__file__).parent / "fastmcp_skills"))


@mcp.tool
async def session_info(ctx: Context) -> dict[str, str | None]:
    """How this session came, and whether it has an id."""
    return {"transport": ctx.transport, "session": "yes" if ctx.session_id else "no"}


@mcp.tool
async def remember(key: str, value: str, ctx: Context) -> str:
    """Keep a value for this session, with the session's id."""
    await ctx.set_state(key, value)
    await ctx.set_state("session", ctx.session_id)
    return f"kept {key}"


@mcp.tool
async def recall(key: str, ctx: Context) -> str:
    """A value kept for this session, and whether the session id is the one it was kept in."""
    same = await ctx.get_state("session") == ctx.session_id
    return f"{key} is {await ctx.get_state(key)} ({'same' if same else 'another'} session)"


@mcp.tool(tags={"namespace:finance"})
def quote(symbol: str) -> str:
    """A price (hidden until finance is activated)."""
    return f"{symbol} at 150.25"


@mcp.tool
async def activate_finance(ctx: Context) -> str:
    """Show the finance tools to this session."""
    await ctx.enable_components(tags={"namespace:finance"})
    return "finance activated"


@mcp.tool
async def deactivate_all(ctx: Context) -> str:
    """Back to what every session sees."""
    await ctx.reset_visibility()
    return "all deactivated"


mcp.disable(tags={"namespace:finance"})


if __name__ == "__main__":
    mcp.run(show_banner=False)  # FastMCP's banner on stderr: off
