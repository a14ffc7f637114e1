"""FastMCP's ``Context`` methods on toolwire: per-session state (``set_state``,
``get_state``, ``delete_state``), ``session_id``, and ``elicit(message, response_type=...)``
with scalars, choices, a dataclass and ``None``, answered with ``AcceptedElicitation``,
``DeclinedElicitation`` or ``CancelledElicitation``. Every message is schema-checked.
(Across HTTP workers: tests/test_state_scaleout.py; against FastMCP itself:
tests/interop/test_fastmcp_style.py.)"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any, Literal

import pytest

from toolwire import (
    AcceptedElicitation,
    CancelledElicitation,
    Context,
    DeclinedElicitation,
    Server,
)
from toolwire.server.compat.fastmcp_elicit import form
from toolwire.server.inputs import ElicitationResult

from http_server import serve_http
from wire import checked_client

pytestmark = pytest.mark.timeout(30)
REVISIONS = ["2025-11-25", "2026-07-28"]


def state_server() -> Server:
    mcp = Server("state")

    @mcp.tool()
    async def put(key: str, value: Any, ctx: Context) -> str:
        await ctx.set_state(key, value)
        return ctx.session_id

    @mcp.tool()
    async def get(key: str, ctx: Context) -> Any:
        return {"value": await ctx.get_state(key)}

    @mcp.tool()
    async def drop(key: str, ctx: Context) -> str:
        await ctx.delete_state(key)
        return "dropped"

    @mcp.tool()
    async def local(ctx: Context) -> str:
        lock = object()
        await ctx.set_state("lock", lock, serializable=False)
        return "same" if await ctx.get_state("lock") is lock else "lost"

    @mcp.tool()
    async def unjsonable(ctx: Context) -> str:
        await ctx.set_state("x", object())
        return "kept"

    @mcp.tool()
    def transport(ctx: Context) -> str:
        return str(ctx.transport)

    return mcp


@pytest.mark.parametrize("revision", REVISIONS)
async def test_each_session_has_its_own_state(revision: str) -> None:
    mcp = state_server()
    async with checked_client(mcp, revision) as one, checked_client(mcp, revision) as two:
        first = (await one.call_tool("put", {"key": "k", "value": [1, "a"]})).text
        assert (await one.call_tool("get", {"key": "k"})).structured == {"value": [1, "a"]}
        assert (await one.call_tool("put", {"key": "k2", "value": 2})).text == first
        assert (await two.call_tool("get", {"key": "k"})).structured == {"value": None}
        assert (await two.call_tool("put", {"key": "k", "value": 3})).text != first
        await one.call_tool("drop", {"key": "k"})
        assert (await one.call_tool("get", {"key": "k"})).structured == {"value": None}
        assert (await two.call_tool("get", {"key": "k"})).structured == {"value": 3}
        assert (await one.call_tool("local")).text == "same"
        assert (await one.call_tool("get", {"key": "lock"})).structured == {"value": None}


async def test_a_value_json_cannot_hold_is_refused(caplog: pytest.LogCaptureFixture) -> None:
    async with checked_client(state_server(), "2025-11-25") as client:
        assert (await client.call_tool("unjsonable")).is_error
    assert "serializable=False" in caplog.text


async def test_over_http_the_session_is_the_mcp_session() -> None:
    with serve_http(state_server()) as url:
        async with checked_client(url, "2025-11-25") as client:
            session = (await client.call_tool("put", {"key": "k", "value": 1})).text
            assert session == client._transport.session_id
            assert (await client.call_tool("get", {"key": "k"})).structured == {"value": 1}
        async with checked_client(url, "2026-07-28") as client:
            refused = await client.call_tool("put", {"key": "k", "value": 1})
    assert refused.is_error
    assert "revision 2026-07-28, which is stateless" in refused.text
    assert "ctx.state" in refused.text


@pytest.mark.parametrize("revision", REVISIONS)
async def test_ctx_transport_names_how_the_request_came(revision: str) -> None:
    """FastMCP's ``ctx.transport``: "streamable-http" over HTTP, None in memory ("stdio"
    over stdio: tests/interop/test_fastmcp_examples_style.py)."""
    async with checked_client(state_server(), revision) as client:
        assert (await client.call_tool("transport")).text == "None"
    with serve_http(state_server()) as url:
        async with checked_client(url, revision) as client:
            assert (await client.call_tool("transport")).text == "streamable-http"


# ------------------------------------------------------------ elicit(response_type=...)


@dataclass
class Person:
    name: str
    age: int = 0


class Size(enum.Enum):
    SMALL = "s"
    LARGE = "l"


def test_the_requested_schemas() -> None:
    # pydantic's titles, the form's labels, as FastMCP sends them
    assert form(str)[0] == {
        "type": "object",
        "properties": {"value": {"type": "string", "title": "Value"}},
        "required": ["value"],
    }
    assert form(int, "Age", "In years")[0]["properties"]["value"] == {
        "type": "integer",
        "title": "Age",
        "description": "In years",
    }
    assert form(["a", "b"])[0]["properties"]["value"] == {
        "type": "string",
        "enum": ["a", "b"],
        "title": "Value",
    }
    assert form([["a", "b"]])[0]["properties"]["value"]["items"] == {
        "type": "string",
        "enum": ["a", "b"],
    }
    assert form({"lo": {"title": "Low"}})[0]["properties"]["value"]["oneOf"] == [
        {"const": "lo", "title": "Low"}
    ]
    assert form(Literal["x", "y"])[0]["properties"]["value"]["enum"] == ["x", "y"]
    assert form(Size)[0]["properties"]["value"] == {
        "type": "string",
        "enum": ["s", "l"],
        "title": "Size",
    }
    assert form(Person)[0] == {
        "type": "object",
        "properties": {
            "name": {"type": "string", "title": "Name"},
            "age": {"type": "integer", "title": "Age", "default": 0},
        },
        "required": ["name"],
        "title": "Person",
    }
    assert form(None)[0] == {"type": "object", "properties": {}}


def test_what_cannot_be_asked_is_refused_with_the_alternative() -> None:
    @dataclass
    class Nested:
        person: Person

    with pytest.raises(TypeError, match="'person' of Nested is not"):
        form(Nested)
    with pytest.raises(TypeError, match=r"use Field\(title=\.\.\., description=\.\.\.\)"):
        form(Person, "Title")
    with pytest.raises(TypeError, match="non-empty list of strings"):
        form([1, 2])


def asking() -> Server:
    mcp = Server("asking")

    def said(answer: ElicitationResult) -> str:
        assert isinstance(answer, ElicitationResult)  # the SDK-style fields too
        match answer:
            case AcceptedElicitation(data=data):
                return f"accepted {data!r}"
            case DeclinedElicitation():
                return "declined"
            case CancelledElicitation():
                return "cancelled"
        return "?"

    @mcp.tool()
    async def ask(kind: str, ctx: Context) -> str:
        types: dict[str, Any] = {
            "str": str,
            "int": int,
            "bool": bool,
            "choice": ["red", "blue"],
            "none": None,
            "person": Person,
        }
        return said(await ctx.elicit(f"Give a {kind}", response_type=types[kind]))

    @mcp.tool()
    async def positional(ctx: Context) -> str:
        return said(await ctx.elicit("Give a str", str))

    return mcp


ANSWERS = {
    "Give a str": {"value": "Ada"},
    "Give a int": {"value": 36},
    "Give a bool": {"value": False},
    "Give a choice": {"value": "blue"},
    "Give a none": {},
    "Give a person": {"name": "Ada", "age": 36},
}


@pytest.mark.parametrize("revision", REVISIONS)
async def test_elicit_answers_as_fastmcp_does(revision: str) -> None:
    mode = {"action": "accept"}

    def person(params: dict[str, Any]) -> dict[str, Any]:
        if mode["action"] != "accept":
            return {"action": mode["action"]}
        return {"action": "accept", "content": ANSWERS[params["message"]]}

    async with checked_client(asking(), revision, elicitation_handler=person) as client:
        texts = {
            kind: (await client.call_tool("ask", {"kind": kind})).text
            for kind in ("str", "int", "bool", "choice", "none", "person")
        }
        assert texts == {
            "str": "accepted 'Ada'",
            "int": "accepted 36",
            "bool": "accepted False",
            "choice": "accepted 'blue'",
            "none": "accepted {}",
            "person": "accepted Person(name='Ada', age=36)",
        }
        assert (await client.call_tool("positional")).text == "accepted 'Ada'"
        mode["action"] = "decline"
        assert (await client.call_tool("ask", {"kind": "int"})).text == "declined"
        mode["action"] = "cancel"
        assert (await client.call_tool("ask", {"kind": "person"})).text == "cancelled"


async def test_an_answer_that_does_not_fit_is_an_error_result() -> None:
    def person(params: dict[str, Any]) -> dict[str, Any]:
        return {"action": "accept", "content": {"other": 1}}

    async with checked_client(asking(), "2025-11-25", elicitation_handler=person) as client:
        result = await client.call_tool("ask", {"kind": "int"})
    assert result.is_error and 'no "value"' in result.text
