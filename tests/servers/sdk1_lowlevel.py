"""A server in the official SDK 1.x low-level style: decorators (``set_logging_level`` too),
a lifespan read through ``server.request_context``, ``McpError(ErrorData(...))``, and the
stdio boilerplate.

It runs on the SDK 1.x as it is; tests/interop/test_lowlevel_sdk_styles.py runs it there
and, with only its imports changed, on toolwire, and compares what the official client gets.
"""

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import mcp.server.stdio
import mcp.types as types
from mcp.server.lowlevel import NotificationOptions, Server
from mcp.server.lowlevel.helper_types import ReadResourceContents
from mcp.server.models import InitializationOptions
from mcp.shared.exceptions import McpError
from mcp.types import ErrorData

WEATHER_SCHEMA = {
    "type": "object",
    "properties": {
        "temperature": {"type": "number"},
        "condition": {"type": "string"},
        "city": {"type": "string"},
    },
    "required": ["temperature", "condition", "city"],
}
CITY = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
QUERY = {"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]}
NOTES = {"greeting": "Hello from the notes", "farewell": "Goodbye from the notes"}
CITIES = ["Berlin", "Bern", "Bergen", "Oslo"]


class Database:
    def __init__(self) -> None:
        self.rows = {"1": "Example"}

    async def query(self, text: str) -> list[dict[str, str]]:
        return [{"id": key, "name": name, "query": text} for key, name in self.rows.items()]


@asynccontextmanager
async def lifespan(_server: Server) -> AsyncIterator[dict[str, Any]]:
    print("Database connected")  # as the SDK's examples do: stdout is the protocol's
    yield {"db": Database()}


server = Server("sdk1-lowlevel", lifespan=lifespan)


@server.list_tools()
async def list_tools() -> list[types.Tool]:
    return [
        types.Tool(
            name="get_weather",
            description="Weather for a city",
            inputSchema=CITY,
            outputSchema=WEATHER_SCHEMA,
        ),
        types.Tool(name="query_db", description="Query the database", inputSchema=QUERY),
        types.Tool(name="both", description="Text and structured content", inputSchema=CITY),
        types.Tool(name="refuse", description="Fails with an McpError", inputSchema=CITY),
        types.Tool(name="log_level", description="The level the client chose", inputSchema=CITY),
    ]


LEVEL = {"chosen": "none yet"}  # set by the set_logging_level handler


@server.set_logging_level()
async def set_logging_level(level: types.LoggingLevel) -> None:
    LEVEL["chosen"] = level


@server.call_tool()
async def call_tool(name: str, arguments: dict[str, Any]) -> Any:
    if name == "get_weather":
        return {"temperature": 22.5, "condition": "cloudy", "city": arguments["city"]}
    if name == "query_db":
        db = server.request_context.lifespan_context["db"]
        rows = await db.query(arguments["query"])
        return [types.TextContent(type="text", text=f"Query results: {rows}")]
    if name == "both":
        text = types.TextContent(type="text", text=f"Report for {arguments['city']}")
        return [text], {"city": arguments["city"], "ok": True}
    if name == "refuse":
        raise McpError(ErrorData(code=-32602, message=f"No service in {arguments['city']}"))
    if name == "log_level":
        return [types.TextContent(type="text", text=f"level {LEVEL['chosen']}")]
    raise ValueError(f"Unknown tool: {name}")


@server.list_resources()
async def list_resources() -> list[types.Resource]:
    return [
        types.Resource(uri=f"file:///{name}.txt", name=name, mimeType="text/plain")
        for name in NOTES
    ]


@server.list_resource_templates()
async def list_resource_templates() -> list[types.ResourceTemplate]:
    return [types.ResourceTemplate(uriTemplate="weather://{city}", name="weather")]


@server.read_resource()
async def read_resource(uri: Any) -> Any:
    name = str(uri).removeprefix("file:///").removesuffix(".txt")
    if name not in NOTES:
        raise McpError(ErrorData(code=-32602, message=f"Unknown resource: {uri}"))
    if name == "farewell":
        return [ReadResourceContents(content=NOTES[name], mime_type="text/plain")]
    return NOTES[name]


@server.list_prompts()
async def list_prompts() -> list[types.Prompt]:
    return [
        types.Prompt(
            name="forecast",
            description="Ask for a forecast",
            arguments=[types.PromptArgument(name="city", required=True)],
        )
    ]


@server.get_prompt()
async def get_prompt(name: str, arguments: dict[str, str] | None) -> types.GetPromptResult:
    if name != "forecast":
        raise McpError(ErrorData(code=-32602, message=f"Unknown prompt: {name}"))
    city = (arguments or {}).get("city", "nowhere")
    message = types.TextContent(type="text", text=f"What is the forecast for {city}?")
    return types.GetPromptResult(
        description="A forecast request",
        messages=[types.PromptMessage(role="user", content=message)],
    )


@server.completion()
async def complete(ref: Any, argument: Any, context: Any) -> types.Completion | None:
    if argument.name != "city":
        return None
    found = [city for city in CITIES if city.startswith(argument.value)]
    return types.Completion(values=found, total=len(found), hasMore=False)


async def run() -> None:
    async with mcp.server.stdio.stdio_server() as (read_stream, write_stream):
        await server.run(
            read_stream,
            write_stream,
            InitializationOptions(
                server_name="sdk1-lowlevel",
                server_version="0.1.0",
                capabilities=server.get_capabilities(
                    notification_options=NotificationOptions(),
                    experimental_capabilities={},
                ),
            ),
        )


if __name__ == "__main__":
    asyncio.run(run())
