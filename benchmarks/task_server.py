"""The server of ``task_roundtrip.py``: ``add`` as an ordinary tool, and the same function as
task tools (Tasks extension): ``add_task`` (sync, never blocks) and ``add_async_task``
(async, ends at once), both answered with their result as nothing is left to wait for, and
``add_later_task``, which waits one turn of the event loop: a task; stdio."""

import asyncio

from toolwire import Server

mcp = Server("task-bench")


@mcp.tool()
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


@mcp.tool(task="optional")
def add_task(a: int, b: int) -> int:
    """Add two numbers, as a task."""
    return a + b


@mcp.tool(task="optional")
async def add_async_task(a: int, b: int) -> int:
    """Add two numbers, as a task of an async tool."""
    return a + b


@mcp.tool(task="optional")
async def add_later_task(a: int, b: int) -> int:
    """Add two numbers after one turn of the event loop, as a task."""
    await asyncio.sleep(0)
    return a + b


if __name__ == "__main__":
    mcp.run()
