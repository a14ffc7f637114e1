"""The low-level server of the MCP Python SDK tutorial, with only the imports changed.

Handlers return a list of content blocks, a dict (structured content), a
``(content, structured)`` pair or a whole ``CallToolResult``; some raise.
"""

import json
from typing import Any

from toolwire import types
from toolwire.lowlevel import Server

server = Server("example-server", version="1.0.0")

NUMBERS = {
    "type": "object",
    "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
    "required": ["a", "b"],
}
WEATHER_OUTPUT = {
    "type": "object",
    "properties": {
        "temperature": {"type": "number", "description": "Temperature in Celsius"},
        "condition": {"type": "string", "description": "Weather condition"},
        "humidity": {"type": "number", "description": "Humidity percentage"},
    },
    "required": ["temperature", "condition", "humidity"],
}


@server.list_tools()
async def handle_list_tools() -> list[types.Tool]:
    return [
        types.Tool(name="add", description="Add two numbers", inputSchema=NUMBERS),
        types.Tool(
            name="divide",
            title="Divide",
            description="Divide a by b",
            inputSchema=NUMBERS,
            annotations=types.ToolAnnotations(readOnlyHint=True, idempotentHint=True),
        ),
        types.Tool(
            name="get_weather",
            description="Get current weather for a city",
            inputSchema={
                "type": "object",
                "properties": {"city": {"type": "string", "description": "City name"}},
                "required": ["city"],
            },
            outputSchema=WEATHER_OUTPUT,
        ),
        types.Tool(
            name="stats",
            description="Sum and count of numbers",
            inputSchema={
                "type": "object",
                "properties": {"values": {"type": "array", "items": {"type": "number"}}},
                "required": ["values"],
            },
        ),
        types.Tool(
            name="custom", description="A whole CallToolResult", inputSchema={"type": "object"}
        ),
        types.Tool(name="crash", description="Fails unexpectedly", inputSchema={"type": "object"}),
        types.Tool(name="parse", description="Parses JSON", inputSchema={"type": "object"}),
    ]


@server.call_tool()
async def handle_call_tool(name: str, arguments: dict[str, Any]) -> list[types.TextContent]:
    if name == "add":
        return [types.TextContent(type="text", text=str(arguments["a"] + arguments["b"]))]
    if name == "divide":
        if arguments["b"] == 0:
            raise ValueError("Cannot divide by zero")
        return [types.TextContent(type="text", text=str(arguments["a"] / arguments["b"]))]
    if name == "get_weather":
        return {"temperature": 22.5, "condition": "partly cloudy", "humidity": 65}  # type: ignore[return-value]
    if name == "stats":
        values = arguments["values"]
        summary = {"sum": sum(values), "count": len(values)}
        return ([types.TextContent(type="text", text=f"{summary['count']} values")], summary)  # type: ignore[return-value]
    if name == "custom":
        return types.CallToolResult(  # type: ignore[return-value]
            content=[types.TextContent(type="text", text="Quota exceeded")], isError=True
        )
    if name == "crash":
        raise RuntimeError("secret connection string")
    if name == "parse":
        return [types.TextContent(type="text", text=str(json.loads("{")))]
    raise ValueError(f"Unknown tool: {name}")


if __name__ == "__main__":
    server.run()
