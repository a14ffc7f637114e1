"""The official MCP Python SDK client (``mcp``, test-only dependency) over toolwire's HTTP.

``Client("http://127.0.0.1:PORT/mcp", mode=...)`` against a real uvicorn serving a toolwire
server in this process: ``mode="legacy"`` negotiates 2025-11-25 (an ``initialize`` handshake
and an ``Mcp-Session-Id``; elicitation is a server-to-client request on the call's stream),
``mode="auto"`` probes ``server/discover`` and speaks 2026-07-28 (stateless POSTs with mirrored
headers; elicitation is an ``InputRequiredResult`` the SDK answers and retries). The SDK's
transport is wrapped so each test also sees which messages crossed the wire.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Any

import anyio
import pytest
from mcp import Client, MCPError, types
from mcp.client.session import ClientRequestContext
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.message import SessionMessage
from pydantic import BaseModel, Field

from toolwire import Context, Server, ToolError

from http_server import serve_http

TEST_TIMEOUT = 30.0
REQUEST_TIMEOUT = 10.0
ERAS = {"legacy": "2025-11-25", "auto": "2026-07-28"}
JSON = dict[str, Any]


class Stats(BaseModel):
    """Summary statistics of a list of numbers."""

    count: int
    mean: float


SIGN_IN_URL = "https://id.example.com/authorize?session=42"
EXTRA = ("forecast", "sign_in")  # the tools of URL elicitation and sampling with tools


def weather(city: str) -> str:
    """The weather in a city."""
    return f"sunny in {city}"


class Confirm(BaseModel):
    confirm: bool = Field(description="Tick to go ahead")


def build(deleted: list[str]) -> Server:
    mcp = Server("Calculator", version="2.0.0")

    @mcp.tool(annotations={"readOnlyHint": True})
    def add(a: int, b: int) -> int:
        """Add two numbers together."""
        return a + b

    @mcp.tool()
    def describe(numbers: list[float]) -> Stats:
        """Compute summary statistics for a list of numbers."""
        return Stats(count=len(numbers), mean=sum(numbers) / len(numbers))

    @mcp.tool()
    def square_root(x: float) -> float:
        """Return the square root of x."""
        if x < 0:
            raise ToolError("Negative numbers have no real square root")
        return float(x**0.5)

    @mcp.tool()
    async def count(n: int, ctx: Context) -> str:
        """Count to n, reporting each step."""
        for step in range(1, n + 1):
            await ctx.report_progress(step, n, f"step {step}")
        return f"counted to {n}"

    @mcp.tool(annotations={"destructiveHint": True})
    async def delete_files(paths: list[str], ctx: Context) -> str:
        """Delete files once the user confirms."""
        answer = await ctx.elicit(f"Delete {len(paths)} files?", Confirm)
        if answer.action == "accept" and answer.data.confirm:
            deleted.extend(paths)
            return f"Deleted {len(paths)} files"
        return f"Kept the files ({answer.action})"

    @mcp.tool()
    async def forecast(city: str, ctx: Context) -> str:
        """Ask the client's model, offering it a weather tool."""
        answer = await ctx.sample(f"Weather in {city}?", tools=[weather], tool_choice="required")
        (call,) = answer.tool_calls
        return f"{call['name']}({call['input']['city']})"

    @mcp.tool()
    async def sign_in(ctx: Context) -> str:
        """Send the user to the identity provider's page."""
        answer = await ctx.elicit_url("Sign in to the billing service", SIGN_IN_URL)
        return f"sign-in {answer.action}"

    return mcp


@pytest.fixture
def deleted() -> list[str]:
    return []


@pytest.fixture
def url(deleted: list[str]) -> Iterator[str]:
    with serve_http(build(deleted)) as endpoint:
        yield endpoint


