"""A call's SSE let-go (SEP-1699 polling) crosses a proxy: when the upstream's tool lets
its stream go, the proxy lets go of its own client's stream at that moment, before the
answer exists, and the client's resumption with ``Last-Event-ID`` receives the answer.

Over a legacy HTTP upstream the upstream ends its POST stream and the proxy's client
transport reports it (``on_let_go``); over stdio (and on 2026-07-28, which has no let-go)
the upstream tells the proxy's client, which declared ``experimental["io.toolwire/letGo"]``
(:mod:`toolwire.protocol.let_go`). The tool waits on something the test releases only once
the downstream stream has ended, so the order is proven, with no sleeps.

Real processes and sockets: uvicorn on 127.0.0.1 for the proxy (and the HTTP upstream), a
stdio subprocess for the stdio upstream; raw httpx downstream, every message checked
against the negotiated revision's JSON Schema (the upstream's too, in the tests that use
toolwire's client against it).
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
from asyncio import FIRST_COMPLETED
from collections.abc import AsyncIterator, Iterator
from typing import Any

import httpx
import pytest

from test_http_legacy import BOTH, TIMEOUT, Event, Gate, Peer, text_of
from toolwire import Context, Server
from toolwire.protocol.let_go import LET_GO

from http_server import serve_http
from wire import MODERN, SERVERS, checked_client

pytestmark = pytest.mark.timeout(60)

UPSTREAM = [sys.executable, str(SERVERS / "let_go_upstream.py")]
RESUMABLE = "2025-11-25"
RETRY_MS = 1500  # the proxy app's own reconnect delay
TOOL_RETRY_MS = 250  # the one the upstream's tool asks for


@contextlib.asynccontextmanager
async def downstream(url: str, revision: str = RESUMABLE) -> AsyncIterator[Peer]:
    async with httpx.AsyncClient(timeout=TIMEOUT) as http:
        peer = Peer(http, url, revision)
        await peer.initialize()
        yield peer
        assert peer.checker.client_issues == []


async def let_go_then_resume(peer: Peer, call: dict[str, Any], release: Any) -> dict[str, Any]:
    """POST ``call``: its stream must end (primed, with a reconnect delay) with no answer;
    then ``release()`` lets the upstream answer, and a GET with ``Last-Event-ID`` gets it."""
    async with peer.post_stream(call) as events:
        first = await asyncio.wait_for(events.rest(), TIMEOUT)
    priming, pause = first  # nothing else: no answer, since the tool still waits
    assert priming.id is not None and priming.data == "" and priming.retry == RETRY_MS
    assert pause == Event(data="", id=None, retry=TOOL_RETRY_MS)  # the upstream's delay
    await release()
    async with peer.get_stream(last_event_id=priming.id) as resumed:
        (answer,) = await asyncio.wait_for(resumed.rest(), TIMEOUT)
    assert answer.message["id"] == call["id"]
    return answer.message


class Heard:
    """A call's ``on_let_go``: the delays it was told, and a wait for the first."""

    def __init__(self) -> None:
        self.delays: list[int | None] = []
        self._event = asyncio.Event()

    def __call__(self, retry_ms: int | None) -> None:
        self.delays.append(retry_ms)
        self._event.set()

    async def told(self, call: asyncio.Future[Any]) -> None:
        """Until the call hears of a let-go, which must come before its answer."""
        waiter = asyncio.ensure_future(self._event.wait())
        try:
            await asyncio.wait({call, waiter}, timeout=TIMEOUT, return_when=FIRST_COMPLETED)
        finally:
            waiter.cancel()
        assert self._event.is_set() and not call.done()


# ---------------------------------------------------------------------------- stdio upstream


@pytest.mark.parametrize("path", ["fast", "slow"])
@pytest.mark.parametrize("upstream_era", [RESUMABLE, MODERN])
async def test_a_stdio_upstreams_let_go_ends_the_downstream_stream(
    upstream_era: str, path: str
) -> None:
    proxy = Server.proxy(UPSTREAM, protocol_version=upstream_era)
    with serve_http(proxy, retry_ms=RETRY_MS) as url:
        async with downstream(url) as peer:
            echoed = await peer.post(peer.call("echo", {"text": "hi"}))  # connects upstream
            assert text_of(echoed.json()) == "hi"
            call = peer.call("hold", {"retry_ms": TOOL_RETRY_MS})
            if path == "slow":  # a progress token takes the slow path
                call["params"]["_meta"] = {"progressToken": "p"}

            async def release() -> None:
                released = await peer.post(peer.call("release"))
                assert text_of(released.json()) == "released"

            answer = await let_go_then_resume(peer, call, release)
            assert text_of(answer) == "answered after the let-go (let go: True)"
    assert proxy.upstream_handshakes == 1


@pytest.mark.parametrize("hop_era", [RESUMABLE, MODERN])
async def test_a_let_go_crosses_a_proxy_of_a_proxy(hop_era: str) -> None:
    """An HTTP proxy in front of ``toolwire proxy`` over stdio (whose client declared it
    relays) in front of the stdio upstream: the let-go crosses both. On a 2026-07-28 hop
    the inner proxy passes the request on as it came, the declaration with it."""
    inner = " ".join(UPSTREAM)
    chain = [sys.executable, "-m", "toolwire", "proxy", "--command", inner]
    proxy = Server.proxy(chain, protocol_version=hop_era)
    with serve_http(proxy, retry_ms=RETRY_MS) as url:
        async with downstream(url) as peer:
            call = peer.call("hold", {"retry_ms": TOOL_RETRY_MS})

            async def release() -> None:
                released = await peer.post(peer.call("release"))
                assert text_of(released.json()) == "released"

            answer = await let_go_then_resume(peer, call, release)
            assert text_of(answer) == "answered after the let-go (let go: True)"


