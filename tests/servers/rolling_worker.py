"""A worker of the rolling-restart test: ``mcp.run(transport="http")`` sharing a RedisStore.

Run as ``rolling_worker.py --redis URL [--port N] [--drain-delay S] [--grace S]``; prints
``listening PORT`` once its port (by default a free one) accepts connections.

* ``count(call_id)`` — counts one run of the call ``call_id`` in Redis (``rolling:runs:ID``)
  and returns ``"PID RUNS"``: a call run twice shows in Redis whatever its client saw.
* ``slow_count(call_id, seconds)`` — the same after ``seconds`` of work, as a task when the
  client declares Tasks.
"""

from __future__ import annotations

import argparse
import asyncio
import os

import redis.asyncio as aioredis

from toolwire import Server
from toolwire.transports.http_store import RedisStore


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--redis", required=True)
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--drain-delay", type=float, default=0.0)
    parser.add_argument("--grace", type=float, default=2.0)
    options = parser.parse_args()
    counts = aioredis.Redis.from_url(options.redis)
    mcp = Server("rolling", version="1.0.0", shutdown_grace=options.grace)

    @mcp.tool()
    async def count(call_id: str) -> str:
        """Count one run of this call."""
        runs = await counts.incr(f"rolling:runs:{call_id}")
        return f"{os.getpid()} {runs}"

    @mcp.tool(task="optional")
    async def slow_count(call_id: str, seconds: float) -> str:
        """Work ``seconds``, then count one run of this call."""
        await asyncio.sleep(seconds)
        runs = await counts.incr(f"rolling:runs:{call_id}")
        return f"{os.getpid()} {runs}"

    mcp.run(
        transport="http",
        port=options.port,
        drain_delay=options.drain_delay,
        store=RedisStore(options.redis),
        on_listening=lambda host, port: print(f"listening {port}", flush=True),
    )


if __name__ == "__main__":
    main()
