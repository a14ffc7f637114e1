"""The official MCP Python SDK client (``mcp``, test-only dependency) against a toolwire server.

Every test spawns ``calc_server.py`` as a stdio subprocess and drives it with the SDK, once per
connection style:

* ``2024-11-05``, ``2025-03-26``, ``2025-06-18``: a ``ClientSession`` whose ``initialize`` offers
  exactly that revision. ``Client(mode="legacy")`` always offers the SDK's newest handshake
  revision, so an older one is offered by hand, the same four steps ``ClientSession.initialize``
  takes (send, check, ``adopt``, ``notifications/initialized``).
* ``2025-11-25``: ``Client(mode="legacy")``, the SDK's own handshake.
* ``2026-07-28-discover``: ``Client()`` with its default ``mode="auto"``: probe ``server/discover``,
  fall back to ``initialize`` only when the server does not prove it is modern.
* ``2026-07-28-pinned``: ``Client(mode="2026-07-28")``: no probe, every request carries the
  per-request ``_meta`` envelope from the first one on.

The transport is wrapped so that each test also sees the raw JSON-RPC messages, which is how the
tests check the era shaping the SDK itself would forgive (it drops later revisions' result keys
on legacy sessions before parsing).
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from collections.abc import AsyncIterator, Iterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import IO, Any

import anyio
import pytest
from mcp import Client, ClientSession, MCPError, StdioServerParameters, stdio_client, types
from mcp.shared.message import SessionMessage

SERVER_SCRIPT = Path(__file__).resolve().with_name("calc_server.py")
SRC_DIR = Path(__file__).resolve().parents[2] / "src"

REQUEST_TIMEOUT = 20.0
"""Per-request read timeout handed to the SDK; a silent server fails the request, not the run."""

TEST_TIMEOUT = 45.0
"""Bound on one whole test (spawn, handshake, calls, shutdown); pytest-timeout's 60 s is the backstop."""

CLIENT_INFO = types.Implementation(name="toolwire-interop-tests", version="1.0")

PROTOCOL_VERSION_KEY = "io.modelcontextprotocol/protocolVersion"
CLIENT_CAPABILITIES_KEY = "io.modelcontextprotocol/clientCapabilities"
CLIENT_INFO_KEY = "io.modelcontextprotocol/clientInfo"
SERVER_INFO_KEY = "io.modelcontextprotocol/serverInfo"

REVISIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28")
HANDSHAKE_BY_HAND = ("2024-11-05", "2025-03-26", "2025-06-18")
STYLES = (*HANDSHAKE_BY_HAND, "2025-11-25", "2026-07-28-discover", "2026-07-28-pinned")
MODERN_ONLY_RESULT_KEYS = {"resultType", "ttlMs", "cacheScope"}

# Keys each revision's schema.json defines, per object; nothing else may reach that revision.
_TOOL_2024 = frozenset({"name", "description", "inputSchema"})
_TOOL_2025_06 = _TOOL_2024 | {"annotations", "title", "outputSchema", "_meta"}
TOOL_KEYS = {
    "2024-11-05": _TOOL_2024,
    "2025-03-26": _TOOL_2024 | {"annotations"},
    "2025-06-18": _TOOL_2025_06,
    "2025-11-25": _TOOL_2025_06 | {"icons", "execution"},
    "2026-07-28": _TOOL_2025_06 | {"icons"},
}
_LIST_TOOLS_LEGACY = frozenset({"_meta", "nextCursor", "tools"})
LIST_TOOLS_RESULT_KEYS = {
    **{revision: _LIST_TOOLS_LEGACY for revision in REVISIONS[:4]},
    "2026-07-28": _LIST_TOOLS_LEGACY | MODERN_ONLY_RESULT_KEYS,
}
CALL_TOOL_RESULT_KEYS = {
    "2024-11-05": {"_meta", "content", "isError"},
    "2025-03-26": {"_meta", "content", "isError"},
    "2025-06-18": {"_meta", "content", "isError", "structuredContent"},
    "2025-11-25": {"_meta", "content", "isError", "structuredContent"},
    "2026-07-28": {"_meta", "content", "isError", "structuredContent", "resultType"},
}

