"""The HTTP request being handled: what tools read (``ctx.http``), what the server's
telemetry reads, and the trace context a client sends.

The HTTP app sets :data:`current_request` for the request it handles (a context variable,
so the handler's task, which copies the context when the request is dispatched, sees the
HTTP request that carried its message: a legacy call keeps the POST that brought it, even
when its answer or later messages travel on another stream). :func:`copy_trace_context`
puts the W3C trace context a client wrote in a message's ``params._meta`` on the HTTP
request that carries it too, so a proxy or gateway that traces HTTP sees the same trace.
Neither needs OpenTelemetry.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextvars import ContextVar
from typing import Any

from ..auth.tokens import AccessToken

TRACE_KEYS = ("traceparent", "tracestate", "baggage")


class Headers(Mapping[str, str]):
    """Request headers, looked up without regard to case (``headers["X-User-Id"]``).

    A header sent more than once keeps its last value; names iterate lower-cased."""

    __slots__ = ("_items",)

    def __init__(self, items: dict[str, str]) -> None:
        self._items = items  # lower-cased names

    def __getitem__(self, key: str) -> str:
        return self._items[key.lower()]

    def get(self, key: str, default: Any = None) -> Any:
        return self._items.get(key.lower(), default) if isinstance(key, str) else default

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str) and key.lower() in self._items

    def __iter__(self) -> Iterator[str]:
        return iter(self._items)

    def __len__(self) -> int:
        return len(self._items)

    def __repr__(self) -> str:
        return f"Headers({self._items!r})"


class HttpRequest:
    """The HTTP request that carried a message: ``headers`` (case-insensitive), ``method``,
    ``path``, ``query``, ``url``, the client's address (``client_address``,
    ``client_port``) and, when the server authenticates its callers, the verified
    ``access_token`` (never the raw bearer token). Read it in a tool as ``ctx.http``."""

    __slots__ = ("_headers", "_scope", "access_token", "raw_headers")

    def __init__(self, scope: Mapping[str, Any], headers: dict[str, str], identity: Any) -> None:
        self._scope = scope
        self.raw_headers = headers  # lower-cased names, as the app read them
        self._headers: Headers | None = None
        self.access_token: AccessToken | None = (
            identity if isinstance(identity, AccessToken) else None
        )

    @property
    def headers(self) -> Headers:
        if self._headers is None:
            self._headers = Headers(self.raw_headers)
        return self._headers

    @property
    def method(self) -> str:
        return str(self._scope.get("method", ""))

    @property
    def path(self) -> str:
        """The path as received (with any mount prefix)."""
        return str(self._scope.get("path", ""))

    @property
    def query(self) -> str:
        raw = self._scope.get("query_string", b"")
        return raw.decode("latin-1") if isinstance(raw, bytes) else str(raw)

    @property
    def url(self) -> str:
        """``scheme://host/path?query``, the host as the client named it (``Host``)."""
        scheme = self._scope.get("scheme", "http")
        host = self.raw_headers.get("host")
        if not host:
            server = self._scope.get("server")
            host = f"{server[0]}:{server[1]}" if server else "localhost"
        query = self.query
        return f"{scheme}://{host}{self.path}" + (f"?{query}" if query else "")

    @property
    def client_address(self) -> str | None:
        """The address of the peer that connected (a proxy's, behind one: read the header
        your gateway sets, such as ``X-Forwarded-For``, if you trust it)."""
        client = self._scope.get("client")
        return str(client[0]) if client else None

    @property
    def client_port(self) -> int | None:
        client = self._scope.get("client")
        return int(client[1]) if client else None

    @property
    def session_id(self) -> str | None:
        """The ``Mcp-Session-Id`` of a legacy session (None in 2026-07-28)."""
        return self.raw_headers.get("mcp-session-id")

    def __repr__(self) -> str:
        return f"<HttpRequest {self.method} {self.path} from {self.client_address}>"


# The HTTP request being handled; None outside HTTP.
current_request: ContextVar[HttpRequest | None] = ContextVar("toolwire_http_request", default=None)


def copy_trace_context(message: Any, headers: dict[str, str]) -> None:
    """Add the ``traceparent``/``tracestate``/``baggage`` of ``message``'s ``_meta`` to
    ``headers`` (string values only; the W3C formats are the sender's to keep)."""
    params = message.get("params") if isinstance(message, dict) else None
    meta = params.get("_meta") if isinstance(params, dict) else None
    if isinstance(meta, dict) and "traceparent" in meta:
        for key in TRACE_KEYS:
            value = meta.get(key)
            if isinstance(value, str):
                headers[key] = value
