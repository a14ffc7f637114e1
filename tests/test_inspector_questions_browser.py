"""The inspector page's question panel end to end: a tool asks the user (elicitation) or the
client's model (sampling), the question shows above the tabs, and the person answers it.

``toolwire dev`` runs as a real subprocess on tests/servers/inspected_questions.py, once per
revision (2026-07-28, where questions ride on input requests, and 2025-11-25, where they are
server-to-client requests); the page runs in a real headless Chromium. Each test has a fresh
browser context and fails if the page throws or logs a console error. The traffic of each
answered call, as the inspector recorded it, is validated against the revision's schema.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from browser import (
    STATIC,
    VIEWPORT,
    WAIT_MS,
    PageErrors,
    decode_png,
    distinct_colours,
    pixels_near,
    require_playwright,
)
from inspector_process import Inspector, start_inspector
from mcp_spec import WireChecker
from wire import MODERN

require_playwright()  # skips the module without it, fails on CI
from playwright.sync_api import Locator, Page, Route, expect  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
SERVER = REPO / "tests" / "servers" / "inspected_questions.py"
LEGACY = "2025-11-25"
HOSTILE = "<b>coffee</b><img src=x onerror=\"window.__xss='question'\">"
QUESTION_BACKGROUND = (0xFF, 0xF8, 0xE1)  # --warn-soft in inspector.css

expect.set_options(timeout=WAIT_MS)


# ---------------------------------------------------------------------------- fixtures


@pytest.fixture(scope="module", params=[MODERN, LEGACY])
def dev(
    request: pytest.FixtureRequest, browser: Any, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Inspector]:
    """One ``toolwire dev`` per revision, on a copy of the server (it reloads on changes)."""
    folder = tmp_path_factory.mktemp("questions")
    shutil.copy(SERVER, folder / SERVER.name)
    with start_inspector(SERVER.name, "--protocol-version", request.param, cwd=folder) as dev:
        state = dev.ready()
        assert state["server"]["protocolVersion"] == request.param
        yield dev


# ---------------------------------------------------------------------------- helpers


def call_from_page(page: Page, dev: Inspector, tool: str) -> int:
    """Open the page, call ``tool`` with its form as it is, and return the call's id."""
    page.goto(dev.url)
    expect(page.get_by_test_id("server-status")).to_have_attribute("data-status", "ready")
    page.locator(f'[data-testid="tool-item"][data-tool="{tool}"]').click()
    page.get_by_test_id("call-button").click()
    active = page.get_by_test_id("active-call")
    expect(active).to_be_visible()
    return int(active.get_attribute("data-call-id") or "0")


def the_question(page: Page, kind: str, call_id: int, tool: str) -> Locator:
    question = page.get_by_test_id("question")
    expect(question).to_have_count(1)
    expect(question).to_have_attribute("data-kind", kind)
    expect(question.get_by_test_id("question-call")).to_have_text(
        f"asked by call #{call_id} {tool}"
    )
    return question


def field(question: Locator, name: str) -> Locator:
    return question.locator(f'[data-input-for="{name}"]')


def result_text(page: Page) -> Locator:
    return page.get_by_test_id("active-call").get_by_test_id("content-text")


def contains(value: Any, wanted: Any) -> bool:
    """Whether ``wanted`` is ``value`` or nested anywhere inside it."""
    if value == wanted:
        return True
    if isinstance(value, dict):
        return any(contains(item, wanted) for item in value.values())
    if isinstance(value, list):
        return any(contains(item, wanted) for item in value)
    return False


def checked_call(dev: Inspector, call_id: int, answer: Any) -> dict[str, Any]:
    """The finished call as the backend recorded it, every message validated against the
    negotiated revision's schema; the page's ``answer`` must have gone to the server."""
    call = dev.finished(call_id)
    recorded = dev.api("GET", f"/api/calls/{call_id}")
    assert recorded.status_code == 200, recorded.text
    traffic = recorded.json()["traffic"]
    checker = WireChecker(dev.ready()["server"]["protocolVersion"], strict_client=True)
    for entry in traffic:
        if entry["direction"] == "send":
            checker.client_sent(entry["message"])
        else:
            checker.server_sent(entry["message"])
    assert checker.checked == len(traffic) >= 4  # the call, the question, its answer, the end
    sent = [entry["message"] for entry in traffic if entry["direction"] == "send"]
    assert contains(sent, answer), json.dumps(traffic, indent=1)
    return call  # type: ignore[no-any-return]


