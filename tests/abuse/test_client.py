"""Hostile and broken servers against toolwire's ``Client``: every hang becomes a clear error,
memory stays bounded, and the client keeps working.

The servers are real processes: raw JSON-RPC stdio scripts (``servers/abuse_client_peer.py``)
and a tiny misbehaving ASGI app under a real uvicorn (``servers/abuse_client_http.py``).
The client runs in the test process; its resident memory is measured before and after each
attack. Every message the client writes is validated against the negotiated revision's JSON
Schema (what the hostile servers send is malformed on purpose, so it is only collected).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import statistics
import time
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest

from toolwire import ClientError
from toolwire.client import Client
from toolwire.errors import ClientTimeout

from .report import record, rss_mib
from mcp_spec import SpecViolation, WireChecker
from services import start_worker
from wire import SERVERS

REVISION = "2025-06-18"
PEER = SERVERS / "abuse_client_peer.py"
HTTP_PEER = SERVERS / "abuse_client_http.py"
MIB = 1024 * 1024
BOUND = 5.0  # seconds: "a clear error, promptly" on a loaded 2-core machine (broken: never)

pytestmark = pytest.mark.timeout(60)


def own_rss() -> float:
    return rss_mib(os.getpid())


class ClientSide:
    """A tap that validates every message the client writes (strictly) and collects what is
    wrong with the hostile server's messages instead of failing on it. The server's
    notifications are not kept (a flood of them would fill the checker)."""

    def __init__(self) -> None:
        self.checker = WireChecker(REVISION, strict_client=True)
        self.sent = 0
        self.server_violations = 0

    def __call__(self, direction: str, data: bytes) -> None:
        if direction == "send":
            self.checker.client_sent(data)  # raises: the client must never send bad messages
            self.sent += 1
            return
        if b'"id"' not in data:  # a notification: nothing the client's answers depend on
            return
        try:
            self.checker.server_sent(data)
        except SpecViolation:
            self.server_violations += 1


@contextlib.asynccontextmanager
async def peer(mode: str, *args: str, **options: Any) -> AsyncIterator[Client]:
    tap = options.pop("tap", None) or ClientSide()
    client = Client([str(PEER), mode, *args], protocol_version=REVISION, tap=tap, **options)
    async with client:
        client.side = tap  # type: ignore[attr-defined]
        yield client
    assert tap.sent > 0


def fast_calls(latencies: list[float]) -> str:
    return (
        f"p50 {statistics.median(latencies) * 1000:.1f} ms, max {max(latencies) * 1000:.0f} ms, "
        "0 errors"
    )


# ---------------------------------------------------------------- 1. deadlines


@pytest.mark.timeout(30)
async def test_deadline_when_a_stdio_server_stops_reading() -> None:
    """A server that answered initialize and never reads again: a large request fills the
    pipe and blocks the write; the deadline still ends it with ClientTimeout."""
    before = own_rss()
    async with peer("deaf", timeout=1.0) as client:
        started = time.monotonic()
        with pytest.raises(ClientTimeout, match=r"tools/call timed out after 1 s"):
            await asyncio.wait_for(client.call_tool("echo", {"blob": "y" * (2 * MIB)}), BOUND * 2)
        took = time.monotonic() - started
        assert took < BOUND
        started = time.monotonic()  # a call's own timeout overrides the client's
        with pytest.raises(ClientTimeout, match=r"after 0.3 s"):
            await asyncio.wait_for(client.call_tool("echo", {}, timeout=0.3), BOUND * 2)
        assert time.monotonic() - started < BOUND
        assert isinstance(ClientTimeout("x"), TimeoutError)
    record(
        "client: stdio server stops reading (2 MiB request)",
        f"ClientTimeout after {took:.1f} s (timeout=1)",
        rss_before_mib=before,
        rss_after_mib=own_rss(),
    )


@contextlib.contextmanager
def http_peer(mode: str, size: int = 0) -> Iterator[Any]:
    with start_worker(HTTP_PEER, mode, str(size)) as worker:
        assert worker.output.wait_for("ready", 15), worker.log()
        yield worker


@pytest.mark.timeout(30)
async def test_deadline_when_an_http_server_never_answers_a_notification() -> None:
    before = own_rss()
    with http_peer("hang-notification") as worker:
        started = time.monotonic()
        with pytest.raises(ClientTimeout, match="notifications/initialized timed out after 1 s"):
            await asyncio.wait_for(
                Client(worker.url, protocol_version=REVISION, timeout=1.0).connect(), BOUND * 2
            )
        took = time.monotonic() - started
        assert took < BOUND
        assert worker.output.wait_for("got notifications/initialized", BOUND)
    record(
        "client: HTTP server never answers a notification POST",
        f"ClientTimeout after {took:.1f} s (timeout=1)",
        rss_before_mib=before,
        rss_after_mib=own_rss(),
    )


@pytest.mark.timeout(30)
async def test_an_http_request_past_its_deadline_is_cancelled() -> None:
    """CN-11: a request the client stops waiting for is cancelled with a notification."""
    with http_peer("hang-request") as worker:
        tap = ClientSide()
        async with Client(worker.url, protocol_version=REVISION, timeout=1.0, tap=tap) as client:
            started = time.monotonic()
            with pytest.raises(ClientTimeout, match=r"tools/call timed out after 0\.5 s"):
                await client.call_tool("slow", {}, timeout=0.5)
            took = time.monotonic() - started
            assert took < BOUND
            assert worker.output.wait_for("got notifications/cancelled", BOUND), worker.log()
            await asyncio.wait_for(client.ping(), BOUND)  # still works
        assert tap.sent >= 4
    record(
        "client: HTTP request never answered",
        f"ClientTimeout after {took:.1f} s, notifications/cancelled sent",
    )


# ---------------------------------------------------------------- 2. floods


@pytest.mark.timeout(40)
@pytest.mark.parametrize("mode", ["flood", "deaf-flood"])
async def test_a_flood_of_server_requests_keeps_memory_bounded(mode: str) -> None:
    """Thousands of sampling, elicitation and ping requests and log notifications, never
    ending: the client answers at most max_server_requests at once, refuses the rest at
    once, its memory stays bounded, and (when the server reads) its own calls go on."""
    questions: list[str] = []
    answering = 0
    most = 0

    async def person(params: dict[str, Any]) -> dict[str, Any]:
        nonlocal answering, most
        answering += 1
        most = max(most, answering)
        questions.append("asked")
        try:
            await asyncio.Event().wait()  # a person who never answers
        finally:
            answering -= 1
        raise AssertionError("unreachable")

    before = own_rss()
    peak = before
    latencies: list[float] = []
    async with peer(
        mode, timeout=2.0, sampling_handler=person, elicitation_handler=person
    ) as client:
        started = time.monotonic()
        while time.monotonic() - started < 3.0:
            if mode == "flood":
                call = time.monotonic()
                tools = await asyncio.wait_for(client.list_tools(), BOUND)
                latencies.append(time.monotonic() - call)
                assert [tool["name"] for tool in tools] == ["echo"]
            await asyncio.sleep(0.1)  # pacing the samples, not waiting for anything
            peak = max(peak, own_rss())
        assert len(client.notifications) <= 2000
        assert len(client._tasks) <= client.max_server_requests
    assert 0 < most <= 32
    after = own_rss()
    assert peak - before < 60, f"the client grew from {before:.0f} to {peak:.0f} MiB"
    record(
        f"client: server-request flood ({mode})",
        f"{len(questions)} questions taken (at most {most} at once), the rest answered "
        f"with an error at once; peak RSS {peak:.0f} MiB",
        rss_before_mib=before,
        rss_after_mib=after,
        others=fast_calls(latencies) if latencies else "server does not read: no calls",
    )


# ---------------------------------------------------------------- 3. huge answers


@pytest.mark.timeout(40)
async def test_a_huge_stdio_answer_fails_its_request_only() -> None:
    before = own_rss()
    async with peer("huge", str(40 * MIB), max_message_bytes=4 * MIB, timeout=20) as client:
        started = time.monotonic()
        with pytest.raises(ClientError, match=f"larger than {4 * MIB} bytes"):
            await client.list_tools()
        took = time.monotonic() - started
        peak = own_rss()
        await asyncio.wait_for(client.ping(), BOUND)  # the connection goes on
    assert peak - before < 40
    record(
        "client: 40 MiB stdio answer (max_message_bytes=4 MiB)",
        f"ClientError after {took:.1f} s; ping still answered",
        rss_before_mib=before,
        rss_after_mib=peak,
    )


@pytest.mark.timeout(50)
@pytest.mark.parametrize(
    ("mode", "size", "limit"),
    [
        ("huge-length", 300 * MIB, None),
        ("huge-chunked", 100 * MIB, None),
        ("huge-sse", 100 * MIB, 8 * MIB),
    ],
)
async def test_a_huge_http_answer_is_not_read_whole(
    mode: str, size: int, limit: int | None
) -> None:
    options: dict[str, Any] = {} if limit is None else {"max_message_bytes": limit}
    bound = limit or 64 * MIB
    before = own_rss()
    with http_peer(mode, size) as worker:
        tap = ClientSide()
        async with Client(
            worker.url, protocol_version=REVISION, timeout=30, tap=tap, **options
        ) as client:
            started = time.monotonic()
            with pytest.raises(ClientError, match=f"larger than {bound} bytes"):
                await client.list_tools()
            took = time.monotonic() - started
            peak = own_rss()
            await asyncio.wait_for(client.ping(), BOUND)
    grew = peak - before
    assert grew < bound / MIB + 40, f"the client grew by {grew:.0f} MiB"
    record(
        f"client: {size // MIB} MiB HTTP answer ({mode[5:]}, limit {bound // MIB} MiB)",
        f"ClientError after {took:.1f} s; ping still answered",
        rss_before_mib=before,
        rss_after_mib=peak,
    )


# ---------------------------------------------------------------- 4. malformed answers

MALFORMED = [
    "result-not-object",
    "no-result",
    "error-not-object",
    "tools-missing",
    "tool-not-object",
    "tool-without-name",
    "content-wrong-shape",
    "content-not-list",
    "cursor-not-string",
]


@pytest.mark.timeout(30)
@pytest.mark.parametrize("case", MALFORMED)
async def test_a_malformed_answer_is_a_client_error(
    case: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, logger="toolwire.client")
    seen = []
    async with peer("malformed", case, timeout=5) as client:
        calls = [
            client.list_tools(),
            client.call_tool("echo", {}),
            client.read_resource("file:///x"),
            client.get_prompt("p"),
        ]
        for call in calls:
            try:
                await asyncio.wait_for(call, BOUND)
            except ClientError as exc:
                seen.append(str(exc))
            else:
                seen.append("ok")
        await asyncio.wait_for(client.ping(), BOUND)  # the reader is alive
    assert any(outcome != "ok" for outcome in seen), seen
    assert not [r for r in caplog.records if r.exc_info], "a traceback in the client's log"
    record(f"client: malformed answer ({case})", "; ".join(sorted(set(seen)))[:160])


@pytest.mark.timeout(30)
async def test_messages_that_are_not_json_rpc_leave_the_client_working(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.WARNING, logger="toolwire.client")
    async with peer("malformed", "not-json-rpc", timeout=5) as client:
        assert [tool["name"] for tool in await client.list_tools()] == ["echo"]
        assert (await client.call_tool("echo", {})).content == []
        await asyncio.wait_for(client.ping(), BOUND)
    assert not [r for r in caplog.records if r.exc_info], "a traceback in the client's log"
    warnings = [r.getMessage() for r in caplog.records]
    assert any("no request the client is waiting for" in w for w in warnings)
    assert any("not JSON" in w for w in warnings)
    record(
        "client: lines that are not JSON-RPC",
        f"{len(warnings)} warnings, no traceback; calls answered",
    )
