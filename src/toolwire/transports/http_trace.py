"""HTTP request headers as trace context: what the server's telemetry reads, what the client
sends.

The HTTP app sets :data:`current_headers` for the request it handles (a context variable,
so the handler's task, which copies the context when the request is dispatched, sees the
headers of the HTTP request that carried its message). :func:`copy_trace_context` puts the
W3C trace context a client wrote in a message's ``params._meta`` on the HTTP request that
carries it too, so a proxy or gateway that traces HTTP sees the same trace. Neither needs
OpenTelemetry.
"""

from __future__ import annotations

from contextvars import ContextVar
from typing import Any

# The lower-cased headers of the HTTP request being handled; None outside HTTP.
current_headers: ContextVar[dict[str, str] | None] = ContextVar(
    "toolwire_http_headers", default=None
)

TRACE_KEYS = ("traceparent", "tracestate", "baggage")


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
