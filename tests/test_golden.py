"""Golden tests: the spec's own 2026-07-28 example messages against toolwire.

``tests/servers/rev_weather.py`` is the spec's example weather server (``get_weather`` with
the title and icon the examples show). What toolwire emits for it is compared with the
example messages field by field, and every example *request* in the examples folder is fed
to it over a real stdio pipe; every answer is checked against the 2026-07-28 schema.
"""

from __future__ import annotations

import copy
import json
import runpy
from typing import Any

import pytest
from pydantic import BaseModel, Field

from toolwire import Server
from toolwire.lowlevel import Server as LowLevelServer
from toolwire.protocol.revisions import LATEST, REVISIONS, SUPPORTED_NEWEST_FIRST
from toolwire.server.dispatch.methods import METHODS

import mcp_spec
from mcp_spec import examples, tables, validate_definition
from wire import SERVERS, checked_client, modern_meta, raw_server

pytestmark = pytest.mark.skipif(
    not mcp_spec.spec_available() or not examples(),
    reason=f"MCP schemas or examples not found in {mcp_spec.SPEC_DIR}",
)

SERVER_INFO = "io.modelcontextprotocol/serverInfo"
PROTOCOL_VERSION = "io.modelcontextprotocol/protocolVersion"
V2025_06, V2025_11, V2026 = REVISIONS[2:]


def example(type_name: str, stem: str | None = None) -> Any:
    """One example message (a fresh copy); ``stem`` picks the file when there are several."""
    found = [(path, data) for _, path, data in examples(type_name) if stem in (None, path.stem)]
    assert found, f"no example {type_name}/{stem}"
    if stem is None:
        assert len(found) == 1, f"several {type_name} examples: {[p.name for p, _ in found]}"
    return copy.deepcopy(found[0][1])


# The output of the example get_weather_data tool. Module level, since annotations are strings
# here; no docstring, since it would become the schema's description.
class WeatherData(BaseModel):
    temperature: float = Field(description="Temperature in celsius")
    conditions: str = Field(description="Weather conditions description")
    humidity: float = Field(description="Humidity percentage")


def weather_server() -> Any:
    return runpy.run_path(str(SERVERS / "rev_weather.py"))["mcp"]


def without_modern_markers(result: dict[str, Any]) -> dict[str, Any]:
    result = dict(result)
    assert result.pop("resultType") == "complete"
    assert result.pop("_meta")[SERVER_INFO] == {"name": "ExampleServer", "version": "1.0.0"}
    return result


# ---------------------------------------------------------------------------- tools/list


async def test_tools_list_matches_the_example_response() -> None:
    """TL-05, TL-36: our get_weather equals the example's tool; same caching hints."""
    expected = example("ListToolsResultResponse")["result"]
    async with raw_server("rev_weather.py", revision=V2026) as server:
        result = (await server.request("tools/list", modern=True))["result"]
    assert result["tools"] == expected["tools"]
    assert result["ttlMs"] == expected["ttlMs"]
    assert result["cacheScope"] == expected["cacheScope"]
    assert result["resultType"] == expected["resultType"]
    # The example shows a second page exists; ours is the only page. We add serverInfo (LC-21).
    assert set(result) | {"nextCursor"} == set(expected) | {"_meta"}
    assert example("ListToolsResult")["tools"] == expected["tools"]


@pytest.mark.parametrize("revision", REVISIONS)
async def test_example_tool_in_every_revision(revision: str) -> None:
    """The same tool cut down per revision: title from 2025-06-18, icons from 2025-11-25."""
    tool = example("ListToolsResult")["tools"][0]
    if revision < V2025_11:
        del tool["icons"]
    if revision < V2025_06:
        del tool["title"]
    async with checked_client(weather_server(), revision) as client:
        assert await client.list_tools() == [tool]


def test_decorated_tools_reproduce_the_example_tools() -> None:
    """Plain functions give exactly the spec's example definitions (portable schema profile)."""
    server = Server("golden")

    @server.tool(output_schema=False)
    def calculate_sum(a: float, b: float) -> float:
        """Add two numbers"""
        return a + b

    @server.tool(output_schema=False)
    def get_current_time() -> str:
        """Returns the current server time"""
        return "12:00"

    @server.tool(title="Weather Data Retriever")
    def get_weather_data(location: str = Field(description="City name or zip code")) -> WeatherData:
        """Get current weather data for a location"""
        return WeatherData(temperature=22.5, conditions="Partly cloudy", humidity=65)

    definitions = {tool.name: tool.definition for tool in server.tools}
    assert definitions["calculate_sum"] == example("Tool", "with-default-2020-12-input-schema")
    # no parameters: an open object with no properties, as the official SDK publishes it (the
    # spec's example closes it with additionalProperties: false; both are valid)
    assert definitions["get_current_time"] == {
        **example("Tool", "with-no-parameters"),
        "inputSchema": {"type": "object", "properties": {}},
    }
    assert definitions["get_weather_data"] == example(
        "Tool", "with-output-schema-for-structured-content"
    )
    for definition in definitions.values():
        for revision in REVISIONS[2:]:
            validate_definition(definition, "Tool", revision)


