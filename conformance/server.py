"""The server the official MCP conformance harness tests: every tool, resource and prompt its
server scenarios call, written on toolwire's public API the way a user would write them.

    python conformance/server.py [PORT]    # Streamable HTTP at http://127.0.0.1:PORT/mcp

Sections follow the harness's scenarios; the names are the ones the harness calls.
"""

from __future__ import annotations

import asyncio
import base64
import json
import sys
from pathlib import Path
from typing import Annotated, Any

from pydantic import BaseModel, Field

from toolwire import Audio, Context, Image, RPCError, Server, ToolError, UserMessage, types

mcp = Server("toolwire-conformance-server", version="1.0.0")

# A 1x1 PNG pixel and a minimal WAV file, as the harness's reference server sends them.
PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="
)
WAV = base64.b64decode("UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA=")


def embedded(uri: str, text: str, mime_type: str = "text/plain") -> types.EmbeddedResource:
    contents = types.TextResourceContents(uri=uri, mimeType=mime_type, text=text)
    return types.EmbeddedResource(type="resource", resource=contents)


class Confirmation(BaseModel):
    go_on: bool = True


# --- tools: content, errors, progress, logging (tools-*) -----------------------------------


@mcp.tool()
def test_simple_text() -> str:
    """Tests simple text content response"""
    return "This is a simple text response for testing."


@mcp.tool()
def test_image_content() -> Image:
    """Tests image content response"""
    return Image(data=PNG, format="png")


@mcp.tool()
def test_audio_content() -> Audio:
    """Tests audio content response"""
    return Audio(data=WAV, format="wav")


@mcp.tool()
def test_embedded_resource() -> types.EmbeddedResource:
    """Tests embedded resource content response"""
    return embedded("test://embedded-resource", "This is an embedded resource content.")


@mcp.tool()
def test_multiple_content_types() -> list[Any]:
    """Tests response with multiple content types (text, image, resource)"""
    data = json.dumps({"test": "data", "value": 123})
    return [
        "Multiple content types test:",
        Image(data=PNG, format="png"),
        embedded("test://mixed-content-resource", data, "application/json"),
    ]


@mcp.tool()
async def test_tool_with_logging(ctx: Context) -> str:
    """Tests tool that emits log messages during execution"""
    for step in ("Tool execution started", "Tool processing data", "Tool execution completed"):
        await ctx.info(step)
    return "Tool with logging executed successfully"


@mcp.tool()
async def test_tool_with_progress(ctx: Context) -> str:
    """Tests tool that reports progress notifications"""
    for done in (0, 50, 100):
        await ctx.report_progress(done, total=100, message=f"Completed step {done} of 100")
        await asyncio.sleep(0)
    return str(ctx.progress_token)


@mcp.tool()
def test_error_handling() -> str:
    """Tests error response handling"""
    raise ToolError("This tool intentionally returns an error for testing")


# --- questions for the client: sampling, elicitation, roots (legacy and 2026-07-28) -------


@mcp.tool()
async def test_sampling(prompt: str, ctx: Context) -> str:
    """Tests server-initiated sampling (LLM completion request)

    Args:
        prompt: The prompt to send to the LLM
    """
    answer = await ctx.sample(prompt, max_tokens=100)
    return f"LLM response: {answer.text or 'No response'}"


@mcp.tool()
async def test_elicitation(message: str, ctx: Context) -> str:
    """Tests server-initiated elicitation (user input request)

    Args:
        message: The message to show the user
    """
    schema = {
        "type": "object",
        "properties": {"response": {"type": "string", "description": "User's response"}},
        "required": ["response"],
    }
    answer = await ctx.elicit(message, schema)
    return f"User response: action={answer.action}, content={json.dumps(answer.content or {})}"


ELICITATION_DEFAULTS = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "description": "User name", "default": "John Doe"},
        "age": {"type": "integer", "description": "User age", "default": 30},
        "score": {"type": "number", "description": "User score", "default": 95.5},
        "status": {
            "type": "string",
            "description": "User status",
            "enum": ["active", "inactive", "pending"],
            "default": "active",
        },
        "verified": {"type": "boolean", "description": "Verification status", "default": True},
    },
    "required": [],
}


@mcp.tool()
async def test_elicitation_sep1034_defaults(ctx: Context) -> str:
    """Tests elicitation with default values per SEP-1034"""
    message = "Please review and update the form fields with defaults"
    answer = await ctx.elicit(message, ELICITATION_DEFAULTS)
    return (
        f"Elicitation completed: action={answer.action}, content={json.dumps(answer.content or {})}"
    )


def _choices(values: list[str], titles: list[str]) -> list[dict[str, str]]:
    return [{"const": value, "title": title} for value, title in zip(values, titles, strict=True)]


ELICITATION_ENUMS = {
    "type": "object",
    "properties": {
        "untitledSingle": {
            "type": "string",
            "description": "Select one option",
            "enum": ["option1", "option2", "option3"],
        },
        "titledSingle": {
            "type": "string",
            "description": "Select one option with titles",
            "oneOf": _choices(
                ["value1", "value2", "value3"], ["First Option", "Second Option", "Third Option"]
            ),
        },
        "legacyEnum": {
            "type": "string",
            "description": "Select one option (legacy)",
            "enum": ["opt1", "opt2", "opt3"],
            "enumNames": ["Option One", "Option Two", "Option Three"],
        },
        "untitledMulti": {
            "type": "array",
            "description": "Select multiple options",
            "minItems": 1,
            "maxItems": 3,
            "items": {"type": "string", "enum": ["option1", "option2", "option3"]},
        },
        "titledMulti": {
            "type": "array",
            "description": "Select multiple options with titles",
            "minItems": 1,
            "maxItems": 3,
            "items": {
                "anyOf": _choices(
                    ["value1", "value2", "value3"],
                    ["First Choice", "Second Choice", "Third Choice"],
                )
            },
        },
    },
    "required": [],
}


