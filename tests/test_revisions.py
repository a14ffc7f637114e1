"""Both eras on the wire: legacy handshakes, modern per-request metadata, pagination.

Every message in both directions goes through a :class:`~mcp_spec.WireChecker` for the
revision in use, so a test passing also means the server's output matched the official
JSON Schema of that revision. Servers run in memory (``MemoryWire``, ``checked_client``)
and as real stdio subprocesses (``raw_server``).
"""

from __future__ import annotations

import asyncio
import base64
import runpy
import subprocess
import sys
from pathlib import Path
from typing import Any

import orjson
import pytest

from toolwire import Server, types
from toolwire.protocol.revisions import (
    LATEST,
    LATEST_LEGACY,
    LEGACY_REVISIONS,
    REVISIONS,
    SUPPORTED_NEWEST_FIRST,
)

import mcp_spec
from mcp_spec import WireChecker
from wire import SERVERS, checked_client, modern_meta, raw_server

pytestmark = pytest.mark.skipif(
    not mcp_spec.spec_available(), reason=f"MCP schemas not found in {mcp_spec.SPEC_DIR}"
)

V2024, V2025_03, V2025_06, V2025_11, V2026 = REVISIONS
SERVER_INFO = "io.modelcontextprotocol/serverInfo"
PROTOCOL_VERSION = "io.modelcontextprotocol/protocolVersion"
CLIENT_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities"
TIMEOUT = 10.0


def load_server(script: str) -> Any:
    """The ``mcp`` object of a test server script, built fresh (not run)."""
    return runpy.run_path(str(SERVERS / script))["mcp"]


