"""FastMCP 3's server surface on toolwire: ``ToolResult``, component versions, the
server-wide ``enable``/``disable`` switches, ``add_transform`` with ``PromptsAsTools`` and
``ResourcesAsTools``, and ``run_async`` (over HTTP here; over stdio in
tests/interop/test_fastmcp_style.py). Every message is schema-checked (``checked_client``).
"""

from __future__ import annotations

import asyncio
import base64
import json
import socket
from dataclasses import dataclass

import anyio
import pytest

from toolwire import (
    Client,
    Image,
    PromptsAsTools,
    RegistrationError,
    ResourcesAsTools,
    Server,
    ServerError,
    ToolResult,
)

from wire import checked_client

pytestmark = pytest.mark.timeout(30)
REVISIONS = ["2025-11-25", "2026-07-28"]
PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="
)


async def names(client: Client) -> list[str]:
    return [tool["name"] for tool in await client.list_tools()]


# ------------------------------------------------------------ ToolResult


@dataclass
class Rows:
    rows: int


def result_server() -> Server:
    mcp = Server("results")

    @mcp.tool()
    def full(rows: int) -> ToolResult:
        """Content, structured content and _meta."""
        return ToolResult(f"{rows} rows", {"rows": rows}, meta={"source": "db"})

    @mcp.tool()
    def structured_only(rows: int) -> ToolResult:
        """Only structured content (a dataclass): its JSON is the text."""
        return ToolResult(structured_content=Rows(rows))

    @mcp.tool()
    def blocks() -> ToolResult:
        """A list of blocks, an image among them."""
        return ToolResult(content=["one", Image(data=PNG), {"a": 1}])

    @mcp.tool()
    def failed() -> ToolResult:
        """An error result the tool builds itself."""
        return ToolResult("out of paper", is_error=True)

    return mcp


@pytest.mark.parametrize("revision", REVISIONS)
async def test_a_tool_result_is_sent_as_built(revision: str) -> None:
    mcp = result_server()
    async with checked_client(mcp, revision) as client:
        listed = {tool["name"]: tool for tool in await client.list_tools()}
        assert all("outputSchema" not in tool for tool in listed.values())
        full = await client.call_tool("full", {"rows": 3})
        assert full.text == "3 rows" and full.structured == {"rows": 3}
        assert full.raw["_meta"]["source"] == "db"
        only = await client.call_tool("structured_only", {"rows": 4})
        assert only.content == [{"type": "text", "text": '{"rows":4}'}]
        assert only.structured == {"rows": 4}
        blocks = (await client.call_tool("blocks")).content
        assert [block["type"] for block in blocks] == ["text", "image", "text"]
        assert blocks[2]["text"] == '{"a":1}'
        failed = await client.call_tool("failed")
        assert failed.is_error and failed.text == "out of paper"


def test_a_tool_result_refuses_what_it_cannot_send() -> None:
    with pytest.raises(ValueError, match="needs content, structured_content or both"):
        ToolResult()
    with pytest.raises(ValueError, match=r"must be an object .* \{\"result\": value\}"):
        ToolResult(structured_content=[1, 2])
    with pytest.raises(TypeError, match="meta must be a dict"):
        ToolResult("x", meta=["no"])  # type: ignore[arg-type]


# ------------------------------------------------------------ versions


def versioned() -> Server:
    mcp = Server("versions")

    @mcp.tool(name="convert", version="1.9")
    def convert_old(amount: float) -> str:
        return f"{amount} (1.9)"

    @mcp.tool(name="convert", version="1.10")
    def convert_new(amount: float) -> str:
        return f"{amount} (1.10)"

    @mcp.prompt(name="greet", version=1)
    def greet_one() -> str:
        return "hello 1"

    @mcp.prompt(name="greet", version=2)
    def greet_two() -> str:
        return "hello 2"

    return mcp


