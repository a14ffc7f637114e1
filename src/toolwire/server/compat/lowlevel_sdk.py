"""The official SDK's low-level names around :class:`toolwire.lowlevel.Server`.

* The 2.x constructor handlers (``Server(name, on_list_tools=..., on_call_tool=...)``): each
  is called as ``handler(ctx, params)`` with a :class:`ServerRequestContext` and the request's
  params (:class:`Params`: attributes by the SDK's snake_case names or the wire's).
* The 1.x boilerplate: :func:`stdio_server`, :class:`InitializationOptions`,
  :class:`NotificationOptions` and ``server.request_context``.

The low-level server's methods run inside :func:`scoped`, which makes the connection and the
request of the running handler known to :func:`current_scope`; nothing here runs for the
decorator server.
"""

from __future__ import annotations

import contextvars
import difflib
import re
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any, Generic

from typing_extensions import TypeVar

from ..context import Context
from ..request import JSON, Request
from ..session import ServerConnection
from .sdk_session import ServerSession, sse_closer

LifespanT = TypeVar("LifespanT", default=dict[str, Any])
RequestT = TypeVar("RequestT", default=Any)

_scope: contextvars.ContextVar[tuple[ServerConnection, Request] | None] = contextvars.ContextVar(
    "toolwire_lowlevel_request", default=None
)

#: The 2.x constructor's handlers toolwire serves, by the method each answers.
SERVED: dict[str, str] = {
    "on_list_tools": "tools/list",
    "on_call_tool": "tools/call",
    "on_list_resources": "resources/list",
    "on_list_resource_templates": "resources/templates/list",
    "on_read_resource": "resources/read",
    "on_subscribe_resource": "resources/subscribe",
    "on_unsubscribe_resource": "resources/unsubscribe",
    "on_list_prompts": "prompts/list",
    "on_get_prompt": "prompts/get",
    "on_completion": "completion/complete",
    "on_set_logging_level": "logging/setLevel",
}

#: Those it refuses, and what to do instead (docs/migrating.md, "The low-level server").
REFUSED: dict[str, str] = {
    "on_ping": "toolwire answers ping itself: leave on_ping out",
    "on_subscriptions_listen": (
        "toolwire serves subscriptions/listen itself: leave on_subscriptions_listen out and "
        "call server.resource_updated(uri), server.resources_changed(), "
        "server.prompts_changed() or server.tools_changed(); every listening client hears of it"
    ),
    "on_roots_list_changed": (
        "use @server.on_roots_changed, whose handler(roots) gets the client's new roots"
    ),
    "on_progress": (
        "client-to-server progress (deprecated as of 2026-07-28) is not served: leave "
        "on_progress out"
    ),
}

#: Fields of the requests' params an SDK model reads as None when the client left them out.
_OPTIONAL_FIELDS = frozenset(
    {"cursor", "arguments", "context", "meta", "task", "input_responses", "request_state"}
)

_CAMEL = re.compile(r"_([a-z])")


def current_scope() -> tuple[ServerConnection, Request] | None:
    """The connection and request of the low-level handler running now, if any."""
    return _scope.get()


def scoped(
    method: Callable[[ServerConnection, Request], Any],
) -> Callable[[ServerConnection, Request], Any]:
    """``method`` with its connection and request known to :func:`current_scope` while
    it runs."""

    def run(connection: ServerConnection, request: Request) -> Any:
        return _scoped(method, connection, request)

    return run


async def _scoped(
    method: Callable[[ServerConnection, Request], Any],
    connection: ServerConnection,
    request: Request,
) -> Any:
    token = _scope.set((connection, request))
    try:
        value = method(connection, request)
        while hasattr(value, "__await__"):
            value = await value
        return value
    finally:
        _scope.reset(token)


def handler_keywords(options: dict[str, Any]) -> dict[str, Callable[..., Any]]:
    """The 2.x ``on_*`` handlers taken out of ``options``, by method; a refused or unknown
    one is a ``TypeError`` naming what to use instead."""
    handlers: dict[str, Callable[..., Any]] = {}
    for key in [k for k in options if k.startswith("on_")]:
        handler = options.pop(key)
        if key in REFUSED:
            if key == "on_ping" and getattr(handler, "__name__", "") == "_ping_handler":
                continue  # the SDK's own default, passed on explicitly
            raise TypeError(f"Server({key}=...) is not supported: {REFUSED[key]}")
        if key not in SERVED:
            close = difflib.get_close_matches(key, [*SERVED, *REFUSED], n=1)
            hint = f": did you mean {close[0]!r}?" if close else ""
            raise TypeError(f"Server() got an unknown handler {key!r}{hint}")
        if handler is None:
            continue
        if not callable(handler):
            raise TypeError(f"Server({key}=...) must be a function (ctx, params), not {handler!r}")
        handlers[SERVED[key]] = handler
    return handlers


def _wrap(value: Any) -> Any:
    if isinstance(value, dict) and not isinstance(value, Params):
        return Params(value)
    if isinstance(value, list):
        return [_wrap(item) for item in value]
    return value


class Params(dict[str, Any]):
    """A request's params as the SDK's models read them: ``params.name``,
    ``params.arguments``, ``params.argument.value``, ``params.meta`` (``_meta``), by the
    snake_case name or the wire's; an optional field the client left out reads as None."""

    def __getattr__(self, key: str) -> Any:
        if key in self:
            return _wrap(self[key])
        wire = "_meta" if key == "meta" else _CAMEL.sub(lambda m: m.group(1).upper(), key)
        if wire in self:
            return _wrap(self[wire])
        if key in _OPTIONAL_FIELDS:
            return None
        raise AttributeError(f"the params have no field {key!r} (they have: {', '.join(self)})")

    def model_dump(self, **_: Any) -> JSON:
        """The params as a dict (what the SDK's ``model_dump()`` gives)."""
        return dict(self)


