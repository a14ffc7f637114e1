"""Tools whose results are hard to put on the wire, for the wire abuse probes.

``build(record)`` returns a fresh ``Server`` (the HTTP probes serve it in process under
uvicorn); run as a script it serves stdio. ``record(line)`` notes a side effect; as a
script it appends to the file given with ``--record``, so a probe can count how many
times a tool really ran.

* ``list_dir`` / ``alist_dir`` / ``list_text``: ``os.listdir()`` of a folder, as a list
  (sync, async) or one text; a name that is not UTF-8 decodes to a lone surrogate.
* ``missing``: raises ``ValueError`` naming the folder's files.
* ``append``: appends one line to the record (a side effect to count).
* ``ratio`` / ``plain_ratio`` / ``ratios``: a float that may be NaN or infinite, with an
  output schema (``number``), without one, and inside a dict.
* ``self_cancel`` / ``sync_self_cancel``: raise ``asyncio.CancelledError`` themselves.
* ``wait``: announces itself (progress ``started``) and waits to be cancelled.
* ``blob``: a text of ``size`` bytes.
* ``chatty``: logs and reports progress with the folder's names in the messages.
"""

from __future__ import annotations

import argparse
import asyncio
import os
from collections.abc import Callable

from toolwire import Context, Server

Record = Callable[[str], None]


def build(record: Record) -> Server:
    mcp = Server("abuse-wire")

    @mcp.tool()
    def list_dir(path: str) -> list[str]:
        """The names in a folder."""
        return sorted(os.listdir(path))

    @mcp.tool()
    async def alist_dir(path: str) -> list[str]:
        """The names in a folder (async)."""
        return sorted(os.listdir(path))

    @mcp.tool()
    def list_text(path: str) -> str:
        """The names in a folder, one a line."""
        return "\n".join(sorted(os.listdir(path)))

    @mcp.tool()
    def missing(path: str) -> str:
        """Fails naming the folder's files."""
        raise ValueError(f"no report among {', '.join(sorted(os.listdir(path)))}")

    @mcp.tool()
    def append(text: str) -> str:
        """Append one line to the record."""
        record(text)
        return "appended"

    @mcp.tool()
    def ratio(kind: str) -> float:
        """A number that may be NaN or infinite."""
        return float(kind)

    @mcp.tool(structured_output=False)
    def plain_ratio(kind: str):  # type: ignore[no-untyped-def]
        """The same, without an output schema."""
        return float(kind)

    @mcp.tool()
    def ratios(kind: str) -> dict[str, float]:
        """A dict holding such a number."""
        return {"ok": 1.5, "odd": float(kind)}

    @mcp.tool()
    async def self_cancel() -> str:
        """Raises CancelledError itself, as a library giving up might."""
        raise asyncio.CancelledError

    @mcp.tool()
    def sync_self_cancel() -> str:
        """The same from a sync tool."""
        raise asyncio.CancelledError

    @mcp.tool()
    async def wait(ctx: Context, key: str) -> str:
        """Announce, then wait until cancelled."""
        await ctx.report_progress(0, message=f"started {key}")
        await asyncio.sleep(30)
        return "waited"

    # the text alone (no {"result": text} beside it): answers of ``size`` bytes each
    @mcp.tool(structured_output=False)
    def blob(size: int) -> str:
        """A text of ``size`` bytes."""
        return "x" * size

    @mcp.tool(structured_output=False)
    async def ablob(size: int) -> str:
        """A text of ``size`` bytes, from an async tool."""
        return "x" * size

    @mcp.tool()
    async def chatty(ctx: Context, path: str) -> str:
        """Logs and reports progress naming the folder's files."""
        names = ", ".join(sorted(os.listdir(path)))
        await ctx.info(f"listing {names}")
        await ctx.report_progress(1, total=2, message=f"saw {names}")
        return "done"

    return mcp


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--record", required=True)
    args = parser.parse_args()

    def record(line: str) -> None:
        with open(args.record, "a", encoding="utf-8") as file:
            file.write(line + "\n")

    build(record).run()


if __name__ == "__main__":
    main()
