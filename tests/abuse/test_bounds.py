"""Bounds and fairness on Streamable HTTP: one client cannot take what the others need.

Each probe attacks a real uvicorn worker (``tests/servers/abuse_bounds_server.py``, a
subprocess, so its resident memory can be read) from 127.0.0.1 while an ordinary client,
connecting from another loopback address (127.0.0.3, so it is another client to the
server), keeps calling a tool; the ordinary client's latency is measured during and after
the abuse and must stay normal, with 0 errors. Every message the server sends is validated
against the negotiated revision's JSON Schema.

* Batches (2025-03-26): an oversized batch is refused at once (HTTP 400, -32600), the calls
  a session may have waiting are bounded (-31429 beyond), and the calls of a
  batch whose sender went away are cancelled (a batch is answered with one JSON body:
  nothing of it can be resumed).
* Streams: one GET stream per session, resumptions included (409); streams per session and
  per client are capped (429 with ``Retry-After``), so one client cannot use up the
  server-wide ``max_streams`` (503).
* Sessions: capped per client and in total; the least recently used idle session is
  evicted and answers 404, so its client initializes again (HT-24).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import statistics
import threading
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
import orjson
import pytest

from .report import record, rss_mib
from mcp_spec import WireChecker
from services import Worker, start_redis, start_worker
from wire import MODERN, modern_meta, raw_server

pytestmark = pytest.mark.timeout(60)

SERVER = Path(__file__).resolve().parents[1] / "servers" / "abuse_bounds_server.py"
BOTH = "application/json, text/event-stream"
BATCHES = "2025-03-26"
LEGACY = "2025-11-25"
TIMEOUT = 10.0
OTHER = "127.0.0.3"  # the ordinary client's own loopback address: another client
# Pooled connections idle this long are not reused: uvicorn closes an idle one at 5 s, and
# a request sent on it just then fails ("Server disconnected without sending a response").
POOL = httpx.Limits(keepalive_expiry=2.0)
SLOW_S = 3.0  # an ordinary call slower than this during an abuse is a failure (loaded CI)
JSON = dict[str, Any]

_ids = itertools.count(1)


@contextlib.contextmanager
def worker(*options: str, redis: str | None = None) -> Iterator[Worker]:
    """The probe server; ``options`` are ``name=value`` http_app options, or
    ``server:name=value`` Server options; ``redis`` shares its sessions through Redis."""
    args: list[str] = ["--redis", redis] if redis else []
    for option in options:
        if option.startswith("server:"):
            args += ["--server-option", option[len("server:") :]]
        else:
            args += ["--option", option]
    with start_worker(SERVER, *args) as started:
        yield started


def call(name: str, arguments: JSON | None = None, mid: int | None = None) -> JSON:
    return {
        "jsonrpc": "2.0",
        "id": next(_ids) if mid is None else mid,
        "method": "tools/call",
        "params": {"name": name, "arguments": arguments or {}},
    }


def sse_messages(text: str) -> list[JSON]:
    return [orjson.loads(line[5:]) for line in text.splitlines() if line.startswith("data: {")]


class Legacy:
    """A legacy session over HTTP whose every server message is schema-checked."""

    def __init__(self, http: httpx.AsyncClient, url: str, revision: str = LEGACY) -> None:
        self.http = http
        self.url = url
        self.revision = revision
        self.checker = WireChecker(revision)
        self.headers: dict[str, str] = {"Accept": BOTH, "Content-Type": "application/json"}
        self.session_id = ""

    async def open(self) -> Legacy:
        initialize = {
            "jsonrpc": "2.0",
            "id": 0,
            "method": "initialize",
            "params": {
                "protocolVersion": self.revision,
                "capabilities": {},
                "clientInfo": {"name": "tests", "version": "0"},
            },
        }
        self.checker.client_sent(initialize)
        response = await self.http.post(
            self.url, content=orjson.dumps(initialize), headers=self.headers
        )
        assert response.status_code == 200, response.text
        self.checker.server_sent(response.content)
        self.session_id = response.headers["mcp-session-id"]
        self.headers = {
            **self.headers,
            "Mcp-Session-Id": self.session_id,
            "MCP-Protocol-Version": self.revision,
        }
        initialized = {"jsonrpc": "2.0", "method": "notifications/initialized"}
        done = await self.http.post(
            self.url, content=orjson.dumps(initialized), headers=self.headers
        )
        assert done.status_code == 202, done.text
        return self

    def check(self, response: httpx.Response) -> list[JSON]:
        """The messages of an answer (JSON or SSE), each validated."""
        kind = response.headers.get("content-type", "")
        if kind.startswith("text/event-stream"):
            messages = sse_messages(response.text)
        else:
            assert kind.startswith("application/json"), (response.status_code, response.text)
            body = response.json()
            messages = body if isinstance(body, list) else [body]
        for message in messages:
            self.checker.server_sent(message)
        return messages

    async def post(self, message: Any, **headers: str) -> httpx.Response:
        if isinstance(message, dict):
            self.checker.client_sent(message)
        return await self.http.post(
            self.url, content=orjson.dumps(message), headers={**self.headers, **headers}
        )


def modern_call(name: str, arguments: JSON) -> tuple[JSON, dict[str, str]]:
    message = call(name, arguments)
    message["params"]["_meta"] = modern_meta()
    headers = {
        "Accept": BOTH,
        "Content-Type": "application/json",
        "MCP-Protocol-Version": MODERN,
        "Mcp-Method": "tools/call",
        "Mcp-Name": name,
    }
    return message, headers


class Ordinary:
    """An ordinary client calling ``add`` (2026-07-28, JSON answers) from its own address,
    timing every call; any failure is counted, never raised. It runs in a thread of its
    own, so what it measures is the server, not the attacker sharing this test's loop.
    ``http`` is an async client from the same address, for the tests' own use."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.checker = WireChecker(MODERN)
        self.latencies: list[float] = []
        self.errors: list[str] = []
        self.http = httpx.AsyncClient(
            timeout=TIMEOUT, limits=POOL, transport=httpx.AsyncHTTPTransport(local_address=OTHER)
        )
        self._sync = httpx.Client(
            timeout=TIMEOUT, limits=POOL, transport=httpx.HTTPTransport(local_address=OTHER)
        )

    def once(self) -> None:
        a = next(_ids)
        message, headers = modern_call("add", {"a": a, "b": 1})
        self.checker.client_sent(message)
        started = time.perf_counter()
        try:
            response = self._sync.post(self.url, content=orjson.dumps(message), headers=headers)
        except httpx.HTTPError as exc:
            self.errors.append(f"{type(exc).__name__}")
            self.latencies.append(time.perf_counter() - started)
            return
        self.latencies.append(time.perf_counter() - started)
        if response.status_code != 200:
            self.errors.append(f"HTTP {response.status_code}")
            return
        self.checker.server_sent(response.content)
        if response.json().get("result", {}).get("structuredContent") != {"result": a + 1}:
            self.errors.append(f"wrong answer {response.text[:80]}")

    async def sample(self, count: int) -> None:
        def calls() -> None:
            for _ in range(count):
                self.once()

        await asyncio.to_thread(calls)

    @contextlib.asynccontextmanager
    async def meanwhile(self) -> AsyncIterator[None]:
        """Keep calling while the block runs (at least a few calls)."""
        stop = threading.Event()

        def loop() -> None:
            calls = 0
            while not stop.is_set() or calls < 5:
                self.once()
                calls += 1

        thread = threading.Thread(target=loop, daemon=True)
        thread.start()
        try:
            yield
        finally:
            stop.set()
            await asyncio.to_thread(thread.join, 60)
            assert not thread.is_alive()

    def summary(self) -> str:
        ms = sorted(x * 1000 for x in self.latencies)
        if not ms:
            return f"0 calls, {len(self.errors)} errors"
        return (
            f"{len(ms)} calls, p50 {statistics.median(ms):.1f} ms, max {ms[-1]:.0f} ms, "
            f"{len(self.errors)} errors"
        )

    def assert_served(self) -> None:
        assert not self.errors, (self.errors[:5], self.summary())
        assert max(self.latencies, default=0.0) < SLOW_S, self.summary()

    async def aclose(self) -> None:
        await self.http.aclose()
        self._sync.close()


