"""PyPI packages the interop tests run, each set in a virtualenv of its own under ``.venv``
(made on first use and reused), so that neither toolwire nor its test extra depends on them.

When the install fails the test is skipped locally with the reason, and fails in CI.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from interop.npm import VENV

INSTALL_TIMEOUT = 600  # seconds for a first install (a few dozen wheels)


def pip_venv(folder: str, pins: dict[str, str], check: str, purpose: str) -> str:
    """The interpreter of ``.venv/<folder>`` with ``pins`` (name -> version) installed;
    ``check`` is Python code that prints the pinned versions, space-separated, in order."""
    python = VENV / folder / "bin" / "python"
    wanted = [f"{name}=={version}" for name, version in pins.items()]

    def installed() -> bool:
        if not python.exists():
            return False
        try:
            found = subprocess.run(
                [str(python), "-c", check], capture_output=True, text=True, timeout=60
            )
        except (OSError, subprocess.TimeoutExpired):
            return False
        return found.returncode == 0 and found.stdout.split() == list(pins.values())

    def give_up(reason: str) -> None:
        if os.environ.get("CI"):
            pytest.fail(f"{', '.join(wanted)} are needed for {purpose}: {reason}")
        pytest.skip(f"{', '.join(wanted)} could not be installed: {reason}")

    if installed():
        return str(python)
    pip = [str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check"]
    for step in ([sys.executable, "-m", "venv", str(VENV / folder)], [*pip, *wanted]):
        try:
            done = subprocess.run(step, capture_output=True, text=True, timeout=INSTALL_TIMEOUT)
        except (OSError, subprocess.TimeoutExpired) as exc:
            give_up(f"{' '.join(step[:3])}: {exc}")
        if done.returncode != 0:
            last = (done.stderr.strip().splitlines() or ["no output"])[-1]
            give_up(f"{' '.join(step[:3])} exited {done.returncode}: {last}")
    if not installed():
        give_up("installed, but the import does not give the pinned versions")
    return str(python)
