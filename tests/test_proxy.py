"""``Server.proxy`` and ``toolwire proxy``: another MCP server served through toolwire.

Real processes throughout: a proxy served by uvicorn in front of a stdio upstream, and a
``toolwire proxy`` stdio subprocess in front of an HTTP upstream; every message the proxy
sends downstream (and, where noted, upstream) is checked against the JSON Schema of the
negotiated revision.
"""

from __future__ import annotations

import asyncio
import contextlib
import runpy
import socket
import sys
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from toolwire import Client, Server
from toolwire.errors import ServerError

from http_server import bound_socket as bound
from http_server import serve_http, uvicorn_on
from mcp_spec import WireChecker
from wire import EXAMPLES, MODERN, SERVERS, checked_client

pytestmark = pytest.mark.timeout(60)

UPSTREAM = [sys.executable, str(SERVERS / "proxy_upstream.py")]
DOWNSTREAM = ["2025-06-18", MODERN, "2024-11-05"]
UPSTREAM_ERAS = ["2025-11-25", MODERN]


def person(params: dict[str, Any]) -> dict[str, Any]:
    return {"action": "accept", "content": {"name": "Ada"}}


def model(params: dict[str, Any]) -> dict[str, Any]:
    return {"role": "assistant", "content": {"type": "text", "text": "hi"}, "model": "m"}


def upstream_checker() -> tuple[WireChecker, Callable[[str, bytes], None]]:
    checker = WireChecker()

    def tap(direction: str, data: bytes) -> None:
        (checker.client_sent if direction == "send" else checker.server_sent)(data)

    return checker, tap


def waiter(client: Client, method: str) -> asyncio.Event:
    """An event set when ``client`` receives the notification ``method``."""
    seen = asyncio.Event()
    receive = client._notification

    async def spy(message: dict[str, Any]) -> None:
        await receive(message)
        if message.get("method") == method:
            seen.set()

    client._notification = spy  # type: ignore[method-assign]
    return seen


@pytest.mark.parametrize("revision", DOWNSTREAM)
async def test_http_proxy_of_the_calculator(revision: str) -> None:
    proxy = Server.proxy([sys.executable, str(EXAMPLES / "calculator.py")])
    with serve_http(proxy) as url:
        async with checked_client(url, revision) as client:
            tools = await client.list_tools()
            assert "add" in [tool["name"] for tool in tools]
            for a in range(3):
                result = await client.call_tool("add", {"a": a, "b": 3})
                assert result.text == f"{a + 3}.0"
            assert client.protocol_version == revision
    assert proxy.upstream_handshakes == 1  # one session, one upstream connection


@pytest.mark.parametrize("upstream_era", UPSTREAM_ERAS)
@pytest.mark.parametrize("revision", DOWNSTREAM[:2])
async def test_what_crosses_the_proxy(revision: str, upstream_era: str) -> None:
    checker, tap = upstream_checker()
    proxy = Server.proxy(UPSTREAM, protocol_version=upstream_era, tap=tap)
    logs: list[dict[str, Any]] = []
    progress: list[tuple[Any, ...]] = []
    with serve_http(proxy) as url:
        async with checked_client(
            url,
            revision,
            elicitation_handler=person,
            sampling_handler=model,
            log_handler=logs.append,
            log_level="debug",
        ) as client:
            result = await client.call_tool(
                "steps", {"count": 2}, progress=lambda *values: progress.append(values)
            )
            assert result.text == "2 steps"
            assert progress == [(1, 2, "step 1 of 2"), (2, 2, "step 2 of 2")]
            assert [log["data"] for log in logs] == ["step 1", "step 2"]
            assert (await client.call_tool("greet")).text == "Hello Ada"
            assert (await client.call_tool("think")).text == "model said: hi"
            failed = await client.call_tool("fail")
            assert failed.is_error and failed.text == "it failed"
            with pytest.raises(ServerError) as unknown:
                await client.call_tool("nope")
            assert unknown.value.code == -32602 and "Unknown tool: 'nope'" in unknown.value.message
            resources = await client.list_resources()
            assert [r["uri"] for r in resources] == ["notes://first"]
            assert (await client.read_resource("notes://first")).text == "first note"
            prompt = await client.get_prompt("summarize", {"text": "x"})
            assert prompt.messages[0]["content"]["text"] == "Summarize: x"
    assert proxy.upstream_handshakes == 1
    assert checker.checked > 0 and checker.revision == upstream_era


