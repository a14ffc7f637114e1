"""An answer that is not ready when the request is read (:mod:`toolwire.transports.http.follow`).

The response waits on the call's stream alone and watches for the client's departure only
once a wait has lasted ``WATCH_AFTER_S``. Whether the client leaves before the watch starts
or after, a 2026-07-28 call is cancelled (CN-10) and a legacy one runs on; a message that
comes before the answer still turns the answer into an SSE stream. Real uvicorn on
127.0.0.1, raw httpx, every message schema-checked.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
from collections.abc import AsyncIterator
from typing import Any

import httpx
import orjson
import pytest

import test_http_modern as modern
from test_http_legacy import BOTH, JSON_ONLY, SSE, TIMEOUT, Gate, Peer, text_of
from toolwire import Context, Server
from toolwire.transports.http import follow as http_follow
from toolwire.transports.http.sse import Stream

from http_server import serve_http

pytestmark = pytest.mark.timeout(30)

RESUMABLE = "2025-11-25"


class Held:
    """What the held tool went through, seen from the test's thread."""

    def __init__(self) -> None:
        self.gate = Gate()
        self.started: concurrent.futures.Future[None] = concurrent.futures.Future()
        self.ended: concurrent.futures.Future[str] = concurrent.futures.Future()


def build() -> tuple[Server, Held]:
    mcp = Server("http-follow")
    held = Held()

    @mcp.tool()
    def add(a: int, b: int) -> int:
        """Add two numbers."""
        return a + b

    @mcp.tool()
    async def hold(ctx: Context, progress_after: bool = False) -> str:
        """Wait for the gate (then report progress if asked), answer."""
        outcome = "answered"
        held.started.set_result(None)
        try:
            await held.gate.wait()
            if progress_after:
                await ctx.report_progress(1, total=1)
            return "through"
        except asyncio.CancelledError:
            outcome = "cancelled"
            raise
        finally:
            held.ended.set_result(outcome)

    return mcp, held


@pytest.fixture(params=[0.0, http_follow.WATCH_AFTER_S], ids=["watched", "not-yet-watched"])
def watch_after(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> float:
    """The departure watched from the first wait on, or the default delay (the client
    leaves at once, before it elapses)."""
    monkeypatch.setattr(http_follow, "WATCH_AFTER_S", request.param)
    value: float = request.param
    return value


@contextlib.asynccontextmanager
async def legacy(**options: Any) -> AsyncIterator[tuple[Peer, Held]]:
    mcp, held = build()
    with serve_http(mcp, **options) as url:
        async with httpx.AsyncClient(timeout=TIMEOUT) as http:
            peer = Peer(http, url, RESUMABLE)
            await peer.initialize()
            yield peer, held
            assert peer.checker.client_issues == []


@contextlib.asynccontextmanager
async def modern_peer(**options: Any) -> AsyncIterator[tuple[modern.Peer, Held]]:
    mcp, held = build()
    with serve_http(mcp, **options) as url:
        async with httpx.AsyncClient(timeout=TIMEOUT) as http:
            peer = modern.Peer(http, url)
            yield peer, held
            assert peer.checker.client_issues == []


async def _finished(future: concurrent.futures.Future[Any]) -> Any:
    return await asyncio.wait_for(asyncio.wrap_future(future), TIMEOUT)


async def _leave(waiting: asyncio.Future[Any]) -> None:
    """The client gives up on its request: its connection closes."""
    waiting.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await waiting


@pytest.mark.parametrize("json_response", [False, True])
async def test_a_2026_call_whose_client_leaves_is_cancelled(
    watch_after: float, json_response: bool
) -> None:
    async with modern_peer(json_response=json_response) as (peer, held):
        waiting = asyncio.ensure_future(peer.post(peer.call("hold")))
        await _finished(held.started)
        await _leave(waiting)
        assert await _finished(held.ended) == "cancelled"
        await modern.assert_serving(peer)


@pytest.mark.parametrize("json_response", [False, True])
async def test_a_legacy_call_whose_client_leaves_runs_on(
    watch_after: float, json_response: bool
) -> None:
    async with legacy(json_response=json_response) as (peer, held):
        accept = JSON_ONLY if json_response else BOTH
        waiting = asyncio.ensure_future(peer.post(peer.call("hold"), accept=accept))
        await _finished(held.started)
        await _leave(waiting)
        await held.gate.open()
        assert await _finished(held.ended) == "answered"  # not a cancellation
        added = await peer.post(peer.call("add", {"a": 1, "b": 2}))
        assert added.status_code == 200
        assert added.json()["result"]["structuredContent"] == {"result": 3}


async def test_a_legacy_answer_that_comes_later_is_json(watch_after: float) -> None:
    async with legacy() as (peer, held):
        waiting = asyncio.ensure_future(peer.post(peer.call("hold")))
        await held.gate.open()
        answer = await asyncio.wait_for(waiting, TIMEOUT)
        assert answer.status_code == 200
        assert answer.headers["content-type"].startswith("application/json")
        assert text_of(answer.json()) == "through"


async def test_progress_after_a_wait_turns_a_legacy_answer_into_a_stream(
    watch_after: float,
) -> None:
    async with legacy() as (peer, held):
        call = peer.call("hold", {"progress_after": True}, progress="p")
        waiting = asyncio.ensure_future(peer.post(call))
        await held.gate.open()
        answer = await asyncio.wait_for(waiting, TIMEOUT)
        assert answer.status_code == 200
        assert answer.headers["content-type"].startswith(SSE)
        data = [line[6:] for line in answer.text.splitlines() if line.startswith("data: ")]
        data = [message for message in data if message]  # (not the priming event)
        for message in data:
            peer.checker.server_sent(message.encode())
        messages = [orjson.loads(message) for message in data]
        assert [m.get("method") for m in messages] == ["notifications/progress", None]
        assert text_of(messages[-1]) == "through"


async def test_progress_after_a_wait_turns_a_2026_answer_into_a_stream(
    watch_after: float,
) -> None:
    async with modern_peer() as (peer, held):
        call = peer.call("hold", {"progress_after": True}, meta={"progressToken": "p"})
        waiting = asyncio.ensure_future(peer.post(call))
        await held.gate.open()
        answer = await asyncio.wait_for(waiting, TIMEOUT)
        assert answer.status == 200
        assert answer.content_type == "text/event-stream"
        assert [m.get("method") for m in answer.messages] == ["notifications/progress", None]
        assert answer.last["result"]["content"] == [{"type": "text", "text": "through"}]


async def test_events_are_followed_in_order_even_when_numbers_skip() -> None:
    """A stream copied from a shared store may skip sequence numbers: none is lost."""

    async def never() -> Any:
        await asyncio.Event().wait()

    stream = Stream("s")
    for seq in (1, 3, 4, 7):
        stream.seq = seq - 1
        stream.push(str(seq).encode(), last=seq == 7)
    follower = http_follow.Follower(stream, never, after=1)
    seen = []
    while (event := await asyncio.wait_for(follower.next(), TIMEOUT)) is not None:
        seen.append(event[0])
    follower.close()
    assert seen == [3, 4, 7]
