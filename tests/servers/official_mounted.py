"""The official SDK's "mount in an existing app" configuration with only the import changed:
``mcp.streamable_http_app(json_response=True)`` mounted in Starlette, whose lifespan runs
``mcp.session_manager.run()``. Served with ``uvicorn official_mounted:app``."""

import contextlib

from starlette.applications import Starlette
from starlette.routing import Mount

from toolwire import Server as MCPServer

mcp = MCPServer("My App")


@mcp.tool()
def hello() -> str:
    """A simple hello tool"""
    return "Hello from MCP!"


@contextlib.asynccontextmanager
async def lifespan(app: Starlette):
    async with mcp.session_manager.run():
        yield


app = Starlette(
    routes=[Mount("/", app=mcp.streamable_http_app(json_response=True))],
    lifespan=lifespan,
)
