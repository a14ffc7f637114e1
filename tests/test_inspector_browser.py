"""The inspector page end to end: ``toolwire dev`` as a real subprocess, the page in a real
headless Chromium, every step through what a developer sees and clicks.

One browser serves the module; each test has a fresh browser context and fails if the page
throws or logs a console error. Each ``toolwire dev`` runs on a copy of its server file in a
temporary folder (the inspector restarts the server when a file beside it changes).
"""

from __future__ import annotations

import gzip
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from browser import (
    ERROR_BACKGROUND,
    STATIC,
    VIEWPORT,
    WAIT_MS,
    decode_png,
    dev_on_copy,
    distinct_colours,
    pixels_near,
    require_playwright,
)
from inspector_process import Inspector
from mcp_spec import LATEST, WireChecker, spec_available

require_playwright()  # skips the module without it, fails on CI
from playwright.sync_api import Locator, Page, expect  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
CALCULATOR = REPO / "examples" / "calculator.py"
INSPECTED = REPO / "tests" / "servers" / "inspected.py"
LEGACY = "2025-11-25"

expect.set_options(timeout=WAIT_MS)


# ---------------------------------------------------------------------------- fixtures


@pytest.fixture(scope="module")
def calculator(browser: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Inspector]:
    with dev_on_copy(CALCULATOR, tmp_path_factory.mktemp("calculator")) as dev:
        yield dev


@pytest.fixture(scope="module")
def inspected(browser: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Inspector]:
    with dev_on_copy(INSPECTED, tmp_path_factory.mktemp("inspected")) as dev:
        yield dev


@pytest.fixture(scope="module")
def inspected_legacy(browser: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Inspector]:
    folder = tmp_path_factory.mktemp("inspected_legacy")
    with dev_on_copy(INSPECTED, folder, "--protocol-version", LEGACY) as dev:
        yield dev


# ---------------------------------------------------------------------------- helpers


def open_inspector(page: Page, dev: Inspector) -> None:
    page.goto(dev.url)
    expect(page.get_by_test_id("server-status")).to_have_attribute("data-status", "ready")


def select_tool(page: Page, name: str) -> None:
    page.locator(f'[data-testid="tool-item"][data-tool="{name}"]').click()
    expect(page.get_by_test_id("tool-name")).to_have_text(name)


def field(page: Page, path: str) -> Locator:
    """The input control of the form field at ``path`` (``a.b.0.c``)."""
    return page.locator(f'[data-input-for="{path}"]')


def add_item(page: Page, path: str) -> None:
    page.locator(f'[data-testid="field"][data-path="{path}"] > [data-testid="array-add"]').click()


def call_and_wait(page: Page, status: str) -> Locator:
    """Click Call and wait for this call's (not an earlier one's) result."""
    active = page.get_by_test_id("active-call")
    before = active.get_attribute("data-call-id") if active.count() else None
    page.get_by_test_id("call-button").click()
    if before is not None:
        expect(active).not_to_have_attribute("data-call-id", before)
    result = active.get_by_test_id("result")
    expect(result).to_have_attribute("data-status", status)
    return result


def latest_call(dev: Inspector) -> dict[str, Any]:
    calls = dev.state()["calls"]
    assert calls, "no call in the history"
    return fetch_call(dev, calls[-1]["id"])


def fetch_call(dev: Inspector, call_id: int) -> dict[str, Any]:
    """GET /api/calls/ID with the token, as the page does."""
    answer = dev.api("GET", f"/api/calls/{call_id}")
    assert answer.status_code == 200, answer.text
    call: dict[str, Any] = answer.json()
    return call


def check_traffic(call: dict[str, Any], revision: str) -> list[dict[str, Any]]:
    """Validate each JSON-RPC message of a call against ``revision``'s schema; return them."""
    checker = WireChecker(revision, strict_client=True)
    messages = []
    for entry in call["traffic"]:
        assert entry["direction"] in ("send", "receive")
        assert isinstance(entry["time"], (int, float))
        if entry["direction"] == "send":
            checker.client_sent(entry["message"])
        else:
            checker.server_sent(entry["message"])
        messages.append(entry["message"])
    assert checker.checked >= len(messages) > 0
    return messages


