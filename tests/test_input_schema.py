"""Tools with a hand-written JSON Schema 2020-12 input schema (``input_schema=``): published
verbatim in every revision (SEP-1613, SEP-2106), checked at registration, and used to
validate each call's arguments; every message is checked against the revision's schema."""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import pytest

from servers.live_peer import load
from toolwire import Client, RegistrationError, Server

from mcp_spec import WireChecker
from wire import MODERN, SERVERS

pytestmark = pytest.mark.timeout(30)

REVISIONS = ["2025-03-26", "2025-11-25", MODERN]
CONTACT_SCHEMA: dict[str, Any] = load("live_questions").CONTACT_SCHEMA


async def call_all(target: Any, revision: str, calls: list[dict[str, Any]]) -> tuple[Any, list]:
    checker = WireChecker(revision)

    def tap(direction: str, data: bytes) -> None:
        (checker.client_sent if direction == "send" else checker.server_sent)(data)

    async with Client(target, protocol_version=revision, tap=tap) as client:
        tools = {tool["name"]: tool for tool in await client.list_tools()}
        results = [await client.call_tool("contact", arguments) for arguments in calls]
    assert checker.checked > 0 and checker.client_issues == []
    return tools, results


@pytest.mark.parametrize("revision", REVISIONS)
@pytest.mark.parametrize("transport", ["memory", "stdio"])
async def test_the_schema_is_published_verbatim_and_checks_the_arguments(
    transport: str, revision: str
) -> None:
    target = (
        load("live_questions").build()
        if transport == "memory"
        else str(SERVERS / "live_questions.py")
    )
    tools, results = await call_all(
        target,
        revision,
        [
            {"name": "Ann", "email": "ann@example.com"},
            {"name": "Bob", "contactMethod": "phone", "phone": "555"},
            {"name": "Cy"},
            {"contactMethod": "phone", "email": "e@example.com"},
            {"email": "e@example.com", "address": {"city": 3}, "extra": 1},
        ],
    )
    assert tools["contact"]["inputSchema"] == CONTACT_SCHEMA
    texts = [(r.is_error, r.text) for r in results]
    assert texts[:2] == [(False, "Ann by email: ann@example.com"), (False, "Bob by phone: 555")]
    prefix = "Invalid arguments for tool 'contact': "
    assert texts[2] == (
        True,
        prefix + "Must match one of the alternatives: phone: Field required | "
        "email: Field required; email: Field required",
    )
    assert texts[3] == (True, prefix + "phone: Field required")
    assert texts[4] == (
        True,
        prefix + "extra: unknown argument (the tool takes name, address, contactMethod, phone, "
        "email); address.city: 3 is not of type 'string'",
    )


def test_registration_checks_the_schema_and_the_function() -> None:
    """An invalid JSON Schema, a root that is not an object, a parameter the schema lacks or
    a property the function cannot take are refused when the tool is registered."""
    mcp = Server("checks")

    def find(query: str, limit: int = 10) -> str:
        return query

    good = {"type": "object", "properties": {"query": {"type": "string"}, "limit": {}}}
    mcp.add_tool(find, input_schema=good)
    for schema, problem in (
        ({"type": "object", "properties": {"query": {"type": "text"}}}, "not a valid JSON Schema"),
        ({"type": "object", "properties": {"query": {"minLength": "2"}}}, "not a valid JSON"),
        ({"type": "array"}, 'needs "type": "object"'),
        ({"type": "object", "properties": {"limit": {}}}, "parameter 'query' is not a property"),
        ({**good, "properties": {**good["properties"], "page": {}}}, "['page'] are no parameters"),
    ):
        with pytest.raises(RegistrationError, match=problem.replace("[", r"\[")):
            mcp.add_tool(find, name="find_again", input_schema=schema)


async def test_the_function_gets_its_declared_arguments() -> None:
    """Without **kwargs the function gets the properties it names, with their defaults for
    those left out; arguments the schema lets through but no parameter takes are not passed."""
    mcp = Server("kwargs")

    @mcp.tool(input_schema={"type": "object", "properties": {"query": {"type": "string"}}})
    def find(query: str, limit: int = 10) -> str:
        return f"{query}/{limit}"

    async with Client(mcp, protocol_version=MODERN) as client:
        assert (await client.call_tool("find", {"query": "q", "other": 1})).text == "q/10"
        invalid = await client.call_tool("find", {"query": 5})
        assert invalid.is_error and "query: 5 is not of type 'string'" in invalid.text


def test_typed_tools_do_not_load_a_json_schema_validator() -> None:
    """Only servers with hand-written input schemas import jsonschema."""
    code = (
        "import sys, asyncio\n"
        "from toolwire import Server, Client\n"
        "mcp = Server('x')\n"
        "@mcp.tool()\n"
        "def add(a: int, b: int) -> int:\n"
        "    return a + b\n"
        "async def main():\n"
        "    async with Client(mcp) as c:\n"
        "        assert (await c.call_tool('add', {'a': 1, 'b': 2})).text == '3'\n"
        "asyncio.run(main())\n"
        "assert 'jsonschema' not in sys.modules, 'jsonschema was imported'\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=30)
    assert done.returncode == 0, done.stderr
