"""What reaches the HTTP app while it stops, driven step by step through its ASGI interface.

A runner hands the app a request a step after reading its head, and ``uvicorn module:app``
closes its listener only after the app's stop began; a request read in such a moment is
either answered within the grace (a call) or refused at once (a GET stream, which nothing
would end), never cut short after running nor left open to hold the stop up."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Iterator
from typing import Any

import orjson
import pytest

from toolwire import Server
from toolwire.transports.http.resume import Followed
from toolwire.transports.http.sse import Stream
from toolwire.transports.store.stores import RedisStore

from mcp_spec import WireChecker
from services import start_redis
from wire import MODERN, modern_meta

pytestmark = pytest.mark.timeout(30)

LEGACY = "2025-11-25"
TIMEOUT = 10.0
JSON = dict[str, Any]


@pytest.fixture(scope="module")
def redis_url() -> Iterator[str]:
    with start_redis() as url:
        yield url


def adder() -> Server:
    mcp = Server("stopping", shutdown_grace=5.0)

    @mcp.tool()
    async def add(a: int, b: int) -> int:
        """Add two integers, after some work."""
        await asyncio.sleep(0.2)  # the work outlasts the stop's first steps
        return a + b

    return mcp


class Exchange:
    """One HTTP request to ``app``, its client staying until the answer ends."""

    def __init__(
        self, app: Any, method: str, headers: dict[str, str], body: bytes | None = b""
    ) -> None:
        self.sent: list[JSON] = []
        self.started = asyncio.Event()  # the answer began
        # (None: a body that never arrives)
        self._bodies = [] if body is None else [{"type": "http.request", "body": body}]
        self._gone = asyncio.Event()  # the client hangs up only when told
        raw = [(k.encode(), v.encode()) for k, v in {**headers, "host": "127.0.0.1"}.items()]
        scope = {"type": "http", "method": method, "path": "/mcp", "headers": raw}
        self.task = asyncio.ensure_future(app(scope, self._receive, self._send))

    async def _receive(self) -> JSON:
        if self._bodies:
            return self._bodies.pop()
        await self._gone.wait()
        return {"type": "http.disconnect"}

    async def _send(self, event: JSON) -> None:
        self.sent.append(event)
        self.started.set()

    async def answer(self) -> tuple[int, dict[str, str], bytes]:
        await asyncio.wait_for(self.task, TIMEOUT)
        start = self.sent[0]
        headers = {k.decode(): v.decode() for k, v in start.get("headers", [])}
        return start["status"], headers, b"".join(e.get("body", b"") for e in self.sent[1:])


async def test_a_call_that_reaches_the_app_as_its_drain_begins_is_answered_not_cut() -> None:
    app = adder().http_app()
    checker = WireChecker(MODERN)
    params = {"name": "add", "arguments": {"a": 2, "b": 3}, "_meta": modern_meta()}
    message = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params}
    checker.client_sent(message)
    headers = {
        "content-type": "application/json",
        "accept": "application/json",
        "mcp-protocol-version": MODERN,
        "mcp-method": "tools/call",
        "mcp-name": "add",
    }
    app.draining = True
    stopping = asyncio.ensure_future(app.drain(5.0))  # the stop's middle step begins first
    call = Exchange(app, "POST", headers, orjson.dumps(message))
    await asyncio.wait_for(stopping, TIMEOUT)
    await app.close()  # what is still running now is cut
    status, _, data = await call.answer()
    checker.server_sent(data)
    assert status == 200, data
    assert orjson.loads(data)["result"]["structuredContent"] == {"result": 5}


@contextlib.asynccontextmanager
async def running(app: Any) -> AsyncIterator[None]:
    """``app``'s lifespan: started, then shut down."""
    lifespan: asyncio.Queue[JSON] = asyncio.Queue()
    told: asyncio.Queue[JSON] = asyncio.Queue()
    lifespan.put_nowait({"type": "lifespan.startup"})
    task = asyncio.ensure_future(app({"type": "lifespan"}, lifespan.get, told.put))
    assert (await asyncio.wait_for(told.get(), TIMEOUT))["type"] == "lifespan.startup.complete"
    try:
        yield
    finally:
        lifespan.put_nowait({"type": "lifespan.shutdown"})
        await asyncio.wait_for(task, TIMEOUT)
    assert (await told.get())["type"] == "lifespan.shutdown.complete"