@mcp.tool()
async def test_elicitation_sep1330_enums(ctx: Context) -> str:
    """Tests elicitation with enum schema improvements per SEP-1330"""
    answer = await ctx.elicit("Please select options from the enum fields", ELICITATION_ENUMS)
    return (
        f"Elicitation completed: action={answer.action}, content={json.dumps(answer.content or {})}"
    )


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


@mcp.resource("test://static-text", title="Static Text Resource", mime_type="text/plain")
def static_text() -> str:
    """A static text resource for testing"""
    return "This is the content of the static text resource."


@mcp.resource("test://static-binary", title="Static Binary Resource", mime_type="image/png")
def static_binary() -> bytes:
    """A static binary resource (image) for testing"""
    return PNG


@mcp.resource("test://template/{id}/data", title="Resource Template", mime_type="application/json")
def template(id: str) -> str:
    """A resource template with parameter substitution"""
    return json.dumps({"id": id, "templateTest": True, "data": f"Data for ID: {id}"})


@mcp.resource("test://watched-resource", title="Watched Resource", mime_type="text/plain")
def watched_resource() -> str:
    """A resource clients may subscribe to"""
    return "Watched resource content"


@mcp.prompt(title="Simple Test Prompt")
def test_simple_prompt() -> str:
    """A simple prompt without arguments"""
    return "This is a simple prompt for testing."


SUGGESTIONS = ["paris", "park", "party", "test", "testing"]


def suggest(value: str) -> list[str]:
    return [word for word in SUGGESTIONS if word.startswith(value)]


@mcp.prompt(title="Prompt With Arguments", complete={"arg1": suggest, "arg2": suggest})
def test_prompt_with_arguments(arg1: str, arg2: str) -> str:
    """A prompt with required arguments

    Args:
        arg1: First test argument
        arg2: Second test argument
    """
    return f"Prompt with arguments: arg1='{arg1}', arg2='{arg2}'"


@mcp.prompt(title="Prompt With Embedded Resource")
def test_prompt_with_embedded_resource(resourceUri: str) -> list[Any]:
    """A prompt that includes an embedded resource

    Args:
        resourceUri: URI of the resource to embed
    """
    return [
        embedded(resourceUri, "Embedded resource content for testing."),
        UserMessage("Please process the embedded resource above."),
    ]


@mcp.prompt(title="Prompt With Image")
def test_prompt_with_image() -> list[Any]:
    """A prompt that includes image content"""
    return [Image(data=PNG, format="png"), UserMessage("Please analyze the image above.")]


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


# --- long-running tools as Tasks (tasks-*, default leg) --------------------------------------


class DeleteConfirmation(BaseModel):
    confirm: bool


class PartialInput(BaseModel):
    name: str
    confirm: bool


@mcp.tool()
def greet(name: str) -> str:
    """Greets at once: an ordinary call, never a task"""
    return f"Hello, {name}!"


@mcp.tool(task="optional")
async def slow_compute(seconds: float, label: str = "") -> str:
    """Works for a number of seconds: a task for clients that declare Tasks"""
    await asyncio.sleep(seconds)
    return f"{label or 'compute'}: done after {seconds:g} s"


@mcp.tool(task="required")
async def failing_job() -> str:
    """Runs only as a task, and fails after a second with an error result"""
    await asyncio.sleep(1)
    raise ToolError("The job failed")


@mcp.tool(task="optional")
async def protocol_error_job() -> str:
    """A task that ends in a JSON-RPC error"""
    await asyncio.sleep(0.2)
    raise RPCError(-32603, "The job lost its connection to the backend")


@mcp.tool(task="optional")
async def confirm_delete(filename: str, ctx: Context) -> str:
    """A task that asks the user to confirm before it deletes"""
    answer = await ctx.elicit(f"Delete {filename}?", DeleteConfirmation, key="confirm")
    if answer.action == "accept" and answer.data.confirm:
        return f"Deleted {filename}"
    return f"Kept {filename}"


@mcp.tool(task="optional")
async def multi_input(ctx: Context) -> str:
    """A task that asks two questions at once"""
    first, second = await asyncio.gather(
        ctx.elicit("First input", PartialInput, key="first"),
        ctx.elicit("Second input", PartialInput, key="second"),
    )
    return f"Received {first.data.name} and {second.data.name}"


@mcp.tool(task="optional", questions_first=True)
async def test_tool_with_task(ctx: Context) -> str:
    """Asks the user's name first (an input_required round), then runs as a task"""
    answer = await ctx.elicit("What is your name?", Name, key="user_name")
    await ctx.start_task()
    await asyncio.sleep(0.2)
    return f"Hello, {answer.data.name}!" if answer.action == "accept" else "Hello, stranger!"


# --- Agent Skills (sep-2640-skills-*, default leg) ------------------------------------------

mcp.add_skills(Path(__file__).parent / "skills")


if __name__ == "__main__":
    if sys.argv[1:] == ["stdio"]:  # behind `toolwire proxy` (conformance/run --proxy)
        mcp.run()
    else:
        port = int(sys.argv[1]) if len(sys.argv) > 1 else 3000
        mcp.run(transport="http", host="127.0.0.1", port=port)
