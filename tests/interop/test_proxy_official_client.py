"""The official MCP Python SDK client (``mcp``) against a toolwire proxy of the reference
server ``@modelcontextprotocol/server-everything`` (npm, a legacy-only stdio server): the
proxy is served over Streamable HTTP by a real uvicorn, and the SDK client talks to it in
both eras, with progress, elicitation and cancellation crossing the proxy."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import orjson
import pytest
from mcp import Client, types
from mcp.client.session import ClientRequestContext
from mcp.client.streamable_http import streamable_http_client

from interop import peers
from toolwire import Server

from http_server import serve_http

ERAS = {"legacy": "2025-11-25", "auto": "2026-07-28"}
TEST_TIMEOUT = 45.0
REQUEST_TIMEOUT = 20.0

pytestmark = [pytest.mark.timeout(60), pytest.mark.peers("npm-everything")]


class Proxy:
    """The proxy's URL and the messages it exchanged with the upstream."""

    def __init__(self, url: str, upstream: list[tuple[str, Any]], server: Any) -> None:
        self.url = url
        self.upstream = upstream
        self.server = server

    def sent(self, method: str) -> list[Any]:
        return [m for d, m in self.upstream if d == "send" and m.get("method") == method]


@pytest.fixture(scope="module")
def everything() -> list[str]:
    node, folder = peers.everything()
    return [node, str(folder / "dist" / "index.js"), "stdio"]


@pytest.fixture
def proxy(everything: list[str]) -> Iterator[Proxy]:
    upstream: list[tuple[str, Any]] = []

    def tap(direction: str, data: bytes) -> None:
        upstream.append((direction, orjson.loads(data)))

    server = Server.proxy(everything, tap=tap)
    with serve_http(server) as url:
        yield Proxy(url, upstream, server)


@pytest.mark.parametrize("mode", list(ERAS))
async def test_progress_crosses_the_proxy(proxy: Proxy, mode: str) -> None:
    progress: list[tuple[float, float | None]] = []

    async def on_progress(value: float, total: float | None, message: str | None) -> None:
        progress.append((value, total))

    with anyio.fail_after(TEST_TIMEOUT):
        async with Client(
            streamable_http_client(proxy.url), mode=mode, read_timeout_seconds=REQUEST_TIMEOUT
        ) as client:
            assert client.protocol_version == ERAS[mode]
            names = [tool.name for tool in (await client.list_tools()).tools]
            assert {"echo", "get-sum", "trigger-long-running-operation"} <= set(names)
            echoed = await client.call_tool("echo", {"message": "hi"})
            assert echoed.content[0].text == "Echo: hi"  # type: ignore[union-attr]
            result = await client.call_tool(
                "trigger-long-running-operation",
                {"duration": 0.3, "steps": 3},
                progress_callback=on_progress,
            )
            assert not result.is_error
    assert progress == [(1, 3), (2, 3), (3, 3)]
    assert proxy.server.upstream_handshakes == 1


@pytest.mark.parametrize("mode", list(ERAS))
async def test_elicitation_crosses_the_proxy(proxy: Proxy, mode: str) -> None:
    asked: list[types.ElicitRequestParams] = []

    async def on_elicit(
        context: ClientRequestContext, params: types.ElicitRequestParams
    ) -> types.ElicitResult:
        asked.append(params)
        return types.ElicitResult(action="accept", content={"name": "Ada"})

    with anyio.fail_after(TEST_TIMEOUT):
        async with Client(
            streamable_http_client(proxy.url),
            mode=mode,
            read_timeout_seconds=REQUEST_TIMEOUT,
            elicitation_callback=on_elicit,
        ) as client:
            result = await client.call_tool("trigger-elicitation-request", {})
    texts = "\n".join(
        block.text for block in result.content if isinstance(block, types.TextContent)
    )
    assert "User provided the requested information" in texts and "Ada" in texts
    assert len(asked) == 1
    assert len(proxy.sent("tools/call")) >= 1