class _Inbound:
    """The transport's read stream, noting each message the server sent."""

    def __init__(self, inner: Any, seen: list[JSON]) -> None:
        self._inner = inner
        self._seen = seen

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    def _note(self, item: Any) -> Any:
        if isinstance(item, SessionMessage):
            self._seen.append(
                item.message.model_dump(by_alias=True, mode="json", exclude_unset=True)
            )
        return item

    async def receive(self) -> Any:
        return self._note(await self._inner.receive())

    def __aiter__(self) -> _Inbound:
        return self

    async def __anext__(self) -> Any:
        return self._note(await self._inner.__anext__())

    async def __aenter__(self) -> _Inbound:
        await self._inner.__aenter__()
        return self

    async def __aexit__(self, *exc_info: Any) -> Any:
        return await self._inner.__aexit__(*exc_info)


@asynccontextmanager
async def recorded(
    transport: AbstractAsyncContextManager[tuple[Any, Any]], seen: list[JSON]
) -> AsyncIterator[tuple[Any, Any]]:
    async with transport as (read_stream, write_stream):
        yield _Inbound(read_stream, seen), write_stream


@asynccontextmanager
async def connect(
    url: str, mode: str, seen: list[JSON] | None = None, **options: Any
) -> AsyncIterator[Client]:
    transport = recorded(streamable_http_client(url), seen if seen is not None else [])
    async with Client(
        transport, mode=mode, read_timeout_seconds=REQUEST_TIMEOUT, **options
    ) as client:
        assert client.protocol_version == ERAS[mode]
        yield client


def text(result: types.CallToolResult) -> str:
    (block,) = result.content
    assert isinstance(block, types.TextContent), block
    return block.text


@pytest.fixture(params=list(ERAS))
def mode(request: pytest.FixtureRequest) -> str:
    return str(request.param)


async def test_lists_and_calls_tools(url: str, mode: str) -> None:
    seen: list[JSON] = []
    with anyio.fail_after(TEST_TIMEOUT):
        async with connect(url, mode, seen) as client:
            listing = await client.list_tools()
            tools = {tool.name: tool for tool in listing.tools}
            assert set(tools) == {"add", "describe", "square_root", "count", "delete_files", *EXTRA}
            assert tools["add"].description == "Add two numbers together."
            assert tools["add"].input_schema["required"] == ["a", "b"]
            assert tools["add"].annotations is not None and tools["add"].annotations.read_only_hint
            assert tools["describe"].output_schema is not None

            added = await client.call_tool("add", {"a": 2, "b": 40})
            assert not added.is_error
            assert text(added) == "42"
            assert added.structured_content == {"result": 42}

            stats = await client.call_tool("describe", {"numbers": [1, 2, 6]})
            assert stats.structured_content == {"count": 3, "mean": 3.0}

            failed = await client.call_tool("square_root", {"x": -1})
            assert failed.is_error
            assert text(failed) == "Negative numbers have no real square root"

    results = [m["result"] for m in seen if "result" in m]
    assert results
    if mode == "legacy":  # the InitializeResult first, then results without 2026 keys
        assert results[0]["protocolVersion"] == "2025-11-25"
        assert all("resultType" not in r for r in results)
    else:  # server/discover first, every result complete and stateless
        assert "2026-07-28" in results[0]["supportedVersions"]
        assert all(r.get("resultType") == "complete" for r in results), results


async def test_unknown_tool_is_a_protocol_error(url: str, mode: str) -> None:
    with anyio.fail_after(TEST_TIMEOUT):
        async with connect(url, mode) as client:
            await client.list_tools()
            with pytest.raises(MCPError) as caught:
                await client.call_tool("ad", {"a": 1, "b": 1})
            assert caught.value.code == -32602
            assert "add" in caught.value.message
            # the client and the server both carry on
            assert text(await client.call_tool("add", {"a": 1, "b": 1})) == "2"


