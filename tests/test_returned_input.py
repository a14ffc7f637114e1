"""A tool that asks by returning an ``InputRequiredResult`` (FastMCP's guard pattern, SEP-2663):
its questions are asked in either era (a request to a legacy client, an ``input_required``
round on 2026-07-28), the tool runs again and reads every answer of the call in
``ctx.input_responses``; what cannot be asked is an error result naming why. Every message
is checked against the schema of the negotiated revision."""

from __future__ import annotations

from typing import Any

import anyio
import pytest

from toolwire import Context, Server, types
from toolwire.client import client as client_module

from wire import checked_client

pytestmark = pytest.mark.timeout(60)

LEGACY, MODERN = "2025-11-25", "2026-07-28"
CHOICE = {"type": "object", "properties": {"dish": {"type": "string"}}, "required": ["dish"]}


def ask(key: str, message: str) -> types.InputRequiredResult:
    question = types.ElicitRequest(
        params=types.ElicitRequestFormParams(message=message, requested_schema=CHOICE)
    )
    return types.InputRequiredResult(result_type="input_required", input_requests={key: question})


def menu() -> Server:
    mcp = Server("Menu")

    @mcp.tool()
    async def two_courses(ctx: Context) -> str | types.InputRequiredResult:
        answers = ctx.input_responses or {}
        if "starter" not in answers:
            return ask("starter", "Starter?")
        if "main" not in answers:
            return ask("main", "Main course?")
        return f"{answers['starter'].content['dish']}, then {answers['main'].content['dish']}"

    @mcp.tool()
    async def no_context() -> types.InputRequiredResult:
        return ask("x", "Anything?")

    @mcp.tool()
    async def never_done(ctx: Context) -> types.InputRequiredResult:
        return ask(f"q{len(ctx.input_responses or {})}", "Again?")

    @mcp.tool()
    async def odd_question(ctx: Context) -> types.InputRequiredResult:
        result = ask("x", "Anything?")
        result.input_requests["x"] = {"method": "tools/list", "params": {}}  # type: ignore[index]
        return result

    return mcp


def dishes(params: dict[str, Any]) -> dict[str, Any]:
    dish = {"Starter?": "soup", "Main course?": "curry"}.get(params["message"], "bread")
    return {"action": "accept", "content": {"dish": dish}}


@pytest.mark.parametrize("revision", [LEGACY, MODERN])
async def test_each_round_is_answered_and_every_answer_kept(revision: str) -> None:
    asked: list[str] = []

    def answer(params: dict[str, Any]) -> dict[str, Any]:
        asked.append(params["message"])
        return dishes(params)

    with anyio.fail_after(30):
        async with checked_client(menu(), revision, elicitation_handler=answer) as client:
            result = await client.call_tool("two_courses", {})
    assert (result.text, result.is_error) == ("soup, then curry", False)
    assert asked == ["Starter?", "Main course?"]


@pytest.mark.parametrize("revision", [LEGACY, MODERN])
async def test_what_cannot_be_asked_is_an_error_result_naming_why(revision: str) -> None:
    with anyio.fail_after(30):
        async with checked_client(menu(), revision, elicitation_handler=dishes) as client:
            no_context = await client.call_tool("no_context", {})
            odd = await client.call_tool("odd_question", {})
            if revision == LEGACY:  # the rounds of one request
                never_done = await client.call_tool("never_done", {})
                assert never_done.is_error and "asked for input 8 times" in never_done.text
    assert no_context.is_error and "takes no Context" in no_context.text
    assert odd.is_error and "cannot ask the client 'tools/list'" in odd.text


async def test_a_modern_call_is_bounded_over_its_rounds(monkeypatch: pytest.MonkeyPatch) -> None:
    """On 2026-07-28 each round is a request of its own: the answers the sealed state carries
    bound them. (toolwire's client stops after 10 rounds; it goes on here.)"""
    monkeypatch.setattr(client_module, "MAX_INPUT_ROUNDS", 40)
    with anyio.fail_after(30):
        async with checked_client(menu(), MODERN, elicitation_handler=dishes) as client:
            refused = await client.call_tool("never_done", {})
    assert refused.is_error and "asked 16 questions in one call" in refused.text


async def test_a_legacy_client_that_cannot_answer_gets_an_error_result() -> None:
    with anyio.fail_after(30):
        async with checked_client(menu(), LEGACY) as client:  # no elicitation capability
            result = await client.call_tool("two_courses", {})
    assert result.is_error
    assert result.text == "The client cannot ask the user for input (no elicitation support)"
