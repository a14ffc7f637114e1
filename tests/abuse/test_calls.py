"""Abuse of call admission: one caller's hanging calls, and sync tools that block.

* One session leaves hundreds of calls hanging (async tools awaiting forever, sync tools
  blocking their worker thread) and stops caring: other sessions and 2026-07-28 requests are
  still served at their normal pace, because each caller has its own share of the call
  slots and of the worker threads (``max_calls_per_caller``).
* Calls a caller queues beyond ``max_queued_calls_per_caller`` are refused at once with a
  JSON-RPC error, never queued without bound.
* A sync tool that was quick many times and then blocks never stalls the event loop (ping,
  other clients), and ``tool_timeout`` holds for it, on the decorator and low-level servers.

Servers are real subprocesses (stdio, or ``mcp.run(transport="http")`` under uvicorn);
every message is checked against the negotiated revision's JSON Schema.
"""

from __future__ import annotations

import asyncio
import contextlib
import statistics
import sys
import time
from collections.abc import AsyncIterator
from typing import Any

import httpx
import orjson
import pytest

from test_faults import LEGACY, HttpPeer, clean, wait_for_url

from .report import record, rss_mib
from wire import MODERN, SERVERS, TIMEOUT, RawServer, modern_meta, raw_server

SERVER = SERVERS / "abuse_calls_server.py"
JSON = dict[str, Any]
ABUSE = 300  # hanging calls one session leaves behind
VICTIM_BOUND_S = 2.0  # a victim's slowest call; the broken behaviour never answers
TOO_MANY_CALLS = -31429  # toolwire.jsonrpc.SERVER_BUSY


def call(mid: Any, name: str, arguments: JSON, revision: str, token: Any = None) -> JSON:
    params: JSON = {"name": name, "arguments": arguments}
    meta = modern_meta() if revision == MODERN else {}
    if token is not None:
        meta["progressToken"] = token
    if meta:
        params["_meta"] = meta
    return {"jsonrpc": "2.0", "id": mid, "method": "tools/call", "params": params}


def text_of(message: JSON) -> str:
    assert "result" in message, message
    return str(message["result"]["content"][0]["text"])


def figures(latencies: list[float], errors: int = 0) -> str:
    ms = sorted(x * 1000 for x in latencies)
    return (
        f"{len(ms)} calls, p50 {statistics.median(ms):.1f} ms, max {ms[-1]:.1f} ms, {errors} errors"
    )


@contextlib.asynccontextmanager
async def http_server(*args: str) -> AsyncIterator[tuple[str, asyncio.subprocess.Process]]:
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        str(SERVER),
        "--http",
        *args,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.PIPE,
    )
    seen: list[bytes] = []
    try:
        yield await wait_for_url(process, seen), process
    finally:
        if process.returncode is None:
            process.kill()
        assert process.stderr is not None
        rest = await asyncio.wait_for(process.stderr.read(), TIMEOUT)
        await process.wait()
        clean(b"".join(seen) + rest)


async def leave_hanging(peer: HttpPeer, tool: str, count: int) -> int:
    """POST ``count`` calls of ``tool`` on the peer's session, each on its own SSE stream,
    and walk away from each once the server has taken it (its stream opened). Returns how
    many were answered with an error at once instead."""
    refused = 0
    gate = asyncio.Semaphore(32)

    async def one(n: int) -> None:
        nonlocal refused
        message = peer.call(tool, {"key": f"a{n}"})
        peer.checker.client_sent(message)
        headers = {**peer.headers(message), "accept": "text/event-stream"}
        async with (
            gate,
            peer.http.stream(
                "POST", peer.url, content=orjson.dumps(message), headers=headers
            ) as response,
        ):
            assert response.status_code in (200, 429), response.status_code
            if response.status_code == 429:
                body = await response.aread()
                peer.checker.server_sent(body)
                assert orjson.loads(body)["error"]["code"] == TOO_MANY_CALLS
                refused += 1
        # leaving the block closes the stream: on a legacy session that is no cancel

    await asyncio.gather(*(one(n) for n in range(count)))
    return refused


async def timed_calls(peer: HttpPeer, rounds: int) -> tuple[list[float], int]:
    """``rounds`` sequential calls of a quick async and a quick sync tool."""
    latencies: list[float] = []
    errors = 0
    for n in range(rounds):
        tool, arguments, expected = (
            ("echo", {"text": f"e{n}"}, f"e{n}") if n % 2 else ("shout", {"text": "x"}, "X")
        )
        start = time.perf_counter()
        try:
            (answer,) = await asyncio.wait_for(
                peer.post(peer.call(tool, arguments)), VICTIM_BOUND_S * 2
            )
        except asyncio.TimeoutError:  # starved: no point waiting for the rest
            return [*latencies, VICTIM_BOUND_S * 2], errors + 1
        latencies.append(time.perf_counter() - start)
        if text_of(answer) != expected:
            errors += 1
    return latencies, errors


