"""OpenTelemetry (toolwire.telemetry): one trace from client to server over every transport.

Spans and metrics go to the SDK's in-memory span exporter and metric reader; the stdio
server, a real subprocess, exports with the OTLP/HTTP exporter to a receiver this test runs
on 127.0.0.1 (decoded with opentelemetry-proto). The official ``mcp`` client's trace context
in ``_meta`` continues into the toolwire server's trace as well. Every message is checked
against the negotiated revision's schema.
"""

from __future__ import annotations

import asyncio
import http.server
import os
import queue
import subprocess
import sys
import textwrap
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import orjson
import pytest
from opentelemetry import baggage, propagate
from opentelemetry.proto.collector.metrics.v1 import metrics_service_pb2
from opentelemetry.proto.collector.trace.v1 import trace_service_pb2
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind, StatusCode

from toolwire import Server, ToolError
from toolwire.auth import AccessToken, ResourceServer, StaticTokens
from toolwire.telemetry import Telemetry
from toolwire.transports.http_trace import current_request

from http_server import serve_http
from mcp_spec import WireChecker
from wire import checked_client, modern_meta

pytestmark = pytest.mark.timeout(60)
TIMEOUT = 15.0
ARGUMENT_SECRET = "argument-value-7f3a91"
TOKEN_SECRET = "bearer-token-c41d07"
REVISIONS = ["2025-06-18", "2026-07-28"]


class Otel:
    """An SDK pipeline of its own (nothing global): spans in memory, metrics on demand."""

    def __init__(self) -> None:
        self.spans = InMemorySpanExporter()
        self.tracer_provider = TracerProvider()
        self.tracer_provider.add_span_processor(SimpleSpanProcessor(self.spans))
        self.reader = InMemoryMetricReader()
        self.meter_provider = MeterProvider(metric_readers=[self.reader])

    def telemetry(self, **options: Any) -> Telemetry:
        return Telemetry(
            tracer_provider=self.tracer_provider, meter_provider=self.meter_provider, **options
        )

    def span(self, name: str, kind: SpanKind) -> ReadableSpan:
        found = [s for s in self.spans.get_finished_spans() if s.name == name and s.kind == kind]
        assert len(found) == 1, [(s.name, s.kind) for s in self.spans.get_finished_spans()]
        return found[0]

    def points(self, metric: str) -> list[Any]:
        data = self.reader.get_metrics_data()
        return [
            point
            for resource in (data.resource_metrics if data else [])
            for scope in resource.scope_metrics
            for m in scope.metrics
            if m.name == metric
            for point in m.data.data_points
        ]


@pytest.fixture
def otel() -> Iterator[Otel]:
    pipeline = Otel()
    yield pipeline
    pipeline.tracer_provider.shutdown()
    pipeline.meter_provider.shutdown()


def build(telemetry: Telemetry, **options: Any) -> Server:
    mcp = Server("traced", **options)

    @mcp.tool()
    def add(a: int, b: int) -> int:
        """Add two numbers."""
        return a + b

    @mcp.tool()
    def seen_headers() -> dict[str, str]:
        """The trace headers and baggage this call's HTTP request carried."""
        http = current_request.get()
        headers = http.raw_headers if http is not None else {}
        found = {k: v for k, v in headers.items() if k in ("traceparent", "tracestate")}
        member = baggage.get_baggage("tenant")
        if member is not None:
            found["baggage.tenant"] = str(member)
        return found

    @mcp.tool()
    def check(text: str) -> str:
        """Fails with a message that names its argument."""
        raise ToolError(f"Rejected: {text}")

    mcp.add_middleware(telemetry)
    return mcp


def _parent_of(span: ReadableSpan) -> int | None:
    return span.parent.span_id if span.parent is not None else None


def test_nothing_imports_opentelemetry_until_telemetry_is_asked_for() -> None:
    code = (
        "import sys, toolwire\n"
        "from toolwire import Client, Server\n"
        "import toolwire.transports.http.app, toolwire.transports.http_client\n"
        "Client('python server.py')\n"
        "Server('quiet').http_app()\n"
        "print(sorted(m for m in sys.modules if m.startswith('opentelemetry')))\n"
    )
    found = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=TIMEOUT
    )
    assert found.returncode == 0, found.stderr
    assert found.stdout.strip() == "[]"