def traffic_json(page: Page, text: str, direction: str = "send") -> dict[str, Any]:
    """The pretty-printed JSON of the one traffic message (shown) that mentions ``text``."""
    message = page.locator(
        f'[data-testid="traffic-message"][data-direction="{direction}"]', has_text=text
    )
    expect(message).to_have_count(1)
    parsed: dict[str, Any] = json.loads(message.locator("pre").inner_text())
    return parsed


def show_history_call(page: Page, call_id: int) -> None:
    page.get_by_test_id("history-tab").click()
    page.locator(f'[data-testid="history-item"][data-call-id="{call_id}"]').click()
    expect(page.get_by_test_id("traffic-message").first).to_be_visible()


# ---------------------------------------------------------------------------- static files


def test_static_files_load_nothing_from_the_network() -> None:
    names = {path.name for path in STATIC.iterdir()}
    assert {"index.html", "inspector.css", "inspector.js"} <= names
    for path in STATIC.iterdir():
        if path.suffix == ".gz":  # the vendored app bridge: names schema URIs, imports nothing
            bridge = gzip.decompress(path.read_bytes()).decode()
            assert not re.search(r"\bimport\s*\(|(?:^|[;}])\s*import\s*[{*\w]", bridge)
            continue
        text = path.read_text(encoding="utf-8")
        assert "http://" not in text and "https://" not in text, path.name
    page = (STATIC / "index.html").read_text(encoding="utf-8")
    assert 'src="/static/inspector.js"' in page
    assert 'href="/static/inspector.css"' in page
    script = (STATIC / "inspector.js").read_text(encoding="utf-8")
    assert ".innerHTML" not in script and "insertAdjacentHTML" not in script


# ---------------------------------------------------------------------------- newcomer path


def test_newcomer_divides_by_zero_and_sees_the_error(page: Page, calculator: Inspector) -> None:
    open_inspector(page, calculator)
    expect(page.get_by_test_id("server-name")).to_have_text("Calculator")
    expect(page.get_by_test_id("protocol-version")).to_have_text(LATEST)
    select_tool(page, "divide")
    expect(page.get_by_test_id("tool-title")).to_have_text("Divide")
    expect(page.get_by_test_id("missing-fields")).to_contain_text("a, b")

    page.get_by_label("a", exact=True).fill("1")
    page.get_by_label("b", exact=True).fill("0")
    result = call_and_wait(page, "error")
    expect(result).to_contain_text("Cannot divide by zero")
    expect(result.get_by_test_id("result-error")).to_have_text("Error")
    expect(result).to_have_class(re.compile(r"\bis-error\b"))

    page.get_by_label("b", exact=True).fill("4")
    result = call_and_wait(page, "ok")
    expect(result.get_by_test_id("content-text")).to_have_text("0.25")
    expect(result.get_by_test_id("result-error")).to_have_count(0)
    assert latest_call(calculator)["arguments"] == {"a": 1, "b": 4}


# ---------------------------------------------------------------------------- tool list


def test_header_tool_list_badges_and_filter(page: Page, inspected: Inspector) -> None:
    open_inspector(page, inspected)
    expect(page.get_by_test_id("server-name")).to_have_text("Inspected")
    expect(page.get_by_test_id("server-version")).to_have_text("v1.2.3")
    expect(page.get_by_test_id("instructions")).to_contain_text("every part of the inspector")

    def item(name: str) -> Locator:
        return page.locator(f'[data-testid="tool-item"][data-tool="{name}"]')

    wipe = item("wipe")
    for badge in ("badge-destructive", "badge-idempotent", "badge-open-world"):
        expect(wipe.get_by_test_id(badge)).to_be_visible()
    expect(wipe.get_by_test_id("badge-read-only")).to_have_count(0)
    peek = item("peek")  # readOnlyHint true: its destructiveHint shows no badge
    expect(peek.get_by_test_id("badge-read-only")).to_be_visible()
    expect(peek.get_by_test_id("badge-destructive")).to_have_count(0)
    expect(item("place_order").get_by_test_id("tool-item-summary")).to_have_text(
        "Echo an order back exactly as it arrived."
    )

    page.get_by_test_id("tool-filter").fill("PRETEND")  # matches wipe's description
    expect(page.get_by_test_id("tool-item")).to_have_count(1)
    expect(wipe).to_be_visible()
    page.get_by_test_id("tool-filter").fill("")
    expect(item("media")).to_be_visible()


