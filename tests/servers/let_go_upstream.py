"""The upstream server of tests/test_proxy_let_go.py: a call that lets its stream go and
then waits until another call releases it."""

from __future__ import annotations

import asyncio

from toolwire import Context, Server

mcp = Server("let-go upstream")
released = asyncio.Event()


@mcp.tool()
def echo(text: str) -> str:
    """Say it back."""
    return text


@mcp.tool()
async def hold(ctx: Context, retry_ms: int | None = None) -> str:
    """Let this call's stream go, then wait for ``release``."""
    let_go = ctx.close_sse_connection(retry_ms)
    await released.wait()
    return f"answered after the let-go (let go: {let_go})"


@mcp.tool()
async def release() -> str:
    """Let ``hold`` answer."""
    released.set()
    return "released"


if __name__ == "__main__":
    mcp.run()