# ---------------------------------------------------------------------------- static files


def test_the_script_is_loaded_last_and_builds_no_html() -> None:
    page = (STATIC / "index.html").read_text(encoding="utf-8")
    assert page.index('src="/static/primitives.js"') < page.index('src="/static/questions.js"')
    script = (STATIC / "questions.js").read_text(encoding="utf-8")
    assert ".innerHTML" not in script and "insertAdjacentHTML" not in script
    assert "http://" not in script and "https://" not in script


# ---------------------------------------------------------------------------- elicitation


def test_an_elicitation_form_is_filled_in_and_accepted(page: Page, dev: Inspector) -> None:
    call_id = call_from_page(page, dev, "order")
    question = the_question(page, "elicitation", call_id, "order")
    expect(question.get_by_role("heading")).to_have_text("The server asks you")
    expect(question.get_by_test_id("question-message")).to_have_text(
        "Please complete your order of tea."
    )
    form = question.get_by_test_id("question-form")
    expect(form.get_by_test_id("field")).to_have_count(4)
    expect(form.get_by_test_id("field-title")).to_have_text(
        ["Your name", "How many", "Gift wrap", "Size"]
    )
    name_field = form.locator('[data-testid="field"][data-path="name"]')
    expect(name_field.locator(".required")).to_have_count(1)
    expect(name_field.get_by_test_id("field-help")).to_contain_text("Who the order is for")
    expect(field(question, "count")).to_have_value("2")  # defaults are filled in
    expect(field(question, "count")).to_have_attribute("min", "1")
    expect(field(question, "count")).to_have_attribute("max", "10")
    size = field(question, "size")
    expect(size.locator("option:checked")).to_have_text("Medium (m)")
    expect(size.locator("option")).to_have_text(
        ["unset (default m)", "Small (s)", "Medium (m)", "Large (l)"]
    )
    expect(field(question, "gift").locator("option:checked")).to_have_text("false")

    question.get_by_test_id("question-accept").click()  # the required name is still empty
    expect(question.get_by_test_id("question-error")).to_have_text("Missing required: name")
    field(question, "name").fill("Ada")
    field(question, "count").fill("11")
    question.get_by_test_id("question-accept").click()
    expect(question.get_by_test_id("question-error")).to_have_text("count: at most 10")
    expect(page.get_by_test_id("question")).to_have_count(1)  # nothing was sent

    field(question, "count").fill("3")
    field(question, "gift").select_option(label="true")
    size.select_option(label="Large (l)")
    question.get_by_test_id("question-accept").click()
    expect(page.get_by_test_id("question")).to_have_count(0)
    expect(page.get_by_test_id("questions")).to_be_hidden()
    expect(result_text(page)).to_have_text("Order: 3 x l tea for Ada as a gift")
    answer = {"action": "accept", "content": {"name": "Ada", "count": 3, "gift": True, "size": "l"}}
    assert checked_call(dev, call_id, answer)["status"] == "ok"


def test_declining_and_cancelling_reach_the_tool(page: Page, dev: Inspector) -> None:
    call_id = call_from_page(page, dev, "order")
    the_question(page, "elicitation", call_id, "order").get_by_test_id("question-decline").click()
    expect(result_text(page)).to_have_text("No order (decline)")
    expect(page.get_by_test_id("question")).to_have_count(0)
    checked_call(dev, call_id, {"action": "decline"})

    call_id = call_from_page(page, dev, "nickname")
    question = the_question(page, "elicitation", call_id, "nickname")
    expect(question.get_by_test_id("question-message")).to_have_text("What should we call you?")
    question.get_by_test_id("question-cancel").click()
    expect(result_text(page)).to_have_text("No nickname (cancel)")
    checked_call(dev, call_id, {"action": "cancel"})


