"""The inspector explains its states, in a real headless Chromium: a page without its token or
with one of an earlier run says to open the printed address, a stopped inspector says so, and
a server that answers 401 explains itself and offers ``--header`` or an OAuth sign-in, which
runs from the page through a real authorization server on loopback."""

from __future__ import annotations

import contextlib
import shlex
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from browser import VIEWPORT, WAIT_MS, dev_on_copy, fresh_page, require_playwright
from inspector_process import Inspector, start_inspector
from mcp_spec import WireChecker
from oauth_helpers import MODERN, protected
from oauth_server import OAuthServer

require_playwright()  # skips the module without it, fails on CI
from playwright.sync_api import Page, expect  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
CALCULATOR = REPO / "examples" / "calculator.py"
REFUSED = "status of 403"  # Chromium's console line for the probe the page makes

pytestmark = pytest.mark.timeout(90)
expect.set_options(timeout=WAIT_MS)


@contextlib.contextmanager
def page_expecting(browser: Any, *expected: str) -> Iterator[Page]:
    with fresh_page(browser, VIEWPORT, WAIT_MS, expected) as page:
        yield page


def token_page_says(page: Page, reason: str, base: str) -> None:
    expect(page.get_by_test_id("token-page")).to_be_visible()
    expect(page.get_by_test_id("token-reason")).to_contain_text(reason)
    expect(page.get_by_test_id("token-example")).to_have_text(f"{base}/?token=…")
    expect(page.get_by_test_id("server-status")).to_be_hidden()  # the tool page is gone


def test_a_page_without_its_token_says_to_open_the_printed_address(
    browser: Any, tmp_path: Path
) -> None:
    with dev_on_copy(CALCULATOR, tmp_path) as dev, page_expecting(browser, REFUSED) as page:
        page.goto(dev.base + "/")
        token_page_says(page, "This address has no token.", dev.base)
        page.goto(dev.base + "/?token=from-an-earlier-run")
        token_page_says(page, "belongs to an earlier run of toolwire dev", dev.base)
        page.goto(dev.url)  # the printed address
        expect(page.get_by_test_id("server-status")).to_have_attribute("data-status", "ready")
        expect(page.get_by_test_id("token-page")).to_be_hidden()
        page.goto(dev.base + "/")  # the tab keeps the token it was given
        expect(page.get_by_test_id("connection")).to_have_attribute("data-state", "live")


def test_a_stopped_then_restarted_inspector_is_explained(browser: Any, tmp_path: Path) -> None:
    with page_expecting(browser, REFUSED) as page:
        with dev_on_copy(CALCULATOR, tmp_path) as first:
            page.goto(first.url)
            expect(page.get_by_test_id("connection")).to_have_attribute("data-state", "live")
        connection = page.get_by_test_id("connection")
        expect(connection).to_have_attribute("data-state", "stopped")
        expect(connection).to_have_text("inspector stopped")
        expect(connection).to_have_attribute(
            "title", "toolwire dev is not answering: start it again and open the address it prints"
        )
        port = str(urlsplit(first.base).port)
        with start_inspector(CALCULATOR.name, "--port", port, cwd=tmp_path) as second:
            assert second.base == first.base and second.token != first.token
            token_page_says(page, "belongs to an earlier run of toolwire dev", second.base)


def test_a_401_explains_itself_and_the_page_signs_in_with_oauth(
    browser: Any, auth_server: OAuthServer
) -> None:
    with (
        protected(auth_server) as mcp,
        start_inspector(mcp.url, "--protocol-version", MODERN, status="failed") as dev,
        page_expecting(browser) as page,
    ):
        page.goto(dev.url)
        expect(page.get_by_test_id("server-status")).to_have_attribute("data-status", "failed")
        banner = page.get_by_test_id("failure-banner")
        expect(banner).to_contain_text("The server needs authorization.")
        expect(banner).to_contain_text(f"{mcp.url} answered HTTP 401 Unauthorized")
        command = f"toolwire dev {mcp.url} --header 'Authorization: Bearer TOKEN'"
        expect(page.get_by_test_id("auth-command")).to_have_text(command)
        assert shlex.split(command)[-1] == "Authorization: Bearer TOKEN"

        page.get_by_test_id("sign-in").click()  # to the authorization server and back
        expect(page.get_by_test_id("server-status")).to_have_attribute("data-status", "ready")
        assert urlsplit(page.url).path == "/"
        expect(page.get_by_test_id("failure-banner")).to_be_hidden()

        page.locator('[data-testid="tool-item"][data-tool="whoami"]').click()
        page.get_by_test_id("call-button").click()
        result = page.get_by_test_id("active-call").get_by_test_id("result")
        expect(result).to_have_attribute("data-status", "ok")
        expect(result).to_contain_text("files:read")

        # Toolwire's client flow ran: registered with the inspector's own loopback callback,
        # PKCE S256, the server named as the resource; the call's traffic is valid 2026-07-28.
        callback = f"{dev.base}/oauth/callback"
        (registration,) = auth_server.requests_to("/register")
        assert registration.json["redirect_uris"] == [callback]
        (authorization,) = auth_server.requests_to("/authorize")
        assert authorization.params["code_challenge_method"] == "S256"
        assert authorization.params["redirect_uri"] == callback
        assert authorization.params["resource"] == mcp.url
        check_call_traffic(dev)
        stale = dev.api("GET", "/oauth/callback?code=x&state=" + authorization.params["state"])
        assert stale.status_code == 404  # a redirect is taken once, while a sign-in waits


def check_call_traffic(dev: Inspector) -> None:
    call_id = dev.state()["calls"][-1]["id"]
    call = dev.api("GET", f"/api/calls/{call_id}").json()
    checker = WireChecker(MODERN, strict_client=True)
    for entry in call["traffic"]:
        sent = entry["direction"] == "send"
        (checker.client_sent if sent else checker.server_sent)(entry["message"])
    assert checker.checked == len(call["traffic"]) >= 2


def test_a_refused_header_token_is_named_on_the_page(
    browser: Any, auth_server: OAuthServer
) -> None:
    with (
        protected(auth_server) as mcp,
        start_inspector(
            mcp.url, "--header", "Authorization: Bearer expired", status="failed"
        ) as dev,
        page_expecting(browser) as page,
    ):
        page.goto(dev.url)
        banner = page.get_by_test_id("failure-banner")
        expect(banner).to_contain_text("refused the token it was given (HTTP 401 Unauthorized)")
        expect(page.get_by_test_id("sign-in")).to_be_visible()
        assert dev.state()["server"]["auth"]["status"] == 401


def test_a_failed_sign_in_is_explained_and_can_be_tried_again(
    browser: Any, auth_server: OAuthServer
) -> None:
    auth_server.wrong_iss = "https://impostor.example"  # the client must refuse its answer
    with (
        protected(auth_server) as mcp,
        start_inspector(mcp.url, status="failed") as dev,
        page_expecting(browser) as page,
    ):
        page.goto(dev.url)
        page.get_by_test_id("sign-in").click()
        expect(page.get_by_test_id("server-status")).to_have_attribute("data-status", "failed")
        banner = page.get_by_test_id("failure-banner")
        expect(banner).to_contain_text(f"{mcp.url} needs a sign-in, and the last one did not")
        expect(banner).to_contain_text("names the issuer 'https://impostor.example'")
        auth_server.wrong_iss = None
        page.get_by_test_id("sign-in").click()
        expect(page.get_by_test_id("server-status")).to_have_attribute("data-status", "ready")
        expect(page.locator('[data-testid="tool-item"][data-tool="whoami"]')).to_be_visible()