@pytest.mark.parametrize("revision", DOWNSTREAM[:2])
async def test_cancellation_reaches_the_upstream(revision: str) -> None:
    proxy = Server.proxy(UPSTREAM)
    with serve_http(proxy) as url:
        async with checked_client(url, revision) as client:
            started = asyncio.Event()
            call = asyncio.ensure_future(
                client.call_tool("wait_forever", progress=lambda *values: started.set())
            )
            await asyncio.wait_for(started.wait(), 15)
            call.cancel()
            with pytest.raises(asyncio.CancelledError):
                await call
            assert (await client.call_tool("was_cancelled")).structured == {"result": True}


async def test_list_changes_are_forwarded() -> None:
    proxy = Server.proxy(UPSTREAM)
    with serve_http(proxy) as url:
        async with checked_client(url, "2025-06-18") as client:
            assert "grown" not in [tool["name"] for tool in await client.list_tools()]
            changed = waiter(client, "notifications/tools/list_changed")
            await client.call_tool("grow")
            await asyncio.wait_for(changed.wait(), 15)
            assert "grown" in [tool["name"] for tool in await client.list_tools()]
            assert (await client.call_tool("grown")).text == "new"


async def test_modern_list_changes_reach_listen_streams() -> None:
    proxy = Server.proxy(UPSTREAM, shared=True)
    with serve_http(proxy) as url:
        async with checked_client(url, MODERN) as client:
            await client.list_tools()
            changed = waiter(client, "notifications/tools/list_changed")
            await client.listen(tools_list_changed=True)
            await client.call_tool("grow")
            await asyncio.wait_for(changed.wait(), 15)
            assert "grown" in [tool["name"] for tool in await client.list_tools()]


async def test_one_upstream_connection_per_session_or_for_all() -> None:
    proxy = Server.proxy(UPSTREAM, shared=False)
    with serve_http(proxy) as url:
        for _ in range(2):
            async with checked_client(url, "2025-06-18") as client:
                for a in range(3):
                    assert (await client.call_tool("add", {"a": a, "b": 1})).text == str(a + 1)
        assert proxy.upstream_handshakes == 2  # one per downstream session
        async with checked_client(url, MODERN) as client:  # 2026-07-28: no sessions
            for a in range(3):
                assert (await client.call_tool("add", {"a": a, "b": 1})).text == str(a + 1)
        assert proxy.upstream_handshakes == 3  # one shared by every modern request
    shared = Server.proxy(UPSTREAM, shared=True)
    with serve_http(shared) as url:
        for revision in ("2025-06-18", "2024-11-05", MODERN):
            async with checked_client(url, revision) as client:
                assert (await client.call_tool("add", {"a": 1, "b": 1})).text == "2"
    assert shared.upstream_handshakes == 1


@pytest.mark.parametrize("revision", DOWNSTREAM[:2])
async def test_a_crashed_upstream_gives_an_error_then_reconnects(revision: str) -> None:
    proxy = Server.proxy(UPSTREAM)
    with serve_http(proxy) as url:
        async with checked_client(url, revision) as client:
            with pytest.raises(ServerError) as crashed:
                await client.call_tool("crash")
            assert crashed.value.code == -32603
            assert "upstream server is unavailable" in crashed.value.message
            assert (await client.call_tool("add", {"a": 1, "b": 2})).text == "3"
    assert proxy.upstream_handshakes == 2


