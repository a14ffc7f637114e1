"""URL-mode elicitation (SEP-1036): ``ctx.elicit_url(message, url)`` sends the user to a page
(a sign-in, a payment) through a client that declared ``elicitation.url``; other clients get
what ``ctx.elicit`` gives them. Over real HTTP on 127.0.0.1, on 2025-11-25 (a request with
an ``elicitationId``) and 2026-07-28 (an input request), every message checked against the
revision's schema."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from toolwire import Context, Server, ServerError

from http_server import serve_http
from wire import checked_client

pytestmark = pytest.mark.timeout(30)

LEGACY, MODERN = "2025-11-25", "2026-07-28"
PAGE = "https://pay.example.com/checkout?order=7"
BOTH_MODES = {"elicitation": {"form": {}, "url": {}}}


def shop() -> Server:
    mcp = Server("Shop")

    @mcp.tool()
    async def pay(ctx: Context) -> str:
        """Send the user to the payment page."""
        answer = await ctx.elicit_url("Pay for order 7", PAGE, key="payment")
        return f"payment {answer.action}"

    @mcp.tool()
    async def bad_link(ctx: Context) -> str:
        """Refused before anything is sent."""
        await ctx.elicit_url("Run this", "javascript:alert(1)")
        return "never"

    return mcp


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    with serve_http(shop()) as endpoint:
        yield endpoint


@pytest.mark.parametrize("revision", [LEGACY, MODERN])
async def test_a_client_with_url_elicitation_is_sent_to_the_page(url: str, revision: str) -> None:
    asked: list[dict[str, Any]] = []

    def answer(params: dict[str, Any]) -> dict[str, Any]:
        asked.append(params)
        return {"action": "decline"}

    async with checked_client(
        url, revision, capabilities=BOTH_MODES, elicitation_handler=answer
    ) as client:
        assert (await client.call_tool("pay", {})).text == "payment decline"
        broken = await client.call_tool("bad_link", {})
        assert broken.is_error
    (params,) = asked
    assert (params["mode"], params["url"], params["message"]) == ("url", PAGE, "Pay for order 7")
    assert ("elicitationId" in params) == (revision == LEGACY)


async def test_a_legacy_client_with_forms_only_gets_an_error_result(url: str) -> None:
    async with checked_client(
        url, LEGACY, elicitation_handler=lambda params: {"action": "accept"}
    ) as client:
        result = await client.call_tool("pay", {})
    assert result.is_error and "no URL elicitation support" in result.text


async def test_a_modern_client_with_forms_only_is_told_what_to_declare(url: str) -> None:
    async with checked_client(
        url, MODERN, elicitation_handler=lambda params: {"action": "accept"}
    ) as client:
        with pytest.raises(ServerError) as refused:
            await client.call_tool("pay", {})
    assert refused.value.code == -32021
    assert refused.value.data == {"requiredCapabilities": {"elicitation": {"url": {}}}}