@contextlib.asynccontextmanager
async def ordinary(url: str) -> AsyncIterator[Ordinary]:
    client = Ordinary(url)
    try:
        await client.sample(10)  # warm: the server is up, the connection open
        client.latencies.clear()  # (its start-up is not what is measured; errors still count)
        yield client
    finally:
        await client.aclose()


async def send_and_leave(url: str, headers: dict[str, str], body: bytes) -> None:
    """POST ``body`` and hang up without reading the answer."""
    parts = urlsplit(url)
    _reader, writer = await asyncio.open_connection(parts.hostname, parts.port)
    head = [f"POST {parts.path} HTTP/1.1", f"Host: {parts.netloc}", f"Content-Length: {len(body)}"]
    head += [f"{name}: {value}" for name, value in headers.items()]
    writer.write(("\r\n".join(head) + "\r\n\r\n").encode() + body)
    await writer.drain()
    writer.close()
    with contextlib.suppress(ConnectionError):
        await writer.wait_closed()


async def counts(session: Legacy, settled: int = 0, started: int = 0) -> JSON:
    """The server's tally of ``work`` calls, once ``settled`` ended and ``started`` began."""
    arguments = {"settled": settled, "started": started}
    response = await session.post(call("counts", arguments), Accept="application/json")
    (message,) = session.check(response)
    result: JSON = orjson.loads(message["result"]["content"][0]["text"])  # (2025-03-26)
    return result


