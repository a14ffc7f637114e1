"""SSE polling (SEP-1699, HT-12): a call lets its SSE connection go and the client resumes.

``ctx.close_sse_connection()`` ends the HTTP connection carrying a call's stream while the
call and the stream go on: the server sends ``retry`` and closes, the client comes back
with ``Last-Event-ID`` and receives the rest, the answer included, each event exactly once
(the priming event is never sent again on a resumption). Where no stream can be resumed it
is a no-op that says so (False). Real uvicorn on 127.0.0.1, raw httpx, every message
schema-checked (:mod:`test_http_legacy`'s peer).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Any

import httpx
import orjson
import pytest

from test_http_legacy import RETRY_MS, TIMEOUT, Event, Gate, Peer, text_of
from toolwire import Client, Context, Server

from http_server import serve_http
from mcp_spec import WireChecker
from wire import MODERN, modern_meta

pytestmark = pytest.mark.timeout(30)

RESUMABLE = "2025-11-25"


SENT = Gate()  # a test opens it once the progress before the hang-up has arrived


def build() -> tuple[Server, Gate, list[bool]]:
    mcp = Server("polling")
    gate = Gate()
    released: list[bool] = []

    @mcp.tool()
    async def poll(ctx: Context, steps: int = 0, retry_ms: int | None = None) -> str:
        """Report ``steps`` times, let the connection go, wait for the gate, answer."""
        for step in range(1, steps + 1):
            await ctx.report_progress(step, steps)
        if steps:
            await SENT.wait()
        released.append(ctx.close_sse_connection(retry_ms))
        await gate.wait()
        return "answered after the reconnect"

    @mcp.tool()
    def let_go(ctx: Context) -> str:
        """A sync tool (on a worker thread) asks to let its connection go."""
        released.append(ctx.close_sse_connection())
        return f"released: {released[-1]}"

    return mcp, gate, released


@contextlib.asynccontextmanager
async def endpoint(
    revision: str = RESUMABLE, **options: Any
) -> AsyncIterator[tuple[Peer, Gate, list[bool]]]:
    mcp, gate, released = build()
    options.setdefault("retry_ms", RETRY_MS)
    with serve_http(mcp, **options) as url:
        async with httpx.AsyncClient(timeout=TIMEOUT) as http:
            peer = Peer(http, url, revision)
            await peer.initialize()
            yield peer, gate, released
            assert peer.checker.client_issues == []


async def test_a_call_lets_its_connection_go_and_the_answer_comes_on_the_resumption() -> None:
    async with endpoint() as (peer, gate, released):
        call = peer.call("poll", {"retry_ms": 250})
        async with peer.post_stream(call) as events:
            first = await events.rest()  # the server ends this connection, not the call
        priming, pause = first
        assert priming.id is not None and priming.data == "" and priming.retry == RETRY_MS
        # before closing, the reconnect delay the tool asked for (HT-12); no event of its own
        assert pause == Event(data="", id=None, retry=250)
        assert released == [True]

        await gate.open()
        async with peer.get_stream(last_event_id=priming.id) as resumed:
            second = await resumed.rest()  # the stream ends with the answer
        (answer,) = second  # the priming event is not sent again
        assert answer.message["id"] == call["id"]
        assert text_of(answer.message) == "answered after the reconnect"
        assert answer.id == f"{priming.id.rsplit('/', 1)[0]}/1"


async def test_what_came_before_is_not_sent_again_after_the_resumption() -> None:
    async with endpoint() as (peer, gate, released):
        call = peer.call("poll", {"steps": 2}, progress="p")
        async with peer.post_stream(call) as events:
            first = [await events.next() for _ in range(3)]  # priming, progress 1 and 2
            await SENT.open()
            first += await events.rest()
        assert [e.message["params"]["progress"] for e in first if e and e.data] == [1, 2]
        assert first[-1] == Event(data="", id=None, retry=RETRY_MS)  # the app's delay
        last_seen = [e.id for e in first if e and e.id][-1]
        assert last_seen is not None

        await gate.open()
        async with peer.get_stream(last_event_id=last_seen) as resumed:
            second = await resumed.rest()
        ids = [e.id for e in [*first, *second] if e and e.id]
        assert len(ids) == len(set(ids)), ids  # no event arrives twice
        assert [e.message.get("id") for e in second] == [call["id"]]
        assert released == [True]


async def test_resuming_from_the_priming_event_does_not_repeat_it() -> None:
    async with endpoint() as (peer, gate, _released):
        call = peer.call("poll")
        async with peer.post_stream(call) as events:
            priming = await events.next()
        assert priming is not None and priming.id is not None
        await gate.open()
        for _ in range(2):  # twice: the stream keeps its events for every resumption
            async with peer.get_stream(last_event_id=priming.id) as resumed:
                again = await resumed.rest()
            assert [e.data != "" for e in again] == [True]
            assert again[0].message["id"] == call["id"]


async def test_a_sync_tool_can_let_its_connection_go() -> None:
    async with endpoint() as (peer, _gate, released):
        async with peer.post_stream(peer.call("let_go")) as events:
            first = await events.rest()
        assert [e.data for e in first] == ["", ""]  # priming, then retry and the end
        assert first[0].id is not None
        async with peer.get_stream(last_event_id=first[0].id) as resumed:
            (answer,) = await resumed.rest()
        assert text_of(answer.message) == "released: True"
        # (the worker thread keeps what close_sse_connection() said once the call is over:
        # the connection it let go may have ended before)
        assert released == [True]


@pytest.mark.parametrize(
    ("revision", "options", "accept"),
    [
        ("2025-06-18", {}, "application/json, text/event-stream"),  # no event ids to resume
        ("2025-03-26", {}, "text/event-stream"),
        (RESUMABLE, {}, "application/json"),  # answered as JSON
        (RESUMABLE, {"json_response": True}, "application/json, text/event-stream"),
        (RESUMABLE, {"stateless": True}, "application/json, text/event-stream"),
    ],
)
async def test_without_a_stream_to_resume_it_is_a_no_op(
    revision: str, options: dict[str, Any], accept: str
) -> None:
    mcp, _gate, released = build()
    with serve_http(mcp, retry_ms=RETRY_MS, **options) as url:
        async with httpx.AsyncClient(timeout=TIMEOUT) as http:
            peer = Peer(http, url, revision)
            await peer.initialize()
            answer = await peer.post(peer.call("let_go"), accept=accept)
            assert answer.status_code == 200
            if answer.headers["content-type"].startswith("text/event-stream"):
                datas = [line[6:] for line in answer.text.splitlines() if line.startswith("data: ")]
                for data in datas:
                    peer.checker.server_sent(data.encode())
                message = orjson.loads(datas[-1])
            else:
                message = answer.json()
            assert text_of(message) == "released: False"
    assert released == [False]


async def test_2026_and_memory_calls_keep_their_connection() -> None:
    """2026-07-28: closing the call's stream would cancel it; stdio and memory have none."""
    mcp, _gate, released = build()
    message = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": "let_go", "arguments": {}, "_meta": modern_meta()},
    }
    checker = WireChecker(MODERN)
    checker.client_sent(message)
    headers = {
        "content-type": "application/json",
        "accept": "application/json, text/event-stream",
        "mcp-protocol-version": MODERN,
        "mcp-method": "tools/call",
        "mcp-name": "let_go",
    }
    with serve_http(mcp) as url:
        async with httpx.AsyncClient(timeout=TIMEOUT) as http:
            response = await http.post(url, content=orjson.dumps(message), headers=headers)
    checker.server_sent(response.content)
    assert text_of(response.json()) == "released: False"

    async with Client(mcp) as client:
        result = await asyncio.wait_for(client.call_tool("let_go", {}), TIMEOUT)
    assert result.text == "released: False"
    assert released == [False, False]


async def test_toolwires_client_resumes_and_gets_the_answer() -> None:
    """toolwire's own client follows a call whose connection was let go: it comes back with
    Last-Event-ID after the retry delay and the call returns its answer."""
    mcp = Server("polling client")

    @mcp.tool()
    async def report_then_let_go(ctx: Context) -> str:
        await ctx.report_progress(1, 2)
        assert ctx.close_sse_connection(RETRY_MS)
        await ctx.report_progress(2, 2)
        return "answered on the resumed stream"

    checker = WireChecker(RESUMABLE)

    def tap(direction: str, data: bytes) -> None:
        (checker.client_sent if direction == "send" else checker.server_sent)(data)

    progress: list[float] = []
    with serve_http(mcp, retry_ms=RETRY_MS) as url:
        async with Client(url, protocol_version=RESUMABLE, tap=tap) as client:
            result = await asyncio.wait_for(
                client.call_tool(
                    "report_then_let_go", {}, progress=lambda p, t, m: progress.append(p)
                ),
                TIMEOUT,
            )
    assert result.text == "answered on the resumed stream"
    assert progress == [1, 2]
    assert checker.checked > 0 and checker.client_issues == []
