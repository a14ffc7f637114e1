"""``toolwire run --transport http`` and ``toolwire proxy --transport http`` stop on SIGTERM and
on SIGINT (Ctrl+C) once they have served a call: exit 0, no traceback, and a proxy takes its
stdio upstream with it. Real processes, real uvicorn on 127.0.0.1; the traffic is checked
against the negotiated revision's schema."""

from __future__ import annotations

import asyncio
import contextlib
import re
import signal
import sys
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest

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
