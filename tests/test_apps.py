"""MCP Apps on the server (the extension ``io.modelcontextprotocol/ui``): ``mcp.app(uri,
html)`` serves a view, ``@mcp.tool(app=uri, visible_to=...)`` links tools to it. The server is
the example ``examples/checklist_app.py`` over a real stdio subprocess and over real HTTP on
127.0.0.1, on a legacy revision and on 2026-07-28, every message checked against the
revision's schema; the ``_meta.ui`` objects are checked against the JSON Schema shipped in the
npm package ``@modelcontextprotocol/ext-apps``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from interop import peers
from toolwire import Client, Context, Host, RegistrationError, Server, ServerError
from toolwire.client.host.host import UnknownToolError
from toolwire.extensions.apps import MIME_TYPE, UI

from http_server import example_over
from wire import EXAMPLES, checked_client

pytestmark = [pytest.mark.timeout(60), pytest.mark.peers("npm-ext-apps")]

LEGACY, MODERN = "2025-11-25", "2026-07-28"
EXAMPLE = EXAMPLES / "checklist_app.py"
VIEW = "ui://checklist/view"
RENDERS = {UI: {"mimeTypes": [MIME_TYPE]}}


def ext_apps_schema(name: str) -> dict[str, Any]:
    """A definition of the ext-apps package's JSON Schema, usable on its own."""
    _, folder = peers.ext_apps()
    schema = json.loads((folder / "dist" / "src" / "generated" / "schema.json").read_text())
    return {**schema["$defs"][name], "$defs": schema["$defs"]}


@pytest.mark.parametrize("transport", ["stdio", "http"])
@pytest.mark.parametrize("revision", [LEGACY, MODERN])
async def test_a_host_that_renders_apps_gets_the_view_and_every_tool(
    transport: str, revision: str
) -> None:
    tool_meta, resource_meta = (
        ext_apps_schema("McpUiToolMeta"),
        ext_apps_schema("McpUiResourceMeta"),
    )
    with example_over(EXAMPLE, transport) as target:
        async with checked_client(target, revision, extensions=RENDERS) as client:
            assert client.server_extensions == {UI: {}}
            tools = {tool["name"]: tool for tool in await client.list_tools()}
            assert sorted(tools) == ["add_item", "show_checklist", "toggle_item"]
            for tool in tools.values():
                jsonschema.validate(tool["_meta"]["ui"], tool_meta)
                assert tool["_meta"]["ui"]["resourceUri"] == VIEW
                assert tool["_meta"]["ui/resourceUri"] == VIEW  # the key older hosts read
            assert tools["toggle_item"]["_meta"]["ui"]["visibility"] == ["app"]
            assert "visibility" not in tools["show_checklist"]["_meta"]["ui"]  # the default

            listed = {entry["uri"]: entry for entry in await client.list_resources()}
            assert listed[VIEW]["mimeType"] == MIME_TYPE
            jsonschema.validate(listed[VIEW]["_meta"]["ui"], resource_meta)
            read = await client.read_resource(VIEW)
            [content] = read.contents
            assert content["mimeType"] == MIME_TYPE
            assert content["text"] == EXAMPLE.with_suffix(".html").read_text()
            assert content["_meta"] == {"ui": {"prefersBorder": True}}
            jsonschema.validate(content["_meta"]["ui"], resource_meta)

            shown = await client.call_tool("show_checklist", {})
            ticked = await client.call_tool("toggle_item", {"index": 0})
            assert shown.structured["items"][0]["done"] is False
            assert ticked.structured["items"][0]["done"] is True
            assert ticked.structured["remaining"] == shown.structured["remaining"] - 1
            assert json.loads(ticked.text) == ticked.structured  # text for every client


