"""Faults and abuse around resumable SSE streams, the session store and HTTP shutdown.

Everything is real: ``redis-server`` on loopback, two uvicorn worker processes sharing a
:class:`~toolwire.transports.store.stores.RedisStore` (``tests/servers/abuse_streams_worker.py``),
real signals (SIGKILL a worker, SIGSTOP/SIGCONT or stop and restart Redis, SIGTERM a server
run by ``mcp.run(transport="http")``). Each probe records what the client saw, the serving
process's memory before and after, and how an ordinary client fared meanwhile. Every message
a server sends is validated against the negotiated revision's schema.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import re
import signal
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import orjson
import pytest

from .report import record, rss_mib
from mcp_spec import WireChecker
from services import (
    LOOPBACK,
    READY_TIMEOUT,
    Worker,
    _Lines,
    _stop,
    free_port,
    require,
    start_worker,
)

pytestmark = pytest.mark.timeout(45)

REVISION = "2025-11-25"
MODERN = "2026-07-28"
BOTH = "application/json, text/event-stream"
SERVER = Path(__file__).resolve().parents[1] / "servers" / "abuse_streams_worker.py"
TIMEOUT = 10.0  # seconds for any one read
QUICK = 2.0  # seconds within which a refusal must come (the broken behaviour: 5-45 s)
# A new connection per request: a call here stays silent for PAUSE, about uvicorn's 5 s
# keep-alive timeout, so a pooled connection could be reused just as the worker closes it.
FRESH = httpx.Limits(max_keepalive_connections=0)
PAUSE = 5.5  # seconds a call stays silent before its result: past redis-py's socket timeout
FOLLOW = 6.0  # the workers' follow_timeout: longer than redis-py's 5 s socket timeout
HEARTBEAT = 5.0  # RedisStore's default: how long a dead worker's heartbeat lives
JSON = dict[str, Any]
NO_PERSISTENCE = ["--save", "", "--appendonly", "no", "--loglevel", "notice"]


# ---------------------------------------------------------------------------- redis


@dataclass
class Redis:
    """A redis-server this test owns: its process can be stopped, frozen and restarted."""

    port: int
    process: subprocess.Popen[bytes] | None = None
    lines: _Lines | None = None

    @property
    def url(self) -> str:
        return f"redis://{LOOPBACK}:{self.port}/0"

    def start(self) -> None:
        binary = require("redis-server")
        self.process = subprocess.Popen(
            [binary, *f"--port {self.port} --bind {LOOPBACK}".split(), *NO_PERSISTENCE],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
        )
        assert self.process.stdout is not None
        self.lines = _Lines(self.process.stdout, "redis-server")
        if not self.lines.wait_for("Ready to accept connections", READY_TIMEOUT):
            raise AssertionError(f"redis-server did not start:\n{self.lines.text()}")

    def stop(self) -> None:
        if self.process is not None:
            self.process.send_signal(signal.SIGCONT)  # a frozen one must hear the SIGTERM
            _stop(self.process)
            assert self.lines is not None
            self.lines.join()
            self.process = None

    def signal(self, signum: int) -> None:
        assert self.process is not None
        self.process.send_signal(signum)


@contextlib.contextmanager
def own_redis() -> Iterator[Redis]:
    server = Redis(free_port())
    server.start()
    try:
        yield server
    finally:
        server.stop()


@contextlib.contextmanager
def workers(redis: Redis | None, count: int = 2, *extra: str) -> Iterator[list[Worker]]:
    args = ["--redis", redis.url, "--follow-timeout", str(FOLLOW)] if redis else []
    with contextlib.ExitStack() as stack:
        started = [stack.enter_context(start_worker(SERVER, *args, *extra)) for _ in range(count)]
        for worker in started:
            assert worker.output.wait_for("worker ready", READY_TIMEOUT), worker.log()
        yield started
        for worker in started:
            assert "Traceback" not in worker.log(), worker.log()
            if worker.process.poll() not in (None, -9):
                pytest.fail(f"worker {worker.pid} exited:\n{worker.log()}")


# ---------------------------------------------------------------------------- a client


@dataclass
class Event:
    id: str | None
    data: str


async def sse_events(response: httpx.Response) -> AsyncIterator[Event]:
    event_id: str | None = None
    data: list[str] = []
    async for line in response.aiter_lines():
        if line == "":
            if event_id is not None or data:
                yield Event(event_id, "\n".join(data))
            event_id, data = None, []
        elif line.startswith("id:"):
            event_id = line[3:].strip()
        elif line.startswith("data:"):
            data.append(line[5:].removeprefix(" "))


@dataclass
class Peer:
    """One legacy session (or stateless 2026-07-28 requests), raw HTTP, schema-checked."""

    http: httpx.AsyncClient
    url: str
    revision: str = REVISION
    checker: WireChecker = field(init=False)
    id: str | None = None
    ids: Iterator[int] = field(default_factory=lambda: itertools.count(1))

    def __post_init__(self) -> None:
        self.checker = WireChecker(self.revision)

    def headers(self, message: JSON | None = None, accept: str = BOTH, **extra: str) -> JSON:
        headers = {"content-type": "application/json", "accept": accept, **extra}
        if self.revision == MODERN and message is not None:
            headers["mcp-protocol-version"] = MODERN
            headers["mcp-method"] = message["method"]
            if message["method"] == "tools/call":
                headers["mcp-name"] = message["params"]["name"]
        elif self.id is not None:
            headers["mcp-session-id"] = self.id
            headers["mcp-protocol-version"] = self.revision
        return headers

    def request(self, method: str, params: JSON | None = None) -> JSON:
        params = dict(params or {})
        if self.revision == MODERN:
            params["_meta"] = {
                "io.modelcontextprotocol/protocolVersion": MODERN,
                "io.modelcontextprotocol/clientCapabilities": {},
                "io.modelcontextprotocol/clientInfo": {"name": "abuse", "version": "0"},
                **params.get("_meta", {}),
            }
        message: JSON = {"jsonrpc": "2.0", "id": next(self.ids), "method": method}
        if params:
            message["params"] = params
        self.checker.client_sent(message)
        return message

    def call(self, tool: str, token: str | None = None, **arguments: Any) -> JSON:
        params: JSON = {"name": tool, "arguments": arguments}
        if token is not None:
            params["_meta"] = {"progressToken": token}
        return self.request("tools/call", params)

    def sent(self, data: str | bytes) -> JSON:
        self.checker.server_sent(data)
        message: JSON = orjson.loads(data)
        return message

    async def initialize(self, url: str | None = None) -> None:
        self.id = None
        message = self.request(
            "initialize",
            {
                "protocolVersion": self.revision,
                "capabilities": {},
                "clientInfo": {"name": "abuse-streams", "version": "1.0"},
            },
        )
        response = await self.post(message, url)
        assert response.status_code == 200, response.text
        self.id = response.headers["mcp-session-id"]
        self.sent(response.content)
        done = await self.http.post(
            url or self.url,
            content=orjson.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}),
            headers=self.headers(),
        )
        assert done.status_code == 202, done.text

    async def post(self, message: JSON, url: str | None = None, **headers: str) -> httpx.Response:
        return await self.http.post(
            url or self.url, content=orjson.dumps(message), headers=self.headers(message, **headers)
        )

    async def answer(self, message: JSON, url: str | None = None) -> JSON:
        """POST a request and read its answer, JSON or SSE (checked, 200 expected)."""
        async with self.http.stream(
            "POST", url or self.url, content=orjson.dumps(message), headers=self.headers(message)
        ) as response:
            assert response.status_code == 200, (await response.aread()).decode()
            if response.headers["content-type"].startswith("application/json"):
                return self.sent(await response.aread())
            async for event in sse_events(response):
                if event.data and self.sent(event.data).get("id") == message["id"]:
                    return orjson.loads(event.data)
        raise AssertionError("the stream ended without an answer")

    def get(self, url: str | None = None, last_event_id: str | None = None) -> Any:
        headers = self.headers(accept="text/event-stream")
        if last_event_id is not None:
            headers["last-event-id"] = last_event_id.encode()  # raw bytes, ASCII or not
        return self.http.stream("GET", url or self.url, headers=headers)

    def rejected(self, response: httpx.Response, body: bytes, status: int) -> JSON:
        """A refusal: ``status``, a JSON-RPC error body (schema-checked), no traceback."""
        assert response.status_code == status, (response.status_code, body[:300])
        assert response.headers["content-type"].startswith("application/json"), body[:300]
        assert b"Traceback" not in body
        error: JSON = orjson.loads(body)
        if error.get("id") is not None:
            self.checker.server_sent(body)
        else:  # an id-less error: the JSON-RPC error shape of the revision
            assert error["jsonrpc"] == "2.0" and set(error) <= {"jsonrpc", "id", "error"}, error
            assert isinstance(error["error"]["code"], int), error
            assert isinstance(error["error"]["message"], str) and error["error"]["message"]
        return error


def progress_of(message: JSON) -> int:
    assert message["method"] == "notifications/progress", message
    return int(message["params"]["progress"])


async def latency(peer: Peer, url: str, rounds: int = 5) -> tuple[list[float], int]:
    """An ordinary client's echo calls: their latencies (s) and how many failed."""
    times: list[float] = []
    errors = 0
    for i in range(rounds):
        began = time.perf_counter()
        try:
            answer = await peer.answer(peer.call("echo", text=f"hi {i}"), url)
            errors += "result" not in answer
        except (AssertionError, httpx.HTTPError):
            errors += 1
        times.append(time.perf_counter() - began)
    return times, errors