EXPECTED_DESCRIPTIONS = {
    "add": "Add two numbers together.",
    "divide": "Divide a by b.",
    "describe": "Compute summary statistics for a list of numbers.",
    "square_root": "Return the square root of x.",
    "format_total": "Add up amounts and format the total with a currency code.",
    "format_number": "Format a number with a fixed precision and an optional unit.",
}
ADD_INPUT_SCHEMA = {
    "type": "object",
    "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
    "required": ["a", "b"],
}
STATS = {"count": 4, "mean": 3.0, "minimum": 1.0, "maximum": 6.0}


def at_least(revision: str, minimum: str) -> bool:
    return REVISIONS.index(revision) >= REVISIONS.index(minimum)


# --- raw message recording -------------------------------------------------------------------


@dataclass
class Wire:
    """Every JSON-RPC message of one connection, as plain JSON, in order."""

    sent: list[dict[str, Any]] = field(default_factory=list)
    received: list[dict[str, Any]] = field(default_factory=list)

    def record(self, log: list[dict[str, Any]], item: object) -> None:
        if isinstance(item, SessionMessage):
            log.append(item.message.model_dump(by_alias=True, mode="json", exclude_unset=True))

    def sent_methods(self) -> list[str]:
        return [m["method"] for m in self.sent if "method" in m]

    def sent_requests(self, method: str | None = None) -> list[dict[str, Any]]:
        return [
            m for m in self.sent if "id" in m and "method" in m and method in (None, m["method"])
        ]

    def responses(self, method: str) -> list[dict[str, Any]]:
        """Responses (result or error) to the requests of `method` this client sent."""
        ids = {m["id"] for m in self.sent_requests(method)}
        return [
            m for m in self.received if "method" not in m and m.get("id") in ids and "jsonrpc" in m
        ]

    def results(self, method: str) -> list[dict[str, Any]]:
        return [m["result"] for m in self.responses(method) if "result" in m]


class _RecordingReadStream:
    def __init__(self, inner: Any, wire: Wire) -> None:
        self._inner = inner
        self._wire = wire

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    async def receive(self) -> Any:
        item = await self._inner.receive()
        self._wire.record(self._wire.received, item)
        return item

    def __aiter__(self) -> _RecordingReadStream:
        return self

    async def __anext__(self) -> Any:
        item = await self._inner.__anext__()
        self._wire.record(self._wire.received, item)
        return item

    async def aclose(self) -> None:
        await self._inner.aclose()

    async def __aenter__(self) -> _RecordingReadStream:
        await self._inner.__aenter__()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> bool | None:
        return await self._inner.__aexit__(exc_type, exc, tb)


class _RecordingWriteStream:
    def __init__(self, inner: Any, wire: Wire) -> None:
        self._inner = inner
        self._wire = wire

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    async def send(self, item: Any, /) -> None:
        self._wire.record(self._wire.sent, item)
        await self._inner.send(item)

    async def aclose(self) -> None:
        await self._inner.aclose()

    async def __aenter__(self) -> _RecordingWriteStream:
        await self._inner.__aenter__()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> bool | None:
        return await self._inner.__aexit__(exc_type, exc, tb)


@asynccontextmanager
async def recording(
    transport: AbstractAsyncContextManager[tuple[Any, Any]], wire: Wire
) -> AsyncIterator[tuple[Any, Any]]:
    """A `mcp.client.Transport` that records what passes through `transport`."""
    async with transport as (read_stream, write_stream):
        yield _RecordingReadStream(read_stream, wire), _RecordingWriteStream(write_stream, wire)


# --- connecting ------------------------------------------------------------------------------


def server_python_path() -> str:
    python_path = [str(SRC_DIR)]
    if os.environ.get("PYTHONPATH"):
        python_path.append(os.environ["PYTHONPATH"])
    return os.pathsep.join(python_path)


def server_parameters() -> StdioServerParameters:
    # The SDK hands the server only an allowlist of the environment (PATH, HOME, ...), so the
    # source tree is passed explicitly.
    return StdioServerParameters(
        command=sys.executable,
        args=[str(SERVER_SCRIPT)],
        env={"PYTHONPATH": server_python_path()},
    )


