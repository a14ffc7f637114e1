"""What each era says about a request's answer over HTTP, and about the stateless lifecycle.

* Legacy sessions (2025-03-26, 2025-06-18, 2025-11-25): a request the session accepted is
  answered with HTTP 200, JSON-RPC error or not (an unknown tool -32602, an unknown method
  -32601), as the official SDKs' servers answer; the transport's own refusals (no session,
  unknown session, a bad ``MCP-Protocol-Version``) keep their 4xx.
* 2026-07-28 keeps the statuses it prescribes (-32601 → 404, -32602 → 400); an
  ``initialize`` sent as a 2026-07-28 request (no handshake ``protocolVersion``, the
  revision in ``_meta`` and the header) is a method that revision lacks: 404, -32601; and
  ``server/discover`` names the same revisions as an UnsupportedProtocolVersionError.

Real uvicorn on 127.0.0.1; every message is checked against its revision's schema.
"""

from __future__ import annotations

import httpx
import orjson
import pytest

from test_http_legacy import REVISIONS, TIMEOUT, Peer
from toolwire import Server

from http_server import serve_http
from mcp_spec import WireChecker
from wire import MODERN, RawServer, modern_meta

pytestmark = pytest.mark.timeout(30)

PROTOCOL_VERSION_UNKNOWN = "2099-01-01"


def build() -> Server:
    mcp = Server("era-rules", version="1.0.0")

    @mcp.tool()
    def add(a: int, b: int) -> int:
        """Add two numbers."""
        return a + b

    return mcp


def modern_headers(message: dict[str, object], version: str = MODERN) -> dict[str, str]:
    headers = {
        "content-type": "application/json",
        "accept": "application/json, text/event-stream",
        "mcp-protocol-version": version,
        "mcp-method": str(message["method"]),
    }
    params = message.get("params")
    if message["method"] == "tools/call" and isinstance(params, dict):
        headers["mcp-name"] = str(params["name"])
    return headers


@pytest.mark.parametrize("revision", REVISIONS)
async def test_legacy_json_rpc_errors_travel_with_200(revision: str) -> None:
    with serve_http(build()) as url:
        async with httpx.AsyncClient(timeout=TIMEOUT) as http:
            peer = Peer(http, url, revision)
            await peer.initialize()
            unknown_tool = peer.call("no_such_tool")
            answer = await peer.post(unknown_tool)
            assert answer.status_code == 200, answer.text
            assert answer.json()["error"]["code"] == -32602
            assert answer.json()["id"] == unknown_tool["id"]

            unknown_method = peer.request("no/such/method", {})
            answer = await peer.post(unknown_method)
            assert answer.status_code == 200, answer.text
            assert answer.json()["error"]["code"] == -32601
            assert answer.json()["id"] == unknown_method["id"]

            bad_arguments = peer.request("tools/call", {"name": "add", "arguments": [1, 2]})
            answer = await peer.post(bad_arguments)
            assert answer.status_code == 200 and answer.json()["error"]["code"] == -32602

            # the transport's own refusals keep their status
            lost = await peer.post(peer.call("add", {"a": 1, "b": 2}), mcp_session_id="nope")
            assert lost.status_code == 404
            assert peer.checker.checked > 0


async def test_2026_json_rpc_errors_keep_their_statuses() -> None:
    checker = WireChecker(MODERN)
    cases = [
        ("tools/call", {"name": "no_such_tool", "arguments": {}}, 400, -32602),
        ("no/such/method", {}, 404, -32601),
    ]
    with serve_http(build()) as url:
        async with httpx.AsyncClient(timeout=TIMEOUT) as http:
            for mid, (method, params, status, code) in enumerate(cases, 1):
                message = {
                    "jsonrpc": "2.0",
                    "id": mid,
                    "method": method,
                    "params": {**params, "_meta": modern_meta()},
                }
                checker.client_sent(message)
                response = await http.post(
                    url, content=orjson.dumps(message), headers=modern_headers(message)
                )
                checker.server_sent(response.content)
                assert response.status_code == status, response.text
                assert response.json()["error"]["code"] == code
                assert response.json()["id"] == mid


async def test_a_2026_initialize_is_a_method_not_found() -> None:
    """SEP-2575: ``initialize`` is removed in 2026-07-28; sent as a 2026-07-28 request it
    gets 404 and -32601 with its id (a legacy one, with protocolVersion, opens a session)."""
    message = {
        "jsonrpc": "2.0",
        "id": 500,
        "method": "initialize",
        "params": {"_meta": modern_meta()},
    }
    checker = WireChecker(MODERN)
    checker.client_sent(message)
    with serve_http(build()) as url:
        async with httpx.AsyncClient(timeout=TIMEOUT) as http:
            response = await http.post(
                url, content=orjson.dumps(message), headers=modern_headers(message)
            )
            checker.server_sent(response.content)
            assert response.status_code == 404, response.text
            assert response.json()["error"]["code"] == -32601
            assert response.json()["id"] == 500
            assert "mcp-session-id" not in response.headers

            # an unknown revision in its _meta: -32022, as for any other request
            unknown = {**message, "params": {"_meta": modern_meta(PROTOCOL_VERSION_UNKNOWN)}}
            checker.client_sent(unknown)
            response = await http.post(
                url,
                content=orjson.dumps(unknown),
                headers=modern_headers(unknown, PROTOCOL_VERSION_UNKNOWN),
            )
            checker.server_sent(response.content)
            assert response.status_code == 400
            assert response.json()["error"]["code"] == -32022


async def test_a_2026_initialize_over_stdio_is_a_method_not_found() -> None:
    server = await RawServer.start("calc.py", revision=MODERN)
    try:
        answer = await server.request("initialize", {"_meta": modern_meta()})
        assert answer["error"]["code"] == -32601
        listed = await server.request("tools/list", modern=True)
        assert "result" in listed
    finally:
        await server.close()


async def test_discover_names_the_revisions_an_unsupported_version_error_names() -> None:
    checker = WireChecker(MODERN)
    with serve_http(build()) as url:
        async with httpx.AsyncClient(timeout=TIMEOUT) as http:
            discover = {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "server/discover",
                "params": {"_meta": modern_meta()},
            }
            checker.client_sent(discover)
            response = await http.post(
                url, content=orjson.dumps(discover), headers=modern_headers(discover)
            )
            checker.server_sent(response.content)
            supported = response.json()["result"]["supportedVersions"]

            wrong = {
                **discover,
                "id": 2,
                "params": {"_meta": modern_meta(PROTOCOL_VERSION_UNKNOWN)},
            }
            checker.client_sent(wrong)
            response = await http.post(
                url,
                content=orjson.dumps(wrong),
                headers=modern_headers(wrong, PROTOCOL_VERSION_UNKNOWN),
            )
            checker.server_sent(response.content)
            assert response.status_code == 400
            data = response.json()["error"]["data"]
    assert data == {"supported": supported, "requested": PROTOCOL_VERSION_UNKNOWN}
    assert supported[0] == MODERN and "2025-11-25" in supported
