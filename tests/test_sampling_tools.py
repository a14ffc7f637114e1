"""Sampling with tools (SEP-1577): ``ctx.sample(..., tools=[...], tool_choice=...)`` offers
the client's model tools; the model's ``tool_use`` calls come back in ``result.tool_calls``
and the tool asks again with their results. For clients that declared ``sampling.tools``
(2025-11-25 on); others are refused. Over real HTTP on 127.0.0.1, both eras, every message
checked against the revision's schema."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from toolwire import Context, Server, ServerError

from http_server import serve_http
from wire import checked_client

pytestmark = pytest.mark.timeout(30)

LEGACY, MODERN = "2025-11-25", "2026-07-28"
WITH_TOOLS = {"sampling": {"tools": {}}}


def get_weather(city: str) -> str:
    """The weather in a city."""
    return f"sunny in {city}"


def planner() -> Server:
    mcp = Server("Planner")

    @mcp.tool()
    async def plan_trip(city: str, ctx: Context) -> str:
        """Ask the client's model, which may look up the weather first."""
        messages: list[dict[str, Any]] = [
            {"role": "user", "content": {"type": "text", "text": f"Plan a day in {city}"}}
        ]
        first = await ctx.sample(
            messages, tools=[get_weather], tool_choice="auto", key="plan", max_tokens=200
        )
        if not first.tool_calls:
            return first.text
        (call,) = first.tool_calls
        outcome = get_weather(**call["input"])
        messages += [
            {"role": "assistant", "content": first.blocks},
            {
                "role": "user",
                "content": [
                    {
                        "type": "tool_result",
                        "toolUseId": call["id"],
                        "content": [{"type": "text", "text": outcome}],
                    }
                ],
            },
        ]
        final = await ctx.sample(messages, tools=[get_weather], key="final", max_tokens=200)
        return final.text

    return mcp


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    with serve_http(planner()) as endpoint:
        yield endpoint


def model(asked: list[dict[str, Any]]) -> Any:
    """A model that looks up the weather once, then answers with what it learned."""

    def answer(params: dict[str, Any]) -> dict[str, Any]:
        asked.append(params)
        results = [
            block
            for message in params["messages"]
            for block in (message["content"] if isinstance(message["content"], list) else [])
            if block.get("type") == "tool_result"
        ]
        if not results:
            use = {
                "type": "tool_use",
                "id": "call-1",
                "name": "get_weather",
                "input": {"city": "Oslo"},
            }
            return {"role": "assistant", "content": [use], "model": "m", "stopReason": "toolUse"}
        said = results[0]["content"][0]["text"]
        text = {"type": "text", "text": f"Walk by the fjord: it is {said}"}
        return {"role": "assistant", "content": text, "model": "m", "stopReason": "endTurn"}

    return answer


@pytest.mark.parametrize("revision", [LEGACY, MODERN])
async def test_the_model_calls_a_tool_and_answers_with_its_result(url: str, revision: str) -> None:
    asked: list[dict[str, Any]] = []
    async with checked_client(
        url, revision, capabilities=WITH_TOOLS, sampling_handler=model(asked)
    ) as client:
        result = await client.call_tool("plan_trip", {"city": "Oslo"})
    assert result.text == "Walk by the fjord: it is sunny in Oslo", result.text
    first, second = asked
    (offered,) = first["tools"]
    assert offered["name"] == "get_weather" and offered["description"] == "The weather in a city."
    assert offered["inputSchema"]["properties"]["city"]["type"] == "string"
    assert first["toolChoice"] == {"mode": "auto"} and "toolChoice" not in second


async def test_a_legacy_client_without_sampling_tools_gets_an_error_result(url: str) -> None:
    async with checked_client(url, LEGACY, sampling_handler=model([])) as client:
        result = await client.call_tool("plan_trip", {"city": "Oslo"})
    assert result.is_error and "no sampling.tools support" in result.text


async def test_a_modern_client_without_sampling_tools_is_told_what_to_declare(url: str) -> None:
    async with checked_client(url, MODERN, sampling_handler=model([])) as client:
        with pytest.raises(ServerError) as refused:
            await client.call_tool("plan_trip", {"city": "Oslo"})
    assert refused.value.code == -32021
    assert refused.value.data == {"requiredCapabilities": {"sampling": {"tools": {}}}}