# ---------------------------------------------------------------- one trace over HTTP


@pytest.mark.parametrize("revision", REVISIONS)
async def test_http_call_is_one_trace_from_client_to_server(otel: Otel, revision: str) -> None:
    server = build(otel.telemetry())
    with serve_http(server) as url:
        async with checked_client(
            url, protocol_version=revision, telemetry=otel.telemetry()
        ) as client:
            assert (await client.call_tool("add", {"a": 2, "b": 3})).structured == {"result": 5}
            headers = (await client.call_tool("seen_headers", {})).structured
        assert client.checker.client_issues == []  # type: ignore[attr-defined]
    sent = otel.span("tools/call add", SpanKind.CLIENT)
    served = otel.span("tools/call add", SpanKind.SERVER)
    assert served.context.trace_id == sent.context.trace_id
    assert _parent_of(served) == sent.context.span_id
    assert served.status.status_code == StatusCode.UNSET
    for span in (sent, served):
        attributes = dict(span.attributes or {})
        assert attributes["mcp.method.name"] == "tools/call"
        assert attributes["gen_ai.tool.name"] == "add"
        assert attributes["gen_ai.operation.name"] == "execute_tool"
        assert attributes["mcp.protocol.version"] == revision
        assert attributes["network.transport"] == "tcp"
        assert attributes["jsonrpc.request.id"].isdigit()
        assert "error.type" not in attributes
    assert sent.attributes["server.address"] == "127.0.0.1"  # type: ignore[index]
    assert served.attributes["client.address"] == "127.0.0.1"  # type: ignore[index]
    if revision == "2025-06-18":  # a legacy session: both sides name it
        session = sent.attributes["mcp.session.id"]  # type: ignore[index]
        assert session and served.attributes["mcp.session.id"] == session  # type: ignore[index]
    else:
        assert "mcp.session.id" not in served.attributes  # type: ignore[operator]
    # The HTTP request carried the same context as the message's _meta.
    header_call = otel.span("tools/call seen_headers", SpanKind.CLIENT)
    assert headers is not None
    trace_id, span_id = headers["traceparent"].split("-")[1:3]
    assert int(trace_id, 16) == header_call.context.trace_id
    assert int(span_id, 16) == header_call.context.span_id
    # Every request the client sent is a span, and its server span is its child.
    for client_span in otel.spans.get_finished_spans():
        if client_span.kind != SpanKind.CLIENT or client_span.name == "initialize":
            continue
        (child,) = [
            s
            for s in otel.spans.get_finished_spans()
            if s.kind == SpanKind.SERVER and _parent_of(s) == client_span.context.span_id
        ]
        assert child.name == client_span.name


async def test_metrics_count_calls_errors_durations_and_work_in_flight(otel: Otel) -> None:
    started, release = threading.Event(), threading.Event()
    server = build(otel.telemetry())

    @server.tool()
    def slow() -> str:
        """Waits until the test lets it finish."""
        started.set()
        assert release.wait(TIMEOUT)
        return "done"

    def in_flight() -> int:
        return sum(
            p.value
            for p in otel.points("toolwire.server.active_requests")
            if p.attributes.get("mcp.method.name") == "tools/call"
        )

    with serve_http(server) as url:
        async with checked_client(
            url, protocol_version="2025-06-18", telemetry=otel.telemetry()
        ) as client:
            await client.call_tool("add", {"a": 1, "b": 1})
            await client.call_tool("add", {"a": 1, "b": 2})
            assert (await client.call_tool("check", {"text": "x"})).is_error
            with pytest.raises(Exception, match="Unknown tool"):
                await client.call_tool("nope", {})
            call = asyncio.ensure_future(client.call_tool("slow", {}))
            assert await asyncio.to_thread(started.wait, TIMEOUT)
            assert in_flight() == 1
            release.set()
            assert (await asyncio.wait_for(call, TIMEOUT)).text == "done"
            assert in_flight() == 0
    points = otel.points("mcp.server.operation.duration")

    def count(**attributes: str) -> int:
        return sum(
            p.count
            for p in points
            if all(p.attributes.get(k.replace("_", ".")) == v for k, v in attributes.items())
        )

    assert count(mcp_method_name="tools/call") == 5
    assert sum(p.count for p in points if p.attributes.get("gen_ai.tool.name") == "add") == 2
    tool_errors = [p for p in points if p.attributes.get("error.type") == "tool_error"]
    assert [p.attributes["gen_ai.tool.name"] for p in tool_errors] == ["check"]
    (unknown,) = [p for p in points if p.attributes.get("error.type") == "-32602"]
    assert unknown.attributes["rpc.response.status_code"] == "-32602"
    assert "gen_ai.tool.name" not in unknown.attributes  # made-up names make no series
    assert all(p.sum >= 0 for p in points)
    client_points = otel.points("mcp.client.operation.duration")
    assert sum(p.count for p in client_points if p.attributes["mcp.method.name"] == "tools/call")
    assert {p.attributes.get("error.type") for p in client_points} >= {"tool_error", "-32602"}
    failed = otel.span("tools/call nope", SpanKind.SERVER)
    assert failed.status.status_code == StatusCode.ERROR
    assert failed.attributes["error.type"] == "-32602"  # type: ignore[index]