@dataclass
class Connection:
    style: str
    revision: str
    wire: Wire
    session: ClientSession
    client: Client | None = None

    @property
    def protocol_version(self) -> str | None:
        if self.client is not None:
            return self.client.protocol_version
        return self.session.protocol_version

    async def list_tools(self) -> dict[str, types.Tool]:
        tools: dict[str, types.Tool] = {}
        cursor: str | None = None
        for _ in range(100):
            if self.client is not None:
                page = await self.client.list_tools(cursor=cursor)
            else:
                page = await self.session.list_tools(
                    params=types.PaginatedRequestParams(cursor=cursor)
                )
            for tool in page.tools:
                assert tool.name not in tools, f"tool {tool.name!r} listed twice"
                tools[tool.name] = tool
            cursor = page.next_cursor
            if cursor is None:
                return tools
        raise AssertionError("tools/list pagination never ended")

    async def call_tool(self, name: str, arguments: dict[str, Any]) -> types.CallToolResult:
        if self.client is not None:
            return await self.client.call_tool(name, arguments)
        return await self.session.call_tool(name, arguments)


async def handshake_by_hand(session: ClientSession, revision: str) -> None:
    """`ClientSession.initialize`, offering `revision` instead of the SDK's newest one."""
    result = await session.send_request(
        types.InitializeRequest(
            params=types.InitializeRequestParams(
                protocol_version=revision,
                capabilities=types.ClientCapabilities(),
                client_info=CLIENT_INFO,
            )
        ),
        types.InitializeResult,
    )
    session.adopt(result)
    await session.send_notification(types.InitializedNotification())


@asynccontextmanager
async def connect(style: str, errlog: IO[str]) -> AsyncIterator[Connection]:
    wire = Wire()
    transport = recording(stdio_client(server_parameters(), errlog=errlog), wire)
    revision = style[:10]
    if style in HANDSHAKE_BY_HAND:
        async with (
            transport as (read_stream, write_stream),
            ClientSession(
                read_stream,
                write_stream,
                read_timeout_seconds=REQUEST_TIMEOUT,
                client_info=CLIENT_INFO,
            ) as session,
        ):
            await handshake_by_hand(session, revision)
            yield Connection(style, revision, wire, session)
        return
    mode = {
        "2025-11-25": "legacy",
        "2026-07-28-discover": "auto",
        "2026-07-28-pinned": "2026-07-28",
    }[style]
    async with Client(
        transport,
        mode=mode,
        read_timeout_seconds=REQUEST_TIMEOUT,
        client_info=CLIENT_INFO,
    ) as client:
        yield Connection(style, revision, wire, client.session, client)


@pytest.fixture
def server_stderr(tmp_path: Path) -> Iterator[IO[str]]:
    """The server's stderr, echoed into the report of a failing test."""
    path = tmp_path / "server-stderr.log"
    with path.open("w+", encoding="utf-8") as log:
        yield log
    text = path.read_text(encoding="utf-8")
    if text:
        print(f"--- server stderr ---\n{text}")


@pytest.fixture(params=STYLES)
def style(request: pytest.FixtureRequest) -> str:
    return str(request.param)


# --- helpers for assertions ------------------------------------------------------------------


def texts(result: types.CallToolResult) -> list[str]:
    assert all(block.type == "text" for block in result.content), result.content
    return [block.text for block in result.content if isinstance(block, types.TextContent)]


def keys_with_title(schema: Any, path: str = "$") -> list[str]:
    """Paths of `title` keywords in a JSON Schema (property names are not keywords)."""
    found: list[str] = []
    if isinstance(schema, dict):
        for key, value in schema.items():
            if key in ("properties", "$defs", "definitions") and isinstance(value, dict):
                for name, sub in value.items():
                    found += keys_with_title(sub, f"{path}.{key}.{name}")
            else:
                if key == "title":
                    found.append(f"{path}.title")
                found += keys_with_title(value, f"{path}.{key}")
    elif isinstance(schema, list):
        for index, item in enumerate(schema):
            found += keys_with_title(item, f"{path}[{index}]")
    return found


