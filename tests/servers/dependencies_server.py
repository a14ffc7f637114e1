"""A server whose tools, resource template and prompt use dependencies (tests/test_dependencies.py).

Run as ``dependencies_server.py JOURNAL``: stdio, every provider's start and cleanup written
as a line to the file ``JOURNAL`` (flushed at once, so the lines outlive the process).
In process, :func:`build` gives the server and its :class:`Journal`.

* ``Pool`` (by type, lifespan scope): made on first use, closed when the server stops.
* ``transaction`` (request scope, async generator, takes the ``Pool`` and the ``Context``):
  commits when the call returns, rolls back when it raises or is cancelled.
* ``cursor`` (request scope, sync generator, takes the ``transaction``).
* ``query(sql)`` uses all three; ``fail(message)`` raises after its transaction began;
  ``hang()`` waits until cancelled; ``broken()``/``refused()``/``unclean()`` use providers
  that fail (an internal error, a ``ValueError`` of their own, a failing cleanup);
  ``journal(until)`` answers the lines written so far, once one contains ``until``.
"""

import asyncio
import itertools
import sys
import threading
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Annotated, Any

from toolwire import Context, Depends, Server, ToolError


class Journal:
    """Lines the providers write: in a list, and in a file when given one."""

    def __init__(self, path: str | None = None) -> None:
        self.lines: list[str] = []
        self.path = Path(path) if path else None
        self._lock = threading.Lock()
        self._waiters: list[tuple[str, asyncio.Event, asyncio.AbstractEventLoop]] = []

    def write(self, line: str) -> None:
        with self._lock:  # sync providers write from worker threads
            self.lines.append(line)
            if self.path is not None:
                with self.path.open("a", encoding="utf-8") as out:
                    out.write(line + "\n")
            for text, event, loop in self._waiters:
                if text in line:
                    loop.call_soon_threadsafe(event.set)

    async def until(self, text: str, timeout: float) -> list[str]:
        event = asyncio.Event()
        waiter = (text, event, asyncio.get_running_loop())
        with self._lock:
            if any(text in line for line in self.lines):
                return list(self.lines)
            self._waiters.append(waiter)
        try:
            await asyncio.wait_for(event.wait(), timeout)
        finally:
            with self._lock:
                self._waiters.remove(waiter)
        return list(self.lines)


class Pool:
    def __init__(self, number: int) -> None:
        self.number = number
        self.calls = 0


class Transaction:
    def __init__(self, number: int, pool: Pool) -> None:
        self.number = number
        self.pool = pool


class Cursor:
    def __init__(self, tx: Transaction) -> None:
        self.tx = tx


def build(journal: Journal) -> Server:
    mcp = Server("dependencies", version="0.0.1")
    pools = itertools.count(1)
    transactions = itertools.count(1)

    @mcp.provide(Pool, scope="lifespan")
    async def pool() -> AsyncIterator[Pool]:
        made = Pool(next(pools))
        journal.write(f"pool {made.number} open")
        yield made
        journal.write(f"pool {made.number} closed")

    async def transaction(db: Pool, ctx: Context) -> AsyncIterator[Transaction]:
        tx = Transaction(next(transactions), db)
        journal.write(f"tx {tx.number} open for request {ctx.request_id}")
        try:
            yield tx
        except BaseException as exc:
            journal.write(f"tx {tx.number} rollback {type(exc).__name__}")
            raise
        else:
            journal.write(f"tx {tx.number} commit")

    def cursor(tx: Annotated[Transaction, Depends(transaction)]) -> Iterator[Cursor]:
        journal.write(f"cursor of tx {tx.number} open")
        yield Cursor(tx)
        journal.write(f"cursor of tx {tx.number} closed")

    Tx = Annotated[Transaction, Depends(transaction)]

    @mcp.tool()
    async def query(
        sql: str, tx: Tx, cur: Annotated[Cursor, Depends(cursor)], db: Pool
    ) -> dict[str, Any]:
        """Run ``sql`` in a transaction."""
        db.calls += 1
        return {
            "sql": sql,
            "pool": db.number,
            "calls": db.calls,
            "tx": tx.number,
            "same_tx": cur.tx is tx and tx.pool is db,
        }

    @mcp.tool()
    def sync_query(sql: str, cur: Annotated[Cursor, Depends(cursor)]) -> str:
        """A sync tool with a dependency."""
        return f"{sql} in tx {cur.tx.number}"

    @mcp.tool()
    async def fail(message: str, tx: Tx) -> str:
        """Raise once the transaction began."""
        raise ValueError(message)

    @mcp.tool()
    async def hang(tx: Tx) -> str:
        """Wait until cancelled."""
        journal.write(f"tx {tx.number} hanging")
        await asyncio.Event().wait()
        return "never"

    def broken_provider() -> str:
        raise RuntimeError("cannot reach postgres://admin:hunter2@db")

    def refusing_provider() -> str:
        raise ValueError("the caller may not use the database")

    async def unclean_provider() -> AsyncIterator[str]:
        yield "value"
        raise RuntimeError("flush failed at postgres://admin:hunter2@db")

    @mcp.tool()
    def broken(tx: Tx, value: Annotated[str, Depends(broken_provider)]) -> str:
        """A provider fails with an internal error (after the transaction began)."""
        return value

    @mcp.tool()
    def refused(value: Annotated[str, Depends(refusing_provider)]) -> str:
        """A provider refuses with its own message."""
        return value

    @mcp.tool()
    def unclean(value: Annotated[str, Depends(unclean_provider)]) -> str:
        """A provider's cleanup fails."""
        return value

    @mcp.tool()
    async def journal_lines(until: str = "", timeout: float = 10.0) -> list[str]:
        """The journal, once a line contains ``until``."""
        try:
            return await journal.until(until, timeout)
        except TimeoutError:
            raise ToolError(f"no line with {until!r} in {journal.lines}") from None

    @mcp.resource("rows://{table}")
    async def rows(table: str, tx: Tx) -> str:
        """The rows of ``table``, read in a transaction."""
        return f"rows of {table} in tx {tx.number} of pool {tx.pool.number}"

    @mcp.prompt()
    def summarize(topic: str, tx: Tx) -> str:
        """Summarize ``topic`` (with a transaction)."""
        return f"Summarize {topic} (tx {tx.number})"

    return mcp


if __name__ == "__main__":
    build(Journal(sys.argv[1])).run()
