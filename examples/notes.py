"""A notes server backed by SQLite: a lifespan resource, progress and a confirmation question.

Shows:

* ``Server(lifespan=...)``: the database, opened when the server starts, handed to every
  tool as ``ctx.lifespan_context`` and closed when the server stops;
* structured results (``add_note``, ``search_notes``) checked against their ``outputSchema``;
* progress (``import_notes``): one ``ctx.report_progress`` per imported note;
* elicitation (``delete_notes``): the tool counts the matching notes, asks the user
  "Delete N notes?" with ``ctx.elicit`` and deletes only on accept. A client that cannot
  ask its user gets an error result (on 2026-07-28 the JSON-RPC error -32021) and
  nothing is deleted.

On 2026-07-28 a tool that asks a question ends its call there and runs again from the top
once the client has the answer, so ``delete_notes`` asks first and writes afterwards.

Writes are all or nothing. A long import lets other calls run between its notes, so each
write is one transaction on a connection of its own, taken by one call at a time, and
reads use another connection that sees committed notes only. When the server is stopped
(stdin closes, ``SIGTERM``) calls in flight get its grace period: an import then either
finishes, is committed and answered, or is cancelled and rolled back, never half-written.

The database file is ``$NOTES_DB`` (default: ``notes.db`` in the working directory). Run
it over stdio::

    NOTES_DB=my-notes.db python examples/notes.py
"""

import asyncio
import os
import sqlite3
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from pydantic import BaseModel, Field

from toolwire import Context, Server


class Notebook:
    """The notes database: a connection for reads, one for writes, one writer at a time."""

    def __init__(self, path: str) -> None:
        self.reader = sqlite3.connect(path)
        self.reader.row_factory = sqlite3.Row
        self.writer = sqlite3.connect(path)
        self._writing = asyncio.Lock()

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[sqlite3.Connection]:
        """One write transaction, committed when the block ends and rolled back if it
        fails or is cancelled (by the client, or by the server stopping)."""
        async with self._writing:  # another call's rows never join this transaction
            with self.writer:
                yield self.writer

    def close(self) -> None:
        self.writer.close()
        self.reader.close()


@asynccontextmanager
async def open_database(server: Server) -> AsyncIterator[Notebook]:
    """Open the notes database for as long as the server runs."""
    notebook = Notebook(os.environ.get("NOTES_DB", "notes.db"))
    try:
        # Write-ahead logging lets readers (this server's, other programs) see committed
        # notes while a write is under way; closing the last connection folds the log
        # back into the database file.
        notebook.writer.execute("PRAGMA journal_mode=WAL")
        with notebook.writer:
            notebook.writer.execute(
                "CREATE TABLE IF NOT EXISTS notes ("
                "id INTEGER PRIMARY KEY, title TEXT NOT NULL, body TEXT NOT NULL)"
            )
        yield notebook
    finally:
        notebook.close()


mcp = Server("Notes", lifespan=open_database)


class Note(BaseModel):
    id: int = Field(description="The note's id")
    title: str
    body: str


class NewNote(BaseModel):
    title: str = Field(description="A short title")
    body: str = Field(description="The text of the note")


class Confirm(BaseModel):
    confirm: bool = Field(description="Yes, delete them")


# Every tool is async, so the connections are only ever used on the event loop's thread.
def notebook(ctx: Context) -> Notebook:
    opened: Notebook = ctx.lifespan_context
    return opened


MATCHES = "instr(lower(title), lower(?)) > 0 OR instr(lower(body), lower(?)) > 0"


def matching_ids(db: sqlite3.Connection, query: str) -> list[int]:
    rows = db.execute(f"SELECT id FROM notes WHERE {MATCHES} ORDER BY id", (query, query))
    return [row["id"] for row in rows]


@mcp.tool()
async def add_note(title: str, body: str, ctx: Context) -> Note:
    """Save a new note.

    Args:
        title: A short title
        body: The text of the note
    """
    async with notebook(ctx).transaction() as db:
        cursor = db.execute("INSERT INTO notes (title, body) VALUES (?, ?)", (title, body))
    assert cursor.lastrowid is not None
    return Note(id=cursor.lastrowid, title=title, body=body)


@mcp.tool(annotations={"readOnlyHint": True})
async def search_notes(query: str, ctx: Context) -> list[Note]:
    """Find the notes whose title or body contains the query (case-insensitive).

    Args:
        query: The text to look for
    """
    rows = notebook(ctx).reader.execute(
        f"SELECT id, title, body FROM notes WHERE {MATCHES} ORDER BY id", (query, query)
    )
    return [Note(id=row["id"], title=row["title"], body=row["body"]) for row in rows]


@mcp.tool()
async def import_notes(notes: list[NewNote], ctx: Context) -> str:
    """Save many notes at once, all or none, reporting progress after each one.

    Args:
        notes: The notes to save
    """
    total = len(notes)
    # One transaction: a failure or a cancel part way leaves no half import.
    async with notebook(ctx).transaction() as db:
        for done, note in enumerate(notes, start=1):
            db.execute("INSERT INTO notes (title, body) VALUES (?, ?)", (note.title, note.body))
            await ctx.report_progress(done, total=total, message=f"Imported {note.title!r}")
            await asyncio.sleep(0)  # a long import lets other calls run between its notes
    return f"Imported {total} notes."


@mcp.tool(annotations={"destructiveHint": True})
async def delete_notes(query: str, ctx: Context) -> str:
    """Delete the notes whose title or body contains the query, after asking the user.

    Args:
        query: The text to look for
    """
    ids = matching_ids(notebook(ctx).reader, query)
    if not ids:
        return f"No notes match {query!r}; nothing was deleted."
    count = len(ids)
    noun = "note" if count == 1 else "notes"
    # The question comes before any change: on 2026-07-28 the tool runs again after it.
    answer = await ctx.elicit(f"Delete {count} {noun}?", Confirm)
    if answer.action == "decline":
        return f"Kept {count} {noun}: the user declined."
    if answer.action == "cancel":
        return "Cancelled: nothing was deleted."
    if not answer.data.confirm:
        return f"Kept {count} {noun}: deletion was not confirmed."
    placeholders = ", ".join(["?"] * count)
    async with notebook(ctx).transaction() as db:
        db.execute(f"DELETE FROM notes WHERE id IN ({placeholders})", ids)
    return f"Deleted {count} {noun}."


if __name__ == "__main__":
    mcp.run()
