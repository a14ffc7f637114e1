"""A toolwire HTTP worker for the health and readiness tests.

``--fd N --redis URL``: uvicorn serves the app on a listening socket, its sessions in Redis
(each command answered within a second, or the store counts as down).
``--drain-delay S``: ``mcp.run(transport="http")`` on a free port (it prints ``listening
PORT``); on SIGTERM it stays up, not ready, for S seconds (a second SIGINT cuts that short).
Both (``--drain-delay S --redis URL``): such a run with its sessions in Redis, one of
several workers behind a load balancer.

``hold`` says which worker (process id) runs it in its progress message.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import sys

from toolwire import Context, Server
from toolwire.transports.store.stores import RedisStore


def build() -> Server:
    mcp = Server("health", shutdown_grace=5.0)
    released = asyncio.Event()

    @mcp.tool()
    def add(a: int, b: int) -> int:
        """Add two numbers."""
        return a + b

    @mcp.tool()
    async def hold(ctx: Context) -> str:
        """Say it started, then wait until release is called."""
        await ctx.report_progress(0, 1, f"started {os.getpid()}")
        await released.wait()
        return "released"

    @mcp.tool()
    def release() -> str:
        """Let hold finish."""
        released.set()
        return "ok"

    return mcp


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--fd", type=int)
    parser.add_argument("--redis")
    parser.add_argument("--drain-delay", type=float)
    options = parser.parse_args()
    store = RedisStore(options.redis, timeout=1.0) if options.redis else None
    if store is not None and options.drain_delay is None:
        import uvicorn

        app = build().http_app(store=store)
        uvicorn.run(app, fd=options.fd, log_level="warning", lifespan="on")
        return
    logging.basicConfig(level=logging.WARNING, stream=sys.stdout, format="%(message)s")
    build().run(
        transport="http",
        port=0,
        drain_delay=options.drain_delay,
        **({"store": store} if store is not None else {}),
        on_listening=lambda host, port: print(f"listening {port}", flush=True),
    )


if __name__ == "__main__":
    main()