@pytest.mark.parametrize("mode", list(ERAS))
async def test_cancellation_crosses_the_proxy(proxy: Proxy, mode: str) -> None:
    started = anyio.Event()

    async def on_progress(value: float, total: float | None, message: str | None) -> None:
        started.set()

    with anyio.fail_after(TEST_TIMEOUT):
        async with Client(
            streamable_http_client(proxy.url), mode=mode, read_timeout_seconds=REQUEST_TIMEOUT
        ) as client:
            async with anyio.create_task_group() as group:

                async def call() -> None:
                    await client.call_tool(
                        "trigger-long-running-operation",
                        {"duration": 30, "steps": 60},
                        progress_callback=on_progress,
                    )

                group.start_soon(call)
                await started.wait()
                group.cancel_scope.cancel()
            # The SDK tells the proxy, and the proxy the upstream, that the call is over.
            with anyio.fail_after(10):
                while not proxy.sent("notifications/cancelled"):
                    await client.list_tools()  # each round trip lets the cancel get through
    (cancel,) = proxy.sent("notifications/cancelled")
    (upstream_call,) = [
        m for m in proxy.sent("tools/call") if m["params"]["name"].startswith("trigger-long")
    ]
    assert cancel["params"]["requestId"] == upstream_call["id"]


SDK_UPSTREAM = [sys.executable, str(Path(__file__).with_name("sdk_proxy_upstream.py"))]


@pytest.mark.parametrize("mode", list(ERAS))
async def test_a_proxy_of_an_official_sdk_server(mode: str) -> None:
    """The official client, a toolwire proxy over HTTP, an official-SDK server over stdio.
    The proxy speaks 2025-11-25 to it: the SDK's ``ctx.elicit`` asks by a request to the
    client, which 2026-07-28 has no channel for (its tools must use ``input_responses``)."""
    upstream: list[tuple[str, Any]] = []

    def tap(direction: str, data: bytes) -> None:
        upstream.append((direction, orjson.loads(data)))

    progress: list[tuple[float, float | None]] = []

    async def on_progress(value: float, total: float | None, message: str | None) -> None:
        progress.append((value, total))

    async def on_elicit(
        context: ClientRequestContext, params: types.ElicitRequestParams
    ) -> types.ElicitResult:
        return types.ElicitResult(action="accept", content={"name": "Ada"})

    server = Server.proxy(SDK_UPSTREAM, tap=tap, protocol_version="2025-11-25")
    with serve_http(server) as url, anyio.fail_after(TEST_TIMEOUT):
        async with Client(
            streamable_http_client(url),
            mode=mode,
            read_timeout_seconds=REQUEST_TIMEOUT,
            elicitation_callback=on_elicit,
        ) as client:
            assert client.protocol_version == ERAS[mode]
            added = await client.call_tool("add", {"a": 2, "b": 3})
            assert added.structured_content == {"result": 5}
            result = await client.call_tool("steps", {"count": 3}, progress_callback=on_progress)
            assert result.content[0].text == "3 steps"  # type: ignore[union-attr]
            greeted = await client.call_tool("greet", {})
            assert greeted.content[0].text == "Hello Ada"  # type: ignore[union-attr]
            started = anyio.Event()

            async def begun(value: float, total: float | None, message: str | None) -> None:
                started.set()

            async with anyio.create_task_group() as group:

                async def call() -> None:
                    await client.call_tool("wait_forever", {}, progress_callback=begun)

                group.start_soon(call)
                await started.wait()
                group.cancel_scope.cancel()
            sent = [m for d, m in upstream if d == "send"]
            with anyio.fail_after(10):
                while not any(m.get("method") == "notifications/cancelled" for m in sent):
                    await client.list_tools()  # each round trip lets the cancel get through
                    sent = [m for d, m in upstream if d == "send"]
    assert progress == [(1, 3), (2, 3), (3, 3)]
    assert server.upstream_handshakes == 1