@pytest.mark.parametrize("revision", REVISIONS)
async def test_the_highest_enabled_version_is_served(revision: str) -> None:
    mcp = versioned()
    async with checked_client(mcp, revision) as client:
        tools = await client.list_tools()
        assert [tool["name"] for tool in tools] == ["convert"]
        assert tools[0]["_meta"] == {"fastmcp": {"version": "1.10"}}
        assert (await client.call_tool("convert", {"amount": 1})).text == "1.0 (1.10)"
        prompt = await client.get_prompt("greet")
        assert prompt.text == "hello 2"
        mcp.disable(keys={"tool:convert@1.10"})
        assert (await client.call_tool("convert", {"amount": 1})).text == "1.0 (1.9)"
        mcp.enable(keys="tool:convert@1.10")
        assert (await client.call_tool("convert", {"amount": 1})).text == "1.0 (1.10)"


def test_versions_are_checked() -> None:
    mcp = versioned()
    with pytest.raises(RegistrationError, match=r"'convert' with version '1\.9' is already"):
        mcp.add_tool(lambda amount: amount, name="convert", version="1.9")
    with pytest.raises(RegistrationError, match="'convert' is already registered"):
        mcp.add_tool(lambda amount: amount, name="convert")
    with pytest.raises(RegistrationError, match="without '@'"):
        mcp.add_tool(lambda: 1, name="other", version="1@2")
    with pytest.raises(RegistrationError, match="a string or a number"):
        mcp.add_tool(lambda: 1, name="other", version=[1])  # type: ignore[arg-type]


# ------------------------------------------------------------ enable / disable


def switched() -> Server:
    mcp = Server("switches")
    mcp.disable(tags={"admin"})  # before the tools: applies to them when they come

    @mcp.tool(tags={"admin"})
    def reset() -> str:
        return "reset"

    @mcp.tool(tags={"beta"})
    def preview() -> str:
        return "preview"

    @mcp.tool()
    def plain() -> str:
        return "plain"

    @mcp.resource("data://secret", tags={"admin"})
    def secret() -> str:
        return "secret"

    @mcp.prompt(tags={"admin"})
    def admin_prompt() -> str:
        return "admin"

    return mcp


@pytest.mark.parametrize("revision", REVISIONS)
async def test_switches_hide_and_show_every_kind(revision: str) -> None:
    mcp = switched()
    async with checked_client(mcp, revision) as client:
        assert await names(client) == ["preview", "plain"]
        assert await client.list_resources() == []
        assert await client.list_prompts() == []
        with pytest.raises(ServerError, match="Unknown tool: 'reset'"):  # unknown to calls
            await client.call_tool("reset")
        mcp.enable(names={"secret"})  # a resource by its name (or its URI)
        assert [r["uri"] for r in await client.list_resources()] == ["data://secret"]
        mcp.disable(names="data://secret")
        assert await client.list_resources() == []
        mcp.enable(tags={"admin"}, components={"prompt"})
        assert [p["name"] for p in await client.list_prompts()] == ["admin_prompt"]
        assert await names(client) == ["preview", "plain"]
        mcp.disable(names={"preview"})
        mcp.enable(names={"preview"})  # the later switch wins
        assert await names(client) == ["preview", "plain"]
        mcp.enable(tags={"beta"}, only=True)
        assert await names(client) == ["preview"]
        mcp.enable_tool("plain")  # one component, directly
        assert await names(client) == ["preview", "plain"]


def test_switches_refuse_what_they_do_not_know() -> None:
    mcp = switched()
    with pytest.raises(ValueError, match=r"Unknown component kind\(s\) \['tools'\]: use 'tool'"):
        mcp.disable(components={"tools"})
    with pytest.raises(TypeError, match=r"keys=\{'tool:name@1\.0'"):
        mcp.enable(version=object())
    assert mcp.disable(tags="admin") is mcp  # chainable, as in FastMCP


# ------------------------------------------------------------ prompts and resources as tools