@pytest.mark.parametrize("transport", ["stdio", "http"])
@pytest.mark.parametrize("revision", [LEGACY, MODERN])
async def test_a_client_without_apps_sees_plain_tools(transport: str, revision: str) -> None:
    with example_over(EXAMPLE, transport) as target:
        async with checked_client(target, revision) as client:
            assert client.server_extensions == {UI: {}}
            names = [tool["name"] for tool in await client.list_tools()]
            assert names == ["show_checklist", "add_item"]  # toggle_item is the view's alone
            with pytest.raises(ServerError) as unknown:
                await client.call_tool("toggle_item", {"index": 0})
            assert "toggle_item" in unknown.value.message
            added = await client.call_tool("add_item", {"text": "Announce it"})
            assert added.structured["items"][-1] == {"text": "Announce it", "done": False}
            [content] = (await client.read_resource(VIEW)).contents  # still readable
            assert content["mimeType"] == MIME_TYPE


async def test_a_declaration_without_the_app_type_is_not_rendering() -> None:
    mcp = Server("apps")
    mcp.app("ui://apps/view", "<!doctype html><p>view</p>")

    @mcp.tool(app="ui://apps/view")
    def where(ctx: Context) -> bool:
        return ctx.client_renders_apps

    @mcp.tool(app="ui://apps/view", visible_to="app")
    def hidden() -> str:
        return "for the view"

    other_type = {UI: {"mimeTypes": ["text/html"]}}
    for extensions, renders in (({}, False), (other_type, False), (RENDERS, True)):
        for revision in (LEGACY, MODERN):
            async with checked_client(mcp, revision, extensions=extensions) as client:
                assert (await client.call_tool("where", {})).structured == {"result": renders}
                names = {tool["name"] for tool in await client.list_tools()}
                assert ("hidden" in names) is renders


async def test_views_from_a_function_a_decorator_and_a_file(tmp_path: Path) -> None:
    page = tmp_path / "view.html"
    page.write_text("<!doctype html><p>first</p>")
    mcp = Server("apps")
    mcp.app("ui://apps/file", page)
    mcp.app("ui://apps/sync", lambda: "<p>sync</p>", name="sync view")

    @mcp.app("ui://apps/async", title="Async view", resource_domains=["https://cdn.example.com"])
    async def dashboard() -> str:
        """The dashboard."""
        return "<p>async</p>"

    async with Client(mcp) as client:
        listed = {entry["uri"]: entry for entry in await client.list_resources()}
        assert listed["ui://apps/async"]["name"] == "dashboard"
        assert listed["ui://apps/async"]["description"] == "The dashboard."
        assert listed["ui://apps/async"]["_meta"] == {
            "ui": {"csp": {"resourceDomains": ["https://cdn.example.com"]}}
        }
        assert listed["ui://apps/sync"]["name"] == "sync view"
        texts = {
            uri: (await client.read_resource(uri)).contents[0]["text"] for uri in sorted(listed)
        }
        assert texts == {
            "ui://apps/async": "<p>async</p>",
            "ui://apps/file": "<!doctype html><p>first</p>",
            "ui://apps/sync": "<p>sync</p>",
        }
        page.write_text("<!doctype html><p>edited</p>")  # read on every read
        assert (
            (await client.read_resource("ui://apps/file"))
            .contents[0]["text"]
            .endswith("<p>edited</p>")
        )


async def test_every_csp_list_and_permission_reaches_the_resource() -> None:
    mcp = Server("apps")
    mcp.app(
        "ui://apps/full",
        "<p>full</p>",
        connect_domains=["https://api.example.com", "wss://live.example.com:8443"],
        resource_domains=["https://*.cdn.example.com"],
        frame_domains=["https://www.youtube.com"],
        base_uri_domains=["https://cdn.example.com/base/"],
        permissions=["camera", "clipboardWrite"],
        prefers_border=False,
        domain="apps.example.com",
    )
    async with Client(mcp) as client:
        [content] = (await client.read_resource("ui://apps/full")).contents
    ui = content["_meta"]["ui"]
    assert ui == {
        "csp": {
            "connectDomains": ["https://api.example.com", "wss://live.example.com:8443"],
            "resourceDomains": ["https://*.cdn.example.com"],
            "frameDomains": ["https://www.youtube.com"],
            "baseUriDomains": ["https://cdn.example.com/base/"],
        },
        "permissions": {"camera": {}, "clipboardWrite": {}},
        "prefersBorder": False,
        "domain": "apps.example.com",
    }
    jsonschema.validate(ui, ext_apps_schema("McpUiResourceMeta"))