def check_call_results_shaped(conn: Connection) -> None:
    """Every raw tools/call result carries only keys its revision defines."""
    allowed = CALL_TOOL_RESULT_KEYS[conn.revision]
    results = conn.wire.results("tools/call")
    assert results, "no tools/call result was recorded"
    for raw in results:
        assert set(raw) <= allowed, f"{conn.revision} result has {set(raw) - allowed}"
        if conn.revision == "2026-07-28":
            assert raw["resultType"] == "complete"
        for block in raw["content"]:
            if not at_least(conn.revision, "2025-06-18"):
                assert "_meta" not in block, block


# --- tests -----------------------------------------------------------------------------------


async def test_negotiates_the_intended_revision(style: str, server_stderr: IO[str]) -> None:
    with anyio.fail_after(TEST_TIMEOUT):
        async with connect(style, server_stderr) as conn:
            assert conn.protocol_version == conn.revision
            # One request so that the pinned style has put something on the wire too.
            await conn.list_tools()
            wire = conn.wire
            methods = wire.sent_methods()

            if conn.revision != "2026-07-28":
                assert conn.session.initialize_result is not None
                assert conn.session.discover_result is None
                assert "server/discover" not in methods
                assert methods[:2] == ["initialize", "notifications/initialized"]
                (offer,) = wire.sent_requests("initialize")
                assert offer["params"]["protocolVersion"] == conn.revision
                (answer,) = wire.responses("initialize")
                assert "error" not in answer, answer
                assert answer["result"]["protocolVersion"] == conn.revision
                assert "tools" in answer["result"]["capabilities"]
                assert answer["result"]["serverInfo"]["name"] == "Calculator"
                assert MODERN_ONLY_RESULT_KEYS.isdisjoint(answer["result"])
                return

            assert conn.session.initialize_result is None
            assert "initialize" not in methods
            assert "notifications/initialized" not in methods
            for request in wire.sent_requests():
                meta = request["params"]["_meta"]
                assert meta[PROTOCOL_VERSION_KEY] == "2026-07-28"
                assert CLIENT_CAPABILITIES_KEY in meta
                assert CLIENT_INFO_KEY in meta
            if style == "2026-07-28-pinned":
                assert "server/discover" not in methods
                return

            assert methods[0] == "server/discover"
            discover = conn.session.discover_result
            assert discover is not None
            assert "2026-07-28" in discover.supported_versions
            assert discover.capabilities.tools is not None
            (raw,) = wire.results("server/discover")
            assert raw["resultType"] == "complete"
            assert isinstance(raw["ttlMs"], int) and raw["ttlMs"] >= 0
            assert raw["cacheScope"] in ("public", "private")
            server_info = conn.session.server_info
            if server_info is not None:
                assert server_info.name == "Calculator"


