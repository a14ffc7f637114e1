"""Resources on the server side: listing, templates, reading, subscriptions, list changes.

One scenario runs over memory, a real stdio subprocess and real uvicorn, on 2025-11-25
(legacy) and 2026-07-28 (modern), with raw JSON-RPC whose every message is checked by a
:class:`~mcp_spec.WireChecker`; older revisions' shaping is checked in memory; the official
``mcp`` client lists and reads the same server over stdio.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import runpy
import sys
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import httpx
import orjson
import pytest

from toolwire import Context, RegistrationError, Server, ToolError
from toolwire.resources import ResourceNotFound, UriTemplate, to_contents

import mcp_spec
from http_server import serve_http
from mcp_spec import WireChecker
from wire import SERVERS, RawPeer, RawServer, modern_meta

pytestmark = pytest.mark.skipif(
    not mcp_spec.spec_available(), reason=f"MCP schemas not found in {mcp_spec.SPEC_DIR}"
)

LEGACY = "2025-11-25"
MODERN = "2026-07-28"
SCRIPT = SERVERS / "resources_demo.py"
TIMEOUT = 10.0
SUBSCRIPTION_ID = "io.modelcontextprotocol/subscriptionId"
PROTOCOL_VERSION = "io.modelcontextprotocol/protocolVersion"
LOGO = b"\x89PNG\r\n\x1a\n\x00\xff\xfe binary"
STATIC = ["config://app", "notes://readme", "images://logo", "broken://always", "refused://always"]
TEMPLATES = ["users://{user_id}/profile", "files:///{+path}"]


def load() -> Any:
    """A fresh ``mcp`` of the demo server (not run)."""
    return runpy.run_path(str(SCRIPT))["mcp"]


# ---------------------------------------------------------------------------- peers


class MemoryPeer(RawPeer):
    """Raw JSON-RPC to a server object in the test's own event loop."""

    def __init__(self, server: Any, revision: str) -> None:
        self.checker = WireChecker(revision)
        self.inbox: asyncio.Queue[bytes] = asyncio.Queue()
        self.connection = server.connect(self.inbox.put_nowait)
        self.notifications: list[dict[str, Any]] = []
        self._ids = 0

    async def send(self, message: dict[str, Any]) -> None:
        self.checker.client_sent(message)
        self.connection.feed(orjson.dumps(message))

    async def recv(self, timeout: float = TIMEOUT) -> Any:
        data = await asyncio.wait_for(self.inbox.get(), timeout)
        self.checker.server_sent(data)
        return orjson.loads(data)


class HttpPeer(RawPeer):
    """Raw JSON-RPC over Streamable HTTP: every answer (JSON or SSE) and every message of
    the legacy GET stream and of listen streams lands in one queue, in arrival order."""

    def __init__(self, http: httpx.AsyncClient, url: str, revision: str) -> None:
        self.http = http
        self.url = url
        self.revision = revision
        self.checker = WireChecker(revision)
        self.queue: asyncio.Queue[Any] = asyncio.Queue()
        self.notifications: list[dict[str, Any]] = []
        self.session_id: str | None = None
        self.streams: list[asyncio.Task[None]] = []
        self._ids = 0

    def headers(self, message: dict[str, Any]) -> dict[str, str]:
        headers = {
            "Accept": "application/json, text/event-stream",
            "Content-Type": "application/json",
        }
        params = message.get("params") or {}
        if (params.get("_meta") or {}).get(PROTOCOL_VERSION) == MODERN:
            headers["MCP-Protocol-Version"] = MODERN
            headers["Mcp-Method"] = message["method"]
            name = params.get("name", params.get("uri"))
            if message["method"] in ("tools/call", "resources/read") and isinstance(name, str):
                headers["Mcp-Name"] = name
        elif self.session_id is not None:
            headers["Mcp-Session-Id"] = self.session_id
            headers["MCP-Protocol-Version"] = self.revision
        return headers

    async def send(self, message: dict[str, Any]) -> None:
        self.checker.client_sent(message)
        request = self.http.build_request(
            "POST", self.url, content=orjson.dumps(message), headers=self.headers(message)
        )
        response = await self.http.send(request, stream=True)
        if message.get("method") == "initialize":
            self.session_id = response.headers.get("mcp-session-id")
        if message.get("method") == "subscriptions/listen":  # answered when it ends
            self.streams.append(asyncio.create_task(self._pump(response)))
            return
        await self._pump(response)
        if message.get("method") == "notifications/initialized":
            get = self.http.build_request(
                "GET",
                self.url,
                headers={
                    "Accept": "text/event-stream",
                    "Mcp-Session-Id": self.session_id or "",
                    "MCP-Protocol-Version": self.revision,
                },
            )
            stream = await self.http.send(get, stream=True)
            self.streams.append(asyncio.create_task(self._pump(stream)))

    async def _pump(self, response: httpx.Response) -> None:
        try:
            kind = response.headers.get("content-type", "")
            if kind.startswith("application/json"):
                self.queue.put_nowait(await response.aread())
            elif kind.startswith("text/event-stream"):
                async for line in response.aiter_lines():
                    if line.startswith("data:") and line[5:].strip():
                        self.queue.put_nowait(line[5:].strip())
            else:  # 202 for a notification; anything else is a failure
                body = await response.aread()
                assert response.status_code == 202, (response.status_code, body)
        finally:
            await response.aclose()

    async def recv(self, timeout: float = TIMEOUT) -> Any:
        data = await asyncio.wait_for(self.queue.get(), timeout)
        self.checker.server_sent(data)
        return orjson.loads(data)

    async def close(self) -> None:
        for task in self.streams:
            task.cancel()
        await asyncio.gather(*self.streams, return_exceptions=True)


