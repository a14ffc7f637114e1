"""A toolwire HTTP worker for the stream-and-store abuse tests (tests/abuse/test_streams.py).

``abuse_streams_worker.py --fd N [--redis URL] [--follow-timeout S] [--store-timeout S]``
serves ``/mcp`` on the already-listening socket N, sharing its sessions through Redis when
``--redis`` is given. ``abuse_streams_worker.py --run [--grace S]`` serves with
``mcp.run(transport="http", port=0)`` instead (the graceful SIGTERM path), memory store.

* ``steps(n, delay, pause=0)`` — reports progress ``n`` times, ``delay`` seconds apart, waits
  ``pause`` seconds more, then returns
  ``"done after n steps"`` (a slow call whose stream is worth resuming).
* ``nap(seconds)`` — sleeps, then returns ``"napped"`` (no progress: answered as JSON).
* ``echo(text)``.
"""

from __future__ import annotations

import argparse
import asyncio

from toolwire import Context, Server
from toolwire.transports.store.stores import RedisStore


def build(grace: float = 2.0) -> Server:
    mcp = Server("abuse-streams", version="0.0.1", shutdown_grace=grace)

    @mcp.tool()
    async def steps(n: int, delay: float, ctx: Context, pause: float = 0.0) -> str:
        """Report progress n times, delay seconds apart, pause, then answer."""
        for step in range(1, n + 1):
            await ctx.report_progress(step, total=n, message=f"step {step}")
            await asyncio.sleep(delay)
        await asyncio.sleep(pause)
        return f"done after {n} steps"

    @mcp.tool()
    async def nap(seconds: float) -> str:
        """Sleep, then answer."""
        await asyncio.sleep(seconds)
        return "napped"

    @mcp.tool()
    def echo(text: str) -> str:
        """Echo the text back."""
        return text

    return mcp


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--fd", type=int)
    parser.add_argument("--redis")
    parser.add_argument("--follow-timeout", type=float, default=30.0)
    parser.add_argument("--store-timeout", type=float, default=2.0)
    parser.add_argument("--run", action="store_true")
    parser.add_argument("--grace", type=float, default=2.0)
    options = parser.parse_args()
    mcp = build(options.grace)
    if options.run:
        mcp.run(transport="http", port=0, log_level="info")
        return
    import socket

    import uvicorn

    store = None
    if options.redis:
        store = RedisStore(
            options.redis, follow_timeout=options.follow_timeout, timeout=options.store_timeout
        )
    app = mcp.http_app(store=store)
    print("worker ready", flush=True)
    # A socket object that knows it is TCP (uvicorn's own fd= takes it for a Unix socket),
    # so asyncio sets TCP_NODELAY and no answer waits for a delayed ACK.
    sock = socket.socket(fileno=options.fd)
    config = uvicorn.Config(app, log_level="warning", lifespan="on")
    uvicorn.Server(config).run(sockets=[sock])


if __name__ == "__main__":
    main()