# ---------------------------------------------------------------------------- form builder

ORDER = {
    "customer": {"name": "Ada", "vip": True, "address": {"street": "1 Main St", "city": "Paris"}},
    "items": [{"sku": "A-1", "quantity": 2}, {"sku": "B-2"}],
    "counts": [1, 3],
    "priority": "high",
    "gift": True,
    "rating": 7.5,
}


def test_form_builds_the_arguments_from_the_schema(page: Page, inspected: Inspector) -> None:
    open_inspector(page, inspected)
    select_tool(page, "place_order")
    missing = page.get_by_test_id("missing-fields")
    expect(missing).to_contain_text("customer.name")
    expect(missing).to_contain_text("rating")

    field(page, "customer.name").fill("Ada")
    field(page, "customer.vip").select_option("true")  # optional bool: unset/true/false
    field(page, "customer.address.street").fill("1 Main St")
    field(page, "customer.address.city").fill("Paris")  # zip_code stays unset
    add_item(page, "items")
    add_item(page, "items")
    field(page, "items.0.sku").fill("A-1")
    field(page, "items.0.quantity").fill("2")
    field(page, "items.1.sku").fill("B-2")  # quantity left empty: omitted, default applies
    for _ in range(3):
        add_item(page, "counts")
    for index, value in enumerate(["1", "2", "3"]):
        field(page, f"counts.{index}").fill(value)
    page.get_by_role("button", name="Remove counts[1]").click()
    expect(field(page, "counts.1")).to_have_value("3")  # renumbered after the removal
    field(page, "priority").select_option("high")
    page.get_by_label("gift", exact=True).check()  # required bool: a checkbox
    expect(field(page, "rating")).to_have_attribute("max", "10")
    rating_help = page.locator('[data-path="rating"] [data-testid="field-help"]')
    expect(rating_help).to_contain_text("A score from 0 to 10")
    expect(rating_help).to_contain_text("≥ 0, ≤ 10")
    expect(field(page, "items.0.quantity")).to_have_attribute("placeholder", "1")  # default
    expect(field(page, "customer.name")).to_have_attribute("aria-required", "true")
    expect(field(page, "discount")).not_to_have_attribute("aria-required", "true")
    page.get_by_label("rating", exact=True).fill("7.5")
    expect(missing).to_be_hidden()

    result = call_and_wait(page, "ok")
    structured = json.loads(result.get_by_test_id("structured-content").inner_text())
    assert structured == ORDER  # what the tool received, echoed back
    call = latest_call(inspected)
    assert call["arguments"] == ORDER
    request = next(m for m in check_traffic(call, LATEST) if m.get("method") == "tools/call")
    assert request["params"]["arguments"] == ORDER

    show_history_call(page, call["id"])
    shown = traffic_json(page, "tools/call")
    assert shown["params"]["name"] == "place_order"
    assert shown["params"]["arguments"] == ORDER
    expect(
        page.locator('[data-testid="traffic-message"][data-direction="receive"]')
    ).to_contain_text("← received")


def test_out_of_range_number_is_left_to_the_server(page: Page, inspected: Inspector) -> None:
    open_inspector(page, inspected)
    select_tool(page, "place_order")
    page.get_by_test_id("json-toggle").click()
    page.get_by_test_id("json-editor").fill(json.dumps({**ORDER, "rating": 11}))
    page.get_by_test_id("json-toggle").click()  # back to the form, filled from the JSON
    expect(field(page, "rating")).to_have_value("11")
    result = call_and_wait(page, "error")  # the server validates, the page shows isError
    expect(result.get_by_test_id("result-error")).to_be_visible()
    expect(result).to_contain_text("rating")


