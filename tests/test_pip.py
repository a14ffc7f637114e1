"""The pip commands toolwire's errors end with: this interpreter, and toolwire's real source."""

from __future__ import annotations

import shlex
import subprocess
import sys
from pathlib import Path

from toolwire._pip import extra_install, pip_install

ROOT = Path(__file__).resolve().parent.parent


def test_a_package_is_installed_with_the_running_interpreters_pip() -> None:
    command = shlex.split(pip_install("PyYAML"))
    assert command == [sys.executable, "-m", "pip", "install", "PyYAML"]


def test_an_extra_names_the_checkout_this_environment_was_installed_from() -> None:
    # The test environment is an editable install of this checkout (the README's command).
    assert shlex.split(extra_install("http")) == [
        sys.executable, "-m", "pip", "install", "-e", f"{ROOT}[http]",
    ]  # fmt: skip


def test_the_command_is_one_a_shell_runs_as_printed() -> None:
    # `pip install --dry-run` of the printed command, in a real shell: it resolves the extra
    # from the checkout and installs nothing.
    command = extra_install("http").replace(" install ", " install --dry-run -q --no-deps ", 1)
    done = subprocess.run(["sh", "-c", command], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
