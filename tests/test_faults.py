"""Faults: tools that crash their thread or the event loop, tools that never return,
clients that vanish mid-call, and servers stopped by a signal with calls in flight.

The server is ``servers/faulty.py``, as a real stdio subprocess, as ``mcp.run(
transport="http")`` in a subprocess (signals are real), or in process under uvicorn (the
HTTP disconnect tests). ``examples/notes.py`` is stopped mid-write to show that its SQLite
file never holds half a write. Tests wait on what the server says (a ``started <key>``
progress notification, a line on stderr, its exit), never on sleeps; only tools that must
be slow sleep, on the server side. Every message the server sends is checked against the
JSON Schema of the negotiated revision.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import os
import re
import signal
import sqlite3
import sys
import threading
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import httpx
import orjson
import pytest

from http_server import serve_http
from mcp_spec import WireChecker
from wire import EXAMPLES, MODERN, SERVERS, TIMEOUT, RawServer, modern_meta, raw_server

LEGACY = "2025-11-25"
ERAS = [pytest.param(LEGACY, id="legacy"), pytest.param(MODERN, id="modern")]
FAULTY = SERVERS / "faulty.py"
EXIT_BOUND = 8.0  # seconds: a generous bound for "exits promptly" on a loaded 2-core machine
MASKED = re.compile(r"Tool '(\w+)' failed with an internal error \(reference ([0-9a-f]{8})\)")
BOTH = "application/json, text/event-stream"
JSON = dict[str, Any]

# ---------------------------------------------------------------------------- stdio helpers


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


def masked(message: JSON, tool: str) -> str:
    """The reference of a masked failure of ``tool`` (DESIGN "Errors")."""
    assert message["result"]["isError"] is True, message
    match = MASKED.fullmatch(text_of(message))
    assert match is not None and match.group(1) == tool, message
    return match.group(2)


@contextlib.asynccontextmanager
async def faulty(revision: str, tmp_path: Path, *args: str) -> AsyncIterator[RawServer]:
    records = tmp_path / "records.txt"
    async with raw_server(FAULTY, "--record", str(records), *args, revision=revision) as server:
        if revision != MODERN:
            await server.initialize(revision)
        yield server
        assert server.checker.client_issues == []


def records(tmp_path: Path) -> list[str]:
    path = tmp_path / "records.txt"
    return path.read_text(encoding="utf-8").splitlines() if path.exists() else []


async def start(
    server: RawServer, mid: Any, tool: str, key: str, revision: str, **args: Any
) -> None:
    """Call a tool that announces itself and wait until it has."""
    await server.send(call(mid, tool, {"key": key, **args}, revision, token=f"p-{key}"))
    note = await server.recv()
    assert note.get("method") == "notifications/progress", note
    assert note["params"]["message"] == f"started {key}", note


async def echo(server: RawServer, mid: Any, text: str, revision: str) -> None:
    await server.send(call(mid, "echo", {"text": text}, revision))
    answer = await server.recv()  # the very next line: nothing else was sent meanwhile
    assert answer.get("id") == mid and text_of(answer) == text, answer


async def answers(server: RawServer, ids: list[str]) -> dict[Any, JSON]:
    """The responses to ``ids``, in whatever order they come."""
    got: dict[Any, JSON] = {}
    while set(got) != set(ids):
        message = await server.recv()
        assert message.get("id") in ids and message["id"] not in got, message
        got[message["id"]] = message
    return got


async def stderr_line(server: RawServer, needle: bytes, seen: list[bytes]) -> None:
    """Read the server's stderr up to a line containing ``needle``."""
    assert server.process.stderr is not None
    while True:
        line = await asyncio.wait_for(server.process.stderr.readline(), TIMEOUT)
        assert line, f"stderr ended without {needle!r}: {b''.join(seen)!r}"
        seen.append(line)
        if needle in line:
            return


LOG_RECORD = re.compile(r"^\d{4}-\d\d-\d\d [\d:,]+ [A-Z]+ ", re.MULTILINE)
EXPLAINED = ("failed (reference", "A worker thread was interrupted")