class MemoryWire:
    """Raw JSON-RPC to a server object in memory; every message is schema-checked."""

    def __init__(self, server: Any, revision: str | None = None) -> None:
        self.checker = WireChecker(revision)
        self.inbox: asyncio.Queue[bytes] = asyncio.Queue()
        self.connection = server.connect(self.inbox.put_nowait)
        self.notifications: list[dict[str, Any]] = []
        self._ids = 0

    async def request(
        self,
        method: str,
        params: dict[str, Any] | None = None,
        *,
        modern: bool = False,
        meta: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        self._ids += 1
        mid = self._ids
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": mid, "method": method}
        if modern or meta is not None:
            extra = meta if meta is not None else modern_meta()
            params = {**(params or {}), "_meta": extra}
        if params is not None:
            message["params"] = params
        self.checker.client_sent(message)
        self.connection.feed(orjson.dumps(message))
        while True:
            data = await asyncio.wait_for(self.inbox.get(), TIMEOUT)
            self.checker.server_sent(data)
            answer = orjson.loads(data)
            if answer.get("id") == mid:
                return answer  # type: ignore[no-any-return]
            self.notifications.append(answer)

    async def notify(self, method: str) -> None:
        message = {"jsonrpc": "2.0", "method": method}
        self.checker.client_sent(message)
        self.connection.feed(orjson.dumps(message))

    async def initialize(self, version: Any) -> dict[str, Any]:
        answer = await self.request(
            "initialize",
            {
                "protocolVersion": version,
                "capabilities": {},
                "clientInfo": {"name": "t", "version": "0"},
            },
        )
        await self.notify("notifications/initialized")
        return answer

    def close(self) -> None:
        while not self.inbox.empty():
            self.checker.server_sent(self.inbox.get_nowait())
        self.connection.close()
        self.checker.close()


@pytest.fixture
def rich() -> Any:
    return load_server("rev_rich.py")


@pytest.fixture
def paged() -> Any:
    return load_server("rev_paged.py")


def error_code(answer: dict[str, Any]) -> int:
    assert "result" not in answer, answer
    return answer["error"]["code"]  # type: ignore[no-any-return]


# ---------------------------------------------------------------------------- legacy handshake


@pytest.mark.parametrize("revision", LEGACY_REVISIONS)
async def test_legacy_initialize_echoes_the_requested_revision(rich: Any, revision: str) -> None:
    """LC-03, LC-08, LC-13: echo a supported version; declare tools; serverInfo; instructions."""
    wire = MemoryWire(rich)
    answer = await wire.initialize(revision)
    result = answer["result"]
    assert result["protocolVersion"] == revision
    assert "tools" in result["capabilities"]
    assert result["serverInfo"] == {"name": "rev-rich", "version": "3.1.4"}
    assert result["instructions"] == "Rich tools for revision tests."
    assert "resultType" not in result and "_meta" not in result
    listed = await wire.request("tools/list")
    assert [t["name"] for t in listed["result"]["tools"]] == ["rich", "media", "echo"]
    assert "ttlMs" not in listed["result"] and "resultType" not in listed["result"]
    assert (await wire.request("ping"))["result"] == {}
    wire.close()
    assert wire.checker.revision == revision
    assert wire.checker.checked >= 6


@pytest.mark.parametrize("requested", ["2099-01-01", "1.0", "2024-10-07", "2026-07-28"])
async def test_unknown_version_is_answered_with_the_latest_legacy(
    rich: Any, requested: str
) -> None:
    """LC-08: not an error; the server proposes its own latest (legacy) revision."""
    wire = MemoryWire(rich)
    answer = await wire.initialize(requested)
    assert answer["result"]["protocolVersion"] == LATEST_LEGACY
    assert (await wire.request("tools/list"))["result"]["tools"]
    wire.close()


async def test_ping_before_and_after_initialize(rich: Any) -> None:
    """PI-01: ping is answered with ``{}`` even before initialization."""
    wire = MemoryWire(rich)
    assert (await wire.request("ping"))["result"] == {}
    await wire.initialize(V2025_03)
    assert (await wire.request("ping"))["result"] == {}
    wire.close()


@pytest.mark.parametrize(
    ("method", "params"),
    [
        ("tools/list", None),
        ("tools/call", {"name": "echo", "arguments": {"text": "x"}}),
        ("logging/setLevel", {"level": "info"}),
    ],
)
async def test_requests_before_initialize_need_modern_meta(
    rich: Any, method: str, params: Any
) -> None:
    """JR-34: without ``initialize`` and without modern ``_meta`` the revision is unknown: -32602."""
    wire = MemoryWire(rich, LATEST_LEGACY)
    answer = await wire.request(method, params)
    assert error_code(answer) == -32602
    assert PROTOCOL_VERSION in answer["error"]["message"]
    wire.close()


async def test_server_discover_is_not_a_legacy_method(rich: Any) -> None:
    """``server/discover`` exists only in 2026-07-28: -32601 on a legacy session."""
    wire = MemoryWire(rich)
    await wire.initialize(V2025_11)
    assert error_code(await wire.request("server/discover")) == -32601
    wire.close()


async def test_instructions_are_left_out_when_not_configured() -> None:
    bare = Server("bare", version="0.0.1")
    legacy = MemoryWire(bare)
    result = (await legacy.initialize(V2025_06))["result"]
    assert "instructions" not in result
    assert "tools" in result["capabilities"]
    legacy.close()
    modern = MemoryWire(bare, V2026)
    discovered = (await modern.request("server/discover", modern=True))["result"]
    assert "instructions" not in discovered
    modern.close()


@pytest.mark.parametrize("revision", REVISIONS)
async def test_server_info_per_revision(revision: str) -> None:
    """Implementation.title since 2025-06-18; description/websiteUrl/icons since 2025-11-25."""
    icons = [{"src": "https://example.com/s.png", "mimeType": "image/png"}]
    server = Server(
        "info",
        version="2.0",
        title="Info Server",
        description="Describes itself",
        website_url="https://example.com",
        icons=icons,
    )
    wire = MemoryWire(server)
    if revision == V2026:
        info = (await wire.request("server/discover", modern=True))["result"]["_meta"][SERVER_INFO]
    else:
        info = (await wire.initialize(revision))["result"]["serverInfo"]
    expected: dict[str, Any] = {"name": "info", "version": "2.0"}
    if revision >= V2025_06:
        expected["title"] = "Info Server"
    if revision >= V2025_11:
        expected.update(
            description="Describes itself", websiteUrl="https://example.com", icons=icons
        )
    assert info == expected
    wire.close()


# ---------------------------------------------------------------------------- modern era


async def test_server_discover(rich: Any) -> None:
    """LC-20, LC-21, MP-12: supportedVersions, capabilities, instructions, caching hints, serverInfo."""
    wire = MemoryWire(rich, V2026)
    result = (await wire.request("server/discover", modern=True))["result"]
    assert result["resultType"] == "complete"
    assert result["supportedVersions"] == list(SUPPORTED_NEWEST_FIRST)
    assert "tools" in result["capabilities"]
    assert result["instructions"] == "Rich tools for revision tests."
    assert isinstance(result["ttlMs"], int) and result["ttlMs"] >= 0
    assert result["cacheScope"] in ("public", "private")
    assert result["_meta"][SERVER_INFO] == {"name": "rev-rich", "version": "3.1.4"}
    wire.close()


async def test_every_modern_result_carries_result_type_and_server_info(rich: Any) -> None:
    """JR-29, LC-21: discover, tools/list, tools/call (plain, rich, failing) all say so."""
    wire = MemoryWire(rich, V2026)
    answers = [
        await wire.request("server/discover", modern=True),
        await wire.request("tools/list", modern=True),
        await wire.request(
            "tools/call", {"name": "echo", "arguments": {"text": "hi"}}, modern=True
        ),
        await wire.request("tools/call", {"name": "rich", "arguments": {"n": 2}}, modern=True),
        await wire.request("tools/call", {"name": "echo", "arguments": {}}, modern=True),
    ]
    for answer in answers:
        result = answer["result"]
        assert result["resultType"] == "complete"
        assert result["_meta"][SERVER_INFO] == {"name": "rev-rich", "version": "3.1.4"}
    assert answers[-1]["result"]["isError"] is True  # invalid arguments: a tool error (TL-26)
    wire.close()


async def test_modern_tools_list_carries_caching_hints(rich: Any) -> None:
    """TL-36: ``ttlMs`` (integer >= 0) and ``cacheScope`` on tools/list."""
    wire = MemoryWire(rich, V2026)
    result = (await wire.request("tools/list", modern=True))["result"]
    assert isinstance(result["ttlMs"], int) and result["ttlMs"] >= 0
    assert result["cacheScope"] in ("public", "private")
    assert "nextCursor" not in result
    wire.close()


@pytest.mark.parametrize(
    "meta",
    [
        {CLIENT_CAPABILITIES: {}},  # no protocolVersion
        {PROTOCOL_VERSION: V2026},  # no clientCapabilities
        {PROTOCOL_VERSION: V2026, CLIENT_CAPABILITIES: "all"},  # not an object
        {},
    ],
    ids=["no-version", "no-capabilities", "bad-capabilities", "empty"],
)
@pytest.mark.parametrize("method", ["server/discover", "tools/list", "tools/call"])
async def test_missing_modern_meta_is_invalid_params(
    rich: Any, meta: dict[str, Any], method: str
) -> None:
    """JR-34: protocolVersion and clientCapabilities are both required: -32602."""
    wire = MemoryWire(rich, V2026)
    params = {"name": "echo", "arguments": {"text": "x"}} if method == "tools/call" else None
    answer = await wire.request(method, params, meta=meta)
    assert error_code(answer) == -32602
    wire.close()


@pytest.mark.parametrize("requested", ["2099-01-01", "1900-01-01", "2025-06-18", "draft"])
async def test_unsupported_modern_version(rich: Any, requested: str) -> None:
    """LC-18: -32022 UnsupportedProtocolVersionError with ``data.supported`` and ``data.requested``."""
    wire = MemoryWire(rich, V2026)
    meta = {**modern_meta(), PROTOCOL_VERSION: requested}
    answer = await wire.request("tools/list", meta=meta)
    assert error_code(answer) == -32022
    data = answer["error"]["data"]
    assert data["requested"] == requested
    assert data["supported"][0] == LATEST
    assert set(data["supported"]) <= set(REVISIONS)
    wire.close()


@pytest.mark.parametrize("method", ["ping", "logging/setLevel", "resources/list", "no/such/method"])
async def test_legacy_only_and_unknown_methods_on_modern_requests(rich: Any, method: str) -> None:
    """ping and logging/setLevel are removed in 2026-07-28: -32601 like any unknown method (HT-31)."""
    wire = MemoryWire(rich, V2026)
    params = {"level": "info"} if method == "logging/setLevel" else None
    assert error_code(await wire.request(method, params, modern=True)) == -32601
    wire.close()


async def test_modern_requests_leave_no_session_behind(rich: Any) -> None:
    """JR-32: nothing is remembered between modern requests; the next bare request still fails."""
    wire = MemoryWire(rich, V2026)
    assert (await wire.request("tools/list", modern=True))["result"]["tools"]
    assert error_code(await wire.request("tools/list")) == -32602
    wire.close()


async def test_era_is_resolved_per_request(rich: Any) -> None:
    """A legacy session keeps its revision; a request with modern ``_meta`` is answered as modern."""
    wire = MemoryWire(rich)
    await wire.initialize(V2025_06)
    legacy = (await wire.request("tools/list"))["result"]
    assert "resultType" not in legacy and "icons" not in legacy["tools"][0]
    checker = WireChecker(V2026)  # the modern exchange is judged by the modern schema
    message = {
        "jsonrpc": "2.0",
        "id": "m1",
        "method": "tools/list",
        "params": {"_meta": modern_meta()},
    }
    checker.client_sent(message)
    wire.connection.feed(orjson.dumps(message))
    data = await asyncio.wait_for(wire.inbox.get(), TIMEOUT)
    checker.server_sent(data)
    modern = orjson.loads(data)["result"]
    assert modern["resultType"] == "complete" and "icons" in modern["tools"][0]
    again = (await wire.request("tools/list"))["result"]
    assert again == legacy
    wire.close()


# ---------------------------------------------------------------------------- each revision sees its own shape

RICH_INPUT = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}
RICH_OUTPUT = {
    "type": "object",
    "properties": {"n": {"type": "integer"}, "square": {"type": "integer"}},
    "required": ["n", "square"],
}
RICH_BASE = {
    "name": "rich",
    "description": "Square a number and attach a file link and a sound.",
    "inputSchema": RICH_INPUT,
}
RICH_ANNOTATIONS = {"title": "Rich (annotation)", "readOnlyHint": True, "openWorldHint": False}
RICH_ICONS = [{"src": "https://example.com/rich.png", "mimeType": "image/png", "sizes": ["48x48"]}]
RICH_2025_06 = {
    "name": "rich",
    "title": "Rich Tool",
    "description": RICH_BASE["description"],
    "inputSchema": RICH_INPUT,
    "outputSchema": RICH_OUTPUT,
    "annotations": RICH_ANNOTATIONS,
    "_meta": {"com.example/owner": "tests"},
}
RICH_TOOL = {
    V2024: RICH_BASE,
    V2025_03: {**RICH_BASE, "annotations": RICH_ANNOTATIONS},
    V2025_06: RICH_2025_06,
    V2025_11: {**RICH_2025_06, "icons": RICH_ICONS},
    V2026: {**RICH_2025_06, "icons": RICH_ICONS},
}
AUDIO_B64 = "UklGRiQAAABXQVZFZm10IBAAAAABAAEARKwAAIhYAQACABAAZGF0YQAAAAA="
SQUARE_TEXT = {"type": "text", "text": '{"n":3,"square":9}'}
LINK = {
    "type": "resource_link",
    "uri": "file:///data/report.txt",
    "name": "report.txt",
    "title": "The Report",
    "mimeType": "text/plain",
}
AUDIO = {"type": "audio", "data": AUDIO_B64, "mimeType": "audio/wav"}
LINK_TEXT = {"type": "text", "text": "Resource: The Report <file:///data/report.txt>"}
AUDIO_TEXT = {"type": "text", "text": "[audio content (audio/wav)]"}
RICH_FULL_RESULT = {
    "content": [SQUARE_TEXT, LINK, AUDIO],
    "structuredContent": {"n": 3, "square": 9},
}
RICH_RESULT = {
    V2024: {"content": [SQUARE_TEXT, LINK_TEXT, AUDIO_TEXT]},
    V2025_03: {"content": [SQUARE_TEXT, LINK_TEXT, AUDIO]},
    V2025_06: RICH_FULL_RESULT,
    V2025_11: RICH_FULL_RESULT,
    V2026: RICH_FULL_RESULT,
}
MEDIA_LINK = {"type": "resource_link", "uri": "https://example.com/a.csv", "name": "a.csv"}
MEDIA_AUDIO = {"type": "audio", "data": base64.b64encode(b"RIFF").decode(), "mimeType": "audio/wav"}
DONE = {"type": "text", "text": "done"}
MEDIA_RESULT = {
    V2024: [
        {"type": "text", "text": "Resource: a.csv <https://example.com/a.csv>"},
        AUDIO_TEXT,
        DONE,
    ],
    V2025_03: [
        {"type": "text", "text": "Resource: a.csv <https://example.com/a.csv>"},
        MEDIA_AUDIO,
        DONE,
    ],
    V2025_06: [MEDIA_LINK, MEDIA_AUDIO, DONE],
    V2025_11: [MEDIA_LINK, MEDIA_AUDIO, DONE],
    V2026: [MEDIA_LINK, MEDIA_AUDIO, DONE],
}


