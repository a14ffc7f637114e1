"""Provider profiles (toolwire.providers): problems, exports, and where they are used
(``Server(provider=...)`` over stdio, ``Host``'s exports and its null-means-absent calls)."""

from __future__ import annotations

import asyncio
import logging
import sys
from pathlib import Path
from typing import Any

import pytest

from toolwire import Server
from toolwire.client import Host
from toolwire.errors import RegistrationError
from toolwire.providers import (
    PROVIDERS,
    Unexpressible,
    export,
    name_problems,
    null_means_absent,
    problems,
)

from mcp_spec import WireChecker
from wire import checked_client

SERVERS = Path(__file__).parent / "servers"

MAP = {"type": "object", "properties": {"m": {"type": "object", "additionalProperties": {}}}}
OPTIONAL = {
    "type": "object",
    "properties": {"a": {"type": "integer"}, "b": {"type": "string", "default": "x"}},
    "required": ["a"],
}
RECURSIVE = {
    "type": "object",
    "$defs": {
        "Node": {
            "type": "object",
            "properties": {"kids": {"type": "array", "items": {"$ref": "#/$defs/Node"}}},
        }
    },
    "properties": {"tree": {"$ref": "#/$defs/Node"}},
    "required": ["tree"],
}


def test_strict_export_makes_optional_properties_required_and_nullable() -> None:
    assert problems(OPTIONAL, "openai") == [
        "at /: strict mode needs 'additionalProperties': false",
        "at /properties/b: 'default' is not permitted in strict mode",
        "at /properties/b: optional: strict mode needs every property required",
    ]
    assert export(OPTIONAL, "openai") == {
        "type": "object",
        "properties": {
            "a": {"type": "integer"},
            "b": {"type": ["string", "null"], "description": '(default: "x")'},
        },
        "required": ["a", "b"],
        "additionalProperties": False,
    }
    assert OPTIONAL["properties"]["b"] == {"type": "string", "default": "x"}  # untouched


@pytest.mark.parametrize("provider", PROVIDERS)
def test_an_export_has_no_problem_left(provider: str) -> None:
    for schema in (OPTIONAL, {"type": "object", "properties": {}}):
        assert problems(export(schema, provider), provider) == []


def test_a_free_map_cannot_be_expressed_for_openai_strict_or_gemini() -> None:
    for provider, reason in [
        (
            "openai",
            "at /properties/m: a map with free keys (dict) cannot be expressed in strict mode",
        ),
        ("gemini", "at /properties/m: a map with free keys (dict) cannot be expressed for Gemini"),
    ]:
        with pytest.raises(Unexpressible) as caught:
            export(MAP, provider)
        assert reason in caught.value.reasons
        assert reason in problems(MAP, provider)
        assert isinstance(caught.value, ValueError)
    assert problems(MAP, "anthropic") == []


def test_gemini_inlines_definitions_but_not_recursive_ones() -> None:
    nested = {
        "type": "object",
        "$defs": {"P": {"type": "object", "properties": {"c": {"type": "string"}}}},
        "properties": {"p": {"$ref": "#/$defs/P"}, "n": {"type": ["integer", "null"]}},
    }
    assert export(nested, "gemini") == {
        "type": "object",
        "properties": {
            "p": {"type": "object", "properties": {"c": {"type": "string"}}},
            "n": {"type": "integer", "nullable": True},
        },
    }
    with pytest.raises(Unexpressible) as caught:
        export(RECURSIVE, "gemini")
    assert caught.value.reasons == [
        "at /properties/tree/properties/kids/items: recursive definition 'Node' cannot be "
        "inlined for Gemini"
    ]
    assert problems(export(RECURSIVE, "openai"), "openai") == []  # strict mode takes recursion


def test_anthropic_refuses_a_top_level_union_and_odd_property_keys() -> None:
    schema = {"type": "object", "properties": {"a b": {"type": "string"}}, "anyOf": [{}]}
    assert problems(schema, "anthropic") == [
        "at /: Anthropic refuses 'anyOf' at the top level of input_schema",
        "at /properties/a b: property key 'a b' does not match Anthropic's ^[a-zA-Z0-9_.-]{1,64}$",
    ]


def test_names_and_unknown_providers() -> None:
    assert name_problems("get-sum", "openai") == []
    assert name_problems("1st", "gemini") != []
    assert name_problems("a.b", "anthropic") != []
    with pytest.raises(ValueError, match="unknown provider 'claude'"):
        problems({}, "claude")


def test_null_means_absent_only_where_null_is_no_value() -> None:
    schema = {
        "type": "object",
        "properties": {
            "a": {"type": "integer"},
            "b": {"type": "string"},
            "c": {"anyOf": [{"type": "string"}, {"type": "null"}]},
            "p": {"type": "object", "properties": {"x": {"type": "integer"}}},
        },
        "required": ["a"],
    }
    arguments = {"a": None, "b": None, "c": None, "p": {"x": None}}
    assert null_means_absent(arguments, schema) == {"a": None, "c": None, "p": {}}


