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

from toolwire import Client

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


# ---------------------------------------------------------------- entry point


async def main(url: str) -> None:
    name = os.environ.get("MCP_CONFORMANCE_SCENARIO", "")
    run = SCENARIOS.get(name)
    if run is None:
        raise SystemExit(f"unknown scenario {name!r}; known: {', '.join(sorted(SCENARIOS))}")
    await run(url)


if __name__ == "__main__":
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr)
    asyncio.run(main(sys.argv[1]))
