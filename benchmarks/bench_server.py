"""toolwire server for the shared MCP benchmark harness (see ../shared/bench/README.md).

Usage:  python bench_server.py stdio | http PORT
Environment: BENCH_TOOLS=N registers N generated tools; BENCH_ASYNC_ADD=1 makes ``add`` async;
BENCH_TELEMETRY=1 adds toolwire.telemetry's middleware, with the OpenTelemetry SDK's tracer and
meter (spans dropped by a no-op exporter, metrics aggregated), to measure what it costs;
BENCH_SAMPLING=0.01 samples that share of traces (default: all).
The harness's ``_toolgen`` module is found through BENCH_DIR (default: ../shared/bench/servers
beside this repository).
"""

import os
import sys

from _harness import serve_http, tg

generated = tg.make_tools(tg.tool_count())  # built before the clock starts, as for every peer

from toolwire import Server  # noqa: E402

t0 = tg.now()
server = Server("bench-toolwire")
t1 = tg.now()
server.add_tool(tg.add_tool())
for fn in generated:
    server.add_tool(fn)
tg.report(t0, t1, tg.now(), len(generated) + 1)

if os.environ.get("BENCH_TELEMETRY") == "1":
    from opentelemetry.sdk.metrics import MeterProvider
    from opentelemetry.sdk.metrics.export import InMemoryMetricReader
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor, SpanExporter, SpanExportResult

    from toolwire.telemetry import Telemetry

    class Dropped(SpanExporter):
        def export(self, spans: object) -> SpanExportResult:
            return SpanExportResult.SUCCESS

    from opentelemetry.sdk.trace.sampling import ParentBased, TraceIdRatioBased

    ratio = float(os.environ.get("BENCH_SAMPLING", "1"))
    tracing = TracerProvider(sampler=ParentBased(TraceIdRatioBased(ratio)))
    tracing.add_span_processor(SimpleSpanProcessor(Dropped()))
    meters = MeterProvider(metric_readers=[InMemoryMetricReader()])
    server.add_middleware(Telemetry(tracer_provider=tracing, meter_provider=meters))

if __name__ == "__main__":
    mode = sys.argv[1] if len(sys.argv) > 1 else "stdio"
    if mode == "stdio":
        server.run()
    elif mode == "http":
        serve_http(server.http_app("/mcp", json_response=tg.json_response()), int(sys.argv[2]))
    else:
        raise SystemExit(f"unknown mode {mode!r}")
