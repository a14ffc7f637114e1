"""The inspector renders MCP Apps views the way a web host must: in the spec's double iframe
(a sandbox proxy on a second origin, under the view's Content-Security-Policy, the view
inside it), with the official host bridge (``AppBridge`` of ``@modelcontextprotocol/ext-apps``).
In a real headless Chromium against a real ``toolwire dev`` subprocess, with two views: the
example ``examples/checklist_app.py`` (written against the postMessage protocol directly) and
a probe written with the official ``App`` class of the same npm package."""

from __future__ import annotations

import re
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest

from interop import peers

from browser import VIEWPORT, WAIT_MS, fresh_page, require_playwright
from inspector_process import Inspector, start_inspector
from mcp_spec import WireChecker
from wire import EXAMPLES

require_playwright()  # skips the module without it, fails on CI
from playwright.sync_api import FrameLocator, Page, expect  # noqa: E402

TESTS = Path(__file__).resolve().parent
MODERN = "2026-07-28"
# The console errors of the fetch the view's policy blocks, on purpose.
BLOCKED = (
    'violates the following Content Security Policy directive: "connect-src',
    "Refused to connect because it violates the document's Content Security Policy",
)

pytestmark = [pytest.mark.timeout(120), pytest.mark.peers("npm-ext-apps")]


def probe_html() -> str:
    """The probe view: the official App class (its self-contained build, inlined: a view may
    load no script from elsewhere) and the probe's script."""
    _, folder = peers.ext_apps()
    bundle = (folder / "dist" / "src" / "app-with-deps.js").read_text()
    exported = re.search(r"export\{[^}]*\b(\w+) as App\b", bundle)
    assert exported, "the App class is not exported by app-with-deps.js"
    script = (
        f"{bundle}\nconst McpApp = {exported.group(1)};\n{(TESTS / 'app_probe.js').read_text()}"
    )
    buttons = "".join(
        f'<button id="{name}">{name}</button>'
        for name in ("bump", "model-only", "fetch", "link", "message", "context", "log", "grow")
    )
    fields = "".join(
        f'<pre id="{name}"></pre>'
        for name in ("top", "host", "input", "result", "outcome", "violations")
    )
    return (
        '<!doctype html><html><head><meta charset="utf-8"><title>probe</title></head><body>'
        f'{buttons}{fields}<div id="filler"></div><script type="module">{script}</script>'
        "</body></html>"
    )


@pytest.fixture(scope="module")
def checklist(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Inspector]:
    folder = tmp_path_factory.mktemp("checklist")
    for suffix in (".py", ".html"):
        shutil.copy(EXAMPLES / f"checklist_app{suffix}", folder)
    with start_inspector("checklist_app.py", cwd=folder) as inspector:
        yield inspector


@pytest.fixture(scope="module")
def probe(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Inspector]:
    folder = tmp_path_factory.mktemp("probe")
    shutil.copy(TESTS / "servers" / "inspected_apps.py", folder)
    (folder / "probe.html").write_text(probe_html())
    with start_inspector("inspected_apps.py", cwd=folder) as inspector:
        yield inspector


@pytest.fixture
def probe_page(browser: Any) -> Iterator[Page]:
    """A page that may log the connection the view's policy refuses on purpose."""
    with fresh_page(browser, VIEWPORT, WAIT_MS, expected=BLOCKED) as opened:
        yield opened


def call_tool(
    page: Page, dev: Inspector, tool: str, arguments: dict[str, str] | None = None
) -> FrameLocator:
    """Call ``tool`` from its form; the view's document, inside the sandbox proxy's frame."""
    page.goto(dev.url)
    expect(page.get_by_test_id("server-status")).to_have_attribute("data-status", "ready")
    page.locator(f'[data-testid="tool-item"][data-tool="{tool}"]').click()
    for name, value in (arguments or {}).items():
        page.locator(f'[data-input-for="{name}"]').fill(value)
    page.get_by_test_id("call-button").click()
    expect(page.get_by_test_id("active-call").get_by_test_id("result")).to_have_attribute(
        "data-status", "ok"
    )
    return page.frame_locator('[data-testid="app-frame"]').frame_locator("iframe")


def checked_traffic(dev: Inspector, call_id: int) -> list[dict[str, Any]]:
    """A call's messages, each validated against 2026-07-28."""
    traffic = dev.api("GET", f"/api/calls/{call_id}").json()["traffic"]
    checker = WireChecker(MODERN, strict_client=True)
    for entry in traffic:
        (checker.client_sent if entry["direction"] == "send" else checker.server_sent)(
            entry["message"]
        )
    assert checker.checked == len(traffic) > 0
    return [entry["message"] for entry in traffic]


