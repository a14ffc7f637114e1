"""The client the official MCP conformance harness tests, written on toolwire's public API.

The harness runs ``python conformance/client.py <server-url>`` with the scenario's name in
``MCP_CONFORMANCE_SCENARIO`` (and its data in ``MCP_CONFORMANCE_CONTEXT``, the protocol
revision in ``MCP_CONFORMANCE_PROTOCOL_VERSION``); each scenario is one small function here,
registered under its name(s) with :func:`scenario`.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import sys
from collections.abc import Awaitable, Callable
from typing import Any

from toolwire import Client, ClientError
from toolwire.client import SkillMismatch

Scenario = Callable[[str], Awaitable[None]]
SCENARIOS: dict[str, Scenario] = {}


def scenario(*names: str) -> Callable[[Scenario], Scenario]:
    """Register the decorated function as the client of the scenarios ``names``."""

    def register(function: Scenario) -> Scenario:
        for name in names:
            SCENARIOS[name] = function
        return function

    return register


def protocol_version() -> str | None:
    """The revision the harness asks for (none on its default leg: the client picks)."""
    return os.environ.get("MCP_CONFORMANCE_PROTOCOL_VERSION") or None


def context() -> dict[str, Any]:
    """The scenario's data (``MCP_CONFORMANCE_CONTEXT``), an empty dict when there is none."""
    raw = os.environ.get("MCP_CONFORMANCE_CONTEXT")
    return json.loads(raw) if raw else {}


def client(url: str, **options: Any) -> Client:
    options.setdefault("protocol_version", protocol_version())
    options.setdefault("client_info", {"name": "toolwire-conformance", "version": "1.0.0"})
    return Client(url, **options)


# ---------------------------------------------------------------- non-auth scenarios


@scenario("sep-2640-client-no-prefetch")
async def skills_are_listed_not_read(url: str) -> None:
    async with client(url) as c:
        await c.list_skills()  # a host loads a skill only when it needs it


@scenario(
    "sep-2640-client-verify-digest",
    "sep-2640-client-verify-size",
    "sep-2640-client-verify-frontmatter",
)
async def skills_are_checked_before_use(url: str) -> None:
    async with client(url) as c:
        for entry in await c.list_skills():
            try:
                skill = await c.load_skill(entry)
            except SkillMismatch as refused:  # not used, and nothing more of it is read
                print(f"skill refused: {refused}", file=sys.stderr)
                continue
            root = entry["uri"].rsplit("/", 1)[0]
            for file in entry["resources"]:
                if file["uri"] != entry["uri"]:
                    await skill.read(file["uri"].removeprefix(root + "/"))


@scenario("initialize", "tools_call")
async def list_and_call_first_tool(url: str) -> None:
    async with client(url) as c:
        tools = await c.list_tools()
        if tools:
            await c.call_tool(tools[0]["name"], {"a": 2, "b": 3})


@scenario("json-schema-ref-no-deref")
async def list_tools_only(url: str) -> None:
    async with client(url) as c:
        await c.list_tools()


@scenario("json-schema-2020-12-preservation")
async def echo_observed_schema(url: str) -> None:
    async with client(url) as c:
        tools = {tool["name"]: tool for tool in await c.list_tools()}
        focal = tools["json_schema_2020_12_tool"]
        await c.call_tool("json_schema_echo", {"schema": focal["inputSchema"]})


@scenario("elicitation-sep1034-client-defaults")
async def elicitation_defaults(url: str) -> None:
    def accept_empty(params: dict[str, Any]) -> dict[str, Any]:
        return {"action": "accept", "content": {}}  # the client fills in the defaults

    async with client(url, elicitation_handler=accept_empty) as c:
        await c.call_tool("test_client_elicitation_defaults", {})


@scenario("sse-retry")
async def reconnecting_call(url: str) -> None:
    async with client(url) as c:
        await c.list_tools()
        await c.call_tool("test_reconnection", {})


@scenario("request-metadata")
async def request_metadata(url: str) -> None:
    async def sample(params: dict[str, Any]) -> dict[str, Any]:
        return {"role": "assistant", "content": {"type": "text", "text": "ok"}, "model": "none"}

    async def elicit(params: dict[str, Any]) -> dict[str, Any]:
        return {"action": "decline"}

    options: dict[str, Any] = {"sampling_handler": sample, "elicitation_handler": elicit}
    async with client(url, roots=["file:///tmp"], **options) as c:
        await c.list_tools()


@scenario("sep-2322-client-request-state")
async def multi_round_trip(url: str) -> None:
    unrelated_called = False

    async def confirm(params: dict[str, Any]) -> dict[str, Any]:
        nonlocal unrelated_called
        if not unrelated_called:  # another call while the first waits for its input
            unrelated_called = True
            await c.call_tool("test_mrtr_unrelated", {})
        return {"action": "accept", "content": {"confirmed": True}}

    async with client(url, elicitation_handler=confirm) as c:
        await c.list_tools()
        await c.call_tool("test_mrtr_echo_state", {})
        await c.call_tool("test_mrtr_no_state", {})
        await c.call_tool("test_mrtr_no_result_type", {})


