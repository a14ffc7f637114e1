"""FastMCP 3's ``PromptsAsTools`` and ``ResourcesAsTools``: prompts and resources reached
through tools, for clients that only do tools.

::

    from toolwire import Server, PromptsAsTools, ResourcesAsTools

    mcp = Server("docs")
    mcp.add_transform(PromptsAsTools(mcp))      # tools list_prompts and get_prompt
    mcp.add_transform(ResourcesAsTools(mcp))    # tools list_resources and read_resource

Each tool answers as FastMCP's does: ``list_prompts`` a JSON list of the prompts (name,
description, arguments), ``get_prompt(name, arguments)`` the rendered messages as JSON
(``{"messages": [{"role", "content"}]}``, a text block as its text), ``list_resources`` a
JSON list of the resources (``uri``) and templates (``uri_template``), ``read_resource(uri)``
the text of a single text content, the base64 of a single binary one, else a JSON list.
The calls go through the server with the caller's request, so what a caller may not see
(access rules, disabled components) it cannot reach through the tools either.
"""

from __future__ import annotations

import json
from typing import Annotated, Any

from pydantic import Field

from ...errors import RPCError, ToolError
from ..context import Context

# The tools' descriptions and get_prompt's input schema are FastMCP's, as its server lists
# them: they are what a model reads, so a server moved from FastMCP lists the same tools.
_GET_PROMPT_INPUT = {
    "type": "object",
    "additionalProperties": False,
    "properties": {
        "name": {"type": "string", "description": "The name of the prompt to get"},
        "arguments": {
            "anyOf": [{"type": "object", "additionalProperties": True}, {"type": "null"}],
            "default": None,
            "description": "Optional arguments for the prompt",
        },
    },
    "required": ["name"],
}


def _caller(ctx: Context) -> tuple[Any, Any]:
    return ctx._connection, ctx.request


class PromptsAsTools:
    """Adds the tools ``list_prompts`` and ``get_prompt`` to the server it is given to."""

    def __init__(self, server: Any) -> None:
        if not hasattr(server, "prompt_registry"):
            raise TypeError(
                f"PromptsAsTools takes the server whose prompts it serves, not "
                f"{type(server).__name__}: mcp.add_transform(PromptsAsTools(mcp))"
            )
        self.server = server

    def __repr__(self) -> str:
        return f"PromptsAsTools({self.server.name!r})"

    def apply_to(self, server: Any) -> None:
        source = self.server

        async def list_prompts(ctx: Context) -> str:
            """List all available prompts.

            Returns JSON with prompt metadata including name, description,
            and optional arguments.
            """
            listed = []
            for prompt in source.prompt_registry.visible(ctx.request):
                definition = prompt.definition
                listed.append(
                    {
                        "name": definition["name"],
                        "description": definition.get("description"),
                        "arguments": [
                            {
                                "name": argument["name"],
                                "description": argument.get("description"),
                                "required": argument.get("required", False),
                            }
                            for argument in definition.get("arguments", ())
                        ],
                    }
                )
            return json.dumps(listed, indent=2)

        async def get_prompt(
            name: Annotated[str, Field(description="The name of the prompt to get")],
            ctx: Context,
            arguments: Annotated[
                dict[str, Any] | None, Field(description="Optional arguments for the prompt")
            ] = None,
        ) -> str:
            """Get a prompt by name with optional arguments.

            Returns the rendered prompt as JSON with a messages array.
            Arguments should be provided as a dict mapping argument names
            to values.
            """
            connection, request = _caller(ctx)
            try:
                rendered = await source.render_prompt(connection, request, name, arguments or {})
            except RPCError as exc:
                raise ToolError(exc.message) from None
            messages = []
            for message in rendered.get("messages", ()):
                content = message.get("content", {})
                if isinstance(content, dict) and content.get("type") == "text":
                    content = content.get("text", "")
                messages.append({"role": message.get("role"), "content": content})
            return json.dumps({"messages": messages}, indent=2)

        server.add_tool(list_prompts)
        server.add_tool(get_prompt, input_schema=_GET_PROMPT_INPUT)


class ResourcesAsTools:
    """Adds the tools ``list_resources`` and ``read_resource`` to the server it is given to."""

    def __init__(self, server: Any) -> None:
        if not hasattr(server, "resource_registry"):
            raise TypeError(
                f"ResourcesAsTools takes the server whose resources it serves, not "
                f"{type(server).__name__}: mcp.add_transform(ResourcesAsTools(mcp))"
            )
        self.server = server

    def __repr__(self) -> str:
        return f"ResourcesAsTools({self.server.name!r})"

    def apply_to(self, server: Any) -> None:
        source = self.server
        read_only = {"readOnlyHint": True}

        async def list_resources(ctx: Context) -> str:
            """List all available resources and resource templates.

            Returns JSON with resource metadata. Static resources have a
            'uri' field, while templates have a 'uri_template' field with
            placeholders like {name}.
            """
            listed: list[dict[str, Any]] = []
            for resource in source.resource_registry.visible(ctx.request):
                definition = resource.definition
                listed.append(
                    {
                        "uri": definition["uri"],
                        "name": definition["name"],
                        "description": definition.get("description"),
                        "mime_type": definition.get("mimeType"),
                    }
                )
            for template in source.template_registry.visible(ctx.request):
                definition = template.definition
                listed.append(
                    {
                        "uri_template": definition["uriTemplate"],
                        "name": definition["name"],
                        "description": definition.get("description"),
                    }
                )
            return json.dumps(listed, indent=2)

        async def read_resource(
            uri: Annotated[str, Field(description="The URI of the resource to read")],
            ctx: Context,
        ) -> str:
            """Read a resource by its URI.

            For static resources, provide the exact URI. For templated
            resources, provide the URI with template parameters filled in.

            Returns the resource content as a string. Binary content is
            base64-encoded.
            """
            contents = await source.read_resource(uri, ctx)
            if len(contents) == 1:
                only = contents[0]
                return str(only["text"] if "text" in only else only.get("blob", ""))
            return json.dumps(
                [
                    {
                        "content": item["text"] if "text" in item else item.get("blob", ""),
                        "mime_type": item.get("mimeType"),
                    }
                    for item in contents
                ]
            )

        server.add_tool(list_resources, annotations=read_only)
        server.add_tool(read_resource, annotations=read_only)
