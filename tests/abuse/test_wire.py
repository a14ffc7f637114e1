"""Abuse of the outgoing side: results that are hard to encode, tools that raise
``CancelledError`` themselves, and a client that does not read its answers.

Every probe runs a real server: ``servers/abuse_wire_tools.py`` as a stdio subprocess, or
the same tools under a real uvicorn on 127.0.0.1 (legacy JSON answers, legacy SSE answers,
2026-07-28). Each checks that every request is answered exactly once with a message that
validates against the negotiated revision's schema, that the server still answers
afterwards, and that a side-effecting tool ran exactly once (its record file counts the
runs).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import os
import sys
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import httpx
import orjson
import pytest

from abuse.report import record, rss_mib
from servers.abuse_wire_tools import build

from http_server import serve_http
from mcp_spec import WireChecker
from wire import MODERN, SERVERS, TIMEOUT, RawServer, modern_meta, raw_server, stopped_after

JSON = dict[str, Any]
LEGACY = "2025-11-25"
ERAS = [pytest.param(LEGACY, id="legacy"), pytest.param(MODERN, id="modern")]
SCRIPT = SERVERS / "abuse_wire_tools.py"
BOTH = "application/json, text/event-stream"
ODD_NAME = b"caf\xe9.txt"  # Latin-1, not UTF-8: os.listdir() gives 'caf\udce9.txt'
SHOWN_NAME = "caf\ufffd.txt"  # what a client is sent in its place


@pytest.fixture
def odd_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "odd"
    folder.mkdir()
    (folder / "plain.txt").write_text("x")
    with open(os.path.join(os.fsencode(folder), ODD_NAME), "wb") as file:
        file.write(b"x")
    return folder


def call(mid: Any, name: str, arguments: JSON, revision: str, **meta: Any) -> JSON:
    params: JSON = {"name": name, "arguments": arguments}
    if revision == MODERN:
        params["_meta"] = modern_meta(**meta)
    elif meta:
        params["_meta"] = meta
    return {"jsonrpc": "2.0", "id": mid, "method": "tools/call", "params": params}


def ping(mid: Any, revision: str) -> JSON:
    if revision == MODERN:  # no ping in 2026-07-28: a cheap request instead
        return {
            "jsonrpc": "2.0",
            "id": mid,
            "method": "tools/list",
            "params": {"_meta": modern_meta()},
        }
    return {"jsonrpc": "2.0", "id": mid, "method": "ping"}


def runs(path: Path) -> int:
    return len(path.read_text(encoding="utf-8").splitlines()) if path.exists() else 0


@contextlib.asynccontextmanager
async def stdio_server(
    revision: str, records: Path, *, limit: int | None = None
) -> AsyncIterator[RawServer]:
    """The tools as a stdio subprocess, initialized; ``limit`` is the longest line read."""
    if limit is None:
        opened = raw_server(SCRIPT, "--record", str(records), revision=revision)
    else:
        opened = _raw_server_with_limit(revision, records, limit)
    async with opened as server:
        if revision != MODERN:
            await server.initialize(revision)
        else:  # the first answer says the server is up
            await server.send(ping(0, revision))
            await server.response(0)
        yield server
        assert server.checker.client_issues == []


@contextlib.asynccontextmanager
async def _raw_server_with_limit(
    revision: str, records: Path, limit: int
) -> AsyncIterator[RawServer]:
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        str(SCRIPT),
        "--record",
        str(records),
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.DEVNULL,
        limit=limit,
        # A fixed mmap threshold: freed 1 MB answers go back to the system, so RSS follows
        # the memory really held rather than what malloc keeps for later.
        env={**os.environ, "MALLOC_MMAP_THRESHOLD_": "131072"},
    )
    async with stopped_after(RawServer(process, WireChecker(revision))) as server:
        yield server


async def collect(server: RawServer, ids: set[Any]) -> dict[Any, JSON]:
    """The responses to ``ids``, each exactly once, in whatever order they come."""
    got: dict[Any, JSON] = {}
    while set(got) != ids:
        message = await server.recv()
        if "method" in message and "id" not in message:
            server.notifications.append(message)
            continue
        assert message.get("id") in ids and message["id"] not in got, message
        got[message["id"]] = message
    return got


def text_of(message: JSON) -> str:
    assert "result" in message, message
    return "\n".join(b["text"] for b in message["result"]["content"] if b["type"] == "text")


# ---------------------------------------------------------------- lone surrogates, stdio


@pytest.mark.timeout(30)
@pytest.mark.parametrize("revision", ERAS)
@pytest.mark.parametrize("tool", ["list_dir", "alist_dir", "list_text", "missing", "chatty"])
async def test_a_lone_surrogate_is_answered_once_and_the_server_goes_on(
    revision: str, tool: str, odd_folder: Path, tmp_path: Path
) -> None:
    records = tmp_path / "records.txt"
    async with stdio_server(revision, records) as server:
        pid = server.process.pid
        plain = tmp_path / "plain"
        plain.mkdir()
        for mid in range(100, 112):  # quick calls: a sync tool moves onto the event loop
            await server.send(call(mid, tool, {"path": str(plain)}, revision))
            await server.response(mid)
        before = rss_mib(pid)
        # One burst: a side effect, the awkward call, a ping; then more after it. (Once,
        # the line of a message whose answer failed to encode stayed in the read buffer:
        # every later read ran the burst's calls again and never got past it.)
        burst = [
            call(2, "append", {"text": "once"}, revision),
            call(1, tool, {"path": str(odd_folder)}, revision, progressToken="p1"),
            ping(3, revision),
        ]
        for message in burst:
            server.checker.client_sent(message)
        await server.send_raw(b"\n".join(orjson.dumps(m) for m in burst))
        got = await collect(server, {1, 2, 3})
        start = time.perf_counter()
        await server.send(ping(4, revision))
        await server.send(call(5, "append", {"text": "twice"}, revision))
        later = await collect(server, {4, 5})
        latency_ms = (time.perf_counter() - start) * 1000
        after = rss_mib(pid)

    answer = got[1]
    if tool == "chatty":
        assert text_of(answer) == "done"
        said = [n["params"] for n in server.notifications]
        assert any(SHOWN_NAME in str(p.get("data", p.get("message"))) for p in said), said
    elif tool == "missing":
        assert answer["result"]["isError"] is True
        assert SHOWN_NAME in text_of(answer), answer
    else:
        assert "isError" not in answer["result"], answer
        assert SHOWN_NAME in text_of(answer), answer
        if tool != "list_text":
            assert answer["result"]["structuredContent"] == {"result": [SHOWN_NAME, "plain.txt"]}
    assert text_of(got[2]) == "appended" and text_of(later[5]) == "appended"
    assert runs(records) == 2  # "once" ran once, "twice" once
    assert records.read_text(encoding="utf-8").splitlines() == ["once", "twice"]
    record(
        f"wire: lone surrogate from {tool}, stdio {revision}",
        f"answered once, name sent as {SHOWN_NAME!r}; side effect ran {runs(records) - 1}x",
        rss_before_mib=before,
        rss_after_mib=after,
        others=f"ping + call after it answered in {latency_ms:.1f} ms",
    )


# ---------------------------------------------------------------- lone surrogates, HTTP


class HttpPeer:
    """A raw client over HTTP for one era; every message goes through a schema checker."""

    def __init__(self, http: httpx.AsyncClient, url: str, revision: str) -> None:
        self.http = http
        self.url = url
        self.revision = revision
        self.checker = WireChecker(revision)
        self.session: str | None = None
        self.ids = itertools.count(1)
        self.notes: list[JSON] = []  # notifications that came with the last answer

    def headers(self, message: JSON) -> dict[str, str]:
        headers = {
            "Accept": BOTH,
            "Content-Type": "application/json",
            "MCP-Protocol-Version": self.revision,
        }
        if self.revision == MODERN:
            headers["Mcp-Method"] = message["method"]
            if message["method"] == "tools/call":
                headers["Mcp-Name"] = message["params"]["name"]
        if self.session is not None:
            headers["Mcp-Session-Id"] = self.session
        return headers

    async def post(self, message: JSON) -> tuple[int, list[JSON]]:
        self.checker.client_sent(message)
        response = await self.http.post(
            self.url, content=orjson.dumps(message), headers=self.headers(message)
        )
        if "mcp-session-id" in response.headers:
            self.session = response.headers["mcp-session-id"]
        kind = response.headers.get("content-type", "")
        datas: list[str] = []
        if kind.startswith("text/event-stream"):
            datas = [
                line[5:].strip() for line in response.text.splitlines() if line.startswith("data:")
            ]
            datas = [d for d in datas if d]
        elif kind.startswith("application/json"):
            datas = [response.text]
        messages = []
        for data in datas:
            self.checker.server_sent(data)
            messages.append(orjson.loads(data))
        return response.status_code, messages

    async def start(self) -> None:
        if self.revision != MODERN:
            status, _ = await self.post(
                {
                    "jsonrpc": "2.0",
                    "id": 0,
                    "method": "initialize",
                    "params": {
                        "protocolVersion": self.revision,
                        "capabilities": {},
                        "clientInfo": {"name": "tests", "version": "0"},
                    },
                }
            )
            assert status == 200
            await self.post({"jsonrpc": "2.0", "method": "notifications/initialized"})

    async def call(self, name: str, arguments: JSON) -> tuple[int, JSON]:
        mid = next(self.ids)
        message = call(mid, name, arguments, self.revision, progressToken=f"p{mid}")
        status, messages = await self.post(message)
        answers = [m for m in messages if m.get("id") == mid]
        assert len(answers) == 1, (status, messages)
        self.notes = [m for m in messages if "id" not in m]
        return status, answers[0]


HTTP_MODES = [
    pytest.param(LEGACY, {"json_response": True}, id="legacy-json"),
    pytest.param(LEGACY, {}, id="legacy-sse"),
    pytest.param(MODERN, {}, id="modern"),
]


@pytest.fixture
def recorded() -> list[str]:
    return []


@contextlib.contextmanager
def http_url(recorded: list[str], **options: Any) -> Iterator[str]:
    with serve_http(build(recorded.append), **options) as url:
        yield url


@pytest.mark.timeout(30)
@pytest.mark.parametrize(("revision", "options"), HTTP_MODES)
@pytest.mark.parametrize("tool", ["list_dir", "alist_dir", "missing", "chatty"])
async def test_a_lone_surrogate_is_answered_over_http(
    revision: str, options: JSON, tool: str, odd_folder: Path, recorded: list[str]
) -> None:
    with http_url(recorded, **options) as url:
        async with httpx.AsyncClient(timeout=TIMEOUT) as http:
            peer = HttpPeer(http, url, revision)
            await peer.start()
            status, answer = await peer.call(tool, {"path": str(odd_folder)})
            assert status == 200
            if tool != "chatty":
                assert SHOWN_NAME in text_of(answer), answer
            else:
                assert text_of(answer) == "done"
                if not options.get("json_response"):  # notifications ride the SSE answer
                    said = [str(n["params"].get("message")) for n in peer.notes]
                    assert any(SHOWN_NAME in m for m in said), peer.notes
            start = time.perf_counter()
            status, after = await peer.call("append", {"text": "once"})
            latency_ms = (time.perf_counter() - start) * 1000
            assert status == 200 and text_of(after) == "appended"
    assert recorded == ["once"]
    record(
        f"wire: lone surrogate from {tool}, HTTP {revision} {options or 'sse'}",
        f"HTTP {status}, answered once with {SHOWN_NAME!r}",
        others=f"next call answered in {latency_ms:.1f} ms",
    )


# ---------------------------------------------------------------- non-finite numbers


@pytest.mark.timeout(30)
@pytest.mark.parametrize("revision", ERAS)
async def test_non_finite_numbers_are_an_output_error_never_null(
    revision: str, tmp_path: Path
) -> None:
    records = tmp_path / "records.txt"
    async with stdio_server(revision, records) as server:
        mids = itertools.count(1)
        for tool in ("ratio", "plain_ratio", "ratios"):
            for kind in ("nan", "inf", "-inf"):
                mid = next(mids)
                await server.send(call(mid, tool, {"kind": kind}, revision))
                answer = await server.response(mid)
                result = answer["result"]
                assert result.get("isError") is True, (tool, kind, answer)
                assert "structuredContent" not in result, answer
                assert "not a finite number" in text_of(answer), answer
            mid = next(mids)
            await server.send(call(mid, tool, {"kind": "2.5"}, revision))
            fine = (await server.response(mid))["result"]
            assert "isError" not in fine and "2.5" in text_of({"result": fine}), fine
    record(
        f"wire: NaN/inf results, stdio {revision}",
        "isError result naming the non-finite number; never null",
    )


# ---------------------------------------------------------------- CancelledError


@pytest.mark.timeout(30)
@pytest.mark.parametrize("revision", ERAS)
async def test_a_tool_raising_cancelled_error_is_answered(revision: str, tmp_path: Path) -> None:
    records = tmp_path / "records.txt"
    async with stdio_server(revision, records) as server:
        for mid, tool in ((1, "self_cancel"), (2, "sync_self_cancel")):
            await server.send(call(mid, tool, {}, revision))
            answer = await server.response(mid, timeout=5.0)
            assert answer["result"]["isError"] is True, answer
            assert f"Tool '{tool}' failed with an internal error" in text_of(answer), answer
        # A real cancellation by the client still sends nothing (CN-04).
        await server.send(call(3, "wait", {"key": "w"}, revision, progressToken="w"))
        note = await server.recv()
        assert note["params"]["message"] == "started w", note
        await server.notify("notifications/cancelled", {"requestId": 3, "reason": "test"})
        await server.send(ping(4, revision))
        assert (await server.recv())["id"] == 4  # nothing for 3 came before it
        await server.send(call(5, "append", {"text": "after"}, revision))
        assert text_of(await server.response(5)) == "appended"
    assert runs(records) == 1
    record(
        f"wire: tool raises CancelledError itself, stdio {revision}",
        "masked isError result (async and sync); a client cancel still gets nothing",
    )


@pytest.mark.timeout(30)
async def test_cancellations_are_read_while_requests_wait_for_calls_in_flight(
    tmp_path: Path,
) -> None:
    """A stdio client with ``max_calls_in_flight`` (32) calls in flight: its further
    requests wait unread, but its cancellations are still read: they end the calls in
    flight, withdraw the requests still waiting (never run), and the request that waited
    behind them is served; a cancelled call sends nothing (CN-04)."""
    records = tmp_path / "records.txt"
    async with stdio_server(LEGACY, records) as server:
        hanging = range(1, 41)  # 32 run, 8 (which would append) wait behind them, unread
        burst = b"".join(
            orjson.dumps(
                call(mid, "wait", {"key": f"w{mid}"}, LEGACY)
                if mid <= 32
                else call(mid, "append", {"text": "withdrawn"}, LEGACY)
            )
            + b"\n"
            for mid in hanging
        )
        cancels = b"".join(
            orjson.dumps(
                {
                    "jsonrpc": "2.0",
                    "method": "notifications/cancelled",
                    "params": {"requestId": mid, "reason": "test"},
                }
            )
            + b"\n"
            for mid in hanging
        )
        assert server.process.stdin is not None
        server.process.stdin.write(burst + orjson.dumps(ping(100, LEGACY)) + b"\n" + cancels)
        start = time.perf_counter()
        answer = await server.recv()  # the first message at all: nothing for the cancelled
        took = time.perf_counter() - start
        assert answer["id"] == 100 and answer["result"] == {}, answer
        await server.send(call(101, "append", {"text": "after"}, LEGACY))
        assert text_of(await server.response(101)) == "appended"
    assert runs(records) == 1  # the 8 withdrawn appends never ran
    record(
        "wire: 32 hanging calls (max_calls_in_flight) and 8 waiting, then 40 cancels, stdio",
        f"the cancels were read past the waiting requests (the 8 withdrawn, never run); the "
        f"ping behind them answered in {took * 1000:.0f} ms, nothing sent for the cancelled",
    )


@pytest.mark.timeout(30)
async def test_cancellations_of_requests_not_yet_sent_withdraw_nothing(tmp_path: Path) -> None:
    """With 32 calls in flight, 1,000 cancellations naming requests not sent yet (ids that
    the client uses later) change nothing: those requests, once sent, are served when a slot
    frees."""
    records = tmp_path / "records.txt"
    async with stdio_server(LEGACY, records) as server:
        hanging = b"".join(
            orjson.dumps(call(mid, "wait", {"key": f"w{mid}"}, LEGACY)) + b"\n"
            for mid in range(1, 33)
        )
        early = b"".join(
            orjson.dumps(
                {
                    "jsonrpc": "2.0",
                    "method": "notifications/cancelled",
                    "params": {"requestId": mid, "reason": "too early"},
                }
            )
            + b"\n"
            for mid in range(100, 1100)
        )
        assert server.process.stdin is not None
        server.process.stdin.write(hanging + early)
        await server.send(call(500, "append", {"text": "once"}, LEGACY))
        await server.send(ping(501, LEGACY))
        await server.notify("notifications/cancelled", {"requestId": 1, "reason": "test"})
        assert text_of(await server.response(500, timeout=5.0)) == "appended"
        assert (await server.response(501, timeout=5.0))["result"] == {}
    assert runs(records) == 1
    record(
        "wire: 1,000 cancellations of ids not sent yet while 32 calls hang, stdio",
        "the requests later sent with those ids were served once a slot freed",
    )


# ---------------------------------------------------------------- output backpressure

BLOB = 1024 * 1024
CALLS = 200
PAD = "p" * 8192  # requests bigger than the pipe's buffer, so a paused server is visible


@pytest.mark.timeout(60)
@pytest.mark.parametrize("tool", ["blob", "ablob"])
@pytest.mark.parametrize("size", ["padded", "compact"])
async def test_a_client_that_does_not_read_cannot_grow_the_server(
    tmp_path: Path, tool: str, size: str
) -> None:
    """200 calls answering 1 MB each that the client never reads. Padded requests (8 KiB)
    overflow the pipe, so the pause shows; compact ones (~100 bytes, as a real client sends
    them) are all read in one go, and the calls in flight are what bounds memory."""
    records = tmp_path / "records.txt"
    pad = {"pad": PAD} if size == "padded" else {}
    async with stdio_server(LEGACY, records, limit=2 * BLOB) as server:
        pid = server.process.pid
        before = rss_mib(pid)
        burst = b"".join(
            orjson.dumps(call(mid, tool, {"size": BLOB}, LEGACY, **pad)) + b"\n"
            for mid in range(1, CALLS + 1)
        )
        burst += orjson.dumps(call(CALLS + 1, "append", {"text": "end"}, LEGACY)) + b"\n"
        assert server.process.stdin is not None
        server.process.stdin.write(burst)
        writing = asyncio.ensure_future(server.process.stdin.drain())
        # The server stops reading once its unsent output passes the high-water mark: the
        # burst then stays in the pipe (a broken server reads it all at once).
        done, _ = await asyncio.wait({writing}, timeout=3.0)
        paused = not done
        held = rss_mib(pid)
        peak = held
        got = 0
        start = time.perf_counter()
        while got < CALLS + 1:
            message = await server.recv()
            got += 1
            if got % 20 == 0:
                peak = max(peak, rss_mib(pid))
            if message["id"] <= CALLS:
                assert len(message["result"]["content"][0]["text"]) == BLOB
        drained_s = time.perf_counter() - start
        await writing
        await server.send(ping(CALLS + 2, LEGACY))
        assert (await server.response(CALLS + 2))["result"] == {}
        after = rss_mib(pid)
    assert paused or not pad, "the server read the whole burst while its output was not read"
    assert runs(records) == 1
    # Unbounded, the server grows by ~200-300 MiB here (all answers queued at once); bounded,
    # by the 1 MiB mark plus the answers of the calls in flight (32 at most, each held as a
    # result and as its encoding for a moment).
    assert held - before < 96 and peak - before < 96, (before, held, peak)
    record(
        f"wire: 200 x 1 MB answers nobody reads, stdio, {size} requests, {tool}",
        f"server paused reading (peak {peak:.0f} MiB); all {CALLS} answered once read",
        rss_before_mib=before,
        rss_after_mib=after,
        others=f"all answers read back in {drained_s:.1f} s; ping answered after",
    )


@pytest.mark.timeout(30)
async def test_a_paused_server_still_stops_on_eof_and_sigterm(tmp_path: Path) -> None:
    import signal

    for how in ("eof", "sigterm"):
        records = tmp_path / f"records-{how}.txt"
        async with stdio_server(LEGACY, records, limit=2 * BLOB) as server:
            assert server.process.stdin is not None
            burst = b"".join(
                orjson.dumps(call(mid, "blob", {"size": BLOB}, LEGACY, pad=PAD)) + b"\n"
                for mid in range(1, 60)
            )
            server.process.stdin.write(burst)
            writing = asyncio.ensure_future(server.process.stdin.drain())
            done, _ = await asyncio.wait({writing}, timeout=3.0)
            assert not done, "the server did not pause"
            start = time.perf_counter()
            if how == "sigterm":
                server.process.send_signal(signal.SIGTERM)
            else:
                writing.cancel()
                server.process.stdin.close()
            # It exits once its output is read or given up on; read it all.
            assert server.process.stdout is not None
            await asyncio.wait_for(server.process.stdout.read(), TIMEOUT)
            code = await asyncio.wait_for(server.process.wait(), TIMEOUT)
            elapsed = time.perf_counter() - start
            writing.cancel()
        assert code in (0, -signal.SIGTERM), code
        assert elapsed < 10, elapsed
