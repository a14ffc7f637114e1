"""examples/notes.py as a real stdio subprocess on a real SQLite file, in both eras.

Each test gives the server its own database through ``NOTES_DB`` and reads that file with
``sqlite3`` afterwards, so what the tools claim is checked against what was stored. Every
message is checked against the negotiated revision's JSON Schema (``checked_client``).
"""

from __future__ import annotations

import ast
import contextlib
import sqlite3
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from jsonschema import Draft202012Validator

from toolwire import ServerError

from wire import EXAMPLES, checked_client

LEGACY = "2025-06-18"
MODERN = "2026-07-28"
REVISIONS = [LEGACY, MODERN]
SCRIPT = EXAMPLES / "notes.py"
COMMAND = [sys.executable, str(SCRIPT)]
TEST_TIMEOUT = 30.0

GROCERIES = [
    {"title": "Groceries", "body": "milk, eggs"},
    {"title": "Call Ana", "body": "about the groceries budget"},
    {"title": "Books", "body": "return them to the library"},
]


def rows(db: Path) -> list[tuple[int, str, str]]:
    """What the database file holds, read with a connection of the test's own."""
    with contextlib.closing(sqlite3.connect(db)) as conn:
        return conn.execute("SELECT id, title, body FROM notes ORDER BY id").fetchall()


def client(db: Path, revision: str, **options: Any) -> Any:
    return checked_client(COMMAND, revision, env={"NOTES_DB": str(db)}, **options)


async def call(c: Any, name: str, arguments: dict[str, Any], **options: Any) -> Any:
    """Call a tool; a structured result must fit the tool's outputSchema."""
    result = await c.call_tool(name, arguments, **options)
    if result.structured is not None:
        tools = {tool["name"]: tool for tool in await c.list_tools()}
        Draft202012Validator(tools[name]["outputSchema"]).validate(result.structured)
    return result


def test_example_is_documented_and_runnable() -> None:
    source = SCRIPT.read_text()
    docstring = ast.get_docstring(ast.parse(source))
    assert docstring and "python examples/notes.py" in docstring and "NOTES_DB" in docstring
    assert 'if __name__ == "__main__":\n    mcp.run()\n' in source


@pytest.mark.parametrize("revision", REVISIONS)
async def test_add_and_search(revision: str, tmp_path: Path) -> None:
    db = tmp_path / "notes.db"
    with anyio.fail_after(TEST_TIMEOUT):
        async with client(db, revision) as c:
            assert c.protocol_version == revision
            tools = {tool["name"]: tool for tool in await c.list_tools()}
            assert list(tools) == ["add_note", "search_notes", "import_notes", "delete_notes"]
            assert tools["delete_notes"]["annotations"]["destructiveHint"] is True
            assert tools["search_notes"]["annotations"]["readOnlyHint"] is True

            added = await call(c, "add_note", {"title": "Groceries", "body": "Milk and eggs"})
            assert not added.is_error, added.text
            assert added.structured == {"id": 1, "title": "Groceries", "body": "Milk and eggs"}
            await call(c, "add_note", {"title": "Books", "body": "The library closes at six"})

            found = await call(c, "search_notes", {"query": "MILK"})
            assert found.structured == {
                "result": [{"id": 1, "title": "Groceries", "body": "Milk and eggs"}]
            }
            found = await call(c, "search_notes", {"query": "nothing like this"})
            assert found.structured == {"result": []}
            # LIKE wildcards are plain text here.
            found = await call(c, "search_notes", {"query": "%"})
            assert found.structured == {"result": []}

            assert rows(db) == [
                (1, "Groceries", "Milk and eggs"),
                (2, "Books", "The library closes at six"),
            ]