def figures(times: list[float], errors: int) -> str:
    ordered = sorted(times)
    return (
        f"p50 {ordered[len(ordered) // 2] * 1000:.1f} ms, max {ordered[-1] * 1000:.1f} ms, "
        f"{errors} errors"
    )


async def read_until_answer(peer: Peer, response: httpx.Response, mid: int) -> list[JSON]:
    """Every message of a stream up to the answer to ``mid`` (which ends the list)."""
    seen: list[JSON] = []
    async for event in sse_events(response):
        if not event.data:
            continue
        seen.append(peer.sent(event.data))
        if seen[-1].get("id") == mid:
            return seen
    raise AssertionError(f"the stream ended without answering {mid}: {seen}")


async def read_to_end(peer: Peer, response: httpx.Response) -> list[JSON]:
    """Every message of a stream, until the server ends it."""
    return [peer.sent(event.data) async for event in sse_events(response) if event.data]


async def first_events(response: httpx.Response, count: int) -> list[Event]:
    """The priming event and the next ``count - 1`` events of a resumable stream."""
    got: list[Event] = []
    async for event in sse_events(response):
        assert event.id, "a resumable stream gives every event an id"
        got.append(event)
        if len(got) == count:
            return got
    raise AssertionError(f"the stream ended after {got}")