def test_json_mode_both_ways(page: Page, inspected: Inspector) -> None:
    open_inspector(page, inspected)
    select_tool(page, "place_order")
    field(page, "customer.name").fill("Bo")
    add_item(page, "counts")
    field(page, "counts.0").fill("5")
    field(page, "priority").select_option("low")

    page.get_by_test_id("json-toggle").click()
    editor = page.get_by_test_id("json-editor")
    expect(editor).to_be_visible()
    serialized = json.loads(editor.input_value())
    assert serialized == {
        "customer": {"name": "Bo", "address": {}},
        "items": [],
        "counts": [5],
        "priority": "low",
        "gift": False,
    }

    editor.fill("{not json")
    page.get_by_test_id("json-toggle").click()
    expect(page.get_by_test_id("json-error")).to_contain_text("Invalid JSON")
    expect(editor).to_be_visible()  # stayed in JSON mode

    edited = {**ORDER, "counts": [4, 8], "discount": 15, "express": False}
    editor.fill(json.dumps(edited))
    page.get_by_test_id("json-toggle").click()
    expect(editor).to_be_hidden()
    expect(field(page, "customer.address.city")).to_have_value("Paris")
    expect(field(page, "counts.1")).to_have_value("8")
    expect(field(page, "discount")).to_have_value("15")
    expect(field(page, "express")).to_have_value("false")
    expect(field(page, "priority").locator("option:checked")).to_have_text("high")

    page.get_by_test_id("json-toggle").click()  # calling in JSON mode sends the text as is
    editor.fill(json.dumps({**edited, "rating": 1}))
    result = call_and_wait(page, "ok")
    assert json.loads(result.get_by_test_id("structured-content").inner_text()) == {
        **edited,
        "rating": 1,
    }


def test_refs_unions_and_nullable_fields(page: Page, inspected: Inspector) -> None:
    open_inspector(page, inspected)
    select_tool(page, "describe")  # the verbatim pydantic schema: $defs, anyOf with null

    def kind(path: str) -> Locator:
        return page.locator(f'[data-testid="field"][data-path="{path}"]')

    expect(kind("value")).to_have_attribute("data-kind", "json")  # int | str: raw JSON
    expect(kind("limit")).to_have_attribute("data-kind", "integer")  # Optional[int]
    expect(kind("tags")).to_have_attribute("data-kind", "array")  # Optional[list[str]]
    expect(kind("limits")).to_have_attribute("data-kind", "object")  # Optional[$ref model]

    field(page, "root.label").fill("top")
    add_item(page, "root.children")  # the recursive $ref resolved one level down
    field(page, "root.children.0.label").fill("kid")
    field(page, "value").fill("42")
    kind("limits").get_by_test_id("object-toggle").check()
    field(page, "limits.low").fill("1")
    field(page, "limits.high").fill("2")
    add_item(page, "tags")
    field(page, "tags.0").fill("x")

    result = call_and_wait(page, "ok")
    assert json.loads(result.get_by_test_id("structured-content").inner_text()) == {
        "root": {"label": "top", "children": [{"label": "kid", "children": []}]},
        "value": 42,
        "limits": {"low": 1, "high": 2},
        "tags": ["x"],
    }


# ---------------------------------------------------------------------------- results