@pytest.mark.parametrize("revision", REVISIONS)
async def test_import_reports_progress_per_note_in_order(revision: str, tmp_path: Path) -> None:
    db = tmp_path / "notes.db"
    notes = [{"title": f"Note {n}", "body": f"Body {n}"} for n in range(1, 6)]
    progress: list[tuple[float, float | None, str | None]] = []

    def on_progress(value: float, total: float | None, message: str | None) -> None:
        progress.append((value, total, message))

    with anyio.fail_after(TEST_TIMEOUT):
        async with client(db, revision) as c:
            result = await call(c, "import_notes", {"notes": notes}, progress=on_progress)
            assert not result.is_error, result.text
            assert result.text == "Imported 5 notes."
            # Every notification arrived, in order, before the result.
            assert progress == [(n, 5, f"Imported 'Note {n}'") for n in range(1, 6)]
            assert rows(db) == [(n, f"Note {n}", f"Body {n}") for n in range(1, 6)]

            # A malformed note is refused before anything is written.
            bad = await call(c, "import_notes", {"notes": [{"title": "x", "body": "y"}, {}]})
            assert bad.is_error
            assert "body" in bad.text and "title" in bad.text
            assert len(rows(db)) == 5


ANSWERS = {
    "accept": ({"action": "accept", "content": {"confirm": True}}, "Deleted 2 notes.", 1),
    "accept-unchecked": (
        {"action": "accept", "content": {"confirm": False}},
        "Kept 2 notes: deletion was not confirmed.",
        3,
    ),
    "decline": ({"action": "decline"}, "Kept 2 notes: the user declined.", 3),
    "cancel": ({"action": "cancel"}, "Cancelled: nothing was deleted.", 3),
}


@pytest.mark.parametrize("answer", list(ANSWERS))
@pytest.mark.parametrize("revision", REVISIONS)
async def test_delete_asks_first_and_deletes_only_on_accept(
    revision: str, answer: str, tmp_path: Path
) -> None:
    db = tmp_path / "notes.db"
    reply, expected_text, rows_left = ANSWERS[answer]
    questions: list[dict[str, Any]] = []
    rows_when_asked: list[int] = []

    def on_elicit(params: dict[str, Any]) -> dict[str, Any]:
        questions.append(params)
        rows_when_asked.append(len(rows(db)))  # nothing deleted before the answer
        return reply

    with anyio.fail_after(TEST_TIMEOUT):
        async with client(db, revision, elicitation_handler=on_elicit) as c:
            await call(c, "import_notes", {"notes": GROCERIES})
            result = await call(c, "delete_notes", {"query": "groceries"})
            assert not result.is_error, result.text
            assert result.text == expected_text

            assert len(questions) == 1  # asked once, also when the tool runs again (2026)
            assert questions[0]["message"] == "Delete 2 notes?"
            assert questions[0]["requestedSchema"] == {
                "type": "object",
                "properties": {
                    "confirm": {
                        "type": "boolean",
                        "title": "Confirm",
                        "description": "Yes, delete them",
                    }
                },
                "required": ["confirm"],
                "title": "Confirm",
            }
            assert rows_when_asked == [3]
            left = rows(db)
            assert len(left) == rows_left
            if answer == "accept":
                assert left == [(3, "Books", "return them to the library")]


@pytest.mark.parametrize("revision", REVISIONS)
async def test_delete_with_no_match_asks_nothing(revision: str, tmp_path: Path) -> None:
    db = tmp_path / "notes.db"
    questions: list[dict[str, Any]] = []

    def on_elicit(params: dict[str, Any]) -> dict[str, Any]:
        questions.append(params)
        return {"action": "accept", "content": {"confirm": True}}

    with anyio.fail_after(TEST_TIMEOUT):
        async with client(db, revision, elicitation_handler=on_elicit) as c:
            await call(c, "import_notes", {"notes": GROCERIES})
            result = await call(c, "delete_notes", {"query": "holiday"})
            assert result.text == "No notes match 'holiday'; nothing was deleted."
            assert questions == []
            assert len(rows(db)) == 3


