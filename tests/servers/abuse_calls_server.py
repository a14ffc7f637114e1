"""A server for the call-admission abuse probes: tools that hang, and quick ones for victims.

Run as a script it serves stdio, or HTTP with ``--http`` (``mcp.run(transport="http")`` on
a free port, announced by uvicorn's "Uvicorn running on ..." line on stderr). With
``--lowlevel`` it is a :class:`toolwire.lowlevel.Server` whose sync ``call_tool`` handler
serves the same tools. Options: ``--tool-timeout S``, ``--total N`` (``max_concurrent_calls``),
``--per-caller N``
(``max_calls_per_caller``), ``--queued N`` (``max_queued_calls_per_caller``).

* ``hang(key)``: async; reports ``started <key>`` as progress, then waits forever.
* ``hang_sync(key)``: sync; reports ``started <key>``, then blocks its thread (60 s).
* ``turns_slow(seconds)``: sync; returns at once when ``seconds`` is 0, else blocks that long.
* ``add(a, b)``: the benchmark's tool; ``echo(text)``: a quick async tool; ``shout(text)``:
  a quick sync tool that calls a method.
"""

from __future__ import annotations

import argparse
import asyncio
import threading
import time
from typing import Any

from toolwire import Context, Server, types
from toolwire.lowlevel import Server as LowLevelServer

FOREVER = 60.0


def build(
    tool_timeout: float | None = None,
    per_caller: int | None = None,
    queued: int | None = None,
    total: int = 256,
) -> Server:
    options: dict[str, Any] = {"tool_timeout": tool_timeout, "max_concurrent_calls": total}
    if per_caller is not None:
        options["max_calls_per_caller"] = per_caller
    if queued is not None:
        options["max_queued_calls_per_caller"] = queued
    mcp = Server("abuse-calls", version="0.0.1", shutdown_grace=0.5, **options)

    @mcp.tool()
    async def hang(key: str, ctx: Context) -> str:
        """Report that it started, then wait forever."""
        await ctx.report_progress(0, message=f"started {key}")
        await asyncio.Event().wait()
        return "never"

    @mcp.tool()
    def hang_sync(key: str, ctx: Context) -> str:
        """Report that it started, then block the worker thread."""
        ctx.report_progress(0, message=f"started {key}")
        threading.Event().wait(FOREVER)
        return "never"

    @mcp.tool()
    def turns_slow(seconds: float) -> str:
        """Quick when seconds is 0; else block the calling thread that long."""
        if seconds:
            time.sleep(seconds)
        return f"slept {seconds:g}"

    @mcp.tool()
    async def echo(text: str) -> str:
        """The text back (async)."""
        return text

    @mcp.tool()
    def add(a: int, b: int) -> int:
        """Add two numbers."""
        return a + b

    @mcp.tool()
    def shout(text: str) -> str:
        """The text in capitals."""
        return text.upper()

    return mcp


def build_lowlevel(tool_timeout: float | None = None) -> LowLevelServer:
    server = LowLevelServer("abuse-calls-lowlevel", version="0.0.1", tool_timeout=tool_timeout)

    @server.list_tools()
    def list_tools() -> list[types.Tool]:
        number = {"type": "number"}
        return [
            types.Tool(
                name="turns_slow",
                inputSchema={"type": "object", "properties": {"seconds": number}},
            ),
            types.Tool(
                name="add",
                inputSchema={"type": "object", "properties": {"a": number, "b": number}},
            ),
        ]

    @server.call_tool()
    def call_tool(name: str, arguments: dict[str, Any]) -> list[types.TextContent]:
        if name == "turns_slow":
            seconds = arguments.get("seconds", 0)
            if seconds:
                time.sleep(seconds)
            return [types.TextContent(type="text", text=f"slept {seconds:g}")]
        return [types.TextContent(type="text", text=str(arguments["a"] + arguments["b"]))]

    return server


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--tool-timeout", type=float)
    parser.add_argument("--per-caller", type=int)
    parser.add_argument("--queued", type=int)
    parser.add_argument("--total", type=int, default=256)
    parser.add_argument("--http", action="store_true")
    parser.add_argument("--lowlevel", action="store_true")
    options = parser.parse_args()
    if options.lowlevel:
        server: Any = build_lowlevel(options.tool_timeout)
    else:
        server = build(options.tool_timeout, options.per_caller, options.queued, options.total)
    if options.http:
        server.run(transport="http", port=0, log_level="info")
    else:
        server.run()