@pytest.mark.parametrize("revision", REVISIONS)
async def test_the_server_span_is_current_while_a_tool_runs_inline_or_awaited(
    otel: Otel, revision: str
) -> None:
    """A sync tool answered at once and an async one that waits both run with their request's
    span current: a span the tool makes is its child. A layer of the user's own beside
    Telemetry (whose ToolError becomes the result) leaves the same trace."""
    server = build(otel.telemetry())
    tracer = otel.tracer_provider.get_tracer("tool")

    @server.tool(blocking=False)
    def inline_work() -> str:
        """Answered on the event loop."""
        with tracer.start_as_current_span("inline inner"):
            return "inline"

    @server.tool()
    async def awaited_work() -> str:
        """Waits before it answers."""
        await asyncio.sleep(0)
        with tracer.start_as_current_span("awaited inner"):
            return "awaited"

    async with checked_client(server, revision) as client:
        assert (await client.call_tool("inline_work", {})).text == "inline"
        assert (await client.call_tool("awaited_work", {})).text == "awaited"

        @server.add_middleware
        async def refuse_check(call: Any, call_next: Any) -> Any:
            if call.tool_name == "check":
                raise ToolError("refused by a layer")
            return await call_next(call)

        refused = await client.call_tool("check", {"text": "x"})
        assert refused.is_error and refused.text == "refused by a layer"
        assert (await client.call_tool("awaited_work", {})).text == "awaited"
    finished = otel.spans.get_finished_spans()
    for name, times in (("inline", 1), ("awaited", 2)):
        inner = [s for s in finished if s.name == f"{name} inner"]
        served = [s for s in finished if s.name == f"tools/call {name}_work"]
        assert len(inner) == len(served) == times, name
        assert {_parent_of(s) for s in inner} == {s.context.span_id for s in served}, name
    checked = otel.span("tools/call check", SpanKind.SERVER)
    assert checked.attributes["error.type"] == "tool_error"  # type: ignore[index]
    assert checked.attributes["mcp.protocol.version"] == revision  # type: ignore[index]


async def test_a_request_not_sampled_records_no_span_and_its_duration(otel: Otel) -> None:
    from opentelemetry.sdk.trace.sampling import ALWAYS_OFF

    unsampled = TracerProvider(sampler=ALWAYS_OFF)
    unsampled.add_span_processor(SimpleSpanProcessor(otel.spans))
    server = build(Telemetry(tracer_provider=unsampled, meter_provider=otel.meter_provider))
    async with checked_client(server, "2025-06-18") as client:
        assert (await client.call_tool("add", {"a": 2, "b": 3})).text == "5"
        assert (await client.call_tool("check", {"text": "x"})).is_error
    assert otel.spans.get_finished_spans() == ()
    points = otel.points("mcp.server.operation.duration")
    calls = [p for p in points if p.attributes.get("mcp.method.name") == "tools/call"]
    assert sum(p.count for p in calls) == 2
    assert {p.attributes.get("error.type") for p in calls} == {None, "tool_error"}
    unsampled.shutdown()