# ---------------------------------------------------------------------------- 1. resumed elsewhere


async def test_a_slow_call_resumed_on_the_other_worker_gets_every_event_and_its_result() -> None:
    """Finding 1: the client reads one event through worker A, resumes through worker B while
    A still runs the call: B serves the rest from the shared log, then what A appends, up to
    the result, which comes after a pause longer than redis-py's 5 s socket timeout."""
    with own_redis() as redis, workers(redis) as (a, b):
        async with httpx.AsyncClient(timeout=TIMEOUT, limits=FRESH) as http:
            peer = Peer(http, a.url)
            await peer.initialize()
            rss_before = rss_mib(b.pid)
            message = peer.call("steps", token="slow", n=6, delay=0.05, pause=PAUSE)
            async with http.stream(
                "POST", a.url, content=orjson.dumps(message), headers=peer.headers(message)
            ) as response:
                assert response.status_code == 200
                _priming, first = await first_events(response, 2)
            assert progress_of(peer.sent(first.data)) == 1
            began = time.perf_counter()
            async with peer.get(b.url, last_event_id=first.id) as resumed:
                assert resumed.status_code == 200, (await resumed.aread()).decode()
                rest = await asyncio.wait_for(
                    read_until_answer(peer, resumed, message["id"]), TIMEOUT
                )
            took = time.perf_counter() - began
            times, errors = await latency(Peer(http, b.url, MODERN), b.url)
            rss_after = rss_mib(b.pid)
    assert [progress_of(m) for m in rest[:-1]] == [2, 3, 4, 5, 6]
    assert rest[-1]["result"]["content"] == [{"type": "text", "text": "done after 6 steps"}]
    assert errors == 0
    record(
        "streams: slow call resumed on the other worker",
        f"progress 2-6 and the result in {took:.2f} s",
        rss_before_mib=rss_before,
        rss_after_mib=rss_after,
        others=figures(times, errors),
    )


