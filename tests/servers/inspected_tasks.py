"""A server with a tool that runs as a task (Tasks extension), for the inspector's tests."""

import asyncio

from toolwire import Context, Server

mcp = Server("inspected-tasks", version="1.0.0")


@mcp.tool(task="optional")
async def crunch(ctx: Context, steps: int = 40, delay: float = 0.05) -> str:
    """Crunch numbers for a while, reporting each step."""
    for step in range(1, steps + 1):
        await asyncio.sleep(delay)
        ctx.report_progress(step, steps, f"step {step}")
    return f"crunched {steps} steps"
