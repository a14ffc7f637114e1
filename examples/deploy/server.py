"""The server every worker of the container recipe runs (compose.yaml): its sessions, event
logs and tasks live in the Redis the command line names, so any worker answers any request.

``whoami()`` says which worker answered; ``summarize(seconds)`` is a task that another
worker runs again if its own stops or dies before it ends (``resumable=True``).
"""

from __future__ import annotations

import asyncio
import os

from toolwire import Context, Server

mcp = Server("deployed", version="1.0.0")


@mcp.tool()
async def whoami() -> str:
    """The worker (host name and process id) that answered."""
    return f"{os.uname().nodename}:{os.getpid()}"


@mcp.tool(task="optional", resumable=True)
async def summarize(seconds: float, ctx: Context) -> str:
    """Work ``seconds`` (reporting progress), as a task that may run again elsewhere."""
    steps = max(1, int(seconds))
    for step in range(steps):
        await ctx.report_progress(step, steps)
        await asyncio.sleep(seconds / steps)
    return f"summarized on {os.uname().nodename}"
