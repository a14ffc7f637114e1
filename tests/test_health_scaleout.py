"""Readiness across workers: two ``mcp.run(transport="http")`` workers (uvicorn) behind
nginx share a real redis-server (``tests/servers/health_worker.py``).

Each worker's ``/readyz``, asked directly and through nginx, follows Redis: ``503`` on both
while it is stopped (liveness stays ``200``), ``200`` again once it is back on its port. A
``SIGTERM`` to one worker with a call in flight turns only that worker's readiness false
(``drain_delay``) while the call finishes and calls through nginx go on succeeding, also
after the drained worker has exited. Every MCP message is validated against the negotiated
revision's schema (``checked_client``).
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
from pathlib import Path

import httpx
import pytest

from services import free_port, redis_on, start_nginx, start_run_worker
from wire import checked_client

pytestmark = pytest.mark.timeout(90)

WORKER = Path(__file__).resolve().parent / "servers" / "health_worker.py"
ERAS = ["2025-11-25", "2026-07-28"]
TIMEOUT = 15.0
POLL_S = 0.05  # between two probes while waiting for a readiness change (bounded by TIMEOUT)
DOWN = {"status": "unavailable", "reason": "the session store does not answer"}


async def probe(http: httpx.AsyncClient, url: str) -> tuple[int, object]:
    answer = await http.get(url)
    return answer.status_code, answer.json()


async def until(http: httpx.AsyncClient, url: str, status: int) -> object:
    """Probe ``url`` until it answers ``status`` (within TIMEOUT); its body."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + TIMEOUT
    while True:
        code, body = await probe(http, url)
        if code == status:
            return body
        assert loop.time() < deadline, f"{url} still answers {code} {body}"
        await asyncio.sleep(POLL_S)


async def add_through(url: str, times: int = 4) -> None:
    """Calls through nginx in both eras (round-robin: both workers get some)."""
    for revision in ERAS:
        async with checked_client(url, revision) as client:
            for i in range(times):
                result = await client.call_tool("add", {"a": i, "b": 1})
                assert not result.is_error and result.text == str(i + 1), result.content


async def test_readiness_follows_redis_and_a_drain_on_each_worker() -> None:
    port = free_port()
    with contextlib.ExitStack() as stack:
        redis = stack.enter_context(contextlib.ExitStack())
        redis_url = redis.enter_context(redis_on(port))
        args = ("--redis", redis_url, "--drain-delay", "30")
        a = stack.enter_context(start_run_worker(WORKER, *args))
        b = stack.enter_context(start_run_worker(WORKER, *args))
        base = stack.enter_context(start_nginx([a.port, b.port]))
        direct = {w.pid: f"http://127.0.0.1:{w.port}" for w in (a, b)}
        bases = [*direct.values(), base, base]  # nginx twice: round-robin reaches both
        async with httpx.AsyncClient(timeout=TIMEOUT) as http:
            for url in bases:
                assert await probe(http, f"{url}/readyz") == (200, {"status": "ok"})
                assert await probe(http, f"{url}/healthz") == (200, {"status": "ok"})
            await add_through(f"{base}/mcp")

            redis.close()  # redis-server stops
            for url in bases:
                assert await until(http, f"{url}/readyz", 503) == DOWN
                assert await probe(http, f"{url}/healthz") == (200, {"status": "ok"})

            redis.enter_context(redis_on(port))  # back, on the same port
            for url in bases:
                assert await until(http, f"{url}/readyz", 200) == {"status": "ok"}
            await add_through(f"{base}/mcp")

            # A drain: SIGTERM to the worker that runs a call.
            async with checked_client(f"{base}/mcp", "2025-11-25") as client:
                started: asyncio.Queue[str] = asyncio.Queue()
                held = asyncio.ensure_future(
                    client.call_tool("hold", {}, progress=lambda *p: started.put_nowait(p[2]))
                )
                message = await asyncio.wait_for(started.get(), TIMEOUT)
                pid = int(message.split()[1])
                draining, other = (a, b) if pid == a.pid else (b, a)
                assert pid == draining.pid
                draining.process.send_signal(signal.SIGTERM)
                assert await asyncio.to_thread(draining.output.wait_for, "Draining", TIMEOUT)
                assert await probe(http, f"{direct[draining.pid]}/readyz") == (
                    503,
                    {"status": "draining"},
                )
                assert await probe(http, f"{direct[draining.pid]}/healthz") == (
                    200,
                    {"status": "ok"},
                )
                assert await probe(http, f"{direct[other.pid]}/readyz") == (200, {"status": "ok"})
                await add_through(f"{base}/mcp")  # both workers still serve
                assert not held.done()
                async with checked_client(draining.url, "2025-11-25") as there:
                    assert (await there.call_tool("release", {})).text == "ok"
                assert (await asyncio.wait_for(held, TIMEOUT)).text == "released"
                assert await probe(http, f"{direct[draining.pid]}/readyz") == (
                    503,
                    {"status": "draining"},
                )

            draining.process.send_signal(signal.SIGINT)  # a second signal ends the delay
            assert await asyncio.to_thread(draining.process.wait, TIMEOUT) == 0
            await add_through(f"{base}/mcp")  # nginx sends everything to the other worker
            for _ in range(2):
                assert await probe(http, f"{base}/readyz") == (200, {"status": "ok"})
