"""A small server for wire-level tests: one of each kind of tool."""

import asyncio
import sys

from pydantic import BaseModel

from toolwire import Server, ToolError

mcp = Server("wire-test", version="1.2.3", instructions="Tools for tests.")


@mcp.tool(annotations={"readOnlyHint": True}, title="Add")
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@mcp.tool()
def shout(text: str) -> str:
    """Print to stdout (which must not reach the protocol stream) and return upper case."""
    print("this goes to stderr, not the protocol stream")
    sys.stdout.write("so does this\n")
    return text.upper()


class Point(BaseModel):
    x: int
    y: int


@mcp.tool()
def point(x: int, y: int) -> Point:
    """A structured result."""
    return Point(x=x, y=y)


@mcp.tool()
async def sleep(seconds: float) -> str:
    """Sleep, then answer."""
    await asyncio.sleep(seconds)
    return f"slept {seconds}"


@mcp.tool()
def refuse(reason: str) -> str:
    """Always fails with a ToolError."""
    raise ToolError(reason)


if __name__ == "__main__":
    mcp.run()
