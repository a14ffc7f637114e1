"""Argument names a tool has no parameter for: an ``isError`` result naming them, with the
closest parameter name, unless the server or the tool says to ignore them; over memory and
stdio, in both eras, every message checked against the revision's schema."""

from __future__ import annotations

import json
import sys
from typing import Any

import pytest

from servers.live_peer import load
from toolwire import Client, RegistrationError, Server
from toolwire.schema import function as schema_module
from toolwire.schema.function import InvalidArguments, function_schema

from mcp_spec import WireChecker
from wire import MODERN, SERVERS

pytestmark = pytest.mark.timeout(30)

REVISIONS = ["2025-06-18", MODERN]
SCRIPT = SERVERS / "unknown_args.py"
PREFIX = "Invalid arguments for tool"


def target(transport: str, mode: str) -> Any:
    if transport == "memory":
        return load("unknown_args").build(mode)
    return [sys.executable, str(SCRIPT), mode]


async def calls(transport: str, revision: str, mode: str, wanted: list[tuple[str, dict]]) -> list:
    checker = WireChecker(revision)

    def tap(direction: str, data: bytes) -> None:
        (checker.client_sent if direction == "send" else checker.server_sent)(data)

    async with Client(target(transport, mode), protocol_version=revision, tap=tap) as client:
        results = [await client.call_tool(name, arguments) for name, arguments in wanted]
    assert checker.checked > 0 and checker.client_issues == []
    return [(r.is_error, r.text) for r in results]


@pytest.mark.parametrize("revision", REVISIONS)
@pytest.mark.parametrize("transport", ["memory", "stdio"])
async def test_unknown_names_are_refused_with_the_closest_parameter(
    transport: str, revision: str
) -> None:
    got = await calls(
        transport,
        revision,
        "reject",
        [
            ("forecast", {"city": "Oslo", "nite": True}),
            ("plan", {"trip": {"city": "Rome"}, "nigth": True}),
            ("forecast", {"city": "Oslo", "colour": "red", "zzz": 1}),
            ("forecast", {"city": 5, "nite": True}),
            ("forecast", {"city": "Oslo", "night": True}),
            ("lenient", {"city": "Oslo", "nite": True}),
            ("tagged", {"city": "Oslo", "nite": True}),
        ],
    )
    assert got == [
        (True, f"{PREFIX} 'forecast': nite: unknown argument, did you mean 'night'?"),
        (True, f"{PREFIX} 'plan': nigth: unknown argument, did you mean 'night'?"),
        (
            True,
            f"{PREFIX} 'forecast': colour: unknown argument (the tool takes city, night); "
            "zzz: unknown argument",
        ),
        (
            True,
            f"{PREFIX} 'forecast': city: Input should be a valid string; "
            "nite: unknown argument, did you mean 'night'?",
        ),
        (False, "Oslo at night"),
        (False, "Oslo"),  # the tool's own option
        (False, "Oslo [('nite', True)]"),  # **kwargs takes any name
    ]


@pytest.mark.parametrize("revision", REVISIONS)
@pytest.mark.parametrize("transport", ["memory", "stdio"])
async def test_a_server_that_ignores_unknown_names_still_refuses_a_near_miss(
    transport: str, revision: str
) -> None:
    got = await calls(
        transport,
        revision,
        "ignore",
        [
            ("forecast", {"city": "Oslo", "colour": "red", "zzz": 1}),
            ("plan", {"trip": {"city": "Rome", "days": 2}, "colour": "red"}),
            ("forecast", {"city": "Oslo", "nite": True, "colour": "red"}),
            ("plan", {"trip": {"city": "Rome"}, "nigth": True}),
            ("strict", {"city": "Oslo", "cty": "x"}),
        ],
    )
    assert got == [
        (False, "Oslo at day"),  # nothing close to a parameter: dropped
        (False, "Rome for 2 days, night=False"),
        # a likely typo is still refused: dropping it would silently answer for the day
        (True, f"{PREFIX} 'forecast': nite: unknown argument, did you mean 'night'?"),
        (True, f"{PREFIX} 'plan': nigth: unknown argument, did you mean 'night'?"),
        (True, f"{PREFIX} 'strict': cty: unknown argument, did you mean 'city'?"),
    ]


@pytest.mark.parametrize("transport", ["memory", "stdio"])
async def test_ignore_all_drops_near_misses_too(transport: str) -> None:
    got = await calls(
        transport,
        MODERN,
        "ignore-all",
        [
            ("forecast", {"city": "Oslo", "nite": True}),
            ("plan", {"trip": {"city": "Rome", "days": 2}, "nigth": True}),
            ("lenient", {"city": "Oslo", "cty": "x"}),  # the tool's "ignore" keeps its check
        ],
    )
    assert got == [
        (False, "Oslo at day"),
        (False, "Rome for 2 days, night=False"),
        (True, f"{PREFIX} 'lenient': cty: unknown argument, did you mean 'city'?"),
    ]