# ---------------------------------------------------------------------------- batches


def work_batch(count: int, ms: int) -> bytes:
    return orjson.dumps([call("work", {"ms": ms}) for _ in range(count)])


async def test_batch_amplification_is_refused_at_once() -> None:
    """Five 2025-03-26 batches of 40,000 calls (3.4 MB each), their senders hanging up at
    once: each is refused whole before anything runs, memory stays flat and the ordinary
    client is served as usual; an attacker that waits sees 400 with a -32600 error."""
    with worker() as server:
        async with (
            ordinary(server.url) as other,
            httpx.AsyncClient(timeout=TIMEOUT, limits=POOL) as http,
        ):
            session = await Legacy(http, server.url, BATCHES).open()
            body = work_batch(40_000, 50)
            assert len(body) < 4 * 1024 * 1024
            rss_before = rss_mib(server.pid)
            async with other.meanwhile():
                await asyncio.gather(
                    *(send_and_leave(server.url, session.headers, body) for _ in range(5))
                )
                refused = await session.post(orjson.loads(body))
            await other.sample(10)  # after
            assert refused.status_code == 400, refused.text[:200]
            (error,) = session.check(refused)
            assert error["error"]["code"] == -32600 and "id" not in error
            assert "at most" in error["error"]["message"]
            tally = await counts(session)
            rss_after = rss_mib(server.pid)
        record(
            "bounds: 5 batches of 40,000 calls (2025-03-26), senders gone",
            f"HTTP {refused.status_code} {error['error']['code']}, {tally['started']} calls ran",
            rss_before_mib=rss_before,
            rss_after_mib=rss_after,
            others=other.summary(),
        )
        assert tally["started"] == 0, tally
        other.assert_served()
        assert rss_after - rss_before < 64, (rss_before, rss_after)


async def test_the_calls_of_a_batch_whose_sender_left_are_cancelled() -> None:
    """A batch is answered by one JSON body, which nothing can resume: when its sender
    hangs up, the calls still running are cancelled rather than run to completion."""
    with worker() as server:
        async with httpx.AsyncClient(timeout=TIMEOUT, limits=POOL) as http:
            session = await Legacy(http, server.url, BATCHES).open()
            await send_and_leave(server.url, session.headers, work_batch(50, 60_000))
            tally = await counts(session, 50)
        record(
            "bounds: batch of 50 long calls, sender gone",
            f"{tally['cancelled']} of {tally['started']} calls cancelled",
        )
        assert tally == {"started": 50, "finished": 0, "cancelled": 50}, tally


