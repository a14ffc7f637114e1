"""A proxy mounted on a toolwire server (``mcp.mount(Server.proxy(...), prefix=...)``):
the upstream's tools as :class:`~toolwire.server.transforms.ForwardedTool` objects of the
mounting server, so that its middleware, visibility, auth and transforms apply to them.

The listing comes from the proxy's shared upstream connection (all its pages); a call goes
up on that connection as the proxy forwards its own ``tools/call``, with the mounting
server's :class:`~toolwire.Context`: the upstream's progress, log messages, elicitation and
sampling reach the client that called, and its cancellation reaches the upstream.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..server.session import Request
from ..server.transforms import ForwardedTool
from .server import ProxyServer, _plain
from .upstream import JSON


async def tool_definitions(proxy: ProxyServer) -> list[JSON]:
    """The upstream's tools (definitions as it lists them, with a string name)."""
    upstream = proxy.upstream_for(None)  # type: ignore[arg-type]  # shared: no connection needed
    await upstream.client()
    if not upstream.offers("tools"):
        return []
    items = await upstream.listing("tools", "tools/list", "tools")
    return [item for item in items if isinstance(item.get("name"), str)]


def upstream_tool(proxy: ProxyServer, definition: JSON, name: str) -> ForwardedTool:
    """A tool named ``name`` here whose calls go to the upstream's ``definition["name"]``."""
    upstream_name = definition["name"]
    output = definition.get("outputSchema")
    schema = definition.get("inputSchema")

    async def forward(
        arguments: JSON,
        context: Any,
        run_sync: Any,
        mask_errors: bool,
        timeout: float | None,
        on_timeout: Callable[[], None] | None,
    ) -> JSON:
        asked = context.request
        params = {**asked.params, "name": upstream_name, "arguments": arguments}
        request = Request(
            asked.id,
            "tools/call",
            params,
            asked.features,
            asked.meta,
            asked.capabilities,
            asked.client_info,
            asked.log_level,
        )
        request.identity = asked.identity
        upstream = proxy.upstream_for(None)  # type: ignore[arg-type]
        result = await proxy._forward_call(upstream, context, request, False)
        return _plain(result)

    annotations = definition.get("annotations")
    return ForwardedTool(
        forward,
        name=name,
        input_schema=schema if isinstance(schema, dict) else {"type": "object"},
        output_schema=output if isinstance(output, dict) else None,
        structured=True,
        needs_context=True,
        title=definition.get("title") if isinstance(definition.get("title"), str) else None,
        description=definition.get("description")
        if isinstance(definition.get("description"), str)
        else None,
        annotations={k: v for k, v in annotations.items() if k in _ANNOTATIONS}
        if isinstance(annotations, dict)
        else None,
        meta=definition.get("_meta") if isinstance(definition.get("_meta"), dict) else None,
        icons=definition.get("icons") if isinstance(definition.get("icons"), list) else None,
    )


_ANNOTATIONS = {"title", "readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"}
