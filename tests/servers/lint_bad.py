"""A low-level server with one planted problem per ``toolwire lint`` rule (``PLANTED``),
but ``output-schema-type``: toolwire's shaping never sends what it checks (``lint_raw.py``
plants it).

The low-level API publishes tool definitions as given, so names, schemas and annotations that
toolwire's decorators would refuse reach the client. The tools without a planted problem (the
fillers that push the count past OpenAI's 128) are clean. ``python lint_bad.py`` serves it
over stdio; ``lint_bad.py:server`` names it for ``toolwire lint``.
"""

from __future__ import annotations

from typing import Any

from toolwire.lowlevel import Server

server = Server("lint-bad", version="1.0.0")

TEXT = {"type": "string", "description": "Some text"}


def clean(**properties: Any) -> dict[str, Any]:
    return {"type": "object", "properties": properties or {"text": TEXT}, "required": []}


def tool(name: str, description: str | None = "Does one thing.", **fields: Any) -> dict[str, Any]:
    entry: dict[str, Any] = {"name": name, "inputSchema": clean()}
    if description is not None:
        entry["description"] = description
    return {**entry, **fields}


RECURSIVE = {
    "type": "object",
    "properties": {"tree": {"$ref": "#/$defs/Node", "description": "The root node"}},
    "$defs": {
        "Node": {
            "type": "object",
            "description": "A node and its children",
            "properties": {
                "label": TEXT,
                "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}},
            },
        }
    },
}

# (rule, tool or prompt) -> the tool (or prompt) that plants it
PLANTED = {
    ("tool-name", "bad name!"),
    ("duplicate-name", "twice"),
    ("input-schema-type", "array_input"),
    ("schema-invalid", "negative_length"),
    ("annotation-hints", "read_only_delete"),
    ("provider-schema", "recursive_tree"),
    ("provider-tool-name", "dotted.name"),
    ("description-too-long", "long_winded"),
    ("too-many-tools", ""),
    ("tool-description", "undescribed"),
    ("param-description", "bare_parameter"),
    ("param-description", "bare_prompt"),
    ("near-duplicate-name", "Get-Weather"),
}
FILLERS = 116

TOOLS = [
    tool("bad name!"),
    tool("twice"),
    tool("twice"),
    tool("array_input", inputSchema={"type": "array", "items": TEXT}),
    tool(
        "negative_length",
        inputSchema=clean(code={"type": "string", "minLength": -1, "description": "A code"}),
    ),
    tool(
        "read_only_delete",
        annotations={"readOnlyHint": True, "destructiveHint": True},
    ),
    tool("recursive_tree", inputSchema=RECURSIVE),
    tool("dotted.name"),
    tool("long_winded", description="Does one thing. " + "Really, just one thing. " * 50),
    tool("undescribed", description=None),
    tool("bare_parameter", inputSchema=clean(text={"type": "string"})),
    tool("get_weather"),
    tool("Get-Weather"),
    *(tool(f"filler_{index:03d}") for index in range(FILLERS)),
]

PROMPTS = [
    {
        "name": "bare_prompt",
        "description": "A prompt with an undescribed argument",
        "arguments": [{"name": "topic", "required": True}],
    },
    {
        "name": "clean_prompt",
        "description": "A prompt whose argument is described",
        "arguments": [{"name": "topic", "description": "What to write about"}],
    },
]


@server.list_tools()
async def list_tools() -> list[dict[str, Any]]:
    return TOOLS


@server.call_tool()
async def call_tool(name: str, arguments: dict[str, Any]) -> list[dict[str, Any]]:
    return [{"type": "text", "text": name}]


@server.list_prompts()
async def list_prompts() -> list[dict[str, Any]]:
    return PROMPTS


@server.get_prompt()
async def get_prompt(name: str, arguments: dict[str, str] | None) -> dict[str, Any]:
    return {"messages": [{"role": "user", "content": {"type": "text", "text": name}}]}


if __name__ == "__main__":
    server.run()