JSON_ONLY = {"content-type": "application/json", "accept": "application/json"}


async def initialized(app: Any, checker: WireChecker) -> dict[str, str]:
    """A legacy session opened through ``app``: the headers that name it."""
    params = {
        "protocolVersion": LEGACY,
        "capabilities": {},
        "clientInfo": {"name": "stop-order", "version": "1"},
    }
    message = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": params}
    checker.client_sent(message)
    status, headers, data = await Exchange(app, "POST", JSON_ONLY, orjson.dumps(message)).answer()
    assert status == 200, data
    checker.server_sent(data)
    return {"mcp-session-id": headers["mcp-session-id"], "mcp-protocol-version": LEGACY}


async def test_a_get_stream_read_as_the_app_closes_is_refused(redis_url: str) -> None:
    """With a shared store a closed app can still find the session (it is in Redis); the
    GET stream it would open has nothing to end it, so it is refused with 503."""
    app = adder().http_app(store=RedisStore(redis_url))
    async with running(app):
        session = await initialized(app, WireChecker(LEGACY))
        await app.close()
        status, headers, data = await Exchange(
            app, "GET", {"accept": "text/event-stream", **session}
        ).answer()
        assert status == 503, data
        assert headers["retry-after"] == "1"


async def test_a_listen_stream_read_as_the_app_closes_is_refused() -> None:
    """A 2026-07-28 ``subscriptions/listen`` stream nothing would end once the app closed."""
    app = adder().http_app()
    checker = WireChecker(MODERN)
    params = {"notifications": {"toolsListChanged": True}, "_meta": modern_meta()}
    message = {"jsonrpc": "2.0", "id": 7, "method": "subscriptions/listen", "params": params}
    checker.client_sent(message)
    headers = {
        "content-type": "application/json",
        "accept": "application/json, text/event-stream",
        "mcp-protocol-version": MODERN,
        "mcp-method": "subscriptions/listen",
    }
    await app.close()
    status, answer_headers, data = await Exchange(
        app, "POST", headers, orjson.dumps(message)
    ).answer()
    assert status == 503, data
    assert answer_headers["retry-after"] == "1"


def test_a_stream_followed_from_the_log_after_the_close_ends_at_once() -> None:
    """A resumption whose lookup in the store outlasted the app's close ends as it starts."""
    followed = Followed()
    before = Stream("before")
    followed.add(before)
    followed.close()
    assert before.done
    after = Stream("after")
    followed.add(after)
    assert after.done


async def test_a_request_still_running_after_the_grace_does_not_hold_the_stop(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A POST whose body never arrives waits for it (up to ``body_timeout``); a stop gives it
    the grace, then, a moment after the close, cancels it, saying where it waited, so that a
    runner waiting for every request (uvicorn) stops."""
    app = Server("stopping", shutdown_grace=0.2).http_app()
    headers = {"content-type": "application/json", "accept": "application/json"}
    waiting = Exchange(app, "POST", {**headers, "content-length": "64"}, body=None)
    await asyncio.wait_for(app.stop(), TIMEOUT)
    assert waiting.task.done() and waiting.task.exception() is None  # ended quietly
    assert waiting.sent == []  # nothing was answered: a balancer may send it elsewhere
    [warning] = [r.getMessage() for r in caplog.records if "still running" in r.getMessage()]
    assert "read_body" in warning, warning


async def test_requests_that_find_a_session_at_once_share_it(redis_url: str) -> None:
    """A GET and a POST reaching worker B together, for a session begun on worker A, each
    read it from Redis; B keeps one session for both, so its GET stream is the session's
    and ends when B closes."""
    a = adder().http_app(store=RedisStore(redis_url))
    b = adder().http_app(store=RedisStore(redis_url))
    async with running(a), running(b):
        checker = WireChecker(LEGACY)
        session = await initialized(a, checker)
        ping = {"jsonrpc": "2.0", "id": 2, "method": "ping"}
        checker.client_sent(ping)
        stream = Exchange(b, "GET", {"accept": "text/event-stream", **session})
        pinged = Exchange(b, "POST", {**JSON_ONLY, **session}, orjson.dumps(ping))
        status, _, data = await pinged.answer()
        assert status == 200, data
        checker.server_sent(data)
        await asyncio.wait_for(stream.started.wait(), TIMEOUT)
        await b.close()
        status, _, _ = await stream.answer()  # it ended with the session
        assert status == 200
