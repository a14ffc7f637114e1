"""Parameters mirrored into HTTP headers on 2026-07-28 (``x-mcp-header``, TL-38, HT-34)."""

from __future__ import annotations

from typing import Annotated, Any

import httpx
import orjson
import pytest
from pydantic import Field

from toolwire import RegistrationError, Server

from http_server import serve_http
from mcp_spec import WireChecker

MODERN = "2026-07-28"


def mirrored(header: str) -> Any:
    return Field(json_schema_extra={"x-mcp-header": header})


def weather_server() -> Server:
    mcp = Server("headers")

    @mcp.tool()
    def weather(
        region: Annotated[str, mirrored("Region")],
        days: Annotated[int, mirrored("Days")] = 1,
        metric: Annotated[bool | None, mirrored("Metric")] = None,
    ) -> str:
        """Forecast for a region."""
        return f"{region}:{days}:{metric}"

    return mcp


def call(arguments: dict[str, Any]) -> dict[str, Any]:
    meta = {
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientCapabilities": {},
    }
    params = {"name": "weather", "arguments": arguments, "_meta": meta}
    return {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params}


HEADERS = {
    "content-type": "application/json",
    "accept": "application/json",
    "mcp-protocol-version": MODERN,
    "mcp-method": "tools/call",
    "mcp-name": "weather",
}


@pytest.mark.parametrize(
    ("arguments", "extra", "status"),
    [
        ({"region": "eu"}, {"Mcp-Param-Region": "eu"}, 200),
        ({"region": "eu", "days": 3}, {"mcp-param-region": "eu", "MCP-PARAM-DAYS": "3"}, 200),
        ({"region": "eu", "days": 3}, {"mcp-param-region": "eu", "mcp-param-days": "03"}, 200),
        (
            {"region": "eu", "metric": True},
            {"mcp-param-region": "eu", "mcp-param-metric": "true"},
            200,
        ),
        ({"region": "é"}, {"mcp-param-region": "=?base64?w6k=?="}, 200),
        ({"region": "eu"}, {}, 400),
        ({"region": "eu"}, {"mcp-param-region": "us"}, 400),
        ({"region": "eu", "days": 3}, {"mcp-param-region": "eu"}, 400),
        ({"region": "eu"}, {"mcp-param-region": "eu", "mcp-param-days": "1"}, 400),
        (
            {"region": "eu", "metric": False},
            {"mcp-param-region": "eu", "mcp-param-metric": "true"},
            400,
        ),
        ({"region": "eu"}, {"mcp-param-region": "=?base64?not base64?="}, 400),
        # strict base64 (HT-34): characters outside the alphabet, or missing padding, are not
        # skipped or forgiven; a value without the whole wrapper is taken literally
        ({"region": "Hello"}, {"mcp-param-region": "=?base64?SGVs!!!bG8=?="}, 400),
        ({"region": "Hello"}, {"mcp-param-region": "=?base64?SGVsbG8?="}, 400),
        ({"region": "Hello"}, {"mcp-param-region": "=?base64?SGVsbG8=?="}, 200),
        ({"region": "=?base64?SGVsbG8="}, {"mcp-param-region": "=?base64?SGVsbG8="}, 200),
    ],
)
async def test_mirrored_parameters_must_match_the_body(
    arguments: dict[str, Any], extra: dict[str, str], status: int
) -> None:
    message = call(arguments)
    checker = WireChecker(MODERN)
    checker.client_sent(message)
    with serve_http(weather_server()) as url:
        async with httpx.AsyncClient(timeout=10) as client:
            response = await client.post(
                url, content=orjson.dumps(message), headers={**HEADERS, **extra}
            )
    checker.server_sent(response.content)
    assert response.status_code == status, response.text
    if status == 400:
        assert response.json()["error"]["code"] == -32020
        assert "Mcp-Param-" in response.json()["error"]["message"]
    else:
        assert not response.json()["result"].get("isError")


def test_the_schema_carries_the_header_names() -> None:
    [tool] = weather_server().tools
    properties = tool.definition["inputSchema"]["properties"]
    assert properties["region"] == {"type": "string", "x-mcp-header": "Region"}
    assert tool.header_params == {"region": "Region", "days": "Days", "metric": "Metric"}


@pytest.mark.parametrize(
    "annotation",
    [
        Annotated[float, mirrored("Ratio")],  # numbers are not allowed, only integers
        Annotated[str, mirrored("Bad Header")],  # not a token
        Annotated[str, mirrored("")],
        Annotated[list[str], mirrored("Tags")],
    ],
)
def test_invalid_mirrored_parameters_are_refused_at_registration(annotation: Any) -> None:
    mcp = Server("bad")

    def tool(value):  # type: ignore[no-untyped-def]
        return "x"

    tool.__annotations__ = {"value": annotation, "return": str}

    with pytest.raises(RegistrationError, match="x-mcp-header"):
        mcp.add_tool(tool)


def test_a_header_name_is_used_once_case_insensitively() -> None:
    mcp = Server("twice")

    def tool(a: Annotated[str, mirrored("Zone")], b: Annotated[str, mirrored("zone")]) -> str:
        return a + b

    with pytest.raises(RegistrationError, match="used twice"):
        mcp.add_tool(tool)
