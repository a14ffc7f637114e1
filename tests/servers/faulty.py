"""A server whose tools fail in the ways that take servers down: tools that crash their
thread or the event loop, tools that never return, and calls still running at shutdown.

``build(record, ...)`` returns a fresh ``Server`` (the HTTP tests serve it in process);
run as a script it serves stdio, or HTTP with ``--http`` (``mcp.run(transport="http")``
on a free port, announced by uvicorn's "Uvicorn running on ..." line on stderr).

Tools that keep running announce themselves with a progress notification whose message
is ``started <key>`` (the caller sends a progress token), so a test knows a call is under
way without sleeping. ``record(event)`` notes what happened on the server side; as a
script it appends to the file given with ``--record``.

Options: ``--record PATH``, ``--grace S`` (shutdown_grace), ``--workers N`` (max_workers),
``--tool-timeout S``, ``--http``.
"""

from __future__ import annotations

import _thread
import argparse
import asyncio
import contextlib
import ctypes
import sys
import threading
import time
from collections.abc import AsyncIterator, Callable
from typing import Literal

from toolwire import Context, Server

Record = Callable[[str], None]
Kind = Literal["exit", "interrupt", "custom", "thread-exit"]
SAFETY_S = 10.0  # a tool meant to be stopped gives up on its own after this long


class Doom(BaseException):
    """A library's own BaseException, as some use to unwind a thread."""


def raise_kind(kind: str) -> None:
    if kind == "exit":
        sys.exit(3)
    if kind == "interrupt":
        raise KeyboardInterrupt
    if kind == "thread-exit":
        _thread.exit()  # SystemExit, the way the thread API spells it
    raise Doom("secret: /srv/db.sqlite?password=hunter2")


def raise_into(thread_id: int, exc: type[BaseException]) -> bool:
    """What thread-killing timeout helpers do: raise ``exc`` inside another thread."""
    done = ctypes.pythonapi.PyThreadState_SetAsyncExc(
        ctypes.c_ulong(thread_id), ctypes.py_object(exc)
    )
    return bool(done == 1)