def test_every_content_type_is_rendered(page: Page, inspected: Inspector) -> None:
    open_inspector(page, inspected)
    select_tool(page, "media")
    expect(page.get_by_test_id("form-fields")).to_contain_text("no arguments")
    result = call_and_wait(page, "ok")

    expect(result.get_by_test_id("content-text")).to_have_text("Plain text\non two lines")
    expect(result.get_by_test_id("content-annotations").first).to_contain_text("audience: user")
    for image in (
        result.get_by_test_id("content-image"),
        result.get_by_test_id("content-resource-image"),
    ):
        expect(image).to_have_attribute("src", re.compile(r"^data:image/png;base64,"))
        image.evaluate("img => img.decode()")
        assert image.evaluate("img => img.complete && img.naturalWidth") == 4
    audio = result.get_by_test_id("content-audio")
    expect(audio).to_have_attribute("src", re.compile(r"^data:audio/wav;base64,"))
    assert audio.evaluate("a => a.controls") is True
    page.wait_for_function(
        "() => document.querySelector('[data-testid=content-audio]').readyState >= 1"
    )
    link = result.get_by_test_id("content-resource-link")
    expect(link).to_contain_text("Q3 report")
    expect(link.get_by_test_id("resource-uri")).to_have_text("file:///reports/q3.csv")
    expect(link).to_contain_text("1234 bytes")
    resources = result.get_by_test_id("content-resource")
    expect(resources).to_have_count(3)
    expect(result.get_by_test_id("content-resource-text")).to_have_text("An embedded note")
    download = result.get_by_test_id("content-resource-download")
    expect(download).to_have_attribute("download", "data.bin")
    expect(download).to_have_attribute("href", "data:application/octet-stream;base64,AAEC")
    structured = json.loads(result.get_by_test_id("structured-content").inner_text())
    assert structured == {"rows": 3, "ok": True}


def test_hostile_strings_are_shown_as_text(page: Page, inspected: Inspector) -> None:
    open_inspector(page, inspected)
    item = page.locator('[data-testid="tool-item"][data-tool="hostile"]')
    expect(item.get_by_test_id("tool-item-title")).to_have_text("<b>bold</b> title")
    select_tool(page, "hostile")
    description = page.get_by_test_id("tool-description")
    expect(description).to_contain_text("<img src=x onerror=")
    expect(description).to_contain_text("<script>window.__xss='script'</script>")
    expect(page.get_by_test_id("tool-title")).to_have_text("<b>bold</b> title")
    result = call_and_wait(page, "ok")
    expect(result.get_by_test_id("content-text")).to_contain_text("<b>not bold</b>")
    assert page.locator("main img, main b, main script, nav img, nav b").count() == 0
    assert page.evaluate("() => window.__xss === undefined")


# ---------------------------------------------------------------------------- long calls


def test_progress_logs_and_cancel(page: Page, inspected: Inspector, tmp_path: Path) -> None:
    flag = tmp_path / "go"
    open_inspector(page, inspected)
    select_tool(page, "wait_for_flag")
    field(page, "flag").fill(str(flag))
    page.get_by_test_id("call-button").click()

    bar = page.get_by_test_id("progress-bar")
    expect(bar).to_be_visible()
    expect(bar).to_have_attribute("data-mode", "indeterminate")
    message = page.get_by_test_id("progress-message")
    expect(message).to_have_text(re.compile(r"^step \d+$"))
    expect(message).not_to_have_text(message.inner_text())  # it keeps moving
    expect(page.get_by_test_id("call-logs")).to_contain_text("still waiting at step 1")
    page.get_by_test_id("cancel-button").click()
    result = page.get_by_test_id("active-call").get_by_test_id("result")
    expect(result).to_have_attribute("data-status", "cancelled")
    expect(result.get_by_test_id("result-failure")).to_contain_text("Cancelled")
    expect(bar).to_have_count(0)
    expect(page.get_by_test_id("cancel-button")).to_have_count(0)

    cancelled = latest_call(inspected)
    assert cancelled["status"] == "cancelled"
    messages = check_traffic(cancelled, LATEST)
    request = next(m for m in messages if m.get("method") == "tools/call")
    notice = next(m for m in messages if m.get("method") == "notifications/cancelled")
    assert notice["params"]["requestId"] == request["id"]
    assert any(m.get("method") == "notifications/progress" for m in messages)

    show_history_call(page, cancelled["id"])
    assert traffic_json(page, "notifications/cancelled")["params"]["requestId"] == request["id"]

    # Determinate progress, then the call ends when the flag appears.
    page.get_by_test_id("tool-tab").click()
    page.get_by_label("total", exact=True).fill("1000")
    page.get_by_test_id("call-button").click()
    expect(bar).to_have_attribute("data-mode", "determinate")
    expect(bar).to_have_attribute("max", "1000")
    expect(bar).to_have_attribute("value", re.compile(r"^[1-9]\d*$"))
    expect(page.get_by_test_id("progress-count")).to_contain_text("/ 1000")
    flag.touch()
    expect(result).to_have_attribute("data-status", "ok")
    expect(result.get_by_test_id("content-text")).to_contain_text(re.compile(r"done after \d+"))