def strip_modern(result: dict[str, Any], revision: str, name: str = "rev-rich") -> dict[str, Any]:
    """Check and remove what every 2026-07-28 result carries; legacy results carry none of it."""
    result = dict(result)
    if revision == V2026:
        assert result.pop("resultType") == "complete"
        meta = result.pop("_meta")
        assert meta[SERVER_INFO]["name"] == name
    else:
        assert "resultType" not in result
    return result


@pytest.mark.parametrize("revision", REVISIONS)
async def test_each_revision_sees_only_what_it_defines(rich: Any, revision: str) -> None:
    """Changelogs §2: one tool definition, five shapes; every message schema-checked."""
    async with checked_client(rich, revision) as client:
        assert client.protocol_version == revision
        tools = {t["name"]: t for t in await client.list_tools()}
        assert tools["rich"] == RICH_TOOL[revision]
        result = await client.call_tool("rich", {"n": 3})
        assert strip_modern(result.raw, revision) == RICH_RESULT[revision]
        media = await client.call_tool("media", {})
        assert strip_modern(media.raw, revision) == {"content": MEDIA_RESULT[revision]}
        assert client.checker.revision == revision  # type: ignore[attr-defined]


async def test_stdio_legacy_2024_sees_the_oldest_shape() -> None:
    async with raw_server("rev_rich.py") as server:
        answer = await server.initialize(V2024)
        assert answer["result"]["protocolVersion"] == V2024
        assert answer["result"]["serverInfo"] == {"name": "rev-rich", "version": "3.1.4"}
        tools = (await server.request("tools/list"))["result"]["tools"]
        assert tools[0] == RICH_TOOL[V2024]
        result = (await server.request("tools/call", {"name": "rich", "arguments": {"n": 3}}))[
            "result"
        ]
        assert result == RICH_RESULT[V2024]
        assert (await server.request("ping"))["result"] == {}
        code, rest, _ = await server.close()
        assert code == 0 and rest == b""
        assert server.checker.revision == V2024