def build(
    record: Record,
    *,
    grace: float = 2.0,
    workers: int = 4,
    tool_timeout: float | None = None,
) -> Server:
    barriers: dict[tuple[str, int], threading.Barrier] = {}
    barriers_lock = threading.Lock()
    armed: list[int] = []

    @contextlib.asynccontextmanager
    async def lifespan(server: Server) -> AsyncIterator[None]:
        record("lifespan:enter")
        try:
            yield
        finally:
            record("lifespan:exit")

    mcp = Server(
        "faulty",
        version="0.0.1",
        lifespan=lifespan,
        shutdown_grace=grace,
        max_workers=workers,
        tool_timeout=tool_timeout,
    )

    def announce(ctx: Context, key: str) -> None:
        ctx.report_progress(0, message=f"started {key}")

    # ------------------------------------------------------------ quick ones

    @mcp.tool()
    async def echo(text: str) -> str:
        """Return the text."""
        return text

    @mcp.tool(blocking=True, timeout=SAFETY_S)
    def meet(group: str, parties: int) -> str:
        """Wait on a worker thread until ``parties`` calls of ``group`` run at the same time."""
        with barriers_lock:
            barrier = barriers.setdefault((group, parties), threading.Barrier(parties))
        barrier.wait(timeout=SAFETY_S)
        return "met"

    # ------------------------------------------------------------ crashes

    @mcp.tool(blocking=True)
    def crash(kind: Kind) -> str:
        """Raise a BaseException that is not an Exception, on a worker thread."""
        raise_kind(kind)
        return "unreachable"

    @mcp.tool(blocking=False)
    def crash_inline(kind: Kind) -> str:
        """Raise it on the event loop's thread (a sync tool declared non-blocking)."""
        raise_kind(kind)
        return "unreachable"

    @mcp.tool()
    async def crash_async(kind: Kind) -> str:
        """Raise it in an async tool."""
        raise_kind(kind)
        return "unreachable"

    @mcp.tool(timeout=30)
    async def crash_async_timed(kind: Kind) -> str:
        """Raise it in an async tool with a timeout (it runs in a task of its own)."""
        raise_kind(kind)
        return "unreachable"

    @mcp.tool(blocking=True)
    def runaway() -> str:
        """A runaway computation that a watchdog stops by raising into its thread."""
        spinning = threading.Event()
        me = threading.get_ident()

        def watchdog() -> None:
            if spinning.wait(SAFETY_S):
                raise_into(me, Doom)

        threading.Thread(target=watchdog, daemon=True).start()
        deadline = time.monotonic() + SAFETY_S
        count = 0
        while time.monotonic() < deadline:
            count += 1
            if count == 1000:
                spinning.set()
        return "never stopped"

    @mcp.tool(blocking=True)
    def arm() -> str:
        """Leave a watchdog behind on this worker thread (one that fires after the call)."""
        armed.append(threading.get_ident())
        return "armed"

    @mcp.tool()
    async def fire() -> int:
        """Let the watchdogs left behind fire: each raises into a worker between calls."""
        fired = sum(raise_into(ident, Doom) for ident in armed)
        armed.clear()
        return fired

    # ------------------------------------------------------------ calls that never return

    @mcp.tool(blocking=True)
    def stuck(key: str, ctx: Context) -> str:
        """Block a worker thread for good, deaf to ctx.cancelled."""
        record(f"start:{key}")
        announce(ctx, key)
        threading.Event().wait()
        return "unreachable"

    @mcp.tool()
    async def stubborn(key: str, ctx: Context) -> str:
        """Run until the process ends, swallowing every cancellation."""
        announce(ctx, key)
        while True:
            try:
                await asyncio.sleep(3600)
            except asyncio.CancelledError:
                record(f"ignored-cancel:{key}")

    @mcp.tool()
    async def stuck_in_thread(key: str, ctx: Context) -> str:
        """Await a thread (asyncio.to_thread) that never finishes."""
        announce(ctx, key)
        await asyncio.to_thread(threading.Event().wait)
        return "unreachable"

    @mcp.tool(blocking=True)
    def watch(key: str, ctx: Context) -> str:
        """Work on a worker thread until ctx.cancelled turns true (or the safety limit)."""
        announce(ctx, key)
        deadline = time.monotonic() + SAFETY_S
        while not ctx.cancelled and time.monotonic() < deadline:
            time.sleep(0.005)
        record(f"saw-cancelled:{key}:{ctx.cancelled}")
        return f"watched {key}"

    @mcp.tool()
    async def waiting(key: str, ctx: Context) -> str:
        """Wait until cancelled (or the safety limit)."""
        announce(ctx, key)
        try:
            await asyncio.sleep(SAFETY_S)
        except asyncio.CancelledError:
            record(f"cancelled:{key}")
            raise
        record(f"not-cancelled:{key}")
        return f"waited {key}"

    # ------------------------------------------------------------ slow but finite

    @mcp.tool()
    async def nap(key: str, seconds: float, ctx: Context) -> str:
        """Take ``seconds`` (async), then answer."""
        announce(ctx, key)
        await asyncio.sleep(seconds)
        record(f"done:{key}")
        return f"napped {key}"

    @mcp.tool(blocking=True)
    def nap_sync(key: str, seconds: float, ctx: Context) -> str:
        """Take ``seconds`` on a worker thread, then answer."""
        announce(ctx, key)
        time.sleep(seconds)
        record(f"done:{key}")
        return f"napped {key}"

    return mcp


def _file_recorder(path: str | None) -> Record:
    lock = threading.Lock()

    def record(event: str) -> None:
        if path is None:
            return
        with lock, open(path, "a", encoding="utf-8") as file:
            file.write(event + "\n")

    return record


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--record")
    parser.add_argument("--grace", type=float, default=2.0)
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument("--tool-timeout", type=float)
    parser.add_argument("--http", action="store_true")
    options = parser.parse_args()
    server = build(
        _file_recorder(options.record),
        grace=options.grace,
        workers=options.workers,
        tool_timeout=options.tool_timeout,
    )
    if options.http:
        server.run(transport="http", port=0, log_level="info")
    else:
        server.run()
    _file_recorder(options.record)("run:returned")
