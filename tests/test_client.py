"""The client over every transport: memory, stdio subprocess and Streamable HTTP (legacy
sessions and 2026-07-28), with structured results checked, the tool-list cache, cancellation
on timeout, session renewal after a 404, and the synchronous facade."""

from __future__ import annotations

import asyncio
import sys
import threading
from collections.abc import Iterator
from typing import Annotated, Any

import httpx
import orjson
import pytest
from pydantic import Field

from toolwire import ClientError, Context, Server, types
from toolwire.client import Client, SyncClient
from toolwire.lowlevel import Server as LowLevelServer

from http_server import serve_http
from mcp_spec import WireChecker
from wire import EXAMPLES

LEGACY = "2025-06-18"
MODERN = "2026-07-28"
REVISIONS = [LEGACY, MODERN]
TIMEOUT = 20.0

pytestmark = pytest.mark.timeout(60)


def build() -> tuple[Server, threading.Event]:
    """A small server; the event is set once its ``wait`` tool saw itself cancelled."""
    mcp = Server("client-tests")
    cancelled = threading.Event()

    @mcp.tool()
    def add(a: int, b: int) -> int:
        """Add two numbers."""
        return a + b

    @mcp.tool()
    async def wait() -> str:
        """Wait until cancelled."""
        try:
            await asyncio.Event().wait()  # nothing sets it
        except asyncio.CancelledError:
            cancelled.set()
            raise
        return "never"

    return mcp, cancelled


def lying_server() -> LowLevelServer:
    """Tools that declare an outputSchema and do not keep to it."""
    server = LowLevelServer("liar")
    output = {
        "type": "object",
        "properties": {"temperature": {"type": "number"}},
        "required": ["temperature"],
    }
    empty = {"type": "object"}

    @server.list_tools()
    async def list_tools() -> list[types.Tool]:
        return [
            types.Tool(name="honest", inputSchema=empty, outputSchema=output),
            types.Tool(name="liar", inputSchema=empty, outputSchema=output),
            types.Tool(name="silent", inputSchema=empty, outputSchema=output),
        ]

    @server.call_tool()
    async def call_tool(name: str, arguments: dict[str, Any]) -> Any:
        if name == "honest":
            return {"temperature": 21.5}
        if name == "liar":
            return {"temperature": "warm"}
        return [types.TextContent(type="text", text="no structure here")]

    return server


@pytest.fixture
def http_url() -> Iterator[tuple[str, threading.Event]]:
    mcp, cancelled = build()
    with serve_http(mcp) as url:
        yield url, cancelled


async def check_basics(client: Client) -> None:
    names = [tool["name"] for tool in await client.list_tools()]
    assert "add" in names
    result = await client.call_tool("add", {"a": 2, "b": 3})
    assert not result.is_error
    assert result.text == "5"


# ---------------------------------------------------------------- list and call


@pytest.mark.parametrize("revision", REVISIONS)
async def test_list_and_call_in_memory(revision: str) -> None:
    mcp, _ = build()
    async with asyncio.timeout(TIMEOUT), Client(mcp, protocol_version=revision) as client:
        assert client.protocol_version == revision
        await check_basics(client)
        assert (await client.call_tool("add", {"a": 1, "b": 1})).structured == {"result": 2}


@pytest.mark.parametrize("revision", REVISIONS)
async def test_list_and_call_over_stdio(revision: str) -> None:
    command = [sys.executable, str(EXAMPLES / "calculator.py")]
    async with asyncio.timeout(TIMEOUT), Client(command, protocol_version=revision) as client:
        names = [tool["name"] for tool in await client.list_tools()]
        assert "divide" in names
        assert (await client.call_tool("add", {"a": 2, "b": 3})).structured == {"result": 5}
        result = await client.call_tool("divide", {"a": 1, "b": 0})
        assert result.is_error and result.text == "Cannot divide by zero"


