"""An accepted form elicitation carries the ``default`` of every field the user left out
(SEP-1034), in both eras, in memory and over HTTP; other answers are sent as they are.
The number default is integral: the JSON Schema of ElicitResult allows no fractional values
(its TypeScript source says `number`).
Every message is checked against the negotiated revision's schema."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

import orjson
import pytest

from toolwire import Context, Server

from http_server import serve_http
from wire import checked_client

pytestmark = pytest.mark.timeout(30)

FORM = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "default": "John Doe"},
        "age": {"type": "integer", "default": 30},
        "score": {"type": "number", "default": 95},
        "status": {"type": "string", "enum": ["active", "inactive"], "default": "active"},
        "verified": {"type": "boolean", "default": True},
        "note": {"type": "string"},
    },
}
DEFAULTS = {"name": "John Doe", "age": 30, "score": 95, "status": "active", "verified": True}

server = Server("Forms")


@server.tool()
async def ask(ctx: Context) -> str:
    """What the client answered, as JSON."""
    answer = await ctx.elicit("Who are you?", FORM)
    return orjson.dumps({"action": answer.action, "content": answer.content}).decode()


@contextlib.contextmanager
def target(transport: str) -> Iterator[Any]:
    if transport == "memory":
        yield server
    else:
        with serve_http(server) as url:
            yield url


@pytest.mark.parametrize("transport", ["memory", "http"])
@pytest.mark.parametrize("revision", ["2025-11-25", "2026-07-28"])
@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        ({"action": "accept", "content": {}}, {"action": "accept", "content": DEFAULTS}),
        ({"action": "accept"}, {"action": "accept", "content": DEFAULTS}),
        (
            {"action": "accept", "content": {"name": "Ann", "note": "hi"}},
            {"action": "accept", "content": {**DEFAULTS, "name": "Ann", "note": "hi"}},
        ),
        ({"action": "decline"}, {"action": "decline", "content": None}),
    ],
)
async def test_defaults_fill_what_the_answer_left_out(
    transport: str, revision: str, reply: dict[str, Any], expected: dict[str, Any]
) -> None:
    with target(transport) as where:
        async with checked_client(where, revision, elicitation_handler=lambda _: reply) as c:
            result = await c.call_tool("ask", {})
            assert c.checker.client_issues == []  # type: ignore[attr-defined]
    assert not result.is_error, result.text
    assert orjson.loads(result.text) == expected
