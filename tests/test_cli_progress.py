"""The CLI's spinner: shown on a terminal while a command waits, never in a pipe.

The terminal is a real pseudo-terminal; the slow part is a server file whose import takes
about a second, so the spinner has time to appear.
"""

from __future__ import annotations

import fcntl
import os
import pty
import select
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.timeout(30)

SLOW_SERVER = """
import time
from toolwire import Server

time.sleep(1.0)  # an import that takes a while, as real servers' imports do
mcp = Server("Slow")

@mcp.tool()
def ping() -> str:
    return "pong"
"""


def read_all(fd: int, process: subprocess.Popen[bytes], limit: float = 20.0) -> bytes:
    """Everything written to the terminal until the process exits and the pty drains."""
    chunks = []
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        ready, _, _ = select.select([fd], [], [], 0.5)
        if ready:
            try:
                chunk = os.read(fd, 4096)
            except OSError:  # the other end closed
                break
            if not chunk:
                break
            chunks.append(chunk)
        elif process.poll() is not None:
            break
    return b"".join(chunks)


def wide_pty() -> tuple[int, int]:
    """A pseudo-terminal 500 columns wide: the status line is cut to the terminal's width,
    and a pty that tells none counts as 80, which a long temporary path can pass."""
    controller, terminal = pty.openpty()
    fcntl.ioctl(terminal, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 500, 0, 0))
    return controller, terminal


@pytest.fixture
def slow_server(tmp_path: Path) -> Path:
    path = tmp_path / "slow.py"
    path.write_text(SLOW_SERVER, encoding="utf-8")
    return path


def test_a_terminal_sees_a_spinner_that_is_erased(slow_server: Path) -> None:
    controller, terminal = wide_pty()
    process = subprocess.Popen(
        [sys.executable, "-m", "toolwire", "call", str(slow_server), "ping"],
        stdout=subprocess.PIPE,
        stderr=terminal,
        env={**os.environ, "TERM": "xterm"},
    )
    os.close(terminal)
    try:
        shown = read_all(controller, process)
        stdout, _ = process.communicate(timeout=20)
    finally:
        os.close(controller)
    assert process.returncode == 0
    assert stdout.decode().strip() == "pong"  # the result alone: stdout stays clean
    text = shown.decode("utf-8", "replace")
    assert f"Loading {slow_server}" in text
    assert text.count("\r") >= 3  # it was animated
    assert text.endswith("\r\x1b[K")  # and erased at the end


def test_a_pipe_sees_no_spinner(slow_server: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "toolwire", "call", str(slow_server), "ping"],
        capture_output=True,
        timeout=20,
        env={**os.environ, "TERM": "xterm"},
    )
    assert done.returncode == 0 and done.stdout.decode().strip() == "pong"
    assert done.stderr == b""


def test_a_dumb_terminal_sees_no_spinner(slow_server: Path) -> None:
    controller, terminal = wide_pty()
    process = subprocess.Popen(
        [sys.executable, "-m", "toolwire", "inspect", str(slow_server)],
        stdout=subprocess.PIPE,
        stderr=terminal,
        env={**os.environ, "TERM": "dumb"},
    )
    os.close(terminal)
    try:
        shown = read_all(controller, process)
        stdout, _ = process.communicate(timeout=20)
    finally:
        os.close(controller)
    assert process.returncode == 0 and b"ping" in stdout
    assert shown == b""


# ------------------------------------------------------------------ call: logs, progress, timeout

REPORTING_SERVER = """
import asyncio, logging, os, sys
from pathlib import Path
from toolwire import Context, Server

mcp = Server("Reporting")

@mcp.tool()
async def steps(ctx: Context, wait: bool = False) -> str:
    await ctx.info("starting")
    await ctx.report_progress(1, total=2, message="halfway")
    if wait:  # until the test saw the progress: it writes to the pipe named by GO
        await asyncio.to_thread(Path(os.environ["GO"]).read_text)
    await ctx.debug("below the level asked for")
    await ctx.warning("almost done")
    return "done"

@mcp.tool()
async def wait_forever() -> str:
    await asyncio.Event().wait()
    return "never"

if __name__ == "__main__":  # over stdio, the server's own log goes to the file named first
    log = logging.getLogger("toolwire")
    log.setLevel(logging.DEBUG)
    log.addHandler(logging.FileHandler(sys.argv[1]))
    mcp.run()
"""


@pytest.fixture
def reporting_server(tmp_path: Path) -> Path:
    path = tmp_path / "reporting.py"
    path.write_text(REPORTING_SERVER, encoding="utf-8")
    return path


def test_a_terminal_sees_log_lines_and_the_progress_on_the_status_line(
    reporting_server: Path, tmp_path: Path
) -> None:
    go = tmp_path / "go"
    os.mkfifo(go)
    controller, terminal = wide_pty()
    process = subprocess.Popen(
        [sys.executable, "-m", "toolwire", "call", str(reporting_server), "steps", "wait=true"],
        stdout=subprocess.PIPE,
        stderr=terminal,
        env={**os.environ, "TERM": "xterm", "GO": str(go)},
    )
    os.close(terminal)
    try:
        shown = b""
        while b"Calling steps: 1/2 halfway" not in shown:  # the spinner's line, updated
            ready, _, _ = select.select([controller], [], [], 20)
            assert ready, shown
            shown += os.read(controller, 4096)
        go.write_text("go")
        shown += read_all(controller, process)
        stdout, _ = process.communicate(timeout=20)
    finally:
        os.close(controller)
        process.kill()
    assert process.returncode == 0
    assert stdout.decode().strip() == "done"
    text = shown.decode("utf-8", "replace")
    assert text.startswith("[info] starting\r\n")
    assert "\r\x1b[K[warning] almost done\r\n" in text  # printed over the status line
    assert "below the level" not in text
    assert text.endswith("\r\x1b[K")


def test_a_pipe_sees_log_lines_but_no_progress(reporting_server: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "toolwire", "call", str(reporting_server), "steps"],
        capture_output=True,
        text=True,
        timeout=20,
    )
    assert (done.returncode, done.stdout.strip()) == (0, "done"), done.stderr
    assert done.stderr.splitlines() == ["[info] starting", "[warning] almost done"]


def test_quiet_shows_neither(reporting_server: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "toolwire", "call", str(reporting_server), "steps", "--quiet"],
        capture_output=True,
        text=True,
        timeout=20,
    )
    assert (done.returncode, done.stdout.strip(), done.stderr) == (0, "done", "")


def test_a_call_past_its_timeout_is_cancelled_and_exits_1(
    reporting_server: Path, tmp_path: Path
) -> None:
    log = tmp_path / "server.log"
    server = f"{sys.executable} {reporting_server} {log}"
    command = ["call", "--command", server, "wait_forever", "--timeout", "1"]
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "toolwire", *command],
        capture_output=True,
        text=True,
        timeout=20,
    )
    assert done.returncode == 1, done.stderr
    assert time.monotonic() - started < 15  # not the default minute
    assert "Traceback" not in done.stderr
    assert done.stderr.splitlines() == [
        "toolwire: wait_forever did not answer within 1 s, so the call was cancelled; "
        "--timeout SECONDS waits longer (0: as long as it takes)"
    ]
    # the server was told, before the client went away: the reason is the timeout's
    assert "cancelled: timed out" in log.read_text(encoding="utf-8")
