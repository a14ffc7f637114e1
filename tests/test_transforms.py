"""Tool transforms: a tool derived from a local, a mounted and a proxied tool (renamed,
redescribed, an argument renamed, one hidden with a fixed value, a default changed, the
call wrapped), over stdio and HTTP in both eras, messages checked against the schema."""

from __future__ import annotations

from typing import Any

import pytest

from toolwire import Server, ToolError
from toolwire.composition.transforms import Arg, derive_tool
from toolwire.errors import RegistrationError

from http_server import example_over
from wire import MODERN, SERVERS, checked_client

pytestmark = pytest.mark.timeout(60)

SCRIPT = SERVERS / "mount_outer.py"


@pytest.mark.parametrize("revision", ["2025-11-25", MODERN])
@pytest.mark.parametrize("transport", ["stdio", "http"])
async def test_transforms_of_local_mounted_and_proxied_tools(transport: str, revision: str) -> None:
    with example_over(SCRIPT, transport) as target:
        async with checked_client(target, revision) as client:
            tools = {tool["name"]: tool for tool in await client.list_tools()}
            assert "search" not in tools and "weather_forecast" not in tools
            # local: renamed, new description, an argument renamed, one hidden
            books = tools["find_books"]
            assert books["description"] == "Find books by title."
            assert books["inputSchema"]["properties"] == {
                "title": {"type": "string"},
                "limit": {"type": "integer", "default": 10},
            }
            assert books["inputSchema"]["required"] == ["title"]
            assert books["outputSchema"]["type"] == "object"  # kept
            found = await client.call_tool("find_books", {"title": "Dune", "limit": 3})
            assert found.structured == {"query": "Dune", "kind": "book", "limit": 3}
            wrong = await client.call_tool("find_books", {"query": "Dune"})
            assert wrong.is_error and "did you mean 'title'?" in wrong.text
            hidden = await client.call_tool("find_books", {"title": "x", "kind": "film"})
            assert hidden.is_error and "kind: unknown argument" in hidden.text
            # mounted: a hidden argument with a fixed value, another renamed with a new default
            paris = tools["paris_forecast"]
            assert paris["inputSchema"]["properties"] == {"n": {"type": "integer", "default": 2}}
            assert "required" not in paris["inputSchema"]
            assert (await client.call_tool("paris_forecast")).structured == {
                "city": "Paris",
                "days": 2,
                "sky": "clear",
            }
            # proxied: the call wrapped (it calls the upstream tool twice), a new title
            # and output schema
            twice = tools["add_twice"]
            assert twice["title"] == "Add, twice"
            assert twice["outputSchema"]["required"] == ["sums"]
            summed = await client.call_tool("add_twice", {"a": 2, "b": 5})
            assert summed.structured == {"sums": [7, 7]}
            invalid = await client.call_tool("add_twice", {"a": "x", "b": 5})
            assert invalid.is_error  # the upstream's own validation, through the wrap


def make_server() -> Server:
    mcp = Server("t")

    @mcp.tool()
    def convert(amount: float, currency: str, rounding: int = 2) -> dict[str, Any]:
        """Convert an amount."""
        return {"amount": round(amount * 2, rounding), "currency": currency}

    return mcp


async def test_derive_tool_beside_the_original_and_wrap_errors() -> None:
    mcp = make_server()
    original = mcp.get_tool("convert")
    assert original is not None

    async def checked(arguments: dict[str, Any], call: Any) -> Any:
        if arguments["value"] < 0:
            raise ToolError("no negative amounts")
        if arguments["value"] == 0:
            raise RuntimeError("secret detail")
        return await call(arguments)

    mcp.add_tool(
        derive_tool(
            original,
            name="to_euros",
            description=None,
            annotations={"readOnlyHint": True},
            arguments={
                "amount": Arg(name="value", description="How much"),
                "currency": Arg(hide=True, value="EUR"),
                "rounding": Arg(default=0),
            },
            wrap=checked,
        )
    )
    async with checked_client(mcp, "2025-11-25") as client:
        tools = {tool["name"]: tool for tool in await client.list_tools()}
        assert set(tools) == {"convert", "to_euros"}
        euros = tools["to_euros"]
        assert "description" not in euros and euros["annotations"] == {"readOnlyHint": True}
        assert euros["inputSchema"]["properties"]["value"] == {
            "type": "number",
            "description": "How much",
        }
        assert euros["inputSchema"]["properties"]["rounding"]["default"] == 0
        got = await client.call_tool("to_euros", {"value": 1.26})
        assert got.structured == {"amount": 3.0, "currency": "EUR"}
        refused = await client.call_tool("to_euros", {"value": -1})
        assert refused.is_error and refused.text == "no negative amounts"
        masked = await client.call_tool("to_euros", {"value": 0})
        assert masked.is_error and "secret" not in masked.text and "reference" in masked.text
        assert (await client.call_tool("convert", {"amount": 1, "currency": "USD"})).structured == {
            "amount": 2.0,
            "currency": "USD",
        }


def test_bad_transforms_are_registration_errors() -> None:
    mcp = make_server()
    tool = mcp.get_tool("convert")
    assert tool is not None
    with pytest.raises(RegistrationError, match="no argument 'nope'"):
        derive_tool(tool, arguments={"nope": Arg(name="x")})
    with pytest.raises(RegistrationError, match="hiding the required argument 'currency'"):
        derive_tool(tool, arguments={"currency": Arg(hide=True)})
    with pytest.raises(RegistrationError, match="two arguments would be named 'currency'"):
        derive_tool(tool, arguments={"amount": Arg(name="currency")})
    with pytest.raises(RegistrationError, match="async function"):
        derive_tool(tool, wrap=lambda arguments, call: None)  # type: ignore[arg-type,return-value]
    with pytest.raises(RegistrationError, match="object schema"):
        derive_tool(tool, output_schema={"type": "string"})
    with pytest.raises(KeyError):
        mcp.transform_tool("missing", name="x")
    mcp.transform_tool("convert", name="convert_money")
    assert [t.name for t in mcp.tools] == ["convert_money"]
    with pytest.raises(RegistrationError, match="already has a transform"):
        mcp.transform_tool("convert", name="again")


async def test_a_transform_survives_the_mounted_tool_coming_back() -> None:
    inner = Server("inner")
    inner.add_tool(lambda city: f"sun in {city}", name="weather")
    mcp = Server("outer")
    mcp.mount(inner, prefix="in")
    mcp.transform_tool(
        "in_weather", name="oslo_weather", arguments={"city": Arg(hide=True, value="Oslo")}
    )
    mcp.transform_tool("oslo_weather", name="oslo", description="The weather in Oslo.")
    assert [t.name for t in mcp.tools] == ["oslo"]
    inner.disable_tool("weather")
    assert [t.name for t in mcp.tools] == []
    inner.enable_tool("weather")
    assert [t.name for t in mcp.tools] == ["oslo"]  # both transforms, in order
    async with checked_client(mcp, MODERN) as client:
        (tool,) = await client.list_tools()
        assert tool["description"] == "The weather in Oslo." and not tool["inputSchema"].get(
            "properties"
        )
        assert (await client.call_tool("oslo")).text == "sun in Oslo"
