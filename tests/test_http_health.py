"""Liveness and readiness endpoints (toolwire.transports.http.health) on real servers.

Readiness follows a real redis-server that is stopped and started again on the same port,
and turns false during a drain: SIGTERM to a real ``mcp.run(transport="http")`` process
with a call in flight.
"""

from __future__ import annotations

import asyncio
import signal
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from toolwire import Server
from toolwire.auth import ResourceServer, StaticTokens
from toolwire.transports.http.health import Health

from http_server import serve_http
from services import LOOPBACK, READY_TIMEOUT, _Lines, _stop, free_port, redis_on, start_worker
from wire import checked_client

pytestmark = pytest.mark.timeout(60)
WORKER = Path(__file__).resolve().parent / "servers" / "health_worker.py"
TIMEOUT = 15.0


def _server(**options: object) -> Server:
    mcp = Server("health", **options)  # type: ignore[arg-type]

    @mcp.tool()
    def add(a: int, b: int) -> int:
        return a + b

    return mcp


def test_probes_answer_without_token_or_allowed_host_and_are_no_mcp_traffic() -> None:
    auth = ResourceServer("http://127.0.0.1/mcp", [], StaticTokens({"tok": ["mcp"]}))
    with serve_http(_server(auth=auth), max_sessions=1) as url:
        base = url.removesuffix("/mcp")
        with httpx.Client(timeout=TIMEOUT) as http:
            for _ in range(3):  # more probes than sessions allowed: none is a session
                live = http.get(f"{base}/healthz", headers={"Host": "pod-10-1-2-3.internal"})
                assert live.status_code == 200 and live.json() == {"status": "ok"}
                ready = http.get(f"{base}/readyz", headers={"Origin": "https://evil.example"})
                assert ready.status_code == 200 and ready.json() == {"status": "ok"}
                assert ready.headers["cache-control"] == "no-store"
            head = http.head(f"{base}/readyz")
            assert head.status_code == 200 and head.content == b""
            assert http.post(f"{base}/healthz").status_code == 405
            assert http.post(url, json={}).status_code == 401  # the MCP endpoint still asks


def test_probes_move_or_go() -> None:
    with serve_http(_server(), health=False) as url:
        base = url.removesuffix("/mcp")
        assert httpx.get(f"{base}/healthz", timeout=TIMEOUT).status_code == 404
        assert httpx.get(f"{base}/readyz", timeout=TIMEOUT).status_code == 404
    with serve_http(_server(), health=Health(live="/livez", ready=None)) as url:
        base = url.removesuffix("/mcp")
        assert httpx.get(f"{base}/livez", timeout=TIMEOUT).status_code == 200
        assert httpx.get(f"{base}/readyz", timeout=TIMEOUT).status_code == 404


# ---------------------------------------------------------------- Redis


def test_readiness_is_false_while_redis_is_down_and_true_when_it_returns() -> None:
    port = free_port()
    redis = redis_on(port)
    redis.__enter__()
    try:
        with start_worker(WORKER, "--redis", f"redis://{LOOPBACK}:{port}/0") as worker:
            ready = worker.url.replace("/mcp", "/readyz")
            live = worker.url.replace("/mcp", "/healthz")
            with httpx.Client(timeout=TIMEOUT) as http:
                assert http.get(ready).status_code == 200
                redis.__exit__(None, None, None)
                down = http.get(ready)
                assert down.status_code == 503
                assert down.json() == {
                    "status": "unavailable",
                    "reason": "the session store does not answer",
                }
                assert http.get(live).status_code == 200  # alive all the same
                redis = redis_on(port)
                redis.__enter__()
                assert http.get(ready).status_code == 200  # each probe asks Redis
    finally:
        redis.__exit__(None, None, None)


# ---------------------------------------------------------------- drain


async def test_readiness_is_false_during_a_drain_while_calls_finish() -> None:
    process = subprocess.Popen(
        [sys.executable, str(WORKER), "--drain-delay", "30"],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    assert process.stdout is not None
    lines = _Lines(process.stdout, "drain worker")
    try:
        assert await asyncio.to_thread(lines.wait_for, "listening", READY_TIMEOUT), lines.text()
        port = next(line.split()[1] for line in lines.kept if line.startswith("listening"))
        base = f"http://{LOOPBACK}:{port}"
        async with (
            httpx.AsyncClient(timeout=TIMEOUT) as http,
            checked_client(f"{base}/mcp", protocol_version="2025-06-18") as client,
        ):
            assert (await http.get(f"{base}/readyz")).status_code == 200
            started = asyncio.Event()
            call = asyncio.ensure_future(
                client.call_tool("hold", {}, progress=lambda *_: started.set())
            )
            await asyncio.wait_for(started.wait(), TIMEOUT)

            process.send_signal(signal.SIGTERM)
            assert await asyncio.to_thread(lines.wait_for, "Draining", TIMEOUT), lines.text()
            draining = await http.get(f"{base}/readyz")
            assert draining.status_code == 503 and draining.json() == {"status": "draining"}
            assert (await http.get(f"{base}/healthz")).status_code == 200
            # Still served meanwhile: the call in flight, and new ones.
            assert not call.done()
            assert (await client.call_tool("release", {})).text == "ok"
            assert (await asyncio.wait_for(call, TIMEOUT)).text == "released"
            assert (await http.get(f"{base}/readyz")).status_code == 503
        process.send_signal(signal.SIGINT)  # a second signal ends the delay
        assert await asyncio.to_thread(process.wait, TIMEOUT) == 0
    finally:
        _stop(process)
        lines.join()
