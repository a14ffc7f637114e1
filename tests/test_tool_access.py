"""Per-tool access (TL-29, TL-34): scopes and caller predicates decide who sees and calls a tool.

The caller here comes from a middleware that trusts a ``_meta`` key: the way a stdio or
in-memory deployment plugs its own authentication in (HTTP servers get theirs from the
bearer token, tested in test_auth_server.py). Every message is checked against the schema
of the revision in use.
"""

from __future__ import annotations

from typing import Any

import pytest

from toolwire import RegistrationError, Server, ServerError
from toolwire.auth import AccessToken, covers, missing
from toolwire.server.dispatch.middleware import Call, CallNext

from wire import MODERN, checked_client

LEGACY = "2025-11-25"
CALLERS = {
    "reader": AccessToken(subject="reader", scopes=frozenset({"files:read"})),
    "writer": AccessToken(subject="writer", scopes=frozenset({"files:read", "files:write"})),
    "owner": AccessToken(subject="owner", scopes=frozenset({"files"})),
    "admin": AccessToken(subject="admin", scopes=frozenset({"admin"})),
}


def build(page_size: int | None = None) -> Server:
    mcp = Server("access", page_size=page_size)

    @mcp.add_middleware
    async def caller_from_meta(call: Call, call_next: CallNext) -> dict[str, Any]:
        name = (call.params.get("_meta") or {}).get("example.test/caller")
        call.request.identity = CALLERS.get(name)
        return await call_next(call)

    @mcp.tool
    def status() -> str:
        """Anyone may ask."""
        return "ok"

    @mcp.tool(scopes=["files:read"])
    def read_file(path: str) -> str:
        return f"read {path}"

    @mcp.tool(scopes="files:write")
    def write_file(path: str) -> str:
        return f"wrote {path}"

    @mcp.tool(auth=lambda caller: caller is not None and caller.subject == "admin")
    def purge() -> str:
        return "purged"

    return mcp


def as_caller(name: str | None) -> dict[str, Any]:
    return {} if name is None else {"example.test/caller": name}


async def visible(client: Any, caller: str | None) -> list[str]:
    result = await client.request("tools/list", {"_meta": as_caller(caller)})
    return [tool["name"] for tool in result["tools"]]


@pytest.mark.parametrize("revision", [LEGACY, MODERN])
@pytest.mark.parametrize(
    ("caller", "expected"),
    [
        (None, ["status"]),
        ("reader", ["status", "read_file"]),
        ("writer", ["status", "read_file", "write_file"]),
        ("owner", ["status", "read_file", "write_file"]),  # "files" covers "files:*"
        ("admin", ["status", "purge"]),
    ],
)
async def test_a_caller_sees_the_tools_it_may_use(
    revision: str, caller: str | None, expected: list[str]
) -> None:
    async with checked_client(build(), revision) as client:
        assert await visible(client, caller) == expected


@pytest.mark.parametrize("revision", [LEGACY, MODERN])
async def test_a_tool_the_caller_may_not_use_is_unknown_to_it(revision: str) -> None:
    async with checked_client(build(), revision) as client:
        allowed = await client.request(
            "tools/call",
            {"name": "write_file", "arguments": {"path": "a"}, "_meta": as_caller("writer")},
        )
        assert allowed["content"][0]["text"] == "wrote a"
        with pytest.raises(ServerError) as refused:
            await client.request(
                "tools/call",
                {"name": "write_file", "arguments": {"path": "a"}, "_meta": as_caller("reader")},
            )
        assert refused.value.code == -32602
        assert "Unknown tool: 'write_file'" in refused.value.message
        with pytest.raises(ServerError) as hinted:
            await client.request(
                "tools/call", {"name": "purg", "arguments": {}, "_meta": as_caller("reader")}
            )
        assert "purge" not in hinted.value.message  # no hint names a hidden tool


@pytest.mark.parametrize("revision", [LEGACY, MODERN])
async def test_listings_of_different_callers_do_not_leak_into_each_other(revision: str) -> None:
    async with checked_client(build(page_size=2), revision) as client:
        for _ in range(2):  # the second round comes from the page cache
            for caller, expected in [
                ("writer", ["status", "read_file", "write_file"]),
                (None, ["status"]),
                ("admin", ["status", "purge"]),
            ]:
                names: list[str] = []
                params: dict[str, Any] = {"_meta": as_caller(caller)}
                while True:
                    page = await client.request("tools/list", params)
                    names += [tool["name"] for tool in page["tools"]]
                    if "nextCursor" not in page:
                        break
                    params = {"cursor": page["nextCursor"], "_meta": as_caller(caller)}
                assert names == expected


async def test_a_change_to_the_tool_set_reaches_guarded_listings() -> None:
    mcp = build()
    async with checked_client(mcp, LEGACY) as client:
        assert await visible(client, "reader") == ["status", "read_file"]
        mcp.remove_tool("read_file")
        assert await visible(client, "reader") == ["status"]
        mcp.add_tool(lambda: "x", name="audit_trail", scopes=["files:read"])
        assert await visible(client, "reader") == ["status", "audit_trail"]


def test_scope_coverage_follows_prefixes_and_declared_hierarchies() -> None:
    assert covers({"files"}, ["files:read", "files:write:all"])
    assert not covers({"files:read"}, ["files:write"])
    assert not covers({"file"}, ["files:read"])  # a prefix must end at a ':'
    hierarchy = {"admin": ["files", "users:read"], "files": ["reports"]}
    assert covers({"admin"}, ["files:write", "users:read", "reports"], hierarchy)
    assert missing({"admin"}, ["users:write", "files:read", "billing"], hierarchy) == [
        "users:write",
        "billing",
    ]


async def test_a_listing_that_differs_per_caller_is_cached_privately() -> None:
    """2026-07-28 caching (MP-12): a list filtered by caller must not be shared between
    callers, so it says cacheScope "private"; an unfiltered one stays "public"."""
    async with checked_client(build(), MODERN) as client:
        guarded = await client.request("tools/list", {"_meta": as_caller("reader")})
        assert guarded["cacheScope"] == "private"
    open_server = Server("open")

    @open_server.tool()
    def hello() -> str:
        return "hi"

    async with checked_client(open_server, MODERN) as client:
        assert (await client.request("tools/list"))["cacheScope"] == "public"


def test_bad_access_rules_are_refused_at_registration() -> None:
    mcp = Server("rules")
    with pytest.raises(RegistrationError):
        mcp.add_tool(lambda: "x", name="empty_scope", scopes=[""])
    with pytest.raises(RegistrationError):
        mcp.add_tool(lambda: "x", name="bad_auth", auth="admin")
