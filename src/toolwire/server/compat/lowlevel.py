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

The official SDK 2.x constructor style works too: ``Server(name, lifespan=...,
on_list_tools=..., on_call_tool=..., on_read_resource=..., ...)``, each handler called as
``handler(ctx, params)`` (:mod:`toolwire.server.compat.lowlevel_sdk`); and the SDK 1.x boilerplate
``async with stdio_server() as (read, write): await server.run(read, write,
server.create_initialization_options())``.

Resources, prompts and completion have the official SDK's handlers too
(``@server.list_resources()``, ``list_resource_templates()``, ``read_resource()``,
``subscribe_resource()``, ``unsubscribe_resource()``, ``list_prompts()``, ``get_prompt()``,
``completion()``): see :mod:`toolwire.server.compat.lowlevel_primitives`. Each capability is
declared only when its handlers are registered.
"""

from __future__ import annotations

import functools
import inspect
import json
from collections.abc import Callable, Sequence
from typing import Any, Generic

from typing_extensions import TypeVar

from ...content import content_block, text_result, to_json_text
from ...errors import McpError, RPCError
from ...functions.inspection import is_async
from ...protocol import shaping
from ...protocol.revisions import FEATURES
from ...tools import DeadlinePassed, before, failure_result
from ..core import JSON
from ..request import Request
from ..session import ServerConnection
from .lowlevel_primitives import (
    PrimitiveHandlers,
    _definitions,
    _wire,
    handler_failure,
    maybe_await,
)
from .lowlevel_sdk import (
    InitializationOptions,
    NotificationOptions,
    Params,
    ServerRequestContext,
    StdioStream,
    current_scope,
    handler_keywords,
    initialization,
    scoped,
)

F = TypeVar("F", bound=Callable[..., Any])
LifespanT = TypeVar("LifespanT", default=Any)

# The methods whose handlers see server.request_context / their ctx.
_SCOPED = (
    "tools/list",
    "tools/call",
    "resources/list",
    "resources/templates/list",
    "resources/read",
    "resources/subscribe",
    "resources/unsubscribe",
    "prompts/list",
    "prompts/get",
    "completion/complete",
    "logging/setLevel",
)
# The 2.x handlers answered through the 1.x handler slots (lowlevel_primitives).
_SLOTS = {
    "resources/read": "read_resource",
    "resources/subscribe": "subscribe_resource",
    "resources/unsubscribe": "unsubscribe_resource",
    "prompts/get": "get_prompt",
    "completion/complete": "completion",
    "logging/setLevel": "set_logging_level",
}
# The 2.x list handlers: (result field, the keys each item needs, the slot it fills).
_LISTS = {
    "tools/list": ("tools", ("name", "name"), None),
    "resources/list": ("resources", ("uri", "name"), "list_resources"),
    "resources/templates/list": (
        "resourceTemplates",
        ("uriTemplate", "name"),
        "list_resource_templates",
    ),
    "prompts/list": ("prompts", ("name", "name"), "list_prompts"),
}


def _definition(tool: Any) -> JSON:
    return tool if isinstance(tool, dict) else tool.to_wire()


def _block(item: Any) -> JSON:
    if isinstance(item, dict):
        return item
    if isinstance(item, str):
        return {"type": "text", "text": item}
    block = content_block(item)
    return block if block is not None else {"type": "text", "text": to_json_text(item)}


def _indented(value: JSON) -> str:
    """Structured content as the text block beside it: indented JSON, as the SDK writes it."""
    try:
        return json.dumps(value, indent=2)
    except (TypeError, ValueError):  # what only toolwire's encoder knows (dates, models, ...)
        return to_json_text(value)


def to_call_result(value: Any) -> JSON:
    """A handler's return value as a ``tools/call`` result."""
    if hasattr(value, "to_wire") and hasattr(value, "isError"):
        return value.to_wire()  # type: ignore[no-any-return]
    if isinstance(value, tuple) and len(value) == 2 and isinstance(value[1], dict):
        return {"content": [_block(item) for item in value[0]], "structuredContent": value[1]}
    if isinstance(value, dict):
        return {"content": [{"type": "text", "text": _indented(value)}], "structuredContent": value}
    if isinstance(value, (list, tuple)):
        return {"content": [_block(item) for item in value]}
    if value is None:
        return {"content": []}
    return {"content": [_block(value)]}