async def test_a_resumed_stream_of_a_killed_worker_ends_with_an_error_in_bound() -> None:
    """Findings 1 and 2: the call's worker is SIGKILLed; resumed through the other worker the
    stream replays what was sent, then ends with a JSON-RPC error for the request once the
    dead worker's heartbeat lapsed (``RedisStore(heartbeat=5.0)``) and one more read."""
    with own_redis() as redis, workers(redis) as (a, b):
        async with httpx.AsyncClient(timeout=TIMEOUT, limits=FRESH) as http:
            peer = Peer(http, a.url)
            await peer.initialize()
            rss_before = rss_mib(b.pid)
            message = peer.call("steps", token="doomed", n=3, delay=60)
            async with http.stream(
                "POST", a.url, content=orjson.dumps(message), headers=peer.headers(message)
            ) as response:
                priming, _first = await first_events(response, 2)
            a.kill()
            began = time.perf_counter()
            async with peer.get(b.url, last_event_id=priming.id) as resumed:
                assert resumed.status_code == 200, (await resumed.aread()).decode()
                rest = await asyncio.wait_for(read_to_end(peer, resumed), FOLLOW + 8)
            took = time.perf_counter() - began
            times, errors = await latency(Peer(http, b.url, MODERN), b.url)
            rss_after = rss_mib(b.pid)
    assert progress_of(rest[0]) == 1 and len(rest) == 2, rest  # the error ends the stream
    assert rest[-1]["id"] == message["id"]
    error = rest[-1]["error"]
    assert error["code"] == -32603 and "gone" in error["message"], error
    assert took < HEARTBEAT + 4, f"the resumed stream took {took:.1f} s to end"
    record(
        "streams: resumed after its worker was SIGKILLed",
        f"progress 1 replayed, then error {error['code']} after {took:.1f} s "
        f"(heartbeat {HEARTBEAT:g} s)",
        rss_before_mib=rss_before,
        rss_after_mib=rss_after,
        others=figures(times, errors),
    )


# ---------------------------------------------------------------------------- 3 and 5. bad ids

BOGUS = {
    "unknown stream": "zz99/1",
    "beyond the end": None,  # the real stream id with a sequence far past its end
    "non-ASCII digit": "abc/\u0661",
    "5,000 digits": "abc/" + "9" * 5000,
    "no sequence": "abc",
    "negative": "abc/-1",
}


@pytest.mark.parametrize("in_redis", [False, True], ids=["memory", "redis"])
async def test_a_bogus_last_event_id_is_refused_at_once(in_redis: bool) -> None:
    """Findings 3 and 5: a Last-Event-ID naming no stream of the session, one past the end of
    its stream, or not a well-formed id at all is answered at once with 400 and a JSON-RPC
    error; no stream stays open for it."""
    with contextlib.ExitStack() as stack:
        redis = stack.enter_context(own_redis()) if in_redis else None
        (worker,) = stack.enter_context(workers(redis, 1))
        async with httpx.AsyncClient(timeout=TIMEOUT, limits=FRESH) as http:
            peer = Peer(http, worker.url)
            await peer.initialize()
            message = peer.call("steps", token="t", n=2, delay=60)
            async with http.stream(
                "POST", worker.url, content=orjson.dumps(message), headers=peer.headers(message)
            ) as response:
                priming, _first = await first_events(response, 2)
            stream_id = (priming.id or "").rsplit("/", 1)[0]
            rss_before = rss_mib(worker.pid)
            saw: dict[str, str] = {}
            slowest = 0.0
            for name, value in BOGUS.items():
                value = value or f"{stream_id}/99999"
                began = time.perf_counter()
                async with peer.get(last_event_id=value) as response:
                    body = await asyncio.wait_for(response.aread(), QUICK)
                slowest = max(slowest, time.perf_counter() - began)
                error = peer.rejected(response, body, 400)
                assert error["error"]["code"] == -32600, error
                saw[name] = f"{response.status_code}"
            times, errors = await latency(peer, worker.url)
            rss_after = rss_mib(worker.pid)
    assert slowest < QUICK
    record(
        f"streams: bogus Last-Event-ID ({'redis' if in_redis else 'memory'})",
        f"{len(saw)} kinds, each 400 + JSON-RPC -32600 within {slowest * 1000:.0f} ms",
        rss_before_mib=rss_before,
        rss_after_mib=rss_after,
        others=figures(times, errors),
    )


# ---------------------------------------------------------------------------- 4. redis trouble


async def store_trouble(
    peer: Peer, modern: Peer, url: str, label: str
) -> tuple[str, list[float], int]:
    """While Redis is in trouble: a legacy call gets 503 + JSON-RPC error + Retry-After at
    once; stateless 2026-07-28 calls are served as usual."""
    message = peer.call("echo", text="while redis is down")
    began = time.perf_counter()
    response = await peer.post(message)
    took = time.perf_counter() - began
    error = peer.rejected(response, response.content, 503)
    assert error["error"]["code"] == -32603, error
    assert int(response.headers["retry-after"]) >= 1
    assert took < 3.5, f"{label}: 503 came after {took:.1f} s"
    times, errors = await latency(modern, url)
    return f"{label}: 503 in {took:.2f} s", times, errors


