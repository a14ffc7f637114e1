"""The protocol's methods: each takes (connection, request) and returns a result dict,
pre-serialized result bytes, or a coroutine whose value is the result."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ... import jsonrpc
from ...errors import RPCError
from ...protocol import shaping
from ...protocol.revisions import META_IDEMPOTENCY_KEY, SUPPORTED_NEWEST_FIRST
from ..request import JSON, LOG_RANK, Request
from ..session import ServerConnection
from .prompt_methods import PROMPT_METHODS
from .resource_methods import RESOURCE_METHODS


def _ping(connection: ServerConnection, request: Request) -> JSON:
    return {}


def _set_level(connection: ServerConnection, request: Request) -> JSON:
    level = request.params.get("level")
    if not isinstance(level, str) or level not in LOG_RANK:
        shown = repr(level) if isinstance(level, str) else type(level).__name__
        raise RPCError(jsonrpc.INVALID_PARAMS, f"Invalid params: unknown log level {shown}")
    connection.log_level = level
    return {}


def _discover(connection: ServerConnection, request: Request) -> JSON:
    server = connection.server
    result: JSON = {
        # Every revision served here (2026-07-28 per request, the legacy ones through
        # initialize), the same list an UnsupportedProtocolVersionError gives (LC-18, LC-20).
        "supportedVersions": list(SUPPORTED_NEWEST_FIRST),
        "capabilities": server.capabilities(request.features),
    }
    if server.instructions:
        result["instructions"] = server.instructions
    return shaping.cacheable(result, request.features, server.discover_ttl_ms, "public")


def _list_tools(connection: ServerConnection, request: Request) -> Any:
    cursor = request.params.get("cursor")
    if cursor is not None and not isinstance(cursor, str):
        raise RPCError(jsonrpc.INVALID_PARAMS, "Invalid cursor")
    return connection.server.tools_page(request, cursor)


def _call_tool(connection: ServerConnection, request: Request) -> Any:
    params = request.params
    name = params.get("name")
    if not isinstance(name, str):
        raise RPCError(jsonrpc.INVALID_PARAMS, 'Invalid params: tools/call needs a "name" string')
    arguments = params.get("arguments")
    if arguments is None:
        arguments = {}
    elif not isinstance(arguments, dict):
        raise RPCError(jsonrpc.INVALID_PARAMS, 'Invalid params: "arguments" must be an object')
    meta = request.meta
    if meta is not None and META_IDEMPOTENCY_KEY in meta:  # run once however often sent
        from .idempotency import keyed_call  # lazy: only for a call with an idempotency key

        return keyed_call(connection.server, connection, request, name, arguments)
    return connection.server.invoke_tool(connection, request, name, arguments)


def _listen(connection: ServerConnection, request: Request) -> Any:
    wanted = request.params.get("notifications")
    if not isinstance(wanted, dict):
        raise RPCError(jsonrpc.INVALID_PARAMS, 'Invalid params: "notifications" must be an object')
    # Only what this server can deliver is acknowledged; the client sees what it got.
    accepted = connection.server.accepted_notifications(wanted, request)
    confirming = connection.server.confirm_listened(wanted, accepted, request)
    uris = accepted.get("resourceSubscriptions")
    watching = getattr(connection.server, "watching", None)
    pending = watching(uris, request) if uris and watching is not None else None
    if pending is None and confirming is None:
        return connection.listen(request, accepted)
    return _listen_confirmed(connection, request, accepted, confirming, pending)


async def _listen_confirmed(
    connection: ServerConnection, request: Request, accepted: JSON, confirming: Any, pending: Any
) -> Any:
    """A listen stream whose filter had to be looked up first: another worker's tasks (in
    the shared store), a mounted proxy's resources (watched upstream; those that could not
    be are left out of the acknowledgement)."""
    if confirming is not None:
        accepted = await confirming
    failed = await pending if pending is not None else None
    if failed:
        kept = [uri for uri in accepted["resourceSubscriptions"] if uri not in failed]
        accepted = {k: v for k, v in accepted.items() if k != "resourceSubscriptions"}
        if kept:
            accepted["resourceSubscriptions"] = kept
    return await connection.listen(request, accepted)


METHODS: dict[str, Callable[[ServerConnection, Request], Any]] = {
    "ping": _ping,
    "logging/setLevel": _set_level,
    "server/discover": _discover,
    "tools/list": _list_tools,
    "tools/call": _call_tool,
    "subscriptions/listen": _listen,
    **RESOURCE_METHODS,
    **PROMPT_METHODS,
}
