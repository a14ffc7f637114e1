"""npm packages the interop tests run (installed from the npm registry into ``.venv`` on first
use). Without node and npm a test is skipped locally and fails in CI."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

VENV = Path(__file__).resolve().parents[2] / ".venv"


def npm_package(prefix: str, name: str, version: str) -> tuple[str, Path]:
    """(node, the package's folder) for ``name@version`` installed under ``.venv/<prefix>``."""
    node, npm = shutil.which("node"), shutil.which("npm")
    if node is None or npm is None:
        if os.environ.get("CI"):
            pytest.fail(f"node and npm are needed for the interop tests with {name}")
        pytest.skip("node and npm are not installed; install them with: apt-get install nodejs npm")
    folder = VENV / prefix / "node_modules" / name
    if not (folder / "package.json").exists():
        quiet = ["--silent", "--no-audit", "--no-fund"]
        subprocess.run(
            [npm, "install", *quiet, "--prefix", str(VENV / prefix), f"{name}@{version}"],
            check=True,
            timeout=300,
            capture_output=True,
        )
    return node, folder
