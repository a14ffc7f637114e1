"""A toolwire HTTP server for the bounds-and-fairness probes (tests/abuse/test_bounds.py).

Run as ``abuse_bounds_server.py --fd N [--redis URL] [--option name=value ...]``: serves
``/mcp`` on the already-listening socket N; each ``--option`` is passed to
``mcp.http_app(...)`` (an integer or a float value), ``--server-option`` to ``Server(...)``.
Without ``--fd`` it serves stdio.

* ``add(a, b)`` — the ordinary client's call.
* ``work(ms)`` — waits ``ms`` milliseconds (a call that takes a while, as real tools do).
* ``counts(settled, started)`` — how many ``work`` calls started, finished and were
  cancelled; first waits (up to 10 s) until at least ``settled`` of them have finished or
  been cancelled and ``started`` have started.
* ``report(n)`` — sends ``n`` progress notifications, then answers (an SSE answer).
* ``hold()`` — reports progress once, then waits until the call is cancelled or the
  server stops (a stream that stays open).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
from typing import Any

from toolwire import Context, Server


def build(**options: Any) -> Server:
    mcp = Server("abuse-bounds", version="0.0.1", **options)

    @mcp.tool()
    def add(a: int, b: int) -> int:
        """Add two numbers together."""
        return a + b

    tally = {"started": 0, "finished": 0, "cancelled": 0}
    changed = asyncio.Condition()

    async def count(key: str) -> None:
        tally[key] += 1
        async with changed:
            changed.notify_all()

    @mcp.tool()
    async def work(ms: int) -> str:
        """Take ``ms`` milliseconds to answer."""
        await count("started")
        try:
            await asyncio.sleep(ms / 1000)
        except asyncio.CancelledError:
            await asyncio.shield(count("cancelled"))
            raise
        await count("finished")
        return "done"

    @mcp.tool()
    async def counts(settled: int = 0, started: int = 0) -> dict[str, int]:
        """Calls of work started, finished and cancelled (once ``settled`` have ended and
        ``started`` have started)."""

        def enough() -> bool:
            ended = tally["finished"] + tally["cancelled"]
            return ended >= settled and tally["started"] >= started

        async def wait() -> None:
            async with changed:
                await changed.wait_for(enough)

        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(wait(), 10.0)
        return dict(tally)

    @mcp.tool()
    async def report(n: int, ctx: Context) -> str:
        """Send n progress notifications, then answer."""
        for step in range(1, n + 1):
            await ctx.report_progress(step, total=n)
        return "reported"

    @mcp.tool()
    async def hold(ctx: Context) -> str:
        """Report progress once, then wait until cancelled."""
        await ctx.report_progress(1, total=None, message="holding")
        await asyncio.Event().wait()
        return "never"

    return mcp


def _values(pairs: list[str]) -> dict[str, Any]:
    options: dict[str, Any] = {}
    for pair in pairs:
        name, _, text = pair.partition("=")
        options[name] = float(text) if "." in text else int(text)
    return options


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--fd", type=int, help="a listening socket to serve on (else stdio)")
    parser.add_argument("--redis", help="redis://127.0.0.1:PORT/0: share sessions through Redis")
    parser.add_argument("--option", action="append", default=[], help="http_app option=value")
    parser.add_argument("--server-option", action="append", default=[], help="Server option")
    args = parser.parse_args()
    server = build(**_values(args.server_option))
    if args.fd is None:
        server.run()
        return
    options = _values(args.option)
    if args.redis:
        from toolwire.transports.store.stores import RedisStore

        options["store"] = RedisStore(args.redis)
    import socket

    import uvicorn

    # A socket object that knows it is TCP (uvicorn's own fd= takes it for a Unix socket),
    # so asyncio sets TCP_NODELAY and no answer waits for a delayed ACK.
    sock = socket.socket(fileno=args.fd)
    config = uvicorn.Config(server.http_app(**options), log_level="warning", lifespan="on")
    uvicorn.Server(config).run(sockets=[sock])


if __name__ == "__main__":
    main()