def clean(stderr: bytes) -> None:
    """Nothing on stderr says that something escaped: tracebacks only inside the server's
    own log records of a failed tool, no broken pipe, no asyncio complaint."""
    text = stderr.decode()
    for bad in ("Exception in callback", "never retrieved", "Task was destroyed", "BrokenPipe"):
        assert bad not in text, text
    starts = [m.start() for m in LOG_RECORD.finditer(text)]
    assert "Traceback" not in text[: starts[0] if starts else len(text)], text
    for begin, end in itertools.pairwise([*starts, len(text)]):
        record = text[begin:end]
        header = record.partition("\n")[0]
        assert "Traceback" not in record or any(e in header for e in EXPLAINED), record


# ---------------------------------------------------------------------------- crashes

KINDS = ("exit", "interrupt", "custom", "thread-exit")


@pytest.mark.parametrize("revision", ERAS)
async def test_tools_that_crash_end_their_call_not_the_server(
    tmp_path: Path, revision: str
) -> None:
    """SystemExit, KeyboardInterrupt, ``_thread.exit()`` and a library's own BaseException,
    raised by a sync tool on a worker thread or on the event loop, by an async tool with or
    without a timeout, or raised into a runaway tool's thread by a watchdog: each caller
    gets a masked ``isError`` result whose reference is in the server log, the server keeps
    answering, its four worker threads still run four calls at once, and it exits with 0."""
    cases = [("crash", kind) for kind in KINDS] + [("crash_inline", kind) for kind in KINDS]
    cases += [(tool, kind) for tool in ("crash_async", "crash_async_timed") for kind in KINDS[:2]]
    cases += [("runaway", None)]
    references = []
    async with faulty(revision, tmp_path, "--workers", "4") as server:
        for n, (tool, kind) in enumerate(cases):
            await server.send(call(n, tool, {"kind": kind} if kind else {}, revision))
            answer = await server.recv()
            assert answer.get("id") == n, answer
            references.append(masked(answer, tool))
            assert "hunter2" not in text_of(answer)
            await echo(server, f"e{n}", f"still here after {tool} {kind}", revision)
        meetings = [
            call(f"m{n}", "meet", {"group": "all", "parties": 4}, revision) for n in range(4)
        ]
        for message in meetings:
            await server.send(message)
        met = await answers(server, [f"m{n}" for n in range(4)])
        assert [text_of(a) for a in met.values()] == ["met"] * 4
        code, rest, err = await server.close(timeout=EXIT_BOUND)
    assert code == 0 and rest == b""
    log = err.decode()
    for reference in references:
        assert f"(reference {reference})" in log
    clean(err)
    assert records(tmp_path)[-1] == "run:returned"


@pytest.mark.parametrize("revision", ERAS)
async def test_an_async_tool_raising_a_library_base_exception_is_still_answered(
    tmp_path: Path, revision: str
) -> None:
    """A BaseException that is neither an Exception nor SystemExit/KeyboardInterrupt, from
    an async tool: the request is answered with an internal error that shows nothing of it,
    and the server goes on."""
    async with faulty(revision, tmp_path) as server:
        for n, tool in enumerate(("crash_async", "crash_async_timed")):
            await server.send(call(n, tool, {"kind": "custom"}, revision))
            answer = await server.recv()
            assert answer.get("id") == n, answer
            assert answer["error"] == {"code": -32603, "message": "Internal error"}, answer
            await echo(server, f"e{n}", "still here", revision)
        code, rest, _ = await server.close(timeout=EXIT_BOUND)
    assert code == 0 and rest == b""


async def test_an_exception_raised_into_an_idle_worker_does_not_end_it(tmp_path: Path) -> None:
    """A watchdog left behind by a call (as thread-killing timeout helpers leave them) fires
    into the worker between calls. The worker lives on: the call it lands on, if any, gets
    a masked error, and the next calls on that single worker are answered."""
    async with faulty(LEGACY, tmp_path, "--workers", "1") as server:
        await server.send(call(1, "arm", {}, LEGACY))
        assert text_of(await server.recv()) == "armed"
        await server.send(call(2, "fire", {}, LEGACY))
        assert text_of(await server.recv()) == "1"
        await server.send(call(3, "meet", {"group": "one", "parties": 1}, LEGACY))
        landed_on = await server.recv()
        if text_of(landed_on) != "met":
            masked(landed_on, "meet")
        for mid in (4, 5):
            await server.send(call(mid, "meet", {"group": "one", "parties": 1}, LEGACY))
            assert text_of(await server.recv()) == "met"
        code, rest, err = await server.close(timeout=EXIT_BOUND)
    assert code == 0 and rest == b""
    assert b"A worker thread was interrupted" in err


