"""The tool runtime test server: context, progress, logging, cancellation, timeouts,
concurrency, lifespan and cleanup.

``build(record, ...)`` returns a fresh ``Server``; the tests use it in memory and run this
file as a stdio subprocess. ``record(event)`` notes what happened on the server side
(lifespan entered, a ``finally`` ran, a context manager exited); in memory it appends to a
list, over stdio to the file given with ``--record``.

Tools that run until stopped announce themselves with a progress notification whose
message is ``started <request id as JSON>`` (the test passes a progress callback), so a
test knows a call is running, and which id to cancel, without sleeping. ``flag(name)``
events are set when a tool's clean-up has run; ``wait_flag`` lets a test wait for one
through an ordinary call.

Options (argv): ``--record PATH``, ``--tool-timeout S``, ``--max-concurrent N``,
``--grace S``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import logging
import threading
import time
from collections import defaultdict
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

from toolwire import Context, Server
from toolwire.server.context import current_context

Record = Callable[[str], None]

FORWARDED_LOGGER = "runtime.app"
OTHER_LOGGER = "runtime.other"
BUSY_WAIT_S = 5.0  # a busy call waits at most this long for the others to fill every slot
STOP_WAIT_S = 10.0  # a tool waiting to be stopped gives up after this long


def build(
    record: Record,
    *,
    tool_timeout: float | None = None,
    max_concurrent_calls: int = 10,
    grace: float = 0.5,
    client_log_level: str | None = "debug",
) -> Server:
    """A fresh server; ``record`` sees the server-side events the tests assert on."""
    flags: defaultdict[str, threading.Event] = defaultdict(threading.Event)
    flags_lock = threading.Lock()
    state: dict[str, Any] = {"leaked": None}
    busy_lock = threading.Lock()
    busy_now = {"async": 0, "sync": 0}
    busy_max = {"async": 0, "sync": 0}
    busy_calls = {"async": 0, "sync": 0}
    busy_full = threading.Event()
    busy_full_async: dict[str, asyncio.Event] = {}

    def flag(name: str) -> threading.Event:
        with flags_lock:
            return flags[name]

    @contextlib.asynccontextmanager
    async def lifespan(server: Server) -> AsyncIterator[dict[str, Any]]:
        record("lifespan:enter")
        db = {"name": "runtime-db", "queries": 0}
        try:
            yield {"db": db}
        finally:
            record(f"lifespan:exit:{db['queries']}")

    @contextlib.contextmanager
    def resource(key: str) -> Iterator[str]:
        record(f"open:{key}")
        try:
            yield key
        finally:
            record(f"close:{key}")

    @contextlib.asynccontextmanager
    async def async_resource(key: str) -> AsyncIterator[str]:
        record(f"open:{key}")
        try:
            yield key
        finally:
            record(f"close:{key}")

    def announce(ctx: Context) -> None:
        ctx.report_progress(0, message=f"started {json.dumps(ctx.request_id)}")

    mcp = Server(
        "runtime",
        version="0.0.1",
        lifespan=lifespan,
        tool_timeout=tool_timeout,
        max_concurrent_calls=max_concurrent_calls,
        shutdown_grace=grace,
        client_log_level=client_log_level,
    )
    mcp.forward_logging(FORWARDED_LOGGER)

    # ------------------------------------------------------------ context

    def describe(ctx: Context) -> dict[str, Any]:
        return {
            "request_id": ctx.request_id,
            "protocol_version": ctx.protocol_version,
            "client_info": ctx.client_info,
            "client_capabilities": ctx.client_capabilities,
            "meta_keys": sorted(ctx.meta),
            "progress_token": ctx.progress_token,
            "cancelled": ctx.cancelled,
            "current_is_ctx": current_context() is ctx,
            "request_context_matches": (
                ctx.request_context.request_id == ctx.request_id
                and ctx.request_context.meta == ctx.meta
                and ctx.request_context.lifespan_context is ctx.lifespan_context
            ),
        }

    @mcp.tool()
    async def whoami(ctx: Context) -> dict[str, Any]:
        """Describe the calling request as the tool's context sees it."""
        return describe(ctx)

    @mcp.tool(blocking=True)
    def whoami_sync(ctx: Context) -> dict[str, Any]:
        """whoami from a worker thread."""
        return describe(ctx)

    @mcp.tool()
    def greet(ctx: Context, name: str, punctuation: str = "!") -> str:
        """Greet someone (the context comes first and is still not an argument)."""
        assert current_context() is ctx
        return f"Hello, {name}{punctuation}"

    # ------------------------------------------------------------ progress

    @mcp.tool()
    async def count_up(steps: int, ctx: Context) -> str:
        """Report progress 1..steps, with a repeat and a step back that must be dropped."""
        for step in range(1, steps + 1):
            await ctx.report_progress(step, total=steps, message=f"step {step}")
            if step == 2:
                await ctx.report_progress(2, total=steps, message="repeat")  # not above: dropped
                ctx.report_progress(1.5, message="backwards")  # below: dropped
        return f"counted to {steps}"

    @mcp.tool(blocking=True)
    def count_up_sync(steps: int, ctx: Context) -> str:
        """count_up from a worker thread, reporting without await."""
        for step in range(1, steps + 1):
            ctx.report_progress(step / 2, total=steps / 2, message=f"step {step}")
            if step == 2:
                ctx.report_progress(0.5, message="backwards")
        return f"counted to {steps}"

    @mcp.tool()
    async def leak(ctx: Context) -> str:
        """Keep this call's context after answering (as a careless background task would)."""
        state["leaked"] = ctx
        await ctx.report_progress(1, message="before the answer")
        return "leaked"

    @mcp.tool()
    async def poke_leaked() -> str:
        """Report progress and log through the context of a call that already answered."""
        leaked: Context = state["leaked"]
        leaked.report_progress(1000, message="after the answer")
        leaked.critical("after the answer")
        return "poked"

    # ------------------------------------------------------------ logging

    @mcp.tool()
    async def speak(ctx: Context) -> str:
        """Log once at every level, awaited or not."""
        await ctx.debug("debug message")
        ctx.info("info message")
        await ctx.notice("notice message")
        ctx.warning("warning message")
        await ctx.error("error message")
        ctx.critical("critical message")
        await ctx.log("alert", {"structured": True}, logger_name="runtime.speak")
        ctx.log("emergency", "emergency message")
        return "spoke"

    @mcp.tool(blocking=True)
    def speak_sync(ctx: Context) -> str:
        """speak from a worker thread."""
        for level in ("debug", "info", "notice", "warning", "error", "critical"):
            getattr(ctx, level)(f"{level} message")
        ctx.log("alert", {"structured": True}, logger_name="runtime.speak")
        ctx.log("emergency", "emergency message")
        return "spoke"

    @mcp.tool()
    async def python_logging() -> str:
        """Log through Python's logging; only the forwarded logger reaches the client."""
        forwarded = logging.getLogger(FORWARDED_LOGGER)
        forwarded.debug("python debug")
        forwarded.info("python info")
        forwarded.warning("python warning")
        forwarded.error("python error %s", 42)
        logging.getLogger(OTHER_LOGGER).error("not forwarded")
        return "logged"

    @mcp.tool(blocking=True)
    def python_logging_sync() -> str:
        """python_logging from a worker thread."""
        forwarded = logging.getLogger(FORWARDED_LOGGER)
        forwarded.info("python info")
        forwarded.warning("python warning")
        logging.getLogger(OTHER_LOGGER).error("not forwarded")
        return "logged"

    # ------------------------------------------------------------ running until stopped

    @mcp.tool()
    async def hang(key: str, ctx: Context) -> str:
        """Run until cancelled; record the CancelledError and the clean-up."""
        record(f"start:{key}")
        try:
            async with async_resource(key):
                announce(ctx)
                await asyncio.Event().wait()
        except asyncio.CancelledError:
            record(f"cancelled:{key}")
            raise
        finally:
            record(f"finally:{key}")
            flag(f"{key}:done").set()
        return "never"

    @mcp.tool()
    async def stubborn(key: str, ctx: Context) -> str:
        """Catch the cancellation, try to report and log about it, and return anyway."""
        announce(ctx)
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            record(f"caught:{key}:{ctx.cancelled}")
            await ctx.report_progress(99, message="cleaning up")
            await ctx.critical("cleaning up after the cancel")
            logging.getLogger(FORWARDED_LOGGER).critical("forwarded after the cancel")
            return "finished anyway"
        finally:
            flag(f"{key}:done").set()
        return "never"

    @mcp.tool(blocking=True)
    def hang_sync(key: str, ctx: Context) -> str:
        """Run on a worker thread until ``ctx.cancelled`` becomes true."""
        record(f"start:{key}")
        try:
            with resource(key):
                announce(ctx)
                stop = flag(f"{key}:stop")
                for _ in range(int(STOP_WAIT_S / 0.01)):
                    if ctx.cancelled or stop.wait(0.01):
                        break
                record(f"saw-cancelled:{key}:{ctx.cancelled}")
        finally:
            flag(f"{key}:done").set()
        return "stopped"

    @mcp.tool(timeout=0.5)
    async def hang_timed(key: str, ctx: Context) -> str:
        """hang, with a timeout of its own."""
        return await hang(key, ctx)

    @mcp.tool(timeout=0.5)
    def hang_sync_timed(key: str, ctx: Context) -> str:
        """hang_sync, with a timeout of its own."""
        return hang_sync(key, ctx)

    @mcp.tool(timeout=30)
    async def patient(seconds: float) -> str:
        """Take longer than a short server-wide timeout, within its own."""
        await asyncio.sleep(seconds)
        return f"took {seconds}"

    @mcp.tool(timeout=30)
    async def impatient() -> str:
        """Fail at once with the tool's own TimeoutError, well within its deadline."""
        raise TimeoutError("the upstream service did not answer")

    @mcp.tool()
    async def wait_flag(name: str) -> bool:
        """Wait until ``name`` is set (by a tool's clean-up); false if it never is."""
        return await asyncio.to_thread(flag(name).wait, STOP_WAIT_S)

    @mcp.tool()
    def set_flag(name: str) -> str:
        """Set ``name``."""
        flag(name).set()
        return name

    @mcp.tool()
    def echo(text: str) -> str:
        """Return the text."""
        return text

    # ------------------------------------------------------------ failures holding resources

    @mcp.tool(blocking=True)
    def fail_holding(key: str) -> str:
        """Open a resource, then fail with an expected error."""
        with resource(key):
            raise ValueError(f"{key} failed")

    @mcp.tool()
    async def fail_holding_async(key: str) -> str:
        """Open an async resource, then fail with an unexpected error."""
        async with async_resource(key):
            raise RuntimeError(f"{key} exploded")

    # ------------------------------------------------------------ lifespan

    @mcp.tool()
    async def use_db(ctx: Context) -> dict[str, Any]:
        """Query the database the lifespan opened."""
        db = ctx.lifespan_context["db"]
        db["queries"] += 1
        return {
            "name": db["name"],
            "queries": db["queries"],
            "same": ctx.request_context.lifespan_context is ctx.lifespan_context,
        }

    @mcp.tool(blocking=True)
    def use_db_sync(ctx: Context) -> dict[str, Any]:
        """use_db from a worker thread."""
        db = ctx.request_context.lifespan_context["db"]
        with busy_lock:
            db["queries"] += 1
            return {"name": db["name"], "queries": db["queries"], "same": True}

    # ------------------------------------------------------------ concurrency

    def enter_busy(kind: str, limit: int) -> bool:
        with busy_lock:
            busy_now[kind] += 1
            busy_calls[kind] += 1
            busy_max[kind] = max(busy_max[kind], busy_now[kind])
            return busy_now[kind] >= limit

    def leave_busy(kind: str) -> None:
        with busy_lock:
            busy_now[kind] -= 1

    @mcp.tool()
    async def busy(n: int, limit: int) -> int:
        """Hold a slot until ``limit`` calls are in flight at once, then a little longer."""
        full = busy_full_async.setdefault("event", asyncio.Event())
        try:
            if enter_busy("async", limit):
                full.set()
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(full.wait(), BUSY_WAIT_S)
            await asyncio.sleep(0.002)  # calls beyond the limit would overlap here
        finally:
            leave_busy("async")
        return n

    @mcp.tool(blocking=True)
    def busy_sync(n: int, limit: int) -> int:
        """busy on a worker thread."""
        try:
            if enter_busy("sync", limit):
                busy_full.set()
            busy_full.wait(BUSY_WAIT_S)
            time.sleep(0.002)
        finally:
            leave_busy("sync")
        return n

    @mcp.tool()
    def busy_stats() -> dict[str, dict[str, int]]:
        """Per kind (async, sync): the most busy calls seen in flight at once, and how many ran."""
        with busy_lock:
            return {"max": dict(busy_max), "calls": dict(busy_calls)}

    return mcp


def file_recorder(path: str) -> Record:
    lock = threading.Lock()

    def record(event: str) -> None:
        with lock, open(path, "a", encoding="utf-8") as out:
            out.write(event + "\n")

    return record


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--record", required=True)
    parser.add_argument("--tool-timeout", type=float, default=None)
    parser.add_argument("--max-concurrent", type=int, default=10)
    parser.add_argument("--grace", type=float, default=0.5)
    parser.add_argument("--client-log-level", default="debug")
    options = parser.parse_args()
    build(
        file_recorder(options.record),
        tool_timeout=options.tool_timeout,
        max_concurrent_calls=options.max_concurrent,
        grace=options.grace,
        client_log_level=None if options.client_log_level == "none" else options.client_log_level,
    ).run()
