"""``toolwire run --transport http`` and ``toolwire proxy --transport http`` stop on SIGTERM and
on SIGINT (Ctrl+C) once they have served a call: exit 0, no traceback, and a proxy takes its
stdio upstream with it. With ``--redis``, ``--drain-delay`` and ``--shutdown-grace``, workers
share sessions and drain before they stop. Real processes, real uvicorn on 127.0.0.1; the traffic is checked
against the negotiated revision's schema."""

from __future__ import annotations

import asyncio
import contextlib
import re
import signal
import sys
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import httpx
import orjson
import pytest

from mcp_spec import WireChecker
from services import start_redis
from wire import EXAMPLES, MODERN, checked_client

pytestmark = [
    pytest.mark.timeout(90),
    pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals"),
]

TIMEOUT = 20.0  # any single wait: the address, an answer, an exit
CALCULATOR = EXAMPLES / "calculator.py"
TOOLWIRE = (sys.executable, "-m", "toolwire")


def run_http() -> list[str]:
    return [*TOOLWIRE, "run", str(CALCULATOR), "--transport", "http", "--port", "0"]


def proxy_http() -> list[str]:
    upstream = f"{sys.executable} {CALCULATOR}"
    return [*TOOLWIRE, "proxy", "--command", upstream, "--transport", "http", "--port", "0"]


@contextlib.asynccontextmanager
async def listening(command: list[str]) -> AsyncIterator[tuple[asyncio.subprocess.Process, str]]:
    """The process and the address it printed once it listens; killed afterwards if it is
    still running."""
    process = await asyncio.create_subprocess_exec(
        *command,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.PIPE,
    )
    try:
        assert process.stderr is not None
        seen = b""
        while (found := re.search(rb"http://127\.0\.0\.1:\d+/mcp", seen)) is None:
            line = await asyncio.wait_for(process.stderr.readline(), TIMEOUT)
            assert line, f"it ended before listening: {seen.decode(errors='replace')}"
            seen += line
        yield process, found.group().decode()
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()


def children(pid: int) -> set[int]:
    """The processes ``pid`` started (Linux's /proc)."""
    found: set[int] = set()
    for task in Path(f"/proc/{pid}/task").iterdir():
        found.update(int(child) for child in (task / "children").read_text().split())
    return found


def running(pid: int) -> bool:
    """Whether ``pid`` exists and has not exited (a zombie has exited)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except FileNotFoundError:
        return False
    return "State:\tZ" not in status


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc")
@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
@pytest.mark.parametrize("command", [run_http, proxy_http], ids=["run", "proxy"])
async def test_an_http_command_stops_on_a_signal_after_serving(
    command: Callable[[], list[str]], signum: int
) -> None:
    async with listening(command()) as (process, url):
        async with checked_client(url, MODERN) as client:
            result = await client.call_tool("divide", {"a": 1, "b": 4})
        assert result.structured == {"result": 0.25}
        upstreams = children(process.pid)
        if command is proxy_http:
            assert upstreams, "the proxy runs its upstream as a child process"
        process.send_signal(signum)
        assert process.stderr is not None
        err = await asyncio.wait_for(process.stderr.read(), TIMEOUT)
        code = await asyncio.wait_for(process.wait(), TIMEOUT)
    assert code == 0, err.decode(errors="replace")
    assert b"Traceback" not in err, err.decode(errors="replace")
    # The proxy waited for its upstream before it exited: nothing is left behind.
    assert not [pid for pid in upstreams if running(pid)]


LEGACY = "2025-11-25"
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": LEGACY,
        "capabilities": {},
        "clientInfo": {"name": "operator", "version": "1.0.0"},
    },
}


async def post(
    http: httpx.AsyncClient, url: str, message: dict[str, object], checker: WireChecker
) -> httpx.Response:
    """POST one message of the legacy session; the answer (JSON or one SSE event) checked."""
    checker.client_sent(message)
    response = await http.post(url, content=orjson.dumps(message))
    if response.headers.get("content-type", "").startswith("text/event-stream"):
        for line in response.text.splitlines():
            if line.startswith("data:") and line[5:].strip():
                checker.server_sent(line[5:].strip())
    elif response.content:
        checker.server_sent(response.content)
    return response


async def test_run_shares_sessions_through_redis_and_drains_before_it_stops() -> None:
    with start_redis() as redis_url:
        command = [*run_http(), "--redis", redis_url, "--drain-delay", "30"]
        command += ["--shutdown-grace", "5"]
        async with listening(command) as (a, url_a), listening(command) as (_b, url_b):
            headers = {
                "accept": "application/json, text/event-stream",
                "content-type": "application/json",
            }
            checker = WireChecker(LEGACY)
            async with httpx.AsyncClient(headers=headers, timeout=TIMEOUT) as http:
                opened = await post(http, url_a, INITIALIZE, checker)
                http.headers["mcp-session-id"] = opened.headers["mcp-session-id"]
                http.headers["mcp-protocol-version"] = LEGACY
                initialized = {"jsonrpc": "2.0", "method": "notifications/initialized"}
                assert (await post(http, url_b, initialized, checker)).status_code == 202
                call = {
                    "jsonrpc": "2.0",
                    "id": 2,
                    "method": "tools/call",
                    "params": {"name": "divide", "arguments": {"a": 1, "b": 4}},
                }
                through_b = await post(http, url_b, call, checker)  # a's session, on b
                assert through_b.status_code == 200, through_b.text
                a.send_signal(signal.SIGTERM)
                ready_a = url_a.replace("/mcp", "/readyz")
                while (await http.get(ready_a)).status_code != 503:  # the drain has begun
                    await asyncio.sleep(0.05)
                through_a = await post(http, url_a, {**call, "id": 3}, checker)  # still served
                assert through_a.status_code == 200, through_a.text
                assert through_a.headers["connection"] == "close"
            assert checker.checked >= 3
            a.send_signal(signal.SIGINT)  # a second signal cuts the delay short
            assert a.stderr is not None
            err = await asyncio.wait_for(a.stderr.read(), TIMEOUT)
            assert await asyncio.wait_for(a.wait(), TIMEOUT) == 0, err.decode(errors="replace")
            assert b"Traceback" not in err, err.decode(errors="replace")


async def test_redis_and_a_drain_delay_are_refused_on_stdio() -> None:
    process = await asyncio.create_subprocess_exec(
        *TOOLWIRE,
        "run",
        str(CALCULATOR),
        "--redis",
        "redis://127.0.0.1:6379/0",
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(process.communicate(), TIMEOUT)
    assert process.returncode == 2 and out == b""
    assert b"--redis and --drain-delay are for --transport http" in err, err
