"""Input limits (TL-28): message size, nesting depth and string length of tool arguments.

Over-limit arguments are ``isError`` results naming the field and the limit (DESIGN
"Errors"), decided before validation runs; over-long messages and JSON nested past the
decoder's 1024 levels are JSON-RPC errors. After each refusal the same server answers a
normal call. Every message is checked against the negotiated revision's schema, on
2025-11-25 and 2026-07-28, through a real stdio subprocess (``servers/safety_tools.py``)
and the in-memory client.
"""

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import orjson
import pytest
from pydantic import BaseModel

from toolwire import Server
from toolwire.safety import check_arguments
from toolwire.schema.function import InvalidArguments

from http_server import serve_http
from mcp_spec import WireChecker
from wire import MODERN, SERVERS, TIMEOUT, RawServer, checked_client, modern_meta, raw_server

pytestmark = pytest.mark.timeout(30)

LEGACY = "2025-11-25"
ERAS = [LEGACY, MODERN]
JSON = dict[str, Any]


def nest(levels: int, leaf: Any = 1) -> Any:
    """``leaf`` inside ``levels`` lists."""
    for _ in range(levels):
        leaf = [leaf]
    return leaf


def nest_objects(levels: int) -> Any:
    value: Any = "leaf"
    for _ in range(levels):
        value = {"a": value}
    return value


def problem(arguments: JSON, depth: int | None = 32, length: int | None = 100) -> str:
    with pytest.raises(InvalidArguments) as info:
        check_arguments(arguments, depth, length)
    return str(info.value)


# ---------------------------------------------------------------- the check itself


def test_depth_up_to_the_limit_passes_and_one_level_more_is_named() -> None:
    check_arguments({"v": nest(32)}, 32, 100)
    check_arguments({"v": nest_objects(32)}, 32, 100)
    assert problem({"v": nest(33)}) == (
        "v.0.0...0.0: Value is nested deeper than the limit of 32 levels"
    )
    assert problem({"ok": [1, 2], "tree": nest_objects(33)}) == (
        "tree.a.a...a.a: Value is nested deeper than the limit of 32 levels"
    )
    assert (
        problem({"v": [[1]]}, depth=1) == "v.0: Value is nested deeper than the limit of 1 levels"
    )
    assert problem({"v": {"x": [{"y": 2}]}}, depth=2) == (
        "v.x.0: Value is nested deeper than the limit of 2 levels"
    )


def test_strings_keys_and_names_longer_than_the_limit_are_named() -> None:
    check_arguments({"s": "x" * 100, "items": [{"name": "y" * 100}]}, 32, 100)
    assert (
        problem({"s": "x" * 101}) == "s: String of 101 characters is longer than the limit of 100"
    )
    assert problem({"items": [{"name": "ok"}, {"name": "y" * 150}]}) == (
        "items.1.name: String of 150 characters is longer than the limit of 100"
    )
    key = "k" * 101
    assert problem({"m": {key: 1}}) == (
        f"m: Key '{'k' * 37}...' of 101 characters is longer than the limit of 100"
    )
    assert problem({"n" * 101: 1}) == (
        f"Argument name '{'n' * 37}...' of 101 characters is longer than the limit of 100"
    )


def test_paths_in_messages_lose_control_characters() -> None:
    assert problem({"a\x1b[31m\x07": {"b": "x" * 101}}) == (
        "a.b: String of 101 characters is longer than the limit of 100"
    )


def test_none_turns_a_limit_off() -> None:
    check_arguments({"v": nest(200), "s": "x" * 10_000}, None, None)
    assert problem({"v": nest(200), "s": "x" * 101}, depth=None).startswith("s: String of 101")
    assert problem({"v": nest(33), "s": "x" * 10_000}, length=None).startswith("v.0.0...0.0:")


# ---------------------------------------------------------------- stdio, end to end


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """root/notes.txt, root/escape -> ../outside (which holds secret.txt)."""
    root = tmp_path / "root"
    outside = tmp_path / "outside"
    root.mkdir()
    outside.mkdir()
    (root / "notes.txt").write_text("hello")
    (outside / "secret.txt").write_text("top secret")
    (root / "escape").symlink_to(outside, target_is_directory=True)
    return root.resolve()