async def test_stdio_modern_sees_the_newest_shape() -> None:
    async with raw_server("rev_rich.py", revision=V2026) as server:
        discovered = (await server.request("server/discover", modern=True))["result"]
        assert discovered["supportedVersions"] == list(SUPPORTED_NEWEST_FIRST)
        tools = (await server.request("tools/list", modern=True))["result"]
        assert tools["tools"][0] == RICH_TOOL[V2026]
        call = await server.request(
            "tools/call", {"name": "rich", "arguments": {"n": 3}}, modern=True
        )
        assert strip_modern(call["result"], V2026) == RICH_RESULT[V2026]
        bad = await server.request(
            "tools/list", {"_meta": {PROTOCOL_VERSION: "2099-01-01", CLIENT_CAPABILITIES: {}}}
        )
        assert bad["error"]["code"] == -32022
        assert (await server.request("ping", modern=True))["error"]["code"] == -32601


@pytest.mark.parametrize("revision", [V2025_03, V2026])
async def test_stdio_client_negotiates_each_era(revision: str) -> None:
    """The client over a real subprocess, both eras, schema-checked."""
    async with checked_client([sys.executable, str(SERVERS / "rev_rich.py")], revision) as client:
        assert client.server_info["name"] == "rev-rich"
        assert client.instructions == "Rich tools for revision tests."
        tools = await client.list_tools()
        assert [t["name"] for t in tools] == ["rich", "media", "echo"]
        assert (await client.call_tool("echo", {"text": "hi"})).text == "hi"


