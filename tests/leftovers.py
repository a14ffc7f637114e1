"""Processes a test run left behind (Linux, from /proc; no third-party package).

A process counts as the run's if the pytest process is among its ancestors, or if its
environment carries the run's mark (:func:`mark_run` puts it in ``os.environ``, so every
process a test starts inherits it), which also finds a grandchild whose parent has exited
and which was re-parented to init. Zombies (exited, not yet reaped) do not count.

``tests/conftest.py`` asks at the end of the session; a process still alive then, after a
short grace for those already exiting, fails the run and is named, then killed.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import select
import signal
import time
from pathlib import Path

MARK = "TOOLWIRE_TEST_RUN"
PROC = Path("/proc")


def mark_run() -> str:
    """Put a fresh mark for this run in the environment children inherit; the mark."""
    token = f"{os.getpid()}-{secrets.token_hex(8)}"
    os.environ[MARK] = token
    return token


def parent_and_state(pid: int) -> tuple[int, str] | None:
    """(parent pid, state letter) of `pid`, or None if it is gone."""
    try:
        text = (PROC / str(pid) / "stat").read_text()
    except OSError:
        return None
    fields = text[text.rindex(")") + 2 :].split()
    return int(fields[1]), fields[0]


def _has_mark(pid: int, entry: bytes) -> bool:
    try:
        environ = (PROC / str(pid) / "environ").read_bytes()
    except OSError:
        return False
    return entry in environ.split(b"\0")


def describe(pid: int) -> str:
    """`pid` and its command line, for a failure message."""
    try:
        raw = (PROC / str(pid) / "cmdline").read_bytes()
    except OSError:
        return f"pid {pid} (gone)"
    command = raw.rstrip(b"\0").replace(b"\0", b" ").decode(errors="replace")
    return f"pid {pid}: {command or '(no command line)'}"


def find(root: int, token: str | None) -> list[int]:
    """Live processes below `root`, or carrying the mark `token` (`root` itself excluded)."""
    parents: dict[int, int] = {}
    entry = f"{MARK}={token}".encode() if token else None
    found: set[int] = set()
    for path in PROC.iterdir():
        if not path.name.isdigit():
            continue
        pid = int(path.name)
        stat = parent_and_state(pid)
        if stat is None or stat[1] in ("Z", "X") or pid == root:
            continue
        parents[pid] = stat[0]
        if entry is not None and _has_mark(pid, entry):
            found.add(pid)
    for pid in parents:
        seen = {pid}
        ancestor = parents[pid]
        while ancestor in parents and ancestor not in seen:
            seen.add(ancestor)
            ancestor = parents[ancestor]
        if ancestor == root:
            found.add(pid)
    return sorted(found)


def wait_gone(pids: list[int], timeout: float) -> None:
    """Wait (at most `timeout` seconds) until each of `pids` has exited."""
    fds = []
    for pid in pids:
        with contextlib.suppress(OSError):  # gone already
            fds.append(os.pidfd_open(pid))
    deadline = time.monotonic() + timeout
    try:
        while fds and (left := deadline - time.monotonic()) > 0:
            for fd in select.select(fds, [], [], left)[0]:  # readable once the process exits
                os.close(fd)
                fds.remove(fd)
    finally:
        for fd in fds:
            os.close(fd)


def still_running(root: int, token: str | None, grace: float = 5.0) -> list[str]:
    """The run's processes still alive after `grace` seconds, described; they are then killed."""
    pids = find(root, token)
    if not pids:
        return []
    wait_gone(pids, grace)
    left = find(root, token)
    described = [describe(pid) for pid in left]
    for pid in left:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signal.SIGKILL)
    return described