@pytest.mark.parametrize("revision", REVISIONS)
async def test_list_and_call_over_http(
    http_url: tuple[str, threading.Event], revision: str
) -> None:
    url, _ = http_url
    seen: list[tuple[str, bytes]] = []
    async with (
        asyncio.timeout(TIMEOUT),
        Client(url, protocol_version=revision, tap=lambda d, b: seen.append((d, b))) as client,
    ):
        assert client.protocol_version == revision
        await check_basics(client)
        transport: Any = client._transport
        if revision == LEGACY:
            await client.ping()
            assert transport.session_id is not None
            assert transport.protocol_version == LEGACY
        else:
            assert transport.session_id is None
    assert any(b'"tools/call"' in data for kind, data in seen if kind == "send")


async def test_http_json_only_endpoint() -> None:
    mcp, _ = build()
    with serve_http(mcp, json_response=True) as url:
        for revision in REVISIONS:
            async with asyncio.timeout(TIMEOUT), Client(url, protocol_version=revision) as client:
                await check_basics(client)


async def test_http_errors_do_not_hang() -> None:
    mcp, _ = build()
    with serve_http(mcp) as url:
        async with asyncio.timeout(TIMEOUT):
            with pytest.raises(ClientError):
                async with Client(url + "-nowhere"):
                    pass


# ---------------------------------------------------------------- structured results


@pytest.mark.parametrize("revision", REVISIONS)
async def test_structured_content_is_checked_in_memory(revision: str) -> None:
    async with (
        asyncio.timeout(TIMEOUT),
        Client(lying_server(), protocol_version=revision) as client,
    ):
        await check_lies(client)


@pytest.mark.parametrize("revision", REVISIONS)
async def test_structured_content_is_checked_over_http(revision: str) -> None:
    with serve_http(lying_server()) as url:
        async with asyncio.timeout(TIMEOUT), Client(url, protocol_version=revision) as client:
            await check_lies(client)


async def check_lies(client: Client) -> None:
    # the tool list is fetched first when the tool is unknown
    assert (await client.call_tool("honest")).structured == {"temperature": 21.5}
    with pytest.raises(ClientError, match=r"'liar'.*outputSchema"):
        await client.call_tool("liar")
    with pytest.raises(ClientError, match=r"'silent'.*no structuredContent"):
        await client.call_tool("silent")
    validators = dict(client._outputs._validators)
    assert set(validators) == {"honest", "liar"}
    await client.call_tool("honest")
    assert client._outputs._validators == validators  # compiled once per tool


# ---------------------------------------------------------------- the tool-list cache


def counting(client: Client) -> list[str]:
    """Methods the client sends, in order."""
    sent: list[str] = []
    original = client._request

    async def request(method: str, params: Any = None, timeout: Any = None, **options: Any) -> Any:
        sent.append(method)
        return await original(method, params, timeout, **options)

    client._request = request  # type: ignore[method-assign]
    return sent


def changes(client: Client) -> asyncio.Event:
    """Set whenever the client hears the tool list changed."""
    changed = asyncio.Event()
    original = client.invalidate_tools

    def invalidate() -> None:
        original()
        changed.set()

    client.invalidate_tools = invalidate  # type: ignore[method-assign]
    return changed


async def test_cache_is_cleared_by_list_changed_on_a_legacy_session() -> None:
    mcp, _ = build()
    async with (
        asyncio.timeout(TIMEOUT),
        Client(mcp, protocol_version=LEGACY, cache_tools=True) as c,
    ):
        sent = counting(c)
        changed = changes(c)
        first = await c.list_tools()
        assert await c.list_tools() == first
        assert sent == ["tools/list"]
        mcp.add_tool(lambda: "hi", name="hello")
        await changed.wait()
        assert "hello" in [t["name"] for t in await c.list_tools()]
        await c.list_tools(refresh=True)
        assert sent == ["tools/list"] * 3


async def test_cache_follows_ttl_and_listen_stream_when_modern() -> None:
    mcp, _ = build()
    async with (
        asyncio.timeout(TIMEOUT),
        Client(mcp, protocol_version=MODERN, cache_tools=True) as c,
    ):
        sent = counting(c)
        changed = changes(c)
        await c.list_tools()
        await c.list_tools()
        assert sent == ["tools/list"]  # within ttlMs
        assert c._tools_expiry is not None
        await c.listen()
        mcp.add_tool(lambda: "hi", name="hello")
        await changed.wait()
        assert "hello" in [t["name"] for t in await c.list_tools()]
        assert sent == ["tools/list", "tools/list"]


