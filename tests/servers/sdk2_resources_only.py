"""A server in the official SDK 2.x low-level style with resources and no resource-template
handler (as the SDK's ``simple-resource`` example): ``on_list_resources`` and
``on_read_resource`` only.

tests/interop/test_lowlevel_resources_only.py runs it on the SDK and, with only its imports
changed, on toolwire: both declare the ``resources`` capability, and they answer
``resources/templates/list`` differently (docs/migrating.md says why).
"""

from typing import Any

import anyio
import mcp.types as types
from mcp.server import Server, ServerRequestContext
from mcp.server.stdio import stdio_server

NOTES = {"greeting": "Hello from the notes", "help": "Ask for a note by name"}


async def list_resources(ctx: ServerRequestContext, params: Any) -> types.ListResourcesResult:
    resources = [
        types.Resource(uri=f"file:///{name}.txt", name=name, mimeType="text/plain")
        for name in NOTES
    ]
    return types.ListResourcesResult(resources=resources)


async def read_resource(ctx: ServerRequestContext, params: Any) -> types.ReadResourceResult:
    uri = str(params.uri)
    text = NOTES[uri.removeprefix("file:///").removesuffix(".txt")]
    content = types.TextResourceContents(uri=uri, mimeType="text/plain", text=text)
    return types.ReadResourceResult(contents=[content])


server = Server("resources-only", on_list_resources=list_resources, on_read_resource=read_resource)


async def run() -> None:
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


if __name__ == "__main__":
    anyio.run(run)
