"""The server side: the decorator API, the request context and connections.

``RateLimiter`` (:mod:`.limits`), ``AuditLog`` (:mod:`.audit`), ``Extension``
(:mod:`.extensions`) and the official SDK's ``ServerSession`` and ``RequestContext``
(:mod:`.sdk_session`) load on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .context import Context
from .core import ServerCore
from .server import Server

if TYPE_CHECKING:
    from .audit import AuditLog
    from .extensions import Extension
    from .limits import RateLimiter
    from .sdk_session import RequestContext, ServerSession

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
    if name == "RateLimiter":
        from .limits import RateLimiter

        return RateLimiter
    if name == "AuditLog":
        from .audit import AuditLog

        return AuditLog
    if name == "Extension":
        from .extensions import Extension

        return Extension
    if name in ("ServerSession", "RequestContext"):
        from . import sdk_session

        return getattr(sdk_session, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