async def test_calls_in_flight_per_session_are_bounded() -> None:
    """A caller (here a session) runs calls within its share and may have
    ``max_queued_calls_per_caller`` more waiting: the calls of a batch or a single call
    beyond that are refused at once (-31429; 429 and Retry-After for a single call), before
    they run; other clients are served meanwhile, and the session is served again once its
    calls end."""
    # A share of 10 of the 20 slots: the session's first 10 calls run whatever the observer's
    # call takes (the observer is another caller: another address), the next 4 wait, and
    # any more are refused.
    options = (
        "max_concurrent_calls=20",
        "max_calls_per_caller=10",
        "max_queued_calls_per_caller=4",
    )
    elsewhere = httpx.AsyncHTTPTransport(local_address=OTHER)  # another caller
    with worker(*(f"server:{option}" for option in options)) as server:
        async with (
            ordinary(server.url) as other,
            httpx.AsyncClient(timeout=TIMEOUT, limits=POOL) as http,
            httpx.AsyncClient(timeout=TIMEOUT, limits=POOL, transport=elsewhere) as observing,
        ):
            session = await Legacy(http, server.url, BATCHES).open()
            observer = await Legacy(observing, server.url, BATCHES).open()
            rss_before = rss_mib(server.pid)
            async with other.meanwhile():
                held = [
                    asyncio.ensure_future(
                        session.post([call("work", {"ms": 60_000}) for _ in range(14)])
                    )
                ]
                await counts(observer, started=10)
                refused = [
                    await session.post([call("work", {"ms": 1}) for _ in range(5)]),
                    await session.post(call("work", {"ms": 1})),
                ]
                held[0].cancel()  # its sender hangs up: its calls are cancelled
                with contextlib.suppress(asyncio.CancelledError):
                    await held[0]
                tally = await counts(observer, 10)
                again = await session.post(call("work", {"ms": 1}))
        rss_after = rss_mib(server.pid)
        for response, count, status in zip(refused, (5, 1), (200, 429), strict=True):
            assert response.status_code == status, response.text
            errors = session.check(response)  # each request of the batch is answered
            assert len(errors) == count
            assert {error["error"]["code"] for error in errors} == {-31429}, errors
        assert int(refused[1].headers["retry-after"]) >= 1
        assert again.status_code == 200, again.text
        session.check(again)
        record(
            "bounds: calls of one session past its share and max_queued_calls_per_caller=4",
            f"-31429 for each call of a batch (HTTP 200) and a call (HTTP "
            f"{refused[1].status_code}); {tally['started']} calls ran, "
            f"{tally['cancelled']} cancelled at hang-up",
            rss_before_mib=rss_before,
            rss_after_mib=rss_after,
            others=other.summary(),
        )
        assert tally == {"started": 10, "finished": 0, "cancelled": 10}, tally
        other.assert_served()


async def test_an_oversized_batch_over_stdio_is_refused_at_once() -> None:
    """Batches are dispatched in one place for every transport: over stdio too, a batch
    past ``max_batch_size`` is one -32600 error and nothing of it runs."""
    async with raw_server(SERVER, revision=BATCHES) as server:
        await server.initialize(BATCHES)
        rss_before = rss_mib(server.process.pid)
        # the flood goes out unchecked: the schema check of 40,000 requests of the test's own
        # took most of the test's timeout on a busy machine; what the server answers is checked
        await server.send_raw(orjson.dumps([call("work", {"ms": 60_000}) for _ in range(40_000)]))
        refused = await server.recv()
        small = [call("add", {"a": 1, "b": n}) for n in range(3)]
        await server.send(small)
        answered = await server.recv()
        tally = await server.request("tools/call", {"name": "counts", "arguments": {}})
        rss_after = rss_mib(server.process.pid)
    record(
        "bounds: batch of 40,000 calls over stdio",
        f"{refused['error']['code']} at once, {len(answered)} of a batch of 3 answered",
        rss_before_mib=rss_before,
        rss_after_mib=rss_after,
    )
    assert refused["error"]["code"] == -32600 and "at most 100" in refused["error"]["message"]
    assert sorted(m["id"] for m in answered) == sorted(m["id"] for m in small)
    assert orjson.loads(tally["result"]["content"][0]["text"])["started"] == 0


