"""What a call must pass beyond its arguments, when the server is configured for it: rate
limits per caller, per tool and in total (:mod:`.limits`, in memory or Redis:
:mod:`.limits_redis`), the audit log (:mod:`.audit`), and the guard that applies both to
``tools/call`` (:mod:`.guard`). ``Server(rate_limits=..., audit=...)`` reaches them through
:mod:`toolwire.server.features`; the call slots every call takes stay in the server
(:mod:`toolwire.server.dispatch.call_slots`)."""

from .audit import AuditLog
from .limits import RateLimiter
from .limits_redis import RedisBuckets

__all__ = ["AuditLog", "RateLimiter", "RedisBuckets"]
