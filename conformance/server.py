"""The server the official MCP conformance harness tests: every tool, resource and prompt its
server scenarios call, written on toolwire's public API the way a user would write them.

    python conformance/server.py [PORT]    # Streamable HTTP at http://127.0.0.1:PORT/mcp

Sections follow the harness's scenarios; the names are the ones the harness calls.
"""

from __future__ import annotations

import asyncio
import sys
from typing import Any

from pydantic import BaseModel

from toolwire import Context, Server

mcp = Server("toolwire-conformance-server", version="1.0.0")

# --- tools: content, errors, progress, logging (tools-*) -----------------------------------

# --- questions for the client: sampling, elicitation, roots (legacy and 2026-07-28) -------


class Name(BaseModel):
    name: str


class Okay(BaseModel):
    ok: bool


class Color(BaseModel):
    color: str


class Value(BaseModel):
    value: str


class PromptContext(BaseModel):
    context: str


@mcp.tool(description="Asks the user's name (elicitation), then greets them")
async def test_input_required_result_elicitation(ctx: Context) -> str:
    answer = await ctx.elicit("What is your name?", Name, key="user_name")
    return f"Hello, {answer.data.name}!" if answer.action == "accept" else "Hello, stranger!"


@mcp.tool(description="Asks the client's model a question (sampling)")
async def test_input_required_result_sampling(ctx: Context) -> str:
    answer = await ctx.sample(
        "What is the capital of France?", max_tokens=100, key="capital_question"
    )
    return answer.text


@mcp.tool(description="Lists the client's roots")
async def test_input_required_result_list_roots(ctx: Context) -> str:
    roots = await ctx.list_roots(key="client_roots")
    return f"Found {len(roots)} root(s): " + ", ".join(root.uri for root in roots)


@mcp.tool(description="Asks for a confirmation; the state between rounds is kept signed")
async def test_input_required_result_request_state(ctx: Context) -> str:
    answer = await ctx.elicit("Please confirm", Okay, key="confirm")
    confirmed = answer.action == "accept" and answer.data.ok
    return f"state-ok: {'confirmed' if confirmed else 'not confirmed'}"


@mcp.tool(description="Asks the user, the model and for the roots at once")
async def test_input_required_result_multiple_inputs(ctx: Context) -> str:
    name, greeting, roots = await asyncio.gather(
        ctx.elicit("What is your name?", Name, key="user_name"),
        ctx.sample("Generate a greeting", max_tokens=50, key="greeting"),
        ctx.list_roots(key="client_roots"),
    )
    who = name.data.name if name.action == "accept" else "stranger"
    return f"Name: {who}; Greeting: {greeting.text}; Roots: {len(roots)}"


@mcp.tool(description="Asks two questions, one after the other")
async def test_input_required_result_multi_round(ctx: Context) -> str:
    name = await ctx.elicit("Step 1: What is your name?", Name, key="step1")
    color = await ctx.elicit("Step 2: What is your favorite color?", Color, key="step2")
    if name.action != "accept" or color.action != "accept":
        return "Nothing to remember."
    return f"{name.data.name} likes {color.data.color}"


@mcp.tool(description="Asks for a confirmation with signed request state")
async def test_input_required_result_tampered_state(ctx: Context) -> str:
    answer = await ctx.elicit("Please confirm", Okay, key="confirm")
    return "confirmed" if answer.action == "accept" and answer.data.ok else "not confirmed"


@mcp.tool(description="Asks only what the client declared it can answer")
async def test_input_required_result_capabilities(ctx: Context) -> str:
    questions = []
    if "elicitation" in ctx.client_capabilities:
        questions.append(ctx.elicit("Elicitation input", Value, key="elicit_input"))
    if "sampling" in ctx.client_capabilities:
        questions.append(ctx.sample("Sample request", max_tokens=50, key="sample_input"))
    if not questions:
        return "No supported capabilities declared"
    answers = await asyncio.gather(*questions)
    return f"capabilities-ok: {len(answers)} answer(s)"


@mcp.tool(description="Needs the client's model (sampling)")
async def test_missing_capability(ctx: Context) -> str:
    answer = await ctx.sample("Say something", max_tokens=20)
    return answer.text


@mcp.prompt(description="A prompt that asks the user for its context first")
async def test_input_required_result_prompt(ctx: Context) -> str:
    answer = await ctx.elicit(
        "What context should the prompt use?", PromptContext, key="user_context"
    )
    context = answer.data.context if answer.action == "accept" else "none"
    return f"Use this context: {context}"


# --- a hand-written JSON Schema 2020-12 input schema (json-schema-2020-12) ---------------

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


@mcp.tool(description="Tool with JSON Schema 2020-12 features", input_schema=CONTACT_SCHEMA)
def json_schema_2020_12_tool(**contact: Any) -> str:
    how = contact.get("contactMethod") or ("phone" if "phone" in contact else "email")
    return f"Contact {contact.get('name', 'unnamed')} by {how}: {contact.get(how)}"


# --- resources and prompts ----------------------------------------------------------------

# --- HTTP: streams, headers, stateless 2026-07-28 ------------------------------------------


if __name__ == "__main__":
    mcp.run(
        transport="http", host="127.0.0.1", port=int(sys.argv[1]) if len(sys.argv) > 1 else 3000
    )
