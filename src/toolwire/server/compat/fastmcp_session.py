"""FastMCP's per-session state and ``session_id`` (see :mod:`.fastmcp_context`), loaded
by the first tool that uses them."""

from __future__ import annotations

import hashlib
import os
import weakref
from typing import TYPE_CHECKING, Any

import orjson

from ...errors import ToolError

if TYPE_CHECKING:
    from ..request import Connection, Request

STATE_TTL = 86_400.0  # seconds, as FastMCP keeps session state
_connection_ids: weakref.WeakKeyDictionary[Any, str] = weakref.WeakKeyDictionary()
_request_values: weakref.WeakKeyDictionary[Any, dict[str, Any]] = weakref.WeakKeyDictionary()


def session_id(connection: Connection, request: Request) -> str:
    """The MCP session's id: the HTTP ``Mcp-Session-Id``, else one made for the
    connection. Raises a ``ToolError`` for a request that belongs to no session."""
    from ...transports.http_trace import current_request  # lazy: only over HTTP

    http = current_request.get()
    if http is None:
        found = _connection_ids.get(connection)
        if found is None:
            found = _connection_ids[connection] = os.urandom(16).hex()
        return found
    if http.session_id and not request.features.modern:
        return http.session_id
    raise ToolError(
        "This request belongs to no MCP session (it came over HTTP "
        + ("on revision 2026-07-28, which is stateless" if request.features.modern else "")
        + ("" if request.features.modern else "to a stateless app")
        + "), so there is no session id nor session state: keep per-user values in "
        "ctx.state (with authentication), or in the client's arguments"
    )


def _name(connection: Connection, request: Request, key: str) -> str:
    if not isinstance(key, str) or not key:
        raise TypeError("State keys are non-empty strings")
    session = hashlib.sha256(session_id(connection, request).encode()).hexdigest()[:32]
    return f"session-state:{session}:{key}"


async def set_state(ctx: Any, key: str, value: Any, serializable: bool) -> None:
    from ..state import values_of  # lazy: per-session state, on first use

    name = _name(ctx._connection, ctx.request, key)
    local = _request_values.setdefault(ctx, {})
    if not serializable:
        local[name] = value
        return
    local.pop(name, None)
    try:
        data = orjson.dumps(value, default=_model_default)
    except TypeError as exc:
        raise TypeError(
            f"The value for state key {key!r} is not JSON-serializable ({exc}): pass "
            f"serializable=False to keep it for this request only"
        ) from None
    await values_of(ctx.server).set_value(name, data, STATE_TTL)


def _model_default(value: Any) -> Any:
    if hasattr(value, "model_dump"):
        return value.model_dump(mode="json")
    raise TypeError(f"{type(value).__name__} is not JSON")


async def get_state(ctx: Any, key: str) -> Any:
    from ..state import values_of  # lazy: per-session state, on first use

    name = _name(ctx._connection, ctx.request, key)
    local = _request_values.get(ctx)
    if local is not None and name in local:
        return local[name]
    raw = await values_of(ctx.server).get_value(name)
    return None if raw is None else orjson.loads(raw)


async def delete_state(ctx: Any, key: str) -> None:
    from ..state import values_of  # lazy: per-session state, on first use

    name = _name(ctx._connection, ctx.request, key)
    local = _request_values.get(ctx)
    if local is not None:
        local.pop(name, None)
    await values_of(ctx.server).delete_value(name)
