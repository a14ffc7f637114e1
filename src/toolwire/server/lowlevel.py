"""The low-level server: you write the ``tools/list`` and ``tools/call`` handlers yourself.

::

    from toolwire import types
    from toolwire.lowlevel import Server

    server = Server("example-server")

    @server.list_tools()
    async def handle_list_tools() -> list[types.Tool]:
        return [types.Tool(name="add", description="Add two numbers",
                           inputSchema={"type": "object", "properties": {...}})]

    @server.call_tool()
    async def handle_call_tool(name: str, arguments: dict) -> list[types.TextContent]:
        ...

    server.run()

A call handler may return a list of content blocks, a dict (structured content), a
``(content, structured)`` pair or a whole ``types.CallToolResult``; exceptions become
``isError`` results exactly as for decorated tools.

Resources, prompts and completion have the official SDK's handlers too
(``@server.list_resources()``, ``list_resource_templates()``, ``read_resource()``,
``subscribe_resource()``, ``unsubscribe_resource()``, ``list_prompts()``, ``get_prompt()``,
``completion()``): see :mod:`toolwire.server.lowlevel_primitives`. Each capability is
declared only when its handlers are registered.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from ..content import content_block, text_result, to_json_text
from ..errors import RPCError
from ..functions import is_async
from ..protocol import shaping
from ..tools import DeadlinePassed, before, failure_result
from .core import JSON
from .lowlevel_primitives import PrimitiveHandlers, maybe_await
from .request import Request
from .session import ServerConnection

F = TypeVar("F", bound=Callable[..., Any])


def _definition(tool: Any) -> JSON:
    return tool if isinstance(tool, dict) else tool.to_wire()


def _block(item: Any) -> JSON:
    if isinstance(item, dict):
        return item
    if isinstance(item, str):
        return {"type": "text", "text": item}
    block = content_block(item)
    return block if block is not None else {"type": "text", "text": to_json_text(item)}


def to_call_result(value: Any) -> JSON:
    """A handler's return value as a ``tools/call`` result."""
    if hasattr(value, "to_wire") and hasattr(value, "isError"):
        return value.to_wire()  # type: ignore[no-any-return]
    if isinstance(value, tuple) and len(value) == 2 and isinstance(value[1], dict):
        return {"content": [_block(item) for item in value[0]], "structuredContent": value[1]}
    if isinstance(value, dict):
        return {
            "content": [{"type": "text", "text": to_json_text(value)}],
            "structuredContent": value,
        }
    if isinstance(value, (list, tuple)):
        return {"content": [_block(item) for item in value]}
    if value is None:
        return {"content": []}
    return {"content": [_block(value)]}


class Server(PrimitiveHandlers):
    """A server driven by handlers: ``list_tools`` / ``call_tool``, and optionally those of
    resources, prompts and completion."""

    def __init__(
        self, name: str, version: str | None = None, instructions: str | None = None, **options: Any
    ) -> None:
        super().__init__(name, version, instructions, **options)
        self._list_handler: Callable[[], Any] | None = None
        self._call_handler: Callable[[str, JSON], Any] | None = None

    def list_tools(self) -> Callable[[F], F]:
        """Decorate the handler that returns the tools (``types.Tool`` objects or dicts)."""

        def register(fn: F) -> F:
            self._list_handler = fn
            return fn

        return register

    def call_tool(self) -> Callable[[F], F]:
        """Decorate the handler called as ``handler(name, arguments)`` for each ``tools/call``."""

        def register(fn: F) -> F:
            self._call_handler = fn
            return fn

        return register

    def tools_page(self, request: Request, cursor: str | None) -> Any:
        return self._page(request, cursor)

    async def _page(self, request: Request, cursor: str | None) -> JSON:
        tools: Sequence[Any] = await maybe_await(self._list_handler()) if self._list_handler else []
        return self.build_page(request, cursor, [_definition(tool) for tool in tools])

    def invoke_tool(
        self, connection: ServerConnection, request: Request, name: str, arguments: JSON
    ) -> Any:
        if self._call_handler is None:
            return super().invoke_tool(connection, request, name, arguments)
        return self._invoke(self._call_handler, connection, request, name, arguments)

    async def _invoke(
        self,
        handler: Callable[..., Any],
        connection: ServerConnection,
        request: Request,
        name: str,
        arguments: JSON,
    ) -> JSON:
        def run(caller: Any) -> Any:
            return self._run_handler(handler, caller, name, arguments)

        result = await self.admitted(connection, request, run)
        return shaping.call_result(result, request.features)

    async def _run_handler(
        self, handler: Callable[..., Any], caller: Any, name: str, arguments: JSON
    ) -> JSON:
        """Run the handler like a decorated tool: a sync one on a worker thread (it may
        block), within ``tool_timeout``; every outcome becomes a result."""
        deadline = self.tool_timeout
        try:
            if is_async(handler):
                call = maybe_await(handler(name, arguments))
            else:
                call = self.runner.run(handler, {"name": name, "arguments": arguments}, caller)
            value = await (call if deadline is None else before(call, deadline))
            return to_call_result(await maybe_await(value))
        except DeadlinePassed:
            return text_result(f"Tool '{name}' timed out after {deadline:g} s", is_error=True)
        except RPCError:
            raise  # raised on purpose: the answer is this JSON-RPC error
        except Exception as exc:
            source = getattr(getattr(handler, "__code__", None), "co_filename", None)
            return failure_result(exc, name, source, self.mask_errors)