async def test_tool_listing(style: str, server_stderr: IO[str]) -> None:
    with anyio.fail_after(TEST_TIMEOUT):
        async with connect(style, server_stderr) as conn:
            tools = await conn.list_tools()
            revision = conn.revision

            assert set(tools) == set(EXPECTED_DESCRIPTIONS)
            for name, description in EXPECTED_DESCRIPTIONS.items():
                assert tools[name].description == description, name

            # Input schemas: the portable profile.
            assert tools["add"].input_schema == ADD_INPUT_SCHEMA
            assert tools["divide"].input_schema == {
                "type": "object",
                "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
                "required": ["a", "b"],
            }
            describe_schema = tools["describe"].input_schema
            assert describe_schema["properties"]["numbers"] == {
                "type": "array",
                "items": {"type": "number"},
            }
            assert describe_schema["required"] == ["numbers"]
            fmt = tools["format_number"].input_schema
            assert fmt["type"] == "object"
            assert fmt["required"] == ["value"]
            assert fmt["properties"]["value"] == {
                "type": "number",
                "description": "The number to format",
            }
            assert fmt["properties"]["precision"] == {
                "type": "integer",
                "description": "Digits after the decimal point",
                "default": 2,
            }
            unit = fmt["properties"]["unit"]
            assert unit["type"] == "string"
            assert "anyOf" not in unit
            total = tools["format_total"].input_schema
            assert total["required"] == ["amounts"]
            assert total["properties"]["currency"]["default"] == "EUR"
            for tool in tools.values():
                assert tool.input_schema["type"] == "object"
                assert keys_with_title(tool.input_schema) == [], tool.name

            # Annotations exist from 2025-03-26 on.
            if at_least(revision, "2025-03-26"):
                assert tools["add"].annotations is not None
                assert tools["add"].annotations.read_only_hint is True
            else:
                assert all(tool.annotations is None for tool in tools.values())

            # Output schemas exist from 2025-06-18 on.
            if at_least(revision, "2025-06-18"):
                add_out = tools["add"].output_schema
                assert add_out is not None
                assert add_out["type"] == "object"
                assert add_out["properties"]["result"]["type"] == "integer"
                assert add_out["required"] == ["result"]
                divide_out = tools["divide"].output_schema
                assert divide_out is not None
                assert divide_out["properties"]["result"]["type"] == "number"
                stats_out = tools["describe"].output_schema
                assert stats_out is not None
                assert stats_out["type"] == "object"
                assert set(stats_out["properties"]) == set(STATS)
                assert sorted(stats_out["required"]) == sorted(STATS)
            else:
                assert all(tool.output_schema is None for tool in tools.values())

            # The raw listing carries only what this revision defines.
            pages = conn.wire.results("tools/list")
            assert pages
            for page in pages:
                assert set(page) <= LIST_TOOLS_RESULT_KEYS[revision], set(page)
                for raw_tool in page["tools"]:
                    extra = set(raw_tool) - TOOL_KEYS[revision]
                    assert not extra, f"{raw_tool['name']} at {revision} has {extra}"
                if revision == "2026-07-28":
                    assert page["resultType"] == "complete"
                    assert isinstance(page["ttlMs"], int) and page["ttlMs"] >= 0
                    assert page["cacheScope"] in ("public", "private")


async def test_add_and_divide(style: str, server_stderr: IO[str]) -> None:
    with anyio.fail_after(TEST_TIMEOUT):
        async with connect(style, server_stderr) as conn:
            result = await conn.call_tool("add", {"a": 2, "b": 3})
            assert not result.is_error
            assert texts(result) == ["5"]
            if at_least(conn.revision, "2025-06-18"):
                assert result.structured_content == {"result": 5}
            else:
                assert result.structured_content is None

            result = await conn.call_tool("divide", {"a": 7, "b": 2})
            assert not result.is_error
            assert texts(result) == ["3.5"]
            if at_least(conn.revision, "2025-06-18"):
                assert result.structured_content == {"result": 3.5}
            else:
                assert result.structured_content is None
            check_call_results_shaped(conn)


async def test_divide_by_zero_is_an_error_result(style: str, server_stderr: IO[str]) -> None:
    with anyio.fail_after(TEST_TIMEOUT):
        async with connect(style, server_stderr) as conn:
            result = await conn.call_tool("divide", {"a": 1, "b": 0})
            assert result.is_error is True
            assert texts(result) == ["Cannot divide by zero"]
            assert result.structured_content is None
            check_call_results_shaped(conn)


async def test_tool_error_text_is_verbatim(style: str, server_stderr: IO[str]) -> None:
    with anyio.fail_after(TEST_TIMEOUT):
        async with connect(style, server_stderr) as conn:
            result = await conn.call_tool("square_root", {"x": -4})
            assert result.is_error is True
            assert texts(result) == ["Negative numbers have no real square root"]
            assert result.structured_content is None

            result = await conn.call_tool("square_root", {"x": 16})
            assert not result.is_error
            assert texts(result) == ["4.0"]
            check_call_results_shaped(conn)


async def test_model_result_is_structured(style: str, server_stderr: IO[str]) -> None:
    with anyio.fail_after(TEST_TIMEOUT):
        async with connect(style, server_stderr) as conn:
            result = await conn.call_tool("describe", {"numbers": [1, 2, 3, 6]})
            assert not result.is_error
            # The serialized JSON comes back as text on every revision...
            (text,) = texts(result)
            assert json.loads(text) == STATS
            # ...and as structured content where the revision has it.
            if at_least(conn.revision, "2025-06-18"):
                assert result.structured_content == STATS
            else:
                assert result.structured_content is None
            check_call_results_shaped(conn)