async def test_progress_reaches_the_sdk_callback(url: str, mode: str) -> None:
    progress: list[tuple[float, float | None, str | None]] = []

    async def on_progress(value: float, total: float | None, message: str | None) -> None:
        progress.append((value, total, message))

    with anyio.fail_after(TEST_TIMEOUT):
        async with connect(url, mode) as client:
            result = await client.call_tool("count", {"n": 3}, progress_callback=on_progress)
            assert text(result) == "counted to 3"
    assert progress == [(n, 3, f"step {n}") for n in (1, 2, 3)]


@pytest.mark.parametrize("action", ["accept", "decline"])
async def test_elicitation_reaches_the_sdk_callback(
    url: str, mode: str, action: str, deleted: list[str]
) -> None:
    """Legacy: an elicitation/create request on the call's stream; 2026-07-28: an
    InputRequiredResult the SDK answers with a retry. Either way the callback decides."""
    questions: list[types.ElicitRequestParams] = []

    async def on_elicit(
        context: ClientRequestContext, params: types.ElicitRequestParams
    ) -> types.ElicitResult:
        questions.append(params)
        if action == "accept":
            return types.ElicitResult(action="accept", content={"confirm": True})
        return types.ElicitResult(action="decline")

    seen: list[JSON] = []
    with anyio.fail_after(TEST_TIMEOUT):
        async with connect(url, mode, seen, elicitation_callback=on_elicit) as client:
            result = await client.call_tool("delete_files", {"paths": ["a.txt", "b.txt"]})
            assert not result.is_error, result
            expected = "Deleted 2 files" if action == "accept" else "Kept the files (decline)"
            assert text(result) == expected

    (question,) = questions
    assert question.message == "Delete 2 files?"
    assert deleted == (["a.txt", "b.txt"] if action == "accept" else [])
    server_requests = [m["method"] for m in seen if "method" in m and "id" in m]
    input_required = [m for m in seen if m.get("result", {}).get("resultType") == "input_required"]
    if mode == "legacy":
        assert server_requests == ["elicitation/create"]
        assert input_required == []
    else:
        assert server_requests == []  # servers never send requests on 2026-07-28
        assert len(input_required) == 1


async def test_url_elicitation_reaches_the_sdk_callback(url: str, mode: str) -> None:
    """The SDK declares URL elicitation; the callback gets the URL and the person's answer
    goes back (an elicitation/create request on legacy sessions, an input request on
    2026-07-28)."""
    questions: list[Any] = []

    async def on_elicit(context: ClientRequestContext, params: Any) -> types.ElicitResult:
        questions.append(params)
        return types.ElicitResult(action="accept")

    with anyio.fail_after(TEST_TIMEOUT):
        async with connect(url, mode, elicitation_callback=on_elicit) as client:
            result = await client.call_tool("sign_in", {})
            assert text(result) == "sign-in accept"
    (question,) = questions
    assert (question.mode, question.url) == ("url", SIGN_IN_URL)
    assert question.message == "Sign in to the billing service"
    assert (getattr(question, "elicitation_id", None) is not None) == (mode == "legacy")


async def test_sampling_with_tools_reaches_the_sdk_callback(url: str, mode: str) -> None:
    """The SDK declares sampling.tools; its callback sees the offered tool and answers with
    a tool_use block, which the server's tool reads from ``result.tool_calls``."""
    offered: list[Any] = []

    async def on_sample(context: ClientRequestContext, params: Any) -> Any:
        offered.append(params)
        use = types.ToolUseContent(type="tool_use", id="u1", name="weather", input={"city": "Rome"})
        return types.CreateMessageResultWithTools(
            role="assistant", content=[use], model="test-model", stop_reason="toolUse"
        )

    capabilities = types.SamplingCapability(tools=types.SamplingToolsCapability())
    with anyio.fail_after(TEST_TIMEOUT):
        async with connect(
            url, mode, sampling_callback=on_sample, sampling_capabilities=capabilities
        ) as client:
            result = await client.call_tool("forecast", {"city": "Rome"})
            assert text(result) == "weather(Rome)"
    (params,) = offered
    assert [tool.name for tool in params.tools] == ["weather"]
    assert params.tool_choice.mode == "required"
