"""The README's first steps, followed literally on a fresh virtual environment: install the
checkout with pip (no extras), start ``toolwire dev examples/calculator.py``, and in a real
headless Chromium call ``divide`` with ``b=0`` and see the error result; then the command
line's block, each line in a new shell that has only the system's ``PATH``: the whole block of
docs/command-line.md, of which the README's "Command line" block is a part, in the same order.

This is the one module that installs toolwire the way a user does, so it also proves that the
inspector's page ships in the built package and needs nothing beyond the base install, and
that each install line of the README gives what the commands after it need.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shlex
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from browser import fresh_page, launch_chromium, require_chromium
from inspector_process import start_inspector
from wire import EXAMPLES

pytestmark = pytest.mark.timeout(600)

ROOT = EXAMPLES.parent
README = ROOT / "README.md"
TOUR = ROOT / "docs" / "command-line.md"  # every command line, the README's among them


def block_after(heading: str, page: Path = README) -> list[str]:
    """The shell commands of the first ```sh block under ``heading`` in ``page``."""
    text = page.read_text(encoding="utf-8")
    assert heading in text, f"{page.name} has no {heading!r}"
    section = text.split(heading, 1)[1]
    block = re.search(r"```sh\n(.*?)```", section, re.S)
    assert block is not None, f"no sh block under {heading!r} in {page.name}"
    return [line for line in block.group(1).splitlines() if line.strip()]


@pytest.fixture(scope="module")
def fresh_install(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A new venv with ``pip install .`` of this checkout, as the README says."""
    (install,) = block_after("## Run the calculator")
    assert "pip install -q ." in install  # the README installs the checkout, no extras
    venv = tmp_path_factory.mktemp("newcomer") / ".venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=120)
    subprocess.run(
        [str(venv / "bin" / "pip"), "install", "-q", str(ROOT)],
        check=True,
        timeout=480,
        cwd=ROOT,
    )
    return venv


def test_the_readme_path_to_a_divide_by_zero_error(fresh_install: Path) -> None:
    require_chromium()
    text = README.read_text(encoding="utf-8")
    assert ".venv/bin/toolwire dev examples/calculator.py" in text
    installed = subprocess.run(
        [str(fresh_install / "bin" / "python"), "-c", "import starlette"],
        capture_output=True,
        timeout=60,
    )
    assert installed.returncode != 0  # the base install: no web framework came with it
    toolwire = (str(fresh_install / "bin" / "toolwire"),)
    from playwright.sync_api import expect

    with (
        start_inspector("examples/calculator.py", cwd=ROOT, toolwire=toolwire) as inspector,
        launch_chromium() as browser,
        fresh_page(browser, {"width": 1280, "height": 800}, 15_000) as page,
    ):
        page.goto(inspector.url)
        page.locator('[data-testid="tool-item"][data-tool="divide"]').click()
        page.get_by_label("a", exact=True).fill("1")
        page.get_by_label("b", exact=True).fill("0")
        page.get_by_test_id("call-button").click()
        expect(page.get_by_test_id("result-error")).to_be_visible(timeout=15_000)
        expect(page.get_by_test_id("result")).to_contain_text("Cannot divide by zero")


# Lines of docs/command-line.md's block that name a server this machine does not have (a
# placeholder command or a remote URL), or that open a browser (the test above runs `dev`).
NOT_RUN = (
    "toolwire dev examples/calculator.py ",
    'toolwire dev --command "uvx some-mcp-server"',
    'toolwire call --command "uvx some-mcp-server"',
    'toolwire proxy --command "npx some-mcp-server"',
    "toolwire proxy https://example.com/mcp",
)
# What the block's lines exit with, by their start (the docs say `call` exits 1 on an error
# result); every other line exits 0.
EXIT = {"toolwire call examples/calculator.py divide a=1 b=0": 1}


def in_new_shell(line: str, venv: Path, home: Path, **popen: Any) -> subprocess.Popen[str]:
    """``line`` run by a new bash that has only the system's PATH, after the block's own
    activation line, with ``.venv`` standing for the fresh environment."""
    script = re.sub(r"(?<![\w/.])\.venv/", f"{venv}/", f". .venv/bin/activate && {line}")
    env = {
        "PATH": "/usr/local/bin:/usr/bin:/bin",
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "TOKEN": "t0ken",
    }
    return subprocess.Popen(
        ["bash", "--noprofile", "--norc", "-c", script],
        cwd=ROOT,
        env=env,
        text=True,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,  # signals go to the shell's whole group, as Ctrl+C does
        **popen,
    )


def finished(process: subprocess.Popen[str], stdin: str | None = None) -> tuple[int, str, str]:
    try:
        out, err = process.communicate(stdin, timeout=60)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
    return process.returncode, out, err


def test_the_command_line_section_runs_line_by_line_in_a_new_shell(
    fresh_install: Path, tmp_path: Path
) -> None:
    readme = block_after("## Command line")
    assert readme[0].startswith(".venv/bin/pip install -q '.[http]'")
    assert readme[1].startswith(". .venv/bin/activate")
    tour = block_after("## Every command, in one session", TOUR)
    remaining = iter(tour)  # the README's lines are the tour's, in its order
    assert all(line in remaining for line in readme), (readme, tour)
    install, activate, *lines = tour
    assert (install, activate) == (readme[0], readme[1])
    # Before it, HTTP is one line naming the pip command that adds the extra to this
    # environment from this checkout; the command works as printed.
    code, _, err = finished(
        in_new_shell(
            "toolwire run examples/calculator.py --transport http", fresh_install, tmp_path
        )
    )
    assert code == 2, err
    *_, fix = err.strip().rsplit(": ", 1)
    python, *words = shlex.split(fix)
    assert Path(python).parent == fresh_install / "bin"
    assert words == ["-m", "pip", "install", f"{ROOT}[http]"]
    code, _, err = finished(in_new_shell(fix, fresh_install, tmp_path))
    assert code == 0, err
    code, _, err = finished(in_new_shell(install.split("#")[0], fresh_install, tmp_path))
    assert code == 0, err
    commands = [line.split("  #")[0].strip() for line in lines]
    assert commands[0] == "toolwire run examples/calculator.py"
    assert commands[1].startswith("toolwire run examples/calculator.py --transport http")
    skipped = [c for c in commands if any((c + " ").startswith(s) for s in NOT_RUN)]
    assert len(skipped) == len(NOT_RUN), skipped

    # stdio, as a host starts it: a request in, its answer out, and the end of input ends it.
    request = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {
            "name": "divide",
            "arguments": {"a": 1, "b": 4},
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {},
            },
        },
    }
    stdio = in_new_shell(commands[0], fresh_install, tmp_path, stdin=subprocess.PIPE)
    code, out, err = finished(stdio, json.dumps(request) + "\n")
    assert code == 0, err
    assert json.loads(out)["result"]["structuredContent"] == {"result": 0.25}

    http = in_new_shell(commands[1], fresh_install, tmp_path)
    try:
        assert http.stderr is not None
        seen = ""
        while "http://127.0.0.1:8000/mcp" not in seen:
            line = http.stderr.readline()
            assert line, f"run --transport http ended: {seen}"
            seen += line
        # The other lines, in the block's order, while the HTTP server answers the one that
        # names its URL.
        for command in commands[2:]:
            if command in skipped:
                continue
            code, out, err = finished(in_new_shell(command, fresh_install, tmp_path))
            assert code == EXIT.get(command, 0), (command, out, err)
            assert "Traceback" not in err, (command, err)
            assert "command not found" not in err, (command, err)
    finally:
        os.killpg(http.pid, signal.SIGINT)
        code, _, err = finished(http)
    assert code == 0, err
    written = json.loads((tmp_path / ".config/Claude/claude_desktop_config.json").read_text())
    (entry,) = written["mcpServers"].values()
    assert Path(entry["command"]).parent == fresh_install / "bin"  # the venv, whatever PATH is
    assert entry["args"][:3] == ["-m", "toolwire", "run"]
