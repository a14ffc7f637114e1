"""The inspector follows a call the server runs as a task (Tasks extension, 2026-07-28): the
page shows the task's status and message as they change, then the result; Cancel cancels
the task on the server (``tasks/cancel``). In a real headless Chromium, against a real
``toolwire dev`` subprocess; every message of the call is checked against the schema."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from browser import dev_on_copy, require_playwright
from inspector_process import Inspector
from mcp_spec import WireChecker

require_playwright()  # skips the module without it, fails on CI
from playwright.sync_api import Page, expect  # noqa: E402

SERVER = Path(__file__).resolve().parent / "servers" / "inspected_tasks.py"
MODERN = "2026-07-28"

pytestmark = pytest.mark.timeout(90)


@pytest.fixture(scope="module")
def dev(browser: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Inspector]:
    with dev_on_copy(SERVER, tmp_path_factory.mktemp("tasks")) as inspector:
        yield inspector


def call_crunch(page: Page, dev: Inspector, steps: str) -> None:
    page.goto(dev.url)
    expect(page.get_by_test_id("server-status")).to_have_attribute("data-status", "ready")
    page.locator('[data-testid="tool-item"][data-tool="crunch"]').click()
    page.locator('[data-input-for="steps"]').fill(steps)
    page.get_by_test_id("call-button").click()


def checked_traffic(dev: Inspector) -> list[str]:
    """The methods the last call sent, every message validated against 2026-07-28."""
    call_id = dev.state()["calls"][-1]["id"]
    traffic = dev.api("GET", f"/api/calls/{call_id}").json()["traffic"]
    checker = WireChecker(
        MODERN,
        strict_client=True,
        extension_methods=["tasks/get", "tasks/update", "tasks/cancel"],
        extension_result_types=["task"],
    )
    for entry in traffic:
        (checker.client_sent if entry["direction"] == "send" else checker.server_sent)(
            entry["message"]
        )
    assert checker.checked == len(traffic)
    return [e["message"]["method"] for e in traffic if "method" in e["message"]]


def test_a_task_is_followed_on_the_page(page: Page, dev: Inspector) -> None:
    call_crunch(page, dev, "40")
    state = page.get_by_test_id("active-call").get_by_test_id("task-state")
    expect(state).to_have_attribute("data-status", "working")
    expect(state).to_contain_text("/40: step")  # the progress, as the task's message
    result = page.get_by_test_id("active-call").get_by_test_id("result")
    expect(result).to_have_attribute("data-status", "ok")
    expect(result).to_contain_text("crunched 40 steps")
    sent = checked_traffic(dev)
    assert sent[0] == "tools/call" and "tasks/get" in sent and "tasks/cancel" not in sent


def test_cancel_on_the_page_cancels_the_task(page: Page, dev: Inspector) -> None:
    call_crunch(page, dev, "2000")
    state = page.get_by_test_id("active-call").get_by_test_id("task-state")
    expect(state).to_contain_text("/2000: step")
    page.get_by_test_id("cancel-button").click()
    expect(page.get_by_test_id("active-call").get_by_test_id("call-status")).to_have_text(
        "cancelled"
    )
    dev.wait_for(lambda event, data: event == "call" and data["status"] == "cancelled")
    assert checked_traffic(dev)[-1] == "tasks/cancel"  # sent before the call ended
