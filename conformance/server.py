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
from typing import Any

from toolwire import Audio, Context, Image, Server, ToolError, UserMessage, types

mcp = Server("toolwire-conformance-server", version="1.0.0")

# A 1x1 PNG pixel and a minimal WAV file, as the harness's reference server sends them.
PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="
)
WAV = base64.b64decode("UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA=")


def embedded(uri: str, text: str, mime_type: str = "text/plain") -> types.EmbeddedResource:
    contents = types.TextResourceContents(uri=uri, mimeType=mime_type, text=text)
    return types.EmbeddedResource(type="resource", resource=contents)


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


if __name__ == "__main__":
    port = int(sys.argv[1]) if len(sys.argv) > 1 else 3000
    mcp.run(transport="http", host="127.0.0.1", port=port)
