"""Tool search: a catalogue of 3,000 generated tools served as ``search_tools`` and
``call_tool``, over stdio and HTTP in both eras, every message checked against the schema."""

from __future__ import annotations

import time
from typing import Any

import pytest
from pydantic import BaseModel

from toolwire import Context, Server
from toolwire.composition.tool_search import SearchIndex, tokens
from toolwire.errors import RegistrationError

from http_server import example_over
from wire import MODERN, SERVERS, checked_client

pytestmark = pytest.mark.timeout(90)


class Name(BaseModel):
    name: str


SCRIPT = SERVERS / "tool_catalogue.py"


@pytest.mark.parametrize("revision", ["2025-11-25", MODERN])
@pytest.mark.parametrize("transport", ["stdio", "http"])
async def test_a_large_catalogue_behind_search(transport: str, revision: str) -> None:
    progress: list[tuple[Any, ...]] = []
    with example_over(SCRIPT, transport) as target:
        async with checked_client(target, revision) as client:
            assert [t["name"] for t in await client.list_tools()] == ["search_tools", "call_tool"]
            started = time.perf_counter()
            found = await client.call_tool(
                "search_tools", {"query": "send an invoice by email from crm7"}
            )
            first = time.perf_counter() - started
            names = [tool["name"] for tool in found.structured["tools"]]
            assert len(names) == 5 and names[0] in ("crm7_send_invoice", "crm7_send_email")
            assert {"crm7_send_invoice", "crm7_send_email"} <= set(names)
            definition = found.structured["tools"][0]
            assert definition["inputSchema"]["required"] == ["id"]
            started = time.perf_counter()
            found = await client.call_tool("search_tools", {"query": "refund crm3", "limit": 2})
            later = time.perf_counter() - started
            refunds = [t["name"] for t in found.structured["tools"]]
            assert len(refunds) == 2 and all(name.startswith("crm3_") for name in refunds)
            assert all("refund" in name for name in refunds)
            assert first < 5 and later < 1, (first, later)  # index built once, then reused
            exact = await client.call_tool("search_tools", {"query": "crm12_archive_lead"})
            assert exact.structured["tools"][0]["name"] == "crm12_archive_lead"
            # a mounted server's tools are searched and called the same way
            charge = await client.call_tool("search_tools", {"query": "charge a credit card"})
            assert charge.structured["tools"][0]["name"] == "billing_charge_card"
            called = await client.call_tool(
                "call_tool",
                {"name": "billing_charge_card", "arguments": {"amount": 5}},
                progress=lambda *values: progress.append(values),
            )
            assert called.text == "charged 5" and progress == [(1, 1, "charged")]
            result = await client.call_tool(
                "call_tool", {"name": "crm7_send_invoice", "arguments": {"id": "42"}}
            )
            assert result.structured == {"system": "crm7", "action": "send invoice", "id": "42"}
            invalid = await client.call_tool(
                "call_tool", {"name": "crm7_send_invoice", "arguments": {}}
            )
            assert invalid.is_error and "id" in invalid.text
            unknown = await client.call_tool("call_tool", {"name": "nope", "arguments": {}})
            assert unknown.is_error and "search_tools" in unknown.text
            # a tool known by name is callable directly too
            direct = await client.call_tool("crm1_get_user", {"id": "7"})
            assert direct.structured["action"] == "get user"


async def test_search_respects_visibility_and_always_visible() -> None:
    mcp = Server("s", visibility=lambda tool, request: "secret" not in tool.name)
    for name in ("open_door", "open_secret_door", "close_door", "help"):
        mcp.add_tool(lambda: "ok", name=name, description=f"{name.replace('_', ' ')}.")
    mcp.enable_tool_search(always_visible=["help"])
    with pytest.raises(RegistrationError):
        mcp.enable_tool_search()
    async with checked_client(mcp, MODERN) as client:
        names = [t["name"] for t in await client.list_tools()]
        assert names == ["help", "search_tools", "call_tool"]
        found = await client.call_tool("search_tools", {"query": "open door"})
        assert [t["name"] for t in found.structured["tools"]][:1] == ["open_door"]
        assert "open_secret_door" not in [t["name"] for t in found.structured["tools"]]
        hidden = await client.call_tool("call_tool", {"name": "open_secret_door"})
        assert hidden.is_error
        mcp.add_tool(lambda: "ok", name="paint_wall", description="Paint a wall.")
        found = await client.call_tool("search_tools", {"query": "paint"})
        assert [t["name"] for t in found.structured["tools"]] == ["paint_wall"]


def test_tokens_and_ranking() -> None:
    assert tokens("getUserInvoices") == ["get", "user", "invoice"]
    assert tokens("calendar_event-list.v2") == ["calendar", "event", "list", "v2"]
    mcp = Server("r")
    mcp.add_tool(lambda: 1, name="weather", description="Forecast of the weather.")
    mcp.add_tool(lambda: 1, name="stocks", description="Stock prices; not the weather.")
    index = SearchIndex(mcp.tools)
    assert [t.name for t in index.search("weather forecast", lambda t: True, 5)] == [
        "weather",
        "stocks",
    ]
    assert index.search("nothing matches", lambda t: True, 5) == []


@pytest.mark.parametrize("revision", ["2025-11-25", MODERN])
async def test_call_tool_carries_elicitation(revision: str) -> None:
    mcp = Server("s")

    @mcp.tool()
    async def greet(ctx: Context) -> str:
        """Greet the user by name."""
        answer = await ctx.elicit("Your name?", Name)
        return f"Hello {answer.data.name}"

    mcp.enable_tool_search()

    def person(params: dict[str, Any]) -> dict[str, Any]:
        return {"action": "accept", "content": {"name": "Ada"}}

    async with checked_client(mcp, revision, elicitation_handler=person) as client:
        found = await client.call_tool("search_tools", {"query": "greet the user"})
        assert found.structured["tools"][0]["name"] == "greet"
        assert (await client.call_tool("call_tool", {"name": "greet"})).text == "Hello Ada"
