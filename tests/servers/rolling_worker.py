"""A worker of the rolling-restart test, the same server however it is started: configured by
``ROLLING_REDIS`` (the shared Redis), ``ROLLING_DRAIN_DELAY`` and ``ROLLING_GRACE`` (seconds).

* ``python rolling_worker.py PORT``: ``mcp.run(transport="http", ...)``, which prints
  ``listening PORT`` once its port accepts connections;
* ``toolwire run rolling_worker.py --transport http --redis URL ...``: the module's ``mcp``;
* ``uvicorn rolling_app:app`` (``--workers N`` too): the HTTP app of ``rolling_app.py``.

Its tools:

* ``count(call_id)`` — counts one run of the call ``call_id`` in Redis (``rolling:runs:ID``)
  and returns ``"PID RUNS"``: a call run twice shows in Redis whatever its client saw.
* ``slow_count(call_id, seconds)`` — the same after ``seconds`` of work, as a task when the
  client declares Tasks.
"""

from __future__ import annotations

import asyncio
import os
import sys

import redis.asyncio as aioredis

from toolwire import Server
from toolwire.transports.store.stores import RedisStore

REDIS = os.environ["ROLLING_REDIS"]
DRAIN_DELAY = float(os.environ.get("ROLLING_DRAIN_DELAY", "0"))
GRACE = float(os.environ.get("ROLLING_GRACE", "2"))

counts = aioredis.Redis.from_url(REDIS)
mcp = Server("rolling", version="1.0.0", shutdown_grace=GRACE)


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


if __name__ == "__main__":
    mcp.run(
        transport="http",
        port=int(sys.argv[1]),
        drain_delay=DRAIN_DELAY,
        store=RedisStore(REDIS),
        on_listening=lambda host, port: print(f"listening {port}", flush=True),
    )
