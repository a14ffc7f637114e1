"""The official SDK's client (``mcp``, test-only dependency) against examples/notes.py.

Progress and elicitation through the SDK's own callbacks, in both eras: ``mode="legacy"``
(2025-11-25: the question is a server-to-client ``elicitation/create`` request) and
``mode="auto"`` (2026-07-28: the call ends with an ``InputRequiredResult``, the SDK answers
it and calls again). The server's messages are recorded as they arrive, to check which of
the two happened.
"""

from __future__ import annotations

import os
import sqlite3
import sys
from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager, closing
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client, StdioServerParameters, stdio_client, types
from mcp.client.session import ClientRequestContext
from mcp.shared.exceptions import MCPError
from mcp.shared.message import SessionMessage

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "examples" / "notes.py"
SRC_DIR = ROOT / "src"

TEST_TIMEOUT = 45.0
REQUEST_TIMEOUT = 20.0
ERAS = {"legacy": "2025-11-25", "auto": "2026-07-28"}

NOTES = [
    {"title": "Groceries", "body": "milk, eggs"},
    {"title": "Call Ana", "body": "about the groceries budget"},
    {"title": "Books", "body": "return them to the library"},
]


def parameters(db: Path) -> StdioServerParameters:
    # The SDK passes the child only a few variables: say where toolwire and the database are.
    env = {"PYTHONPATH": str(SRC_DIR), "PATH": os.environ.get("PATH", ""), "NOTES_DB": str(db)}
    return StdioServerParameters(command=sys.executable, args=[str(SCRIPT)], env=env)


class _Inbound:
    """The transport's read stream, noting each message the server sent."""

    def __init__(self, inner: Any, seen: list[dict[str, Any]]) -> None:
        self._inner = inner
        self._seen = seen

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    def _note(self, item: Any) -> Any:
        if isinstance(item, SessionMessage):
            self._seen.append(
                item.message.model_dump(by_alias=True, mode="json", exclude_unset=True)
            )
        return item

    async def receive(self) -> Any:
        return self._note(await self._inner.receive())

    def __aiter__(self) -> _Inbound:
        return self

    async def __anext__(self) -> Any:
        return self._note(await self._inner.__anext__())

    async def aclose(self) -> None:
        await self._inner.aclose()

    async def __aenter__(self) -> _Inbound:
        await self._inner.__aenter__()
        return self

    async def __aexit__(self, *exc_info: Any) -> Any:
        return await self._inner.__aexit__(*exc_info)


@asynccontextmanager
async def recorded(
    transport: AbstractAsyncContextManager[tuple[Any, Any]], seen: list[dict[str, Any]]
) -> AsyncIterator[tuple[Any, Any]]:
    async with transport as (read_stream, write_stream):
        yield _Inbound(read_stream, seen), write_stream


def rows(db: Path) -> list[tuple[str]]:
    with closing(sqlite3.connect(db)) as conn:
        return conn.execute("SELECT title FROM notes ORDER BY id").fetchall()


def text(result: types.CallToolResult) -> str:
    (block,) = result.content
    assert isinstance(block, types.TextContent), block
    return block.text


@pytest.mark.parametrize("mode", list(ERAS))
async def test_progress_reaches_the_sdk_callback(mode: str, tmp_path: Path) -> None:
    db = tmp_path / "notes.db"
    progress: list[tuple[float, float | None, str | None]] = []

    async def on_progress(value: float, total: float | None, message: str | None) -> None:
        progress.append((value, total, message))

    notes = [{"title": f"Note {n}", "body": "text"} for n in range(1, 5)]
    with anyio.fail_after(TEST_TIMEOUT):
        async with Client(
            parameters(db), mode=mode, read_timeout_seconds=REQUEST_TIMEOUT
        ) as client:
            assert client.protocol_version == ERAS[mode]
            await client.list_tools()
            result = await client.call_tool(
                "import_notes", {"notes": notes}, progress_callback=on_progress
            )
            assert not result.is_error, result
            assert text(result) == "Imported 4 notes."
    assert progress == [(n, 4, f"Imported 'Note {n}'") for n in range(1, 5)]
    assert len(rows(db)) == 4


ANSWERS = {
    "accept": (types.ElicitResult(action="accept", content={"confirm": True}), "Deleted 2 notes."),
    "decline": (types.ElicitResult(action="decline"), "Kept 2 notes: the user declined."),
}


@pytest.mark.parametrize("answer", list(ANSWERS))
@pytest.mark.parametrize("mode", list(ERAS))
async def test_delete_is_confirmed_through_the_sdk_elicitation_callback(
    mode: str, answer: str, tmp_path: Path
) -> None:
    db = tmp_path / "notes.db"
    reply, expected = ANSWERS[answer]
    questions: list[types.ElicitRequestParams] = []
    rows_when_asked: list[int] = []

    async def on_elicit(
        context: ClientRequestContext, params: types.ElicitRequestParams
    ) -> types.ElicitResult:
        questions.append(params)
        rows_when_asked.append(len(rows(db)))
        return reply

    seen: list[dict[str, Any]] = []
    transport = recorded(stdio_client(parameters(db)), seen)
    with anyio.fail_after(TEST_TIMEOUT):
        async with Client(
            transport,
            mode=mode,
            read_timeout_seconds=REQUEST_TIMEOUT,
            elicitation_callback=on_elicit,
        ) as client:
            assert client.protocol_version == ERAS[mode]
            await client.list_tools()
            await client.call_tool("import_notes", {"notes": NOTES})
            result = await client.call_tool("delete_notes", {"query": "groceries"})
            assert not result.is_error, result
            assert text(result) == expected

    (question,) = questions
    assert isinstance(question, types.ElicitRequestFormParams)
    assert question.message == "Delete 2 notes?"
    assert question.requested_schema["properties"]["confirm"]["type"] == "boolean"
    assert rows_when_asked == [3]  # nothing deleted before the answer
    left = [title for (title,) in rows(db)]
    assert left == (["Books"] if answer == "accept" else ["Groceries", "Call Ana", "Books"])

    server_requests = [m["method"] for m in seen if "method" in m and "id" in m]
    input_required = [m for m in seen if m.get("result", {}).get("resultType") == "input_required"]
    if mode == "legacy":
        assert server_requests == ["elicitation/create"]
        assert input_required == []
    else:
        assert server_requests == []  # servers never send requests on 2026-07-28
        (needed,) = input_required
        (request,) = needed["result"]["inputRequests"].values()
        assert request["method"] == "elicitation/create"


@pytest.mark.parametrize("mode", list(ERAS))
async def test_delete_without_an_elicitation_callback_is_an_error(
    mode: str, tmp_path: Path
) -> None:
    db = tmp_path / "notes.db"
    with anyio.fail_after(TEST_TIMEOUT):
        async with Client(
            parameters(db), mode=mode, read_timeout_seconds=REQUEST_TIMEOUT
        ) as client:
            await client.list_tools()
            await client.call_tool("import_notes", {"notes": NOTES})
            if mode == "auto":  # 2026-07-28: a request needing it is refused (JR-37)
                with pytest.raises(MCPError) as refused:
                    await client.call_tool("delete_notes", {"query": "groceries"})
                assert refused.value.code == -32021
                assert refused.value.data == {"requiredCapabilities": {"elicitation": {}}}
            else:
                result = await client.call_tool("delete_notes", {"query": "groceries"})
                assert result.is_error
                assert "elicitation" in text(result)
    assert len(rows(db)) == 3
