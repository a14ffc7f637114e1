"""The inspector page's Resources and Prompts tabs end to end: ``toolwire dev`` as a real
subprocess on tests/servers/inspected_primitives.py, the page in a real headless Chromium.

One browser and one ``toolwire dev`` serve the module (the legacy-revision traffic test and
the test of a server without resources or prompts start their own); each test has a fresh
browser context and fails if the page throws or logs a console error.
"""

from __future__ import annotations

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
SERVER = REPO / "tests" / "servers" / "inspected_primitives.py"
CALCULATOR = REPO / "examples" / "calculator.py"
LEGACY = "2025-11-25"

expect.set_options(timeout=WAIT_MS)


# ---------------------------------------------------------------------------- fixtures


@pytest.fixture(scope="module")
def dev(browser: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Inspector]:
    with dev_on_copy(SERVER, tmp_path_factory.mktemp("primitives")) as dev:
        yield dev


# ---------------------------------------------------------------------------- helpers


def open_tab(page: Page, dev: Inspector, tab: str) -> None:
    page.goto(dev.url)
    expect(page.get_by_test_id("server-status")).to_have_attribute("data-status", "ready")
    page.get_by_test_id(tab).click()


def resource(page: Page, uri: str) -> Locator:
    return page.locator(f'[data-testid="resource-item"][data-uri="{uri}"]')


def template(page: Page, uri_template: str) -> Locator:
    return page.locator(f'[data-testid="template-item"][data-template="{uri_template}"]')


def read(page: Page, uri: str) -> Locator:
    """Select a resource (which reads it) and wait for its contents."""
    resource(page, uri).click()
    contents = page.get_by_test_id("resource-contents")
    expect(contents.get_by_test_id("resource-content")).to_have_attribute("data-uri", uri)
    return contents


def expect_suggestions(page: Page, control: Locator, values: list[str]) -> None:
    """The datalist tied to ``control`` holds ``values``, suggested for what it holds now."""
    datalist = page.locator(f"datalist#{control.get_attribute('list')}")
    expect(datalist).to_have_attribute("data-value", control.input_value())
    options = datalist.locator("option")
    expect(options).to_have_count(len(values))
    assert [options.nth(i).get_attribute("value") for i in range(len(values))] == values


def argument(page: Page, name: str) -> Locator:
    return page.locator(f'[data-testid="prompt-argument"][data-argument="{name}"]')


def select_prompt(page: Page, name: str) -> None:
    page.locator(f'[data-testid="prompt-item"][data-prompt="{name}"]').click()
    expect(page.get_by_test_id("prompt-detail").get_by_test_id("primitive-name")).to_have_text(name)


def shown_traffic(page: Page, detail: str) -> list[dict[str, Any]]:
    """The JSON-RPC messages ``detail`` (``resource-detail`` or ``prompt-detail``) shows for
    its last exchange, with their direction."""
    traffic = page.get_by_test_id(detail).get_by_test_id("exchange-traffic")
    items = traffic.get_by_test_id("traffic-message")
    expect(items.first).to_be_visible()
    return [
        {
            "direction": items.nth(i).get_attribute("data-direction"),
            "message": json.loads(items.nth(i).locator("pre").inner_text()),
        }
        for i in range(items.count())
    ]


def check_traffic(traffic: list[dict[str, Any]], revision: str) -> list[dict[str, Any]]:
    checker = WireChecker(revision, strict_client=True)
    for entry in traffic:
        if entry["direction"] == "send":
            checker.client_sent(entry["message"])
        else:
            assert entry["direction"] == "receive"
            checker.server_sent(entry["message"])
    assert checker.checked == len(traffic) >= 2
    return [entry["message"] for entry in traffic]


# ---------------------------------------------------------------------------- static files


def test_the_new_script_is_loaded_and_builds_no_html() -> None:
    page = (STATIC / "index.html").read_text(encoding="utf-8")
    assert page.index('src="/static/inspector.js"') < page.index('src="/static/primitives.js"')
    script = (STATIC / "primitives.js").read_text(encoding="utf-8")
    assert ".innerHTML" not in script and "insertAdjacentHTML" not in script
    assert "http://" not in script and "https://" not in script


# ---------------------------------------------------------------------------- resources


