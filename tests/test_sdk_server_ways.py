"""What the official SDK's own everything-server writes, on toolwire: a tool's
``request_state`` carried to its next round (``ctx.request_state``), a prompt that asks first
by returning an ``InputRequiredResult``, ``ctx.client_capabilities`` read as attributes,
``ctx.notify_*_changed()`` announced before the call's answer, a URL question with a fresh
id in every run, and the SDK's constructors (``UserMessage(role=...)``,
``Prompt.from_function``, ``InputRequiredResult`` without its ``result_type``). Every
message is checked against the schema of the negotiated revision."""

from __future__ import annotations

import textwrap
import uuid
from pathlib import Path
from typing import Any

import pytest

from toolwire import Context, Server, types
from toolwire.prompts import Prompt, UserMessage

from wire import checked_client, raw_server

pytestmark = pytest.mark.timeout(60)

LEGACY, MODERN = "2025-11-25", "2026-07-28"
URL_TOO = {"elicitation": {"form": {}, "url": {}}}
NAME = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}


def name_question(message: str) -> types.ElicitRequest:
    return types.ElicitRequest(
        params=types.ElicitRequestFormParams(message=message, requested_schema=NAME)
    )


def answer(params: dict[str, Any]) -> dict[str, Any]:
    return {"action": "accept", "content": {"name": "Ada"}}


def asking_server() -> Server:
    mcp = Server("Asking")

    @mcp.tool()
    async def two_rounds(ctx: Context) -> str | types.InputRequiredResult:
        """Asks twice, keeping where it is in its own request_state."""
        if ctx.request_state is None:
            return types.InputRequiredResult(
                input_requests={"first": name_question("First?")}, request_state="round-1"
            )
        if ctx.request_state == "round-1":
            return types.InputRequiredResult(
                input_requests={"second": name_question("Second?")}, request_state="round-2"
            )
        return f"{ctx.request_state}: {sorted(ctx.input_responses or {})}"

    @mcp.prompt()
    async def greeting(ctx: Context) -> list[UserMessage] | types.InputRequiredResult:
        """Asks for a name before it renders."""
        responses = ctx.input_responses or {}
        if "who" not in responses:
            return types.InputRequiredResult(input_requests={"who": name_question("Who?")})
        name = responses["who"].content["name"]
        return [UserMessage(role="user", content=f"Say hello to {name}")]

    @mcp.tool()
    async def pay(ctx: Context) -> str:
        """A URL question whose URL names a new id in every run, as the SDK's examples do."""
        done = await ctx.elicit_url(
            "Confirm the payment", f"https://pay.example.com/{uuid.uuid4()}", str(uuid.uuid4())
        )
        return f"payment {done.action}"

    @mcp.tool()
    async def capabilities(ctx: Context) -> str:
        caps = ctx.client_capabilities
        return f"elicitation={caps.elicitation is not None} sampling={caps.sampling is not None}"

    return mcp


@pytest.mark.parametrize("revision", [LEGACY, MODERN])
async def test_request_state_reaches_the_next_round(revision: str) -> None:
    async with checked_client(asking_server(), revision, elicitation_handler=answer) as client:
        result = await client.call_tool("two_rounds")
    assert result.text == "round-2: ['first', 'second']"


@pytest.mark.parametrize("revision", [LEGACY, MODERN])
async def test_a_prompt_may_ask_before_it_renders(revision: str) -> None:
    async with checked_client(asking_server(), revision, elicitation_handler=answer) as client:
        prompt = await client.get_prompt("greeting")
    assert prompt.messages == [
        {"role": "user", "content": {"type": "text", "text": "Say hello to Ada"}}
    ]


async def test_a_url_question_with_a_fresh_id_in_every_run_finds_its_answer() -> None:
    """On 2026-07-28 the tool runs again from the top once answered: its new URL and id are
    still the question the client answered, not a new one to ask without end."""
    asked: list[dict[str, Any]] = []

    def accept(params: dict[str, Any]) -> dict[str, Any]:
        asked.append(params)
        return {"action": "accept"}

    async with checked_client(
        asking_server(), MODERN, capabilities=URL_TOO, elicitation_handler=accept
    ) as client:
        result = await client.call_tool("pay")
    assert result.text == "payment accept"
    assert len(asked) == 1 and asked[0]["mode"] == "url"


async def test_client_capabilities_read_as_attributes() -> None:
    async with checked_client(asking_server(), LEGACY, elicitation_handler=answer) as client:
        result = await client.call_tool("capabilities")
    assert result.text == "elicitation=True sampling=False"


SERVER = """
from toolwire import Context, Server

mcp = Server("Announcing")


@mcp.tool()
async def plug_in(ctx: Context) -> str:
    await ctx.session.send_tool_list_changed()
    await ctx.notify_prompts_changed()
    return "plugged in"


@mcp.prompt()
def hello() -> str:
    return "hello"


mcp.run()
"""


async def test_an_announced_change_goes_out_before_the_answer(tmp_path: Path) -> None:
    script = tmp_path / "announcing.py"
    script.write_text(textwrap.dedent(SERVER), encoding="utf-8")
    async with raw_server(script) as peer:
        await peer.initialize(LEGACY)
        peer.notifications.clear()
        response = await peer.request("tools/call", {"name": "plug_in", "arguments": {}})
        assert response["result"]["content"] == [{"type": "text", "text": "plugged in"}]
        seen = [n["method"] for n in peer.notifications]
    assert seen == ["notifications/tools/list_changed", "notifications/prompts/list_changed"]


async def test_the_sdks_constructors() -> None:
    assert types.InputRequiredResult(input_requests={}).to_wire() == {
        "inputRequests": {},
        "resultType": "input_required",
    }
    with pytest.raises(ValueError, match="role is 'user'"):
        UserMessage(role="assistant", content="x")

    mcp = Server("Prompts")

    def dynamic() -> str:
        return "made beforehand"

    mcp.add_prompt(Prompt.from_function(dynamic, name="dynamic", description="built first"))
    async with checked_client(mcp, LEGACY) as client:
        (listed,) = await client.list_prompts()
        got = await client.get_prompt("dynamic")
    # a prompt without arguments lists an empty list, as the SDK and FastMCP list it
    assert listed == {"name": "dynamic", "description": "built first", "arguments": []}
    assert got.text == "made beforehand"
    mcp.remove_prompt("dynamic")
    assert mcp.prompt_registry.get("dynamic") is None
