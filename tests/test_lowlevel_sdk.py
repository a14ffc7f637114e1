"""The official SDK's low-level names on toolwire.lowlevel.Server: the 2.x ``on_*`` handlers
and their request context, the 1.x ``request_context`` and boilerplate, ``McpError``, and
the refusals that name toolwire's way (interop/test_lowlevel_sdk_styles.py runs whole
servers in both styles against the SDK itself)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
import pytest

from toolwire import ServerError, types
from toolwire.errors import ErrorData, MCPError, McpError, RPCError
from toolwire.lowlevel import (
    InitializationOptions,
    NotificationOptions,
    Server,
    ServerRequestContext,
    StreamableHTTPSessionManager,
)
from toolwire.lowlevel.stdio import stdio_server
from toolwire.server.compat.lowlevel_sdk import Params

from wire import checked_client

pytestmark = pytest.mark.timeout(60)
TIMEOUT = 20


def lifespan_server(**handlers: Any) -> Server[dict[str, str]]:
    @asynccontextmanager
    async def lifespan(server: Server[dict[str, str]]) -> AsyncIterator[dict[str, str]]:
        yield {"greeting": "hello"}

    async def list_tools(ctx: ServerRequestContext[dict[str, str]], params: Any) -> Any:
        return {"tools": [types.Tool(name="greet", inputSchema={"type": "object"})]}

    return Server("sdk2", lifespan=lifespan, on_list_tools=list_tools, **handlers)


@pytest.mark.parametrize("revision", ["2025-11-25", "2026-07-28"])
async def test_a_2x_call_handler_gets_the_context_and_the_params(revision: str) -> None:
    seen: list[Any] = []

    async def call_tool(ctx: ServerRequestContext[dict[str, str]], params: Any) -> Any:
        seen.append((ctx.method, ctx.protocol_version, ctx.request_id, ctx.request))
        await ctx.session.send_log_message(level="info", data="calling")
        text = f"{ctx.lifespan_context['greeting']} {params.arguments['name']}"
        return types.CallToolResult(content=[types.TextContent(text=text)])

    server = lifespan_server(on_call_tool=call_tool)
    with anyio.fail_after(TIMEOUT):
        async with checked_client(server, revision) as client:
            assert [tool["name"] for tool in await client.list_tools()] == ["greet"]
            result = await client.call_tool("greet", {"name": "Ada"})
    assert result.text == "hello Ada"
    method, version, request_id, http = seen[0]
    assert (method, version, http) == ("tools/call", revision, None)
    assert request_id is not None


async def test_a_2x_handler_raising_gives_a_json_rpc_error() -> None:
    async def call_tool(ctx: Any, params: Any) -> Any:
        if params.name == "refuse":
            raise MCPError(code=-32602, message="not here")
        if params.name == "expected":
            raise ValueError("a value the tool could not use")
        raise RuntimeError("secret connection string")

    server = lifespan_server(on_call_tool=call_tool)
    with anyio.fail_after(TIMEOUT):
        async with checked_client(server, "2025-11-25") as client:
            with pytest.raises(ServerError) as refused:
                await client.call_tool("refuse", {})
            assert (refused.value.code, refused.value.message) == (-32602, "not here")
            with pytest.raises(ServerError) as expected:
                await client.call_tool("expected", {})
            assert expected.value.code == -32603
            assert expected.value.message == "a value the tool could not use"
            with pytest.raises(ServerError) as masked:
                await client.call_tool("other", {})
            assert "secret" not in masked.value.message


async def test_a_2x_list_handler_pages_itself() -> None:
    names = ["a", "b", "c"]

    async def list_prompts(ctx: Any, params: Any) -> Any:
        start = int(params.cursor or 0)
        page: dict[str, Any] = {"prompts": [{"name": name} for name in names[start : start + 2]]}
        if start + 2 < len(names):
            page["nextCursor"] = str(start + 2)
        return page

    server = Server("paged", on_list_prompts=list_prompts)
    with anyio.fail_after(TIMEOUT):
        async with checked_client(server, "2025-11-25") as client:
            prompts = await client.list_prompts()
    assert [prompt["name"] for prompt in prompts] == names


def test_handlers_toolwire_does_not_serve_are_refused_with_the_alternative() -> None:
    async def handler(ctx: Any, params: Any) -> Any:
        return {}

    with pytest.raises(TypeError, match=r"on_subscriptions_listen.*resource_updated"):
        Server("s", on_subscriptions_listen=handler)
    with pytest.raises(TypeError, match=r"on_roots_list_changed.*on_roots_changed"):
        Server("s", on_roots_list_changed=handler)
    with pytest.raises(TypeError, match=r"on_ping.*answers ping itself"):
        Server("s", on_ping=handler)
    with pytest.raises(TypeError, match=r"'on_complete'.*did you mean 'on_completion'"):
        Server("s", on_complete=handler)
    with pytest.raises(TypeError, match=r"cache_hints.*list_ttl_ms"):
        Server("s", cache_hints={})
    with pytest.raises(TypeError, match=r"http_app"):
        StreamableHTTPSessionManager(app=Server("s"), json_response=True)


@pytest.mark.parametrize("style", ["1.x", "2.x"])
async def test_a_set_logging_level_handler_hears_the_level_the_client_chose(style: str) -> None:
    """``@server.set_logging_level()`` (1.x) and ``on_set_logging_level`` (2.x) are called
    with the level of ``logging/setLevel``; toolwire keeps to it for that client."""
    heard: list[Any] = []

    async def call_tool(ctx: Any, params: Any) -> Any:
        await ctx.session.send_log_message(level="info", data="quiet")
        await ctx.session.send_log_message(level="error", data="loud")
        return types.CallToolResult(content=[types.TextContent(text="logged")])

    if style == "2.x":

        async def set_level(ctx: ServerRequestContext[dict[str, str]], params: Any) -> Any:
            heard.append((params.level, ctx.method, ctx.lifespan_context["greeting"]))
            return {}

        server = lifespan_server(on_call_tool=call_tool, on_set_logging_level=set_level)
    else:
        server = lifespan_server(on_call_tool=call_tool)

        @server.set_logging_level()
        async def set_level_1x(level: str) -> None:
            context = server.request_context
            heard.append((level, context.method, context.lifespan_context["greeting"]))

    logs: list[Any] = []
    with anyio.fail_after(TIMEOUT):
        async with checked_client(
            server, "2025-11-25", log_level="warning", log_handler=logs.append
        ) as client:
            assert "logging" in client.server_capabilities
            assert (await client.call_tool("greet", {})).text == "logged"
    assert heard == [("warning", "logging/setLevel", "hello")]
    assert [log["data"] for log in logs] == ["loud"]


async def test_a_failing_set_logging_level_handler_is_a_json_rpc_error() -> None:
    server = Server("s")

    @server.set_logging_level()
    def refuse(level: str) -> None:
        raise ValueError(f"{level} is too chatty")

    with anyio.fail_after(TIMEOUT):
        with pytest.raises(ServerError) as refused:
            async with checked_client(server, "2025-11-25", log_level="debug"):
                pass
    assert (refused.value.code, refused.value.message) == (-32603, "debug is too chatty")


def test_run_takes_only_the_streams_of_stdio_server() -> None:
    with pytest.raises(TypeError, match=r"stdio_server\(\).*http_app"):
        Server("s").run(object(), object(), None)


async def test_stdio_server_takes_no_other_streams() -> None:
    with pytest.raises(TypeError, match="stdin and stdout"):
        async with stdio_server(stdin=object()):
            pass


def test_initialization_options_name_the_server() -> None:
    server = Server("s", version="1.0", instructions="Be brief")
    options = server.create_initialization_options(NotificationOptions(tools_changed=True))
    assert (options.server_name, options.server_version) == ("s", "1.0")
    assert options.instructions == "Be brief"
    assert server.get_capabilities(NotificationOptions(), {}) == options.capabilities
    with pytest.raises(TypeError, match=r"toolwire\.Extension"):
        server.get_capabilities(NotificationOptions(), {"x": {}})
    renamed = InitializationOptions(server_name="other", server_version="2.0", capabilities={})
    assert renamed.server_name == "other"


async def test_initialization_options_given_to_run_are_what_the_client_sees() -> None:
    from toolwire.server.compat.lowlevel_sdk import initialization

    server = Server("before", version="1.0")
    initialization(server, InitializationOptions(server_name="after", server_version="2.0"))
    async with checked_client(server, "2025-11-25") as client:
        assert client.server_info["name"] == "after"
        assert client.server_info["version"] == "2.0"


def test_request_context_outside_a_handler_is_a_lookup_error() -> None:
    with pytest.raises(LookupError, match="inside a handler"):
        _ = Server("s").request_context


async def test_the_1x_request_context_reaches_the_lifespan_and_mcp_error_is_an_is_error() -> None:
    @asynccontextmanager
    async def lifespan(server: Server) -> AsyncIterator[dict[str, str]]:
        yield {"db": "rows"}

    server = Server("sdk1", lifespan=lifespan)

    @server.list_tools()
    async def list_tools() -> list[types.Tool]:
        return [types.Tool(name="q", inputSchema={"type": "object"})]

    @server.call_tool()
    async def call_tool(name: str, arguments: dict[str, Any]) -> list[types.TextContent]:
        if arguments.get("fail"):
            raise McpError(ErrorData(code=-32602, message="bad query"))
        ctx = server.request_context
        return [types.TextContent(text=f"{ctx.lifespan_context['db']} {ctx.request_id}")]

    @server.read_resource()
    async def read_resource(uri: str) -> str:
        raise McpError(ErrorData(code=-32001, message="no such note", data={"uri": uri}))

    with anyio.fail_after(TIMEOUT):
        async with checked_client(server, "2025-11-25") as client:
            result = await client.call_tool("q", {})
            assert result.text.startswith("rows ")
            failed = await client.call_tool("q", {"fail": True})  # as the SDK 1.x does
            assert (failed.is_error, failed.text) == (True, "bad query")
            with pytest.raises(ServerError) as refused:
                await client.read_resource("note://a")
    assert (refused.value.code, refused.value.data) == (-32001, {"uri": "note://a"})


def test_mcp_error_takes_the_sdk_forms() -> None:
    one = McpError(ErrorData(code=-32602, message="m", data=[1]))
    two = MCPError(-32602, "m", [1])
    three = MCPError(code=-32602, message="m", data=[1])
    for error in (one, two, three):
        assert isinstance(error, RPCError)
        assert error.to_error() == {"code": -32602, "message": "m", "data": [1]}
        assert (error.error.code, error.error.message, str(error)) == (-32602, "m", "m")
    with pytest.raises(TypeError, match="ErrorData"):
        McpError("just a message")


def test_params_read_like_the_sdk_models() -> None:
    params = Params({"name": "t", "_meta": {"progressToken": 1}, "argument": {"name": "a"}})
    assert params.name == "t"
    assert params.meta.progress_token == 1
    assert params.argument.name == "a"
    assert params.arguments is None and params.cursor is None
    with pytest.raises(AttributeError, match="no field 'nme'"):
        _ = params.nme


async def test_a_1x_list_handler_taking_the_request_pages_itself() -> None:
    server = Server("paged-1x")
    names = ["a", "b", "c"]

    @server.list_tools()
    async def list_tools(request: Any) -> dict[str, Any]:
        assert request.method == "tools/list"
        start = int(request.params.cursor or 0)
        tools = [types.Tool(name=name, inputSchema={"type": "object"}) for name in names]
        after = str(start + 2) if start + 2 < len(names) else None
        return {"tools": tools[start : start + 2], "nextCursor": after}

    @server.list_resources()
    async def list_resources(request: Any) -> list[dict[str, str]]:
        return [{"uri": "note://a", "name": "a"}]

    with anyio.fail_after(TIMEOUT):
        async with checked_client(server, "2025-11-25") as client:
            assert [tool["name"] for tool in await client.list_tools()] == names
            assert [r["uri"] for r in await client.list_resources()] == ["note://a"]
            assert "resources" in client.server_capabilities