# ---------------------------------------------------------------------------- pagination

PAGED_NAMES = ["delta", "alpha", "echo", "bravo", "charlie"]


async def collect_pages(wire: MemoryWire, modern: bool) -> list[dict[str, Any]]:
    pages: list[dict[str, Any]] = []
    cursor: str | None = None
    while True:
        params = {"cursor": cursor} if cursor is not None else None
        page = (await wire.request("tools/list", params, modern=modern))["result"]
        pages.append(page)
        cursor = page.get("nextCursor")
        if cursor is None:
            return pages
        assert len(pages) < 10


@pytest.mark.parametrize("revision", [V2024, V2025_11, V2026])
async def test_pages_come_in_order_with_opaque_cursors(paged: Any, revision: str) -> None:
    """TL-04, PG-01..PG-04, PG-07: page size 2 over 5 tools; no nextCursor on the last page."""
    wire = MemoryWire(paged, revision if revision == V2026 else None)
    modern = revision == V2026
    if not modern:
        await wire.initialize(revision)
    pages = await collect_pages(wire, modern)
    assert [[t["name"] for t in p["tools"]] for p in pages] == [
        ["delta", "alpha"],
        ["echo", "bravo"],
        ["charlie"],
    ]
    assert "nextCursor" not in pages[-1]
    cursors = [p["nextCursor"] for p in pages[:-1]]
    for cursor in cursors:
        assert isinstance(cursor, str) and cursor
        assert cursor not in PAGED_NAMES  # opaque, not the raw position
    if modern:
        assert {p["cacheScope"] for p in pages} == {pages[0]["cacheScope"]}  # PG-07
        assert all(isinstance(p["ttlMs"], int) and p["ttlMs"] >= 0 for p in pages)
    # Cursors are stable: asking again gives the same page (PG-02).
    again = (await wire.request("tools/list", {"cursor": cursors[0]}, modern=modern))["result"]
    assert again == pages[1]
    wire.close()


