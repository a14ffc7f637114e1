"""The resource methods: resources/list, resources/templates/list, resources/read and, on
legacy revisions, resources/subscribe and resources/unsubscribe (2026-07-28 subscribes on a
``subscriptions/listen`` stream instead: its ``resourceSubscriptions``).

They check the request's shape and hand the work to the server's resource registry
(:class:`toolwire.server.components.resources.ResourceRegistry`), or to the low-level server's handlers
(:class:`toolwire.server.compat.lowlevel_primitives.PrimitiveHandlers`). A server without resources
does not offer them: -32601, exactly as if the methods did not exist.

Errors: an unknown URI (or one served by a resource the caller may not use) is -32002 "Resource not found" with ``data.uri`` up to 2025-11-25
and -32602 on 2026-07-28; a missing or non-string ``uri`` is -32602; a resource function
that fails is -32603 with the text a tool's ``isError`` result would carry (its own
message for ``ToolError`` and expected exceptions, else a masked one with a reference).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from ... import jsonrpc
from ...errors import RPCError
from ...protocol.revisions import Features
from ..request import JSON, Request
from ..session import ServerConnection


class ServesResources(Protocol):
    """What these methods ask of the server: :class:`toolwire.server.components.resources.ResourceRegistry`
    or :class:`toolwire.server.compat.lowlevel_primitives.PrimitiveHandlers` (both above this
    module)."""

    def resources_page(self, request: Request, cursor: str | None, templates: bool) -> Any: ...

    def read_for(self, connection: Any, request: Request, uri: str) -> Any: ...

    def knows(self, uri: str, request: Request | None = None) -> bool: ...


def not_found(uri: str, features: Features, message: str = "Resource not found") -> RPCError:
    """The revision's not-found error: -32002 up to 2025-11-25, -32602 on 2026-07-28."""
    code = jsonrpc.INVALID_PARAMS if features.modern else jsonrpc.RESOURCE_NOT_FOUND_LEGACY
    return RPCError(code, message, {"uri": uri})


def _resources_of(connection: ServerConnection, request: Request) -> ServesResources:
    server: Any = connection.server
    if not getattr(server, "offers_resources", False):
        raise RPCError(jsonrpc.METHOD_NOT_FOUND, f"Method not found: {request.method}")
    return server  # type: ignore[no-any-return]


def _cursor(request: Request) -> str | None:
    cursor = request.params.get("cursor")
    if cursor is not None and not isinstance(cursor, str):
        raise RPCError(jsonrpc.INVALID_PARAMS, "Invalid cursor")
    return cursor


def _uri(request: Request) -> str:
    uri = request.params.get("uri")
    if not isinstance(uri, str) or not uri:
        raise RPCError(
            jsonrpc.INVALID_PARAMS, f'Invalid params: {request.method} needs a "uri" string'
        )
    return uri


def _list_resources(connection: ServerConnection, request: Request) -> Any:
    server = _resources_of(connection, request)
    return server.resources_page(request, _cursor(request), templates=False)


def _list_templates(connection: ServerConnection, request: Request) -> Any:
    server = _resources_of(connection, request)
    return server.resources_page(request, _cursor(request), templates=True)


def _read(connection: ServerConnection, request: Request) -> Any:
    server = _resources_of(connection, request)
    return server.read_for(connection, request, _uri(request))


def _subscribe(connection: ServerConnection, request: Request) -> Any:
    server = _resources_of(connection, request)
    uri = _uri(request)
    hook = getattr(server, "subscribe_uri", None)
    if hook is not None:  # a low-level server: its handler has a say
        return hook(connection, request, uri, True)
    if not server.knows(uri, request):  # nor one its caller may not use
        raise not_found(uri, request.features)
    watching = getattr(server, "watching", None)
    pending = watching([uri], request) if watching is not None else None
    if pending is not None:  # what serves it subscribes first (a mounted proxy, upstream)
        return _subscribed(connection, uri, pending)
    connection.subscriptions.add(uri)
    return {}


async def _subscribed(connection: ServerConnection, uri: str, pending: Any) -> JSON:
    failed = await pending
    if uri in failed:
        raise failed[uri]
    connection.subscriptions.add(uri)
    return {}


def _unsubscribe(connection: ServerConnection, request: Request) -> Any:
    server = _resources_of(connection, request)
    hook = getattr(server, "subscribe_uri", None)
    if hook is not None:  # a low-level server: its handler has a say
        return hook(connection, request, _uri(request), False)
    uri = _uri(request)
    connection.subscriptions.discard(uri)  # never subscribed: nothing to stop
    unwatching = getattr(server, "unwatching", None)
    pending = unwatching([uri]) if unwatching is not None else None
    if pending is not None:  # the last subscriber of a mounted proxy's resource: upstream too
        return _unsubscribed(pending)
    return {}


async def _unsubscribed(pending: Any) -> JSON:
    await pending
    return {}


RESOURCE_METHODS: dict[str, Callable[[ServerConnection, Request], Any]] = {
    "resources/list": _list_resources,
    "resources/templates/list": _list_templates,
    "resources/read": _read,
    "resources/subscribe": _subscribe,
    "resources/unsubscribe": _unsubscribe,
}
