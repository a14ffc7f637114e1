"""``Client`` and ``Host`` take the ``mcpServers`` configuration Claude Desktop and FastMCP
use (a dict, or the path of its JSON file): a local server is started (real subprocesses,
with the configured environment) and spoken to over stdio, a remote one over Streamable
HTTP with the configured headers (a real uvicorn on 127.0.0.1). What is wrong in a
configuration is refused with what to write instead. Every message is schema-checked."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from toolwire import Client, Context, Host, Server
from toolwire.client.mcp_config import entries

from http_server import serve_http
from wire import checked_client

pytestmark = pytest.mark.timeout(60)
SERVERS = Path(__file__).parent / "servers"
CALC = str(SERVERS / "calc.py")
ENV_SERVER = """
import os
from toolwire import Server

mcp = Server("env")


@mcp.tool(annotations={"readOnlyHint": True})
def setting() -> str:
    return os.environ.get("NOTES_SETTING", "unset")


mcp.run()
"""


def local(script: str, **extra: object) -> dict[str, object]:
    return {"command": sys.executable, "args": [script], **extra}


async def test_a_client_takes_a_configuration_with_one_server(tmp_path: Path) -> None:
    script = tmp_path / "env_server.py"
    script.write_text(ENV_SERVER, encoding="utf-8")
    config = {"mcpServers": {"env": local(str(script), env={"NOTES_SETTING": "on"})}}
    async with checked_client(config, "2025-11-25") as client:
        assert (await client.call_tool("setting")).text == "on"
    path = tmp_path / "servers.json"
    path.write_text(json.dumps({"mcpServers": {"calc": local(CALC)}}), encoding="utf-8")
    async with checked_client(str(path), "2026-07-28") as client:
        assert (await client.call_tool("add", {"a": 2, "b": 3})).structured == {"result": 5}


async def test_a_remote_server_gets_the_configured_headers() -> None:
    mcp = Server("remote")

    @mcp.tool()
    def team(ctx: Context) -> str:
        assert ctx.http is not None
        return str(ctx.http.headers.get("x-team"))

    with serve_http(mcp) as url:
        config = {"mcpServers": {"remote": {"url": url, "headers": {"X-Team": "blue"}}}}
        async with checked_client(config, "2025-11-25") as client:
            assert (await client.call_tool("team")).text == "blue"


async def test_a_host_serves_every_server_of_a_configuration_file(tmp_path: Path) -> None:
    script = tmp_path / "env_server.py"
    script.write_text(ENV_SERVER, encoding="utf-8")
    path = tmp_path / "claude_desktop_config.json"
    servers = {"calc": local(CALC), "env": local(str(script), env={"NOTES_SETTING": "x"})}
    path.write_text(json.dumps({"mcpServers": servers}), encoding="utf-8")
    async with Host(path, trusted={"calc", "env"}) as host:
        tools = {tool.name: tool.server for tool in await host.list_tools()}
        assert tools["add"] == "calc" and tools["setting"] == "env"
        assert (await host.call_tool("setting")).text == "x"
        assert (await host.call_tool("add", {"a": 1, "b": 1})).structured == {"result": 2}


def test_what_a_configuration_gets_wrong_is_named(tmp_path: Path) -> None:
    two = {"mcpServers": {"a": local(CALC), "b": local(CALC)}}
    with pytest.raises(ValueError, match=r"has 2 servers \(a, b\); .* use Host\(config\)"):
        Client(two)
    with pytest.raises(ValueError, match=r'needs "command" .* or "url"'):
        entries({"mcpServers": {"a": {"args": []}}})
    with pytest.raises(ValueError, match="deprecated HTTP\\+SSE transport"):
        entries({"mcpServers": {"a": {"url": "http://x/sse", "transport": "sse"}}})
    with pytest.raises(ValueError, match='"url" is an http\\(s\\) URL'):
        entries({"mcpServers": {"a": {"url": "ftp://x"}}})
    with pytest.raises(ValueError, match="with at least one server"):
        entries({"mcpServers": {}})
    with pytest.raises(ValueError, match="Cannot read the MCP configuration"):
        Client(str(tmp_path / "missing.json"))
    broken = tmp_path / "broken.json"
    broken.write_text("{", encoding="utf-8")
    with pytest.raises(ValueError, match="is not JSON"):
        Host(broken)
    with pytest.raises(TypeError, match="Host takes \\{name: target\\} or an mcpServers"):
        Host(42)  # type: ignore[arg-type]
