"""The server side: the decorator API, the request context and connections.

``RateLimiter`` (:mod:`.limits`), ``AuditLog`` (:mod:`.audit`) and ``Extension``
(:mod:`.extensions`) load on first use.
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

__all__ = ["AuditLog", "Context", "Extension", "RateLimiter", "Server", "ServerCore"]


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
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