@pytest.mark.parametrize("revision", REVISIONS)
async def test_example_tools_pass_through_the_low_level_server(revision: str) -> None:
    """Every Tool example, served as-is: 2026-07-28 sees it unchanged, older revisions a valid cut."""
    tools = [data for _, _, data in examples("Tool")]
    server = LowLevelServer("golden-lowlevel", version="1.0.0")

    @server.list_tools()
    async def list_tools() -> list[dict[str, Any]]:
        return copy.deepcopy(tools)

    async with checked_client(server, revision) as client:
        listed = {tool["name"]: tool for tool in await client.list_tools()}
    by_name = {tool["name"]: tool for tool in tools}
    assert set(listed) == set(by_name)
    if revision == V2026:
        assert listed == by_name
    else:
        # An array outputSchema exists only from 2026-07-28 (TL-08).
        assert "outputSchema" not in listed["list_users"]
        assert listed["find_resource"]["inputSchema"] == by_name["find_resource"]["inputSchema"]


# ---------------------------------------------------------------------------- tools/call


async def test_call_result_matches_the_example_response() -> None:
    expected = example("CallToolResultResponse")
    request = example("CallToolRequest")
    async with raw_server("rev_weather.py", revision=V2026) as server:
        await server.send(request)
        answer = await server.response(request["id"])
    assert answer["id"] == expected["id"]
    result = without_modern_markers(answer["result"])
    assert result["content"] == expected["result"]["content"]
    assert result.get("isError", False) is expected["result"]["isError"]


async def test_structured_call_result_matches_the_example() -> None:
    """TL-21/TL-22: structuredContent as in the example, and the same JSON as a text block."""
    expected = example("CallToolResult", "result-with-structured-content")
    server = Server("golden")

    @server.tool()
    def get_weather_data(location: str) -> WeatherData:
        """Get current weather data for a location"""
        return WeatherData(temperature=22.5, conditions="Partly cloudy", humidity=65)

    async with checked_client(server, V2026) as client:
        result = await client.call_tool("get_weather_data", {"location": "Paris"})
    assert result.structured == expected["structuredContent"]
    assert [json.loads(block["text"]) for block in result.content] == [
        expected["structuredContent"]
    ]
    assert result.raw["resultType"] == expected["resultType"]


async def test_invalid_input_is_a_tool_error_like_the_example() -> None:
    """TL-26: invalid arguments come back as an ``isError`` result, shaped as the example."""
    expected = example("CallToolResult", "invalid-tool-input-error")
    async with checked_client(weather_server(), V2026) as client:
        result = await client.call_tool("get_weather", {"location": 12})
    assert result.is_error is expected["isError"]
    assert [block["type"] for block in result.content] == ["text"]
    assert set(result.raw) == set(expected) | {"_meta"}


async def test_array_structured_content_matches_the_example() -> None:
    tool = example("Tool", "tool-with-array-output-schema")
    expected = example("CallToolResult", "result-with-array-structured-content")
    server = Server("golden")

    @server.tool(title=tool["title"], output_schema=tool["outputSchema"])
    def list_users() -> list[dict[str, str]]:
        """Returns a list of all users"""
        return expected["structuredContent"]

    async with checked_client(server, V2026) as client:
        listed = (await client.list_tools())[0]
        result = await client.call_tool("list_users", {})
    assert listed["outputSchema"] == tool["outputSchema"]
    assert result.structured == expected["structuredContent"]


# ---------------------------------------------------------------------------- server/discover and errors


@pytest.mark.parametrize("source", ["DiscoverResult", "DiscoverResultResponse"])
async def test_discover_result_has_the_example_shape(source: str) -> None:
    """LC-20, LC-21: the same members as the spec's DiscoverResult examples."""
    expected = example(source)
    expected = expected.get("result", expected)
    request = example("DiscoverRequest")
    async with raw_server("rev_weather.py", revision=V2026) as server:
        await server.send(request)
        result = (await server.response(request["id"]))["result"]
    ours = set(result) if "instructions" in expected else set(result) - {"instructions"}
    assert ours == set(expected)
    for key in ("resultType", "ttlMs", "cacheScope", "_meta"):
        assert result[key] == expected[key], key
    # The example's server is modern-only; a dual-era one names every revision it serves,
    # newest first, the list its UnsupportedProtocolVersionError gives (LC-18, LC-20).
    assert result["supportedVersions"] == list(SUPPORTED_NEWEST_FIRST)
    assert set(expected["supportedVersions"]) <= set(result["supportedVersions"])
    if "instructions" in expected:
        assert result["instructions"] == expected["instructions"]
    assert "tools" in result["capabilities"]
    validate_definition(result["capabilities"], "ServerCapabilities", V2026)