@pytest.mark.parametrize("record", [False, True])
async def test_no_argument_value_or_token_in_telemetry_by_default(otel: Otel, record: bool) -> None:
    auth = ResourceServer(
        "http://127.0.0.1/mcp",
        [],
        StaticTokens({TOKEN_SECRET: AccessToken(subject="alice", scopes=frozenset({"mcp"}))}),
    )
    server = build(otel.telemetry(record_arguments=record), auth=auth)
    with serve_http(server) as url:
        async with checked_client(
            url, protocol_version="2025-06-18", auth=TOKEN_SECRET, telemetry=otel.telemetry()
        ) as client:
            result = await client.call_tool("check", {"text": ARGUMENT_SECRET})
            assert result.is_error and ARGUMENT_SECRET in result.text
    served = otel.span("tools/call check", SpanKind.SERVER)
    assert served.attributes["enduser.id"] == "alice"  # type: ignore[index]
    assert served.attributes["error.type"] == "tool_error"  # type: ignore[index]
    dumped = "".join(span.to_json() for span in otel.spans.get_finished_spans())
    data = otel.reader.get_metrics_data()
    dumped += data.to_json() if data else ""
    assert TOKEN_SECRET not in dumped
    assert (ARGUMENT_SECRET in dumped) is record  # only when asked, and then it shows


# ---------------------------------------------------------------- trace context in headers


def _post(url: str, message: dict[str, Any], **headers: str) -> dict[str, Any]:
    params = message["params"]
    sent = {
        "Content-Type": "application/json",
        "Accept": "application/json",
        "MCP-Protocol-Version": "2026-07-28",
        "Mcp-Method": message["method"],
        "Mcp-Name": params["name"],
        **headers,
    }
    answer = httpx.post(url, content=orjson.dumps(message), headers=sent, timeout=TIMEOUT)
    assert answer.status_code == 200, answer.text
    return orjson.loads(answer.content)  # type: ignore[no-any-return]


async def test_server_span_takes_its_parent_from_meta_else_from_the_traceparent_header(
    otel: Otel,
) -> None:
    tracer = otel.tracer_provider.get_tracer("host")
    with tracer.start_as_current_span("in meta") as in_meta:
        meta: dict[str, str] = {}
        propagate.inject(meta, context=baggage.set_baggage("tenant", "acme"))
    with tracer.start_as_current_span("in header") as in_header:
        carrier: dict[str, str] = {}
        propagate.inject(carrier)
    checker = WireChecker("2026-07-28", strict_client=True)
    server = build(otel.telemetry())
    with serve_http(server) as url:
        only_header = {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "tools/call",
            "params": {"name": "add", "arguments": {"a": 1, "b": 2}, "_meta": modern_meta()},
        }
        both = {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "tools/call",
            "params": {"name": "seen_headers", "_meta": modern_meta(**meta)},
        }
        for message in (only_header, both):
            checker.client_sent(message)
            answer = await asyncio.to_thread(
                _post, url, message, traceparent=carrier["traceparent"]
            )
            checker.server_sent(answer)
    assert answer["result"]["structuredContent"]["baggage.tenant"] == "acme"
    from_header = otel.span("tools/call add", SpanKind.SERVER)
    assert from_header.context.trace_id == in_header.get_span_context().trace_id
    assert _parent_of(from_header) == in_header.get_span_context().span_id
    assert not from_header.links
    from_meta = otel.span("tools/call seen_headers", SpanKind.SERVER)
    assert from_meta.context.trace_id == in_meta.get_span_context().trace_id
    assert _parent_of(from_meta) == in_meta.get_span_context().span_id
    (link,) = from_meta.links  # the HTTP request's own context, linked
    assert link.context.span_id == in_header.get_span_context().span_id


