"""The ready-made middleware of ``toolwire.middleware`` over a real uvicorn, both eras.

``ResultSizeCap``: long text cut with a marker; ``structuredContent`` shrunk only while it
keeps its output schema (the client checks it against the listed ``outputSchema``), else
an ``isError`` result; ``mode="error"``. ``ResultCache``: read-only idempotent tools only,
per caller (legacy sessions apart), never errors, nothing cached when no caller is known.
``Metrics``: calls, ``isError`` results, JSON-RPC errors and durations per tool, as a dict
and as Prometheus text. Every message is schema-checked (``checked_client``).
"""

from __future__ import annotations

import re
from typing import Annotated, Any

import orjson
import pytest
from pydantic import BaseModel, Field

from toolwire import Image, Server, ToolError
from toolwire.errors import ServerError
from toolwire.middleware import Metrics, ResultCache, ResultSizeCap

from http_server import serve_http
from wire import checked_client

pytestmark = pytest.mark.timeout(30)

ERAS = ["2025-11-25", "2026-07-28"]
CAP = 1_000


class Page(BaseModel):
    items: list[str]
    total: int


class Strict(BaseModel):
    items: Annotated[list[str], Field(min_length=100)]


def build(*layers: Any) -> tuple[Server, dict[str, int]]:
    mcp = Server("ready")
    runs = {"lookup": 0, "plain": 0, "failing": 0}
    for layer in layers:
        mcp.add_middleware(layer)

    @mcp.tool()
    def long_text() -> str:
        """A long text."""
        return "é" * 3_000

    @mcp.tool()
    def page() -> Page:
        """Many items."""
        return Page(items=[f"item {i}" for i in range(300)], total=300)

    @mcp.tool()
    def strict() -> Strict:
        """Items that must stay at least 100."""
        return Strict(items=[f"item {i}" for i in range(300)])

    @mcp.tool()
    def picture() -> Image:
        """An image too large to cut."""
        return Image(data=b"\x89PNG" * 1_000, format="png")

    @mcp.tool(annotations={"readOnlyHint": True, "idempotentHint": True})
    def lookup(q: str, n: int = 1) -> str:
        """Cached."""
        runs["lookup"] += 1
        return f"{q}{n}:{runs['lookup']}"

    @mcp.tool(annotations={"readOnlyHint": True})
    def plain(q: str) -> str:
        """Read-only but not idempotent: never cached."""
        runs["plain"] += 1
        return f"{q}:{runs['plain']}"

    @mcp.tool(annotations={"readOnlyHint": True, "idempotentHint": True})
    def failing() -> str:
        """An error is never cached."""
        runs["failing"] += 1
        raise ToolError(f"failed {runs['failing']}")

    return mcp, runs


def body_size(result: Any) -> int:
    raw = {k: v for k, v in result.raw.items() if k in ("content", "structuredContent", "isError")}
    return len(orjson.dumps(raw))


@pytest.mark.parametrize("revision", ERAS)
async def test_size_cap_truncates_text_and_keeps_structured_content_valid(revision: str) -> None:
    mcp, _ = build(ResultSizeCap(CAP))
    with serve_http(mcp) as url:
        async with checked_client(url, revision) as client:
            await client.list_tools()  # the client checks structuredContent against these
            text = await client.call_tool("long_text", {})
            page = await client.call_tool("page", {})
            strict = await client.call_tool("strict", {})
            picture = await client.call_tool("picture", {})
    assert not text.is_error and body_size(text) <= CAP
    assert re.search(r"\[… truncated by the server: \d+ of 3000 characters shown\]$", text.text)
    assert text.text.startswith("éé")
    assert not page.is_error and body_size(page) <= CAP
    assert 0 < len(page.structured["items"]) < 300 and page.structured["total"] == 300
    assert page.structured["items"] == [f"item {i}" for i in range(len(page.structured["items"]))]
    assert "truncated by the server" in page.content[0]["text"]
    for refused in (strict, picture):  # no smaller valid form: a clear error instead
        assert refused.is_error
        assert "over this server's limit of 1000 bytes" in refused.text