async def test_async_tool_and_optional_arguments(style: str, server_stderr: IO[str]) -> None:
    with anyio.fail_after(TEST_TIMEOUT):
        async with connect(style, server_stderr) as conn:
            calls = [
                ("format_total", {"amounts": [1.25, 2.5]}, "3.75 EUR"),
                ("format_total", {"amounts": [1.25, 2.5], "currency": "USD"}, "3.75 USD"),
                ("format_number", {"value": 3.14159}, "3.14"),
                ("format_number", {"value": 3.14159, "precision": 3, "unit": "m"}, "3.142 m"),
                ("format_number", {"value": 2, "unit": None}, "2.00"),
            ]
            for name, arguments, expected in calls:
                result = await conn.call_tool(name, arguments)
                assert not result.is_error, (name, arguments, result.content)
                assert texts(result) == [expected], (name, arguments)
                if at_least(conn.revision, "2025-06-18") and result.structured_content is not None:
                    assert result.structured_content == {"result": expected}
            check_call_results_shaped(conn)


async def test_unknown_tool_is_a_protocol_error(style: str, server_stderr: IO[str]) -> None:
    with anyio.fail_after(TEST_TIMEOUT):
        async with connect(style, server_stderr) as conn:
            with pytest.raises(MCPError) as caught:
                await conn.call_tool("dvide", {"a": 1, "b": 2})
            assert caught.value.code == -32602
            assert "Did you mean" in caught.value.message
            assert "divide" in caught.value.message
            (response,) = conn.wire.responses("tools/call")
            assert "result" not in response
            assert response["error"]["code"] == -32602

            # The connection is still usable afterwards.
            result = await conn.call_tool("add", {"a": 1, "b": 1})
            assert texts(result) == ["2"]


async def test_stdio_server_is_well_behaved(server_stderr: IO[str]) -> None:
    """What the SDK's stdio transport relies on, checked without the SDK.

    stdout carries only newline-delimited JSON-RPC; the server exits by itself, with status 0,
    once its stdin is closed (the SDK waits 2 s for that, then kills the process group).
    """
    env = {**os.environ, "PYTHONPATH": server_python_path()}
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        str(SERVER_SCRIPT),
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=server_stderr,
        env=env,
    )
    assert process.stdin is not None and process.stdout is not None
    try:

        async def request(message: dict[str, Any]) -> dict[str, Any]:
            assert process.stdin is not None and process.stdout is not None
            process.stdin.write(json.dumps(message).encode() + b"\n")
            await process.stdin.drain()
            while True:
                line = await asyncio.wait_for(process.stdout.readline(), REQUEST_TIMEOUT)
                assert line.endswith(b"\n"), f"stdout ended mid-message: {line!r}"
                reply = json.loads(line)
                assert isinstance(reply, dict) and reply.get("jsonrpc") == "2.0", line
                if reply.get("id") == message["id"] and "method" not in reply:
                    return reply

        init = await request(
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "initialize",
                "params": {
                    "protocolVersion": "2025-06-18",
                    "capabilities": {},
                    "clientInfo": {"name": "raw", "version": "0"},
                },
            }
        )
        assert init["result"]["protocolVersion"] == "2025-06-18"
        process.stdin.write(b'{"jsonrpc": "2.0", "method": "notifications/initialized"}\n')
        listing = await request({"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
        assert {tool["name"] for tool in listing["result"]["tools"]} == set(EXPECTED_DESCRIPTIONS)

        process.stdin.close()
        await asyncio.wait_for(process.stdin.wait_closed(), REQUEST_TIMEOUT)
        rest = await asyncio.wait_for(process.stdout.read(), REQUEST_TIMEOUT)
        for line in rest.splitlines():
            assert json.loads(line).get("jsonrpc") == "2.0", line
        assert await asyncio.wait_for(process.wait(), REQUEST_TIMEOUT) == 0
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
