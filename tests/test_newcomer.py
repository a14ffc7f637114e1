"""The README's first steps, followed literally on a fresh virtual environment: install the
checkout with pip (no extras), start ``toolwire dev examples/calculator.py``, and in a real
headless Chromium call ``divide`` with ``b=0`` and see the error result.

This is the one test that installs toolwire the way a user does, so it also proves that the
inspector's page ships in the built package and needs nothing beyond the base install.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from browser import fresh_page, launch_chromium, require_chromium
from inspector_process import start_inspector
from wire import EXAMPLES

pytestmark = pytest.mark.timeout(600)

ROOT = EXAMPLES.parent
README = ROOT / "README.md"


def readme_block_after(heading: str) -> list[str]:
    """The shell commands of the first ```sh block under ``heading``."""
    text = README.read_text(encoding="utf-8")
    section = text.split(heading, 1)[1]
    block = re.search(r"```sh\n(.*?)```", section, re.S)
    assert block is not None, f"no sh block under {heading!r}"
    return [line for line in block.group(1).splitlines() if line.strip()]


@pytest.fixture(scope="module")
def fresh_install(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A new venv with ``pip install .`` of this checkout, as the README says."""
    require_chromium()  # no point installing when the browser part cannot run
    (install,) = readme_block_after("## Run the calculator")
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
