"""A server in FastMCP 3's style, using the features its users reach for most: ToolResult,
versions and tags with enable/disable, per-session state, elicit(response_type=...),
prompts and resources as tools, Tool.from_function, run_async. tests/interop/test_fastmcp_style.py runs it on
FastMCP itself and on toolwire after ``toolwire migrate``."""

import asyncio
from dataclasses import dataclass

from fastmcp import Context, FastMCP
from fastmcp.server.elicitation import (
    AcceptedElicitation,
    CancelledElicitation,
    DeclinedElicitation,
)
from fastmcp.server.transforms import PromptsAsTools, ResourcesAsTools
from fastmcp.tools import Tool
from fastmcp.tools.tool import ToolResult

mcp = FastMCP("fastmcp-style")


@dataclass
class Person:
    name: str
    age: int


@mcp.tool
def report(rows: int) -> ToolResult:
    """Count the rows of the report."""
    return ToolResult(
        content=f"{rows} rows",
        structured_content={"rows": rows, "complete": True},
        meta={"source": "report"},
    )


@mcp.tool
def summary(rows: int) -> ToolResult:
    """Only structured content: its JSON is the text."""
    return ToolResult(structured_content={"rows": rows})


@mcp.tool(name="convert", version="1.0")
def convert_v1(amount: float) -> str:
    """Convert an amount (first version)."""
    return f"{amount} USD"


@mcp.tool(name="convert", version="2.0")
def convert_v2(amount: float, currency: str = "EUR") -> str:
    """Convert an amount into a currency."""
    return f"{amount} {currency}"


@mcp.tool(tags={"admin"})
def reset() -> str:
    """Reset everything (disabled below)."""
    return "reset"


@mcp.tool(tags={"beta"})
def preview() -> str:
    """A preview, disabled and enabled again."""
    return "preview"


@mcp.tool
async def remember(key: str, value: str, ctx: Context) -> str:
    """Keep a value for this session."""
    await ctx.set_state(key, value)
    return f"kept {key}"


@mcp.tool
async def recall(key: str, ctx: Context) -> str:
    """A value kept for this session."""
    return f"{key} is {await ctx.get_state(key)}"


@mcp.tool
async def same_session(ctx: Context) -> str:
    """Whether the session id is the one of the call before."""
    before = await ctx.get_state("session")
    await ctx.set_state("session", ctx.session_id)
    return "same" if before == ctx.session_id else "new"


def _said(answer: object) -> str:
    if isinstance(answer, AcceptedElicitation):
        return f"accepted {answer.data!r}"
    if isinstance(answer, DeclinedElicitation):
        return "declined"
    if isinstance(answer, CancelledElicitation):
        return "cancelled"
    return "unknown"


@mcp.tool
async def ask_name(ctx: Context) -> str:
    """Ask for a name (a str)."""
    return _said(await ctx.elicit("What is your name?", response_type=str))


@mcp.tool
async def ask_age(ctx: Context) -> str:
    """Ask for an age (an int)."""
    return _said(await ctx.elicit("How old are you?", response_type=int))


@mcp.tool
async def ask_ok(ctx: Context) -> str:
    """Ask for a yes or no (a bool)."""
    return _said(await ctx.elicit("Shall we go on?", response_type=bool))


@mcp.tool
async def ask_color(ctx: Context) -> str:
    """Ask to pick a color (a list of choices)."""
    return _said(await ctx.elicit("Which color?", response_type=["red", "blue"]))


@mcp.tool
async def ask_person(ctx: Context) -> str:
    """Ask for a person (a dataclass)."""
    answer = await ctx.elicit("Who are you?", response_type=Person)
    if isinstance(answer, AcceptedElicitation):
        return f"{answer.data.name} is {answer.data.age}"
    return _said(answer)


@mcp.tool
async def ask_confirm(ctx: Context) -> str:
    """Ask for a bare confirmation (None)."""
    return _said(await ctx.elicit("Confirm?", response_type=None))


@mcp.tool
async def ask_declined(ctx: Context) -> str:
    """A question the user declines."""
    return _said(await ctx.elicit("Decline this", response_type=str))


@mcp.tool
async def ask_cancelled(ctx: Context) -> str:
    """A question the user cancels."""
    return _said(await ctx.elicit("Cancel this", response_type=str))


@mcp.resource("data://greeting")
def greeting() -> str:
    """A greeting."""
    return "Hello from the resource"


@mcp.resource("data://internal", tags={"internal"})
def internal() -> str:
    """Hidden by mcp.disable(tags={"internal"}, components={"resource"})."""
    return "internal"


@mcp.resource("user://{user_id}/profile")
def profile(user_id: str) -> str:
    """A user's profile."""
    return f"profile of {user_id}"


@mcp.prompt
def review(code: str, language: str = "python") -> str:
    """Review some code."""
    return f"Review this {language} code:\n{code}"


@mcp.prompt(tags={"internal"})
def secret_prompt() -> str:
    """Stays listed: the switch below hides only resources."""
    return "secret"


async def lookup(word: str, ctx: Context, limit: int = 2) -> str:
    """Registered by mcp.add_tool(Tool.from_function(...)), a Context among its parameters."""
    await ctx.info(f"looking up {word}")
    return f"{word}: {limit} meanings"


mcp.add_tool(Tool.from_function(lookup, name="define", description="Define a word."))

mcp.disable(tags={"admin"})
mcp.disable(names={"preview"})
mcp.enable(names={"preview"})
mcp.disable(tags={"internal"}, components={"resource"})
mcp.add_transform(PromptsAsTools(mcp))
mcp.add_transform(ResourcesAsTools(mcp))


if __name__ == "__main__":
    asyncio.run(mcp.run_async(transport="stdio", show_banner=False))
