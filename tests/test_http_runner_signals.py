"""A toolwire app served by a runner of the user's choice stops on ``SIGTERM``, also while a
client holds a stream open, and a call in flight still gets its answer.

``uvicorn`` alone waits for every open connection before it stops, and a legacy session's
GET stream never ends by itself: the app watches the runner's stop signals and drains (the
server's ``shutdown_grace`` for calls in flight, then every stream ends). Real processes:
``uvicorn uvicorn_app:app`` and ``uvicorn --workers 2`` (sessions shared through a real
redis-server) on a listening socket, toolwire's client on a legacy session with its GET
stream open. Every message is validated against the negotiated revision's schema.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from services import listening_socket, start_redis
from wire import checked_client

pytestmark = pytest.mark.timeout(90)

SERVERS = Path(__file__).resolve().parent / "servers"
LEGACY = "2025-11-25"
TIMEOUT = 20.0


@contextlib.contextmanager
def uvicorn(
    *options: str, redis: str | None = None
) -> Iterator[tuple[subprocess.Popen[bytes], str]]:
    """``python -m uvicorn uvicorn_app:app OPTIONS`` on a listening loopback socket (its
    sessions in ``redis``, when given)."""
    sock = listening_socket()
    port = sock.getsockname()[1]
    try:
        process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "uvicorn",
                "uvicorn_app:app",
                "--app-dir",
                str(SERVERS),
                "--fd",
                str(sock.fileno()),
                "--log-level",
                "warning",
                *options,
            ],
            pass_fds=[sock.fileno()],
            env={**os.environ, **({"TOOLWIRE_TEST_REDIS": redis} if redis else {})},
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
    finally:
        sock.close()
    try:
        yield process, f"http://127.0.0.1:{port}/mcp"
    finally:
        if process.poll() is None:
            process.kill()
        process.wait(TIMEOUT)
        assert process.stderr is not None
        process.stderr.close()


@pytest.mark.parametrize("workers", [None, "2"], ids=["one process", "--workers 2"])
async def test_sigterm_stops_the_runner_with_a_stream_open_and_a_call_answered(
    workers: str | None,
) -> None:
    with contextlib.ExitStack() as stack:
        options, redis = (), None
        if workers:  # the workers share the session through Redis, as deployment.md says
            options, redis = ("--workers", workers), stack.enter_context(start_redis())
        process, url = stack.enter_context(uvicorn(*options, redis=redis))
        code = await drive(process, url)
    assert code in (0, -signal.SIGTERM), code


async def drive(process: subprocess.Popen[bytes], url: str) -> int:
    """A call in flight and the session's GET stream open when SIGTERM comes: the call gets
    its answer, and the runner exits (its exit code) while the client is still connected."""
    async with checked_client(url, LEGACY) as client:
        assert (await client.call_tool("add", {"a": 1, "b": 2})).text == "3"
        started = asyncio.Event()

        def on_progress(progress: float, total: float | None, message: str | None) -> None:
            started.set()

        # toolwire's client keeps the session's GET stream open, as hosts do
        call = asyncio.create_task(client.call_tool("hold", {"seconds": 2.0}, progress=on_progress))
        await asyncio.wait_for(started.wait(), TIMEOUT)
        process.send_signal(signal.SIGTERM)
        result = await asyncio.wait_for(call, TIMEOUT)  # within the server's grace
        assert (result.text, result.is_error) == ("held", False)
        return await asyncio.to_thread(process.wait, TIMEOUT)


async def test_only_signals_the_runner_handles_are_watched_and_put_back() -> None:
    """A signal left to its default action (the process ends) is not taken over; one the
    runner handles runs the runner's handler, then the stop, once; both are put back."""
    from toolwire.transports.http.run import stop_with_the_runner

    seen: list[int] = []
    stops: list[int] = []
    stopped = asyncio.Event()

    async def stop() -> None:
        stops.append(1)
        stopped.set()

    saved = signal.signal(signal.SIGINT, lambda signum, frame: seen.append(signum))
    saved_term = signal.signal(signal.SIGTERM, signal.SIG_DFL)
    try:
        restore = stop_with_the_runner(stop)
        assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL
        watched = signal.getsignal(signal.SIGINT)
        signal.raise_signal(signal.SIGINT)
        signal.raise_signal(signal.SIGINT)
        await asyncio.wait_for(stopped.wait(), TIMEOUT)
        assert seen == [signal.SIGINT, signal.SIGINT]  # the runner's handler, each time
        assert stops == [1]  # the stop, once
        restore()
        assert signal.getsignal(signal.SIGINT) is not watched
        assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL
    finally:
        signal.signal(signal.SIGINT, saved)
        signal.signal(signal.SIGTERM, saved_term)