def test_resources_and_templates_are_listed(page: Page, dev: Inspector) -> None:
    open_tab(page, dev, "resources-tab")
    expect(page.get_by_test_id("resources-tab")).to_contain_text("7")  # 5 resources, 2 templates
    expect(page.get_by_test_id("resource-item")).to_have_count(5)
    config = resource(page, "config://app")
    expect(config).to_contain_text("App configuration")
    expect(config).to_contain_text("application/json")
    expect(config).to_contain_text("The application's settings, as JSON.")
    expect(resource(page, "data://sample.bin")).to_contain_text("512 bytes")
    hostile = resource(page, "notes://hostile")
    expect(hostile).to_contain_text("<b>bold</b> note")
    expect(hostile).to_contain_text("<img src=x onerror=")
    expect(page.get_by_test_id("template-item")).to_have_count(2)
    expect(template(page, "users://{user_id}/profile")).to_contain_text("User profile")
    expect(template(page, "files:///{+path}")).to_contain_text("A file of the project.")

    read(page, "notes://hostile")
    text = page.get_by_test_id("content-resource-text")
    expect(text).to_have_text("<script>window.__xss='contents'</script>")
    assert page.locator("main b, main script, main img").count() == 0
    assert page.evaluate("() => window.__xss === undefined")


def test_reading_text_json_image_and_blob(page: Page, dev: Inspector) -> None:
    open_tab(page, dev, "resources-tab")
    contents = read(page, "notes://welcome")
    expect(contents.get_by_test_id("content-resource-text")).to_have_text(
        "Welcome to the inspector.\nResources are read here."
    )

    contents = read(page, "config://app")
    block = contents.get_by_test_id("resource-content")
    expect(block).to_have_attribute("data-format", "json")
    shown = contents.get_by_test_id("content-resource-text").inner_text()
    assert json.loads(shown) == {"theme": "dark", "retries": 3, "features": ["a", "b"]}
    assert '\n  "retries": 3' in shown  # pretty-printed, not the compact wire form

    contents = read(page, "images://dot.png")
    image = contents.get_by_test_id("content-resource-image")
    expect(image).to_have_attribute("src", re.compile(r"^data:image/png;base64,iVBOR"))
    image.evaluate("img => img.decode()")
    assert image.evaluate("img => img.complete && img.naturalWidth") == 4

    contents = read(page, "data://sample.bin")
    download = contents.get_by_test_id("content-resource-download")
    expect(download).to_have_attribute("download", "sample.bin")
    href = download.get_attribute("href") or ""
    assert href.startswith("data:application/octet-stream;base64,AAECAwQF")
    expect(download).to_contain_text("512 bytes")
    expect(page.get_by_test_id("exchange-traffic")).to_contain_text("resources/read")


def test_template_completes_builds_the_uri_and_reads_it(page: Page, dev: Inspector) -> None:
    open_tab(page, dev, "resources-tab")
    template(page, "users://{user_id}/profile").click()
    user = page.locator('[data-testid="template-field"][data-variable="user_id"]')
    user.fill("1")
    expect_suggestions(page, user, ["1", "12"])
    user.fill("12")
    expect_suggestions(page, user, ["12"])
    expect(page.get_by_test_id("template-uri")).to_have_text("users://12/profile")
    page.get_by_test_id("resource-read").click()
    contents = page.get_by_test_id("resource-contents")
    expect(contents.get_by_test_id("content-resource-text")).to_have_text("Profile of Alan Turing")

    template(page, "files:///{+path}").click()  # reserved expansion keeps the slashes
    path = page.locator('[data-testid="template-field"][data-variable="path"]')
    path.fill("docs/")
    expect_suggestions(page, path, ["docs/guide.md", "docs/api.md"])
    path.fill("docs/guide.md")
    expect(page.get_by_test_id("template-uri")).to_have_text("files:///docs/guide.md")
    page.get_by_test_id("resource-read").click()
    expect(contents.get_by_test_id("resource-content")).to_have_attribute(
        "data-uri", "files:///docs/guide.md"
    )
    expect(contents).to_contain_text("contents of docs/guide.md")


def test_a_failed_read_shows_the_error(page: Page, dev: Inspector) -> None:
    open_tab(page, dev, "resources-tab")
    template(page, "users://{user_id}/profile").click()
    page.locator('[data-testid="template-field"][data-variable="user_id"]').fill("99")
    page.get_by_test_id("resource-read").click()
    error = page.get_by_test_id("resource-error")
    expect(error).to_contain_text("No user 99")
    expect(error).to_contain_text("code -32602")
    expect(page.get_by_test_id("resource-contents")).to_have_count(0)
    answer = page.get_by_test_id("exchange-traffic").locator('[data-direction="receive"]')
    expect(answer).to_contain_text("error response")


