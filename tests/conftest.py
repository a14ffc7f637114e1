import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

# Test helpers (mcp_spec, wire) import each other as top-level modules.
sys.path.insert(0, str(Path(__file__).resolve().parent))


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """One headless Chromium per test module (tests/browser.py)."""
    from browser import launch_chromium

    with launch_chromium() as launched:
        yield launched


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    """A fresh context per test; any page error or console error fails the test."""
    from browser import VIEWPORT, WAIT_MS, fresh_page

    with fresh_page(browser, VIEWPORT, WAIT_MS) as opened:
        yield opened