async def test_an_http_span_around_the_app_parents_a_request_without_meta_and_is_linked_with_it(
    otel: Otel,
) -> None:
    """As with ASGI instrumentation: an HTTP server span is current when the request is
    handled. It is the parent when ``_meta`` has no trace context, a link when it has."""
    server = build(otel.telemetry())
    asgi = otel.tracer_provider.get_tracer("asgi")

    class Instrumented:
        def http_app(self, path: str, **options: Any) -> Any:
            app = server.http_app(path, **options)

            async def traced(scope: Any, receive: Any, send: Any) -> None:
                if scope["type"] != "http":
                    await app(scope, receive, send)
                    return
                with asgi.start_as_current_span("POST", kind=SpanKind.SERVER):
                    await app(scope, receive, send)

            return traced

    with otel.tracer_provider.get_tracer("host").start_as_current_span("host") as host:
        meta: dict[str, str] = {}
        propagate.inject(meta)
    checker = WireChecker("2026-07-28", strict_client=True)
    with serve_http(Instrumented()) as url:
        for mid, extra in ((1, {}), (2, meta)):
            message = {
                "jsonrpc": "2.0",
                "id": mid,
                "method": "tools/call",
                "params": {
                    "name": "add",
                    "arguments": {"a": mid, "b": 1},
                    "_meta": modern_meta(**extra),
                },
            }
            checker.client_sent(message)
            checker.server_sent(await asyncio.to_thread(_post, url, message))
    spans = otel.spans.get_finished_spans()
    posts = {s.context.span_id: s for s in spans if s.name == "POST"}
    without, with_meta = sorted(
        (s for s in spans if s.name == "tools/call add"),
        key=lambda s: s.attributes["jsonrpc.request.id"],  # type: ignore[index]
    )
    assert _parent_of(without) in posts and not without.links
    assert _parent_of(with_meta) == host.get_span_context().span_id
    (link,) = with_meta.links
    assert link.context.span_id in posts and link.context.span_id != _parent_of(without)


# ---------------------------------------------------------------- the official mcp client


@pytest.mark.parametrize(("mode", "revision"), [("legacy", "2025-11-25"), ("auto", "2026-07-28")])
async def test_official_mcp_client_trace_context_continues_into_the_server(
    otel: Otel, mode: str, revision: str
) -> None:
    from mcp import Client as SdkClient
    from mcp.client.streamable_http import streamable_http_client

    server = build(otel.telemetry())
    host = otel.tracer_provider.get_tracer("host")
    checker = WireChecker()
    with serve_http(server) as url:
        with host.start_as_current_span("host turn") as turn:
            meta: dict[str, str] = {}
            propagate.inject(meta)
            async with SdkClient(
                _Tapped(streamable_http_client(url), checker),
                mode=mode,
                read_timeout_seconds=TIMEOUT,
            ) as client:
                result = await client.call_tool("add", {"a": 20, "b": 22}, meta=meta)  # type: ignore[arg-type]
        assert result.structured_content == {"result": 42}
    assert checker.checked > 0 and checker.client_issues == []
    served = otel.span("tools/call add", SpanKind.SERVER)
    assert served.context.trace_id == turn.get_span_context().trace_id
    assert _parent_of(served) == turn.get_span_context().span_id
    assert served.attributes["mcp.protocol.version"] == revision  # type: ignore[index]


class _Tapped:
    """The SDK's transport, with each message checked on its way."""

    def __init__(self, inner: Any, checker: WireChecker) -> None:
        self.inner, self.checker = inner, checker

    async def __aenter__(self) -> tuple[Any, Any]:
        read, write = await self.inner.__aenter__()
        return _Stream(read, self.checker.server_sent), _Stream(write, self.checker.client_sent)

    async def __aexit__(self, *exc: Any) -> Any:
        return await self.inner.__aexit__(*exc)


class _Stream:
    def __init__(self, inner: Any, note: Any) -> None:
        self.inner, self.note = inner, note

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def _see(self, item: Any) -> Any:
        message = getattr(item, "message", None)
        if message is not None:
            self.note(message.model_dump(by_alias=True, exclude_none=True, mode="json"))
        return item

    async def receive(self) -> Any:
        return self._see(await self.inner.receive())

    async def send(self, item: Any) -> None:
        await self.inner.send(self._see(item))

    def __aiter__(self) -> _Stream:
        return self

    async def __anext__(self) -> Any:
        return self._see(await self.inner.__anext__())

    async def __aenter__(self) -> _Stream:
        await self.inner.__aenter__()
        return self

    async def __aexit__(self, *exc: Any) -> Any:
        return await self.inner.__aexit__(*exc)


# ---------------------------------------------------------------- stdio, OTLP export