# ---------------------------------------------------------------------------- never returning


@pytest.mark.parametrize("revision", ERAS)
async def test_stuck_calls_time_out_and_do_not_starve_the_pool(
    tmp_path: Path, revision: str
) -> None:
    """``tool_timeout``: two sync calls stuck for good on a two-thread pool each get the
    timeout error; stand-in threads keep two calls running at once; the stuck threads do not
    keep the process alive at exit."""
    args = ("--workers", "2", "--tool-timeout", "0.3")
    async with faulty(revision, tmp_path, *args) as server:
        for key in ("s1", "s2"):
            await start(server, key, "stuck", key, revision)
        for answer in (await answers(server, ["s1", "s2"])).values():
            assert answer["result"]["isError"] is True
            assert text_of(answer) == "Tool 'stuck' timed out after 0.3 s"
        for n in range(2):
            await server.send(call(f"m{n}", "meet", {"group": "after", "parties": 2}, revision))
        met = await answers(server, ["m0", "m1"])
        assert [text_of(a) for a in met.values()] == ["met", "met"]
        started = asyncio.get_running_loop().time()
        code, rest, err = await server.close(timeout=EXIT_BOUND)
    assert code == 0 and rest == b""
    assert asyncio.get_running_loop().time() - started < EXIT_BOUND
    clean(err)
    assert records(tmp_path)[-2:] == ["lifespan:exit", "run:returned"]


@pytest.mark.parametrize("ending", ["stdin-closed", "sigterm"])
async def test_calls_that_never_return_are_cancelled_and_do_not_hold_the_exit(
    tmp_path: Path, ending: str
) -> None:
    """No timeout: a sync call blocked for good, an async call swallowing every cancellation
    and one awaiting a thread that never ends. Other calls are answered meanwhile; a
    ``notifications/cancelled`` ends each for the client, which never hears of them again
    (CN-04); at the end (stdin closed, or SIGTERM) the process still exits, with 0, shortly
    after its grace period, its lifespan left."""
    stuck = [("stuck", "a"), ("stuck_in_thread", "c")]
    if ending == "sigterm":  # the slow one: cancelled three times, it gets 1.8 s in all
        stuck.append(("stubborn", "b"))
    async with faulty(LEGACY, tmp_path, "--grace", "0.3") as server:
        for tool, key in stuck:
            await start(server, key, tool, key, LEGACY)
            await echo(server, f"e-{key}", f"answered while {tool} runs", LEGACY)
        for _tool, key in stuck:
            await server.notify("notifications/cancelled", {"requestId": key, "reason": "done"})
        await echo(server, "after", "answered after the cancels", LEGACY)
        started = asyncio.get_running_loop().time()
        if ending == "sigterm":
            server.process.send_signal(signal.SIGTERM)
        code, rest, err = await server.close(timeout=EXIT_BOUND)
    assert code == 0 and rest == b"", rest
    assert asyncio.get_running_loop().time() - started < EXIT_BOUND
    assert b"still running tool code that ignored the shutdown" in err
    clean(err)
    events = records(tmp_path)
    assert "lifespan:exit" in events
    assert ("ignored-cancel:b" in events) == (ending == "sigterm")


# ---------------------------------------------------------------------------- signals


SIGNALS = [
    pytest.param("SIGTERM", LEGACY, id="sigterm-legacy"),
    pytest.param("SIGTERM", MODERN, id="sigterm-modern"),
    pytest.param("SIGINT", LEGACY, id="sigint-legacy"),
]


@pytest.mark.parametrize(("name", "revision"), SIGNALS)
async def test_a_signal_stops_reading_lets_calls_finish_then_a_second_cuts_short(
    tmp_path: Path, name: str, revision: str
) -> None:
    """LC-14: on SIGTERM (or SIGINT) no new request is read, the calls in flight answer
    within the grace period, a second signal cancels the one still running (never
    answered), the lifespan is left and ``mcp.run()`` returns: exit status 0."""
    signum = getattr(signal, name)
    seen: list[bytes] = []
    async with faulty(revision, tmp_path, "--grace", "30") as server:
        await start(server, "a", "nap", "a", revision, seconds=0.3)
        await start(server, "b", "nap_sync", "b", revision, seconds=0.3)
        await start(server, "c", "waiting", "c", revision)
        server.process.send_signal(signum)
        await stderr_line(server, b"reading no more requests", seen)
        await server.send(call("late", "echo", {"text": "too late"}, revision))
        napped = await answers(server, ["a", "b"])
        assert {key: text_of(a) for key, a in napped.items()} == {"a": "napped a", "b": "napped b"}
        server.process.send_signal(signum)
        code, rest, err = await server.close(timeout=EXIT_BOUND)
    assert code == 0
    assert rest == b"", "neither the cancelled call nor a request sent after the signal is answered"
    clean(b"".join(seen) + err)
    events = records(tmp_path)
    assert events[-2:] == ["lifespan:exit", "run:returned"]
    assert {"done:a", "done:b", "cancelled:c"} <= set(events)