class Server(PrimitiveHandlers, Generic[LifespanT]):
    """A server driven by handlers: ``list_tools`` / ``call_tool``, and optionally those of
    resources, prompts and completion; given as decorators (the SDK 1.x style) or as the
    constructor's ``on_*`` functions (the SDK 2.x style)."""

    def __init__(
        self, name: str, version: str | None = None, instructions: str | None = None, **options: Any
    ) -> None:
        handlers = handler_keywords(options)
        for key, instead in (
            ("cache_hints", "list_ttl_ms= and discover_ttl_ms="),
            ("get_tool_input_schema", "nothing: the schemas come from on_list_tools"),
        ):
            if key in options:
                raise TypeError(f"Server({key}=...) is not supported: use {instead}")
        super().__init__(name, version, instructions, **options)
        self._list_handler: Callable[[], Any] | None = None
        self._call_handler: Callable[[str, JSON], Any] | None = None
        self._v2 = handlers
        for method, handler in handlers.items():
            slot = _SLOTS.get(method) or _LISTS.get(method, (None, None, None))[2]
            if slot is not None:
                self._handlers[slot] = self._adapter(handler)
        self.methods = {
            **self.methods,
            **{m: scoped(self.methods[m]) for m in _SCOPED if m in self.methods},
        }

    # ------------------------------------------------------------ the SDK's request context

    @property
    def request_context(self) -> ServerRequestContext[LifespanT, Any]:
        """The running handler's request (the SDK 1.x ``server.request_context``):
        ``lifespan_context``, ``request_id``, ``meta``, ``session``; a ``LookupError``
        outside a handler, as in the SDK."""
        scope = current_scope()
        if scope is None:
            raise LookupError("server.request_context is only available inside a handler")
        return ServerRequestContext(scope[0], scope[1], self.lifespan_context)

    def _adapter(self, handler: Callable[..., Any]) -> Callable[..., Any]:
        """A 2.x ``handler(ctx, params)`` in a 1.x handler slot (whose arguments it
        ignores: it reads the request itself)."""

        @functools.wraps(handler)
        def call(*_: Any) -> Any:
            ctx = self.request_context
            return handler(ctx, ctx.params)

        return call

    # ------------------------------------------------------------ the 1.x decorators

    def list_tools(self) -> Callable[[F], F]:
        """Decorate the handler that returns the tools (``types.Tool`` objects or dicts);
        one taking the request (``request.params.cursor``) pages itself, as in the SDK."""

        def register(fn: F) -> F:
            if not self._paged("tools/list", fn):
                self._list_handler = fn
            return fn

        return register

    def list_resources(self) -> Callable[[F], F]:
        return self._list_decorator("resources/list", super().list_resources())

    def list_resource_templates(self) -> Callable[[F], F]:
        return self._list_decorator("resources/templates/list", super().list_resource_templates())

    def list_prompts(self) -> Callable[[F], F]:
        return self._list_decorator("prompts/list", super().list_prompts())

    def _list_decorator(self, method: str, plain: Callable[[F], F]) -> Callable[[F], F]:
        def register(fn: F) -> F:
            plain(fn)  # declares the capability; a paged handler answers the list itself
            self._paged(method, fn)
            return fn

        return register

    def _paged(self, method: str, fn: Callable[..., Any]) -> bool:
        """Whether ``fn`` takes the request (the SDK 1.x's paged list handlers): then it is
        called with one whose ``params.cursor`` is the client's, and its ``nextCursor``
        goes to the client."""
        try:
            takes = len(inspect.signature(fn).parameters) >= 1
        except (TypeError, ValueError):
            takes = False
        if takes:

            @functools.wraps(fn)
            def paged(ctx: Any, params: Params) -> Any:
                return fn(Params(method=method, params=params))

            self._v2[method] = paged
        return takes

    def call_tool(self, *, validate_input: bool = True) -> Callable[[F], F]:
        """Decorate the handler called as ``handler(name, arguments)`` for each ``tools/call``
        (``validate_input`` is the SDK's; toolwire passes the arguments as they came)."""

        def register(fn: F) -> F:
            self._call_handler = fn
            return fn

        return register

    # ------------------------------------------------------------ the SDK's boilerplate

    def get_capabilities(
        self,
        notification_options: NotificationOptions | None = None,
        experimental_capabilities: dict[str, Any] | None = None,
        extensions: dict[str, Any] | None = None,
        **_: Any,
    ) -> JSON:
        """The capabilities this server declares (to a 2025-11-25 client); the SDK's
        ``notification_options`` change nothing: every list declares ``listChanged``."""
        if experimental_capabilities or extensions:
            raise TypeError(
                "experimental capabilities and extension settings are declared by "
                "toolwire.Extension objects: Server(extensions=[...])"
            )

        return self.capabilities(FEATURES["2025-11-25"])

    def create_initialization_options(
        self,
        notification_options: NotificationOptions | None = None,
        experimental_capabilities: dict[str, Any] | None = None,
        extensions: dict[str, Any] | None = None,
    ) -> InitializationOptions:
        """The SDK's initialization options: this server's name, version and instructions."""
        return InitializationOptions(
            server_name=self.name,
            server_version=self.version,
            capabilities=self.get_capabilities(
                notification_options, experimental_capabilities, extensions
            ),
            instructions=self.instructions,
        )

    def run(self, *args: Any, **options: Any) -> Any:
        """``server.run()`` serves stdio (``run("http", port=...)`` HTTP), as
        :meth:`toolwire.Server.run`; ``await server.run(read, write, options)`` with the
        streams of ``stdio_server()`` is the SDK's way to the same."""
        given = args[0] if args else options.get("read_stream")
        if isinstance(given, StdioStream):
            return self._run_streams(*args, **options)
        if args and not isinstance(given, str):
            raise TypeError(
                "server.run(read_stream, write_stream, options) takes the streams of "
                "toolwire.lowlevel.stdio.stdio_server(); over HTTP, serve server.http_app() "
                "(or run server.run('http', port=...))"
            )
        return super().run(*args, **options)

    async def _run_streams(
        self,
        read_stream: StdioStream,
        write_stream: StdioStream,
        initialization_options: Any = None,
        raise_exceptions: bool = False,
        stateless: bool = False,
    ) -> None:
        from ...transports.stdio.guard import held_stdio  # lazy: only when serving stdio

        initialization(self, initialization_options)
        with held_stdio():  # before the lifespan, whose print() must not reach the client
            await self.run_stdio_async()

    def rename(self, name: str, version: str) -> None:
        """Tell clients another name and version (the SDK's ``InitializationOptions``)."""
        self.name, self.version = name, version
        self._info_by_revision = {
            revision: {**info, "name": name, "version": version}
            for revision, info in self._info_by_revision.items()
        }

    # ------------------------------------------------------------ listing

    def tools_page(self, request: Request, cursor: str | None) -> Any:
        if "tools/list" in self._v2:
            return self._listed(request, "tools/list")
        return self._page(request, cursor)

    def resources_page(self, request: Request, cursor: str | None, templates: bool) -> Any:
        method = "resources/templates/list" if templates else "resources/list"
        if method in self._v2:
            return self._listed(request, method)
        return super().resources_page(request, cursor, templates)

    def prompts_page(self, request: Request, cursor: str | None) -> Any:
        if "prompts/list" in self._v2:
            return self._listed(request, "prompts/list")
        return super().prompts_page(request, cursor)

    async def _listed(self, request: Request, method: str) -> JSON:
        """A 2.x list handler's result: the items it gave, and its ``nextCursor`` (the
        handler pages, with ``params.cursor``)."""
        field, keys, _ = _LISTS[method]
        handler = self._v2[method]
        what = f"Listing {field}"
        try:
            ctx = self.request_context
            value = await maybe_await(handler(ctx, ctx.params))
            definitions = _definitions(value, field, keys)
        except Exception as exc:
            raise handler_failure(exc, handler, what, self.mask_errors) from None
        features = request.features
        shape = {
            "tools": shaping.tool,
            "prompts": shaping.prompt,
        }.get(field, shaping.resource)
        result: JSON = {field: [shape(d, features) for d in definitions]}
        wire = _wire(value) if not isinstance(value, (list, tuple)) else None
        after = wire.get("nextCursor") if isinstance(wire, dict) else None
        if after is not None:
            result["nextCursor"] = after
        return shaping.cacheable(result, features, self.list_ttl_ms, "public")

    async def _page(self, request: Request, cursor: str | None) -> JSON:
        tools: Sequence[Any] = await maybe_await(self._list_handler()) if self._list_handler else []
        return self.build_page(request, cursor, [_definition(tool) for tool in tools])

    # ------------------------------------------------------------ calling

    def invoke_tool(
        self, connection: ServerConnection, request: Request, name: str, arguments: JSON
    ) -> Any:
        handler = self._v2.get("tools/call")
        if handler is not None:
            return self._invoke(handler, connection, request, name, arguments, self._run_v2)
        if self._call_handler is None:
            return super().invoke_tool(connection, request, name, arguments)
        return self._invoke(
            self._call_handler, connection, request, name, arguments, self._run_handler
        )

    async def _invoke(
        self,
        handler: Callable[..., Any],
        connection: ServerConnection,
        request: Request,
        name: str,
        arguments: JSON,
        runner: Callable[..., Any],
    ) -> JSON:
        def run(caller: Any) -> Any:
            return runner(handler, caller, name, arguments)

        result = await self.admitted(connection, request, run)
        return shaping.call_result(result, request.features)

    async def _run_v2(
        self, handler: Callable[..., Any], caller: Any, name: str, arguments: JSON
    ) -> JSON:
        """A 2.x ``on_call_tool(ctx, params)``: its ``CallToolResult`` (or result dict) is
        the answer; an exception is a JSON-RPC error, as in the SDK (an ``McpError`` its
        own, others -32603 by the rules of tool errors)."""
        deadline = self.tool_timeout
        try:
            ctx = self.request_context
            call = maybe_await(handler(ctx, ctx.params))
            value = await (call if deadline is None else before(call, deadline))
        except DeadlinePassed:
            return text_result(f"Tool '{name}' timed out after {deadline:g} s", is_error=True)
        except Exception as exc:
            raise handler_failure(exc, handler, f"Tool {name!r}", self.mask_errors) from None
        wire = _wire(value)
        if isinstance(wire, dict) and isinstance(wire.get("content"), list):
            return {**wire, "content": [_block(item) for item in wire["content"]]}
        return to_call_result(value)

    async def _run_handler(
        self, handler: Callable[..., Any], caller: Any, name: str, arguments: JSON
    ) -> JSON:
        """Run the handler like a decorated tool: a sync one on a worker thread (it may
        block), within ``tool_timeout``; every outcome becomes a result (an ``McpError``
        too, its message the text, as the SDK 1.x does)."""
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
        except McpError as exc:
            return text_result(exc.message, is_error=True)
        except RPCError:
            raise  # raised on purpose: the answer is this JSON-RPC error
        except Exception as exc:
            source = getattr(getattr(handler, "__code__", None), "co_filename", None)
            return failure_result(exc, name, source, self.mask_errors)