class Session:
    """A raw stdio session on one revision; ``call`` returns the tools/call result."""

    def __init__(self, server: RawServer, revision: str) -> None:
        self.server = server
        self.modern = revision == MODERN

    async def call(self, name: str, arguments: JSON) -> JSON:
        params = {"name": name, "arguments": arguments}
        response = await self.server.request("tools/call", params, modern=self.modern)
        assert "result" in response, response
        result: JSON = response["result"]
        return result

    async def call_raw(self, name: str, arguments: bytes) -> JSON:
        """A call whose arguments are raw JSON (nested deeper than orjson writes)."""
        mid = self.server.next_id()
        params: JSON = {"name": name, "arguments": {}}
        if self.modern:
            params["_meta"] = modern_meta()
        shell = {"jsonrpc": "2.0", "id": mid, "method": "tools/call", "params": params}
        self.server.checker.client_sent(shell)  # so the answer is checked as a CallToolResult
        line = orjson.dumps(shell).replace(b'"arguments":{}', b'"arguments":' + arguments)
        await self.server.send_raw(line)
        response = await self.server.response(mid)
        assert "result" in response, response
        result: JSON = response["result"]
        return result

    async def assert_serving(self) -> None:
        result = await self.call("echo", {"text": "still here"})
        assert result["content"] == [{"type": "text", "text": "still here"}], result
        assert not result.get("isError")


@pytest.fixture
async def session(tree: Path, request: pytest.FixtureRequest) -> AsyncIterator[Session]:
    revision: str = request.param
    async with raw_server(SERVERS / "safety_tools.py", str(tree), revision=revision) as server:
        if revision != MODERN:
            await server.initialize(revision)
        yield Session(server, revision)


def error_text(result: JSON) -> str:
    assert result.get("isError") is True, result
    assert len(result["content"]) == 1 and result["content"][0]["type"] == "text", result
    return str(result["content"][0]["text"])


@pytest.mark.parametrize("session", ERAS, indirect=True)
async def test_over_limit_arguments_are_named_in_is_error_results(session: Session) -> None:
    """The server runs with depth 8 and strings of 1000 characters."""
    cases: list[tuple[str, JSON, str]] = [
        (
            "echo",
            {"text": "x" * 1001},
            "Invalid arguments for tool 'echo': text: String of 1,001 characters is longer "
            "than the limit of 1,000",
        ),
        (
            "depth",
            {"value": nest_objects(9)},
            "Invalid arguments for tool 'depth': value.a.a...a.a: Value is nested deeper "
            "than the limit of 8 levels",
        ),
        (
            "depth",
            {"value": {"k" * 1001: 1}},
            f"Invalid arguments for tool 'depth': value: Key '{'k' * 37}...' of 1,001 "
            "characters is longer than the limit of 1,000",
        ),
    ]
    for name, arguments, expected in cases:
        assert error_text(await session.call(name, arguments)) == expected
        await session.assert_serving()
    # at the limits: accepted
    assert (await session.call("echo", {"text": "x" * 1000}))["content"][0]["text"] == "x" * 1000
    assert (await session.call("depth", {"value": nest_objects(8)}))["structuredContent"] == {
        "result": 8
    }


@pytest.mark.parametrize("session", ERAS, indirect=True)
async def test_deep_json_is_refused_cheaply_or_as_a_parse_error(session: Session) -> None:
    """500 levels reach the server and stop at the depth check (pydantic never sees them);
    past orjson's 1024 levels the message cannot be decoded: -32700, and serving goes on."""
    deep = b'{"a":' + b"[" * 500 + b"1" + b"]" * 500 + b"}"
    assert error_text(await session.call_raw("depth", b'{"value":' + deep + b"}")) == (
        "Invalid arguments for tool 'depth': value.a.0...0.0: Value is nested deeper than "
        "the limit of 8 levels"
    )
    await session.assert_serving()
    too_deep = b"[" * 1100 + b"]" * 1100
    await session.server.send_raw(
        b'{"jsonrpc":"2.0","id":99,"method":"tools/call","params":{"name":"depth",'
        b'"arguments":{"value":{"a":' + too_deep + b"}}}}"
    )
    answer = await session.server.recv()
    assert answer["error"]["code"] == -32700 and answer["id"] is None, answer
    await session.assert_serving()


async def test_the_stdio_message_limit_is_a_server_option(tree: Path) -> None:
    """``Server(max_message_bytes=N)``: a longer line is -32600 saying so, never run."""
    async with raw_server(
        SERVERS / "safety_tools.py", str(tree), "--max-bytes", "4096", revision=LEGACY
    ) as server:
        await server.initialize(LEGACY)
        session = Session(server, LEGACY)
        line = orjson.dumps(
            {
                "jsonrpc": "2.0",
                "id": 50,
                "method": "tools/call",
                "params": {"name": "echo", "arguments": {"text": "x" * 5000}},
            }
        )
        await server.send_raw(line)
        answer = await server.recv()
        assert answer["error"] == {
            "code": -32600,
            "message": "Invalid request: message larger than 4096 bytes",
        }
        await session.assert_serving()


# ---------------------------------------------------------------- in memory, defaults


class User(BaseModel):
    name: str
    tags: list[str] = []


