"""A toolwire server as an ASGI app for a runner of the user's choice, as docs/deployment.md
shows it: ``uvicorn uvicorn_app:app`` (also with ``--workers N``, its sessions then shared
through the Redis at ``$TOOLWIRE_TEST_REDIS``).

``hold`` reports that it started, then answers once ``release`` is called (on the same
worker) or after ``seconds``.
"""

from __future__ import annotations

import asyncio
import os

from toolwire import Context, Server
from toolwire.transports.store.stores import RedisStore

mcp = Server("uvicorn-app", shutdown_grace=5.0)
released = asyncio.Event()


@mcp.tool()
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


@mcp.tool()
async def hold(seconds: float, ctx: Context) -> str:
    """Say it started, then wait until released or ``seconds`` passed."""
    await ctx.report_progress(0, 1, f"started {os.getpid()}")
    try:
        await asyncio.wait_for(released.wait(), seconds)
    except asyncio.TimeoutError:
        return "held"
    return "released"


redis = os.environ.get("TOOLWIRE_TEST_REDIS")
app = mcp.http_app(store=RedisStore(redis)) if redis else mcp.http_app()