def test_a_url_is_opened_only_when_the_person_asks(page: Page, dev: Inspector) -> None:
    """URL mode: the address is shown as text; "Open the page" opens it in a new tab that
    cannot reach the inspector, and accepting is a separate click."""
    sign_in = "https://id.example.invalid/sign-in?state=42"
    opened: list[str] = []

    def signed_in_page(route: Route) -> None:
        opened.append(route.request.url)
        route.fulfill(status=200, content_type="text/html", body="<p>Signed in</p>")

    page.context.route("https://id.example.invalid/**", signed_in_page)
    call_id = call_from_page(page, dev, "sign_in")
    question = the_question(page, "elicitation", call_id, "sign_in")
    expect(question.get_by_test_id("question-url")).to_have_text(sign_in)
    expect(question.locator("a")).to_have_count(0)  # no link to follow by accident
    assert opened == []
    with page.expect_popup() as popup:
        question.get_by_test_id("question-open").click()
    tab = popup.value
    tab.wait_for_load_state()
    assert tab.url == sign_in and opened == [sign_in]
    assert tab.evaluate("window.opener") is None
    tab.close()
    expect(page.get_by_test_id("question")).to_have_count(1)  # opening is not answering
    question.get_by_test_id("question-accept").click()
    expect(result_text(page)).to_have_text("Sign-in accept")
    checked_call(dev, call_id, {"action": "accept"})


BAD_REQUEST = "console error: Failed to load resource: the server responded with a status of 400"


def test_a_refused_answer_shows_why_and_the_question_stays(browser: Any, dev: Inspector) -> None:
    """The backend's 400: the page's body is swapped in flight for one it must refuse.
    Chromium logs every failed fetch to the console, so this page expects exactly that one
    console error and nothing else."""
    context = browser.new_context(viewport=VIEWPORT)
    context.set_default_timeout(WAIT_MS)
    errors = PageErrors()
    try:
        page = context.new_page()
        errors.watch(page)
        refused_answer(page, dev)
    finally:
        context.close()
    assert [error.split(" (")[0] for error in errors.errors] == [BAD_REQUEST], errors.errors


def refused_answer(page: Page, dev: Inspector) -> None:
    call_id = call_from_page(page, dev, "nickname")
    question = the_question(page, "elicitation", call_id, "nickname")
    field(question, "nickname").fill("Zed")

    def garble(route: Route) -> None:
        route.continue_(post_data=json.dumps({"action": "maybe"}))

    page.route("**/api/questions/*/answer", garble)
    question.get_by_test_id("question-accept").click()
    expect(question.get_by_test_id("question-error")).to_have_text(
        "action must be one of accept, decline, cancel"
    )
    expect(question.get_by_test_id("question-accept")).to_be_enabled()
    assert [q["id"] for q in dev.state()["questions"]] == [
        int(question.get_attribute("data-question-id") or "0")
    ]
    page.unroute("**/api/questions/*/answer")
    question.get_by_test_id("question-accept").click()
    expect(result_text(page)).to_have_text("Hi, Zed")
    expect(page.get_by_test_id("question")).to_have_count(0)
    checked_call(dev, call_id, {"action": "accept", "content": {"nickname": "Zed"}})


def test_a_cancelled_call_takes_its_question_away(page: Page, dev: Inspector) -> None:
    call_id = call_from_page(page, dev, "nickname")
    the_question(page, "elicitation", call_id, "nickname")
    page.get_by_test_id("cancel-button").click()
    expect(page.get_by_test_id("question")).to_have_count(0)
    expect(page.get_by_test_id("call-status")).to_have_text("cancelled")
    assert dev.finished(call_id)["status"] == "cancelled"