@pytest.mark.parametrize("revision", ["2025-06-18", MODERN])
async def test_stdio_proxy_of_an_http_server(revision: str) -> None:
    upstream = runpy.run_path(str(SERVERS / "proxy_upstream.py"))["mcp"]
    with serve_http(upstream) as url:
        command = [sys.executable, "-m", "toolwire", "proxy", url]
        progress: list[tuple[Any, ...]] = []
        async with checked_client(command, revision, elicitation_handler=person) as client:
            assert "steps" in [tool["name"] for tool in await client.list_tools()]
            result = await client.call_tool(
                "steps", {"count": 3}, progress=lambda *values: progress.append(values)
            )
            assert result.text == "3 steps" and len(progress) == 3
            assert (await client.call_tool("greet")).text == "Hello Ada"
            assert (await client.call_tool("add", {"a": 2, "b": 2})).structured == {"result": 4}


async def test_proxy_of_a_client_reuses_its_options() -> None:
    upstream = runpy.run_path(str(SERVERS / "proxy_upstream.py"))["mcp"]
    with serve_http(upstream) as url:
        proxy = Server.proxy(Client(url, protocol_version="2025-06-18", headers={"X-Key": "k"}))
        async with checked_client(proxy, MODERN) as client:
            assert (await client.call_tool("add", {"a": 2, "b": 2})).text == "4"


@pytest.mark.parametrize("revision", ["2025-06-18", MODERN])
async def test_cli_serves_a_stdio_server_over_http(revision: str) -> None:
    upstream = f"{sys.executable} {EXAMPLES / 'calculator.py'}"
    process = await asyncio.create_subprocess_exec(
        *[sys.executable, "-m", "toolwire", "proxy", "--command", upstream],
        *["--transport", "http", "--port", "0"],
        stdin=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.PIPE,
    )
    try:
        assert process.stderr is not None
        line = await asyncio.wait_for(process.stderr.readline(), 30)
        assert b"over Streamable HTTP at " in line, line
        url = line.decode().split(" at ")[-1].strip()
        async with checked_client(url, revision) as client:
            assert (await client.call_tool("add", {"a": 1, "b": 2})).text == "3.0"
    finally:
        process.terminate()
        await asyncio.wait_for(process.wait(), 15)


async def test_extensions_and_other_methods_pass_through() -> None:
    proxy = Server.proxy([sys.executable, str(EXAMPLES / "counters_extension.py")])
    extension = "com.example/counters"
    extra = {"extension_methods": ("counters/increment", "counters/list")}
    with serve_http(proxy) as url:
        async with checked_client(url, MODERN, extensions={extension: {}}, **extra) as client:
            assert client.server_extensions[extension] == {"maxCounters": 100}
            counted = await client.request("counters/increment", {"name": "visits", "by": 2})
            assert (counted["name"], counted["value"]) == ("visits", 2)
            with pytest.raises(ServerError) as unknown:
                await client.request("no/such/method")
            assert unknown.value.code == -32601
        async with checked_client(url, MODERN, **extra) as client:  # not declared: refused
            with pytest.raises(ServerError) as refused:
                await client.request("counters/increment", {"name": "visits"})
            assert refused.value.code == -32021
            assert (await client.request("counters/list"))["counters"] == {"visits": 2}


@contextlib.contextmanager
def upstream_on(sock: socket.socket) -> Iterator[None]:
    """A fresh upstream server (over HTTP) on a bound socket, until the block ends."""
    app = runpy.run_path(str(SERVERS / "proxy_upstream.py"))["mcp"].http_app("/mcp")
    with uvicorn_on(app, sock):
        yield


@pytest.mark.parametrize("upstream_era", UPSTREAM_ERAS)
async def test_an_http_upstream_that_went_away_gives_an_error_then_serves_again(
    upstream_era: str,
) -> None:
    sock = bound()
    port = sock.getsockname()[1]
    url = f"http://127.0.0.1:{port}/mcp"
    proxy = Server.proxy(url, shared=True, protocol_version=upstream_era, timeout=10)
    async with checked_client(proxy, "2025-06-18") as client:
        with upstream_on(sock):
            assert (await client.call_tool("add", {"a": 1, "b": 2})).text == "3"
        with pytest.raises(ServerError) as gone:
            await client.call_tool("add", {"a": 1, "b": 2})
        assert gone.value.code == -32603
        assert gone.value.message.startswith("The upstream server is unavailable: HTTP request")
        with upstream_on(bound(port)):
            assert (await client.call_tool("add", {"a": 2, "b": 2})).text == "4"
