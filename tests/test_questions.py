"""Questions for the client by name and several at once, the client's roots, and the
-32021 refusal, in both eras, in memory, over stdio and over HTTP; every message is checked
against the revision's JSON Schema.

On legacy sessions questions awaited together (``asyncio.gather``) go out as concurrent
server requests; on 2026-07-28 they travel in one ``InputRequiredResult`` keyed by the
names the tool gave (MP-03).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Any

import httpx
import orjson
import pytest

from servers.live_peer import load, open_peer
from toolwire import Client, ServerError

from http_server import serve_http
from mcp_spec import WireChecker
from wire import MODERN, SERVERS, modern_meta

pytestmark = pytest.mark.timeout(30)

LEGACY = "2025-11-25"
ERAS = [LEGACY, MODERN]
TRANSPORTS = ["memory", "stdio"]
JSON = dict[str, Any]
ROOTS = {"roots": [{"uri": "file:///work/project", "name": "project"}]}


@contextlib.asynccontextmanager
async def watched_client(
    transport: str, revision: str, **options: Any
) -> AsyncIterator[tuple[Client, list[JSON]]]:
    """A Client whose traffic is schema-checked; also yields what the server sent."""
    checker = WireChecker(revision)
    received: list[JSON] = []

    def tap(direction: str, data: bytes) -> None:
        if direction == "send":
            checker.client_sent(data)
        else:
            checker.server_sent(data)
            received.append(orjson.loads(data))

    if transport == "memory":
        target: Any = load("live_questions").build()
    elif transport == "stdio":
        target = str(SERVERS / "live_questions.py")
    else:
        target = transport  # a URL
    async with Client(target, protocol_version=revision, tap=tap, **options) as client:
        yield client, received
    assert checker.checked > 0 and checker.client_issues == []


def model_reply(text: str) -> JSON:
    return {
        "role": "assistant",
        "content": {"type": "text", "text": text},
        "model": "test-model",
        "stopReason": "endTurn",
    }


@pytest.mark.parametrize("revision", ERAS)
@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_questions_awaited_together_are_asked_together(transport: str, revision: str) -> None:
    """Two questions gathered: on a legacy session both requests are out before either is
    answered (each handler waits for the other question); on 2026-07-28 one
    InputRequiredResult carries both, under the keys the tool named, and the tool runs twice."""
    asked = {"elicitation": asyncio.Event(), "sampling": asyncio.Event()}
    legacy = revision != MODERN

    async def person(params: JSON) -> JSON:
        asked["elicitation"].set()
        if legacy:
            await asyncio.wait_for(asked["sampling"].wait(), 10)
        return {"action": "accept", "content": {"name": "Alice"}}

    async def model(params: JSON) -> JSON:
        asked["sampling"].set()
        if legacy:
            await asyncio.wait_for(asked["elicitation"].wait(), 10)
        return model_reply("Hello")

    async with watched_client(
        transport, revision, elicitation_handler=person, sampling_handler=model
    ) as (client, received):
        assert (await client.call_tool("greet")).text == "Hello, Alice!"
        assert (await client.call_tool("runs")).text == ("1" if legacy else "2")
    rounds = [
        m["result"] for m in received if m.get("result", {}).get("resultType") == "input_required"
    ]
    if legacy:
        assert rounds == []
        methods = sorted(m["method"] for m in received if "method" in m and "id" in m)
        assert methods == ["elicitation/create", "sampling/createMessage"]
    else:
        (result,) = rounds
        assert result["inputRequests"] == {
            "user_name": {
                "method": "elicitation/create",
                "params": {
                    "message": "What is your name?",
                    "requestedSchema": {
                        "type": "object",
                        "properties": {"name": {"type": "string", "title": "Name"}},
                        "required": ["name"],
                        "title": "Name",
                    },
                },
            },
            "greeting": {
                "method": "sampling/createMessage",
                "params": {
                    "messages": [
                        {"role": "user", "content": {"type": "text", "text": "Generate a greeting"}}
                    ],
                    "maxTokens": 50,
                },
            },
        }
        assert isinstance(result["requestState"], str)


@pytest.mark.parametrize("revision", ERAS)
@pytest.mark.parametrize("transport", [*TRANSPORTS, "http"])
async def test_a_client_without_the_capability(transport: str, revision: str) -> None:
    """JR-37: on 2026-07-28 a call that needs a capability the client did not declare is
    refused with -32021 naming it in data.requiredCapabilities; a legacy session keeps the
    isError result the model can read (the error code does not exist there)."""
    with contextlib.ExitStack() as stack:
        if transport == "http":
            transport = stack.enter_context(serve_http(load("live_questions").build()))
        async with watched_client(transport, revision) as (client, _):
            if revision == MODERN:
                with pytest.raises(ServerError) as refused:
                    await client.call_tool("greet")
                assert refused.value.code == -32021
                assert refused.value.data == {"requiredCapabilities": {"elicitation": {}}}
                with pytest.raises(ServerError) as refused:
                    await client.call_tool("roots")
                assert refused.value.data == {"requiredCapabilities": {"roots": {}}}
            else:
                result = await client.call_tool("greet")
                assert result.is_error
                assert result.text == (
                    "The client cannot ask the user for input (no elicitation support)"
                )
                result = await client.call_tool("roots")
                assert (result.is_error, result.text) == (
                    True,
                    "The client shares no roots (no roots support)",
                )


async def test_missing_capability_is_http_400() -> None:
    """JR-37 over Streamable HTTP: the -32021 error answers with 400 Bad Request."""
    checker = WireChecker(MODERN)
    message = {
        "jsonrpc": "2.0",
        "id": 7,
        "method": "tools/call",
        "params": {"name": "greet", "arguments": {}, "_meta": modern_meta()},
    }
    headers = {
        "Accept": "application/json, text/event-stream",
        "Content-Type": "application/json",
        "MCP-Protocol-Version": MODERN,
        "Mcp-Method": "tools/call",
        "Mcp-Name": "greet",
    }
    with serve_http(load("live_questions").build()) as url:
        async with httpx.AsyncClient(timeout=10) as http:
            checker.client_sent(message)
            response = await http.post(url, content=orjson.dumps(message), headers=headers)
    checker.server_sent(response.content)
    assert response.status_code == 400
    assert response.json()["error"]["code"] == -32021
    assert response.json()["id"] == 7


# ---------------------------------------------------------------- roots


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_roots_on_2026_07_28_are_an_input_request(transport: str) -> None:
    """ctx.list_roots() on 2026-07-28: an InputRequiredResult with a roots/list request under
    the tool's key; the retry carrying the ListRootsResult completes the call."""
    async with open_peer(transport, "live_questions", revision=MODERN) as peer:
        meta = modern_meta(**{"io.modelcontextprotocol/clientCapabilities": {"roots": {}}})
        call = {"name": "roots", "arguments": {}, "_meta": meta}
        first = (await peer.request("tools/call", call))["result"]
        assert first["resultType"] == "input_required"
        assert first["inputRequests"] == {"client_roots": {"method": "roots/list", "params": {}}}
        retry = {**call, "inputResponses": {"client_roots": ROOTS}}
        retry["requestState"] = first["requestState"]
        done = (await peer.request("tools/call", retry))["result"]
        assert done["content"] == [{"type": "text", "text": "project=file:///work/project"}]
        # A malformed answer is an invalid request, not the tool's failure (MP-09).
        bad = {**call, "inputResponses": {"client_roots": {"roots": "nope"}}}
        assert (await peer.request("tools/call", bad))["error"]["code"] == -32602


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_roots_on_a_legacy_session(transport: str) -> None:
    """ctx.list_roots() sends roots/list to a client that declared roots; after
    notifications/roots/list_changed the server fetches the new list and the
    @mcp.on_roots_changed handler gets it."""
    async with open_peer(transport, "live_questions", revision=LEGACY) as peer:
        await peer.request(
            "initialize",
            {
                "protocolVersion": LEGACY,
                "capabilities": {"roots": {"listChanged": True}},
                "clientInfo": {"name": "tests", "version": "0"},
            },
        )
        await peer.notify("notifications/initialized")
        mid = peer.next_id()
        await peer.send(
            {
                "jsonrpc": "2.0",
                "id": mid,
                "method": "tools/call",
                "params": {"name": "roots", "arguments": {}},
            }
        )
        question = await peer.recv()
        assert question["method"] == "roots/list"
        await peer.send({"jsonrpc": "2.0", "id": question["id"], "result": ROOTS})
        answer = await peer.response(mid)
        assert answer["result"]["content"][0]["text"] == "project=file:///work/project"

        await peer.notify("notifications/roots/list_changed")
        question = await peer.recv()
        assert question["method"] == "roots/list"
        changed = {"roots": [{"uri": "file:///elsewhere"}]}
        await peer.send({"jsonrpc": "2.0", "id": question["id"], "result": changed})
        # The handler runs after the answer arrives; ask until it has (bounded, no sleeps).
        for _ in range(100):
            seen = await peer.request("tools/call", {"name": "seen_roots", "arguments": {}})
            if seen["result"]["content"][0]["text"]:
                break
        assert seen["result"]["content"][0]["text"] == "file:///elsewhere"


