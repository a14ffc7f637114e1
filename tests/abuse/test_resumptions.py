"""Resumptions cannot multiply a session's streams (``Last-Event-ID``, legacy revisions).

One client resumes its own GET stream 1,000 times, in bursts of 100 at once, holding every
response open, against a real uvicorn worker (``tests/servers/abuse_bounds_server.py``)
while an ordinary client from another loopback address keeps calling a tool. Each
resumption takes the stream over: the older response ends, so one stream stays open, the
one-GET-per-session rule still holds (409), the server's memory does not grow and the
ordinary client is served as usual. Every message the server sends is schema-checked.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator

import httpx
import pytest

from .report import record, rss_mib
from .test_bounds import TIMEOUT, Legacy, call, first_event_id, ordinary, worker

pytestmark = pytest.mark.timeout(120)

RESUMPTIONS = 1000
BURST = 100


async def ended_or_told(session: Legacy, lines: AsyncIterator[str]) -> str:
    """``"ended"`` once the server ends a response, ``"told"`` if a message comes on it
    first (schema-checked)."""
    async for line in lines:
        if line.startswith("data: {"):
            session.checker.server_sent(line[6:])
            return "told"
    return "ended"


async def test_a_thousand_resumptions_of_one_stream_hold_one_stream() -> None:
    many = httpx.Limits(max_connections=RESUMPTIONS + 10, max_keepalive_connections=100)
    with worker() as server:
        async with (
            ordinary(server.url) as other,
            httpx.AsyncClient(timeout=TIMEOUT, limits=many) as http,
            contextlib.AsyncExitStack() as held,
        ):
            mine = await Legacy(http, server.url).open()
            stream_headers = {**mine.headers, "Accept": "text/event-stream"}
            first = await held.enter_async_context(
                http.stream("GET", server.url, headers=stream_headers)
            )
            assert first.status_code == 200
            lines = first.aiter_lines()
            event_id = await first_event_id(lines)
            resume = {**stream_headers, "Last-Event-ID": event_id}
            rss_before = rss_mib(server.pid)
            responses = [first]
            async with other.meanwhile():
                for _ in range(RESUMPTIONS // BURST):
                    responses += await asyncio.gather(
                        *(
                            held.enter_async_context(http.stream("GET", server.url, headers=resume))
                            for _ in range(BURST)
                        )
                    )
                statuses = {r.status_code for r in responses}
                again = await http.get(server.url, headers=stream_headers)  # no Last-Event-ID
                # A message for the GET stream: only the one stream still open gets it.
                message = call("report", {"n": 1})
                message["params"]["_meta"] = {"progressToken": "p"}
                told = await mine.post(message, Accept="application/json")
                fates = await asyncio.wait_for(
                    asyncio.gather(
                        ended_or_told(mine, lines),
                        *(ended_or_told(mine, r.aiter_lines()) for r in responses[1:]),
                    ),
                    TIMEOUT * 3,
                )
                theirs = await Legacy(other.http, server.url).open()
                their_get = await held.enter_async_context(
                    other.http.stream(
                        "GET", server.url, headers={**theirs.headers, "Accept": "text/event-stream"}
                    )
                )
            rss_after = rss_mib(server.pid)
        record(
            f"bounds: {RESUMPTIONS:,} resumptions of one GET stream ({BURST} at once)",
            f"{len(responses) - 1} x {sorted(statuses)}; open afterwards: {fates.count('told')}, "
            f"ended (taken over): {fates.count('ended')}; a plain GET: {again.status_code}",
            rss_before_mib=rss_before,
            rss_after_mib=rss_after,
            others=other.summary() + f"; its GET stream: {their_get.status_code}",
        )
        assert statuses == {200}, statuses
        assert told.status_code == 200, told.text
        mine.check(told)
        assert fates.count("told") == 1 and fates.count("ended") == RESUMPTIONS, fates.count("told")
        assert again.status_code == 409, again.text
        mine.check(again)
        assert their_get.status_code == 200
        other.assert_served()
        assert rss_after - rss_before < 8, (rss_before, rss_after)
