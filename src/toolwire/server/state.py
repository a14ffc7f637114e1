"""Per-caller state: ``ctx.state``, a small key/value store that follows the caller.

::

    @mcp.tool()
    async def remember(city: str, ctx: Context) -> str:
        await ctx.state.set("city", city, ttl=3600)    # seconds; default: mcp.state_ttl
        return f"I'll remember {city}"

    @mcp.tool()
    async def recall(ctx: Context) -> str:
        return await ctx.state.get("city", "nowhere")

Whose state it is:

* with authentication on (``auth=``), the verified caller: the token's issuer, client and
  subject, so one user finds it again in every session, on every worker, in both eras;
* without it, on a legacy HTTP session, that session (its ``Mcp-Session-Id``);
* on stdio or in memory, the one client of the connection, in the process's memory.

A 2026-07-28 request over HTTP without authentication names no caller (there is no
session): ``ctx.state`` raises :class:`NoCaller` saying so, rather than sharing one state
among every client. Values must be JSON-serializable; they live in the HTTP app's session
store (a :class:`~toolwire.transports.store.RedisStore` shares them between workers),
or in this process otherwise, until their time to live runs out.
"""

from __future__ import annotations

import hashlib
import os
import weakref
from typing import TYPE_CHECKING, Any

import orjson

from ..errors import ToolError

if TYPE_CHECKING:
    from .request import Connection, Request

DEFAULT_TTL = 86_400.0  # seconds a value lives unless told otherwise (``mcp.state_ttl``)
MISSING: Any = object()

_local_stores: weakref.WeakKeyDictionary[Any, Any] = weakref.WeakKeyDictionary()
_connection_keys: weakref.WeakKeyDictionary[Any, str] = weakref.WeakKeyDictionary()


class NoCaller(ToolError):
    """There is nobody to key per-caller data to (2026-07-28 over HTTP without auth)."""


def values_of(server: Any) -> Any:
    """Where a server keeps values with a lifetime: the HTTP app's shared store when it has
    one (Redis), else a store in this process's memory (one per server)."""
    shared = getattr(server, "shared_store", None)
    if shared is not None:
        return shared
    store = _local_stores.get(server)
    if store is None:
        # lazy: the HTTP stack, only when serving HTTP
        from ..transports.store.stores import MemoryStore

        store = _local_stores[server] = MemoryStore()
    return store


def caller_key(request: Request, connection: Connection, what: str = "ctx.state") -> str:
    """The caller a request speaks for, as a key: ``user:…``, ``session:…`` or ``client:…``.

    Raises :class:`NoCaller` for a 2026-07-28 HTTP request without authentication."""
    identity = request.identity
    if identity is not None:
        parts = [
            getattr(identity, name, None) for name in ("issuer", "client_id", "subject", "token_id")
        ]
        if not any(parts):
            parts = [str(identity)]
        digest = hashlib.sha256(orjson.dumps(parts)).hexdigest()[:32]
        return f"user:{digest}"
    from ..transports.http_trace import current_request  # lazy: only over HTTP

    http = current_request.get()
    if http is None:  # stdio or memory: the one client of this connection
        key = _connection_keys.get(connection)
        if key is None:
            key = _connection_keys[connection] = f"client:{os.urandom(12).hex()}"
        return key
    session = http.session_id
    if session and not request.features.modern:
        return f"session:{hashlib.sha256(session.encode()).hexdigest()[:32]}"
    raise NoCaller(
        f"{what} needs to know who is calling, and this request does not say: it came over "
        "HTTP without authentication and "
        + (
            "without a session (revision 2026-07-28 is stateless). "
            if request.features.modern
            else "without a session (a stateless app). "
        )
        + "Turn on authentication (Server(auth=...) or http_app(auth=...)) so the state "
        "follows the verified caller, or keep such data in the client's arguments."
    )


class CallerState:
    """The calling user's key/value state (see the module documentation).

    ``await get(key, default=None)``, ``await set(key, value, ttl=None)`` (``ttl`` in
    seconds, default ``mcp.state_ttl`` or one day), ``await delete(key)``. Values are
    JSON: what you get back is what JSON keeps (tuples come back as lists)."""

    __slots__ = ("_connection", "_request", "_server")

    def __init__(self, server: Any, connection: Connection, request: Request) -> None:
        self._server = server
        self._connection = connection
        self._request = request

    def _name(self, key: str) -> str:
        if not isinstance(key, str) or not key:
            raise TypeError("ctx.state keys are non-empty strings")
        return f"state:{caller_key(self._request, self._connection)}:{key}"

    async def get(self, key: str, default: Any = None) -> Any:
        """The value stored under ``key`` for this caller, or ``default``."""
        raw = await values_of(self._server).get_value(self._name(key))
        return default if raw is None else orjson.loads(raw)

    async def set(self, key: str, value: Any, ttl: float | None = None) -> None:
        """Store ``value`` (JSON-serializable) under ``key`` for ``ttl`` seconds."""
        name = self._name(key)
        if ttl is None:
            ttl = float(getattr(self._server, "state_ttl", DEFAULT_TTL))
        if not ttl > 0:
            raise ValueError("ttl must be a positive number of seconds")
        try:
            data = orjson.dumps(value)
        except TypeError as exc:
            raise TypeError(f"ctx.state values must be JSON-serializable: {exc}") from None
        await values_of(self._server).set_value(name, data, ttl)

    async def delete(self, key: str) -> None:
        """Forget ``key`` for this caller (nothing happens if it is not set)."""
        await values_of(self._server).delete_value(self._name(key))
