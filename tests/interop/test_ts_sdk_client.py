"""The official TypeScript SDK client (npm ``@modelcontextprotocol/sdk``) against toolwire's
Streamable HTTP, on a real uvicorn on 127.0.0.1.

``ts_client.mjs`` (beside this file) connects with ``StreamableHTTPClientTransport``, lists and
calls tools, calls an unknown tool and an unknown method, and calls a tool that lets its SSE
connection go. A JSON-RPC error must reach the SDK as ``McpError`` with its code, which it
does only if the HTTP status is 200 on a legacy session (a 4xx is a ``StreamableHTTPError``);
the polled call must still be answered after the transport resumes with ``Last-Event-ID``.
Every message toolwire sends, and every one the SDK sends, is checked against the JSON Schema
of the negotiated revision by a tap around the ASGI app.

The SDK is installed from the npm registry into ``.venv/npm-ts-sdk`` on first use; without
node and npm the test is skipped locally and fails in CI.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
import pytest

from interop import peers
from toolwire import Context, Server

from http_server import serve_http
from mcp_spec import WireChecker

pytestmark = [pytest.mark.timeout(120), pytest.mark.peers("npm-ts-sdk")]

HERE = Path(__file__).resolve().parent
SDK = peers.VENV / "npm-ts-sdk" / "node_modules" / "@modelcontextprotocol" / "sdk"
SCRIPT = HERE / "ts_client.mjs"


@pytest.fixture(scope="module")
def node() -> str:
    return peers.ts_sdk()[0]


class Tap:
    """An ASGI wrapper that feeds every JSON-RPC message both ways to a WireChecker (the
    revision learned from the handshake); what fails the schema is kept in ``problems``."""

    def __init__(self) -> None:
        self.checker = WireChecker()
        self.problems: list[str] = []
        self.server_messages = 0

    def _check(self, side: str, data: bytes) -> None:
        if not data.strip():
            return
        try:
            if side == "client":
                self.checker.client_sent(data)
            else:
                self.server_messages += 1
                self.checker.server_sent(data)
        except AssertionError as exc:
            self.problems.append(f"{side}: {exc}")

    def wrap(self, app: Callable[..., Any]) -> Callable[..., Any]:
        async def tapped(scope: Any, receive: Any, send: Any) -> None:
            if scope["type"] != "http":
                await app(scope, receive, send)
                return
            body = bytearray()
            sse = bytearray()
            answer = bytearray()
            kind = ""

            async def tapped_receive() -> Any:
                message = await receive()
                if message["type"] == "http.request":
                    body.extend(message.get("body", b""))
                    if not message.get("more_body"):
                        self._check("client", bytes(body))
                return message

            async def tapped_send(message: Any) -> None:
                nonlocal kind
                if message["type"] == "http.response.start":
                    headers = dict(message.get("headers", []))
                    kind = headers.get(b"content-type", b"").decode()
                elif message["type"] == "http.response.body":
                    chunk = message.get("body", b"")
                    if kind.startswith("text/event-stream"):
                        sse.extend(chunk)
                        while b"\n\n" in sse:
                            event, _, rest = bytes(sse).partition(b"\n\n")
                            sse[:] = rest
                            data = [
                                line[5:].lstrip(b" ")
                                for line in event.split(b"\n")
                                if line.startswith(b"data:")
                            ]
                            self._check("server", b"\n".join(data))
                    elif kind.startswith("application/json"):
                        answer.extend(chunk)
                        if not message.get("more_body"):
                            self._check("server", bytes(answer))
                await send(message)

            await app(scope, tapped_receive, tapped_send)

        return tapped


class Tapped:
    """Serves ``server`` through ``tap`` (what ``serve_http`` needs of a server)."""

    def __init__(self, server: Server, tap: Tap) -> None:
        self.server = server
        self.tap = tap

    def http_app(self, path: str, **options: Any) -> Any:
        return self.tap.wrap(self.server.http_app(path, **options))


def build() -> Server:
    mcp = Server("ts-interop", version="1.0.0")

    @mcp.tool()
    def add(a: int, b: int) -> int:
        """Add two numbers."""
        return a + b

    @mcp.tool()
    async def poll(ctx: Context) -> str:
        """Let the SSE connection go before answering (the client resumes)."""
        return f"released: {ctx.close_sse_connection()}"

    return mcp


async def run_client(node: str, url: str) -> dict[str, Any]:
    process = await asyncio.create_subprocess_exec(
        node,
        str(SCRIPT),
        str(SDK),
        url,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    try:
        out, err = await asyncio.wait_for(process.communicate(), 60)
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
    assert process.returncode == 0, err.decode()
    report: dict[str, Any] = json.loads(out.decode().strip().splitlines()[-1])
    return report


async def test_the_typescript_sdk_client_sees_json_rpc_errors_as_mcp_errors(node: str) -> None:
    tap = Tap()
    with serve_http(Tapped(build(), tap), retry_ms=50) as url:
        report = await run_client(node, url)
    assert "fatal" not in report, report
    assert report["protocolVersion"] == "2025-11-25"
    assert report["server"]["name"] == "ts-interop"
    assert {"add", "poll"} <= set(report["tools"])
    added = report["add"]["ok"]
    assert added["content"] == [{"type": "text", "text": "5"}] and not added.get("isError")

    # JSON-RPC errors on a legacy session come with HTTP 200: the SDK sees McpError
    assert report["unknownTool"]["error"]["kind"] == "McpError", report["unknownTool"]
    assert report["unknownTool"]["error"]["code"] == -32602
    assert report["unknownMethod"]["error"]["kind"] == "McpError", report["unknownMethod"]
    assert report["unknownMethod"]["error"]["code"] == -32601

    # the call that let its connection go was answered on the resumed stream
    polled = report["polled"]
    assert "ok" in polled, polled
    assert polled["ok"]["content"] == [{"type": "text", "text": "released: True"}]

    assert tap.problems == []
    assert tap.checker.revision == "2025-11-25"
    assert tap.server_messages >= 6
    orjson.dumps(report)  # (the report itself is plain JSON)