# ---------------------------------------------------------------------------- history


@pytest.mark.skipif(not spec_available(), reason="the MCP spec schemas are not available")
@pytest.mark.parametrize("revision", [LATEST, LEGACY])
def test_history_lists_calls_and_their_valid_traffic(
    page: Page, request: pytest.FixtureRequest, revision: str
) -> None:
    dev: Inspector = request.getfixturevalue(
        "inspected" if revision == LATEST else "inspected_legacy"
    )
    open_inspector(page, dev)
    expect(page.get_by_test_id("protocol-version")).to_have_text(revision)
    page.get_by_test_id("history-tab").click()
    page.get_by_test_id("history-clear").click()
    expect(page.get_by_test_id("history-item")).to_have_count(0)

    page.get_by_test_id("tool-tab").click()
    select_tool(page, "wipe")
    field(page, "target").fill("attic")
    call_and_wait(page, "ok")
    select_tool(page, "place_order")  # an untouched form: the server says what is missing
    result = call_and_wait(page, "error")
    expect(result).to_contain_text("customer")
    select_tool(page, "peek")
    call_and_wait(page, "ok")

    page.get_by_test_id("history-tab").click()
    items = page.get_by_test_id("history-item")
    expect(items).to_have_count(3)
    statuses = [items.nth(i).get_attribute("data-status") for i in range(3)]
    assert statuses == ["ok", "error", "ok"]  # newest first
    items.nth(1).click()
    empty_form = {"customer": {"address": {}}, "items": [], "counts": [], "gift": False}
    expect(page.get_by_test_id("history-arguments")).to_contain_text('"gift": false')
    assert json.loads(page.get_by_test_id("history-arguments").inner_text()) == empty_form
    detail = page.get_by_test_id("history-detail")
    expect(detail.get_by_test_id("result-error")).to_be_visible()
    shown = traffic_json(page, "tools/call")
    assert shown["params"]["name"] == "place_order"
    answer = traffic_json(page, "← received", direction="receive")
    assert answer["id"] == shown["id"] and answer["result"]["isError"] is True

    calls = dev.state()["calls"]
    assert [call["tool"] for call in calls] == ["wipe", "place_order", "peek"]
    for summary in calls:
        call = fetch_call(dev, summary["id"])
        methods = [m.get("method") for m in check_traffic(call, revision)]
        assert "tools/call" in methods


# ---------------------------------------------------------------------------- changes


def test_a_tool_added_at_run_time_appears(page: Page, inspected: Inspector) -> None:
    open_inspector(page, inspected)
    page.evaluate("() => { window.__same_page = true; }")
    select_tool(page, "add_tool")
    field(page, "name").fill("grown")
    call_and_wait(page, "ok")
    expect(page.locator('[data-testid="tool-item"][data-tool="grown"]')).to_be_visible()
    assert page.evaluate("() => window.__same_page === true")  # no page reload
    selected = page.locator('[data-testid="tool-item"][aria-current="true"]')
    expect(selected).to_have_attribute("data-tool", "add_tool")  # the selection is kept
    expect(field(page, "name")).to_have_value("grown")  # and what was typed
    select_tool(page, "grown")
    result = call_and_wait(page, "ok")
    expect(result.get_by_test_id("content-text")).to_have_text("hello from grown")