class ServerRequestContext(Generic[LifespanT, RequestT]):
    """The SDK's request context (2.x ``ServerRequestContext``, 1.x ``RequestContext``):
    what a low-level handler gets as ``ctx`` (2.x) or reads as ``server.request_context``
    (1.x). ``session`` is the SDK's session (:class:`~toolwire.server.ServerSession`:
    ``send_log_message``, ``create_message``, ``elicit_form``, ...) over toolwire's
    :class:`~toolwire.Context` for the request; ``request`` is the HTTP request (None on
    stdio)."""

    def __init__(
        self,
        connection: ServerConnection,
        request: Request,
        lifespan_context: Any,
    ) -> None:
        self._connection = connection
        self._request = request
        self._context: Context | None = None
        self.lifespan_context = lifespan_context if lifespan_context is not None else {}
        self.protocol_version: str = request.features.revision
        self.method: str = request.method
        self.params: Params = Params(request.params)
        self.request_id: str | int = request.id
        self.meta: Params | None = Params(request.meta) if request.meta else None

    @property
    def context(self) -> Context:
        """toolwire's own :class:`~toolwire.Context` for this request."""
        if self._context is None:
            self._context = Context(self._connection, self._request)
        return self._context

    @property
    def session(self) -> ServerSession:
        return ServerSession(self.context)

    @property
    def request(self) -> Any:
        return self.context.http

    @property
    def close_sse_stream(self) -> Callable[[], Awaitable[None]] | None:
        """The SDK's callback ending this call's SSE stream (the client resumes it); None
        where there is none to end (stdio, memory)."""

        return sse_closer(self.context)

    @property
    def experimental(self) -> Any:
        raise AttributeError(
            "ctx.experimental (the SDK's experimental tasks) is not offered: toolwire's "
            "tasks are @mcp.tool(task=True) on toolwire.Server"
        )


@dataclass
class ReadResourceContents:
    """The SDK's ``ReadResourceContents`` (``mcp.server.lowlevel.helper_types``): what a
    1.x ``read_resource`` handler may return, one or a list of them."""

    content: str | bytes
    mime_type: str | None = None
    meta: dict[str, Any] | None = None


class NotificationOptions:
    """The SDK's ``NotificationOptions``. toolwire declares ``listChanged`` for every list
    it serves, so the three flags change nothing."""

    def __init__(
        self,
        prompts_changed: bool = False,
        resources_changed: bool = False,
        tools_changed: bool = False,
    ) -> None:
        self.prompts_changed = prompts_changed
        self.resources_changed = resources_changed
        self.tools_changed = tools_changed


class InitializationOptions:
    """The SDK's ``InitializationOptions`` (``mcp.server.models``): the name, version and
    instructions given here are what :meth:`Server.run` tells the client."""

    def __init__(
        self,
        server_name: str,
        server_version: str,
        capabilities: Any = None,
        instructions: str | None = None,
        **extra: Any,
    ) -> None:
        self.server_name = server_name
        self.server_version = server_version
        self.capabilities = capabilities
        self.instructions = instructions
        for key, value in extra.items():
            setattr(self, key, value)


class StdioStream:
    """One end of :func:`stdio_server`: hand both to ``server.run(read, write, options)``."""

    def __init__(self, side: str) -> None:
        self.side = side

    def __repr__(self) -> str:
        return f"<stdio {self.side} stream>"


@asynccontextmanager
async def stdio_server(stdin: Any = None, stdout: Any = None) -> AsyncIterator[Any]:
    """The SDK's ``stdio_server()``: ``async with stdio_server() as (read, write): await
    server.run(read, write, server.create_initialization_options())`` serves one client on
    stdin/stdout, as ``await server.run_stdio_async()`` does."""
    if stdin is not None or stdout is not None:
        raise TypeError(
            "stdio_server() serves this process's own stdin and stdout: other streams are not "
            "supported (toolwire.transports.memory or Client(server) connect in memory)"
        )
    yield StdioStream("read"), StdioStream("write")


def initialization(server: Any, options: Any) -> None:
    """Take the name, version and instructions of ``options`` (what ``run`` was given)."""
    if options is None:
        return
    if isinstance(options, Mapping):
        options = InitializationOptions(**options)
    name = getattr(options, "server_name", None)
    version = getattr(options, "server_version", None)
    if (name, version) != (server.name, server.version) and name:
        server.rename(name, version or server.version)
    instructions = getattr(options, "instructions", None)
    if instructions:
        server.instructions = instructions


class StreamableHTTPSessionManager:
    """Refused: the SDK 1.x ``StreamableHTTPSessionManager(app=server, ...)``."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        raise TypeError(
            "StreamableHTTPSessionManager is not offered: server.http_app(path='/mcp') (or "
            "server.streamable_http_app()) is the ASGI app to mount or run with uvicorn; "
            "json_response= and stateless= are its options, and "
            "`async with server.session_manager.run():` runs it inside another app's lifespan"
        )


__all__ = [
    "InitializationOptions",
    "NotificationOptions",
    "Params",
    "ReadResourceContents",
    "ServerRequestContext",
    "StreamableHTTPSessionManager",
    "current_scope",
    "handler_keywords",
    "scoped",
    "stdio_server",
]