@contextlib.asynccontextmanager
async def peer_for(transport: str, revision: str) -> AsyncIterator[RawPeer]:
    """A raw peer talking ``revision`` to the demo server over ``transport``, initialized
    when legacy."""
    peer: Any
    if transport == "memory":
        server = load()
        await server.start()
        peer = MemoryPeer(server, revision)
        try:
            if revision != MODERN:
                await peer.initialize(revision)
            yield peer
        finally:
            peer.connection.close()
            await server.stop()
    elif transport == "stdio":
        peer = await RawServer.start(SCRIPT, revision=revision)
        try:
            if revision != MODERN:
                await peer.initialize(revision)
            yield peer
        finally:
            await peer.close()
    else:
        with serve_http(load()) as url:
            async with httpx.AsyncClient(timeout=TIMEOUT) as http:
                peer = HttpPeer(http, url, revision)
                try:
                    if revision != MODERN:
                        await peer.initialize(revision)
                    yield peer
                finally:
                    await peer.close()
    assert peer.checker.checked > 0


async def notification(
    peer: RawPeer, method: str, where: Callable[[dict[str, Any]], bool] = lambda m: True
) -> dict[str, Any]:
    """The first notification ``method`` matching ``where`` (kept ones first, then new ones)."""
    for kept in peer.notifications:
        if kept["method"] == method and where(kept):
            peer.notifications.remove(kept)
            return kept
    while True:
        message = await peer.recv(TIMEOUT)
        if message.get("method") == method and "id" not in message and where(message):
            return message
        peer.notifications.append(message)


def result_of(answer: dict[str, Any]) -> dict[str, Any]:
    assert "result" in answer, answer
    return answer["result"]  # type: ignore[no-any-return]


def error_of(answer: dict[str, Any]) -> dict[str, Any]:
    assert "error" in answer, answer
    return answer["error"]  # type: ignore[no-any-return]


TRANSPORTS = ["memory", "stdio", "http"]
ERAS = [LEGACY, MODERN]


# ---------------------------------------------------------------------------- end to end