def limits_server(**options: Any) -> Server:
    mcp = Server("limits", **options)

    @mcp.tool()
    def echo(text: str) -> str:
        """Return the text."""
        return text

    @mcp.tool()
    def size(value: list[Any]) -> int:
        """How many items ``value`` holds."""
        return len(value)

    @mcp.tool(max_string_length=10, max_argument_depth=None)
    def short(text: str, value: Any = None) -> str:
        """Only short texts; any nesting."""
        return text

    @mcp.tool()
    def add_user(user: User) -> str:
        """Register a user (validated by pydantic, after the limits)."""
        return user.name

    return mcp


@pytest.mark.parametrize("revision", ERAS)
async def test_default_limits_in_memory(revision: str) -> None:
    """Defaults: depth 32, strings of 1,000,000 characters."""
    async with checked_client(limits_server(), revision, timeout=TIMEOUT) as client:
        result = await client.call_tool("echo", {"text": "x" * 1_000_000})
        assert not result.is_error and len(result.content[0]["text"]) == 1_000_000
        result = await client.call_tool("echo", {"text": "x" * 1_000_001})
        assert result.is_error
        assert result.content[0]["text"] == (
            "Invalid arguments for tool 'echo': text: String of 1,000,001 characters is "
            "longer than the limit of 1,000,000"
        )
        assert (await client.call_tool("size", {"value": nest(32)})).structured == {"result": 1}
        result = await client.call_tool("size", {"value": nest(33)})
        assert result.is_error
        assert result.content[0]["text"] == (
            "Invalid arguments for tool 'size': value.0.0...0.0: Value is nested deeper "
            "than the limit of 32 levels"
        )
        assert (await client.call_tool("echo", {"text": "after"})).content[0]["text"] == "after"


@pytest.mark.parametrize("revision", ERAS)
async def test_server_and_tool_options_set_the_limits(revision: str) -> None:
    mcp = limits_server(max_string_length=50, max_argument_depth=4)
    async with checked_client(mcp, revision, timeout=TIMEOUT) as client:
        # the tool's own options win: strings of 10, no depth limit
        result = await client.call_tool("short", {"text": "x" * 11})
        assert result.is_error and "text: String of 11 characters" in result.content[0]["text"]
        deep = await client.call_tool("short", {"text": "ok", "value": nest(100)})
        assert not deep.is_error and deep.content[0]["text"] == "ok"
        # the server's for the others; a pydantic-validated model is checked first
        result = await client.call_tool("add_user", {"user": {"name": "n" * 51}})
        assert result.content[0]["text"] == (
            "Invalid arguments for tool 'add_user': user.name: String of 51 characters is "
            "longer than the limit of 50"
        )
        result = await client.call_tool("add_user", {"user": {"name": "a", "tags": nest(4)}})
        assert (
            result.is_error
            and "user.tags.0.0.0: Value is nested deeper than the limit of 4"
            in (result.content[0]["text"])
        )
        assert (await client.call_tool("add_user", {"user": {"name": "ada"}})).content[0][
            "text"
        ] == "ada"
    off = limits_server(max_string_length=None, max_argument_depth=None)
    async with checked_client(off, revision, timeout=TIMEOUT) as client:
        result = await client.call_tool("echo", {"text": "x" * 1_000_001})
        assert not result.is_error and len(result.content[0]["text"]) == 1_000_001
        assert (await client.call_tool("size", {"value": nest(100)})).structured == {"result": 1}


# ---------------------------------------------------------------- HTTP body size


async def test_the_http_body_limit_follows_the_server_option() -> None:
    """``Server(max_message_bytes=N)`` also bounds HTTP bodies: 413 naming the limit."""
    mcp = limits_server(max_message_bytes=2048)

    def call(mid: int, text: str) -> JSON:
        return {
            "jsonrpc": "2.0",
            "id": mid,
            "method": "tools/call",
            "params": {"name": "echo", "arguments": {"text": text}, "_meta": modern_meta()},
        }

    headers = {
        "Accept": "application/json, text/event-stream",
        "Content-Type": "application/json",
        "MCP-Protocol-Version": MODERN,
        "Mcp-Method": "tools/call",
        "Mcp-Name": "echo",
    }
    with serve_http(mcp) as url:
        async with httpx.AsyncClient(timeout=TIMEOUT) as http:
            big = await http.post(url, content=orjson.dumps(call(1, "x" * 4096)), headers=headers)
            assert big.status_code == 413
            assert big.text == "The body is larger than 2048 bytes"
            small = await http.post(url, content=orjson.dumps(call(2, "fits")), headers=headers)
            assert small.status_code == 200, small.text
            checker = WireChecker(MODERN)
            checker.client_sent(call(2, "fits"))
            checker.server_sent(small.content)
            assert small.json()["result"]["content"] == [{"type": "text", "text": "fits"}]
