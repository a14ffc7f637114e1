"""Ready-made middleware for the chain of :meth:`Server.add_middleware
<toolwire.server.core.ServerCore.add_middleware>` (docs/runtime.md, "Ready-made middleware")::

    from toolwire.middleware import Metrics, ResultCache, ResultSizeCap

    metrics = Metrics()
    mcp.add_middleware(metrics)                   # counts, errors, durations per tool
    mcp.add_middleware(ResultSizeCap(100_000))    # results of at most 100 kB
    mcp.add_middleware(ResultCache(ttl=60))       # read-only idempotent tools, per caller

Each is a plain middleware (``async def __call__(call, call_next)``) and costs nothing to
requests it does not concern. Metrics with OpenTelemetry are :mod:`toolwire.telemetry`'s.
"""

from __future__ import annotations

from .cache import ResultCache
from .metrics import Metrics
from .size import ResultSizeCap

__all__ = ["Metrics", "ResultCache", "ResultSizeCap"]
