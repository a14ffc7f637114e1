"""FastMCP's tasks add-on (PyPI ``fastmcp-tasks``) for the interop tests, in a virtualenv of
its own (``.venv/fastmcp-tasks``, made on first use and reused): it pins its own ``mcp`` and
pulls pydocket and redis, none of which toolwire or its test extra depends on.

When the install fails the test is skipped locally with the reason, and fails in CI.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from interop.npm import VENV

PACKAGE = "fastmcp-tasks"
VERSION = "4.1.4"
FOLDER = VENV / "fastmcp-tasks"
INSTALL_TIMEOUT = 600  # seconds for the first install (a few dozen wheels)


def _python() -> Path:
    return FOLDER / "bin" / "python"


def _installed(python: Path) -> bool:
    if not python.exists():
        return False
    check = [str(python), "-c", "import fastmcp_tasks; print(fastmcp_tasks.__version__)"]
    try:
        found = subprocess.run(check, capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return found.returncode == 0 and found.stdout.strip() == VERSION


def _give_up(reason: str) -> None:
    if os.environ.get("CI"):
        pytest.fail(f"{PACKAGE}=={VERSION} is needed for the FastMCP interop tests: {reason}")
    pytest.skip(f"{PACKAGE}=={VERSION} could not be installed: {reason}")


def fastmcp_tasks_python() -> str:
    """The interpreter of a virtualenv with ``fastmcp-tasks==VERSION`` installed."""
    python = _python()
    if _installed(python):
        return str(python)
    pip = [str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check"]
    steps = [[sys.executable, "-m", "venv", str(FOLDER)], [*pip, f"{PACKAGE}=={VERSION}"]]
    for step in steps:
        try:
            done = subprocess.run(step, capture_output=True, text=True, timeout=INSTALL_TIMEOUT)
        except (OSError, subprocess.TimeoutExpired) as exc:
            _give_up(f"{' '.join(step[:3])}: {exc}")
        if done.returncode != 0:
            last = (done.stderr.strip().splitlines() or ["no output"])[-1]
            _give_up(f"{' '.join(step[:3])} exited {done.returncode}: {last}")
    if not _installed(python):
        _give_up(f"installed, but 'import fastmcp_tasks' does not give {VERSION}")
    return str(python)