async def test_cache_over_http_legacy_get_stream() -> None:
    mcp, _ = build()
    with serve_http(mcp) as url:
        async with (
            asyncio.timeout(TIMEOUT),
            Client(url, protocol_version=LEGACY, cache_tools=True) as c,
        ):
            changed = changes(c)
            sent = counting(c)
            await c.list_tools()
            await c.list_tools()
            assert sent == ["tools/list"]
            mcp.add_tool(lambda: "hi", name="hello")  # announced on the GET stream
            await changed.wait()
            assert "hello" in [t["name"] for t in await c.list_tools()]
            assert sent == ["tools/list", "tools/list"]


async def test_without_cache_every_call_asks() -> None:
    mcp, _ = build()
    async with asyncio.timeout(TIMEOUT), Client(mcp, protocol_version=MODERN) as c:
        sent = counting(c)
        await c.list_tools()
        await c.list_tools()
        assert sent == ["tools/list", "tools/list"]


# ---------------------------------------------------------------- cancellation


async def wait_for(event: threading.Event) -> None:
    assert await asyncio.to_thread(event.wait, TIMEOUT), "the tool never saw the cancellation"


@pytest.mark.parametrize("revision", REVISIONS)
async def test_timeout_cancels_in_memory(revision: str) -> None:
    mcp, cancelled = build()
    async with asyncio.timeout(TIMEOUT), Client(mcp, protocol_version=revision) as client:
        with pytest.raises(ClientError, match="timed out"):
            await client.call_tool("wait", timeout=0.2)
        await wait_for(cancelled)


@pytest.mark.parametrize("revision", REVISIONS)
async def test_timeout_cancels_over_http(
    http_url: tuple[str, threading.Event], revision: str
) -> None:
    url, cancelled = http_url
    async with asyncio.timeout(TIMEOUT), Client(url, protocol_version=revision) as client:
        with pytest.raises(ClientError, match="timed out"):
            await client.call_tool("wait", timeout=0.3)
        await wait_for(cancelled)
        assert (await client.call_tool("add", {"a": 1, "b": 2})).text == "3"


# ---------------------------------------------------------------- a server slow to start

SLOW_START = """
import time
time.sleep(1.5)  # a server slow to start, as under npx or uvx fetching it
from toolwire import Server
mcp = Server("slow-start")

@mcp.tool()
def add(a: int, b: int) -> int:
    return a + b

mcp.run()
"""


@pytest.mark.parametrize("revision", [None, LEGACY])
async def test_connect_timeout_lets_a_slow_start_take_longer_than_a_call(
    tmp_path: Any, revision: str | None
) -> None:
    server = tmp_path / "slow.py"
    server.write_text(SLOW_START)
    command = [sys.executable, str(server)]
    async with asyncio.timeout(TIMEOUT):
        with pytest.raises(ClientError, match=r"timed out after 0\.5 s"):
            async with Client(command, protocol_version=revision, timeout=0.5):
                pass  # by default the handshake has the calls' deadline
        async with Client(
            command, protocol_version=revision, timeout=0.5, connect_timeout=TIMEOUT
        ) as client:
            assert client.server_info["name"] == "slow-start"
            assert (await client.call_tool("add", {"a": 1, "b": 2}, timeout=TIMEOUT)).text == "3"


async def test_a_proxy_with_a_short_call_timeout_waits_for_its_upstream_to_start(
    tmp_path: Any,
) -> None:
    server = tmp_path / "slow.py"
    server.write_text(SLOW_START)
    proxy = Server.proxy([sys.executable, str(server)], timeout=1.0)  # < the 1.5 s start
    async with asyncio.timeout(TIMEOUT), Client(proxy, protocol_version=LEGACY) as client:
        assert (await client.call_tool("add", {"a": 1, "b": 2})).text == "3"


# ---------------------------------------------------------------- session renewal