@pytest.mark.parametrize("upstream_era", [RESUMABLE, MODERN])
async def test_a_stdio_upstream_tells_a_client_that_relays(upstream_era: str) -> None:
    """What the upstream sends is schema-valid in its revision, and comes before the answer."""
    heard = Heard()
    logs: list[dict[str, Any]] = []
    options = {"relay_let_go": True, "log_level": "debug", "log_handler": logs.append}
    async with checked_client(UPSTREAM, upstream_era, **options) as c:
        held = asyncio.ensure_future(
            c.call_tool("hold", {"retry_ms": TOOL_RETRY_MS}, on_let_go=heard)
        )
        await heard.told(held)
        assert heard.delays == [TOOL_RETRY_MS]
        assert (await c.call_tool("release")).text == "released"
        result = await asyncio.wait_for(held, TIMEOUT)
        assert result.text == "answered after the let-go (let go: True)"
        (notice,) = [n for n in c.notifications if n["method"] == "notifications/message"]
        assert notice["params"]["_meta"][LET_GO]["retryMs"] == TOOL_RETRY_MS
        assert logs == []  # a notice, not a log line for the log handler


# ---------------------------------------------------------------------------- HTTP upstream


@pytest.fixture
def held_upstream() -> Iterator[tuple[str, Gate]]:
    """A toolwire server on uvicorn whose ``hold`` lets go and waits for the test's gate."""
    mcp = Server("let-go upstream")
    gate = Gate()

    @mcp.tool()
    async def hold(ctx: Context, retry_ms: int | None = None) -> str:
        let_go = ctx.close_sse_connection(retry_ms)
        await gate.wait()
        return f"answered after the let-go (let go: {let_go})"

    with serve_http(mcp, retry_ms=RETRY_MS) as url:
        yield url, gate


@pytest.mark.parametrize("upstream_era", [RESUMABLE, MODERN])
async def test_an_http_upstreams_let_go_ends_the_downstream_stream(
    held_upstream: tuple[str, Gate], upstream_era: str
) -> None:
    """2025-11-25: the upstream ends its POST stream; 2026-07-28: it says so on it."""
    upstream, gate = held_upstream
    proxy = Server.proxy(upstream, protocol_version=upstream_era)
    with serve_http(proxy, retry_ms=RETRY_MS) as url:
        async with downstream(url) as peer:
            call = peer.call("hold", {"retry_ms": TOOL_RETRY_MS})
            answer = await let_go_then_resume(peer, call, gate.open)
            assert text_of(answer) == "answered after the let-go (let go: True)"


async def test_the_client_hears_an_http_servers_let_go(held_upstream: tuple[str, Gate]) -> None:
    """``call_tool(on_let_go=...)`` over legacy HTTP: told when the stream ends, then the
    transport resumes it and the answer comes."""
    upstream, gate = held_upstream
    heard = Heard()
    async with checked_client(upstream, RESUMABLE) as client:
        held = asyncio.ensure_future(
            client.call_tool("hold", {"retry_ms": TOOL_RETRY_MS}, on_let_go=heard)
        )
        await heard.told(held)
        assert heard.delays == [TOOL_RETRY_MS]
        await gate.open()
        result = await asyncio.wait_for(held, TIMEOUT)
        assert result.text == "answered after the let-go (let go: True)"


# ---------------------------------------------------------------------------- where it cannot


@pytest.mark.parametrize("shared", [None, False])
@pytest.mark.parametrize(("revision", "accept"), [("2025-06-18", None), (RESUMABLE, "json")])
async def test_a_downstream_that_cannot_resume_keeps_its_stream(
    revision: str, accept: str | None, shared: bool | None
) -> None:
    """No resumable stream downstream (before 2025-11-25, or a JSON answer): the proxy
    lets nothing go, and the answer comes on the request's own response."""
    proxy = Server.proxy(UPSTREAM, shared=shared)
    with serve_http(proxy, retry_ms=RETRY_MS) as url:
        async with downstream(url, revision) as peer:
            accepting = "application/json" if accept else BOTH
            held = asyncio.ensure_future(peer.post(peer.call("hold"), accept=accepting))
            released = await peer.post(peer.call("release"))
            assert text_of(released.json()) == "released"
            response = await asyncio.wait_for(held, TIMEOUT)
            assert response.headers["content-type"].startswith("application/json")
            # The upstream's tool passed its let-go on, and the proxy found no stream to let
            # go; a session's own upstream does not even relay it before 2025-11-25 (the
            # shared one relays for every session).
            relayed = revision == RESUMABLE or shared is None
            assert text_of(response.json()) == f"answered after the let-go (let go: {relayed})"


async def test_a_server_tells_only_a_client_that_relays() -> None:
    """In memory there is no stream to end: a client that declared nothing hears nothing
    (False), one that relays is told; on 2026-07-28 only with a log level (LG-07)."""
    mcp = Server("memory")
    said: list[bool] = []

    @mcp.tool()
    def let_go(ctx: Context) -> str:
        said.append(ctx.close_sse_connection(100))
        return "done"

    heard: list[int | None] = []
    cases = [(RESUMABLE, False, None), (RESUMABLE, True, None), (MODERN, True, None)]
    cases.append((MODERN, True, "warning"))
    for revision, relays, level in cases:
        async with checked_client(mcp, revision, relay_let_go=relays, log_level=level) as client:
            result = await client.call_tool("let_go", on_let_go=heard.append)
            assert result.text == "done"
    assert said == [False, True, False, True]
    assert heard == [100, 100]