def test_open_questions_are_listed_oldest_first_and_survive_a_reload(
    page: Page, dev: Inspector
) -> None:
    page.goto(dev.url)
    expect(page.get_by_test_id("server-status")).to_have_attribute("data-status", "ready")
    first = dev.call("nickname", {})
    questions = page.get_by_test_id("question")
    expect(questions).to_have_count(1)  # asked in this order, so listed in this order
    second = dev.call("order", {"item": HOSTILE})
    expect(questions).to_have_count(2)
    messages = ["What should we call you?", f"Please complete your order of {HOSTILE}."]
    expect(questions.get_by_test_id("question-message")).to_have_text(messages)
    # On stdio before 2026-07-28 a question names no request: with two calls running the
    # backend cannot tell which one asked, and the page says so.
    state = dev.state()
    ended = {call["id"] for call in state["calls"] if call["status"] != "running"}
    asked = [q for q in state["questions"] if q["call"] not in ended]
    assert [q["params"]["message"] for q in asked] == messages
    assert asked[0]["call"] == first and asked[1]["call"] in (second, None)
    tools = {first: "nickname", second: "order"}
    expected = [
        f"asked by call #{q['call']} {tools[q['call']]}"
        if q["call"]
        else "asked outside any known tool call"
        for q in asked
    ]
    expect(questions.get_by_test_id("question-call")).to_have_text(expected)
    ids = [int(questions.nth(i).get_attribute("data-question-id") or "0") for i in range(2)]
    assert ids == [q["id"] for q in asked] and ids[0] < ids[1]

    page.reload()  # the open questions come back from the state
    expect(questions.get_by_test_id("question-call")).to_have_text(expected)
    expect(questions.nth(1).get_by_test_id("question-message")).to_have_text(messages[1])
    assert page.locator("#questions img, #questions b").count() == 0  # shown as text only
    assert page.evaluate("() => window.__xss === undefined")
    questions.nth(1).get_by_test_id("question-decline").click()
    expect(questions).to_have_count(1)
    expect(questions.get_by_test_id("question-call")).to_have_text(expected[0])
    questions.get_by_test_id("question-cancel").click()
    expect(questions).to_have_count(0)
    assert dev.finished(second)["result"]["content"][0]["text"] == "No order (decline)"
    assert dev.finished(first)["result"]["content"][0]["text"] == "No nickname (cancel)"


# ---------------------------------------------------------------------------- sampling


def test_the_person_answers_for_the_model(page: Page, dev: Inspector) -> None:
    call_id = call_from_page(page, dev, "haiku")
    question = the_question(page, "sampling", call_id, "haiku")
    expect(question.get_by_role("heading")).to_have_text("The server asks its model")
    messages = question.get_by_test_id("sampling-message")
    expect(messages.get_by_test_id("message-role")).to_have_text(["user", "assistant"])
    expect(messages.get_by_test_id("content-text")).to_have_text(
        ["Write a haiku about tests", "Which season?"]
    )
    expect(question.get_by_test_id("question-system-prompt")).to_have_text("You are a terse poet.")
    expect(question.get_by_test_id("question-facts")).to_have_text("max tokens 60")
    expect(question.get_by_test_id("question-cancel")).to_have_count(0)

    question.get_by_test_id("question-accept").click()
    expect(question.get_by_test_id("question-error")).to_have_text("Type the reply first.")
    question.get_by_test_id("question-reply").fill("Green bar at last")
    question.get_by_test_id("question-accept").click()
    expect(result_text(page)).to_have_text("The model said: Green bar at last")
    expect(page.get_by_test_id("question")).to_have_count(0)
    reply = {"type": "text", "text": "Green bar at last"}
    assert checked_call(dev, call_id, reply)["status"] == "ok"


def test_declining_to_sample(page: Page, dev: Inspector) -> None:
    call_id = call_from_page(page, dev, "haiku")
    the_question(page, "sampling", call_id, "haiku").get_by_test_id("question-decline").click()
    expect(page.get_by_test_id("question")).to_have_count(0)
    outcome = dev.finished(call_id)
    if dev.ready()["server"]["protocolVersion"] == MODERN:  # an input response cannot be an error
        expect(page.get_by_test_id("call-status")).to_have_text("failed")
        assert "declined" in outcome["failure"]
    else:  # the tool gets the error, and its call fails with it
        expect(page.get_by_test_id("result-error")).to_be_visible()
        assert outcome["result"]["isError"] is True


# ---------------------------------------------------------------------------- screenshot


def test_screenshot_of_an_open_question(page: Page, dev: Inspector, tmp_path: Path) -> None:
    call_id = call_from_page(page, dev, "order")
    question = the_question(page, "elicitation", call_id, "order")
    field(question, "name").fill("Ada")
    path = tmp_path / "question.png"
    page.screenshot(path=str(path))
    png = decode_png(path.read_bytes())
    assert (png.width, png.height) == (VIEWPORT["width"], VIEWPORT["height"])
    assert distinct_colours(png) > 100, "the screenshot looks blank"
    assert pixels_near(png, QUESTION_BACKGROUND) > 5_000  # the panel stands out
    box = question.bounding_box()
    tabs = page.get_by_test_id("tool-tab").bounding_box()
    assert box is not None and tabs is not None and box["y"] < tabs["y"]  # above the tabs
    expect(question.get_by_test_id("question-accept")).to_be_in_viewport()
    question.get_by_test_id("question-cancel").click()
    expect(result_text(page)).to_have_text("No order (cancel)")