@pytest.mark.parametrize(
    ("register", "message"),
    [
        (lambda mcp: mcp.app("https://x/view", "<p>"), "must be a ui:// URI"),
        (lambda mcp: mcp.app("ui://", "<p>"), "must be a ui:// URI"),
        (lambda mcp: mcp.app("ui://a/v", "view.html"), "pathlib.Path"),
        (lambda mcp: mcp.app("ui://a/v", Path("/nonexistent/view.html")), "no HTML file"),
        (lambda mcp: mcp.app("ui://a/v", 42), "html must be"),
        (
            lambda mcp: mcp.app("ui://a/v", "<p>", connect_domains=["https://a.com; script-src *"]),
            "not an origin",
        ),
        (lambda mcp: mcp.app("ui://a/v", "<p>", resource_domains=["*"]), "not an origin"),
        (
            lambda mcp: mcp.app("ui://a/v", "<p>", frame_domains=["'unsafe-inline'"]),
            "not an origin",
        ),
        (lambda mcp: mcp.app("ui://a/v", "<p>", connect_domains="https://a.com"), "not a str"),
        (lambda mcp: mcp.app("ui://a/v", "<p>", permissions=["usb"]), "unknown permissions"),
        (lambda mcp: mcp.app("ui://a/v", "<p>", prefers_border="yes"), "True or False"),
        (lambda mcp: mcp.app("ui://a/v", "<p>", domain="a b"), "host name"),
        (lambda mcp: mcp.tool(app="https://x")(lambda: 1), "must be a ui:// URI"),
        (lambda mcp: mcp.tool(visible_to=["app"])(lambda: 1), "needs app="),
        (lambda mcp: mcp.tool(app="ui://a/v", visible_to=[])(lambda: 1), "visible_to must"),
        (lambda mcp: mcp.tool(app="ui://a/v", visible_to=["user"])(lambda: 1), "visible_to must"),
        (
            lambda mcp: mcp.tool(app="ui://a/v", visible_to=["app", "app"])(lambda: 1),
            "visible_to must",
        ),
        (
            lambda mcp: mcp.tool(app="ui://a/v", meta={"ui": {"resourceUri": "ui://b"}})(lambda: 1),
            "sets _meta 'ui' itself",
        ),
    ],
)
def test_registration_refuses_what_a_host_would_reject(register: Any, message: str) -> None:
    mcp = Server("apps")
    with pytest.raises(RegistrationError, match=message):
        register(mcp)


async def test_a_tool_whose_view_is_missing_stops_the_server_from_starting() -> None:
    mcp = Server("apps")
    mcp.app("ui://apps/one", "<p>one</p>")

    @mcp.tool(app="ui://apps/other")
    def show() -> str:
        return "shown"

    with pytest.raises(
        RegistrationError, match=r"'show' shows the app 'ui://apps/other'.*mcp\.app"
    ):
        async with Client(mcp):
            pass
    with pytest.raises(RegistrationError, match="already registered"):
        mcp.app("ui://apps/one", "<p>again</p>")
    mcp.remove_tool("show")
    async with Client(mcp) as client:  # nothing points to a missing view any more
        assert await client.list_tools() == []


async def test_a_server_without_apps_advertises_no_extension() -> None:
    mcp = Server("plain")
    mcp.add_tool(lambda: 1, name="one")
    async with checked_client(mcp, MODERN) as client:
        assert client.server_extensions == {}


async def test_a_host_does_not_offer_its_model_the_tools_of_a_view() -> None:
    with example_over(EXAMPLE, "stdio") as target:
        async with Host({"checklist": target}, extensions=RENDERS) as host:
            listed = [tool["name"] for tool in await host.clients["checklist"].list_tools()]
            assert "toggle_item" in listed  # the server lists it: this client renders views
            offered = [tool.name for tool in await host.list_tools()]
            assert offered == ["show_checklist", "add_item"]
            assert [tool["function"]["name"] for tool in host.openai_tools()] == offered
            with pytest.raises(UnknownToolError, match="toggle_item"):
                await host.call_tool("toggle_item", {"index": 0})