def test_a_server_facing_a_provider_refuses_a_tool_it_cannot_express() -> None:
    mcp = Server("facing", provider="gemini")
    with pytest.raises(RegistrationError) as caught:

        @mcp.tool
        def count(words: dict[str, int]) -> int:
            return len(words)

    assert str(caught.value) == (
        "Tool 'count' cannot be expressed for gemini: at /properties/words: a map with free "
        "keys (dict) cannot be expressed for Gemini"
    )
    assert mcp.get_tool("count") is None
    with pytest.raises(ValueError, match="provider must be one of"):
        Server("x", provider="claude")  # type: ignore[arg-type]


async def _facing(provider: str) -> tuple[dict[str, Any], list[str]]:
    command = [sys.executable, str(SERVERS / "facing_openai.py"), provider]
    async with checked_client(command) as client:
        (tool,) = await client.list_tools()
        texts = []
        for arguments in (
            {"place": {"city": "Oslo", "country": None}, "days": None, "note": None},
            {"place": {"city": "Oslo", "country": "NO"}, "days": 5, "note": "hi"},
            {"place": {"city": None}},
        ):
            result = await client.call_tool("where", arguments)
            texts.append(("error: " if result.is_error else "") + result.text)
        return tool["inputSchema"], texts


def test_a_server_facing_openai_publishes_the_strict_export_over_stdio() -> None:
    schema, texts = asyncio.run(asyncio.wait_for(_facing("openai"), 30))
    assert schema == {
        "type": "object",
        "properties": {
            "place": {
                "type": "object",
                "properties": {
                    "city": {"type": "string"},
                    "country": {"type": ["string", "null"], "description": '(default: "FR")'},
                },
                "required": ["city", "country"],
                "additionalProperties": False,
            },
            "days": {"type": ["integer", "null"], "description": "(default: 3)"},
            "note": {"type": ["string", "null"]},
        },
        "required": ["place", "days", "note"],
        "additionalProperties": False,
    }
    assert problems(schema, "openai") == []
    # Nulls for optional arguments are absent (defaults apply); a required one stays invalid.
    assert texts[:2] == ["Oslo,FR,3,None", "Oslo,NO,5,hi"]
    assert texts[2].startswith("error: Invalid arguments for tool 'where': place.city")


def test_a_server_facing_gemini_publishes_its_schema_subset_over_stdio() -> None:
    schema, texts = asyncio.run(asyncio.wait_for(_facing("gemini"), 30))
    assert problems(schema, "gemini") == []
    assert schema["properties"]["note"] == {"type": "string"}
    assert texts[:2] == ["Oslo,FR,3,None", "Oslo,NO,5,hi"]


async def _host_exports(caplog: pytest.LogCaptureFixture) -> None:
    checker = WireChecker(None)

    def tap(direction: str, data: bytes) -> None:
        (checker.client_sent if direction == "send" else checker.server_sent)(data)

    command = [sys.executable, str(SERVERS / "provider_mixed.py")]
    async with Host({"s": command}, trusted={"s"}, tap=tap) as host:
        await host.list_tools()
        loose = host.openai_tools()
        assert [t["function"]["name"] for t in loose] == ["count", "echo", "nothing"]
        assert "strict" not in loose[0]
        with caplog.at_level(logging.WARNING, logger="toolwire.host"):
            strict = host.openai_tools(strict=True)
        assert [t["function"]["name"] for t in strict] == ["echo", "nothing"]
        assert all(t["strict"] is True for t in strict)
        assert strict[0]["function"]["parameters"]["required"] == ["text", "times"]
        assert host.export_problems["openai"] == {
            "count": [
                "at /properties/words: a map with free keys (dict) cannot be expressed in strict mode"
            ]
        }
        assert "The tool 'count' (server 's') is left out of the openai tools" in caplog.text
        gemini = host.gemini_tools()
        assert gemini == [
            {
                "name": "echo",
                "description": "Echo text.",
                "parameters": {
                    "type": "object",
                    "required": ["text"],
                    "properties": {
                        "text": {"type": "string"},
                        "times": {"type": "integer", "default": 1},
                    },
                },
            },
            {"name": "nothing", "description": "Do nothing."},
        ]
        assert list(host.export_problems["gemini"]) == ["count"]
        assert [t["name"] for t in host.anthropic_tools()] == ["count", "echo", "nothing"]
        assert host.export_problems["anthropic"] == {}
        # What a strict model sends for the optional argument it leaves out.
        result = await host.call_tool("echo", {"text": "ab", "times": None})
        assert result.text == "ab"
    assert checker.checked > 0


def test_host_exports_leave_out_and_report_what_a_provider_cannot_take(
    caplog: pytest.LogCaptureFixture,
) -> None:
    asyncio.run(asyncio.wait_for(_host_exports(caplog), 30))