def test_the_list_follows_resources_added_and_removed(page: Page, dev: Inspector) -> None:
    open_tab(page, dev, "resources-tab")
    resource(page, "notes://welcome").click()
    page.evaluate("() => { window.__same_page = true; }")
    assert dev.finished(dev.call("add_note", {"name": "fresh"}))["status"] == "ok"
    expect(resource(page, "notes://fresh")).to_be_visible()
    assert page.evaluate("() => window.__same_page === true")  # no reload
    expect(resource(page, "notes://welcome")).to_have_attribute("aria-current", "true")
    contents = read(page, "notes://fresh")
    expect(contents.get_by_test_id("content-resource-text")).to_have_text("note fresh")

    assert dev.finished(dev.call("drop_note", {"name": "fresh"}))["status"] == "ok"
    expect(resource(page, "notes://fresh")).to_have_count(0)
    expect(page.get_by_test_id("resource-detail")).to_contain_text(
        "The server does not list notes://fresh now."
    )
    expect(page.get_by_test_id("resource-item")).to_have_count(5)


# ---------------------------------------------------------------------------- prompts


def test_prompts_are_listed_with_their_arguments(page: Page, dev: Inspector) -> None:
    open_tab(page, dev, "prompts-tab")
    expect(page.get_by_test_id("prompt-item")).to_have_count(3)
    review = page.locator('[data-testid="prompt-item"][data-prompt="review"]')
    expect(review).to_contain_text("Code review")
    expect(review.get_by_test_id("prompt-item-arguments")).to_have_text("(code*, language, focus)")
    picture = page.locator('[data-testid="prompt-item"][data-prompt="show_picture"]')
    expect(picture.get_by_test_id("prompt-item-arguments")).to_have_text("no arguments")

    select_prompt(page, "review")
    expect(page.get_by_test_id("prompt-argument")).to_have_count(3)
    expect(page.get_by_label("code", exact=True)).to_have_attribute("aria-required", "true")
    expect(argument(page, "language")).to_have_attribute("aria-required", "false")
    expect(page.get_by_test_id("prompt-detail").get_by_test_id("field-help").first).to_have_text(
        "The code to review"
    )
    expect(page.get_by_test_id("prompt-missing")).to_have_text("Required: code")


def test_get_a_prompt_renders_its_messages(page: Page, dev: Inspector) -> None:
    open_tab(page, dev, "prompts-tab")
    select_prompt(page, "review")
    page.get_by_label("code", exact=True).fill("print(1)")
    language = argument(page, "language")
    language.fill("r")
    expect_suggestions(page, language, ["rust"])
    language.fill("rust")
    expect(page.get_by_test_id("prompt-missing")).to_be_hidden()
    page.get_by_test_id("prompt-get").click()
    messages = page.get_by_test_id("prompt-messages").get_by_test_id("prompt-message")
    expect(messages).to_have_count(2)
    expect(messages.nth(0)).to_have_attribute("data-role", "user")
    expect(messages.nth(0).get_by_test_id("message-role")).to_have_text("user")
    expect(messages.nth(0).get_by_test_id("content-text")).to_have_text(
        "Review this rust code:\nprint(1)"
    )
    expect(messages.nth(1)).to_have_attribute("data-role", "assistant")
    sent = [m for m in shown_traffic(page, "prompt-detail") if m["direction"] == "send"]
    assert sent[0]["message"]["params"]["arguments"] == {"code": "print(1)", "language": "rust"}

    select_prompt(page, "show_picture")
    expect(page.get_by_test_id("prompt-detail")).to_contain_text("takes no arguments")
    page.get_by_test_id("prompt-get").click()
    messages = page.get_by_test_id("prompt-messages").get_by_test_id("prompt-message")
    expect(messages).to_have_count(3)
    image = messages.nth(0).get_by_test_id("content-image")
    image.evaluate("img => img.decode()")
    assert image.evaluate("img => img.complete && img.naturalWidth") == 4
    embedded = messages.nth(1).get_by_test_id("content-resource")
    expect(embedded).to_contain_text("notes://welcome")
    expect(embedded.get_by_test_id("content-resource-text")).to_have_text("hi")
    expect(messages.nth(2)).to_have_attribute("data-role", "assistant")


def test_a_missing_required_argument_shows_the_server_error(page: Page, dev: Inspector) -> None:
    open_tab(page, dev, "prompts-tab")
    select_prompt(page, "walk")
    argument(page, "city").fill("oslo")
    expect(page.get_by_test_id("prompt-missing")).to_have_text("Required: district")
    page.get_by_test_id("prompt-get").click()
    error = page.get_by_test_id("prompt-error")
    expect(error).to_contain_text("missing required argument 'district'")
    expect(page.get_by_test_id("prompt-messages")).to_have_count(0)


