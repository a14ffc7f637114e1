"""toolwire's client reads resources and follows their changes, against a server built on the
official MCP SDK (tests/servers/sdk_primitives.py) over stdio, on a legacy revision and on
2026-07-28; every message is checked against the revision's JSON Schema."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from toolwire import ClientError, ServerError
from toolwire.client import ResourceResult, SyncClient

from primitive_clients import SDK_SERVER, TIMEOUT, Changes, strict_client

pytestmark = pytest.mark.timeout(60)
REVISIONS = ["2025-11-25", "2026-07-28"]
PIXEL = bytes([0x89, 0x50, 0x4E, 0x47, 0x00, 0xFF])


@pytest.mark.parametrize("revision", REVISIONS)
async def test_lists_and_reads_the_official_servers_resources(revision: str) -> None:
    async with strict_client(SDK_SERVER, revision) as (client, sent):
        resources = {r["uri"]: r for r in await client.list_resources()}
        assert set(resources) == {"config://app", "images://pixel"}
        assert resources["config://app"]["mimeType"] == "text/plain"
        templates = await client.list_resource_templates()
        assert [t["uriTemplate"] for t in templates] == ["users://{user_id}/profile"]

        config = await client.read_resource("config://app")
        assert isinstance(config, ResourceResult)
        assert config.text == "debug = true" and config.data == b""
        assert config.mime_type == "text/plain"

        pixel = await client.read_resource("images://pixel")
        assert pixel.data == PIXEL and pixel.text == ""
        assert pixel.mime_type == "image/png"
        assert pixel.contents[0]["uri"] == "images://pixel"

        profile = await client.read_resource("users://2/profile")
        assert profile.text == "name: Alan"

        with pytest.raises(ServerError) as missing:
            await client.read_resource("nope://nothing")
        assert missing.value.code in (-32002, -32602)

    reads = [m for m in sent if m.get("method") == "resources/read"]
    assert [m["params"]["uri"] for m in reads][:2] == ["config://app", "images://pixel"]
    if revision == "2026-07-28":  # every request carries the modern _meta (through request())
        assert all("io.modelcontextprotocol/protocolVersion" in m["params"]["_meta"] for m in reads)


@pytest.mark.parametrize("revision", REVISIONS)
async def test_subscribes_to_a_resource_and_hears_it_change(revision: str) -> None:
    async with strict_client(SDK_SERVER, revision) as (client, sent):
        changes = Changes()
        client.change_handler = changes
        updates: list[dict[str, Any]] = []
        updated = asyncio.Event()

        def on_update(params: dict[str, Any]) -> None:
            updates.append(params)
            updated.set()

        await client.subscribe_resource("config://app", on_update)
        if revision == "2026-07-28":  # list changes come only on a listen stream that asks
            await client.listen(
                tools_list_changed=False, resources_list_changed=True, prompts_list_changed=True
            )
        await client.call_tool("touch", {"uri": "config://app"})
        await asyncio.wait_for(updated.wait(), TIMEOUT)
        assert updates[0]["uri"] == "config://app"
        await changes.wait_for("notifications/resources/updated")
        if revision == "2026-07-28":
            await changes.wait_for("notifications/resources/list_changed")
            await changes.wait_for("notifications/prompts/list_changed")

        await client.unsubscribe_resource("config://app")
        if revision == "2026-07-28":
            listens = [m for m in sent if m.get("method") == "subscriptions/listen"]
            assert listens[0]["params"]["notifications"] == {
                "toolsListChanged": False,
                "resourceSubscriptions": ["config://app"],
            }
            assert listens[1]["params"]["notifications"] == {
                "toolsListChanged": False,
                "resourcesListChanged": True,
                "promptsListChanged": True,
            }
            cancelled = [m for m in sent if m.get("method") == "notifications/cancelled"]
            assert [m["params"]["requestId"] for m in cancelled] == [listens[0]["id"]]
        else:
            methods = [m.get("method") for m in sent]
            assert "resources/subscribe" in methods and "resources/unsubscribe" in methods
            # On one stdio session the server's notifications come before the tool's answer,
            # so an update sent after unsubscribing would be here by now.
            await client.call_tool("touch", {"uri": "config://app"})
            assert len(updates) == 1
            assert changes.methods().count("notifications/resources/updated") == 1


async def test_a_failing_change_handler_does_not_break_the_connection() -> None:
    async with strict_client(SDK_SERVER, "2025-11-25") as (client, _):
        hit = asyncio.Event()

        def broken(params: dict[str, Any]) -> None:
            hit.set()
            raise RuntimeError("the application's bug")

        await client.subscribe_resource("images://pixel", broken)
        await client.call_tool("touch", {"uri": "images://pixel"})
        await asyncio.wait_for(hit.wait(), TIMEOUT)
        assert (await client.read_resource("config://app")).text == "debug = true"


async def test_subscribing_needs_a_server_that_offers_it() -> None:
    async with strict_client(SDK_SERVER, "2025-11-25") as (client, _):
        client.server_capabilities = {"resources": {}}  # as a server without subscribe says
        with pytest.raises(ClientError, match="subscriptions"):
            await client.subscribe_resource("config://app")


def test_the_sync_client_reads_resources() -> None:
    with SyncClient(SDK_SERVER, protocol_version="2025-11-25", timeout=TIMEOUT) as client:
        assert {r["uri"] for r in client.list_resources()} == {"config://app", "images://pixel"}
        assert client.list_resource_templates()[0]["name"] == "profile"
        assert client.read_resource("images://pixel").data == PIXEL
        client.subscribe_resource("config://app")
        client.unsubscribe_resource("config://app")


def test_a_blob_that_is_not_base64_is_a_client_error() -> None:
    result = ResourceResult(contents=[{"uri": "x://y", "blob": "not base64!"}])
    assert result.text == "" and result.mime_type is None
    with pytest.raises(ClientError, match="x://y"):
        _ = result.data