META = {"progressToken": "p1", "io.example/trace": "abc"}


@pytest.mark.parametrize("revision", REVISIONS)
@pytest.mark.parametrize("transport", ["memory", "stdio"])
@pytest.mark.parametrize("mode", ["reject", "ignore"])
async def test_underscore_names_are_never_arguments(
    transport: str, revision: str, mode: str
) -> None:
    got = await calls(
        transport,
        revision,
        mode,
        [
            ("forecast", {"city": "Oslo", "_meta": META, "_client": "x"}),
            ("plan", {"trip": {"city": "Rome"}, "_meta": META}),
            ("strict", {"city": "Oslo", "_meta": META}),
            ("traced", {"city": "Oslo", "_trace": "t1", "_meta": META}),
            ("traced", {"city": "Oslo", "_trac": "t1"}),
            ("find_books", {"query": "Dune", "_kind": "film", "_meta": META}),
            ("forecast", {"_meta": META}),
        ],
    )
    assert got == [
        (False, "Oslo at day"),
        (False, "Rome for 1 days, night=False"),
        (False, "Oslo"),
        (False, "Oslo t1"),  # a parameter of that name receives it
        (True, f"{PREFIX} 'traced': _trac: unknown argument, did you mean '_trace'?"),
        (False, "Dune (book)"),  # hidden by the transform: not an argument either
        (True, f"{PREFIX} 'forecast': city: Field required"),  # no word of _meta
    ]


async def test_underscore_names_are_no_prompt_arguments() -> None:
    async with Client(load("unknown_args").build("reject"), protocol_version=MODERN) as client:
        prompt = await client.get_prompt("greet", {"name": "Ada", "_meta": "x"})
        assert prompt.text == "Hello Ada"
        with pytest.raises(Exception, match="unknown argument 'nme'"):
            await client.get_prompt("greet", {"name": "Ada", "nme": "x"})


def test_a_wrong_option_value_is_refused_at_registration() -> None:
    mcp = Server("x")
    with pytest.raises(RegistrationError, match="unknown_arguments"):
        mcp.add_tool(lambda city: city, name="t", unknown_arguments="drop")


def test_the_published_schema_is_the_same_either_way() -> None:
    def forecast(city: str, night: bool = False) -> str:
        return city

    assert (
        function_schema(forecast).input_schema
        == function_schema(forecast, unknown_arguments="ignore").input_schema
        == {
            "type": "object",
            "properties": {
                "city": {"type": "string"},
                "night": {"type": "boolean", "default": False},
            },
            "required": ["city"],
        }
    )


@pytest.mark.parametrize("fast", [True, False])
def test_unknown_names_are_listed_beside_the_other_errors(fast: bool) -> None:
    def add(a: int, b: int) -> int:  # every parameter required
        return a + b

    def scale(a: int, factor: float = 1.0) -> float:
        return a * factor

    for fn, arguments, errors in (
        (add, {"a": 1, "c": 2}, [("b", "Field required"), ("c", "Extra inputs are not permitted")]),
        (add, {"a": 1, "b": 2, "c": 3}, [("c", "Extra inputs are not permitted")]),
        (scale, {"a": 1, "factr": 2}, [("factr", "Extra inputs are not permitted")]),
        (
            scale,
            {"a": "x", "fac": 2},
            [
                ("a", "Input should be a valid integer, unable to parse string as an integer"),
                ("fac", "Extra inputs are not permitted"),
            ],
        ),
    ):
        schema = (
            function_schema(fn)
            if fast
            else schema_module._function_schema(fn, (), "portable", None, allow_fast=False)
        )
        with pytest.raises(InvalidArguments) as caught:
            schema.validate(arguments)
        assert caught.value.errors == errors
    assert function_schema(add).validate({"a": 1, "b": 2}) == {"a": 1, "b": 2}


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_the_official_client_may_put_meta_among_the_arguments(mode: str) -> None:
    """The official SDK's client, as some hosts use it, with ``_meta`` inside ``arguments``."""
    import anyio
    from mcp import Client as OfficialClient

    from interop.tapped_stdio import tapped_stdio

    sent: list[dict[str, Any]] = []

    class Recording(WireChecker):
        def client_sent(self, message: Any) -> None:
            sent.append(json.loads(message))
            super().client_sent(message)

    checker = Recording()
    with anyio.fail_after(25):
        transport = tapped_stdio([str(SCRIPT)], checker)
        async with OfficialClient(transport, mode=mode) as client:
            result = await client.call_tool("forecast", {"city": "Oslo", "_meta": META})
            assert not result.is_error, result
            assert result.content[0].text == "Oslo at day"
            typo = await client.call_tool("forecast", {"city": "Oslo", "nite": True})
            assert typo.is_error
            assert typo.content[0].text.endswith("nite: unknown argument, did you mean 'night'?")
    checker.close()
    calls = [m for m in sent if m.get("method") == "tools/call"]
    assert calls[0]["params"]["arguments"]["_meta"] == META  # it did go inside the arguments
