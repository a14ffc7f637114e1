"""A masked error in ``toolwire dev`` shows where it happened: the traceback the server logged
under the error's reference id, with the developer's own frames first and toolwire's folded
away, and the Logs tab shows that log message and its traceback as one entry. What the client
got stays masked. In a real headless Chromium, against a real ``toolwire dev`` subprocess."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from browser import WAIT_MS, dev_on_copy, require_playwright
from inspector_process import Inspector
from mcp_spec import LATEST, WireChecker

require_playwright()  # skips the module without it, fails on CI
from playwright.sync_api import Page, expect  # noqa: E402

SERVER = Path(__file__).resolve().parent / "servers" / "inspected_crash.py"
MASKED = re.compile(r"^Tool 'crash' failed with an internal error \(reference ([0-9a-f]{8})\)$")

pytestmark = pytest.mark.timeout(90)
expect.set_options(timeout=WAIT_MS)


@pytest.fixture(scope="module")
def dev(browser: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Inspector]:
    with dev_on_copy(SERVER, tmp_path_factory.mktemp("crash")) as inspector:
        yield inspector


def line_of(text: str) -> int:
    """The line of the server file that holds ``text``."""
    lines = SERVER.read_text().splitlines()
    return next(number for number, line in enumerate(lines, 1) if text in line)


def test_a_masked_error_shows_its_traceback_from_the_users_frame(
    page: Page, dev: Inspector
) -> None:
    page.goto(dev.url)
    expect(page.get_by_test_id("server-status")).to_have_attribute("data-status", "ready")
    page.locator('[data-testid="tool-item"][data-tool="crash"]').click()
    page.get_by_test_id("call-button").click()
    result = page.get_by_test_id("active-call").get_by_test_id("result")
    expect(result).to_have_attribute("data-status", "error")
    expect(result.get_by_test_id("content-text")).to_have_text(MASKED)
    masked = MASKED.match(result.get_by_test_id("content-text").inner_text())
    assert masked is not None
    reference = masked[1]

    block = result.get_by_test_id("traceback")
    expect(block).to_have_attribute("data-reference", reference)
    frames = block.get_by_test_id("traceback-frame")
    expect(frames).to_have_count(2)  # the file's own frames; toolwire's are folded away
    expect(frames.first).to_have_attribute("data-file", re.compile(r"[/\\]inspected_crash\.py$"))
    expect(frames.first).to_contain_text(f"line {line_of('return lookup()')}, in crash")
    expect(frames.nth(1)).to_contain_text(f"line {line_of('return {}[')}, in lookup")
    expect(frames.nth(1)).to_contain_text('return {}["x"]')
    expect(block.get_by_test_id("traceback-exception")).to_have_text("KeyError: 'x'")
    whole = block.get_by_test_id("traceback-whole")
    expect(whole.locator("pre")).to_be_hidden()
    whole.locator("summary").click()
    expect(whole.locator("pre")).to_contain_text("Traceback (most recent call last):")
    expect(whole.locator("pre")).to_contain_text(re.compile(r"toolwire[/\\]tools\.py"))

    # The Logs tab: the message and its traceback are one entry, opened the same way.
    page.get_by_test_id("logs-tab").click()
    entry = page.get_by_test_id("logs").get_by_test_id("log-line").filter(has_text=reference)
    expect(entry).to_have_count(1)
    expect(entry).to_contain_text(f"Tool 'crash' failed (reference {reference})")
    expect(entry.get_by_test_id("traceback-frame").first).to_contain_text("in crash")
    lines = page.get_by_test_id("logs").get_by_test_id("log-line")
    expect(lines.filter(has_text="KeyError")).to_have_count(1)
    page.reload()  # the same single entry comes back from the first state event
    page.get_by_test_id("logs-tab").click()
    expect(lines.filter(has_text="KeyError")).to_have_count(1)
    expect(entry.get_by_test_id("traceback")).to_have_attribute("data-reference", reference)

    # What the client got is what any host gets: masked, valid for its revision.
    (call,) = [c for c in dev.state()["calls"] if c["tool"] == "crash"]
    traffic = dev.api("GET", f"/api/calls/{call['id']}").json()["traffic"]
    checker = WireChecker(LATEST, strict_client=True)
    for item in traffic:
        (checker.client_sent if item["direction"] == "send" else checker.server_sent)(
            item["message"]
        )
    assert checker.checked == len(traffic) == 2
    answer = traffic[1]["message"]["result"]
    assert answer["isError"] is True and MASKED.match(answer["content"][0]["text"])
    assert "KeyError" not in str(answer) and "lookup" not in str(answer)
