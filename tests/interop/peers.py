"""The packages from public registries that tests run as peers, each pinned, each installed
under ``.venv/<name>`` (a virtualenv for PyPI packages, an npm prefix for npm packages), so
that neither toolwire nor its test extra depends on them.

A first install takes minutes on a busy machine, more than a test's timeout. So a test (or a
module, through ``pytestmark``) names the peers it runs with ``@pytest.mark.peers("mcp-sdk-1")``,
and tests/conftest.py installs every peer the collected tests name as soon as collection ends,
before the first test and outside every timeout. During the tests the functions below only
look: a peer nobody named fails the test at once, saying which mark to add; a peer whose
install failed skips the test locally, with the reason, and fails it in CI.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import NoReturn

import pytest

VENV = Path(__file__).resolve().parents[2] / ".venv"
INSTALL_TIMEOUT = 600  # seconds for one install step (a few dozen wheels, or an npm tree)

PYTHON_SDK_1 = "1.30.0"  # PyPI mcp, the 1.x line most servers still run
TS_SDK = "1.32.2"  # npm @modelcontextprotocol/sdk
EVERYTHING = "2026.8.31"  # npm @modelcontextprotocol/server-everything
EXT_APPS = "2.0.4"  # npm @modelcontextprotocol/ext-apps
FASTMCP = "3.4.11"  # PyPI fastmcp, the 3.x line (servers in its style: tests/servers/)
FASTMCP_TASKS = "4.1.4"  # PyPI fastmcp-tasks (pins its own mcp, pulls pydocket and redis)
PROVIDER_SDKS = {"google-genai": "3.3.0", "openai": "3.51.0"}


class InstallFailed(Exception):
    """A peer could not be installed; the message says why."""


_installing = False  # True only while provision() runs, before the first test
_failed: dict[str, str] = {}  # peer -> why its install failed


def _missing(peer: str, what: str) -> NoReturn:
    """Stop a test whose peer is not installed."""
    reason = _failed.get(peer)
    if reason is None:
        pytest.fail(
            f"{what} is not installed: mark the test with pytest.mark.peers({peer!r}) so that "
            "it is installed before the tests start (tests/interop/peers.py)"
        )
    if os.environ.get("CI"):
        pytest.fail(f"{what} is needed: {reason}")
    pytest.skip(f"{what} could not be installed: {reason}")


def _run(step: list[str], env: dict[str, str] | None = None) -> None:
    try:
        done = subprocess.run(
            step, capture_output=True, text=True, timeout=INSTALL_TIMEOUT, env=env
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise InstallFailed(f"{' '.join(step[:3])}: {exc}") from None
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        raise InstallFailed(f"{' '.join(step[:3])} exited {done.returncode}: {last}")


def pip_venv(peer: str, pins: dict[str, str], check: str) -> str:
    """The interpreter of ``.venv/<peer>`` with ``pins`` (name -> version) installed; ``check``
    is Python code that prints the pinned versions, space-separated, in order."""
    python = VENV / peer / "bin" / "python"
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

    if installed():
        return str(python)
    if not _installing:
        _missing(peer, ", ".join(wanted))
    _run([sys.executable, "-m", "venv", str(VENV / peer)])
    _run([str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check", *wanted])
    if not installed():
        raise InstallFailed("installed, but the import does not give the pinned versions")
    return str(python)


def npm_package(peer: str, name: str, version: str) -> tuple[str, Path]:
    """(node, the package's folder) for ``name@version`` installed under ``.venv/<peer>``."""
    node, npm = shutil.which("node"), shutil.which("npm")
    if node is None or npm is None:
        if os.environ.get("CI"):
            pytest.fail(f"node and npm are needed to run {name}")
        pytest.skip("node and npm are not installed; install them with: apt-get install nodejs npm")
    folder = VENV / peer / "node_modules" / name
    if not (folder / "package.json").exists():
        if not _installing:
            _missing(peer, f"{name}@{version}")
        quiet = ["--silent", "--no-audit", "--no-fund"]
        _run([npm, "install", *quiet, "--prefix", str(VENV / peer), f"{name}@{version}"])
    return node, folder


def python_sdk_1() -> str:
    """The interpreter of a virtualenv with the official Python SDK 1.x."""
    check = "import importlib.metadata as m; print(m.version('mcp'))"
    return pip_venv("mcp-sdk-1", {"mcp": PYTHON_SDK_1}, check)


def fastmcp() -> str:
    """The interpreter of a virtualenv with FastMCP 3 (it pins its own ``mcp``)."""
    check = "import fastmcp; print(fastmcp.__version__)"
    return pip_venv("fastmcp", {"fastmcp": FASTMCP}, check)


def fastmcp_tasks() -> str:
    """The interpreter of a virtualenv with FastMCP's tasks add-on."""
    check = "import fastmcp_tasks; print(fastmcp_tasks.__version__)"
    return pip_venv("fastmcp-tasks", {"fastmcp-tasks": FASTMCP_TASKS}, check)


def provider_sdks() -> str:
    """The interpreter of a virtualenv with the LLM providers' own SDKs."""
    check = "import google.genai, openai; print(google.genai.__version__, openai.__version__)"
    return pip_venv("provider-sdks", PROVIDER_SDKS, check)


def ts_sdk() -> tuple[str, Path]:
    """(node, folder) of the official TypeScript SDK."""
    return npm_package("npm-ts-sdk", "@modelcontextprotocol/sdk", TS_SDK)


def everything() -> tuple[str, Path]:
    """(node, folder) of the reference server ``server-everything``."""
    return npm_package("npm-everything", "@modelcontextprotocol/server-everything", EVERYTHING)


def ext_apps() -> tuple[str, Path]:
    """(node, folder) of the MCP Apps extension's package (its ``App`` class)."""
    return npm_package("npm-ext-apps", "@modelcontextprotocol/ext-apps", EXT_APPS)


PEERS: dict[str, Callable[[], object]] = {
    "mcp-sdk-1": python_sdk_1,
    "fastmcp": fastmcp,
    "fastmcp-tasks": fastmcp_tasks,
    "provider-sdks": provider_sdks,
    "npm-ts-sdk": ts_sdk,
    "npm-everything": everything,
    "npm-ext-apps": ext_apps,
}


def provision(names: Iterable[str], say: Callable[[str], None]) -> None:
    """Install each named peer that is not installed yet (called once, before the tests),
    saying what took time; what fails is kept for the tests that need it to report."""
    global _installing
    unknown = sorted(set(names) - PEERS.keys())
    if unknown:
        raise pytest.UsageError(f"pytest.mark.peers names no known peer: {', '.join(unknown)}")
    _installing = True
    try:
        for name in sorted(set(names)):
            start = time.monotonic()
            try:
                PEERS[name]()
            except (InstallFailed, pytest.skip.Exception, pytest.fail.Exception) as exc:
                _failed[name] = str(exc)
                say(f"peer {name}: not installed: {exc}")
                continue
            took = time.monotonic() - start
            if took > 5:
                say(f"peer {name}: installed in {took:.0f} s")
    finally:
        _installing = False