def library() -> Server:
    mcp = Server("library")

    @mcp.prompt()
    def review(code: str, language: str = "python") -> str:
        """Review code."""
        return f"Review this {language} code: {code}"

    @mcp.resource("data://text", mime_type="text/plain")
    def text() -> str:
        return "some text"

    @mcp.resource("data://bytes", mime_type="application/octet-stream")
    def raw() -> bytes:
        return b"\x00\x01"

    @mcp.resource("user://{user_id}")
    def user(user_id: str) -> str:
        """A user."""
        return f"user {user_id}"

    mcp.add_transform(PromptsAsTools(mcp))
    mcp.add_transform(ResourcesAsTools(mcp))
    return mcp


@pytest.mark.parametrize("revision", REVISIONS)
async def test_prompts_and_resources_are_reached_through_tools(revision: str) -> None:
    async with checked_client(library(), revision) as client:
        tools = {tool["name"]: tool for tool in await client.list_tools()}
        assert list(tools) == ["list_prompts", "get_prompt", "list_resources", "read_resource"]
        assert tools["read_resource"]["annotations"] == {"readOnlyHint": True}
        prompts = json.loads((await client.call_tool("list_prompts")).text)
        assert prompts == [
            {
                "name": "review",
                "description": "Review code.",
                "arguments": [
                    {"name": "code", "description": None, "required": True},
                    {"name": "language", "description": None, "required": False},
                ],
            }
        ]
        got = await client.call_tool("get_prompt", {"name": "review", "arguments": {"code": "x"}})
        assert json.loads(got.text) == {
            "messages": [{"role": "user", "content": "Review this python code: x"}]
        }
        missing = await client.call_tool("get_prompt", {"name": "nope"})
        assert missing.is_error and "nope" in missing.text
        listing = json.loads((await client.call_tool("list_resources")).text)
        assert [item.get("uri") or item["uri_template"] for item in listing] == [
            "data://text",
            "data://bytes",
            "user://{user_id}",
        ]
        read = await client.call_tool("read_resource", {"uri": "data://bytes"})
        assert base64.b64decode(read.text) == b"\x00\x01"
        read = await client.call_tool("read_resource", {"uri": "user://7"})
        assert read.text == "user 7"


def test_add_transform_names_what_it_takes() -> None:
    mcp = Server("x")
    with pytest.raises(TypeError, match=r"PromptsAsTools\(mcp\) or ResourcesAsTools\(mcp\)"):
        mcp.add_transform(object())
    with pytest.raises(TypeError, match="the server whose prompts it serves"):
        PromptsAsTools(object())


# ------------------------------------------------------------ run_async


async def test_run_async_serves_http_until_cancelled() -> None:
    mcp = Server("async")

    @mcp.tool()
    def ping() -> str:
        return "pong"

    listening: asyncio.Future[str] = asyncio.get_running_loop().create_future()

    def on_listening(host: str, port: int) -> None:
        listening.set_result(f"http://{host}:{port}/mcp")

    with anyio.fail_after(20):
        serving = asyncio.create_task(
            mcp.run_async(transport="http", port=0, show_banner=False, on_listening=on_listening)
        )
        url = await listening
        async with checked_client(url, "2025-11-25") as client:
            assert (await client.call_tool("ping")).text == "pong"
        serving.cancel()
        with pytest.raises(asyncio.CancelledError):
            await serving
    host, port = url.split("/")[2].split(":")
    with pytest.raises(OSError):  # the port is closed: the server shut down
        socket.create_connection((host, int(port)), timeout=5).close()


async def test_run_async_refuses_unknown_transports() -> None:
    with pytest.raises(ValueError, match="use 'stdio', 'http' or 'streamable-http'"):
        await Server("x").run_async(transport="websocket")
    with pytest.raises(ValueError, match="use transport='streamable-http'"):
        await Server("x").run_async(transport="sse")


def test_tasks_extension_is_accepted_and_a_redis_url_is_refused_naming_the_store() -> None:
    from toolwire import FastMCP, TasksExtension

    mcp = FastMCP("tasks")
    mcp.add_extension(TasksExtension())
    mcp.add_extension(TasksExtension(url="memory://"))
    assert mcp.extensions == {}  # toolwire serves the Tasks extension itself
    with pytest.raises(TypeError, match=r"http_app\(store=RedisStore\('redis://h/0'\)\)"):
        TasksExtension(url="redis://h/0")
