"""Resources, prompts and completion on the low-level server (the official SDK's
``@server.list_resources()`` / ``read_resource()`` / ``list_prompts()`` / ``get_prompt()`` /
``completion()`` handlers), end to end over memory and a stdio subprocess, every message
checked against the negotiated revision's schema; and the official SDK's client against it."""

from __future__ import annotations

import asyncio
import base64
import importlib.util
import os
import re
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import anyio
import pytest

from toolwire import ServerError, types
from toolwire.lowlevel import Server

from primitive_clients import TIMEOUT, Changes, strict_client
from wire import SERVERS

LEGACY = "2025-11-25"
MODERN = "2026-07-28"
SCRIPT = SERVERS / "lowlevel_primitives.py"
SRC_DIR = Path(__file__).resolve().parents[1] / "src"
REFERENCE = r"\(reference [0-9a-f]{8}\)"
ICON = [{"src": "https://example.com/note.png", "mimeType": "image/png"}]


def load_server() -> ModuleType:
    """A fresh copy of the stdio server's module (its own server and state)."""
    spec = importlib.util.spec_from_file_location("lowlevel_primitives", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def target(transport: str) -> Any:
    return load_server().server if transport == "memory" else [sys.executable, str(SCRIPT)]


async def failure(call: Any) -> ServerError:
    with pytest.raises(ServerError) as info:
        await call
    return info.value


async def check_resources(client: Any, revision: str) -> None:
    modern = revision == MODERN
    listing = await client.request("resources/list", {})
    assert listing["resources"] == [
        {
            "uri": "notes://readme",
            "name": "readme",
            "title": "Read me",
            "mimeType": "text/plain",
            "icons": ICON,
            "_meta": {"example.com/owner": "docs"},
        },
        {"uri": "notes://logo", "name": "logo", "mimeType": "image/png"},
    ]
    # 2026-07-28 lists carry caching hints (TL-36, PG-07); legacy ones never do.
    assert (listing.get("ttlMs"), listing.get("cacheScope")) == (
        (60_000, "public") if modern else (None, None)
    )
    assert await client.list_resource_templates() == [
        {"uriTemplate": "notes://{name}", "name": "note", "title": "A note"}
    ]
    readme = await client.read_resource("notes://readme")
    assert readme.contents == [
        {"uri": "notes://readme", "mimeType": "text/plain", "text": "Read the notes."}
    ]
    assert (readme.raw.get("ttlMs"), readme.raw.get("cacheScope")) == (
        (0, "private") if modern else (None, None)
    )
    assert readme.raw.get("resultType") == ("complete" if modern else None)
    logo = await client.read_resource("notes://logo")
    assert logo.contents[0]["mimeType"] == "image/png"
    assert base64.b64decode(logo.contents[0]["blob"]) == b"\x89PNG\r\n\x1a\n" + b"\x00" * 8
    pair = await client.read_resource("notes://pair")
    assert [(c["mimeType"], c["text"]) for c in pair.contents] == [
        ("text/markdown", "# one"),
        ("text/plain", "two"),
    ]


async def check_resource_errors(client: Any, revision: str) -> None:
    not_found = -32602 if revision == MODERN else -32002  # RS-07 per era
    missing = await failure(client.read_resource("notes://nope"))
    assert (missing.code, missing.data) == (not_found, {"uri": "notes://nope"})
    # A KeyError of the handler's own code means "no such resource" too.
    keyed = await failure(client.read_resource("notes://missing-key"))
    assert (keyed.code, keyed.message) == (not_found, "No note called missing-key")
    broken = await failure(client.read_resource("notes://broken"))
    assert broken.code == -32603
    assert re.fullmatch(
        f"Reading 'notes://broken' failed with an internal error {REFERENCE}", broken.message
    )
    assert "hunter2" not in str(broken)


async def check_prompts(client: Any) -> None:
    assert await client.list_prompts() == [
        {
            "name": "review",
            "title": "Code review",
            "description": "Ask for a code review",
            "arguments": [
                {"name": "code", "description": "The code", "required": True},
                {"name": "language", "title": "Language"},
            ],
        },
        {"name": "greet"},
    ]
    review = await client.get_prompt("review", {"code": "x = 1", "language": "rust"})
    assert review.description == "Ask for a code review"
    assert review.messages == [
        {"role": "user", "content": {"type": "text", "text": "Review this rust code:"}},
        {"role": "user", "content": {"type": "text", "text": "x = 1"}},
    ]
    greet = await client.get_prompt("greet")
    assert [(m["role"], m["content"]["text"]) for m in greet.messages] == [
        ("user", "Hello!"),
        ("assistant", "Hi, how can I help?"),
    ]
    unknown = await failure(client.get_prompt("nope"))
    assert (unknown.code, unknown.message) == (-32602, "Unknown prompt: nope")
    refused = await failure(client.get_prompt("review", {"code": "x", "language": "cobol"}))
    assert (refused.code, refused.message) == (-32603, "Unsupported language: cobol")
    broken = await failure(client.get_prompt("broken"))
    assert re.fullmatch(
        f"Prompt 'broken' failed with an internal error {REFERENCE}", broken.message
    )
    assert broken.code == -32603 and "abc123" not in str(broken)


async def check_completion(client: Any) -> None:
    languages = await client.complete(argument="language", value="p", prompt="review")
    assert languages.values == ["python", "perl"]
    notes = await client.complete(
        argument="name", value="a", resource_template="notes://{name}", context={"x": "y"}
    )
    assert (notes.values, notes.total, notes.has_more) == (["a-1"], 7, True)
    nothing = await client.complete(argument="code", value="", prompt="review")
    assert nothing.values == []


@pytest.mark.parametrize("revision", [LEGACY, MODERN])
@pytest.mark.parametrize("transport", ["memory", "stdio"])
async def test_resources_prompts_and_completion_end_to_end(transport: str, revision: str) -> None:
    async with strict_client(target(transport), revision) as (client, _):
        capabilities = client.server_capabilities
        resources = (
            {"listChanged": True}
            if revision == MODERN
            else {"listChanged": True, "subscribe": True}
        )
        assert capabilities["resources"] == resources
        assert capabilities["prompts"] == {"listChanged": True}
        assert capabilities["completions"] == {}
        await check_resources(client, revision)
        await check_resource_errors(client, revision)
        await check_prompts(client)
        await check_completion(client)
        assert (await client.call_tool("echo", {"a": 1})).text == "echo: {'a': 1}"


async def test_older_revisions_get_their_own_shapes() -> None:
    async with strict_client(load_server().server, "2025-03-26") as (client, _):
        assert "completions" in client.server_capabilities  # exists since 2025-03-26
        readme = (await client.list_resources())[0]
        assert readme == {"uri": "notes://readme", "name": "readme", "mimeType": "text/plain"}
        review = (await client.list_prompts())[0]
        assert "title" not in review and "title" not in review["arguments"][1]
    async with strict_client(load_server().server, "2024-11-05") as (client, _):
        assert "completions" not in client.server_capabilities


def tools_only() -> Server:
    server = Server("tools-only")

    @server.list_tools()
    async def handle_list_tools() -> list[types.Tool]:
        return [types.Tool(name="ping_me", inputSchema={"type": "object"})]

    @server.call_tool()
    async def handle_call_tool(name: str, arguments: dict[str, Any]) -> str:
        return "pong"

    return server


@pytest.mark.parametrize("revision", [LEGACY, MODERN])
async def test_a_tools_only_low_level_server_answers_as_before(revision: str) -> None:
    async with strict_client(tools_only(), revision) as (client, _):
        assert client.server_capabilities == {"tools": {"listChanged": True}, "logging": {}}
        for method, params in (
            ("resources/list", {}),
            ("resources/templates/list", {}),
            ("resources/read", {"uri": "notes://x"}),
            ("prompts/list", {}),
            ("prompts/get", {"name": "x"}),
            (
                "completion/complete",
                {
                    "ref": {"type": "ref/prompt", "name": "x"},
                    "argument": {"name": "a", "value": ""},
                },
            ),
        ):
            error = await failure(client.request(method, params))
            assert error.code == -32601, method
        assert (await client.call_tool("ping_me", {})).text == "pong"


async def test_subscriptions_on_legacy_revisions() -> None:
    module = load_server()
    server = module.server
    updates: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
    async with strict_client(server, LEGACY) as (client, _):
        await client.subscribe_resource("notes://readme", updates.put_nowait)
        assert module.subscribed == ["notes://readme"]
        server.resource_updated("notes://readme")
        server.resource_updated("notes://logo")  # nobody asked: nothing is sent
        update = await asyncio.wait_for(updates.get(), TIMEOUT)
        assert update["uri"] == "notes://readme"
        await client.request("resources/unsubscribe", {"uri": "notes://readme"})
        await client.ping()  # the unsubscribe is processed before the next update
        server.resource_updated("notes://readme")
        await client.ping()
        assert updates.empty()
    # Without a subscribe handler the method is not offered, nor the capability.
    plain = Server("plain")
    plain.read_resource()(lambda uri: "text")
    async with strict_client(plain, LEGACY) as (client, _):
        assert client.server_capabilities["resources"] == {"listChanged": True}
        error = await failure(client.request("resources/subscribe", {"uri": "notes://x"}))
        assert error.code == -32601
        assert (await client.read_resource("any://thing")).text == "text"
        unlisted = await failure(client.request("resources/list", {}))
        assert unlisted.code == -32601


@pytest.mark.parametrize("revision", [LEGACY, MODERN])
async def test_list_changes_reach_clients(revision: str) -> None:
    server = load_server().server
    async with strict_client(server, revision) as (client, _):
        changes = Changes()
        client.change_handler = changes
        if revision == MODERN:  # list changes come only on a listen stream that asks
            await client.listen(
                tools_list_changed=False, resources_list_changed=True, prompts_list_changed=True
            )
        server.resources_changed()
        server.prompts_changed()
        await changes.wait_for("notifications/resources/list_changed")
        await changes.wait_for("notifications/prompts/list_changed")


@pytest.mark.parametrize("types_module", ["mcp.types", "toolwire.types"])
async def test_handlers_may_return_typed_objects(types_module: str) -> None:
    """The official SDK's types, or toolwire's own, as handlers written for either return."""
    import importlib

    sdk: Any = importlib.import_module(types_module)
    server = Server("sdk-types")

    @server.list_resources()
    def handle_list_resources() -> list[Any]:
        return [sdk.Resource(uri="memo://one", name="one", mimeType="text/plain")]

    @server.list_resource_templates()
    def handle_templates() -> list[Any]:
        return [sdk.ResourceTemplate(uriTemplate="memo://{id}", name="memo")]

    @server.read_resource()
    def handle_read(uri: str) -> Any:
        return sdk.ReadResourceResult(
            contents=[sdk.TextResourceContents(uri=uri, mimeType="text/plain", text="hi")]
        )

    @server.list_prompts()
    def handle_list_prompts() -> list[Any]:
        argument = sdk.PromptArgument(name="topic", required=True)
        return [sdk.Prompt(name="ask", description="Ask", arguments=[argument])]

    @server.get_prompt()
    def handle_get_prompt(name: str, arguments: dict[str, str] | None) -> Any:
        text = sdk.TextContent(type="text", text=f"Tell me about {(arguments or {})['topic']}")
        return sdk.GetPromptResult(messages=[sdk.PromptMessage(role="user", content=text)])

    @server.completion()
    def handle_completion(ref: Any, argument: Any, context: Any) -> Any:
        return sdk.Completion(values=[argument.value + "s"], total=1, hasMore=False)

    for revision in (LEGACY, MODERN):
        async with strict_client(server, revision) as (client, _):
            assert await client.list_resources() == [
                {"uri": "memo://one", "name": "one", "mimeType": "text/plain"}
            ]
            templates = await client.list_resource_templates()
            assert templates == [{"uriTemplate": "memo://{id}", "name": "memo"}]
            assert (await client.read_resource("memo://7")).contents == [
                {"uri": "memo://7", "mimeType": "text/plain", "text": "hi"}
            ]
            assert (await client.list_prompts())[0]["arguments"] == [
                {"name": "topic", "required": True}
            ]
            prompt = await client.get_prompt("ask", {"topic": "owls"})
            assert prompt.text == "Tell me about owls"
            completion = await client.complete(argument="topic", value="owl", prompt="ask")
            assert (completion.values, completion.total, completion.has_more) == (
                ["owls"],
                1,
                False,
            )


async def test_bad_handler_results_and_requests_are_clear_errors() -> None:
    server = Server("bad")
    server.list_resources()(lambda: [{"uri": "x://1"}])  # no name
    server.read_resource()(lambda uri: object())  # not contents, not JSON
    server.list_prompts()(lambda: 42)
    server.get_prompt()(lambda name, arguments: 42)
    server.completion()(lambda ref, argument, context: None)
    async with strict_client(server, MODERN) as (client, _):
        for call, text in (
            (client.request("resources/list", {}), "Listing resources"),
            (client.read_resource("x://1"), "Reading 'x://1'"),
            (client.request("prompts/list", {}), "Listing prompts"),
            (client.get_prompt("p"), "Prompt 'p'"),
        ):
            error = await failure(call)
            assert error.code == -32603
            assert re.fullmatch(
                f"{re.escape(text)} failed with an internal error {REFERENCE}", error.message
            )
        # These lists are never split: a cursor cannot come from this server.
        cursor = await failure(client.request("prompts/list", {"cursor": "abc"}))
        assert (cursor.code, cursor.message) == (-32602, "Invalid cursor")
        bad_ref = await failure(
            client.request(
                "completion/complete",
                {"ref": {"type": "ref/tool", "name": "x"}, "argument": {"name": "a", "value": ""}},
            )
        )
        assert bad_ref.code == -32602
        assert (await client.complete(argument="a", prompt="p")).values == []
        # A list with no handler is not found, as on the official SDK's low-level server.
        missing = await failure(client.request("resources/templates/list", {}))
        assert (missing.code, missing.message) == (
            -32601,
            "Method not found: resources/templates/list",
        )
        # The server lives on.
        assert (await client.complete(argument="a", prompt="p")).values == []


def _official_parameters() -> Any:
    from mcp import StdioServerParameters

    # The SDK passes the child only a few variables; let it find toolwire and this interpreter.
    env = {"PYTHONPATH": str(SRC_DIR), "PATH": os.environ.get("PATH", "")}
    return StdioServerParameters(command=sys.executable, args=[str(SCRIPT)], env=env)


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_the_official_client_reads_and_gets_prompts(mode: str) -> None:
    from mcp import Client

    with anyio.fail_after(45):
        async with Client(_official_parameters(), mode=mode) as client:
            assert client.protocol_version == (LEGACY if mode == "legacy" else MODERN)
            listing = await client.list_resources()
            assert [str(r.uri) for r in listing.resources] == ["notes://readme", "notes://logo"]
            read = await client.read_resource("notes://readme")
            assert [c.text for c in read.contents] == ["Read the notes."]  # type: ignore[union-attr]
            prompts = await client.list_prompts()
            assert [p.name for p in prompts.prompts] == ["review", "greet"]
            review = await client.get_prompt("review", {"code": "x = 1"})
            assert [m.content.text for m in review.messages] == [  # type: ignore[union-attr]
                "Review this python code:",
                "x = 1",
            ]
