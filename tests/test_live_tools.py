"""Live tool sets and visibility, in memory and over stdio, on a legacy revision and 2026-07-28.

The server is ``servers/live_tools.py``: its tools change the tool set while it runs (the way a
real server would, e.g. after a plugin loads), it excludes one tag, and a visibility rule looks
at the request's clientInfo and ``_meta``. Every message is checked against the schema of the
revision in use; raw tests compare messages with the spec's own examples.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import Any

import orjson
import pytest

from servers.live_peer import load, open_peer
from toolwire import Client, ServerError
from toolwire.protocol.revisions import META_SUBSCRIPTION_ID

from mcp_spec import examples
from wire import MODERN, SERVERS, checked_client

LEGACY = "2025-11-25"
OLDEST = "2024-11-05"
TRANSPORTS = ["memory", "stdio"]
CHANGED = "notifications/tools/list_changed"
ACKNOWLEDGED = "notifications/subscriptions/acknowledged"

# What a client named "tests" sees: disabled, internal, admin-only and beta tools are hidden.
GUEST_TOOLS = ["echo", "add_dynamic", "remove_dynamic", "churn", "set_enabled"]
HIDDEN_TOOLS = ["hidden_echo", "debug_dump", "admin_reset", "beta_search"]


def example(type_name: str) -> Any:
    (found,) = [data for _type, _path, data in examples(type_name)]
    return found


@contextlib.asynccontextmanager
async def live_client(
    transport: str, revision: str, include_tags: str | None = None, **options: Any
) -> AsyncIterator[Client]:
    target: Any
    if transport == "memory":
        target = load("live_tools").build(include_tags.split(",") if include_tags else None)
    else:
        target = [str(SERVERS / "live_tools.py")]
        if include_tags:
            target += ["--include-tags", include_tags]
    options.setdefault("client_info", {"name": "tests", "version": "0"})
    async with checked_client(target, revision, **options) as client:
        yield client
        assert client.checker.client_issues == []  # type: ignore[attr-defined]


def list_changes(client: Client) -> list[dict[str, Any]]:
    return [n for n in client.notifications if n["method"] == CHANGED]


async def names(client: Client) -> list[str]:
    return [tool["name"] for tool in await client.list_tools()]


async def sync_point(client: Client) -> None:
    """A round trip: notifications caused by earlier answers have arrived once it is back."""
    await client.request("tools/list")


async def assert_unknown(client: Client, name: str) -> str:
    with pytest.raises(ServerError) as info:
        await client.call_tool(name, {})
    assert info.value.code == -32602, info.value
    assert info.value.message.startswith(f"Unknown tool: {name!r}."), info.value.message
    return info.value.message


# ---------------------------------------------------------------- list changes, legacy


@pytest.mark.parametrize("revision", [OLDEST, LEGACY])
@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_each_burst_of_changes_sends_one_list_changed_to_a_legacy_session(
    transport: str, revision: str
) -> None:
    """TL-01, TL-02: ``listChanged`` is declared and each burst of run-time changes (three
    additions; two removals; add+remove+disable+enable; a change made on a worker thread) sends
    exactly one ``notifications/tools/list_changed``; tools/list and tools/call follow."""
    async with live_client(transport, revision) as client:
        assert client.server_capabilities["tools"] == {"listChanged": True}
        assert await names(client) == GUEST_TOOLS

        result = await client.call_tool("add_dynamic", {"names": ["one", "two", "three"]})
        assert result.text == "added 3"
        await sync_point(client)
        assert list_changes(client) == [{"jsonrpc": "2.0", "method": CHANGED}]
        assert await names(client) == [*GUEST_TOOLS, "one", "two", "three"]
        assert (await client.call_tool("three", {"x": 3})).text == "three:3"

        await client.call_tool("remove_dynamic", {"names": ["one", "two"]})
        await sync_point(client)
        assert len(list_changes(client)) == 2
        assert await names(client) == [*GUEST_TOOLS, "three"]
        await assert_unknown(client, "one")

        assert (await client.call_tool("churn")).text == "churned"
        await sync_point(client)
        assert len(list_changes(client)) == 3
        assert await names(client) == [*GUEST_TOOLS, "three"]

        # A sync tool runs on a worker thread; its change is announced on the serving loop.
        await client.call_tool("set_enabled", {"name": "hidden_echo", "enabled": True})
        await sync_point(client)
        assert len(list_changes(client)) == 4
        assert "hidden_echo" in await names(client)
        assert (await client.call_tool("hidden_echo", {"text": "hi"})).text == "hi"

        await sync_point(client)  # nothing changed, nothing sent
        assert len(list_changes(client)) == 4


# ---------------------------------------------------------------- list changes, 2026-07-28


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_a_burst_reaches_once_only_the_listen_streams_that_asked(transport: str) -> None:
    """TL-02, MP-10, §5 item 9: on 2026-07-28 a burst of changes sends one list_changed, tagged
    with the subscription id, on each stream that asked for toolsListChanged, none on a stream
    that did not (and no untagged legacy notification); the first message of each stream is
    its acknowledgement; the cached tools/list follows the change."""
    async with live_client(transport, MODERN) as client:
        assert client.server_capabilities["tools"] == {"listChanged": True}
        assert await names(client) == GUEST_TOOLS
        asked = await client.listen()
        silent = await client.listen(tools_list_changed=False)
        assert client.notifications == [
            {
                "jsonrpc": "2.0",
                "method": ACKNOWLEDGED,
                "params": {
                    "_meta": {META_SUBSCRIPTION_ID: asked},
                    "notifications": {"toolsListChanged": True},
                },
            },
            {
                "jsonrpc": "2.0",
                "method": ACKNOWLEDGED,
                "params": {"_meta": {META_SUBSCRIPTION_ID: silent}, "notifications": {}},
            },
        ]
        tagged = {
            "jsonrpc": "2.0",
            "method": CHANGED,
            "params": {"_meta": {META_SUBSCRIPTION_ID: asked}},
        }

        await client.call_tool("add_dynamic", {"names": ["one", "two", "three"]})
        await sync_point(client)
        assert list_changes(client) == [tagged]
        assert await names(client) == [*GUEST_TOOLS, "one", "two", "three"]

        await client.call_tool("churn")
        await client.call_tool("set_enabled", {"name": "echo", "enabled": False})
        await sync_point(client)
        assert list_changes(client) == [tagged, tagged, tagged]
        assert await names(client) == [*GUEST_TOOLS[1:], "one", "two", "three"]
        await assert_unknown(client, "echo")


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_a_2026_client_that_does_not_listen_gets_no_list_changed(transport: str) -> None:
    """TL-02 (2026-07-28: only to streams with toolsListChanged), JR-32: no stream, no
    notification; the next tools/list still shows the change."""
    async with live_client(transport, MODERN) as client:
        await client.call_tool("add_dynamic", {"names": ["one"]})
        await sync_point(client)
        assert client.notifications == []
        assert await names(client) == [*GUEST_TOOLS, "one"]


async def test_one_change_reaches_every_era_on_one_server_in_its_own_form() -> None:
    """TL-02, MP-10: a change made by the application (not by a tool) reaches a legacy session
    untagged, a 2026 stream tagged, and a 2026 client without a stream not at all."""
    mcp = load("live_tools").build()
    async with (
        checked_client(mcp, LEGACY) as legacy,
        checked_client(mcp, MODERN) as listener,
        checked_client(mcp, MODERN) as quiet,
    ):
        sid = await listener.listen()
        mcp.add_tool(lambda: "new", name="newcomer")
        mcp.add_tool(lambda: "newer", name="newer")
        for client in (legacy, listener, quiet):
            await sync_point(client)
        assert list_changes(legacy) == [{"jsonrpc": "2.0", "method": CHANGED}]
        assert list_changes(listener) == [
            {"jsonrpc": "2.0", "method": CHANGED, "params": {"_meta": {META_SUBSCRIPTION_ID: sid}}}
        ]
        assert list_changes(quiet) == []
        for client in (legacy, listener, quiet):
            assert (await names(client))[-2:] == ["newcomer", "newer"]


# ---------------------------------------------------------------- raw streams


def _lines(data: bytes) -> list[Any]:
    return [orjson.loads(line) for line in data.splitlines() if line.strip()]


async def _all_names(peer: Any, *, modern: bool, meta: dict[str, Any] | None = None) -> list[str]:
    found: list[str] = []
    params: dict[str, Any] = {"_meta": meta} if meta else {}
    while True:
        response = await peer.request("tools/list", params, modern=modern)
        result = response["result"]
        assert len(result["tools"]) <= 2  # page_size=2 (PG-01: the server decides)
        found += [tool["name"] for tool in result["tools"]]
        if "nextCursor" not in result:
            return found
        params = {**params, "cursor": result["nextCursor"]}


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_listen_streams_message_by_message(transport: str) -> None:
    """MP-10, MP-11, TL-02, CN-04: the spec's listen request is acknowledged first (only what the
    server can deliver), a change arrives exactly as the spec's ToolListChangedNotification, a
    cancelled stream gets no response ever, and when input ends the open stream gets its
    successful SubscriptionsListenResult before the server goes away."""
    async with open_peer(transport, "live_tools", revision=MODERN) as peer:
        listen = example("SubscriptionsListenRequest")
        assert listen["id"] == "listen-1" and listen["params"]["notifications"]["toolsListChanged"]
        await peer.send(listen)
        ack = await peer.recv()
        spec_ack = example("SubscriptionsAcknowledgedNotification")
        assert ack["method"] == spec_ack["method"]
        assert ack["params"]["_meta"] == spec_ack["params"]["_meta"]
        # No resources on this server: only toolsListChanged is acknowledged.
        assert ack["params"]["notifications"] == {"toolsListChanged": True}

        await peer.send(
            {
                "jsonrpc": "2.0",
                "id": "listen-2",
                "method": "subscriptions/listen",
                "params": {"_meta": listen["params"]["_meta"], "notifications": {}},
            }
        )
        assert await peer.recv() == {
            "jsonrpc": "2.0",
            "method": ACKNOWLEDGED,
            "params": {"_meta": {META_SUBSCRIPTION_ID: "listen-2"}, "notifications": {}},
        }
        await peer.notify("notifications/cancelled", {"requestId": "listen-2", "reason": "done"})

        response = await peer.request(
            "tools/call",
            {"name": "add_dynamic", "arguments": {"names": ["one", "two", "three"]}},
            modern=True,
        )
        assert response["result"]["content"] == [{"type": "text", "text": "added 3"}]
        assert await _all_names(peer, modern=True) == [*GUEST_TOOLS, "one", "two", "three"]
        assert peer.notifications == [example("ToolListChangedNotification")]

        code, rest, _err = await peer.close()
        assert code == 0
        (end,) = _lines(rest)  # listen-1 is answered; the cancelled listen-2 never is
        assert end["id"] == "listen-1"
        spec_end = example("SubscriptionsListenResultResponse")
        assert end["result"]["resultType"] == spec_end["result"]["resultType"] == "complete"
        assert end["result"]["_meta"][META_SUBSCRIPTION_ID] == "listen-1"


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_legacy_session_over_raw_messages(transport: str) -> None:
    """TL-01, TL-02, LC-*: the legacy handshake declares listChanged; one tools/call that adds
    three tools sends one untagged list_changed; subscriptions/listen is not a legacy method
    (-32601); closing input leaves nothing unanswered."""
    async with open_peer(transport, "live_tools", revision=LEGACY) as peer:
        init = await peer.initialize(LEGACY)
        assert init["result"]["capabilities"]["tools"] == {"listChanged": True}
        response = await peer.request(
            "tools/call", {"name": "add_dynamic", "arguments": {"names": ["a", "b", "c"]}}
        )
        assert response["result"]["content"] == [{"type": "text", "text": "added 3"}]
        assert await _all_names(peer, modern=False) == [*GUEST_TOOLS, "a", "b", "c"]
        assert peer.notifications == [{"jsonrpc": "2.0", "method": CHANGED}]
        listen = await peer.request("subscriptions/listen", {"notifications": {}})
        assert listen["error"]["code"] == -32601
        code, rest, _err = await peer.close()
        assert code == 0 and rest == b""


# ---------------------------------------------------------------- visibility


@pytest.mark.parametrize("revision", [OLDEST, MODERN])
@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_tools_list_and_tools_call_agree(transport: str, revision: str) -> None:
    """TL-25, TL-34, TL-29: every tool tools/list shows can be called and every tool it hides
    is an unknown tool (-32602), whatever hid it (disabled, excluded tag, a visibility rule);
    the "did you mean" hint never names a hidden tool; pages follow the filtered list."""
    async with live_client(transport, revision) as client:
        assert await names(client) == GUEST_TOOLS
        assert (await client.call_tool("echo", {"text": "hi"})).text == "hi"
        for hidden in HIDDEN_TOOLS:
            await assert_unknown(client, hidden)
        for typo, hint in [
            ("admin_rese", None),  # close only to a hidden tool: no hint
            ("debug_dum", None),
            ("beta_searc", None),
            ("ech", "echo"),  # close to a visible tool: hinted
        ]:
            message = await assert_unknown(client, typo)
            for hidden in HIDDEN_TOOLS:
                assert hidden not in message
            assert ("Did you mean" in message) == (hint is not None)
            if hint:
                assert message.endswith(f"Did you mean {hint!r}?")

        # Page by page: two per page, over the visible tools only.
        pages: list[list[str]] = []
        cursor: str | None = None
        while True:
            result = await client.request("tools/list", {"cursor": cursor} if cursor else None)
            pages.append([tool["name"] for tool in result["tools"]])
            cursor = result.get("nextCursor")
            if cursor is None:
                break
        assert pages == [GUEST_TOOLS[0:2], GUEST_TOOLS[2:4], GUEST_TOOLS[4:]]


@pytest.mark.parametrize("revision", [LEGACY, MODERN])
@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_a_rule_on_client_info_shows_a_tool_to_some_clients(
    transport: str, revision: str
) -> None:
    """TL-34, TL-29: a visibility rule on clientInfo (from initialize on legacy, from each
    request's _meta on 2026-07-28) lists and allows admin_reset for the admin client only."""
    async with live_client(
        transport, revision, client_info={"name": "admin", "version": "1"}
    ) as admin:
        listed = await names(admin)
        assert listed == [*GUEST_TOOLS[:4], "set_enabled", "admin_reset"]
        assert (await admin.call_tool("admin_reset")).text == "reset"
        for hidden in ("hidden_echo", "debug_dump", "beta_search"):
            await assert_unknown(admin, hidden)


@pytest.mark.parametrize("revision", [LEGACY, MODERN])
@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_include_tags_keep_only_tagged_tools_and_exclusion_wins(
    transport: str, revision: str
) -> None:
    """TL-34, TL-25: with include_tags={"admin"} only admin tools remain, the excluded
    ``internal`` one (also tagged admin) stays hidden, the visibility rule still applies on
    top, and tools/call agrees with tools/list for every registered tool."""
    admin = {"name": "admin", "version": "1"}
    async with live_client(transport, revision, "admin", client_info=admin) as client:
        assert await names(client) == ["admin_reset"]
        assert (await client.call_tool("admin_reset")).text == "reset"
        for hidden in [*GUEST_TOOLS, "hidden_echo", "debug_dump", "beta_search"]:
            message = await assert_unknown(client, hidden)
            assert "Did you mean" not in message
    async with live_client(transport, revision, "admin") as guest:  # the rule hides it
        assert await names(guest) == []
        await assert_unknown(guest, "admin_reset")


@pytest.mark.parametrize("revision", [LEGACY, MODERN])
@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_a_rule_on_request_meta_decides_per_request(transport: str, revision: str) -> None:
    """TL-34, PG-05: a rule on the request's ``_meta`` shows beta_search to the requests that
    carry the flag, not to the ones after them on the same connection; a cursor from the
    flagged listing that points at the hidden tool is an invalid cursor for an unflagged one."""
    modern = revision == MODERN
    beta = {"example.com/beta": True}
    async with open_peer(transport, "live_tools", revision=revision) as peer:
        if not modern:
            await peer.initialize(revision)
        assert await _all_names(peer, modern=modern, meta=beta) == [
            "echo",
            "add_dynamic",
            "beta_search",
            *GUEST_TOOLS[2:],
        ]
        assert await _all_names(peer, modern=modern) == GUEST_TOOLS

        call = {"name": "beta_search", "arguments": {"query": "q"}}
        flagged = await peer.request("tools/call", {**call, "_meta": beta}, modern=modern)
        assert flagged["result"]["content"] == [{"type": "text", "text": "found q"}]
        plain = await peer.request("tools/call", call, modern=modern)
        assert plain["error"]["code"] == -32602
        assert plain["error"]["message"] == "Unknown tool: 'beta_search'."

        # The flagged listing's second page starts at beta_search: for an unflagged request
        # that cursor points at a tool it cannot see.
        first = (await peer.request("tools/list", {"_meta": beta}, modern=modern))["result"]
        assert [t["name"] for t in first["tools"]] == ["echo", "add_dynamic"]
        stale = await peer.request("tools/list", {"cursor": first["nextCursor"]}, modern=modern)
        assert stale["error"]["code"] == -32602
        assert stale["error"]["message"] == "Invalid cursor"
        assert peer.notifications == []


async def test_cached_pages_are_kept_apart_per_visible_set() -> None:
    """TL-34: pages are cached per visible set, so a listing made for one client is never
    served to a client that sees fewer tools (and a change clears them all)."""
    mcp = load("live_tools").build()
    async with (
        checked_client(mcp, MODERN, client_info={"name": "admin", "version": "1"}) as admin,
        checked_client(mcp, MODERN, client_info={"name": "guest", "version": "1"}) as guest,
    ):
        for _ in range(2):  # the second round is served from the cache
            assert "admin_reset" in await names(admin)
            assert await names(guest) == GUEST_TOOLS
        mcp.disable_tool("admin_reset")
        assert "admin_reset" not in await names(admin)
        await assert_unknown(admin, "admin_reset")
