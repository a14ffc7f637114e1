"""A toolwire HTTP worker sharing its sessions through Redis, for the scale-out tests.

Run as ``http_scale.py --fd N --redis redis://127.0.0.1:PORT/0``: serves ``/mcp`` on the
already-listening socket N with a :class:`RedisStore`, so several of these processes behind a
load balancer serve the same sessions.

* ``whoami()`` — this worker's process id (tells which worker answered); it also logs
  one ``info`` message, so a client's log level shows which worker knows it.
* ``add_tool_named(name)`` — registers a tool at run time (a tool-list change).
* ``progress_then_wait(n)`` — sends ``n`` progress notifications, then waits until cancelled,
  so its SSE stream stays open.
* ``add(a, b)``.
* ``touch_board()`` — announces an update of the resource ``board://status``.
* ``add_note(name)`` — registers the resource ``notes://NAME`` (a resource-list change).
* ``long_job(seconds)`` — a task (2026-07-28, Tasks declared) that works ``seconds`` and
  returns the process id of the worker that ran it.
* ``confirmed_job()`` — a task that asks for a confirmation first.
* ``resumable_job(seconds)`` — ``long_job`` declared ``resumable``: a worker that stops or
  dies before it ends hands it over, and another runs it again.
"""

from __future__ import annotations

import argparse
import asyncio
import os

import uvicorn
from pydantic import BaseModel

from toolwire import Context, Server
from toolwire.transports.store.stores import RedisStore


class Confirmation(BaseModel):
    go: bool


def build(shutdown_grace: float = 2.0) -> Server:
    mcp = Server("http-scale", version="0.0.1", shutdown_grace=shutdown_grace)

    @mcp.tool()
    async def whoami(ctx: Context) -> int:
        """The process id of the worker that runs this call (also logged at info level)."""
        await ctx.info(f"whoami on worker {os.getpid()}")
        return os.getpid()

    @mcp.tool()
    def add_tool_named(name: str) -> str:
        """Register a new tool called ``name``."""

        def added() -> str:
            return name

        added.__doc__ = f"The tool {name}, added at run time."
        mcp.add_tool(added, name=name)
        return name

    @mcp.tool()
    async def progress_then_wait(n: int, ctx: Context) -> str:
        """Send n progress notifications, then wait until the call is cancelled."""
        for step in range(1, n + 1):
            await ctx.report_progress(step, total=n, message=f"step {step}")
        await asyncio.Event().wait()  # until cancelled (the stream's client or the worker goes)
        return "never"

    @mcp.tool()
    def add(a: int, b: int) -> int:
        """Add two numbers together."""
        return a + b

    @mcp.resource("board://status")
    def status() -> str:
        """The board's status line."""
        return f"served by worker {os.getpid()}"

    @mcp.tool()
    def touch_board() -> str:
        """Say that board://status changed (to its subscribers, on every worker)."""
        mcp.resource_updated("board://status")
        return "touched"

    @mcp.tool(task="optional")
    async def long_job(seconds: float) -> int:
        """Work for a while, as a task; the pid of the worker that ran it."""
        await asyncio.sleep(seconds)
        return os.getpid()

    @mcp.tool(task="optional", resumable=True)
    async def resumable_job(seconds: float) -> int:
        """Work for a while, as a task that may run again elsewhere; the pid of the worker
        that ran it to its end."""
        await asyncio.sleep(seconds)
        return os.getpid()

    @mcp.tool(task="optional")
    async def confirmed_job(ctx: Context) -> str:
        """Ask for a confirmation, then finish, as a task."""
        answer = await ctx.elicit("Go on?", Confirmation, key="go")
        confirmed = answer.action == "accept" and answer.data.go
        return f"{'confirmed' if confirmed else 'stopped'} on worker {os.getpid()}"

    @mcp.tool()
    def add_note(name: str) -> str:
        """Register the resource notes://NAME at run time (a resource-list change)."""
        mcp.add_resource(f"note {name}", f"notes://{name}")
        return name

    return mcp


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--fd", type=int, required=True, help="a listening socket to serve on")
    parser.add_argument("--redis", required=True, help="redis://127.0.0.1:PORT/0")
    parser.add_argument(
        "--follow-timeout", type=float, default=30.0, help="how long a writer unknown is awaited"
    )
    parser.add_argument(
        "--grace", type=float, default=2.0, help="what calls and tasks get on SIGTERM (seconds)"
    )
    options = parser.parse_args()
    store = RedisStore(options.redis, follow_timeout=options.follow_timeout)
    app = build(options.grace).http_app(store=store)
    uvicorn.run(app, fd=options.fd, log_level="warning", lifespan="on")


if __name__ == "__main__":
    main()
