"""The ASGI application in other people's apps, and ``mcp.run(transport="http")``."""

from __future__ import annotations

import asyncio
import socket
import sys
from pathlib import Path

import httpx
import orjson
import pytest

from toolwire import Server

from mcp_spec import WireChecker

MODERN = "2026-07-28"
HEADERS = {
    "content-type": "application/json",
    "accept": "application/json",
    "mcp-protocol-version": MODERN,
    "mcp-method": "tools/call",
    "mcp-name": "add",
}


def add_call() -> dict:
    meta = {
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientCapabilities": {},
    }
    params = {"name": "add", "arguments": {"a": 2, "b": 3}, "_meta": meta}
    return {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params}


def calculator() -> Server:
    mcp = Server("mounted")

    @mcp.tool()
    def add(a: int, b: int) -> int:
        """Add two integers."""
        return a + b

    return mcp


async def test_mounted_in_a_starlette_app() -> None:
    starlette = pytest.importorskip("starlette.applications")
    from starlette.routing import Mount

    app = starlette.Starlette(routes=[Mount("/api", app=calculator().http_app(path="/mcp"))])
    checker = WireChecker(MODERN)
    message = add_call()
    checker.client_sent(message)
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as client:
        answer = await client.post("/api/mcp", content=orjson.dumps(message), headers=HEADERS)
        missing = await client.post("/mcp", content=orjson.dumps(message), headers=HEADERS)
    checker.server_sent(answer.content)
    assert answer.status_code == 200, answer.text
    assert answer.json()["result"]["structuredContent"] == {"result": 5}
    assert missing.status_code == 404


async def test_run_serves_http_on_loopback(tmp_path: Path) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    script = tmp_path / "server.py"
    script.write_text(
        "from toolwire import Server\n"
        "mcp = Server('run')\n"
        "@mcp.tool()\n"
        "def add(a: int, b: int) -> int:\n"
        "    return a + b\n"
        f"mcp.run(transport='http', port={port}, log_level='info')\n"
    )
    process = await asyncio.create_subprocess_exec(
        sys.executable, str(script), stderr=asyncio.subprocess.PIPE
    )
    assert process.stderr is not None
    try:

        async def started() -> None:
            while b"Uvicorn running on" not in await process.stderr.readline():  # type: ignore[union-attr]
                assert process.returncode is None

        await asyncio.wait_for(started(), 20)
        async with httpx.AsyncClient(timeout=10) as client:
            answer = await client.post(
                f"http://127.0.0.1:{port}/mcp", content=orjson.dumps(add_call()), headers=HEADERS
            )
            foreign = await client.post(
                f"http://127.0.0.1:{port}/mcp",
                content=orjson.dumps(add_call()),
                headers={**HEADERS, "host": "attacker.example"},
            )
        assert answer.json()["result"]["content"] == [{"type": "text", "text": "5"}]
        assert foreign.status_code == 403  # bound to loopback: DNS-rebinding defence on
    finally:
        process.terminate()
        await asyncio.wait_for(process.wait(), 10)


async def test_idle_sessions_are_forgotten() -> None:
    """A session nobody used for ``session_idle`` seconds is dropped when new ones are made:
    its id then gets 404 and the client initializes again (HT-24)."""
    from http_server import serve_http

    init = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "t", "version": "0"},
        },
    }
    ping = b'{"jsonrpc":"2.0","id":2,"method":"ping"}'
    headers = {"content-type": "application/json", "accept": "application/json"}
    with serve_http(calculator(), session_idle=0.0) as url:
        async with httpx.AsyncClient(timeout=10) as client:
            first = (await client.post(url, content=orjson.dumps(init), headers=headers)).headers
            old = {**headers, "mcp-session-id": first["mcp-session-id"]}
            assert (await client.post(url, content=ping, headers=old)).status_code == 200
            second = (await client.post(url, content=orjson.dumps(init), headers=headers)).headers
            new = {**headers, "mcp-session-id": second["mcp-session-id"]}
            assert (await client.post(url, content=ping, headers=old)).status_code == 404
            assert (await client.post(url, content=ping, headers=new)).status_code == 200