# ---------------------------------------------------------------------------- disconnects


class OwnPipes(RawServer):
    """A server whose stdout pipe the test owns, so the test can hang up like a dead client."""

    @classmethod
    async def spawn(cls, script: Path, *args: str, revision: str) -> OwnPipes:
        read_fd, write_fd = os.pipe()
        try:
            process = await asyncio.create_subprocess_exec(
                sys.executable,
                str(script),
                *args,
                stdin=asyncio.subprocess.PIPE,
                stdout=write_fd,
                stderr=asyncio.subprocess.PIPE,
            )
        finally:
            os.close(write_fd)
        server = cls(process, WireChecker(revision))
        server.reader = asyncio.StreamReader()
        loop = asyncio.get_running_loop()
        server.pipe, _ = await loop.connect_read_pipe(
            lambda: asyncio.StreamReaderProtocol(server.reader), os.fdopen(read_fd, "rb")
        )
        return server

    async def recv(self, timeout: float = TIMEOUT) -> Any:
        line = await asyncio.wait_for(self.reader.readline(), timeout)
        if not line:
            raise EOFError("the server closed stdout")
        self.checker.server_sent(line)
        return orjson.loads(line)

    async def hang_up(self) -> tuple[int, bytes]:
        """Close both pipes at once, as a client that died; the exit code and stderr."""
        assert self.process.stdin is not None and self.process.stderr is not None
        self.process.stdin.close()
        self.pipe.close()
        err = await asyncio.wait_for(self.process.stderr.read(), EXIT_BOUND)
        return await asyncio.wait_for(self.process.wait(), EXIT_BOUND), err


@pytest.mark.parametrize("revision", ERAS)
async def test_a_client_that_dies_mid_call(tmp_path: Path, revision: str) -> None:
    """The client goes away (stdin and stdout closed) while an async and a sync call run:
    they finish within the grace period, their answers go nowhere, and the server exits with
    0 and without a word about broken pipes."""
    records_file = tmp_path / "records.txt"
    server = await OwnPipes.spawn(FAULTY, "--record", str(records_file), revision=revision)
    try:
        if revision != MODERN:
            await server.initialize(revision)
        await start(server, "a", "nap", "a", revision, seconds=0.3)
        await start(server, "b", "nap_sync", "b", revision, seconds=0.3)
        code, err = await server.hang_up()
    finally:
        if server.process.returncode is None:
            server.process.kill()
            await server.process.wait()
    assert code == 0, err.decode()
    clean(err)
    events = records(tmp_path)
    assert {"done:a", "done:b"} <= set(events)
    assert events[-2:] == ["lifespan:exit", "run:returned"]


# ---------------------------------------------------------------------------- HTTP


class Records:
    """What the in-process server's tools recorded, with a bounded wait for an event."""

    def __init__(self) -> None:
        self.events: list[str] = []
        self._changed = threading.Condition()

    def __call__(self, event: str) -> None:
        with self._changed:
            self.events.append(event)
            self._changed.notify_all()

    async def wait_for(self, event: str) -> None:
        def wait() -> bool:
            with self._changed:
                return self._changed.wait_for(lambda: event in self.events, TIMEOUT)

        assert await asyncio.to_thread(wait), f"{event!r} not recorded: {self.events}"