def test_reload_on_edit_syntax_error_and_fix(page: Page, browser: Any, tmp_path: Path) -> None:
    with dev_on_copy(CALCULATOR, tmp_path) as dev:
        served = tmp_path / CALCULATOR.name
        good = served.read_text()
        status = page.get_by_test_id("server-status")
        open_inspector(page, dev)
        select_tool(page, "divide")
        page.get_by_label("a", exact=True).fill("3")
        generation = int(status.get_attribute("data-generation") or "0")

        page.get_by_test_id("reload").click()
        expect(status).to_have_attribute("data-generation", str(generation + 1))
        expect(status).to_have_attribute("data-status", "ready")

        triple = '\n\n@mcp.tool()\ndef triple(x: float) -> float:\n    """Times three."""\n    return 3 * x\n'
        edited = good.replace(
            '\n\nif __name__ == "__main__":', triple + '\n\nif __name__ == "__main__":'
        )
        served.write_text(edited)
        expect(page.locator('[data-testid="tool-item"][data-tool="triple"]')).to_be_visible()
        expect(status).to_have_attribute("data-status", "ready")
        expect(page.get_by_test_id("tool-name")).to_have_text("divide")  # still selected

        served.write_text(edited + "\ndef broken(:\n")
        expect(status).to_have_attribute("data-status", "failed")
        banner = page.get_by_test_id("failure-banner")
        expect(banner).to_be_visible()
        expect(banner).to_contain_text(re.compile(r"syntax ?error", re.IGNORECASE))
        expect(banner).to_contain_text("def broken(:")
        expect(page.get_by_test_id("tool-item")).to_have_count(0)
        expect(page.get_by_test_id("tool-placeholder")).to_contain_text("does not list divide")

        served.write_text(edited)
        expect(status).to_have_attribute("data-status", "ready")
        expect(banner).to_be_hidden()
        expect(page.get_by_test_id("tool-name")).to_have_text("divide")  # back, with its form
        expect(page.get_by_label("a", exact=True)).to_have_value("3")
        select_tool(page, "triple")
        page.get_by_label("x", exact=True).fill("2")
        result = call_and_wait(page, "ok")
        expect(result.get_by_test_id("content-text")).to_have_text("6.0")


# ---------------------------------------------------------------------------- screenshots


def test_screenshots_are_real_renders(page: Page, calculator: Inspector, tmp_path: Path) -> None:
    def shot(name: str) -> Any:
        path = tmp_path / f"{name}.png"
        page.screenshot(path=str(path))
        png = decode_png(path.read_bytes())
        assert (png.width, png.height) == (VIEWPORT["width"], VIEWPORT["height"]), name
        assert distinct_colours(png) > 100, f"{name} looks blank"
        return png

    open_inspector(page, calculator)
    select_tool(page, "divide")
    page.get_by_label("a", exact=True).fill("1")
    page.get_by_label("b", exact=True).fill("4")
    form = shot("tool-form")
    call_and_wait(page, "ok")
    success = shot("success")
    page.get_by_label("b", exact=True).fill("0")
    call_and_wait(page, "error")
    error = shot("error")
    page.get_by_test_id("history-tab").click()
    page.get_by_test_id("history-item").first.click()
    expect(page.get_by_test_id("traffic-message").first).to_be_visible()
    shot("history")

    error_pixels = pixels_near(error, ERROR_BACKGROUND)
    assert error_pixels > 20_000, error_pixels
    assert pixels_near(success, ERROR_BACKGROUND) < 500
    assert pixels_near(form, ERROR_BACKGROUND) < 500


def test_stderr_lines_show_in_the_logs_view(page: Page, inspected: Inspector) -> None:
    open_inspector(page, inspected)
    select_tool(page, "shout")
    field(page, "text").fill("<i>heard</i> on stderr")
    call_and_wait(page, "ok")
    page.get_by_test_id("logs-tab").click()
    line = page.get_by_test_id("logs").locator('[data-level="stderr"]', has_text="heard")
    expect(line).to_have_count(1)
    expect(line).to_contain_text("<i>heard</i> on stderr")
    assert page.get_by_test_id("logs").locator("i").count() == 0
    page.reload()  # the history and the logs come back from the first state event
    page.get_by_test_id("logs-tab").click()
    expect(line).to_have_count(1)
