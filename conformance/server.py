"""The server the official MCP conformance harness tests: every tool, resource and prompt its
server scenarios call, written on toolwire's public API the way a user would write them.

    python conformance/server.py [PORT]    # Streamable HTTP at http://127.0.0.1:PORT/mcp

Sections follow the harness's scenarios; the names are the ones the harness calls.
"""

from __future__ import annotations

import asyncio
import sys
from typing import Annotated, Any

from pydantic import BaseModel, Field

from toolwire import Context, Server

mcp = Server("toolwire-conformance-server", version="1.0.0")


class Confirmation(BaseModel):
    go_on: bool = True


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


@mcp.tool()
async def test_reconnection(ctx: Context) -> str:
    """Ends its SSE connection before answering: the client resumes with Last-Event-ID
    and still gets this answer (SEP-1699 polling)."""
    ctx.close_sse_connection()
    return "Reconnection test completed: the answer arrived on the resumed stream"


@mcp.tool()
def test_custom_header(
    region: Annotated[
        str,
        Field(
            description="Mirrored as Mcp-Param-Region", json_schema_extra={"x-mcp-header": "Region"}
        ),
    ],
) -> str:
    """Echoes a parameter that travels in the Mcp-Param-Region header too (SEP-2243)."""
    return f"Region: {region}"


@mcp.tool()
async def test_streaming_elicitation(ctx: Context) -> str:
    """Reports progress, then asks the user a question (a 2026-07-28 client gets an
    InputRequiredResult, never a request of the server's own)."""
    await ctx.report_progress(50, total=100, message="half way")
    answer = await ctx.elicit("Go on?", Confirmation)
    return f"Streaming complete: {answer.action}"


@mcp.tool()
async def test_logging_tool(ctx: Context) -> str:
    """Logs a line: sent only to a client that asked for log messages."""
    await ctx.info("Diagnostic trace logging activated")
    return "Logging evaluated"


def _changed_tool() -> str:
    """Appears and disappears to change the tool list."""
    return "changed"


@mcp.tool()
def test_trigger_tool_change() -> str:
    """Changes the tool list (listen streams that asked are told)."""
    if mcp.get_tool("test_changed_tool") is None:
        mcp.add_tool(_changed_tool, name="test_changed_tool")
    else:
        mcp.remove_tool("test_changed_tool")
    return "Mutation triggered"


def _changed_prompt() -> str:
    """Appears and disappears to change the prompt list."""
    return "changed"


@mcp.tool()
def test_trigger_prompt_change() -> str:
    """Changes the prompt list (listen streams that asked are told)."""
    if any(prompt.name == "test_changed_prompt" for prompt in mcp.prompts):
        mcp.remove_prompt("test_changed_prompt")
    else:
        mcp.add_prompt(_changed_prompt, name="test_changed_prompt")
    return "Mutation triggered"


if __name__ == "__main__":
    mcp.run(
        transport="http", host="127.0.0.1", port=int(sys.argv[1]) if len(sys.argv) > 1 else 3000
    )
