"""Middleware, in memory and over stdio, on legacy revisions and 2026-07-28.

The server is ``servers/live_middleware.py``: two recording layers around a policy layer that
rewrites arguments, answers a call itself, refuses one, fails on another and adds structured
data to a result. Every message is checked against the schema of the revision in use.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import Any

import pytest

from servers.live_peer import load, open_peer
from toolwire import Client, Context, RPCError, Server, ServerError, ToolError
from toolwire.server.dispatch.middleware import Call, CallNext

from wire import MODERN, SERVERS, checked_client

OLDEST = "2024-11-05"
LEGACY = "2025-11-25"
REVISIONS = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", MODERN]
TRANSPORTS = ["memory", "stdio"]
JSON = dict[str, Any]


@contextlib.asynccontextmanager
async def live_client(transport: str, revision: str, **options: Any) -> AsyncIterator[Client]:
    target = (
        load("live_middleware").build()
        if transport == "memory"
        else str(SERVERS / "live_middleware.py")
    )
    async with checked_client(target, revision, **options) as client:
        yield client
        assert client.checker.client_issues == []  # type: ignore[attr-defined]


async def trace(client: Client) -> list[str]:
    return (await client.call_tool("trace")).text.split("\n")


def around(method: str) -> list[str]:
    return [f"first>{method}", f"second>{method}", f"second<{method}", f"first<{method}"]


ENTER_CALL = ["first>tools/call", "second>tools/call"]
LEAVE_CALL = ["second<tools/call", "first<tools/call"]


# ---------------------------------------------------------------- order and reach


@pytest.mark.parametrize("revision", [LEGACY, MODERN])
@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_first_added_is_outermost_and_every_method_passes_through(
    transport: str, revision: str
) -> None:
    """Middleware wraps every request but initialize (server/discover, ping, logging/setLevel,
    tools/list, tools/call), never notifications; the first added is the outermost."""
    async with live_client(transport, revision, log_level="error") as client:
        handshake = await trace(client)
        if revision == MODERN:  # the client's server/discover went through the chain
            assert handshake == [*around("server/discover"), *ENTER_CALL]
        else:  # initialize and notifications/initialized never do; setLevel does
            assert handshake == [*around("logging/setLevel"), *ENTER_CALL]

        if revision != MODERN:
            await client.ping()
        await client.list_tools()
        assert (await client.call_tool("echo", {"text": "hi"})).text == "hi!"
        expected = [
            *LEAVE_CALL,  # the end of the previous trace call
            *(around("ping") if revision != MODERN else []),
            *around("tools/list"),
            *around("tools/call"),
            *ENTER_CALL,
        ]
        assert await trace(client) == expected


# ---------------------------------------------------------------- what a layer can do


@pytest.mark.parametrize("revision", [OLDEST, LEGACY, MODERN])
@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_a_layer_rewrites_answers_refuses_and_fails(transport: str, revision: str) -> None:
    """A layer reads call.tool_name/arguments and changes the arguments (new params or in
    place); it can answer without calling the tool; an RPCError it raises is the JSON-RPC
    error (JR-*); any other exception is a masked -32603 (its detail stays in the log)."""
    async with live_client(transport, revision) as client:
        assert (await client.call_tool("echo", {"text": "hi"})).text == "hi!"
        assert (await client.call_tool("greet", {})).text == "Hello, middleware"
        assert (await client.call_tool("greet", {"name": "Ada"})).text == "Hello, Ada"

        answered = await client.call_tool("lookup", {"key": "k"})
        assert (answered.text, answered.is_error) == ("cached k", False)

        with pytest.raises(ServerError) as refused:
            await client.call_tool("delete_all")
        assert (refused.value.code, refused.value.message) == (
            -32000,
            "Forbidden by policy: delete_all",
        )
        with pytest.raises(ServerError) as failed:
            await client.call_tool("broken")
        assert (failed.value.code, failed.value.message) == (-32603, "Internal error")
        assert "hunter2" not in repr(failed.value.data)

        # The server still serves after all that.
        assert [t["name"] for t in await client.list_tools()][:2] == ["trace", "echo"]


@pytest.mark.parametrize("revision", [LEGACY, MODERN])
@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_arguments_changed_in_place_when_the_client_sent_none(
    transport: str, revision: str
) -> None:
    """TL-16 (``arguments`` is optional): a layer that fills in an argument in place works
    even when the request had no ``arguments`` member at all."""
    modern = revision == MODERN
    async with open_peer(transport, "live_middleware", revision=revision) as peer:
        if not modern:
            await peer.initialize(revision)
        response = await peer.request("tools/call", {"name": "greet"}, modern=modern)
        assert response["result"]["content"] == [{"type": "text", "text": "Hello, middleware"}]


# ---------------------------------------------------------------- results stay per revision


@pytest.mark.parametrize(
    ("transport", "revision"),
    [*(("memory", revision) for revision in REVISIONS), ("stdio", OLDEST), ("stdio", MODERN)],
)
async def test_results_a_layer_changes_are_still_shaped_per_revision(
    transport: str, revision: str
) -> None:
    """Results are shaped for the revision after the middleware: structuredContent a layer adds
    reaches 2025-06-18 and later, and never a 2024-11-05 or 2025-03-26 client (TL-20,
    TL-21); a result a layer makes up is shaped too."""
    async with live_client(transport, revision) as client:
        stats = await client.call_tool("stats")
        assert stats.content == [{"type": "text", "text": "1 call"}]
        if revision >= "2025-06-18":
            assert stats.raw["structuredContent"] == {"calls": 1}
        else:
            assert "structuredContent" not in stats.raw
        if revision == MODERN:
            assert stats.raw["resultType"] == "complete"
        else:
            assert "resultType" not in stats.raw


async def test_a_layer_made_result_is_cut_down_for_an_old_revision() -> None:
    """Content a layer returns is shaped like a tool's: a resource_link becomes text before
    2025-06-18 and structuredContent that is not an object becomes text before 2026-07-28."""
    mcp = Server("t")

    @mcp.tool(structured_output=False)
    def docs() -> str:
        return "never called"

    @mcp.add_middleware
    async def answer(call: Call, call_next: CallNext) -> JSON:
        if call.method != "tools/call":
            return await call_next(call)
        return {
            "content": [{"type": "resource_link", "uri": "file:///guide.md", "name": "guide"}],
            "structuredContent": ["a", "list"],
        }

    async with checked_client(mcp, OLDEST) as client:
        result = await client.call_tool("docs")
        assert result.raw == {
            "content": [{"type": "text", "text": "Resource: guide <file:///guide.md>"}]
        }
    async with checked_client(mcp, LEGACY) as client:
        result = await client.call_tool("docs")
        assert result.raw == {
            "content": [{"type": "resource_link", "uri": "file:///guide.md", "name": "guide"}]
        }
    async with checked_client(mcp, MODERN) as client:
        result = await client.call_tool("docs")
        assert result.structured == ["a", "list"]


# ---------------------------------------------------------------- composition


async def test_layers_compose_in_order_and_the_decorator_returns_the_function() -> None:
    """Server(middleware=[a, b]) then add_middleware(c): a wraps b wraps c wraps the handler;
    each sees what the outer ones changed and what the inner ones returned."""
    events: list[str] = []

    def layer(tag: str) -> Any:
        async def mw(call: Call, call_next: CallNext) -> JSON:
            events.append(f"{tag}:{call.arguments.get('text')}")
            if call.tool_name == "echo":
                call.params = {
                    **call.params,
                    "arguments": {"text": f"{call.arguments['text']}{tag}"},
                }
            result = await call_next(call)
            return {**result, "content": [*result["content"], {"type": "text", "text": tag}]}

        return mw

    mcp = Server("t", middleware=[layer("a"), layer("b")])
    c = layer("c")
    assert mcp.add_middleware(c) is c

    @mcp.tool(structured_output=False)  # the layers add text blocks
    def echo(text: str) -> str:
        return text

    async with checked_client(mcp, LEGACY) as client:
        result = await client.call_tool("echo", {"text": "x"})
    assert events == ["a:x", "b:xa", "c:xab"]
    assert [block["text"] for block in result.content] == ["xabc", "c", "b", "a"]


async def test_a_tool_error_raised_by_a_layer_is_a_tool_result() -> None:
    """TL-24, TL-30: a layer that refuses a call the model should hear about (a rate limit)
    raises ToolError and the call ends as an isError result with exactly that text; outer
    layers see that result."""
    seen: list[Any] = []

    async def outer(call: Call, call_next: CallNext) -> JSON:
        result = await call_next(call)
        if call.method == "tools/call":
            seen.append(result.get("isError"))
        return result

    async def limit(call: Call, call_next: CallNext) -> JSON:
        if call.tool_name == "search":
            raise ToolError("Rate limit exceeded: retry in 5 s")
        return await call_next(call)

    mcp = Server("t", middleware=[outer, limit])

    @mcp.tool()
    def search(q: str) -> str:
        return q

    for revision in (OLDEST, MODERN):
        async with checked_client(mcp, revision) as client:
            result = await client.call_tool("search", {"q": "x"})
            assert result.is_error
            assert result.text == "Rate limit exceeded: retry in 5 s"
    assert seen == [True, True]


@pytest.mark.parametrize("revision", [LEGACY, MODERN])
async def test_an_asking_tool_passes_through_middleware_in_both_eras(revision: str) -> None:
    """MP-01, TL-37: on 2026-07-28 a layer sees the InputRequiredResult unchanged and then the
    retry with its inputResponses; on a legacy session the question is a server-to-client
    request that does not go through middleware, and the layer sees one call."""
    seen: list[tuple[str, Any, bool]] = []

    async def watch(call: Call, call_next: CallNext) -> JSON:
        result = await call_next(call)
        seen.append((call.method, result.get("resultType"), "inputResponses" in call.params))
        return result

    mcp = Server("t", middleware=[watch])

    @mcp.tool()
    async def confirm(ctx: Context) -> str:
        answer = await ctx.elicit("Proceed?", {"type": "object", "properties": {}})
        return answer.action

    async with checked_client(
        mcp, revision, elicitation_handler=lambda params: {"action": "accept", "content": {}}
    ) as client:
        assert (await client.call_tool("confirm")).text == "accept"
    calls = [entry for entry in seen if entry[0] == "tools/call"]
    if revision == MODERN:
        assert calls == [("tools/call", "input_required", False), ("tools/call", None, True)]
    else:
        assert calls == [("tools/call", None, False)]


async def test_rpc_error_from_a_layer_on_tools_list() -> None:
    """Middleware wraps tools/list too: a layer can refuse it with a JSON-RPC error."""

    async def deny(call: Call, call_next: CallNext) -> JSON:
        if call.method == "tools/list":
            raise RPCError(-32000, "Listing is disabled")
        return await call_next(call)

    mcp = Server("t", middleware=[deny])
    for revision in (LEGACY, MODERN):
        async with checked_client(mcp, revision) as client:
            with pytest.raises(ServerError) as info:
                await client.list_tools()
            assert (info.value.code, info.value.message) == (-32000, "Listing is disabled")