class HttpPeer:
    """A raw client of one era: legacy sessions or 2026-07-28 requests, SSE read by hand,
    every message schema-checked."""

    def __init__(self, http: httpx.AsyncClient, url: str, revision: str) -> None:
        self.http = http
        self.url = url
        self.revision = revision
        self.checker = WireChecker(revision)
        self.session: str | None = None
        self._ids = itertools.count(1)

    def request(self, method: str, params: JSON | None = None, token: Any = None) -> JSON:
        params = dict(params or {})
        meta = modern_meta() if self.revision == MODERN else {}
        if token is not None:
            meta["progressToken"] = token
        if meta:
            params["_meta"] = meta
        return {"jsonrpc": "2.0", "id": next(self._ids), "method": method, "params": params}

    def call(self, name: str, arguments: JSON, token: Any = None) -> JSON:
        return self.request("tools/call", {"name": name, "arguments": arguments}, token)

    def headers(self, message: JSON | None = None) -> dict[str, str]:
        headers = {"accept": BOTH, "content-type": "application/json"}
        if self.revision == MODERN and message is not None:
            headers["mcp-protocol-version"] = MODERN
            headers["mcp-method"] = message["method"]
            if message["method"] == "tools/call":
                headers["mcp-name"] = message["params"]["name"]
        elif self.session is not None:
            headers["mcp-session-id"] = self.session
            headers["mcp-protocol-version"] = self.revision
        return headers

    async def post(self, message: JSON) -> list[JSON]:
        """POST and read the whole answer (JSON or SSE); the messages in it."""
        async with self.stream(message) as messages:
            return [m async for m in messages]

    @contextlib.asynccontextmanager
    async def stream(self, message: JSON) -> AsyncIterator[AsyncIterator[JSON]]:
        """POST (or GET with ``message={}``) and read messages as they come; leaving the
        block closes the connection."""
        if message:
            self.checker.client_sent(message)
            opened = self.http.stream(
                "POST", self.url, content=orjson.dumps(message), headers=self.headers(message)
            )
        else:
            opened = self.http.stream("GET", self.url, headers=self.headers())
        async with opened as response:
            assert response.status_code in (200, 202), await response.aread()
            yield self._messages(response)

    async def _messages(self, response: httpx.Response) -> AsyncIterator[JSON]:
        if response.headers.get("content-type", "").startswith("application/json"):
            body = await response.aread()
            self.checker.server_sent(body)
            yield orjson.loads(body)
            return
        data: list[str] = []
        async for line in response.aiter_lines():
            if line.startswith("data:"):
                data.append(line[5:].lstrip(" "))
            elif not line and data:
                text = "\n".join(data)
                data = []
                if text:
                    self.checker.server_sent(text)
                    yield orjson.loads(text)

    async def initialize(self) -> None:
        params = {
            "protocolVersion": self.revision,
            "capabilities": {},
            "clientInfo": {"name": "tests", "version": "0"},
        }
        message = {**self.request("initialize", params), "id": "init"}
        self.checker.client_sent(message)
        response = await self.http.post(
            self.url, content=orjson.dumps(message), headers=self.headers()
        )
        self.checker.server_sent(response.content)
        self.session = response.headers["mcp-session-id"]
        await self.notify("notifications/initialized")

    async def notify(self, method: str, params: JSON | None = None) -> None:
        message: JSON = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            message["params"] = params
        self.checker.client_sent(message)
        response = await self.http.post(
            self.url, content=orjson.dumps(message), headers=self.headers(message)
        )
        assert response.status_code == 202, response.text


async def next_of(messages: AsyncIterator[JSON]) -> JSON:
    return await asyncio.wait_for(messages.__anext__(), TIMEOUT)


async def until_started(messages: AsyncIterator[JSON], key: str) -> None:
    note = await next_of(messages)
    assert note["params"]["message"] == f"started {key}", note


@contextlib.contextmanager
def in_process(records: Records) -> Iterator[str]:
    sys.path.insert(0, str(SERVERS))
    try:
        import faulty as module
    finally:
        sys.path.remove(str(SERVERS))
    with serve_http(module.build(records)) as url:
        yield url


async def test_closing_a_2026_stream_raises_the_cancelled_flag_of_a_sync_tool() -> None:
    """CN-10 for a tool on a worker thread: it cannot be interrupted, so ``ctx.cancelled``
    turns true when the client closes the call's stream; other clients are served on."""
    recorded = Records()
    with in_process(recorded) as url:
        async with httpx.AsyncClient(timeout=TIMEOUT) as http:
            peer = HttpPeer(http, url, MODERN)
            async with peer.stream(peer.call("watch", {"key": "w"}, token="w")) as messages:
                await until_started(messages, "w")
            await recorded.wait_for("saw-cancelled:w:True")
            other = HttpPeer(http, url, MODERN)
            (answer,) = await other.post(other.call("echo", {"text": "next client"}))
            assert text_of(answer) == "next client"
    assert peer.checker.checked and peer.checker.client_issues == []