# ---------------------------------------------------------------------------- streams


async def first_event_id(lines: AsyncIterator[str]) -> str:
    """The id of the first event of an SSE stream (its priming event)."""
    while True:
        line = await asyncio.wait_for(lines.__anext__(), TIMEOUT)
        if line.startswith("id: "):
            return line[4:]


async def test_one_client_cannot_take_every_stream() -> None:
    """One client opens a GET stream, asks for 300 more on the same session (409 each),
    resumes its own stream 300 times (each resumption takes the stream over: one reader
    at a time), then opens a GET stream on 60 sessions of its own (429 past
    ``max_client_streams``). The server-wide limit is never reached: another client
    still gets its GET stream and an SSE answer."""
    limits = ("max_streams=60", "max_client_streams=20")
    # every request on a connection of its own: a pooled one that sat idle while 300 answers
    # were read can be closed by uvicorn (5 s) just as it is reused on a busy machine
    many = httpx.Limits(max_connections=1000, max_keepalive_connections=0)
    with worker(*limits) as server:
        async with (
            ordinary(server.url) as other,
            httpx.AsyncClient(timeout=TIMEOUT, limits=many) as http,
            contextlib.AsyncExitStack() as held,
        ):
            rss_before = rss_mib(server.pid)
            mine = await Legacy(http, server.url).open()
            stream_headers = {**mine.headers, "Accept": "text/event-stream"}
            first = await held.enter_async_context(
                http.stream("GET", server.url, headers=stream_headers)
            )
            assert first.status_code == 200
            event_id = await first_event_id(first.aiter_lines())
            seen: dict[int, int] = {}
            async with other.meanwhile():
                again = await asyncio.gather(
                    *(http.get(server.url, headers=stream_headers) for _ in range(300))
                )
                for response in again:
                    seen[response.status_code] = seen.get(response.status_code, 0) + 1
                    mine.check(response)
                resumed = []
                for _ in range(300):  # each one held open, as an attacker would
                    response = await held.enter_async_context(
                        http.stream(
                            "GET", server.url, headers={**stream_headers, "Last-Event-ID": event_id}
                        )
                    )
                    resumed.append(response.status_code)
                sessions = [await Legacy(http, server.url).open() for _ in range(60)]
                opened = []
                for session in sessions:
                    response = await held.enter_async_context(
                        http.stream(
                            "GET",
                            server.url,
                            headers={**session.headers, "Accept": "text/event-stream"},
                        )
                    )
                    if response.status_code != 200:
                        await response.aread()
                        session.check(response)
                        assert int(response.headers["retry-after"]) >= 1
                    opened.append(response.status_code)
                # Meanwhile another client gets its GET stream and an SSE answer.
                theirs = Legacy(other.http, server.url)
                await theirs.open()
                their_get = await held.enter_async_context(
                    other.http.stream(
                        "GET", server.url, headers={**theirs.headers, "Accept": "text/event-stream"}
                    )
                )
                message = call("report", {"n": 3})
                message["params"]["_meta"] = {"progressToken": "p"}
                answer = await theirs.post(message, Accept="text/event-stream")
            rss_after = rss_mib(server.pid)
        record(
            "bounds: 300 GETs + 300 resumptions on one session, GETs on 60 sessions",
            f"GET {seen}, resumptions {sorted(set(resumed))}, "
            f"GET per session: {opened.count(200)} x 200, {opened.count(429)} x 429",
            rss_before_mib=rss_before,
            rss_after_mib=rss_after,
            others=other.summary() + "; its GET and SSE call: 200",
        )
        assert seen == {409: 300}, seen
        assert set(resumed) == {200}, resumed
        assert opened.count(200) == 19 and opened.count(429) == 41, opened  # 1 held already
        assert their_get.status_code == 200
        assert answer.status_code == 200 and answer.headers["content-type"].startswith(
            "text/event-stream"
        )
        messages = theirs.check(answer)
        assert [m.get("method") for m in messages] == ["notifications/progress"] * 3 + [None]
        other.assert_served()


