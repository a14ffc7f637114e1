"""The session-end check of tests/conftest.py: a test run that leaves a process behind fails,
naming it (a child of pytest, and a grandchild whose parent exited), and the processes are
gone afterwards; a run that stops what it starts passes. Each case is a real pytest run in a
temporary folder with this suite's conftest.py and leftovers.py."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import leftovers

TESTS = Path(__file__).resolve().parent

LEAVES = """
import subprocess, sys

FOREVER = [sys.executable, "-c", "import signal; signal.pause()", "left-behind-child"]
started = []


def test_leaves_a_child_and_an_orphan_behind():
    started.append(subprocess.Popen(FOREVER))
    # the middle process starts a grandchild and exits: the grandchild loses its parent
    orphan = [sys.executable, "-c", "import signal; signal.pause()", "left-behind-orphan"]
    subprocess.run([sys.executable, "-c", f"import subprocess; subprocess.Popen({orphan!r})"],
                   check=True, timeout=30)
"""

STOPS = """
import subprocess, sys


def test_stops_what_it_starts():
    process = subprocess.Popen([sys.executable, "-c", "import sys; sys.stdin.read()"],
                               stdin=subprocess.PIPE)
    process.stdin.close()
    assert process.wait(30) == 0
"""


def run_pytest(folder: Path, test: str) -> subprocess.CompletedProcess[str]:
    for helper in ("conftest.py", "leftovers.py"):
        shutil.copy(TESTS / helper, folder / helper)
    (folder / "test_it.py").write_text(test)
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "test_it.py"],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=60,
    )


def alive(pid: int) -> bool:
    stat = leftovers.parent_and_state(pid)
    return stat is not None and stat[1] not in ("Z", "X")


@pytest.mark.timeout(90)
def test_a_process_left_behind_fails_the_run_and_is_named(tmp_path: Path) -> None:
    run = run_pytest(tmp_path, LEAVES)
    output = run.stdout + run.stderr
    assert run.returncode == pytest.ExitCode.TESTS_FAILED, output
    assert "1 passed" in output, output  # the test itself passed: the check failed the run
    assert "processes left behind" in output, output
    named = dict(re.findall(r"pid (\d+): .*(left-behind-\w+)", output))
    assert sorted(named.values()) == ["left-behind-child", "left-behind-orphan"], output
    pids = [int(pid) for pid in named]
    leftovers.wait_gone(pids, 10.0)  # killed by the check; the orphan is reaped by init
    assert not [pid for pid in pids if alive(pid)], output


@pytest.mark.timeout(90)
def test_a_run_that_stops_what_it_starts_passes(tmp_path: Path) -> None:
    run = run_pytest(tmp_path, STOPS)
    output = run.stdout + run.stderr
    assert run.returncode == 0, output
    assert "left behind" not in output, output


def test_the_run_mark_reaches_the_processes_tests_start() -> None:
    token = os.environ[leftovers.MARK]
    probe = subprocess.run(
        [sys.executable, "-c", f"import os; print(os.environ[{leftovers.MARK!r}])"],
        capture_output=True,
        text=True,
        timeout=30,
        check=True,
    )
    assert probe.stdout.strip() == token