async def test_redis_frozen_or_stopped_gives_503_and_the_worker_recovers() -> None:
    """Finding 4: Redis frozen (SIGSTOP) or stopped: legacy requests get a clean 503 with a
    JSON-RPC error and Retry-After within a short bound, no traceback, the worker stays up
    and serves again once Redis is back (SIGCONT; a restart on the same port)."""
    with own_redis() as redis, workers(redis, 1) as (worker,):
        async with httpx.AsyncClient(timeout=TIMEOUT, limits=FRESH) as http:
            peer = Peer(http, worker.url)
            modern = Peer(http, worker.url, MODERN)
            await peer.initialize()
            rss_before = rss_mib(worker.pid)
            all_times: list[float] = []
            all_errors = 0
            saw = []

            redis.signal(signal.SIGSTOP)
            said, times, errors = await store_trouble(peer, modern, worker.url, "frozen")
            saw.append(said)
            all_times += times
            all_errors += errors
            redis.signal(signal.SIGCONT)
            answer = await asyncio.wait_for(peer.answer(peer.call("echo", text="back")), TIMEOUT)
            assert answer["result"]["content"][0]["text"] == "back"

            redis.stop()
            said, times, errors = await store_trouble(peer, modern, worker.url, "stopped")
            saw.append(said)
            all_times += times
            all_errors += errors
            redis.start()  # a fresh Redis on the same port: the session is gone (404)
            response = await peer.post(peer.call("echo", text="old session"))
            peer.rejected(response, response.content, 404)
            await peer.initialize()
            answer = await peer.answer(peer.call("echo", text="new session"))
            assert answer["result"]["content"][0]["text"] == "new session"
            rss_after = rss_mib(worker.pid)
    assert all_errors == 0
    record(
        "streams: Redis frozen, then stopped",
        "; ".join(saw) + "; served again after SIGCONT / restart",
        rss_before_mib=rss_before,
        rss_after_mib=rss_after,
        others="2026-07-28 meanwhile: " + figures(all_times, all_errors),
    )


# ---------------------------------------------------------------------------- 6. SIGTERM


async def url_of(process: asyncio.subprocess.Process, seen: list[bytes]) -> str:
    assert process.stderr is not None
    while True:
        line = await asyncio.wait_for(process.stderr.readline(), TIMEOUT)
        assert line, b"".join(seen).decode()
        seen.append(line)
        found = re.search(rb"Uvicorn running on (http://127\.0\.0\.1:\d+)", line)
        if found:
            return found.group(1).decode() + "/mcp"


@pytest.mark.parametrize("revision", [REVISION, MODERN])
async def test_sigterm_answers_cut_calls_with_an_error_never_a_bare_500(revision: str) -> None:
    """Finding 6: SIGTERM to ``mcp.run(transport="http")`` with calls in flight: one that ends
    within the grace period gets its result; one cut by the shutdown gets a JSON-RPC error for
    its id (the client can retry elsewhere), never a bare 500; the process exits 0."""
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        str(SERVER),
        "--run",
        "--grace",
        "1",
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.PIPE,
    )
    seen: list[bytes] = []
    try:
        url = await url_of(process, seen)
        rss_before = rss_mib(process.pid)
        async with httpx.AsyncClient(timeout=TIMEOUT, limits=FRESH) as http:
            peer = Peer(http, url, revision)
            if revision != MODERN:
                await peer.initialize()
            short = peer.call("nap", seconds=0.5)
            long = peer.call("nap", seconds=30)
            answers = [
                asyncio.ensure_future(peer.post(message, accept="application/json"))
                for message in (short, long)
            ]
            times, errors = await latency(peer, url, 3)  # both calls are under way by now
            rss_after = rss_mib(process.pid)
            process.send_signal(signal.SIGTERM)
            done_short, done_long = await asyncio.wait_for(asyncio.gather(*answers), TIMEOUT)
        assert process.stderr is not None
        err = await asyncio.wait_for(process.stderr.read(), TIMEOUT)
        code = await asyncio.wait_for(process.wait(), TIMEOUT)
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
    assert done_short.status_code == 200, done_short.text
    assert peer.sent(done_short.content)["result"]["content"][0]["text"] == "napped"
    assert done_long.status_code == 503, (done_long.status_code, done_long.text)
    cut = peer.sent(done_long.content)
    assert cut["id"] == long["id"] and cut["error"]["code"] == -32603, cut
    assert "shutting down" in cut["error"]["message"]
    assert "may have taken effect" in cut["error"]["message"]  # not to be sent again blindly
    assert code == 0
    assert b"Traceback" not in b"".join(seen) + err
    record(
        f"streams: SIGTERM with calls in flight ({revision})",
        f"short call answered; cut call {done_long.status_code} + JSON-RPC "
        f"{cut['error']['code']} {cut['error']['message']!r}; exit {code}",
        rss_before_mib=rss_before,
        rss_after_mib=rss_after,
        others=figures(times, errors),
    )