async def test_expired_session_is_renewed(http_url: tuple[str, threading.Event]) -> None:
    url, _ = http_url
    async with asyncio.timeout(TIMEOUT), Client(url, protocol_version=LEGACY) as client:
        transport: Any = client._transport
        old = transport.session_id
        async with httpx.AsyncClient() as http:  # end the session behind the client's back
            response = await http.delete(
                url, headers={"Mcp-Session-Id": old, "MCP-Protocol-Version": LEGACY}
            )
            assert response.status_code == 200
        assert (await client.call_tool("add", {"a": 2, "b": 2})).text == "4"
        assert transport.session_id not in (None, old)
        await check_basics(client)


# ---------------------------------------------------------------- the sync facade


def test_sync_client_in_memory() -> None:
    mcp, _ = build()
    with SyncClient(mcp, protocol_version=LEGACY) as client:
        assert client.protocol_version == LEGACY
        assert "add" in [tool["name"] for tool in client.list_tools()]
        assert client.call_tool("add", {"a": 4, "b": 5}).text == "9"
        client.ping()


def test_sync_client_over_http() -> None:
    mcp, _ = build()
    with serve_http(mcp) as url, SyncClient(url, timeout=TIMEOUT) as client:
        assert client.protocol_version == MODERN
        assert client.call_tool("add", {"a": 4, "b": 5}).structured == {"result": 9}
        with pytest.raises(ClientError):
            client.call_tool("wait", timeout=0.2)


def test_sync_client_reports_connection_failures() -> None:
    with pytest.raises(ClientError), SyncClient([sys.executable, "-c", "pass"], timeout=5):
        pass


# ---------------------------------------------------------------- mirrored headers


async def test_mirrored_parameters_become_headers_over_http() -> None:
    mcp = Server("headers")

    @mcp.tool()
    def weather(
        region: Annotated[str, Field(json_schema_extra={"x-mcp-header": "Region"})],
        days: Annotated[int, Field(json_schema_extra={"x-mcp-header": "Days"})] = 1,
        metric: Annotated[bool | None, Field(json_schema_extra={"x-mcp-header": "Metric"})] = None,
    ) -> str:
        """Forecast for a region."""
        return f"{region}:{days}:{metric}"

    with serve_http(mcp) as url:
        async with asyncio.timeout(TIMEOUT), Client(url, protocol_version=MODERN) as client:
            await client.list_tools()
            result = await client.call_tool("weather", {"region": "Zürich", "days": 3})
            assert result.text == "Zürich:3:None"
            result = await client.call_tool("weather", {"region": "eu", "metric": True})
            assert result.text == "eu:1:True"


@pytest.mark.parametrize(("revision", "method"), [(LEGACY, "ping"), (MODERN, "server/discover")])
async def test_ping_checks_the_server_in_either_era(revision: str, method: str) -> None:
    """2026-07-28 has no ``ping``: the client asks ``server/discover`` instead."""
    mcp, _ = build()
    checker = WireChecker(revision, strict_client=True)
    sent: list[str] = []

    def tap(direction: str, data: bytes) -> None:
        if direction == "send":
            sent.append(orjson.loads(data).get("method"))
            checker.client_sent(data)
        else:
            checker.server_sent(data)

    async with Client(mcp, protocol_version=revision, tap=tap) as client:
        before = len(sent)
        await asyncio.wait_for(client.ping(), TIMEOUT)
    assert sent[before:] == [method]
    assert checker.checked > 0


async def test_a_long_session_keeps_a_bounded_number_of_notifications() -> None:
    from toolwire.client.client import KEPT_NOTIFICATIONS

    mcp = Server("chatty")

    @mcp.tool()
    async def chatter(n: int, ctx: Context) -> str:
        """Log n messages."""
        for i in range(n):
            await ctx.info(f"message {i}")
        return "done"

    async with Client(mcp, log_level="info") as client:
        total = 2 * KEPT_NOTIFICATIONS + 10
        assert (await asyncio.wait_for(client.call_tool("chatter", {"n": total}), TIMEOUT)).text
        kept = client.notifications
        assert KEPT_NOTIFICATIONS <= len(kept) <= 2 * KEPT_NOTIFICATIONS
        assert kept[-1]["params"]["data"] == f"message {total - 1}"  # the newest are kept
