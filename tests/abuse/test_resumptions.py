"""Resumptions cannot multiply a session's streams (``Last-Event-ID``, legacy revisions).

One client resumes its own GET stream 1,000 times, in bursts of 100 at once, holding every
response until the server ends it, against a real uvicorn worker (``tests/servers/abuse_bounds_server.py``)
while an ordinary client from another loopback address keeps calling a tool. Each
resumption takes the stream over: the older response ends, so one stream stays open, the
one-GET-per-session rule still holds (409), the server's memory does not grow from one
burst to the next and the ordinary client is served as usual. Every message the server sends is schema-checked.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import Counter
from collections.abc import AsyncIterator

import httpx
import orjson
import pytest

from .report import record, rss_mib
from .test_bounds import TIMEOUT, Legacy, call, first_event_id, ordinary, worker

pytestmark = pytest.mark.timeout(120)

RESUMPTIONS = 1000
BURST = 100


async def ended_or_told(session: Legacy, lines: AsyncIterator[str], token: str) -> str:
    """``"ended"`` once the server ends a response, ``"told"`` once the progress notification
    for ``token`` comes on it (each message schema-checked; a resumption first replays what
    the stream carried before)."""
    async for line in lines:
        if line.startswith("data: {"):
            session.checker.server_sent(line[6:])
            if orjson.loads(line[6:])["params"]["progressToken"] == token:
                return "told"
    return "ended"


async def test_a_thousand_resumptions_of_one_stream_hold_one_stream() -> None:
    # A connection per request, as a client reconnecting would open (none kept for reuse)
    fresh = httpx.Limits(max_connections=None, max_keepalive_connections=0)
    with worker() as server:
        async with (
            ordinary(server.url) as other,
            httpx.AsyncClient(timeout=TIMEOUT, limits=fresh) as http,
            contextlib.AsyncExitStack() as held,
        ):
            mine = await Legacy(http, server.url).open()
            stream_headers = {**mine.headers, "Accept": "text/event-stream"}
            first = await held.enter_async_context(
                http.stream("GET", server.url, headers=stream_headers)
            )
            assert first.status_code == 200
            lines = first.aiter_lines()
            resume = {**stream_headers, "Last-Event-ID": await first_event_id(lines)}
            readers = [(first, lines)]
            statuses: Counter[int] = Counter()
            most_open, ended, rss = 0, 0, [rss_mib(server.pid)]
            async with other.meanwhile():
                for n in range(RESUMPTIONS // BURST):
                    burst = await asyncio.gather(
                        *(
                            held.enter_async_context(http.stream("GET", server.url, headers=resume))
                            for _ in range(BURST)
                        )
                    )
                    statuses.update(response.status_code for response in burst)
                    readers += [(response, response.aiter_lines()) for response in burst]
                    # A message for the GET stream: only a response still open gets it.
                    token = f"burst {n}"
                    report = call("report", {"n": 1})
                    report["params"]["_meta"] = {"progressToken": token}
                    mine.check(await mine.post(report, Accept="application/json"))
                    fates = await asyncio.wait_for(
                        asyncio.gather(
                            *(ended_or_told(mine, events, token) for _, events in readers)
                        ),
                        TIMEOUT * 3,
                    )
                    most_open = max(most_open, fates.count("told"))
                    ended += fates.count("ended")
                    kept = []
                    for (response, events), fate in zip(readers, fates, strict=True):
                        if fate == "told":
                            kept.append((response, events))
                        else:  # the server ended it: the attacker lets it go
                            await response.aclose()
                    readers = kept
                    rss.append(rss_mib(server.pid))
                again = await http.get(server.url, headers=stream_headers)  # no Last-Event-ID
                theirs = await Legacy(other.http, server.url).open()
                their_get = await held.enter_async_context(
                    other.http.stream(
                        "GET", server.url, headers={**theirs.headers, "Accept": "text/event-stream"}
                    )
                )
        record(
            f"bounds: {RESUMPTIONS:,} resumptions of one GET stream ({BURST} at once)",
            f"HTTP {dict(statuses)}; open at once at most {most_open}, {ended} ended "
            f"by the server; a plain GET: {again.status_code}; RSS after each burst "
            f"{min(rss[1:]):.1f}-{max(rss[1:]):.1f} MiB",
            rss_before_mib=rss[0],
            rss_after_mib=rss[-1],
            others=other.summary() + f"; its GET stream: {their_get.status_code}",
        )
        assert set(statuses) == {200}, statuses
        assert most_open == 1 and ended == RESUMPTIONS, (most_open, ended)
        assert again.status_code == 409, again.text
        mine.check(again)
        assert their_get.status_code == 200
        other.assert_served()
        assert rss[-1] - rss[1] < 2, rss  # the first burst set up what the others reuse
