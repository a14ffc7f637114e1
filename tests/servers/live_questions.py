"""Questions for the client by name and several at once, roots, JSON-RPC errors on purpose,
and a hand-written input schema. ``build()`` makes a fresh server; run as a script it
serves stdio.

* ``greet()`` asks the user's name (key ``user_name``) and the client's model (key
  ``greeting``) at once; ``runs()`` tells how often greet started.
* ``roots()`` lists the client's roots (key ``client_roots``); ``seen_roots()`` tells the
  roots the ``on_roots_changed`` handler got.
* ``quota()`` raises ``RPCError(-32000, ...)`` on purpose; ``broken()`` fails by accident.
* ``contact(...)`` has a hand-written JSON Schema 2020-12 input schema.
"""

from __future__ import annotations

import asyncio
from typing import Any

from pydantic import BaseModel

from toolwire import Context, RPCError, Server
from toolwire.server.inputs import Root

CONTACT_SCHEMA = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "$defs": {
        "address": {
            "$anchor": "addressDef",
            "type": "object",
            "properties": {"street": {"type": "string"}, "city": {"type": "string"}},
        }
    },
    "properties": {
        "name": {"type": "string"},
        "address": {"$ref": "#/$defs/address"},
        "contactMethod": {"type": "string", "enum": ["phone", "email"]},
        "phone": {"type": "string"},
        "email": {"type": "string"},
    },
    "allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
    "if": {"properties": {"contactMethod": {"const": "phone"}}, "required": ["contactMethod"]},
    "then": {"required": ["phone"]},
    "else": {"required": ["email"]},
    "additionalProperties": False,
}


class Name(BaseModel):
    name: str


def build() -> Server:
    mcp = Server("live-questions", version="0.0.1")
    started: list[int] = []
    seen: list[list[Root]] = []

    @mcp.tool()
    async def greet(ctx: Context) -> str:
        started.append(1)
        name, greeting = await asyncio.gather(
            ctx.elicit("What is your name?", Name, key="user_name"),
            ctx.sample("Generate a greeting", max_tokens=50, key="greeting"),
        )
        return f"{greeting.text}, {name.data.name}!"

    @mcp.tool()
    def runs() -> str:
        return str(len(started))

    @mcp.tool()
    async def roots(ctx: Context) -> str:
        found = await ctx.list_roots(key="client_roots")
        return ", ".join(f"{root.name}={root.uri}" for root in found)

    @mcp.on_roots_changed
    def remember(roots: list[Root]) -> None:
        seen.append(roots)

    @mcp.tool()
    def seen_roots() -> str:
        return "; ".join(", ".join(root.uri for root in roots) for roots in seen)

    @mcp.tool()
    def quota() -> str:
        raise RPCError(-32000, "Quota exceeded", {"retryAfter": 30})

    @mcp.tool()
    def broken() -> str:
        raise RuntimeError("secret connection string postgres://u:p@db")

    @mcp.tool(input_schema=CONTACT_SCHEMA)
    def contact(**fields: Any) -> str:
        how = fields.get("contactMethod") or ("phone" if "phone" in fields else "email")
        return f"{fields.get('name', '?')} by {how}: {fields[how]}"

    return mcp


if __name__ == "__main__":
    build().run()
