"""The upstream server of tests/test_proxy.py: progress, logs, questions, roots, a call that
waits to be cancelled, a tool that adds a tool (list_changed) and one that crashes."""

from __future__ import annotations

import asyncio
import os

from pydantic import BaseModel

from toolwire import Context, Server, ToolError

mcp = Server("proxied")
cancelled = asyncio.Event()
released = asyncio.Event()
roots_changes: asyncio.Queue[list[str]] = asyncio.Queue()


class Name(BaseModel):
    name: str


@mcp.tool()
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


@mcp.tool()
async def steps(count: int, ctx: Context) -> str:
    """Report progress and log each step."""
    for step in range(1, count + 1):
        await ctx.info(f"step {step}")
        await ctx.report_progress(step, count, f"step {step} of {count}")
    return f"{count} steps"


@mcp.tool()
async def greet(ctx: Context) -> str:
    """Ask the user's name."""
    answer = await ctx.elicit("Your name?", Name)
    return f"Hello {answer.data.name}" if answer.action == "accept" else answer.action


@mcp.tool()
async def greet_when_released(ctx: Context) -> str:
    """Ask the user's name once ``release`` is called (it says it is waiting with a
    progress notification)."""
    await ctx.report_progress(0, None, "waiting")
    await released.wait()
    released.clear()
    answer = await ctx.elicit("Your name?", Name)
    return f"Hello {answer.data.name}" if answer.action == "accept" else answer.action


@mcp.tool()
def release() -> str:
    """Let greet_when_released ask."""
    released.set()
    return "released"


@mcp.tool()
async def roots(ctx: Context) -> list[str]:
    """The client's roots."""
    return [root.uri for root in await ctx.list_roots()]


@mcp.on_roots_changed
def heard_roots(roots: list) -> None:
    roots_changes.put_nowait([root.uri for root in roots])


@mcp.tool()
async def changed_roots() -> list[str]:
    """The client's roots as they were when it last said they changed (waits up to 10 s)."""
    return await asyncio.wait_for(roots_changes.get(), 10)


@mcp.tool()
async def think(ctx: Context) -> str:
    """Ask the client's model."""
    answer = await ctx.sample("Say something", max_tokens=20)
    return f"model said: {answer.text}"


@mcp.tool()
async def wait_forever(ctx: Context) -> str:
    """Wait until cancelled (it says it started with a progress notification)."""
    await ctx.report_progress(1, None, "started")
    try:
        await asyncio.Event().wait()
    except asyncio.CancelledError:
        cancelled.set()
        raise
    return "never"


@mcp.tool()
async def wait_logged(ctx: Context) -> str:
    """Wait until cancelled (it says it started with a log message)."""
    await ctx.info("started")
    try:
        await asyncio.Event().wait()
    except asyncio.CancelledError:
        cancelled.set()
        raise
    return "never"


@mcp.tool()
async def was_cancelled() -> bool:
    """Whether a wait_forever call was cancelled (waits up to 10 s for it)."""
    try:
        await asyncio.wait_for(cancelled.wait(), 10)
    except asyncio.TimeoutError:
        return False
    return True


@mcp.tool()
def grow() -> str:
    """Add a tool (the tool list changes)."""
    mcp.add_tool(lambda: "new", name="grown", description="A grown tool.")
    return "grown"


@mcp.tool()
def fail() -> str:
    """Fail with a tool error."""
    raise ToolError("it failed")


@mcp.tool()
def crash() -> str:
    """Exit the process at once."""
    os._exit(3)


@mcp.resource("notes://first", mime_type="text/plain")
def first() -> str:
    """The first note."""
    return "first note"


NAMES = ("monday", "tuesday", "wednesday")


@mcp.resource(
    "notes://{name}/text",
    mime_type="text/plain",
    complete={"name": lambda value: [n for n in NAMES if n.startswith(value)]},
)
def note(name: str) -> str:
    """A note by name."""
    return f"note {name}"


@mcp.tool()
def add_note(name: str) -> str:
    """Add a resource (the resource list changes)."""
    mcp.add_resource(f"note {name}", f"notes://{name}", mime_type="text/plain")
    return name


@mcp.tool()
def touch(uri: str) -> str:
    """Say that a resource changed (its subscribers are told)."""
    mcp.resource_updated(uri)
    return uri


@mcp.prompt(complete={"text": lambda value: [t for t in ("brief", "long") if t.startswith(value)]})
def summarize(text: str) -> str:
    """Summarize a text."""
    return f"Summarize: {text}"


if __name__ == "__main__":
    mcp.run()
