"""``ctx.http``: the HTTP request that carried a call, seen from inside the tool.

Over a real uvicorn on 127.0.0.1, in both eras: headers (looked up in any case), method,
path, URL, the client's address, the session id (legacy) and the verified access token
when the server authenticates; ``None`` in memory and over stdio. A legacy call keeps the
POST that brought it, even once another POST (with other headers) answered its question,
whether the question came on the call's own stream or on the session's GET stream. Every
message is validated against the negotiated revision's schema.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest
from pydantic import BaseModel

from test_http_legacy import Peer, assert_empty_202, text_of
from toolwire import Context, Server
from toolwire.auth import AccessToken, ResourceServer, StaticTokens

from http_server import serve_http
from wire import checked_client

pytestmark = pytest.mark.timeout(30)

ERAS = ["2025-11-25", "2026-07-28"]
GATEWAY = {"X-User-Id": "u-42", "X-Tenant": "acme"}
STDIO_SERVER = Path(__file__).parent / "servers" / "prod_state.py"


class Confirm(BaseModel):
    ok: bool


def build() -> Server:
    mcp = Server("http-in-tools")

    @mcp.tool()
    def request_info(ctx: Context) -> dict[str, Any]:
        """What ctx.http shows."""
        http = ctx.http
        if http is None:
            return {"http": None}
        token = http.access_token
        return {
            "user": http.headers["X-USER-ID"],
            "tenant": http.headers.get("x-tenant"),
            "has_tenant": "X-Tenant" in http.headers,
            "missing": http.headers.get("X-Nothing", "none"),
            "method": http.method,
            "path": http.path,
            "url": http.url,
            "client": http.client_address,
            "port_is_int": isinstance(http.client_port, int),
            "session": http.session_id is not None,
            "subject": token.subject if token is not None else None,
            "same_token": token is ctx.access_token,
        }

    @mcp.tool()
    async def asks(ctx: Context) -> str:
        """The X-Step header before and after a question answered by another POST."""
        assert ctx.http is not None
        before = ctx.http.headers.get("x-step")
        answer = await ctx.elicit("Proceed?", Confirm)
        after = ctx.http.headers.get("x-step")
        return f"{before}/{after}/{answer.action}"

    return mcp


@pytest.mark.parametrize("revision", ERAS)
async def test_a_tool_reads_the_gateway_headers_and_the_request(revision: str) -> None:
    with serve_http(build()) as url:
        async with checked_client(url, revision, headers=GATEWAY) as client:
            result = await client.call_tool("request_info", {})
    seen = result.structured
    assert seen["user"] == "u-42" and seen["tenant"] == "acme" and seen["has_tenant"]
    assert seen["missing"] == "none"
    assert seen["method"] == "POST" and seen["path"] == "/mcp"
    assert seen["url"] == url
    assert seen["client"] == "127.0.0.1" and seen["port_is_int"]
    assert seen["session"] is (revision != "2026-07-28")
    assert seen["subject"] is None and seen["same_token"]


@pytest.mark.parametrize("revision", ERAS)
async def test_the_verified_token_is_there_never_the_raw_one(revision: str) -> None:
    tokens = StaticTokens({"s3cret": AccessToken(subject="bob", client_id="app")})
    auth = ResourceServer("http://127.0.0.1/mcp", ["https://as.invalid"], tokens)
    with serve_http(build(), auth=auth) as url:
        async with checked_client(url, revision, headers=GATEWAY, auth="s3cret") as client:
            result = await client.call_tool("request_info", {})
    assert result.structured["subject"] == "bob"
    assert result.structured["same_token"]  # ctx.http.access_token is ctx.access_token
    assert "s3cret" not in result.text


async def test_in_memory_and_over_stdio_there_is_no_http_request() -> None:
    async with checked_client(build(), "2025-11-25") as client:
        assert (await client.call_tool("request_info", {})).structured == {"http": None}
    async with checked_client([sys.executable, str(STDIO_SERVER)], "2026-07-28") as client:
        assert (await client.call_tool("request_info", {})).structured == {"http": None}


@pytest.mark.parametrize("json_response", [False, True])
async def test_a_legacy_call_keeps_the_post_that_brought_it(json_response: bool) -> None:
    """The question comes on the call's stream (SSE) or on the GET stream (JSON answers);
    the answer's POST carries another X-Step: the tool still sees the call's."""
    revision = "2025-11-25"
    with serve_http(build(), json_response=json_response) as url:
        async with httpx.AsyncClient(timeout=10.0) as http:
            peer = Peer(http, url, revision)
            await peer.initialize({"elicitation": {}})
            call = peer.call("asks")
            if json_response:
                async with peer.get_stream(x_step="listen") as events:
                    answered = asyncio.ensure_future(peer.post(call, x_step="call"))
                    asked = await events.message()
                    await answer(peer, asked)
                    response = await asyncio.wait_for(answered, 10.0)
                final = response.json()
            else:
                async with peer.post_stream(call, x_step="call") as events:
                    asked = await events.message()
                    await answer(peer, asked)
                    final = [event.message for event in await events.rest() if event.data][-1]
            assert peer.checker.client_issues == []
    assert final["id"] == call["id"]
    assert text_of(final) == "call/call/accept"


async def answer(peer: Peer, asked: dict[str, Any]) -> None:
    assert asked["method"] == "elicitation/create"
    reply = {
        "jsonrpc": "2.0",
        "id": asked["id"],
        "result": {"action": "accept", "content": {"ok": True}},
    }
    assert_empty_202(await peer.post(reply, x_step="answer"))
