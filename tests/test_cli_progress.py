"""The CLI's spinner: shown on a terminal while a command waits, never in a pipe.

The terminal is a real pseudo-terminal; the slow part is a server file whose import takes
about a second, so the spinner has time to appear.
"""

from __future__ import annotations

import os
import pty
import select
import subprocess
import sys
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


@pytest.fixture
def slow_server(tmp_path: Path) -> Path:
    path = tmp_path / "slow.py"
    path.write_text(SLOW_SERVER, encoding="utf-8")
    return path


def test_a_terminal_sees_a_spinner_that_is_erased(slow_server: Path) -> None:
    controller, terminal = pty.openpty()
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
    controller, terminal = pty.openpty()
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
