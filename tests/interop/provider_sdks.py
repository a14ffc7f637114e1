"""The LLM providers' own Python SDKs (``google-genai`` and ``openai`` from PyPI) for the
provider-profile checks, in a virtualenv of their own (``.venv/provider-sdks``, made on first
use and reused): toolwire and its tests depend on neither.

When the install fails the test is skipped locally with the reason, and fails in CI.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from interop.npm import VENV

PACKAGES = {"google-genai": "3.3.0", "openai": "3.51.0"}
FOLDER = VENV / "provider-sdks"
INSTALL_TIMEOUT = 600  # seconds for the first install
CHECK = "import google.genai, openai; print(google.genai.__version__, openai.__version__)"


def _python() -> Path:
    return FOLDER / "bin" / "python"


def _installed(python: Path) -> bool:
    if not python.exists():
        return False
    try:
        found = subprocess.run(
            [str(python), "-c", CHECK], capture_output=True, text=True, timeout=60
        )
    except (OSError, subprocess.TimeoutExpired):
        return False
    return found.returncode == 0 and found.stdout.split() == list(PACKAGES.values())


def _give_up(reason: str) -> None:
    wanted = ", ".join(f"{name}=={version}" for name, version in PACKAGES.items())
    if os.environ.get("CI"):
        pytest.fail(f"{wanted} are needed for the provider SDK checks: {reason}")
    pytest.skip(f"{wanted} could not be installed: {reason}")


def provider_sdks_python() -> str:
    """The interpreter of a virtualenv with the pinned ``google-genai`` and ``openai``."""
    python = _python()
    if _installed(python):
        return str(python)
    pip = [str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check"]
    wanted = [f"{name}=={version}" for name, version in PACKAGES.items()]
    steps = [[sys.executable, "-m", "venv", str(FOLDER)], [*pip, *wanted]]
    for step in steps:
        try:
            done = subprocess.run(step, capture_output=True, text=True, timeout=INSTALL_TIMEOUT)
        except (OSError, subprocess.TimeoutExpired) as exc:
            _give_up(f"{' '.join(step[:3])}: {exc}")
        if done.returncode != 0:
            last = (done.stderr.strip().splitlines() or ["no output"])[-1]
            _give_up(f"{' '.join(step[:3])} exited {done.returncode}: {last}")
    if not _installed(python):
        _give_up("installed, but the import does not give the pinned versions")
    return str(python)
