"""Stream bounds and resumptions (``transports/http/limits.py``): a session's streams are
bounded whether a GET opened them or a ``Last-Event-ID`` resumed them.

A resumption of a stream someone is reading takes it over in its place in the counts: the
older response ends and nothing more is held, so it is served even when the session is at
its limit (a client reconnecting before the server saw its connection drop). A resumption
of a stream nobody reads opens one more stream and is refused past the limit (429,
``Retry-After``, -31429). Real uvicorn on 127.0.0.1, raw httpx, every message
schema-checked (:mod:`test_http_legacy`'s peer).
"""

from __future__ import annotations

import asyncio
import contextlib

import httpx
import pytest

from test_http_legacy import TIMEOUT, Events, endpoint, text_of
from toolwire.transports.http.limits import Streams

pytestmark = pytest.mark.timeout(60)

RESUMABLE = "2025-11-25"
BUSY = -31429


def refused_busy(response: httpx.Response) -> None:
    """429 with ``Retry-After`` and a JSON-RPC -31429 naming the session's limit (the body
    was schema-checked by the peer)."""
    assert response.status_code == 429, response.text
    assert int(response.headers["retry-after"]) >= 1
    error = response.json()["error"]
    assert error["code"] == BUSY and "this session" in error["message"], error


async def ended(events: Events) -> None:
    """The server ends this response (read to its end within the client's timeout)."""
    await asyncio.wait_for(events.rest(), TIMEOUT)


async def test_resuming_a_stream_that_is_read_takes_it_over_even_at_the_session_limit() -> None:
    """The session holds its limit of two streams (its GET stream, a call's stream): a new
    stream is refused, yet each stream resumes 20 times, every older response ending; the
    newest readers get what follows, and the call's answer; then a stream opens again."""
    async with (
        endpoint(RESUMABLE, max_session_streams=2) as (peer, gate),
        contextlib.AsyncExitStack() as held,
    ):
        get = await held.enter_async_context(peer.get_stream())
        get_priming = await get.next()
        call = peer.call("gated", progress="g")
        post = await held.enter_async_context(peer.post_stream(call))
        assert (await post.next()) is not None  # priming
        first = await post.next()
        assert get_priming is not None and get_priming.id
        assert first is not None and first.id and first.message["params"]["progress"] == 1

        refused_busy(
            await peer.post(peer.call("add", {"a": 1, "b": 2}), accept="text/event-stream")
        )

        readers = {"get": get, "call": post}
        last_ids = {"get": get_priming.id, "call": first.id}
        for _ in range(20):
            for name, last in last_ids.items():
                newer = await held.enter_async_context(peer.get_stream(last_event_id=last))
                await ended(readers[name])  # taken over: the older response ends
                readers[name] = newer

        grown = await peer.post(peer.call("grow"))
        assert text_of(grown.json()) == "grown"
        note = await asyncio.wait_for(readers["get"].message(), TIMEOUT)
        assert note["method"] == "notifications/tools/list_changed"

        await gate.open()
        rest = [event.message for event in await asyncio.wait_for(readers["call"].rest(), TIMEOUT)]
        assert rest[0]["params"]["progress"] == 2
        assert rest[-1]["id"] == call["id"] and text_of(rest[-1]) == "through the gate"

        # The call's stream is over and closed: a slot is free again.
        async with peer.post_stream(
            peer.call("count", {"steps": 1}), accept="text/event-stream"
        ) as again:
            answer = [event.message for event in await again.rest() if event.data][-1]
        assert text_of(answer) == "counted to 1"


async def test_resuming_a_stream_nobody_reads_counts_toward_the_session_limit() -> None:
    """A finished call's stream, resumed, is one more stream of its session: at the limit
    (one, the GET stream) it is refused with 429; the GET stream itself still resumes and
    gets what follows."""
    async with endpoint(RESUMABLE, max_session_streams=1) as (peer, _gate):
        async with peer.post_stream(
            peer.call("count", {"steps": 2}, progress="c"), accept="text/event-stream"
        ) as done:
            events = await done.rest()
        call_id = events[0].id
        assert call_id is not None

        async with peer.get_stream() as get:
            priming = await get.next()
            assert priming is not None and priming.id
            refused_busy(await peer.get(last_event_id=call_id))
            async with peer.get_stream(last_event_id=priming.id) as resumed:
                await ended(get)
                grown = await peer.post(peer.call("grow"))
                assert text_of(grown.json()) == "grown"
                note = await asyncio.wait_for(resumed.message(), TIMEOUT)
                assert note["method"] == "notifications/tools/list_changed"


async def test_readers_that_take_over_share_one_place_whatever_order_they_leave_in() -> None:
    """Three readers of one stream, each taking over: one place is counted, the older ones
    are told at once, and it is freed when the newest reader leaves; the older ones leaving
    after it change nothing."""
    streams = Streams(10, None, 1)
    readers = [streams.opened("s", "a") for _ in range(3)]
    told = [reader.__enter__() for reader in readers]
    assert [future is not None and future.done() for future in told] == [True, True, False]
    assert streams.open == 1 and streams.session_streams("s") == 1
    assert streams.refusal("s") is not None  # the session's one place is taken
    readers[2].__exit__(None, None, None)  # the newest leaves first
    assert streams.open == 0 and streams.refusal("s") is None
    for reader in readers[:2]:
        reader.__exit__(None, None, None)
    assert streams.open == 0 and streams.session_streams("s") == 0
