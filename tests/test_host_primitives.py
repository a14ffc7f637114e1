"""The host merges resources and prompts of several servers: prompts get host-wide names like
tools (a shared name becomes ``{server}_{prompt}``), a URI two servers offer is kept twice and
told apart by server, and reads and gets go to the right server without asking for approval.
Real stdio subprocesses (the official SDK's server); every message is schema-checked."""

from __future__ import annotations

import asyncio
import contextlib
import runpy
from typing import Any

import pytest

from toolwire import Client, ClientError
from toolwire.client import Host
from toolwire.client.host.approval import ApprovalPolicy, ApprovalRequest
from toolwire.client.host.primitives import UnknownPrimitiveError, template_pattern

from http_server import serve_http
from mcp_spec import WireChecker
from primitive_clients import SDK_SERVER, TIMEOUT
from wire import SERVERS

pytestmark = pytest.mark.timeout(60)


def checked(target: Any, revision: str, checkers: list[WireChecker]) -> Client:
    """A client of its own (one checker per connection) for the host to connect."""
    checker = WireChecker(revision, strict_client=True)
    checkers.append(checker)

    def tap(direction: str, data: bytes) -> None:
        (checker.client_sent if direction == "send" else checker.server_sent)(data)

    return Client(target, protocol_version=revision, tap=tap, timeout=TIMEOUT)


class NoApprovals(ApprovalPolicy):
    """A policy that fails the test if the host asks it anything."""

    async def decide(self, *args: Any, **kwargs: Any) -> Any:
        raise AssertionError("reading resources and getting prompts needs no approval")


@pytest.mark.parametrize("revision", ["2025-11-25", "2026-07-28"])
async def test_two_servers_with_the_same_prompts_and_uris(revision: str) -> None:
    checkers: list[WireChecker] = []
    servers = {"alpha": checked(SDK_SERVER, revision, checkers)}
    servers["beta"] = checked(SDK_SERVER, revision, checkers)
    host = Host(servers, policy=NoApprovals())
    await asyncio.wait_for(host.connect(), TIMEOUT)
    try:
        prompts = {p.name: p for p in await host.list_prompts()}
        assert set(prompts) == {"alpha_greet", "beta_greet", "alpha_review", "beta_review"}
        assert (prompts["beta_greet"].server, prompts["beta_greet"].prompt) == ("beta", "greet")
        assert [a["name"] for a in prompts["alpha_greet"].arguments] == ["name", "language"]
        got = await host.get_prompt("beta_greet", {"name": "Ada"})
        assert got.text == "Say hello to Ada in english."
        with pytest.raises(UnknownPrimitiveError, match="alpha_greet"):
            await host.get_prompt("greet")

        resources = await host.list_resources()
        assert sorted((r.uri, r.server) for r in resources) == [
            ("config://app", "alpha"),
            ("config://app", "beta"),
            ("images://pixel", "alpha"),
            ("images://pixel", "beta"),
        ]
        assert await host.servers_for("config://app") == ["alpha", "beta"]
        with pytest.raises(ClientError, match="alpha, beta"):
            await host.read_resource("config://app")
        assert (await host.read_resource("config://app", server="beta")).text == "debug = true"
        # A URI made from a template both servers offer is just as ambiguous.
        assert await host.servers_for("users://3/profile") == ["alpha", "beta"]
        read = await host.read_resource("users://3/profile", server="alpha")
        assert read.text == "name: Grace"
        with pytest.raises(UnknownPrimitiveError):
            await host.read_resource("nope://x")
        with pytest.raises(UnknownPrimitiveError, match="no server 'gamma'"):
            await host.read_resource("config://app", server="gamma")

        templates = await host.list_resource_templates()
        assert {(t.server, t.uri, t.template) for t in templates} == {
            ("alpha", "users://{user_id}/profile", True),
            ("beta", "users://{user_id}/profile", True),
        }
        found = await host.complete(prompt="alpha_greet", argument="language", value="f")
        assert found.values == ["french"]
        with pytest.raises(ClientError, match="pass server="):
            await host.complete(resource_template="users://{user_id}/profile", argument="user_id")
        users = await host.complete(
            resource_template="users://{user_id}/profile", argument="user_id", server="beta"
        )
        assert users.values == ["1", "2", "3"]
    finally:
        await asyncio.wait_for(host.close(), TIMEOUT)
    assert all(c.checked > 0 and not c.client_issues for c in checkers)


