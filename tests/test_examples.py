"""The examples in examples/, each run as a real stdio subprocess, on a legacy revision and
on 2026-07-28, with every message checked against the revision's JSON Schema.

The tests use toolwire's own pytest plugin (``toolwire.testing``): ``mcp_client`` connects to
the example named by ``@pytest.mark.mcp_server``, on each revision of ``mcp_protocol_version``,
and ``mcp_client_options`` taps every message into a ``WireChecker``.
"""

from __future__ import annotations

import ast
import importlib.util
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from toolwire import Client
from toolwire.testing import assert_tool_error, assert_tool_names, assert_tool_result, connect

from mcp_spec import WireChecker
from wire import EXAMPLES, checked_client

LEGACY = "2025-06-18"
MODERN = "2026-07-28"
REVISIONS = [LEGACY, MODERN]
READ_ONLY = {
    "readOnlyHint": True,
    "destructiveHint": False,
    "idempotentHint": True,
    "openWorldHint": False,
}


def command(name: str) -> list[str]:
    return [sys.executable, str(EXAMPLES / f"{name}.py")]


@pytest.fixture(params=REVISIONS)
def mcp_protocol_version(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def wire_checker(mcp_protocol_version: str) -> Iterator[WireChecker]:
    checker = WireChecker(mcp_protocol_version)
    yield checker
    assert checker.checked > 0, "the checker saw no message"


@pytest.fixture
def mcp_client_options(wire_checker: WireChecker) -> dict[str, Any]:
    """Every message of ``mcp_client`` is checked against the revision's JSON Schema."""

    def tap(direction: str, data: bytes) -> None:
        (wire_checker.client_sent if direction == "send" else wire_checker.server_sent)(data)

    return {"tap": tap}


def text(value: str) -> dict[str, Any]:
    return {"type": "text", "text": value}


def body(raw: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in raw.items() if k not in ("resultType", "_meta")}


def error(message: str) -> dict[str, Any]:
    return {"content": [text(message)], "isError": True}


def number(value: float) -> dict[str, Any]:
    return {"content": [text(repr(float(value)))], "structuredContent": {"result": value}}


async def call(client: Any, tools: dict[str, Any], name: str, arguments: dict[str, Any]) -> Any:
    """Call a tool; a structured result must fit the tool's outputSchema (TL-22)."""
    result = await client.call_tool(name, arguments)
    schema = tools[name].get("outputSchema")
    if schema is not None and not result.is_error:
        Draft202012Validator(schema).validate(result.structured)
    return body(result.raw)


@pytest.mark.parametrize("name", ["calculator", "bmi", "weather"])
def test_each_example_is_documented_and_runnable(name: str) -> None:
    source = (EXAMPLES / f"{name}.py").read_text()
    tree = ast.parse(source)
    docstring = ast.get_docstring(tree)
    assert docstring and f"python examples/{name}.py" in docstring
    assert 'if __name__ == "__main__":\n    mcp.run()\n' in source


# ---------------------------------------------------------------- calculator


@pytest.mark.mcp_server(EXAMPLES / "calculator.py")
async def test_calculator(mcp_client: Client) -> None:
    assert mcp_client.server_info["name"] == "Calculator"
    tools = {t["name"]: t for t in await mcp_client.list_tools()}
    assert list(tools) == ["add", "subtract", "multiply", "divide", "power", "sqrt"]
    assert_tool_names(tools.values(), ["add", "subtract", "multiply", "divide", "power", "sqrt"])
    assert tools["divide"] == {
        "name": "divide",
        "description": "Divide a by b.",
        "inputSchema": {
            "type": "object",
            "properties": {
                "a": {"type": "number", "description": "The dividend"},
                "b": {"type": "number", "description": "The divisor (must not be zero)"},
            },
            "required": ["a", "b"],
        },
        "outputSchema": {
            "type": "object",
            "properties": {"result": {"type": "number"}},
            "required": ["result"],
        },
        "annotations": {"title": "Divide", **READ_ONLY},
    }
    assert tools["sqrt"]["inputSchema"] == {
        "type": "object",
        "properties": {"x": {"type": "number", "description": "A number that is zero or positive"}},
        "required": ["x"],
    }
    for tool in tools.values():
        assert {k: v for k, v in tool["annotations"].items() if k != "title"} == READ_ONLY

    assert await call(mcp_client, tools, "add", {"a": 2, "b": 3}) == number(5.0)
    assert await call(mcp_client, tools, "subtract", {"a": 2, "b": 3.5}) == number(-1.5)
    assert await call(mcp_client, tools, "multiply", {"a": 4, "b": 2.5}) == number(10.0)
    assert await call(mcp_client, tools, "divide", {"a": 7, "b": 2}) == number(3.5)
    assert await call(mcp_client, tools, "power", {"base": 2, "exponent": 10}) == number(1024.0)
    assert await call(mcp_client, tools, "power", {"base": -2, "exponent": 3}) == number(-8.0)
    assert await call(mcp_client, tools, "sqrt", {"x": 16}) == number(4.0)

    assert await call(mcp_client, tools, "divide", {"a": 1, "b": 0}) == error(
        "Cannot divide by zero"
    )
    assert await call(mcp_client, tools, "sqrt", {"x": -4}) == error(
        "Cannot take the square root of a negative number (-4)"
    )
    assert await call(mcp_client, tools, "power", {"base": 0, "exponent": -1}) == error(
        "Cannot raise zero to a negative power"
    )
    assert await call(mcp_client, tools, "power", {"base": -8, "exponent": 0.5}) == error(
        "A negative base needs a whole-number exponent"
    )
    assert await call(mcp_client, tools, "power", {"base": 10, "exponent": 400}) == error(
        "The result of 10 ** 400 is too large"
    )
    assert await call(mcp_client, tools, "add", {"a": "two", "b": 3}) == error(
        "Invalid arguments for tool 'add': a: Input should be a valid number, "
        "unable to parse string as a number"
    )

    result = await mcp_client.call_tool("divide", {"a": 7, "b": 2})
    assert_tool_result(result, text="3.5", structured={"result": 3.5})
    assert_tool_error(await mcp_client.call_tool("divide", {"a": 1, "b": 0}), "divide by zero")


async def test_calculator_on_2024_11_05() -> None:
    async with checked_client(command("calculator"), "2024-11-05") as client:
        [add, *_] = await client.list_tools()
        assert set(add) == {"name", "description", "inputSchema"}
        result = await client.call_tool("add", {"a": 1, "b": 2})
        assert result.raw == {"content": [text("3.0")]}
        result = await client.call_tool("divide", {"a": 1, "b": 0})
        assert result.raw == error("Cannot divide by zero")


# ---------------------------------------------------------------- bmi


@pytest.mark.mcp_server(EXAMPLES / "bmi.py")
async def test_bmi(mcp_client: Client) -> None:
    [tool] = await mcp_client.list_tools()
    assert tool == {
        "name": "calculate_bmi",
        "description": "Calculate the body mass index (BMI) for an adult.",
        "inputSchema": {
            "type": "object",
            "properties": {
                "weight_kg": {
                    "type": "number",
                    "exclusiveMinimum": 0,
                    "maximum": 500,
                    "description": "Weight in kilograms",
                },
                "height_m": {
                    "type": "number",
                    "exclusiveMinimum": 0,
                    "maximum": 3,
                    "description": "Height in meters",
                },
            },
            "required": ["weight_kg", "height_m"],
        },
        "outputSchema": {
            "type": "object",
            "description": "A body mass index and its WHO category.",
            "properties": {
                "bmi": {
                    "type": "number",
                    "description": "Body mass index, rounded to one decimal",
                },
                "category": {
                    "type": "string",
                    "enum": ["underweight", "normal", "overweight", "obese"],
                    "description": "WHO category for adults",
                },
            },
            "required": ["bmi", "category"],
        },
        "annotations": {"title": "Calculate BMI", **READ_ONLY},
    }
    tools = {"calculate_bmi": tool}
    assert_tool_names([tool], ["calculate_bmi"])
    assert await call(mcp_client, tools, "calculate_bmi", {"weight_kg": 70, "height_m": 1.75}) == {
        "content": [text('{"bmi":22.9,"category":"normal"}')],
        "structuredContent": {"bmi": 22.9, "category": "normal"},
    }
    for weight, category in ((50, "underweight"), (80, "overweight"), (100, "obese")):
        result = await call(
            mcp_client, tools, "calculate_bmi", {"weight_kg": weight, "height_m": 1.75}
        )
        assert result["structuredContent"]["category"] == category
    assert await call(mcp_client, tools, "calculate_bmi", {"weight_kg": 0, "height_m": 5}) == error(
        "Invalid arguments for tool 'calculate_bmi': "
        "weight_kg: Input should be greater than 0; "
        "height_m: Input should be less than or equal to 3"
    )
    assert await call(mcp_client, tools, "calculate_bmi", {}) == error(
        "Invalid arguments for tool 'calculate_bmi': "
        "weight_kg: Field required; height_m: Field required"
    )


# ---------------------------------------------------------------- weather


@pytest.mark.mcp_server(EXAMPLES / "weather.py")
async def test_weather(mcp_client: Client) -> None:
    tools = {t["name"]: t for t in await mcp_client.list_tools()}
    assert list(tools) == ["get_forecast", "current_conditions"]
    assert_tool_names(tools.values(), ["current_conditions", "get_forecast"])
    assert tools["get_forecast"]["inputSchema"] == {
        "type": "object",
        "properties": {
            "city": {"type": "string", "description": "City name, e.g. London"},
            "days": {
                "type": "integer",
                "maximum": 7,
                "minimum": 1,
                "description": "Number of days, 1 to 7",
                "default": 3,
            },
            "units": {
                "type": "string",
                "enum": ["celsius", "fahrenheit"],
                "description": "Temperature units (default: celsius)",
            },
        },
        "required": ["city"],
    }
    assert tools["current_conditions"]["inputSchema"] == {
        "type": "object",
        "properties": {
            "city": {"type": "string", "description": "City name, e.g. Paris"},
            "country": {
                "type": "string",
                "description": "Optional country, to tell cities with the same name apart",
            },
        },
        "required": ["city"],
    }
    assert tools["current_conditions"]["outputSchema"] == {
        "type": "object",
        "properties": {
            "city": {"type": "string"},
            "temperature": {"type": "number"},
            "humidity": {"type": "integer"},
            "condition": {"type": "string"},
        },
        "required": ["city", "temperature", "humidity", "condition"],
    }
    assert tools["get_forecast"]["outputSchema"]["required"] == ["city", "units", "days"]

    result = await call(mcp_client, tools, "get_forecast", {"city": "London"})
    assert result["structuredContent"] == {
        "city": "London",
        "units": "celsius",
        "days": [
            {"day": 0, "high": 12.0, "low": 4.0, "condition": "partly cloudy"},
            {"day": 1, "high": 14.0, "low": 6.0, "condition": "cloudy"},
            {"day": 2, "high": 11.0, "low": 3.0, "condition": "rain"},
        ],
    }
    assert result["content"] == [
        text(
            '{"city":"London","units":"celsius","days":['
            '{"day":0,"high":12.0,"low":4.0,"condition":"partly cloudy"},'
            '{"day":1,"high":14.0,"low":6.0,"condition":"cloudy"},'
            '{"day":2,"high":11.0,"low":3.0,"condition":"rain"}]}'
        )
    ]
    again = await call(mcp_client, tools, "get_forecast", {"city": " london ", "units": None})
    assert again == result  # deterministic; null for the Optional param is accepted

    result = await call(
        mcp_client, tools, "get_forecast", {"city": "Oslo", "days": 2, "units": "fahrenheit"}
    )
    assert result["structuredContent"] == {
        "city": "Oslo",
        "units": "fahrenheit",
        "days": [
            {"day": 0, "high": 50.0, "low": 35.6, "condition": "showers"},
            {"day": 1, "high": 44.6, "low": 30.2, "condition": "sunny"},
        ],
    }

    conditions = {"city": "Paris", "temperature": 13.0, "humidity": 70, "condition": "rain"}
    for arguments in ({"city": "Paris"}, {"city": "Paris", "country": None}):
        assert await call(mcp_client, tools, "current_conditions", arguments) == {
            "content": [
                text('{"city":"Paris","temperature":13.0,"humidity":70,"condition":"rain"}')
            ],
            "structuredContent": conditions,
        }
    result = await call(mcp_client, tools, "current_conditions", {"city": "Paris", "country": "FR"})
    assert result["structuredContent"]["city"] == "Paris, FR"

    assert await call(mcp_client, tools, "get_forecast", {"city": "Berlin"}) == error(
        "Unknown city: 'Berlin'. Known cities: London, Oslo, Paris, Tokyo"
    )
    assert await call(
        mcp_client, tools, "get_forecast", {"city": "Paris", "days": 9, "units": "kelvin"}
    ) == error(
        "Invalid arguments for tool 'get_forecast': "
        "days: Input should be less than or equal to 7; "
        "units: Input should be 'celsius' or 'fahrenheit'"
    )


async def test_weather_on_2025_03_26_has_no_structured_content() -> None:
    async with checked_client(command("weather"), "2025-03-26") as client:
        tools = await client.list_tools()
        assert all("outputSchema" not in t for t in tools)
        result = await client.call_tool("current_conditions", {"city": "Tokyo"})
        assert result.raw == {
            "content": [
                text('{"city":"Tokyo","temperature":16.0,"humidity":65,"condition":"sunny"}')
            ]
        }


def load_example(name: str) -> Any:
    """Import an example as a module (its ``mcp`` server runs in this process)."""
    spec = importlib.util.spec_from_file_location(f"example_{name}", EXAMPLES / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("name", ["calculator", "bmi", "weather"])
async def test_each_example_serves_the_same_tools_in_memory(name: str) -> None:
    """``connect`` to the imported ``Server`` object answers like the stdio subprocess."""
    async with connect(load_example(name).mcp) as memory, connect(command(name)) as stdio:
        assert memory.protocol_version == stdio.protocol_version == MODERN
        assert await memory.list_tools() == await stdio.list_tools()


def test_examples_do_not_touch_the_network() -> None:
    # issues.py talks to the API at ISSUES_API_URL; its tests serve one on 127.0.0.1.
    for path in Path(EXAMPLES).glob("*.py"):
        if path.name == "issues.py":
            continue
        source = path.read_text()
        for module in ("httpx", "requests", "urllib", "socket", "aiohttp"):
            assert f"import {module}" not in source, path.name


async def test_the_container_recipes_server_serves_its_tools() -> None:
    """``examples/deploy/server.py`` as its workers run it (``toolwire run``), here over stdio
    and without Redis: it answers which worker it is, and its resumable task runs."""
    server = [sys.executable, "-m", "toolwire", "run", str(EXAMPLES / "deploy" / "server.py")]
    async with checked_client(server, MODERN) as client:
        names = {tool["name"] for tool in await client.list_tools()}
        assert names == {"whoami", "summarize"}
        host, pid = (await client.call_tool("whoami")).text.rsplit(":", 1)
        assert host == os.uname().nodename and int(pid) > 0
        summary = await client.call_tool("summarize", {"seconds": 0.1})
        assert summary.text == f"summarized on {os.uname().nodename}"
