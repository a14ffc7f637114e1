"""toolwire's client against toolwire's own server (tests/servers/tw_primitives.py): resources,
prompts, completion and change notifications over memory, stdio and HTTP, on a legacy revision
and on 2026-07-28; every message both ways is checked against the revision's JSON Schema.
The server pages one item at a time, so every listing follows ``nextCursor``."""

from __future__ import annotations

import asyncio
import contextlib
import runpy
import sys
from collections.abc import AsyncIterator
from typing import Any

import pytest

from toolwire import Client, ClientError, ServerError

from http_server import serve_http
from primitive_clients import TIMEOUT, Changes, strict_client
from wire import SERVERS

pytestmark = pytest.mark.timeout(60)
SCRIPT = SERVERS / "tw_primitives.py"
PIXEL = bytes([0x89, 0x50, 0x4E, 0x47, 0x00, 0xFF])
REVISIONS = ["2025-11-25", "2026-07-28"]
TRANSPORTS = ["memory", "stdio", "http"]


@contextlib.asynccontextmanager
async def connected(transport: str, revision: str) -> AsyncIterator[tuple[Client, list[Any]]]:
    """A strict client of a fresh tw_primitives server over ``transport``."""
    if transport == "stdio":
        async with strict_client([sys.executable, str(SCRIPT)], revision) as pair:
            yield pair
        return
    server = runpy.run_path(str(SCRIPT))["mcp"]
    if transport == "memory":
        async with strict_client(server, revision) as pair:
            yield pair
        return
    with serve_http(server) as url:
        async with strict_client(url, revision) as pair:
            yield pair


@pytest.mark.parametrize("revision", REVISIONS)
@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_resources_end_to_end(transport: str, revision: str) -> None:
    async with connected(transport, revision) as (client, sent):
        listed = await client.list_resources()
        assert [r["uri"] for r in listed] == ["config://app", "images://pixel"]
        assert listed[0]["title"] == "App config"
        templates = await client.list_resource_templates()
        assert [t["uriTemplate"] for t in templates] == ["users://{user_id}/profile"]

        assert (await client.read_resource("config://app")).text == "debug = true"
        pixel = await client.read_resource("images://pixel")
        assert (pixel.data, pixel.mime_type) == (PIXEL, "image/png")
        assert (await client.read_resource("users://3/profile")).text == "name: Grace"
        with pytest.raises(ServerError) as missing:
            await client.read_resource("nope://x")
        # -32002 up to 2025-11-25, -32602 on 2026-07-28
        assert missing.value.code == (-32602 if revision == "2026-07-28" else -32002)

    cursors = [m["params"].get("cursor") for m in sent if m.get("method") == "resources/list"]
    assert cursors[0] is None and isinstance(cursors[1], str)  # the second page was asked for


@pytest.mark.parametrize("revision", REVISIONS)
@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_prompts_and_completion_end_to_end(transport: str, revision: str) -> None:
    async with connected(transport, revision) as (client, _):
        prompts = {p["name"]: p for p in await client.list_prompts()}
        assert list(prompts) == ["greet", "review"]
        assert prompts["greet"]["arguments"][0] == {
            "name": "name",
            "description": "Who to greet",
            "required": True,
        }
        greeting = await client.get_prompt("greet", {"name": "Ada", "language": "german"})
        assert greeting.text == "Say hello to Ada in german."
        assert greeting.description == "Greet someone in a language."
        review = await client.get_prompt("review", {"code": "x = 1"})
        assert [m["role"] for m in review.messages] == ["user", "assistant"]
        with pytest.raises(ServerError, match="greet"):  # a "did you mean" hint
            await client.get_prompt("gret", {"name": "Ada"})

        found = await client.complete(prompt="greet", argument="language", value="e")
        assert found.values == ["english", "esperanto"]
        narrowed = await client.complete(
            prompt="greet", argument="name", value="A", context={"language": "esperanto"}
        )
        assert narrowed.values == ["Ana", "Alba"]
        users = await client.complete(
            resource_template="users://{user_id}/profile", argument="user_id", value="2"
        )
        assert users.values == ["2"]


@pytest.mark.parametrize("revision", REVISIONS)
@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_change_notifications_end_to_end(transport: str, revision: str) -> None:
    async with connected(transport, revision) as (client, _):
        changes = Changes()
        client.change_handler = changes
        updated = asyncio.Event()
        await client.subscribe_resource("images://pixel", lambda params: updated.set())
        if revision == "2026-07-28":
            await client.listen(
                tools_list_changed=False, resources_list_changed=True, prompts_list_changed=True
            )
        await client.call_tool("touch", {"uri": "images://pixel"})
        await asyncio.wait_for(updated.wait(), TIMEOUT)
        await changes.wait_for("notifications/resources/list_changed")
        await changes.wait_for("notifications/prompts/list_changed")
        updates = [m for m in changes.seen if m["method"] == "notifications/resources/updated"]
        assert updates[0]["params"]["uri"] == "images://pixel"

        await client.unsubscribe_resource("images://pixel")
        # After unsubscribing, a touch brings the list changes but no update.
        await client.call_tool("touch", {"uri": "images://pixel"})
        await changes.wait_for("notifications/prompts/list_changed", count=2)
        await changes.wait_for("notifications/resources/list_changed", count=2)
        assert changes.methods().count("notifications/resources/updated") == 1


@pytest.mark.parametrize("revision", REVISIONS)
async def test_subscribing_to_an_unknown_uri_fails_clearly(revision: str) -> None:
    async with connected("memory", revision) as (client, sent):
        if revision != "2026-07-28":  # resources/subscribe answers with an error
            with pytest.raises(ServerError) as refused:
                await client.subscribe_resource("nope://x")
            assert refused.value.code == -32002
        else:  # the listen stream's acknowledgement leaves the URI out
            with pytest.raises(ClientError, match="does not offer updates of 'nope://x'"):
                await client.subscribe_resource("nope://x")
            (listen,) = [m for m in sent if m.get("method") == "subscriptions/listen"]
            cancels = [m for m in sent if m.get("method") == "notifications/cancelled"]
            assert [m["params"]["requestId"] for m in cancels] == [listen["id"]]
        # The client still works, and a known URI can be subscribed afterwards.
        await client.subscribe_resource("config://app")
        assert (await client.read_resource("config://app")).text == "debug = true"