async def test_unsupported_version_error_has_the_example_shape() -> None:
    """LC-18: -32022 with ``data.supported`` and ``data.requested``, like the example."""
    expected = example("UnsupportedProtocolVersionError")
    async with raw_server("rev_weather.py", revision=V2026) as server:
        meta = {**modern_meta(), PROTOCOL_VERSION: expected["error"]["data"]["requested"]}
        answer = await server.request("server/discover", {"_meta": meta})
    error = answer["error"]
    assert set(answer) == set(expected)
    assert set(error) == set(expected["error"])
    assert set(error["data"]) == set(expected["error"]["data"])
    assert error["code"] == expected["error"]["code"]
    assert error["message"] == expected["error"]["message"]
    assert error["data"]["requested"] == expected["error"]["data"]["requested"]
    assert error["data"]["supported"][0] == LATEST
    assert set(expected["error"]["data"]["supported"]) <= set(error["data"]["supported"])
    validate_definition(answer, "UnsupportedProtocolVersionError", V2026)


async def test_unknown_tool_and_invalid_cursor_errors_match_the_examples() -> None:
    """TL-25, PG-05: the example codes (-32602) and messages."""
    unknown = example("InvalidParamsError", "unknown-tool")
    bad_cursor = example("InvalidParamsError", "invalid-cursor")
    async with raw_server("rev_weather.py", revision=V2026) as server:
        call = await server.request(
            "tools/call", {"name": "invalid_tool_name", "arguments": {}}, modern=True
        )
        page = await server.request("tools/list", {"cursor": "eyJwYWdlIjogMn0="}, modern=True)
    assert call["error"]["code"] == unknown["code"]
    assert call["error"]["message"].startswith("Unknown tool:")
    assert "invalid_tool_name" in call["error"]["message"]
    assert page["error"] == bad_cursor
    for error in (call["error"], page["error"]):
        validate_definition(error, "InvalidParamsError", V2026)


# ---------------------------------------------------------------------------- every example request


def example_requests() -> list[tuple[str, dict[str, Any]]]:
    """Every example client request, plus request params examples wrapped into requests."""
    client_requests = tables(V2026).client_requests
    found: list[tuple[str, dict[str, Any]]] = []
    for type_name, path, data in examples():
        if isinstance(data, dict) and data.get("method") in client_requests and "id" in data:
            found.append((f"{type_name}/{path.stem}", data))
    wrap = {"CallToolRequestParams": "tools/call", "PaginatedRequestParams": "tools/list"}
    for type_name, method in wrap.items():
        for _, path, params in examples(type_name):
            request = {
                "jsonrpc": "2.0",
                "id": f"{type_name}/{path.stem}",
                "method": method,
                "params": params,
            }
            found.append((f"{type_name}/{path.stem}", request))
    return found


async def test_every_example_request_gets_a_valid_answer() -> None:
    """Each example request in the examples folder, sent as-is over stdio; answers schema-checked.

    Methods the server implements get results (compared with the matching ``*ResultResponse``
    example where there is one); the others get -32601 (HT-31).
    """
    requests = example_requests()
    methods = {request["method"] for _, request in requests}
    assert {"server/discover", "tools/list", "tools/call"} <= methods
    responses = {
        "server/discover": example("DiscoverResultResponse"),
        "tools/list": example("ListToolsResultResponse"),
        "tools/call": example("CallToolResultResponse"),
    }
    unknown_tool = example("InvalidParamsError", "unknown-tool")["code"]
    answered = 0
    async with raw_server("rev_weather.py", revision=V2026) as server:
        for label, request in requests:
            method = request["method"]
            if method == "subscriptions/listen":
                continue  # a long-lived stream, not a request/response pair
            await server.send(request)
            answer = await server.response(request["id"])
            if method not in METHODS:
                assert answer["error"]["code"] == -32601, label
                continue
            if method not in responses:
                continue  # implemented elsewhere; the checker has validated the answer
            name = request["params"].get("name")
            if method == "tools/call" and name != "get_weather":
                assert answer["error"]["code"] == unknown_tool, label
                continue
            if "cursor" in request["params"]:
                assert answer["error"]["code"] == -32602, label  # a cursor we never issued
                continue
            result = answer["result"]
            expected = responses[method]
            assert result["resultType"] == "complete", label
            assert result["_meta"][SERVER_INFO] == {"name": "ExampleServer", "version": "1.0.0"}
            if answer["id"] == expected["id"]:
                for key in ("tools", "content"):  # supportedVersions: see above
                    if key in expected["result"]:
                        assert result[key] == expected["result"][key], label
            answered += 1
        code, rest, _ = await server.close()
    assert code == 0 and rest == b""
    assert answered >= 4
    assert server.checker.checked >= 2 * (len(requests) - 1)