# ---------------------------------------------------------------------------- sessions


async def initialize_many(url: str, address: str, count: int) -> list[str]:
    """``count`` initialize requests from ``address``, never ended: their session ids."""
    body = orjson.dumps(
        {
            "jsonrpc": "2.0",
            "id": 0,
            "method": "initialize",
            "params": {
                "protocolVersion": LEGACY,
                "capabilities": {},
                "clientInfo": {"name": "flood", "version": "0"},
            },
        }
    )
    headers = {"Accept": BOTH, "Content-Type": "application/json"}
    checker = WireChecker(LEGACY)
    ids: list[str] = []
    transport = httpx.AsyncHTTPTransport(local_address=address)
    async with httpx.AsyncClient(timeout=TIMEOUT, limits=POOL, transport=transport) as http:

        async def some(n: int) -> None:
            for _ in range(n):
                response = await http.post(url, content=body, headers=headers)
                assert response.status_code == 200, response.text
                checker.server_sent(response.content)
                ids.append(response.headers["mcp-session-id"])

        await asyncio.gather(*(some(count // 8) for _ in range(8)))
    return ids


@pytest.mark.timeout(180)  # 2,000 HTTP round trips: 35 to 43 s beside two other test runs
async def test_sessions_are_bounded_and_idle_ones_evicted() -> None:
    """Two clients (127.0.0.1, 127.0.0.2) each initialize 1,000 sessions and never end
    them: each keeps at most ``max_client_sessions`` (100), the total stays within
    ``max_sessions`` (150), the least recently used idle sessions are evicted and answer
    404 with a JSON-RPC error, so their clients initialize again. A busy session (a GET
    stream open) and another client's session in use are never evicted."""
    with worker("max_sessions=150") as server:
        async with (
            ordinary(server.url) as other,
            httpx.AsyncClient(timeout=TIMEOUT, limits=POOL) as http,
            httpx.AsyncClient(
                timeout=TIMEOUT,
                limits=POOL,
                transport=httpx.AsyncHTTPTransport(local_address=OTHER),
            ) as their_http,
        ):
            theirs = await Legacy(their_http, server.url).open()
            busy = await Legacy(http, server.url).open()
            rss_before = rss_mib(server.pid)
            async with (
                http.stream(
                    "GET", server.url, headers={**busy.headers, "Accept": "text/event-stream"}
                ) as busy_stream,
            ):
                assert busy_stream.status_code == 200
                async with other.meanwhile():
                    flood = asyncio.gather(
                        initialize_many(server.url, "127.0.0.1", 1000),
                        initialize_many(server.url, "127.0.0.2", 1000),
                    )
                    their_calls = []
                    while not flood.done():  # their session stays in use meanwhile
                        response = await theirs.post(call("add", {"a": 1, "b": 2}))
                        theirs.check(response)
                        their_calls.append(response.status_code)
                    first, second = await flood
                    still_busy = await busy.post(call("add", {"a": 1, "b": 2}))
            evicted = await http.post(
                server.url,
                content=orjson.dumps(call("add", {"a": 1, "b": 2})),
                headers={**busy.headers, "Mcp-Session-Id": first[0]},
            )
            kept = await http.post(
                server.url,
                content=orjson.dumps(call("add", {"a": 1, "b": 2})),
                headers={**busy.headers, "Mcp-Session-Id": first[-1]},
            )
            rss_after = rss_mib(server.pid)
        record(
            "bounds: 2 x 1,000 initialize without DELETE (max_sessions=150)",
            f"oldest session HTTP {evicted.status_code}, newest {kept.status_code}, "
            f"busy one {still_busy.status_code}",
            rss_before_mib=rss_before,
            rss_after_mib=rss_after,
            others=other.summary()
            + f"; a legacy session in use: {len(their_calls)} calls, statuses {set(their_calls)}",
        )
        assert len(first) == len(second) == 1000
        assert evicted.status_code == 404, evicted.text
        busy.check(evicted)
        assert evicted.json()["error"]["code"] == -32600
        assert kept.status_code == 200, kept.text
        assert still_busy.status_code == 200, still_busy.text
        assert set(their_calls) == {200}, their_calls
        other.assert_served()
        assert rss_after - rss_before < 8, (rss_before, rss_after)


async def test_a_client_whose_sessions_are_all_busy_is_told_to_retry() -> None:
    """Past ``max_client_sessions`` with no idle session to evict, an initialize is
    refused: 429, Retry-After and a -31429 error; another client is served."""
    many = httpx.Limits(max_connections=100, keepalive_expiry=2.0)
    with worker("max_client_sessions=3") as server:
        async with (
            ordinary(server.url) as other,
            httpx.AsyncClient(timeout=TIMEOUT, limits=many) as http,
            contextlib.AsyncExitStack() as held,
        ):
            for _ in range(3):
                session = await Legacy(http, server.url).open()
                stream = await held.enter_async_context(
                    http.stream(
                        "GET",
                        server.url,
                        headers={**session.headers, "Accept": "text/event-stream"},
                    )
                )
                assert stream.status_code == 200
            refused = await http.post(
                server.url,
                content=orjson.dumps(
                    {
                        "jsonrpc": "2.0",
                        "id": 0,
                        "method": "initialize",
                        "params": {
                            "protocolVersion": LEGACY,
                            "capabilities": {},
                            "clientInfo": {"name": "tests", "version": "0"},
                        },
                    }
                ),
                headers={"Accept": BOTH, "Content-Type": "application/json"},
            )
            await Legacy(other.http, server.url).open()  # another client is served
        assert refused.status_code == 429, refused.text
        assert int(refused.headers["retry-after"]) >= 1
        error = refused.json()
        WireChecker(LEGACY).server_sent(error)
        assert error["error"]["code"] == -31429 and "id" in error
        other.assert_served()


async def test_workers_sharing_redis_end_the_sessions_they_evict() -> None:
    """With a shared store each worker bounds the sessions it began: a flood through one
    worker evicts its least recently used idle sessions there and in Redis, so they
    answer 404 through every worker; the flood's newest sessions and another client's
    session in use go on through either worker."""
    with start_redis() as redis, worker(redis=redis) as a, worker(redis=redis) as b:
        async with (
            ordinary(b.url) as other,
            httpx.AsyncClient(timeout=TIMEOUT, limits=POOL) as http,
        ):
            theirs = await Legacy(other.http, a.url).open()
            rss_before = rss_mib(a.pid)
            async with other.meanwhile():
                flood = await initialize_many(a.url, "127.0.0.1", 400)
                their_call = await theirs.post(call("add", {"a": 1, "b": 2}))
            rss_after = rss_mib(a.pid)
            statuses = {}
            for name, url in (("a", a.url), ("b", b.url)):
                for which, session_id in (("oldest", flood[0]), ("newest", flood[-1])):
                    response = await http.post(
                        url,
                        content=orjson.dumps(call("add", {"a": 1, "b": 2})),
                        headers={**theirs.headers, "Mcp-Session-Id": session_id},
                    )
                    statuses[f"{which} via {name}"] = response.status_code
                    theirs.check(response)
        record(
            "bounds: 400 initialize through one of two workers sharing Redis",
            ", ".join(f"{key}: {value}" for key, value in statuses.items()),
            rss_before_mib=rss_before,
            rss_after_mib=rss_after,
            others=other.summary()
            + f"; their session on the flooded worker: {their_call.status_code}",
        )
        assert statuses == {
            "oldest via a": 404,
            "newest via a": 200,
            "oldest via b": 404,
            "newest via b": 200,
        }, statuses
        assert their_call.status_code == 200
        other.assert_served()