@pytest.mark.timeout(90)
@pytest.mark.parametrize("sessions", [1, 4])
@pytest.mark.parametrize("tool", ["hang", "hang_sync"])
async def test_one_sessions_hanging_calls_do_not_starve_other_callers(
    tool: str, sessions: int
) -> None:
    """One client leaves 300 calls hanging (async awaiting forever, or sync blocking worker
    threads), from one legacy session or spread over several (each unauthenticated address
    is one caller, whatever sessions it opens), and stops caring. Another client's session
    and 2026-07-28 requests (from another address) are served at once, async and sync tools
    alike, and the abuser's own sessions still answer ping."""
    elsewhere = httpx.AsyncHTTPTransport(local_address="127.0.0.3")
    async with (
        http_server() as (url, process),
        httpx.AsyncClient(timeout=TIMEOUT, limits=httpx.Limits(max_connections=64)) as http,
        httpx.AsyncClient(timeout=TIMEOUT, transport=elsewhere) as other_http,
    ):
        abusers = [HttpPeer(http, url, LEGACY) for _ in range(sessions)]
        other = HttpPeer(other_http, url, LEGACY)
        modern = HttpPeer(other_http, url, MODERN)
        for abuser in abusers:
            await abuser.initialize()
        await other.initialize()
        baseline, _ = await timed_calls(other, 6)
        rss_before = rss_mib(process.pid)
        refused = sum(
            await asyncio.gather(
                *(leave_hanging(abuser, tool, ABUSE // sessions) for abuser in abusers)
            )
        )
        legacy_lat, legacy_errors = await timed_calls(other, 20)
        modern_lat, modern_errors = await timed_calls(modern, 20)
        for abuser in abusers:
            (pong,) = await abuser.post(abuser.request("ping"))
            assert pong["result"] == {}
        rss_after = rss_mib(process.pid)
    everyone = legacy_lat + modern_lat
    record(
        f"calls: {ABUSE} hanging {tool} calls from one HTTP client, {sessions} session(s)",
        f"{ABUSE - refused} taken, {refused} refused (-31429); its ping answered",
        rss_before_mib=rss_before,
        rss_after_mib=rss_after,
        others=f"{figures(everyone, legacy_errors + modern_errors)} "
        f"(before: p50 {statistics.median(baseline) * 1000:.1f} ms)",
    )
    assert legacy_errors == modern_errors == 0
    assert max(everyone) < VICTIM_BOUND_S, figures(everyone)
    assert all(abuser.checker.client_issues == [] for abuser in abusers)
    assert other.checker.client_issues == []
    assert modern.checker.client_issues == []
    assert rss_after - rss_before < 64, (rss_before, rss_after)


@pytest.mark.timeout(60)
@pytest.mark.parametrize("revision", [LEGACY, MODERN])
async def test_calls_queued_past_the_per_caller_bound_are_refused_at_once(revision: str) -> None:
    """``max_concurrent_calls=8, max_calls_per_caller=4, max_queued_calls_per_caller=8``: a
    lone caller may use the slots that leave a share free, so of 300 pipelined hanging
    calls 4 run, 8 wait and the other 288 are refused at once with -31429; ping is answered;
    when a running call is cancelled, a waiting one takes its place."""
    async with raw_server(
        SERVER, "--total", "8", "--per-caller", "4", "--queued", "8", revision=revision
    ) as s:
        if revision != MODERN:
            await s.initialize(revision)
        else:
            await s.request("server/discover", {}, modern=True)
        rss_before = rss_mib(s.process.pid)
        for n in range(ABUSE):
            await s.send(call(f"c{n}", "hang", {"key": f"h{n}"}, revision, token=f"p{n}"))
        refused: list[JSON] = []
        started: set[str] = set()
        while len(refused) < ABUSE - 12 or len(started) < 4:
            message = await s.recv()
            if message.get("method") == "notifications/progress":
                started.add(message["params"]["message"])
                continue
            assert message["error"]["code"] == TOO_MANY_CALLS, message
            refused.append(message)
        assert started == {f"started h{n}" for n in range(4)}
        assert "max_queued_calls_per_caller" in refused[0]["error"]["message"]
        assert {m["id"] for m in refused} == {f"c{n}" for n in range(12, ABUSE)}
        start = time.perf_counter()
        if revision == MODERN:  # 2026-07-28 has no ping
            pong = await s.request("server/discover", {}, modern=True)
        else:
            pong = await s.request("ping")
        ping_s = time.perf_counter() - start
        assert "result" in pong, pong
        await s.notify("notifications/cancelled", {"requestId": "c0"})
        note = await s.recv()
        assert note["params"]["message"] == "started h4", note
        rss_after = rss_mib(s.process.pid)
        code, _rest, err = await s.close()
        assert s.checker.client_issues == []
    record(
        f"calls: {ABUSE} pipelined hanging calls, stdio {revision}, 4 running + 8 queued allowed",
        f"{len(refused)} refused at once with -31429, 4 ran, a cancel let the next one in",
        rss_before_mib=rss_before,
        rss_after_mib=rss_after,
        others=f"ping answered in {ping_s * 1000:.1f} ms",
    )
    assert code == 0
    clean(err)


async def warm_up(server: RawServer, revision: str, tool: str = "turns_slow") -> None:
    """Enough quick calls for a sync tool to be judged quick (it used to move inline)."""
    for n in range(12):
        await server.send(call(f"q{n}", tool, {"seconds": 0}, revision))
        assert text_of(await server.response(f"q{n}")) == "slept 0"


@pytest.mark.timeout(60)
@pytest.mark.parametrize("lowlevel", [False, True], ids=["decorated", "lowlevel"])
@pytest.mark.parametrize("revision", [LEGACY, MODERN])
async def test_a_quick_sync_tool_that_blocks_never_stalls_the_loop(
    lowlevel: bool, revision: str
) -> None:
    """A sync tool answers twelve times at once, then blocks for 3 s: a ping sent right
    after it is answered at once, and the blocked call answers when it is done."""
    args = ["--lowlevel"] if lowlevel else []
    async with raw_server(SERVER, *args, revision=revision) as server:
        if revision != MODERN:
            await server.initialize(revision)
        await warm_up(server, revision)
        rss_before = rss_mib(server.process.pid)
        start = time.perf_counter()
        await server.send(call("slow", "turns_slow", {"seconds": 3}, revision))
        if revision == MODERN:  # 2026-07-28 has no ping: server/discover is as quick
            probe: JSON = {"jsonrpc": "2.0", "id": "p", "method": "server/discover"}
            probe["params"] = {"_meta": modern_meta()}
        else:
            probe = {"jsonrpc": "2.0", "id": "p", "method": "ping"}
        await server.send(probe)
        first = await server.recv()
        ping_s = time.perf_counter() - start
        assert first["id"] == "p", f"the ping waited for the blocked tool ({ping_s:.2f} s)"
        second = await server.recv()
        assert second["id"] == "slow" and text_of(second) == "slept 3"
        rss_after = rss_mib(server.process.pid)
        assert server.checker.client_issues == []
    record(
        f"calls: quick sync tool then a 3 s block, stdio {revision}"
        + (" (low-level server)" if lowlevel else ""),
        "blocked call answered after 3 s",
        rss_before_mib=rss_before,
        rss_after_mib=rss_after,
        others=f"ping answered in {ping_s * 1000:.1f} ms",
    )
    assert ping_s < 1.0


@pytest.mark.timeout(60)
@pytest.mark.parametrize("lowlevel", [False, True], ids=["decorated", "lowlevel"])
async def test_tool_timeout_holds_for_a_quick_sync_tool_that_blocks(lowlevel: bool) -> None:
    """``Server(tool_timeout=1)``: after twelve quick calls, a 4 s call is answered as timed
    out after about 1 s."""
    args = ["--tool-timeout", "1", *(["--lowlevel"] if lowlevel else [])]
    async with raw_server(SERVER, *args, revision=MODERN) as server:
        await warm_up(server, MODERN)
        start = time.perf_counter()
        await server.send(call("slow", "turns_slow", {"seconds": 4}, MODERN))
        answer = await server.response("slow")
        took = time.perf_counter() - start
        assert answer["result"]["isError"] is True, answer
        assert "timed out after 1 s" in text_of(answer)
        assert server.checker.client_issues == []
    record(
        "calls: tool_timeout=1 on a quick sync tool that blocks 4 s"
        + (" (low-level server)" if lowlevel else ""),
        f"isError 'timed out' after {took:.2f} s",
    )
    assert took < 3.0


@pytest.mark.timeout(60)
async def test_a_blocked_sync_tool_does_not_delay_another_http_client() -> None:
    """Over HTTP: one client's sync tool, quick twelve times, then blocks for 3 s; another
    client's calls of ``add`` meanwhile keep their normal latency."""
    async with http_server() as (url, process), httpx.AsyncClient(timeout=TIMEOUT) as http:
        slow, quick = HttpPeer(http, url, MODERN), HttpPeer(http, url, LEGACY)
        await quick.initialize()
        for _ in range(12):
            (answer,) = await slow.post(slow.call("turns_slow", {"seconds": 0}))
            assert text_of(answer) == "slept 0"
        rss_before = rss_mib(process.pid)
        blocked = asyncio.ensure_future(slow.post(slow.call("turns_slow", {"seconds": 3})))
        latencies: list[float] = []
        while not blocked.done() or len(latencies) < 10:
            start = time.perf_counter()
            (answer,) = await quick.post(quick.call("add", {"a": 2, "b": 3}))
            latencies.append(time.perf_counter() - start)
            assert text_of(answer) == "5"
        (answer,) = await blocked
        assert text_of(answer) == "slept 3"
        rss_after = rss_mib(process.pid)
    record(
        "calls: HTTP client's quick sync tool then a 3 s block",
        "blocked call answered after 3 s",
        rss_before_mib=rss_before,
        rss_after_mib=rss_after,
        others=f"another client's add: {figures(latencies)}",
    )
    assert slow.checker.client_issues == quick.checker.client_issues == []
    assert max(latencies) < 1.0, figures(latencies)
