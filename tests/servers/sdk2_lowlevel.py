"""A server in the official SDK 2.x low-level style: ``Server(name, on_*=...)`` handlers
given a ``ServerRequestContext`` and the typed params (``on_set_logging_level`` too),
``Server[AppContext]`` with a typed lifespan, ``MCPError``, and the stdio boilerplate.

It runs on the SDK 2.x as it is; tests/interop/test_lowlevel_sdk_styles.py runs it there
and, with only its imports changed, on toolwire, and compares what the official client gets.
Results are the protocol objects of ``types`` (``Tool``, ``CallToolResult``, ...); a result
type ``types`` lacks (toolwire's has no ``ListToolsResult`` yet) is given as a dict, which
the low-level server takes as well.
"""

import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any, TypedDict

import anyio
import mcp.types as types
from mcp.server import Server, ServerRequestContext
from mcp.server.stdio import stdio_server
from mcp.shared.exceptions import MCPError

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
PAGE = 2  # tools per page: the handler pages with params.cursor


def result(name: str, **fields: Any) -> Any:
    """A ``types.<name>`` result, or a dict of ``fields`` where ``types`` lacks it."""
    model = getattr(types, name, None)
    return model(**fields) if model is not None else fields


class Database:
    def __init__(self) -> None:
        self.rows = {"1": "Example"}

    async def query(self, text: str) -> list[dict[str, str]]:
        return [{"id": key, "name": name, "query": text} for key, name in self.rows.items()]


class AppContext(TypedDict):
    db: Database


@asynccontextmanager
async def lifespan(_server: "Server[AppContext]") -> AsyncIterator[AppContext]:
    print("Database connected")  # as the SDK's examples do: stdout is the protocol's
    yield {"db": Database()}


TOOLS = [
    types.Tool(
        name="get_weather",
        description="Weather for a city",
        inputSchema=CITY,
        outputSchema=WEATHER_SCHEMA,
    ),
    types.Tool(name="query_db", description="Query the database", inputSchema=QUERY),
    types.Tool(name="refuse", description="Fails with an MCPError", inputSchema=CITY),
    types.Tool(name="log_level", description="The level the client chose", inputSchema=CITY),
    types.Tool(
        name="checkpoint", description="Ends its SSE stream, then answers", inputSchema=CITY
    ),
]
LEVEL = {"chosen": "none yet"}  # set by on_set_logging_level


async def list_tools(ctx: ServerRequestContext[AppContext], params: Any) -> Any:
    start = int(params.cursor) if params.cursor else 0
    after = str(start + PAGE) if start + PAGE < len(TOOLS) else None
    return result("ListToolsResult", tools=TOOLS[start : start + PAGE], nextCursor=after)


async def call_tool(ctx: ServerRequestContext[AppContext], params: Any) -> types.CallToolResult:
    arguments = params.arguments or {}
    if params.name == "get_weather":
        weather = {"temperature": 22.5, "condition": "cloudy", "city": arguments["city"]}
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=f"22.5 and cloudy in {weather['city']}")],
            structuredContent=weather,
        )
    if params.name == "query_db":
        rows = await ctx.lifespan_context["db"].query(arguments["query"])
        text = f"Query results: {rows} (request {ctx.request_id is not None})"
        return types.CallToolResult(content=[types.TextContent(type="text", text=text)])
    if params.name == "refuse":
        raise MCPError(code=-32602, message=f"No service in {arguments['city']}")
    if params.name == "log_level":
        text = f"level {LEVEL['chosen']}"
        return types.CallToolResult(content=[types.TextContent(type="text", text=text)])
    if params.name == "checkpoint":  # SSE polling: the client resumes the stream it lost
        if ctx.close_sse_stream:
            await ctx.close_sse_stream()
        text = f"checkpoint in {arguments['city']}"
        return types.CallToolResult(content=[types.TextContent(type="text", text=text)])
    raise MCPError(code=-32602, message=f"Unknown tool: {params.name}")


async def list_resources(ctx: ServerRequestContext[AppContext], params: Any) -> Any:
    resources = [
        types.Resource(uri=f"file:///{name}.txt", name=name, mimeType="text/plain")
        for name in NOTES
    ]
    return result("ListResourcesResult", resources=resources)


async def list_resource_templates(ctx: ServerRequestContext[AppContext], params: Any) -> Any:
    template = types.ResourceTemplate(uriTemplate="weather://{city}", name="weather")
    return result("ListResourceTemplatesResult", resourceTemplates=[template])


async def read_resource(
    ctx: ServerRequestContext[AppContext], params: Any
) -> types.ReadResourceResult:
    uri = str(params.uri)
    name = uri.removeprefix("file:///").removesuffix(".txt")
    if name not in NOTES:
        raise MCPError(code=-32602, message=f"Unknown resource: {uri}")
    content = types.TextResourceContents(uri=uri, mimeType="text/plain", text=NOTES[name])
    return types.ReadResourceResult(contents=[content])


async def list_prompts(ctx: ServerRequestContext[AppContext], params: Any) -> Any:
    argument = types.PromptArgument(name="city", required=True)
    prompt = types.Prompt(name="forecast", description="Ask for a forecast", arguments=[argument])
    return result("ListPromptsResult", prompts=[prompt])


async def get_prompt(ctx: ServerRequestContext[AppContext], params: Any) -> types.GetPromptResult:
    if params.name != "forecast":
        raise MCPError(code=-32602, message=f"Unknown prompt: {params.name}")
    city = (params.arguments or {}).get("city", "nowhere")
    message = types.TextContent(type="text", text=f"What is the forecast for {city}?")
    return types.GetPromptResult(
        description="A forecast request",
        messages=[types.PromptMessage(role="user", content=message)],
    )


async def complete(ctx: ServerRequestContext[AppContext], params: Any) -> Any:
    if params.argument.name != "city":
        return result("CompleteResult", completion=types.Completion(values=[]))
    found = [city for city in CITIES if city.startswith(params.argument.value)]
    completion = types.Completion(values=found, total=len(found), hasMore=False)
    return result("CompleteResult", completion=completion)


async def set_logging_level(ctx: ServerRequestContext[AppContext], params: Any) -> Any:
    LEVEL["chosen"] = f"{params.level} (request {ctx.request_id is not None})"
    return result("EmptyResult")


server: "Server[AppContext]" = Server(
    "sdk2-lowlevel",
    version="0.2.0",
    lifespan=lifespan,
    on_list_tools=list_tools,
    on_call_tool=call_tool,
    on_list_resources=list_resources,
    on_list_resource_templates=list_resource_templates,
    on_read_resource=read_resource,
    on_list_prompts=list_prompts,
    on_get_prompt=get_prompt,
    on_completion=complete,
    on_set_logging_level=set_logging_level,
)


async def run() -> None:
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


def serve_http() -> None:
    """``streamable_http_app()`` under uvicorn on 127.0.0.1, on a port of the system's
    choosing; the URL is printed once the socket listens."""
    import socket

    import uvicorn

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    sock.listen(64)
    print(f"http://127.0.0.1:{sock.getsockname()[1]}/mcp", flush=True)
    config = uvicorn.Config(server.streamable_http_app(), log_level="warning")
    uvicorn.Server(config).run(sockets=[sock])


if __name__ == "__main__":
    if sys.argv[1:] == ["http"]:
        serve_http()
    else:
        anyio.run(run)