@pytest.mark.parametrize("revision", REVISIONS)
async def test_delete_without_elicitation_is_a_clear_error(revision: str, tmp_path: Path) -> None:
    db = tmp_path / "notes.db"
    with anyio.fail_after(TEST_TIMEOUT):
        async with client(db, revision) as c:
            assert "elicitation" not in c.capabilities
            await call(c, "import_notes", {"notes": GROCERIES})
            if revision == MODERN:  # a request needing it is refused (JR-37)
                with pytest.raises(ServerError) as refused:
                    await call(c, "delete_notes", {"query": "groceries"})
                assert refused.value.code == -32021
                assert refused.value.data == {"requiredCapabilities": {"elicitation": {}}}
            else:
                result = await call(c, "delete_notes", {"query": "groceries"})
                assert result.is_error
                assert "cannot ask the user" in result.text and "elicitation" in result.text
            assert len(rows(db)) == 3


@pytest.mark.parametrize("revision", [LEGACY, MODERN])
async def test_a_confirmation_covers_only_what_was_asked(revision: str, tmp_path: Path) -> None:
    """Another program adds a matching note while the user reads "Delete 2 notes?"; the
    user's yes must not delete 3 notes (legacy: the tool deletes the 2 it counted; 2026:
    the re-run counts 3, so the user must be asked about 3)."""
    db = tmp_path / "notes.db"
    questions: list[str] = []

    def on_elicit(params: dict[str, Any]) -> dict[str, Any]:
        questions.append(params["message"])
        if len(questions) == 1:
            with contextlib.closing(sqlite3.connect(db)) as conn, conn:
                conn.execute("INSERT INTO notes (title, body) VALUES ('More groceries', 'tea')")
        return {"action": "accept", "content": {"confirm": True}}

    with anyio.fail_after(TEST_TIMEOUT):
        async with client(db, revision, elicitation_handler=on_elicit) as c:
            await call(c, "import_notes", {"notes": GROCERIES})
            result = await call(c, "delete_notes", {"query": "groceries"})
            assert not result.is_error, result.text
    deleted = 4 - len(rows(db))
    assert questions[0] == "Delete 2 notes?"
    assert f"Delete {deleted} notes?" in questions, (questions, result.text)


@pytest.mark.parametrize("revision", REVISIONS)
async def test_database_is_closed_when_the_server_stops(revision: str, tmp_path: Path) -> None:
    """The lifespan closes the connection: SQLite then folds the write-ahead log back into
    the database and removes it. A server that died without closing leaves ``-wal`` behind."""
    db = tmp_path / "notes.db"
    wal, shm = Path(f"{db}-wal"), Path(f"{db}-shm")
    log = tmp_path / "server-stderr.log"
    with anyio.fail_after(TEST_TIMEOUT), log.open("w") as stderr:
        async with client(db, revision, stderr=stderr) as c:
            await call(c, "add_note", {"title": "Keep me", "body": "after the restart"})
            assert wal.exists() and wal.stat().st_size > 0  # the note is in the log for now
        assert not wal.exists() and not shm.exists()
        assert "Traceback" not in log.read_text()
        assert rows(db) == [(1, "Keep me", "after the restart")]

        # The next server opens the same file and finds the note.
        async with client(db, revision) as c:
            found = await call(c, "search_notes", {"query": "keep"})
            assert found.structured == {
                "result": [{"id": 1, "title": "Keep me", "body": "after the restart"}]
            }


async def test_database_defaults_to_notes_db_in_the_working_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("NOTES_DB", raising=False)
    with anyio.fail_after(TEST_TIMEOUT):
        async with checked_client(COMMAND, LEGACY, cwd=str(tmp_path)) as c:
            await call(c, "add_note", {"title": "Here", "body": "in the working directory"})
    assert rows(tmp_path / "notes.db") == [(1, "Here", "in the working directory")]
