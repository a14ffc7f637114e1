"""Servers written in the official SDK's low-level styles run the same on toolwire with only
their imports changed.

``servers/sdk1_lowlevel.py`` (SDK 1.x: decorators, ``server.request_context``, the stdio
boilerplate with ``InitializationOptions``) and ``servers/sdk2_lowlevel.py`` (SDK 2.x:
``Server(name, on_*=...)`` handlers given a ``ServerRequestContext``, ``Server[AppContext]``)
each run twice over stdio: as they are on their own framework (the SDK 1.x in the virtualenv
``interop/test_client_vs_official_http.py`` uses, the SDK 2.x of the test environment), and
as a copy whose imports ``toolwire migrate`` rewrote (:func:`migrated.migrated`); the 2.x server over Streamable HTTP too
(its ``streamable_http_app()`` under uvicorn on 127.0.0.1). The official client (``mcp.Client``)
lists and calls every tool, resource, template, prompt and completion on both; the outcomes
(results, or JSON-RPC errors) must be equal, and every message toolwire sends is checked
against the schema of the negotiated revision (a ``print()`` in a lifespan must not reach
the protocol's stdout on toolwire).
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from collections.abc import AsyncIterator, Awaitable, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from types import ModuleType
from typing import IO, Any

import anyio
import pytest
from mcp import Client, MCPError
from mcp import types as mcp_types
from mcp.shared.message import SessionMessage

from interop import peers
from interop.test_ts_sdk_client import Tap, Tapped
from migrated import migrated

from http_server import serve_http
from mcp_spec import WireChecker

pytestmark = [
    pytest.mark.timeout(120),
    pytest.mark.peers("mcp-sdk-1"),
    # the client warns that logging/setLevel is gone from 2026-07-28; it is sent on 2025-11-25
    pytest.mark.filterwarnings("ignore:The logging capability is deprecated"),
]

HERE = Path(__file__).resolve().parent
SERVERS = HERE.parent / "servers"
SRC_DIR = HERE.parents[1] / "src"
TIMEOUT = 60.0
# What only a 2026-07-28 result, or one server's identity, carries: not behaviour.
NOT_COMPARED = {"_meta", "resultType", "ttlMs", "cacheScope"}


@asynccontextmanager
async def stdio(
    command: list[str], stderr: IO[str], checker: WireChecker | None
) -> AsyncIterator[tuple[Any, Any]]:
    """A transport for ``mcp.Client``: the server as a subprocess, its raw lines checked
    by ``checker`` (when given) before the client parses them."""
    env = {"PATH": os.environ.get("PATH", ""), "PYTHONPATH": str(SRC_DIR)}
    process = await anyio.open_process(command, env=env, stderr=stderr)
    to_client, from_server = anyio.create_memory_object_stream[SessionMessage | Exception](100)
    to_server, from_client = anyio.create_memory_object_stream[SessionMessage](100)
    assert process.stdout is not None and process.stdin is not None
    stdout, stdin = process.stdout, process.stdin

    async def read() -> None:
        buffer = b""
        async with to_client:
            async for chunk in stdout:
                buffer += chunk
                while b"\n" in buffer:
                    line, buffer = buffer.split(b"\n", 1)
                    if not line.strip():
                        continue
                    if checker is not None:
                        checker.server_sent(line)  # a stray print() fails here
                    elif not line.lstrip().startswith(b"{"):
                        continue  # what the SDK's own client skips (the SDK lets print through)
                    message = mcp_types.jsonrpc_message_adapter.validate_json(line, by_name=False)
                    await to_client.send(SessionMessage(message))

    async def write() -> None:
        async with from_client:
            async for item in from_client:
                data = item.message.model_dump_json(by_alias=True, exclude_unset=True)
                if checker is not None:
                    checker.client_sent(data)
                await stdin.send(data.encode() + b"\n")

    try:
        async with anyio.create_task_group() as group:
            group.start_soon(read)
            group.start_soon(write)
            yield from_server, to_server
            await stdin.aclose()  # end of input: the server ends
            with anyio.fail_after(15):
                await process.wait()
            group.cancel_scope.cancel()
    finally:
        if process.returncode is None:
            process.kill()
            with anyio.CancelScope(shield=True):
                await process.wait()


def plain(result: Any) -> Any:
    """A result as JSON, without what is not behaviour."""
    data = result.model_dump(by_alias=True, mode="json", exclude_none=True)
    return {key: value for key, value in data.items() if key not in NOT_COMPARED}


async def outcome(call: Awaitable[Any]) -> Any:
    try:
        return plain(await call)
    except MCPError as exc:
        return {"error": exc.code, "message": exc.message}


async def exercise(client: Client) -> dict[str, Any]:
    """Everything the server offers, through the official client."""
    seen: dict[str, Any] = {}
    if client.protocol_version != "2026-07-28":  # logging/setLevel is gone from 2026-07-28
        seen["logging"] = client.server_capabilities.logging is not None
        seen["set level"] = await outcome(client.set_logging_level("warning"))
    tools: list[Any] = []
    cursor: str | None = None
    for _ in range(10):
        page = await client.list_tools(cursor=cursor)
        tools += [plain(tool) for tool in page.tools]
        cursor = page.next_cursor
        if cursor is None:
            break
    seen["tools"] = tools
    for tool in tools:
        arguments = {"query": "SELECT 1"} if tool["name"] == "query_db" else {"city": "Oslo"}
        seen[f"call {tool['name']}"] = await outcome(client.call_tool(tool["name"], arguments))
    seen["resources"] = await outcome(client.list_resources())
    seen["templates"] = await outcome(client.list_resource_templates())
    for uri in ("file:///greeting.txt", "file:///farewell.txt", "file:///missing.txt"):
        seen[f"read {uri}"] = await outcome(client.read_resource(uri))
    seen["prompts"] = await outcome(client.list_prompts())
    seen["prompt"] = await outcome(client.get_prompt("forecast", {"city": "Bern"}))
    seen["missing prompt"] = await outcome(client.get_prompt("unknown", {}))
    reference = mcp_types.PromptReference(type="ref/prompt", name="forecast")
    seen["complete"] = await outcome(client.complete(reference, {"name": "city", "value": "Ber"}))
    return seen


async def drive(target: Any, stderr: IO[str], mode: str, checked: bool) -> dict[str, Any]:
    """What the official client sees of the server ``target`` (a command, over stdio; or
    the URL of a server over Streamable HTTP, checked by whoever serves it)."""
    checker = WireChecker() if checked and isinstance(target, list) else None
    transport = stdio(target, stderr, checker) if isinstance(target, list) else target
    with anyio.fail_after(TIMEOUT):
        async with Client(transport, mode=mode) as client:
            seen = await exercise(client)
            seen["protocol"] = client.protocol_version
    if checker is not None:
        checker.close()
        assert checker.checked > 10, checker.checked
    return seen


@pytest.fixture(scope="module")
def sdk1_python() -> str:
    return peers.python_sdk_1()


def toolwire_copy(script: str, folder: Path) -> Path:
    return migrated(SERVERS / script, folder)


@pytest.fixture
def stderr(tmp_path: Path) -> Any:
    with (tmp_path / "stderr.log").open("w+", encoding="utf-8") as log:
        yield log
        log.seek(0)
        text = log.read()
        if text:
            print(f"--- servers' stderr ---\n{text}")


def check_seen(seen: dict[str, Any], style: str) -> None:
    """What both sides must have given (so an equal failure on both is no pass)."""
    assert [tool["name"] for tool in seen["tools"]][:3] == ["get_weather", "query_db"][:2] + (
        ["both"] if style == "sdk1" else ["refuse"]
    )
    weather = seen["call get_weather"]
    assert weather["structuredContent"]["city"] == "Oslo", weather
    assert "Example" in seen["call query_db"]["content"][0]["text"]
    refused = seen["call refuse"]
    if style == "sdk1":  # the SDK 1.x makes every call_tool exception an isError result
        assert refused["isError"] is True and "No service in Oslo" in str(refused["content"])
    else:
        assert refused == {"error": -32602, "message": "No service in Oslo"}
    assert seen["read file:///missing.txt"]["error"] == -32602
    assert seen["read file:///greeting.txt"]["contents"][0]["text"] == "Hello from the notes"
    farewell = seen["read file:///farewell.txt"]["contents"][0]
    assert farewell["text"] == "Goodbye from the notes", farewell
    assert seen["missing prompt"]["error"] == -32602
    assert seen["complete"]["completion"]["values"] == ["Berlin", "Bern", "Bergen"]
    if "set level" in seen:  # the handler heard of the level the client chose
        assert seen["logging"] is True and seen["set level"] == {}
        level = seen["call log_level"]["content"][0]["text"]
        assert level == ("level warning" if style == "sdk1" else "level warning (request True)")


async def test_sdk1_lowlevel_server_runs_the_same_on_toolwire(
    sdk1_python: str, tmp_path: Path, stderr: IO[str]
) -> None:
    original = [sdk1_python, str(SERVERS / "sdk1_lowlevel.py")]
    migrated = [sys.executable, str(toolwire_copy("sdk1_lowlevel.py", tmp_path))]
    expected = await drive(original, stderr, "legacy", checked=False)
    check_seen(expected, "sdk1")
    assert await drive(migrated, stderr, "legacy", checked=True) == expected
    modern = await drive(migrated, stderr, "auto", checked=True)
    check_seen(modern, "sdk1")
    assert (modern.pop("protocol"), expected.pop("protocol")) == ("2026-07-28", "2025-11-25")
    # what only a legacy session has: its log level
    for key in ("logging", "set level", "call log_level"):
        expected.pop(key), modern.pop(key, None)
    assert modern == expected


async def test_sdk2_lowlevel_server_runs_the_same_on_toolwire(
    tmp_path: Path, stderr: IO[str]
) -> None:
    original = [sys.executable, str(SERVERS / "sdk2_lowlevel.py")]
    migrated = [sys.executable, str(toolwire_copy("sdk2_lowlevel.py", tmp_path))]
    for mode in ("legacy", "auto"):
        expected = await drive(original, stderr, mode, checked=False)
        check_seen(expected, "sdk2")
        assert await drive(migrated, stderr, mode, checked=True) == expected, mode


@contextmanager
def listening(command: list[str], stderr: IO[str]) -> Iterator[str]:
    """Start ``command``; yield the URL it prints once it listens; stop it afterwards."""
    env = {"PATH": os.environ.get("PATH", ""), "PYTHONPATH": str(SRC_DIR)}
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=stderr, env=env, text=True)
    try:
        assert process.stdout is not None
        url = process.stdout.readline().strip()
        assert url.startswith("http://127.0.0.1:"), url
        yield url
    finally:
        process.terminate()
        try:
            process.wait(15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(15)


def load(path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(path.stem, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


async def test_sdk2_lowlevel_server_over_http_runs_the_same_on_toolwire(
    tmp_path: Path, stderr: IO[str]
) -> None:
    """The SDK's server as it is in a process of its own; the migrated copy served in this
    one, so a tap checks every message it sends against the schema."""
    migrated = load(toolwire_copy("sdk2_lowlevel.py", tmp_path))
    with listening([sys.executable, str(SERVERS / "sdk2_lowlevel.py"), "http"], stderr) as url:
        expected = {mode: await drive(url, stderr, mode, False) for mode in ("legacy", "auto")}
    for mode in ("legacy", "auto"):
        check_seen(expected[mode], "sdk2")
        tap = Tap()
        with serve_http(Tapped(migrated.server, tap)) as url:
            seen = await drive(url, stderr, mode, True)
        assert tap.server_messages > 10 and not tap.problems, tap.problems
        assert seen == expected[mode], mode