STDIO_SERVER = """
    from opentelemetry import metrics, trace
    from opentelemetry.exporter.otlp.proto.http.metric_exporter import OTLPMetricExporter
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
    from opentelemetry.sdk.metrics import MeterProvider
    from opentelemetry.sdk.metrics.export import PeriodicExportingMetricReader
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor

    from toolwire import Server
    from toolwire.telemetry import Telemetry

    # The endpoint comes from OTEL_EXPORTER_OTLP_ENDPOINT, as in any deployment.
    tracing = TracerProvider()
    tracing.add_span_processor(SimpleSpanProcessor(OTLPSpanExporter()))
    trace.set_tracer_provider(tracing)
    reader = PeriodicExportingMetricReader(OTLPMetricExporter(), export_interval_millis=3_600_000)
    metrics.set_meter_provider(MeterProvider(metric_readers=[reader]))  # flushed at exit

    mcp = Server("traced")
    mcp.add_middleware(Telemetry())


    @mcp.tool()
    def add(a: int, b: int) -> int:
        return a + b


    mcp.run()
"""


class Receiver(http.server.ThreadingHTTPServer):
    """An OTLP/HTTP (protobuf) receiver on 127.0.0.1: what arrives goes to ``received``."""

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.received: queue.Queue[tuple[str, Any]] = queue.Queue()

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"


class _Handler(http.server.BaseHTTPRequestHandler):
    server: Receiver

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers["Content-Length"]))
        if self.path == "/v1/traces":
            request: Any = trace_service_pb2.ExportTraceServiceRequest.FromString(body)
            answer = trace_service_pb2.ExportTraceServiceResponse()
        else:
            request = metrics_service_pb2.ExportMetricsServiceRequest.FromString(body)
            answer = metrics_service_pb2.ExportMetricsServiceResponse()
        data = answer.SerializeToString()
        self.send_response(200)
        self.send_header("Content-Type", "application/x-protobuf")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)
        self.server.received.put((self.path, request))

    def log_message(self, *args: Any) -> None:
        pass


def _exported_spans(receiver: Receiver, name: str) -> Any:
    while True:
        path, request = receiver.received.get(timeout=TIMEOUT)
        if path != "/v1/traces":
            continue
        for resource in request.resource_spans:
            for scope in resource.scope_spans:
                for span in scope.spans:
                    if span.name == name:
                        return span


def _exported_metric(receiver: Receiver, name: str) -> Any:
    while True:
        path, request = receiver.received.get(timeout=TIMEOUT)
        if path != "/v1/metrics":
            continue
        for resource in request.resource_metrics:
            for scope in resource.scope_metrics:
                for metric in scope.metrics:
                    if metric.name == name:
                        return metric


async def test_stdio_call_is_one_trace_with_the_server_exporting_over_otlp(
    otel: Otel, tmp_path: Path
) -> None:
    script = tmp_path / "server.py"
    script.write_text(textwrap.dedent(STDIO_SERVER))
    receiver = Receiver()
    thread = threading.Thread(target=receiver.serve_forever, daemon=True)
    thread.start()
    env = {**os.environ, "OTEL_EXPORTER_OTLP_ENDPOINT": receiver.endpoint}
    try:
        async with checked_client(
            [sys.executable, str(script)],
            protocol_version="2025-06-18",
            env=env,
            telemetry=otel.telemetry(),
        ) as client:
            assert (await client.call_tool("add", {"a": 4, "b": 5})).structured == {"result": 9}
            served = await asyncio.to_thread(_exported_spans, receiver, "tools/call add")
        assert client.checker.client_issues == []  # type: ignore[attr-defined]
        # The server exits when the client closes its stdin; its meter provider flushes.
        metric = await asyncio.to_thread(
            _exported_metric, receiver, "mcp.server.operation.duration"
        )
    finally:
        receiver.shutdown()
        receiver.server_close()
        thread.join(TIMEOUT)
    sent = otel.span("tools/call add", SpanKind.CLIENT)
    assert served.trace_id == sent.context.trace_id.to_bytes(16, "big")
    assert served.parent_span_id == sent.context.span_id.to_bytes(8, "big")
    assert served.kind == served.SPAN_KIND_SERVER
    attributes = {a.key: a.value.string_value for a in served.attributes}
    assert attributes["mcp.method.name"] == "tools/call"
    assert attributes["gen_ai.tool.name"] == "add"
    assert attributes["mcp.protocol.version"] == "2025-06-18"
    assert sent.attributes["network.transport"] == "pipe"  # type: ignore[index]
    assert metric.unit == "s"
    methods = {
        a.value.string_value
        for point in metric.histogram.data_points
        for a in point.attributes
        if a.key == "mcp.method.name"
    }
    assert "tools/call" in methods
