"""A notes server backed by SQLite: a lifespan resource, progress and a confirmation question.

Shows:

* ``Server(lifespan=...)``: one SQLite connection, opened when the server starts, handed to
  every tool as ``ctx.lifespan_context`` and closed when the server stops;
* structured results (``add_note``, ``search_notes``) checked against their ``outputSchema``;
* progress (``import_notes``): one ``ctx.report_progress`` per imported note;
* elicitation (``delete_notes``): the tool counts the matching notes, asks the user
  "Delete N notes?" with ``ctx.elicit`` and deletes only on accept. A client that cannot
  ask its user gets an error result and nothing is deleted.

On 2026-07-28 a tool that asks a question ends its call there and runs again from the top
once the client has the answer, so ``delete_notes`` asks first and writes afterwards.

The database file is ``$NOTES_DB`` (default: ``notes.db`` in the working directory). Run
it over stdio::

    NOTES_DB=my-notes.db python examples/notes.py
"""

import os
import sqlite3
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from pydantic import BaseModel, Field

from toolwire import Context, Server


@asynccontextmanager
async def open_database(server: Server) -> AsyncIterator[sqlite3.Connection]:
    """Open the notes database for as long as the server runs."""
    db = sqlite3.connect(os.environ.get("NOTES_DB", "notes.db"))
    try:
        db.row_factory = sqlite3.Row
        # Write-ahead logging lets other programs read the notes while the server runs;
        # closing the last connection folds the log back into the database file.
        db.execute("PRAGMA journal_mode=WAL")
        db.execute(
            "CREATE TABLE IF NOT EXISTS notes ("
            "id INTEGER PRIMARY KEY, title TEXT NOT NULL, body TEXT NOT NULL)"
        )
        db.commit()
        yield db
    finally:
        db.close()


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


# Every tool is async, so the connection is only ever used on the event loop's thread.
def database(ctx: Context) -> sqlite3.Connection:
    db: sqlite3.Connection = ctx.lifespan_context
    return db


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
    db = database(ctx)
    with db:
        cursor = db.execute("INSERT INTO notes (title, body) VALUES (?, ?)", (title, body))
    assert cursor.lastrowid is not None
    return Note(id=cursor.lastrowid, title=title, body=body)


@mcp.tool(annotations={"readOnlyHint": True})
async def search_notes(query: str, ctx: Context) -> list[Note]:
    """Find the notes whose title or body contains the query (case-insensitive).

    Args:
        query: The text to look for
    """
    rows = database(ctx).execute(
        f"SELECT id, title, body FROM notes WHERE {MATCHES} ORDER BY id", (query, query)
    )
    return [Note(id=row["id"], title=row["title"], body=row["body"]) for row in rows]


@mcp.tool()
async def import_notes(notes: list[NewNote], ctx: Context) -> str:
    """Save many notes at once, all or none, reporting progress after each one.

    Args:
        notes: The notes to save
    """
    db = database(ctx)
    total = len(notes)
    with db:  # one transaction: a failure part way leaves no half import
        for done, note in enumerate(notes, start=1):
            db.execute("INSERT INTO notes (title, body) VALUES (?, ?)", (note.title, note.body))
            await ctx.report_progress(done, total=total, message=f"Imported {note.title!r}")
    return f"Imported {total} notes."


@mcp.tool(annotations={"destructiveHint": True})
async def delete_notes(query: str, ctx: Context) -> str:
    """Delete the notes whose title or body contains the query, after asking the user.

    Args:
        query: The text to look for
    """
    db = database(ctx)
    ids = matching_ids(db, query)
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
    with db:
        db.execute(f"DELETE FROM notes WHERE id IN ({placeholders})", ids)
    return f"Deleted {count} {noun}."


if __name__ == "__main__":
    mcp.run()