@pytest.mark.parametrize("revision", ["2025-06-18", LEGACY])
async def test_a_dropped_legacy_stream_is_no_cancel_but_notifications_cancelled_is(
    revision: str,
) -> None:
    """CN-09: before 2026-07-28 a client that closes a call's stream has not cancelled it:
    the call runs to its end. ``notifications/cancelled`` does cancel: an async tool sees
    CancelledError, a sync one ``ctx.cancelled``, and neither is ever answered."""
    recorded = Records()
    with in_process(recorded) as url:
        async with httpx.AsyncClient(timeout=TIMEOUT) as http:
            peer = HttpPeer(http, url, revision)
            await peer.initialize()
            nap = peer.call("nap", {"key": "n", "seconds": 0.2}, token="n")
            async with peer.stream(nap) as messages:
                await until_started(messages, "n")
            await recorded.wait_for("done:n")
            for tool, key in (("waiting", "a"), ("watch", "s")):
                message = peer.call(tool, {"key": key}, token=key)
                async with peer.stream(message) as messages:
                    await until_started(messages, key)
                await peer.notify("notifications/cancelled", {"requestId": message["id"]})
            await recorded.wait_for("cancelled:a")
            await recorded.wait_for("saw-cancelled:s:True")
            (answer,) = await peer.post(peer.call("echo", {"text": "served on"}))
            assert text_of(answer) == "served on"
    assert peer.checker.client_issues == []


async def wait_for_url(process: asyncio.subprocess.Process, seen: list[bytes]) -> str:
    assert process.stderr is not None
    while True:
        line = await asyncio.wait_for(process.stderr.readline(), TIMEOUT)
        assert line, b"".join(seen).decode()
        seen.append(line)
        found = re.search(rb"Uvicorn running on (http://127\.0\.0\.1:\d+)", line)
        if found:
            return found.group(1).decode() + "/mcp"


async def test_sigterm_over_http_drains_calls_refuses_connections_and_exits(
    tmp_path: Path,
) -> None:
    """``mcp.run(transport="http")`` and SIGTERM: listen streams are answered and closed at
    once and new connections are refused; a call in flight still answers; one that would
    run past the grace period is cancelled and its stream ends without an answer; the GET
    stream ends; the lifespan is left and ``run()`` returns (exit status 0)."""
    records_file = tmp_path / "records.txt"
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        str(FAULTY),
        "--http",
        "--grace",
        "1",
        "--record",
        str(records_file),
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.PIPE,
    )
    seen: list[bytes] = []
    try:
        url = await wait_for_url(process, seen)
        async with contextlib.AsyncExitStack() as stack:
            http = await stack.enter_async_context(httpx.AsyncClient(timeout=TIMEOUT))
            legacy, modern = HttpPeer(http, url, LEGACY), HttpPeer(http, url, MODERN)
            await legacy.initialize()
            get_stream = await stack.enter_async_context(legacy.stream({}))
            listen = modern.request(
                "subscriptions/listen", {"notifications": {"toolsListChanged": True}}
            )
            listening = await stack.enter_async_context(modern.stream(listen))
            assert (await next_of(listening))[
                "method"
            ] == "notifications/subscriptions/acknowledged"
            nap = modern.call("nap", {"key": "n", "seconds": 0.3}, token="n")
            napping = await stack.enter_async_context(modern.stream(nap))
            await until_started(napping, "n")
            wait = legacy.call("waiting", {"key": "w"}, token="w")
            waiting = await stack.enter_async_context(legacy.stream(wait))
            await until_started(waiting, "w")

            process.send_signal(signal.SIGTERM)
            ended = await next_of(listening)
            assert ended["id"] == listen["id"] and "result" in ended
            async with httpx.AsyncClient(timeout=TIMEOUT) as newcomer:
                with pytest.raises(httpx.ConnectError):
                    await newcomer.get(url)
            assert text_of(await next_of(napping)) == "napped n"
            assert [m async for m in waiting] == [], "a call cut off at the deadline gets nothing"
            assert [m async for m in get_stream] == []
        assert process.stderr is not None
        err = await asyncio.wait_for(process.stderr.read(), EXIT_BOUND)
        code = await asyncio.wait_for(process.wait(), EXIT_BOUND)
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
    assert code == 0
    clean(b"".join(seen) + err)
    assert legacy.checker.client_issues == [] and modern.checker.client_issues == []
    events = records_file.read_text(encoding="utf-8").splitlines()
    assert {"done:n", "cancelled:w"} <= set(events)
    assert events[-2:] == ["lifespan:exit", "run:returned"]