@scenario("http-standard-headers")
async def standard_headers(url: str) -> None:
    async with client(url) as c:
        for tool in await c.list_tools():
            await c.call_tool(tool["name"], {})
        for resource in await c.list_resources():
            await c.read_resource(resource["uri"])
        for prompt in await c.list_prompts():
            await c.get_prompt(prompt["name"])


@scenario("http-custom-headers")
async def custom_headers(url: str) -> None:
    async with client(url) as c:
        await c.list_tools()
        for call in context().get("toolCalls", []):
            await c.call_tool(call["name"], call.get("arguments") or {})


@scenario("http-invalid-tool-headers")
async def call_every_valid_tool(url: str) -> None:
    async with client(url) as c:
        for tool in await c.list_tools():  # tools with invalid x-mcp-header are left out
            properties = tool["inputSchema"].get("properties", {})
            await c.call_tool(tool["name"], {name: "x" for name in properties})


# ---------------------------------------------------------------- auth scenarios
#
# Every auth/* scenario runs the same well-behaved OAuth client: connect (the first 401 starts
# the authorization), list the tools, call ``test-tool``. The harness's authorization endpoint
# approves at once and answers with a redirect, so "the person in the browser" is a GET of the
# authorization URL whose ``Location`` is the redirect the browser would follow.

AUTH_CLIENT_METADATA_URL = "https://conformance-test.local/client-metadata.json"
AUTH_REDIRECT_URI = "http://localhost:3000/callback"


async def approve_without_user(url: str) -> str:
    """The redirect the authorization endpoint answers ``url`` with (nobody to ask)."""
    import httpx

    async with httpx.AsyncClient(timeout=30.0) as http:
        response = await http.get(url)
    location = response.headers.get("location")
    if response.status_code not in (301, 302, 303, 307, 308) or not location:
        raise RuntimeError(f"the authorization endpoint answered HTTP {response.status_code}")
    return location


async def run_auth(url: str, **options: Any) -> None:
    """The auth/* scenarios: authorize, list the tools, call ``test-tool``; ``options`` go
    to :class:`OAuth`."""
    from toolwire.client import OAuth

    given = context()
    auth = OAuth(
        client_id=given.get("client_id"),  # pre-registered, where the scenario has one
        client_secret=given.get("client_secret"),
        client_metadata_url=AUTH_CLIENT_METADATA_URL,
        client_name="toolwire-conformance",
        redirect_uri=AUTH_REDIRECT_URI,
        authorize=approve_without_user,
        **options,
    )
    async with client(url, auth=auth) as c:
        await c.list_tools()
        await c.call_tool("test-tool", {})


async def call_test_tool(url: str, auth: Any) -> None:
    async with client(url, auth=auth) as c:
        await c.list_tools()
        await c.call_tool("test-tool", {})


@scenario("auth/client-credentials-basic")
async def client_credentials_secret(url: str) -> None:
    from toolwire.client import ClientCredentials

    given = context()
    await call_test_tool(url, ClientCredentials(given["client_id"], given["client_secret"]))


@scenario("auth/client-credentials-jwt")
async def client_credentials_private_key_jwt(url: str) -> None:
    from toolwire.client import ClientCredentials

    given = context()
    auth = ClientCredentials(
        given["client_id"],
        private_key=given["private_key_pem"],
        signing_algorithm=given.get("signing_algorithm"),
    )
    await call_test_tool(url, auth)


@scenario("auth/wif-jwt-bearer")
async def workload_identity(url: str) -> None:
    from toolwire.client import WorkloadIdentity

    given = context()  # wrong_audience_jwt and expired_jwt are the server's bait: unused
    await call_test_tool(url, WorkloadIdentity(token=given["valid_jwt"]))


@scenario("auth/enterprise-managed-authorization")
async def enterprise_managed(url: str) -> None:
    from toolwire.client import EnterpriseAuthorization

    given = context()
    auth = EnterpriseAuthorization(
        idp_token_endpoint=given["idp_token_endpoint"],
        id_token=given["idp_id_token"],
        idp_client_id=given.get("idp_client_id"),
        client_id=given["client_id"],
        client_secret=given["client_secret"],
    )
    await call_test_tool(url, auth)


@scenario("auth/dpop", "auth/dpop-nonce")
async def dpop_bound_tokens(url: str) -> None:
    """DPoP (SEP-1932): tokens bound to a key of the client's, a proof on every request."""
    await run_auth(url, dpop=True)


# ---------------------------------------------------------------- entry point


async def main(url: str) -> None:
    name = os.environ.get("MCP_CONFORMANCE_SCENARIO", "")
    run = SCENARIOS.get(name) or (run_auth if name.startswith("auth/") else None)
    if run is None:
        raise SystemExit(f"unknown scenario {name!r}; known: {', '.join(sorted(SCENARIOS))}")
    await run(url)


if __name__ == "__main__":
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr)
    try:
        asyncio.run(main(sys.argv[1]))
    except ClientError as exc:  # e.g. an authorization server the client must not trust
        raise SystemExit(f"{type(exc).__name__}: {exc}") from None