async def test_one_server_owns_a_uri_alone() -> None:
    checkers: list[WireChecker] = []
    async with Host({"only": checked(SDK_SERVER, "2025-11-25", checkers)}) as host:
        assert (await host.read_resource("images://pixel")).mime_type == "image/png"
        assert (await host.read_resource("users://1/profile")).text == "name: Ada"
        assert [p.name for p in await host.list_prompts()] == ["greet", "review"]
        assert (await host.get_prompt("review", {"code": "pass"})).messages[1]["role"] == (
            "assistant"
        )


def test_template_patterns_follow_rfc_6570_simple_expansion() -> None:
    profile = template_pattern("users://{user_id}/profile")
    assert profile.match("users://42/profile")
    assert not profile.match("users://42/x/profile")
    assert not profile.match("users://42/profile/extra")
    assert template_pattern("files://{+path}").match("files://a/b/c.md")
    assert template_pattern("search://q{?term}").match("search://q?term=x")
    assert not template_pattern("a.b://{x}").match("aXb://y")  # literal dots stay literal


@pytest.mark.parametrize(
    ("transport", "revision"), [("memory", "2025-11-25"), ("http", "2026-07-28")]
)
async def test_a_toolwire_server_and_an_sdk_server_side_by_side(
    transport: str, revision: str
) -> None:
    checkers: list[WireChecker] = []
    server = runpy.run_path(str(SERVERS / "tw_primitives.py"))["mcp"]
    with contextlib.ExitStack() as stack:
        target = server if transport == "memory" else stack.enter_context(serve_http(server))
        servers = {
            "sdk": checked(SDK_SERVER, revision, checkers),
            "tw": checked(target, revision, checkers),
        }
        asked: list[ApprovalRequest] = []

        def refuse(request: ApprovalRequest) -> bool:
            asked.append(request)
            return False

        async with Host(servers, confirm=refuse) as host:
            prompts = await host.list_prompts()
            assert sorted((p.name, p.server, p.prompt) for p in prompts) == [
                ("sdk_greet", "sdk", "greet"),
                ("sdk_review", "sdk", "review"),
                ("tw_greet", "tw", "greet"),
                ("tw_review", "tw", "review"),
            ]
            # The toolwire server documents its arguments; the SDK's gives no descriptions.
            tw_greet = next(p for p in prompts if p.name == "tw_greet")
            assert tw_greet.arguments[0]["description"] == "Who to greet"
            assert (await host.get_prompt("tw_review", {"code": "y"})).messages[0]["content"][
                "text"
            ] == "Please review:\ny"

            both = [r for r in await host.list_resources() if r.uri == "images://pixel"]
            assert sorted(r.server for r in both) == ["sdk", "tw"]
            for server_name in ("sdk", "tw"):
                read = await host.read_resource("images://pixel", server=server_name)
                assert read.data == bytes([0x89, 0x50, 0x4E, 0x47, 0x00, 0xFF])
            assert asked == []  # no approval for reading resources or getting prompts
            # Tools keep theirs: the host asks before an untrusted call, and this one is refused.
            denied = await host.call_tool("tw_touch", {"uri": "config://app"})
            assert denied.is_error and "denied" in denied.text
            assert [(r.server, r.tool) for r in asked] == [("tw", "touch")]
    assert all(c.checked > 0 and not c.client_issues for c in checkers)