# ---------------------------------------------------------------- JSON-RPC errors on purpose


@pytest.mark.parametrize("revision", ERAS)
@pytest.mark.parametrize("transport", [*TRANSPORTS, "http"])
async def test_an_rpc_error_raised_in_a_tool_is_that_error(transport: str, revision: str) -> None:
    """raise RPCError(code, message, data) in a tool answers with that JSON-RPC error, in
    every era and transport; any other exception stays a masked isError result."""
    with contextlib.ExitStack() as stack:
        if transport == "http":
            transport = stack.enter_context(serve_http(load("live_questions").build()))
        async with watched_client(transport, revision) as (client, _):
            with pytest.raises(ServerError) as refused:
                await client.call_tool("quota")
            error = refused.value
            assert (error.code, error.message, error.data) == (
                -32000,
                "Quota exceeded",
                {"retryAfter": 30},
            )
            broken = await client.call_tool("broken")
            assert broken.is_error and "internal error" in broken.text
            assert "postgres" not in broken.text


# ---------------------------------------------------------------- toolwire's client and server


@pytest.mark.parametrize("revision", ERAS)
@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_roots_between_toolwires_client_and_server(transport: str, revision: str) -> None:
    """Client(roots=...) answers ctx.list_roots() in both eras; on a legacy session
    set_roots() reaches the server's @mcp.on_roots_changed handler."""
    roots = [{"uri": "file:///work/project", "name": "project"}]
    async with watched_client(transport, revision, roots=roots) as (client, _):
        assert (await client.call_tool("roots")).text == "project=file:///work/project"
        await client.set_roots([{"uri": "file:///elsewhere", "name": "other"}])
        if revision == LEGACY:
            # The handler runs once the server has the new list; ask until it has (bounded).
            for _ in range(100):
                seen = (await client.call_tool("seen_roots")).text
                if seen:
                    break
            assert seen == "file:///elsewhere"
        assert (await client.call_tool("roots")).text == "other=file:///elsewhere"