# ---------------------------------------------------------------------------- the SQLite example

NOTES = EXAMPLES / "notes.py"
SIZES = (100, 500, 20000, 20)  # notes per import; the third is long enough to be cut


def batch(n: int) -> list[JSON]:
    return [
        {"title": f"import {n} note {i}", "body": f"body {n}.{i} " * 8} for i in range(SIZES[n])
    ]


async def read_until(server: RawServer, done: Any, answered: dict[Any, JSON]) -> None:
    """Read until ``done(message)``, keeping the answers met on the way."""
    while True:
        message = await server.recv()
        if "id" in message:
            answered[message["id"]] = message
        if done(message):
            return


@pytest.mark.parametrize("revision", ["2025-06-18", MODERN])
async def test_sigterm_mid_import_leaves_no_half_written_note(
    tmp_path: Path, revision: str
) -> None:
    """examples/notes.py over stdio with four imports queued (each one transaction). SIGTERM
    arrives mid-way through the first; it and the next still finish and are answered. A
    second SIGTERM (the host losing patience) arrives as the long third one has begun and
    cancels what still runs or waits. Afterwards the database passes ``PRAGMA integrity_check``, every
    import is there in full or not at all, the answered ones are there, and the connections
    were closed. On the legacy revision a delete waiting for the user's confirmation is
    cancelled too and deletes nothing."""
    db = tmp_path / "notes.db"
    legacy = revision != MODERN
    seen: list[bytes] = []
    answered: dict[Any, JSON] = {}
    server = await RawServer.start(NOTES, revision=revision, env={"NOTES_DB": str(db)})
    try:
        if legacy:
            await server.request(
                "initialize",
                {
                    "protocolVersion": revision,
                    "capabilities": {"elicitation": {}},
                    "clientInfo": {"name": "tests", "version": "0"},
                },
            )
            await server.notify("notifications/initialized")
        await server.send(call("first", "add_note", {"title": "first", "body": "kept"}, revision))
        assert (await server.recv())["result"]["structuredContent"]["id"] == 1
        if legacy:
            await server.send(call("delete", "delete_notes", {"query": "first"}, revision))
            question = await server.recv()
            assert question["method"] == "elicitation/create", question  # never answered
        for n in range(len(SIZES)):  # progress only for the first
            token = 0 if n == 0 else None
            await server.send(call(f"i{n}", "import_notes", {"notes": batch(n)}, revision, token))
        await read_until(server, lambda m: m.get("method") == "notifications/progress", answered)
        server.process.send_signal(signal.SIGTERM)  # the first import is under way
        await stderr_line(server, b"reading no more requests", seen)
        await read_until(server, lambda m: m.get("id") == "i1", answered)
        server.process.send_signal(signal.SIGTERM)  # the third has just begun
        code, rest, err = await server.close(timeout=EXIT_BOUND)
    finally:
        if server.process.returncode is None:
            server.process.kill()
            await server.process.wait()
    assert code == 0, err.decode()
    clean(b"".join(seen) + err)
    assert server.checker.client_issues == []
    for line in rest.splitlines():
        message = orjson.loads(line)
        if "id" in message:
            answered[message["id"]] = message
    assert "delete" not in answered
    assert {"i0", "i1"} <= set(answered), "calls in flight at the signal were answered"
    assert not Path(f"{db}-wal").exists(), "the database was not closed"
    with contextlib.closing(sqlite3.connect(db)) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        rows = conn.execute("SELECT id, title, body FROM notes ORDER BY id").fetchall()
    assert rows[0] == (1, "first", "kept")
    for n, size in enumerate(SIZES):
        mine = [(title, body) for _id, title, body in rows if title.startswith(f"import {n} ")]
        assert len(mine) in (0, size), f"import {n} is half there: {len(mine)} of {size} notes"
        if f"i{n}" in answered:
            assert text_of(answered[f"i{n}"]) == f"Imported {size} notes."
            assert mine == [(note["title"], note["body"]) for note in batch(n)]