@pytest.mark.parametrize("revision", ERAS)
@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_list_and_read_over_every_transport(transport: str, revision: str) -> None:
    """Listing with pages, templates apart, reads of text/JSON/binary/template URIs, errors."""
    modern = revision == MODERN
    async with peer_for(transport, revision) as peer:

        async def ask(method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
            return await peer.request(method, params, modern=modern)

        # resources/list: pages of 2 (PG-06), chained by opaque cursors; no templates in it.
        uris, cursor, pages = [], None, 0
        while True:
            page = result_of(await ask("resources/list", {"cursor": cursor} if cursor else {}))
            pages += 1
            assert len(page["resources"]) <= 2
            uris += [r["uri"] for r in page["resources"]]
            if modern:  # MP-12: caching hints on every page, one scope for the list (PG-07)
                assert page["resultType"] == "complete"
                assert page["cacheScope"] == "public" and page["ttlMs"] >= 0
            else:
                assert "ttlMs" not in page and "resultType" not in page
            cursor = page.get("nextCursor")
            if cursor is None:
                break
        assert uris == STATIC and pages == 3
        config = result_of(await ask("resources/list"))["resources"][0]
        assert config["name"] == "config" and config["title"] == "App configuration"
        assert config["description"] == "The application's settings."
        assert config["icons"][0]["src"] == "https://example.com/icon.png"
        assert config["_meta"] == {"example.com/owner": "ops"}
        assert config["annotations"]["lastModified"] == "2025-01-12T15:00:58Z"

        templates = result_of(await ask("resources/templates/list"))
        assert [t["uriTemplate"] for t in templates["resourceTemplates"]] == TEMPLATES
        assert "nextCursor" not in templates
        assert templates["resourceTemplates"][0]["description"] == "One user's profile."
        if modern:
            assert templates["cacheScope"] == "public"

        read = result_of(await ask("resources/read", {"uri": "config://app"}))
        assert read["contents"] == [
            {
                "uri": "config://app",
                "mimeType": "application/json",
                "text": '{"theme":"dark","retries":3}',
            }
        ]
        if modern:
            assert read["resultType"] == "complete"
            assert read["ttlMs"] == 0 and read["cacheScope"] == "private"
        markdown = result_of(await ask("resources/read", {"uri": "notes://readme"}))
        assert markdown["contents"][0]["mimeType"] == "text/markdown"

        blob = result_of(await ask("resources/read", {"uri": "images://logo"}))["contents"][0]
        assert "text" not in blob and blob["mimeType"] == "image/png"
        assert base64.b64decode(blob["blob"]) == LOGO  # binary round trip

        # Template variables: typed (int), percent-decoded, reserved ({+path} spans "/").
        user = result_of(await ask("resources/read", {"uri": "users://2/profile"}))
        assert user["contents"][0] == {
            "uri": "users://2/profile",
            "mimeType": "text/plain",
            "text": f"Grace (read on {revision})",
        }
        path = result_of(await ask("resources/read", {"uri": "files:///docs/a%20b.md"}))
        assert path["contents"][0]["text"] == "contents of docs/a b.md"

        not_found = -32602 if modern else -32002
        for uri in ("nothing://here", "users://9/profile", "users://abc/profile"):
            error = error_of(await ask("resources/read", {"uri": uri}))
            assert error["code"] == not_found and error["data"] == {"uri": uri}, error
        assert (
            "No user 9"
            in error_of(await ask("resources/read", {"uri": "users://9/profile"}))["message"]
        )
        # On 2026-07-28 HTTP a uri that is no string cannot match its Mcp-Name header either.
        invalid = {-32602, -32020} if transport == "http" and modern else {-32602}
        for bad in ({}, {"uri": 5}, {"uri": ""}):
            assert error_of(await ask("resources/read", bad))["code"] in invalid

        # A failing resource function: masked when unexpected, its own words when deliberate.
        broken = error_of(await ask("resources/read", {"uri": "broken://always"}))
        assert broken["code"] == -32603 and "hunter2" not in broken["message"]
        assert "reference" in broken["message"]
        refused = error_of(await ask("resources/read", {"uri": "refused://always"}))
        assert (refused["code"], refused["message"]) == (-32603, "Not today")

        # Tools: ctx.read_resource, a link to a template's resource, an embedded resource.
        peek = result_of(
            await ask("tools/call", {"name": "peek", "arguments": {"uri": "users://1/profile"}})
        )
        assert peek["content"][0]["text"] == f"Ada (read on {revision})"
        missing = result_of(
            await ask("tools/call", {"name": "peek", "arguments": {"uri": "nothing://here"}})
        )
        assert missing["isError"] and "Resource not found" in missing["content"][0]["text"]
        link = result_of(await ask("tools/call", {"name": "link", "arguments": {"user_id": 1}}))
        assert link["content"][0] == {
            "type": "resource_link",
            "uri": "users://1/profile",
            "name": "profile",
            "title": "User profile",
            "description": "One user's profile.",
            "mimeType": "text/plain",  # what a read of it answers (its function gives str)
            "annotations": {"lastModified": "2025-01-12T15:00:58Z"},
            "icons": [
                {"src": "https://example.com/icon.png", "mimeType": "image/png", "sizes": ["48x48"]}
            ],
        }
        embedded = result_of(await ask("tools/call", {"name": "embed", "arguments": {}}))
        assert embedded["content"][0]["type"] == "resource"
        assert embedded["content"][0]["resource"]["uri"] == "config://app"


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_legacy_subscribe_update_unsubscribe(transport: str) -> None:
    """Only subscribed sessions hear of updates; unsubscribing stops them; list changes."""
    async with peer_for(transport, LEGACY) as peer:
        assert result_of(await peer.request("resources/subscribe", {"uri": "config://app"})) == {}
        # touch is a sync tool: resource_updated is called from a worker thread
        await peer.request("tools/call", {"name": "touch", "arguments": {"uri": "config://app"}})
        updated = await notification(peer, "notifications/resources/updated")
        assert updated["params"] == {"uri": "config://app"}

        assert result_of(await peer.request("resources/unsubscribe", {"uri": "config://app"})) == {}
        await peer.request("tools/call", {"name": "touch", "arguments": {"uri": "config://app"}})
        await peer.request("resources/subscribe", {"uri": "users://2/profile"})  # a template's
        await peer.request(
            "tools/call", {"name": "touch", "arguments": {"uri": "users://2/profile"}}
        )
        # The next update is the template resource's: the unsubscribed one was never sent.
        updated = await notification(peer, "notifications/resources/updated")
        assert updated["params"] == {"uri": "users://2/profile"}

        error = error_of(await peer.request("resources/subscribe", {"uri": "nothing://here"}))
        assert error["code"] == -32002 and error["data"] == {"uri": "nothing://here"}

        await peer.request("tools/call", {"name": "add_note", "arguments": {"name": "todo"}})
        await notification(peer, "notifications/resources/list_changed")
        read = result_of(await peer.request("resources/read", {"uri": "notes://todo"}))
        assert read["contents"][0]["text"] == "note todo"
        await peer.request("tools/call", {"name": "drop_note", "arguments": {"name": "todo"}})
        await notification(peer, "notifications/resources/list_changed")
        assert error_of(await peer.request("resources/read", {"uri": "notes://todo"}))


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_modern_listen_with_resource_subscriptions(transport: str) -> None:
    """2026-07-28: resourceSubscriptions and resourcesListChanged on a listen stream; the
    acknowledgement lists only URIs served here; resources/subscribe is gone (-32601)."""
    async with peer_for(transport, MODERN) as peer:
        listen_id = peer.next_id()
        await peer.send(
            {
                "jsonrpc": "2.0",
                "id": listen_id,
                "method": "subscriptions/listen",
                "params": {
                    "_meta": modern_meta(),
                    "notifications": {
                        "resourcesListChanged": True,
                        "resourceSubscriptions": ["config://app", "nothing://here"],
                    },
                },
            }
        )
        ack = await notification(peer, "notifications/subscriptions/acknowledged")
        assert ack["params"]["notifications"] == {
            "resourcesListChanged": True,
            "resourceSubscriptions": ["config://app"],
        }
        await peer.request(
            "tools/call", {"name": "touch", "arguments": {"uri": "notes://readme"}}, modern=True
        )
        await peer.request(
            "tools/call", {"name": "touch", "arguments": {"uri": "config://app"}}, modern=True
        )
        updated = await notification(peer, "notifications/resources/updated")
        assert updated["params"] == {"_meta": {SUBSCRIPTION_ID: listen_id}, "uri": "config://app"}

        await peer.request(
            "tools/call", {"name": "add_note", "arguments": {"name": "n"}}, modern=True
        )
        changed = await notification(peer, "notifications/resources/list_changed")
        assert changed["params"]["_meta"][SUBSCRIPTION_ID] == listen_id

        for method in ("resources/subscribe", "resources/unsubscribe"):
            answer = await peer.request(method, {"uri": "config://app"}, modern=True)
            assert error_of(answer)["code"] == -32601
        assert not [
            n for n in peer.notifications if n["method"] == "notifications/resources/updated"
        ]


# ---------------------------------------------------------------------------- per revision

RESOURCE_KEYS = {
    "2024-11-05": {"uri", "name", "description", "mimeType", "size", "annotations"},
    "2025-03-26": {"uri", "name", "description", "mimeType", "size", "annotations"},
    "2025-06-18": {
        "uri",
        "name",
        "title",
        "description",
        "mimeType",
        "size",
        "annotations",
        "_meta",
    },
}


@pytest.mark.parametrize("revision", list(RESOURCE_KEYS))
async def test_older_revisions_see_only_what_they_define(revision: str) -> None:
    """No title before 2025-06-18, no icons before 2025-11-25, no lastModified or _meta
    before 2025-06-18, no resource_link before 2025-06-18 (schema-checked as well)."""
    async with peer_for("memory", revision) as peer:
        capabilities = (await peer.initialize(revision))["result"]["capabilities"]
        assert capabilities["resources"] == {"subscribe": True, "listChanged": True}
        config = result_of(await peer.request("resources/list"))["resources"][0]
        assert set(config) == RESOURCE_KEYS[revision]
        assert ("lastModified" in config["annotations"]) == (revision >= "2025-06-18")
        template = result_of(await peer.request("resources/templates/list"))["resourceTemplates"]
        assert all("icons" not in t for t in template)
        assert ("title" in template[0]) == (revision >= "2025-06-18")
        link = result_of(
            await peer.request("tools/call", {"name": "link", "arguments": {"user_id": 2}})
        )
        first = link["content"][0]
        if revision < "2025-06-18":
            assert first == {"type": "text", "text": "Resource: User profile <users://2/profile>"}
        else:
            assert first["type"] == "resource_link" and "icons" not in first
        read = result_of(await peer.request("resources/read", {"uri": "images://logo"}))
        assert base64.b64decode(read["contents"][0]["blob"]) == LOGO


async def test_a_server_without_resources_answers_as_before() -> None:
    """No resources capability, resources/* unknown, listen acknowledges nothing of them."""
    server = Server("tools-only")

    @server.tool()
    def add(a: int, b: int) -> int:
        return a + b

    peer = MemoryPeer(server, LEGACY)
    init = result_of(await peer.initialize(LEGACY))
    assert "resources" not in init["capabilities"]
    for method in ("resources/list", "resources/templates/list", "resources/read"):
        assert error_of(await peer.request(method, {"uri": "x://y"}))["code"] == -32601
    assert server.accepted_notifications({"resourcesListChanged": True}) == {}
    peer.connection.close()


async def test_list_changed_on_add_and_remove_in_memory() -> None:
    """Adding or removing a resource or template tells legacy sessions, once per burst."""
    server = Server("changing")
    server.add_resource("first", "text://one")
    await server.start()
    peer = MemoryPeer(server, LEGACY)
    await peer.initialize(LEGACY)
    server.add_resource("second", "text://two")
    server.add_resource(lambda n: n, "text://{n}")
    await notification(peer, "notifications/resources/list_changed")
    server.remove_resource("text://{n}")
    await notification(peer, "notifications/resources/list_changed")
    listed = result_of(await peer.request("resources/list"))["resources"]
    assert [r["uri"] for r in listed] == ["text://one", "text://two"]
    assert result_of(await peer.request("resources/templates/list"))["resourceTemplates"] == []
    assert not peer.notifications  # the burst above was announced once
    with pytest.raises(KeyError):
        server.remove_resource("text://three")
    peer.connection.close()
    await server.stop()


async def test_a_resource_is_described_by_its_whole_docstring() -> None:
    """A template's ``Args:`` describe its variables, which a listing has no other place for:
    they stay in the description (as the SDK and FastMCP list it); a tool's move to its
    input schema."""
    server = Server("documented")

    def config(env: str) -> str:
        """One environment's configuration.

        Args:
            env: Environment name (dev, staging, prod).
        """
        return env

    server.resource("config://env/{env}")(config)
    server.tool(config)
    await server.start()
    peer = MemoryPeer(server, LEGACY)
    await peer.initialize(LEGACY)
    [template] = result_of(await peer.request("resources/templates/list"))["resourceTemplates"]
    assert template["description"] == (
        "One environment's configuration.\n\nArgs:\n    env: Environment name (dev, staging, prod)."
    )
    [tool] = result_of(await peer.request("tools/list"))["tools"]
    assert tool["description"] == "One environment's configuration."
    assert tool["inputSchema"]["properties"]["env"]["description"] == (
        "Environment name (dev, staging, prod)."
    )
    peer.connection.close()
    await server.stop()


async def test_read_resource_outside_a_request_and_completers() -> None:
    """``read_resource`` works without a request; ``find_template`` exposes completers."""
    server = load()
    contents = await server.read_resource("files:///a/b.txt")
    assert contents == [
        {"uri": "files:///a/b.txt", "mimeType": "text/plain", "text": "contents of a/b.txt"}
    ]
    with pytest.raises(ResourceNotFound):
        await server.read_resource("nothing://here")
    template = server.find_template("users://{user_id}/profile")
    assert template.completers["user_id"]("") == ["1", "2"]
    assert server.find_template("users://{id}") is None


# ---------------------------------------------------------------------------- the model


def test_uri_template_match_and_expand() -> None:
    template = UriTemplate("users://{user_id}/posts/{post}")
    assert template.variables == ["user_id", "post"]
    assert template.match("users://42/posts/hello%20world") == {
        "user_id": "42",
        "post": "hello world",
    }
    assert template.match("users://42/posts/a/b") is None  # {var} is one segment
    assert template.match("users:///posts/x") is None  # and never empty
    assert template.expand(user_id=42, post="a/b c") == "users://42/posts/a%2Fb%20c"
    reserved = UriTemplate("file:///{+path}")
    assert reserved.match("file:///src/main.py") == {"path": "src/main.py"}
    assert reserved.expand(path="src/a b.py") == "file:///src/a%20b.py"
    path = UriTemplate("skill://pdf/{path*}")  # FastMCP's spelling of a path: segments
    assert path.variables == ["path"]
    assert path.match("skill://pdf/docs/a%20b.md") == {"path": "docs/a b.md"}
    assert path.match("skill://pdf/") is None and path.match("skill://pdf/a?b") is None
    assert path.expand(path="docs/a b.md") == "skill://pdf/docs/a%20b.md"
    for bad in ("x://{a,b}", "x://{?q}", "x://{a}/{a}", "x://{a", "x://a}"):
        with pytest.raises(ValueError):
            UriTemplate(bad)


def test_registration_errors_name_the_problem() -> None:
    server = Server("bad")

    def needs(user_id: int) -> str:
        return ""

    with pytest.raises(RegistrationError, match="URI template"):
        server.add_resource(needs, "users://profile")
    with pytest.raises(RegistrationError, match="no parameter"):
        server.add_resource(lambda: "", "users://{user_id}")
    with pytest.raises(RegistrationError, match="required"):
        server.add_resource(lambda user_id, other: "", "users://{user_id}")
    with pytest.raises(RegistrationError, match="not variables"):
        server.add_resource(needs, "users://{user_id}", complete={"name": lambda v: []})
    with pytest.raises(RegistrationError, match="Invalid resource URI"):
        server.add_resource(lambda: "", "no scheme")
    with pytest.raises(RegistrationError, match="'priorty': did you mean 'priority'"):
        server.add_resource(lambda: "", "x://y", annotations={"priorty": 0.5})
    plain = server.add_resource(lambda: "", "x://z", annotations={"color": "red", "priority": 1})
    assert plain.annotations == {"priority": 1}  # a key the protocol lacks is left out
    server.add_resource("text", "x://y")
    with pytest.raises(RegistrationError, match="already"):
        server.add_resource("again", "x://y")
    with pytest.raises(TypeError):
        server.resource(needs)  # type: ignore[call-overload]


def test_return_values_become_contents() -> None:
    assert to_contents("hi", "notes://a.md") == [
        {"uri": "notes://a.md", "mimeType": "text/markdown", "text": "hi"}
    ]
    assert to_contents("hi", "x://y") == [{"uri": "x://y", "mimeType": "text/plain", "text": "hi"}]
    assert to_contents(b"\x00\x01", "x://y", "application/x-raw") == [
        {"uri": "x://y", "mimeType": "application/x-raw", "blob": "AAE="}
    ]
    assert to_contents({"a": [1]}, "x://y") == [
        {"uri": "x://y", "mimeType": "application/json", "text": '{"a":[1]}'}
    ]
    two = to_contents(["one", b"\x02"], "x://y")
    assert [sorted(c) for c in two] == [["mimeType", "text", "uri"], ["blob", "mimeType", "uri"]]
    from toolwire import File

    assert to_contents(File(data=b"a,b", format="csv"), "x://t")[0]["text"] == "a,b"


async def test_context_and_sync_functions_on_threads() -> None:
    """A sync resource runs off the event loop and sees the request's Context."""
    server = Server("ctx")
    seen: list[Any] = []

    @server.resource("state://{key}")
    def state(key: str, ctx: Context) -> str:
        seen.append(ctx.request_id)
        return key.upper()

    @server.tool()
    async def relay(ctx: Context) -> str:
        (content,) = await ctx.read_resource("state://abc")
        return str(content["text"])

    peer = MemoryPeer(server, MODERN)
    answer = result_of(await peer.request("resources/read", {"uri": "state://xyz"}, modern=True))
    assert answer["contents"][0]["text"] == "XYZ"
    relayed = result_of(
        await peer.request("tools/call", {"name": "relay", "arguments": {}}, modern=True)
    )
    assert relayed["content"][0]["text"] == "ABC"
    assert seen == [1, 2]
    peer.connection.close()


async def test_tool_error_from_read_resource_is_an_error_result() -> None:
    server = Server("errors")

    @server.resource("secret://value")
    def secret() -> str:
        raise ToolError("Locked")

    with pytest.raises(ToolError, match="Locked"):
        await server.read_resource("secret://value")


# ---------------------------------------------------------------------------- official client


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
async def test_official_client_lists_and_reads(mode: str) -> None:
    """The official SDK client (stdio) lists resources and templates and reads them."""
    from mcp import Client, StdioServerParameters

    src = str(Path(__file__).resolve().parents[1] / "src")
    params = StdioServerParameters(
        command=sys.executable, args=[str(SCRIPT)], env={"PYTHONPATH": src}
    )

    async def scenario() -> None:
        async with Client(params, mode=mode, read_timeout_seconds=20) as client:  # type: ignore[arg-type]
            listed = await client.list_resources()
            assert [str(r.uri) for r in listed.resources] == STATIC[:2]
            assert listed.next_cursor is not None
            templates = await client.list_resource_templates()
            assert [t.uri_template for t in templates.resource_templates] == TEMPLATES
            read = await client.read_resource("users://1/profile")
            assert read.contents[0].text == f"Ada (read on {client.protocol_version})"  # type: ignore[union-attr]
            logo = await client.read_resource("images://logo")
            assert base64.b64decode(logo.contents[0].blob) == LOGO  # type: ignore[union-attr]

    await asyncio.wait_for(scenario(), 45)


async def test_http_resources_read_needs_a_matching_mcp_name() -> None:
    """HT-29: on 2026-07-28 a resources/read POST mirrors its uri in Mcp-Name; a mismatch
    is refused with 400 and HeaderMismatch (-32020) before the server reads anything."""
    with serve_http(load()) as url:
        async with httpx.AsyncClient(timeout=TIMEOUT) as http:
            peer = HttpPeer(http, url, MODERN)
            message = {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "resources/read",
                "params": {"_meta": modern_meta(), "uri": "config://app"},
            }
            peer.checker.client_sent(message)
            headers = {**peer.headers(message), "Mcp-Name": "config://other"}
            response = await http.post(url, content=orjson.dumps(message), headers=headers)
            assert response.status_code == 400
            peer.checker.server_sent(response.content)
            assert response.json()["error"]["code"] == -32020
            good = await http.post(
                url, content=orjson.dumps({**message, "id": 2}), headers=peer.headers(message)
            )
            assert good.json()["result"]["contents"][0]["uri"] == "config://app"


@pytest.mark.parametrize("revision", ERAS)
async def test_template_variables_complete_through_their_completers(revision: str) -> None:
    """``complete={"user_id": fn}`` answers completion/complete for the template's variable."""
    async with peer_for("memory", revision) as peer:
        answer = await peer.request(
            "completion/complete",
            {
                "ref": {"type": "ref/resource", "uri": "users://{user_id}/profile"},
                "argument": {"name": "user_id", "value": "2"},
            },
            modern=revision == MODERN,
        )
        assert result_of(answer)["completion"]["values"] == ["2"]
