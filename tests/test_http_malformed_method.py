"""A legacy session's request whose ``method`` is not a string (a list, an object, a number)
is answered with -32600, and the same keep-alive connection then serves a real call: the
server never raises after answering (an exception there made uvicorn reset the connection).
A 2026-07-28 request refused at once carries its HTTP status even to an SSE-only client.
Real uvicorn on 127.0.0.1; every answer checked against the 2025-11-25 schema."""

from __future__ import annotations

import httpx
import pytest

from toolwire import Server

from http_server import serve_http
from mcp_spec import WireChecker

pytestmark = pytest.mark.timeout(30)

REVISION = "2025-11-25"
ACCEPT = "application/json, text/event-stream"


def build(json_response: bool = True) -> Server:
    mcp = Server("malformed", json_response=json_response)

    @mcp.tool()
    def add(a: int, b: int) -> int:
        """Add two numbers."""
        return a + b

    return mcp


@pytest.mark.parametrize("method", [[{}], {"a": 1}, 7, None])
def test_a_method_that_is_not_a_string_is_refused_and_the_connection_goes_on(
    method: object,
) -> None:
    checker = WireChecker(REVISION)
    with serve_http(build()) as url, httpx.Client(timeout=10) as http:
        headers = {"Accept": ACCEPT, "MCP-Protocol-Version": REVISION}
        hello = {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": REVISION,
                "capabilities": {},
                "clientInfo": {"name": "t", "version": "1"},
            },
        }
        opened = http.post(url, json=hello, headers=headers)
        checker.server_sent(opened.content)
        headers["Mcp-Session-Id"] = opened.headers["mcp-session-id"]
        http.post(
            url, json={"jsonrpc": "2.0", "method": "notifications/initialized"}, headers=headers
        )
        bad = http.post(
            url, json={"jsonrpc": "2.0", "id": "x\u0004", "method": method}, headers=headers
        )
        assert bad.json()["error"]["code"] == -32600
        checker.server_sent(bad.content)
        call = {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "tools/call",
            "params": {"name": "add", "arguments": {"a": 1, "b": 2}},
        }
        answer = http.post(url, json=call, headers=headers)  # the same connection
        checker.server_sent(answer.content)
        assert answer.json()["result"]["structuredContent"] == {"result": 3}


@pytest.mark.parametrize(
    ("body", "code", "status"),
    [
        ({"jsonrpc": "2.0"}, -32600, 400),
        ({"jsonrpc": "2.0", "id": 3, "method": "no/such"}, -32601, 404),
    ],
)
def test_a_2026_request_refused_at_once_gets_its_status_even_when_only_sse_is_accepted(
    body: dict[str, object], code: int, status: int
) -> None:
    """A client that accepts only ``text/event-stream`` still learns from the HTTP status
    that its 2026-07-28 request was refused (-32600 400, -32601 404): a refusal known before
    anything runs is not wrapped in a 200 stream."""
    modern = "2026-07-28"
    checker = WireChecker(modern)
    with serve_http(build(json_response=False)) as url, httpx.Client(timeout=10) as http:
        headers = {"Accept": "text/event-stream", "MCP-Protocol-Version": modern}
        if "method" in body:
            headers["Mcp-Method"] = str(body["method"])
            body = {
                **body,
                "params": {
                    "_meta": {
                        "io.modelcontextprotocol/protocolVersion": modern,
                        "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"},
                        "io.modelcontextprotocol/clientCapabilities": {},
                    }
                },
            }
        answer = http.post(url, json=body, headers=headers)
        assert (answer.status_code, answer.json()["error"]["code"]) == (status, code)
        checker.server_sent(answer.content)
