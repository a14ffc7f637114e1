"""OpenTelemetry traces and metrics for servers and clients (``pip install toolwire[otel]``).

::

    from toolwire.telemetry import Telemetry

    mcp.add_middleware(Telemetry())          # a span and metrics for every request served
    Client(target, telemetry=True)           # a span for every request sent, its trace
                                             # context in params._meta (and HTTP headers)

Spans, attributes and metrics follow the OpenTelemetry semantic conventions for MCP
(``mcp.method.name``, ``gen_ai.tool.name``, ``mcp.session.id``, ``error.type`` ...;
``mcp.server.operation.duration`` and ``mcp.client.operation.duration``). Argument values
and results are never recorded unless asked (``record_arguments``, ``record_results``).
This package imports OpenTelemetry; ``import toolwire`` never imports it.
"""

from __future__ import annotations

from .core import Telemetry

__all__ = ["Telemetry"]