@pytest.mark.parametrize(
    "cursor",
    [
        "garbage",
        "%%%not-base64%%%",
        base64.urlsafe_b64encode(b"zulu").decode(),
        "ZGVsdGE=x",
        "\u00e9\u00e9",
    ],
)
@pytest.mark.parametrize("modern", [False, True], ids=["legacy", "modern"])
async def test_invalid_cursor_is_invalid_params(paged: Any, cursor: str, modern: bool) -> None:
    """PG-05: an invalid cursor gets -32602 and the server carries on."""
    wire = MemoryWire(paged, V2026 if modern else None)
    if not modern:
        await wire.initialize(V2025_11)
    assert error_code(await wire.request("tools/list", {"cursor": cursor}, modern=modern)) == -32602
    assert len((await wire.request("tools/list", modern=modern))["result"]["tools"]) == 2
    wire.close()


async def test_non_string_cursor_is_invalid_params(paged: Any) -> None:
    wire = MemoryWire(paged, V2026)
    for cursor in (7, {"at": 2}, ["x"]):
        assert (
            error_code(await wire.request("tools/list", {"cursor": cursor}, modern=True)) == -32602
        )
    wire.close()


async def test_cursor_naming_a_removed_tool_is_invalid_params(paged: Any) -> None:
    wire = MemoryWire(paged, V2026)
    first = (await wire.request("tools/list", modern=True))["result"]
    cursor = first["nextCursor"]
    paged.remove_tool("echo")  # the first tool of the next page
    assert error_code(await wire.request("tools/list", {"cursor": cursor}, modern=True)) == -32602
    pages = await collect_pages(wire, True)
    assert [t["name"] for p in pages for t in p["tools"]] == ["delta", "alpha", "bravo", "charlie"]
    wire.close()