def test_the_checklist_view_renders_and_calls_its_tools(page: Page, checklist: Inspector) -> None:
    view = call_tool(page, checklist, "show_checklist")
    expect(view.locator("#summary")).to_have_text("2 of 2 left")
    expect(view.locator("li")).to_have_text(["Write the release notes", "Tag the release"])
    frame = page.get_by_test_id("app-frame")
    expect(frame).to_have_attribute("style", re.compile(r"height: \d+px"))  # size-changed
    expect(page.locator('[data-testid="tool-item"][data-tool="toggle_item"]')).to_contain_text(
        "app-only"
    )

    view.locator("input[type=checkbox]").first.click()  # the view calls toggle_item
    expect(view.locator("#summary")).to_have_text("1 of 2 left")
    expect(view.locator("li.done")).to_have_text(["Write the release notes"])
    events = page.get_by_test_id("app-event")
    expect(events).to_have_text(["tools/call toggle_item"])
    toggled = checklist.state()["calls"][-1]
    assert (toggled["tool"], toggled["arguments"], toggled["status"]) == (
        "toggle_item",
        {"index": 0},
        "ok",
    )
    sent = checked_traffic(checklist, toggled["id"])
    assert sent[0]["method"] == "tools/call" and sent[0]["params"]["name"] == "toggle_item"
    # The server changed: a new call of the tool shows the ticked item.
    again = call_tool(page, checklist, "show_checklist")
    expect(again.locator("#summary")).to_have_text("1 of 2 left")
    expect(page.get_by_test_id("app-frame")).to_have_count(1)  # the old view was torn down


def test_the_official_app_class_talks_to_the_inspector(probe_page: Page, probe: Inspector) -> None:
    page = probe_page
    view = call_tool(page, probe, "probe", {"label": "first"})
    expect(view.locator("#host")).to_contain_text('"name":"toolwire-inspector"')
    expect(view.locator("#input")).to_have_text('{"label":"first"}')
    expect(view.locator("#result")).to_have_text('{"label":"first"}')

    def outcome(button: str, expected: str | re.Pattern[str]) -> None:
        view.locator(f"#{button}").click()
        expect(view.locator("#outcome")).to_have_text(expected)

    outcome("bump", '{"bumps":1}')  # a tool only the view may call
    outcome("bump", '{"bumps":2}')
    outcome("model-only", re.compile(r"^error: .*not available to apps"))
    outcome("link", "{}")
    outcome("message", "{}")
    outcome("context", "{}")
    outcome("log", "logged")
    events = page.get_by_test_id("app-event")
    expect(events).to_have_text(
        [
            "tools/call bump",
            "tools/call bump",
            "refused tools/call model_only: not visible to apps",
            re.compile(r"^open-link https://example.com/docs"),
            "message hello from the view",
            "model-context the view's state",
            "log info: probe log",
        ]
    )
    expect(page.get_by_test_id("app-open-link")).to_have_count(1)  # opened only on a click
    assert [call["tool"] for call in probe.state()["calls"]] == ["probe", "bump", "bump"]

    frame = page.get_by_test_id("app-frame")
    before = frame.bounding_box()
    outcome("grow", "grown")
    expect(frame).not_to_have_attribute("style", f"height: {before['height']}px;" if before else "")
    page.wait_for_function(
        "([f, h]) => f.getBoundingClientRect().height > h + 300",
        arg=[frame.element_handle(), before["height"] if before else 0],
    )


def test_the_view_is_isolated_and_under_its_policy(probe_page: Page, probe: Inspector) -> None:
    page = probe_page
    view = call_tool(page, probe, "probe", {"label": "isolated"})
    expect(view.locator("#top")).to_have_text("blocked")  # the page is another origin
    view.locator("#fetch").click()
    expect(view.locator("#outcome")).to_have_text("failed")
    # (the App class's own probe for eval, refused by the same policy, may be listed too)
    expect(view.locator("#violations")).to_contain_text("connect-src https://example.com/")

    sandbox = page.get_by_test_id("app-frame").get_attribute("src")
    assert sandbox is not None
    page_origin, proxy = urlsplit(probe.url), urlsplit(sandbox)
    assert proxy.hostname == "127.0.0.1" and proxy.port != page_origin.port
    with httpx.Client(timeout=10) as http:
        again = http.get(sandbox)  # the proxy's address serves once
        assert again.status_code == 404
        opened = probe.api("POST", "/api/apps/open", {"uri": "ui://probe/view"})
        assert opened.status_code == 200
        fresh = http.get(opened.json()["sandbox"])
        assert fresh.status_code == 200
        policy = fresh.headers["content-security-policy"]
        assert "connect-src https://api.example.com;" in policy
        assert "default-src 'none'" in policy and "object-src 'none'" in policy
        assert f"frame-ancestors http://127.0.0.1:{page_origin.port} " in policy
        elsewhere = http.get(f"{opened.json()['sandbox'].split('?')[0]}?view=x&host=http://evil")
        assert elsewhere.status_code == 404


def test_what_is_not_a_view_is_refused_with_a_reason(probe: Inspector) -> None:
    refused = probe.api("POST", "/api/apps/open", {"uri": "ui://probe/missing"})
    assert refused.status_code == 409 and "ui://probe/missing" in refused.json()["error"]
    bad = probe.api("POST", "/api/apps/open", {"uri": "https://example.com/"})
    assert bad.status_code == 400