@pytest.mark.parametrize("revision", ERAS)
async def test_size_cap_in_error_mode(revision: str) -> None:
    mcp, _ = build(ResultSizeCap(CAP, mode="error"))
    with serve_http(mcp) as url:
        async with checked_client(url, revision) as client:
            result = await client.call_tool("long_text", {})
            small = await client.call_tool("lookup", {"q": "x"})
    assert result.is_error and "'long_text' was 12" in result.text  # text and {"result": text}
    assert not small.is_error


@pytest.mark.parametrize("revision", ["2025-11-25", "2025-06-18"])
async def test_result_cache_per_legacy_session(revision: str) -> None:
    cache = ResultCache(ttl=60)
    mcp, runs = build(cache)
    with serve_http(mcp) as url:
        async with checked_client(url, revision) as one, checked_client(url, revision) as two:
            first = (await one.call_tool("lookup", {"q": "a", "n": 1})).text
            assert (await one.call_tool("lookup", {"n": 1, "q": "a"})).text == first  # canonical
            assert (await one.call_tool("lookup", {"q": "a", "n": 2})).text != first
            assert (await two.call_tool("lookup", {"q": "a", "n": 1})).text != first  # per caller
            assert (await one.call_tool("plain", {"q": "a"})).text == "a:1"
            assert (await one.call_tool("plain", {"q": "a"})).text == "a:2"  # not idempotent
            assert (await one.call_tool("failing", {})).text == "failed 1"
            assert (await one.call_tool("failing", {})).text == "failed 2"  # errors not kept
    assert runs["lookup"] == 3
    assert (cache.hits, cache.misses) == (1, 5)


async def test_result_cache_without_a_caller_calls_the_tool() -> None:
    mcp, runs = build(ResultCache(ttl=60))
    with serve_http(mcp) as url:
        async with checked_client(url, "2026-07-28") as client:
            one = await client.call_tool("lookup", {"q": "a"})
            two = await client.call_tool("lookup", {"q": "a"})
    assert not one.is_error and one.text != two.text and runs["lookup"] == 2


@pytest.mark.parametrize("revision", ERAS)
async def test_metrics_count_calls_errors_and_durations(revision: str) -> None:
    metrics = Metrics()
    mcp, _ = build(metrics)
    with serve_http(mcp) as url:
        async with checked_client(url, revision) as client:
            for q in ("a", "b"):
                await client.call_tool("lookup", {"q": q})
            await client.call_tool("failing", {})
            with pytest.raises(ServerError):
                await client.call_tool("no_such_tool", {})
    tools = metrics.snapshot()["tools"]
    assert tools["lookup"]["calls"] == 2 and tools["lookup"]["errors"] == 0
    assert tools["lookup"]["duration"]["count"] == 2
    assert tools["lookup"]["duration"]["buckets"]["+Inf"] == 2
    assert 0 < tools["lookup"]["duration"]["sum"] < 10
    assert tools["failing"]["errors"] == 1 and tools["failing"]["failures"] == 0
    assert tools["no_such_tool"]["failures"] == 1
    text = metrics.prometheus()
    assert 'toolwire_tool_calls_total{tool="lookup"} 2' in text
    assert 'toolwire_tool_errors_total{tool="failing",kind="result"} 1' in text
    assert 'toolwire_tool_errors_total{tool="no_such_tool",kind="protocol"} 1' in text
    assert 'toolwire_tool_duration_seconds_count{tool="lookup"} 2' in text
    assert "# TYPE toolwire_tool_duration_seconds histogram" in text
    sample = re.compile(r'^[a-z_]+(\{([a-z_]+="[^"]*",?)+\})? [0-9.e+-]+$')
    for line in text.splitlines():
        assert line.startswith("# ") or sample.match(line), line