async def test_cached_pages_are_rebuilt_when_a_tool_is_added(paged: Any) -> None:
    """DESIGN "Hot path": the cached tools/list page is invalidated when the tool set changes."""
    for modern in (True, False):
        wire = MemoryWire(paged, V2026 if modern else None)
        if not modern:
            await wire.initialize(V2025_06)
        before = await collect_pages(wire, modern)
        assert "nextCursor" not in before[-1]
        wire.close()

    def foxtrot() -> str:
        """The foxtrot tool."""
        return "f"

    paged.add_tool(foxtrot)
    for modern in (True, False):
        wire = MemoryWire(paged, V2026 if modern else None)
        if not modern:
            await wire.initialize(V2025_06)
        after = await collect_pages(wire, modern)
        assert [[t["name"] for t in p["tools"]] for p in after] == [
            ["delta", "alpha"],
            ["echo", "bravo"],
            ["charlie", "foxtrot"],
        ]
        # A cursor handed out before the change still works (stable cursors, PG-02).
        old = await wire.request("tools/list", {"cursor": before[1]["nextCursor"]}, modern=modern)
        assert [t["name"] for t in old["result"]["tools"]] == ["charlie", "foxtrot"]
        wire.close()


@pytest.mark.parametrize("revision", REVISIONS)
async def test_client_follows_every_page(paged: Any, revision: str) -> None:
    """PG-03: the client follows nextCursor to the end, in every revision."""
    async with checked_client(paged, revision) as client:
        assert [t["name"] for t in await client.list_tools()] == PAGED_NAMES


async def test_tool_order_is_deterministic_across_processes() -> None:
    """TL-35, TL-34: two server processes (different hash seeds) list the same tools in the same order."""
    listings = []
    for seed in ("1", "2"):
        async with raw_server(
            "rev_paged.py", revision=V2026, env={"PYTHONHASHSEED": seed}
        ) as server:
            pages = []
            cursor = None
            while True:
                params = {"cursor": cursor} if cursor else None
                page = (await server.request("tools/list", params, modern=True))["result"]
                pages.append(page)
                cursor = page.get("nextCursor")
                if cursor is None:
                    break
            listings.append(pages)
    assert listings[0] == listings[1]
    assert [t["name"] for p in listings[0] for t in p["tools"]] == PAGED_NAMES


# ---------------------------------------------------------------------------- known bugs elsewhere


def test_public_types_import_works_in_a_fresh_interpreter() -> None:
    done = subprocess.run(
        [sys.executable, "-c", "from toolwire import types; print(types.CallToolResult.__name__)"],
        capture_output=True,
        text=True,
        timeout=30,
        cwd=str(Path(__file__).resolve().parent),
    )
    assert done.returncode == 0, done.stderr[-500:]
    assert done.stdout.strip() == "CallToolResult"


def test_call_tool_result_return_type_declares_no_output_schema() -> None:
    server = Server("x")

    @server.tool()
    def raw() -> types.CallToolResult:
        return types.CallToolResult(content=[types.TextContent(text="hi")])

    assert "outputSchema" not in server.tools[0].definition


async def test_content_list_return_keeps_its_output_schema_promise() -> None:
    server = Server("x")

    @server.tool()
    def links() -> list:
        return [types.ResourceLink(uri="https://example.com/a", name="a"), "text"]

    async with checked_client(server, V2026) as client:
        tool = (await client.list_tools())[0]
        result = await client.call_tool("links", {})
    assert "outputSchema" not in tool or result.structured is not None
