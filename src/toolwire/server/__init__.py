"""The server side: the decorator API, the request context and connections.

``RateLimiter`` and ``AuditLog`` (:mod:`toolwire.admission`, reached by name), ``Extension``
(:mod:`.extensions`) and the official SDK's ``ServerSession`` and ``RequestContext``
(:mod:`.sdk_session`) load on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .context import Context
from .core import ServerCore
from .features import feature
from .server import Server

if TYPE_CHECKING:
    from .compat.sdk_session import RequestContext, ServerSession
    from .dispatch.extensions import Extension

__all__ = [
    "AuditLog",
    "Context",
    "Extension",
    "RateLimiter",
    "RequestContext",
    "Server",
    "ServerCore",
    "ServerSession",
]


def __getattr__(name: str) -> Any:
    if name in ("RateLimiter", "AuditLog"):  # toolwire.admission's, by name (.features)
        return feature(name)
    if name == "Extension":
        from .dispatch.extensions import Extension  # lazy: on first use of the name

        return Extension
    if name in ("ServerSession", "RequestContext"):
        from .compat import sdk_session  # lazy: on first use of the name

        return getattr(sdk_session, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