def test_prompt_completion_sends_the_other_arguments(page: Page, dev: Inspector) -> None:
    open_tab(page, dev, "prompts-tab")
    select_prompt(page, "walk")
    city, district = argument(page, "city"), argument(page, "district")
    city.focus()  # an empty field asks too: every city
    expect_suggestions(page, city, ["oslo", "paris"])
    city.fill("paris")
    district.fill("m")
    expect_suggestions(page, district, ["marais", "montmartre"])  # known only from the city
    city.fill("oslo")
    district.fill("g")
    expect_suggestions(page, district, ["gamle oslo", "grunerlokka"])
    district.fill("grunerlokka")
    page.get_by_test_id("prompt-get").click()
    message = page.get_by_test_id("prompt-message")
    expect(message.get_by_test_id("content-text")).to_have_text("Plan a walk in grunerlokka, oslo.")


# ---------------------------------------------------------------------------- traffic


@pytest.mark.skipif(not spec_available(), reason="the MCP spec schemas are not available")
@pytest.mark.parametrize("revision", [LATEST, LEGACY])
def test_traffic_is_valid_on_both_eras(
    page: Page, dev: Inspector, tmp_path: Path, revision: str
) -> None:
    def run(inspector: Inspector) -> None:
        open_tab(page, inspector, "resources-tab")
        expect(page.get_by_test_id("protocol-version")).to_have_text(revision)
        read(page, "config://app")
        messages = check_traffic(shown_traffic(page, "resource-detail"), revision)
        assert [m.get("method") for m in messages] == ["resources/read", None]
        assert messages[1]["result"]["contents"][0]["uri"] == "config://app"

        page.get_by_test_id("prompts-tab").click()
        select_prompt(page, "walk")
        page.get_by_test_id("prompt-get").click()  # an error answer is valid JSON-RPC too
        expect(page.get_by_test_id("prompt-error")).to_be_visible()
        messages = check_traffic(shown_traffic(page, "prompt-detail"), revision)
        assert messages[0]["method"] == "prompts/get" and "error" in messages[1]

        body = {
            "ref": {"type": "ref/prompt", "name": "walk"},
            "argument": {"name": "district", "value": "m"},
            "context": {"arguments": {"city": "paris"}},
        }
        answer = inspector.api("POST", "/api/complete", body).json()
        assert answer["result"]["completion"]["values"] == ["marais", "montmartre"]
        check_traffic(answer["traffic"], revision)

    if revision == LATEST:
        run(dev)
    else:
        with dev_on_copy(SERVER, tmp_path, "--protocol-version", LEGACY) as legacy:
            run(legacy)


# ---------------------------------------------------------------------------- capabilities


def test_tabs_are_hidden_for_a_server_without_resources_or_prompts(
    page: Page, tmp_path: Path
) -> None:
    with dev_on_copy(CALCULATOR, tmp_path) as calculator:
        page.goto(calculator.url)
        expect(page.get_by_test_id("server-status")).to_have_attribute("data-status", "ready")
        expect(page.get_by_test_id("tool-item").first).to_be_visible()
        expect(page.get_by_test_id("resources-tab")).to_be_hidden()
        expect(page.get_by_test_id("prompts-tab")).to_be_hidden()


# ---------------------------------------------------------------------------- screenshots


def test_screenshots_of_the_new_views(page: Page, dev: Inspector, tmp_path: Path) -> None:
    def shot(name: str) -> Any:
        path = tmp_path / f"{name}.png"
        page.screenshot(path=str(path))
        png = decode_png(path.read_bytes())
        assert (png.width, png.height) == (VIEWPORT["width"], VIEWPORT["height"]), name
        assert distinct_colours(png) > 100, f"{name} looks blank"
        return png

    open_tab(page, dev, "resources-tab")
    read(page, "config://app")
    resources = shot("resources")
    template(page, "users://{user_id}/profile").click()
    page.locator('[data-testid="template-field"][data-variable="user_id"]').fill("99")
    page.get_by_test_id("resource-read").click()
    expect(page.get_by_test_id("resource-error")).to_be_visible()
    error = shot("resource-error")

    page.get_by_test_id("prompts-tab").click()
    select_prompt(page, "review")
    page.get_by_label("code", exact=True).fill("print(1)")
    page.get_by_test_id("prompt-get").click()
    expect(page.get_by_test_id("prompt-message")).to_have_count(2)
    prompts = shot("prompts")

    assert pixels_near(error, ERROR_BACKGROUND) > 5_000
    assert pixels_near(resources, ERROR_BACKGROUND) < 500
    assert pixels_near(prompts, ERROR_BACKGROUND) < 500
