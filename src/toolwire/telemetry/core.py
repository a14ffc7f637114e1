"""The :class:`Telemetry` middleware (server side) and request wrapper (client side).

Names follow the OpenTelemetry semantic conventions for MCP: a span per request, named
``"{mcp.method.name} {target}"`` (the tool or prompt name, when there is one), of kind
SERVER on the server and CLIENT on the client, with ``error.type`` set (and the span status
ERROR) when the request failed: the JSON-RPC error code as a string, ``tool_error`` for a
``tools/call`` result with ``isError``, ``timeout`` for a client deadline, else the
exception's class name. Trace context travels in ``params._meta`` (``traceparent``,
``tracestate``, ``baggage``, unprefixed as the conventions and the 2026-07-28 revision say);
on HTTP the server falls back to the request's ``traceparent`` header when ``_meta`` has
none, and links the HTTP context when both are present and differ.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Iterator, Mapping
from typing import Any
from urllib.parse import urlsplit

import orjson
from opentelemetry import context as otel_context
from opentelemetry import metrics, propagate, trace
from opentelemetry.metrics import CallbackOptions, Observation
from opentelemetry.propagators.textmap import Getter
from opentelemetry.trace import Link, SpanKind, Status, StatusCode

from .. import __version__
from ..errors import ClientTimeout, RPCError, ServerError
from ..transports.http_trace import current_request

JSON = dict[str, Any]

# Seconds; the boundaries the conventions advise for the operation durations.
DURATION_BUCKETS = [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300]
TARGETS = {"tools/call": "gen_ai.tool.name", "prompts/get": "gen_ai.prompt.name"}
RESOURCE_METHODS = ("resources/read", "resources/subscribe", "resources/unsubscribe")
# The metric's attributes: never one that names a resource (a series per URI).
METRIC_KEYS = frozenset(
    {
        "mcp.method.name",
        "gen_ai.tool.name",
        "gen_ai.prompt.name",
        "gen_ai.operation.name",
        "mcp.protocol.version",
        "network.transport",
        "network.protocol.name",
        "error.type",
        "rpc.response.status_code",
    }
)


class _MetaGetter(Getter[Mapping[str, Any]]):
    """Reads trace context from ``_meta`` or headers: string values only (a malformed one,
    say a number, is no context rather than an error)."""

    def get(self, carrier: Mapping[str, Any], key: str) -> list[str] | None:
        value = carrier.get(key)
        return [value] if isinstance(value, str) else None

    def keys(self, carrier: Mapping[str, Any]) -> list[str]:
        return [key for key, value in carrier.items() if isinstance(value, str)]


GETTER = _MetaGetter()


class Telemetry:
    """OpenTelemetry for a server (``mcp.add_middleware(Telemetry())``) or a client
    (``Client(target, telemetry=Telemetry())``, or ``telemetry=True`` for the defaults).

    ``tracer_provider`` / ``meter_provider``: where spans and metrics go (default: the
    global providers, as the OpenTelemetry SDK or its auto-configuration sets them).
    ``record_arguments`` / ``record_results`` add ``gen_ai.tool.call.arguments`` /
    ``gen_ai.tool.call.result`` (JSON) to ``tools/call`` spans: off by default, since
    they may hold personal data or secrets. ``record_caller`` adds ``enduser.id`` (the
    verified token's subject or client id) on servers with authentication.
    """

    def __init__(
        self,
        *,
        tracer_provider: Any = None,
        meter_provider: Any = None,
        record_arguments: bool = False,
        record_results: bool = False,
        record_caller: bool = True,
    ) -> None:
        self.tracer = trace.get_tracer("toolwire", __version__, tracer_provider=tracer_provider)
        meter = metrics.get_meter("toolwire", __version__, meter_provider=meter_provider)
        self.server_duration = meter.create_histogram(
            "mcp.server.operation.duration",
            unit="s",
            description="MCP request duration as observed on the receiver from the time it "
            "was received until the result or error is sent.",
            explicit_bucket_boundaries_advisory=DURATION_BUCKETS,
        )
        self.client_duration = meter.create_histogram(
            "mcp.client.operation.duration",
            unit="s",
            description="The duration of the MCP request as observed on the sender from the "
            "time it was sent until the response is received.",
            explicit_bucket_boundaries_advisory=DURATION_BUCKETS,
        )
        # Counted here, read when metrics are collected: one measurement less per request.
        self.active: dict[str, int] = {}
        meter.create_observable_up_down_counter(
            "toolwire.server.active_requests",
            callbacks=[self._observe_active],
            unit="{request}",
            description="MCP requests being handled by the server.",
        )
        self.record_arguments = record_arguments
        self.record_results = record_results
        self.record_caller = record_caller

    # ------------------------------------------------------------ server

    # Called with the result itself when a request is answered at once (middleware.py):
    # no task and no coroutine for a request that needs none.
    answers_inline = True

    def __call__(self, call: Any, call_next: Callable[[Any], Any]) -> Any:
        """The server middleware: one SERVER span and one duration per request."""
        method: str = call.method
        params = call.params
        request = call.request
        http = current_request.get()
        headers = http.raw_headers if http is not None else None
        meta = params.get("_meta")
        parent, links = _parent(meta if isinstance(meta, dict) else None, headers)
        # What a sampler may look at; the rest only on a span that is recorded.
        attributes = _request_attributes(method, params)
        target = attributes.get(TARGETS.get(method, ""))
        measured = {key: value for key, value in attributes.items() if key in METRIC_KEYS}
        measured["mcp.protocol.version"] = request.features.revision
        if headers is not None:
            measured["network.transport"] = "tcp"
            measured["network.protocol.name"] = "http"
        span = self.tracer.start_span(
            f"{method} {target}" if target else method,
            context=parent,
            kind=SpanKind.SERVER,
            attributes=attributes,
            links=links,
            record_exception=False,
            set_status_on_exception=False,
        )
        if span.is_recording():
            span.set_attributes(self._recorded(call, measured, headers))
        traced = trace.set_span_in_context(span, parent)
        self.active[method] = self.active.get(method, 0) + 1
        started = time.perf_counter()
        token = otel_context.attach(traced)
        try:
            outcome = call_next(call)
        except BaseException as exc:
            self._ended(span, measured, started, method, None, exc)
            raise
        finally:
            otel_context.detach(token)
        if isinstance(outcome, dict):
            self._ended(span, measured, started, method, outcome, None)
            return outcome
        # Counted again once awaited: a request cancelled before its task ever ran leaves
        # no count behind (its span is dropped unended).
        self.active[method] -= 1
        return self._awaited(span, measured, started, method, outcome, traced)

    async def _awaited(
        self,
        span: Any,
        measured: JSON,
        started: float,
        method: str,
        outcome: Awaitable[JSON],
        traced: Any,
    ) -> JSON:
        self.active[method] = self.active.get(method, 0) + 1
        token = otel_context.attach(traced)  # the span stays current while it is awaited
        try:
            result = await outcome
        except BaseException as exc:
            self._ended(span, measured, started, method, None, exc)
            raise
        finally:
            otel_context.detach(token)
        self._ended(span, measured, started, method, result, None)
        return result

    def _recorded(self, call: Any, measured: JSON, headers: dict[str, str] | None) -> JSON:
        """The attributes of a recorded span beyond those it was started with."""
        request = call.request
        attributes: JSON = {
            "jsonrpc.request.id": str(request.id),
            "mcp.protocol.version": measured["mcp.protocol.version"],
        }
        if headers is not None:
            attributes["network.transport"] = "tcp"
            attributes["network.protocol.name"] = "http"
            session_id = headers.get("mcp-session-id")
            if session_id:
                attributes["mcp.session.id"] = session_id
        peer = getattr(call.connection, "peer", None)
        if peer:
            attributes["client.address"] = peer
        if self.record_caller and request.identity is not None:
            caller = getattr(request.identity, "subject", None) or getattr(
                request.identity, "client_id", None
            )
            if caller:
                attributes["enduser.id"] = str(caller)
        if self.record_arguments and call.method == "tools/call":
            attributes["gen_ai.tool.call.arguments"] = _json(call.params.get("arguments") or {})
        return attributes

    def _ended(
        self,
        span: Any,
        measured: JSON,
        started: float,
        method: str,
        result: JSON | None,
        failure: BaseException | None,
    ) -> None:
        """End the span and record the duration: ``result``, or ``failure`` (a JSON-RPC
        error, a cancellation, a failure the server masks)."""
        error_type = None
        if isinstance(failure, RPCError):
            error_type = _refused(span, measured, failure.code, failure.message)
        elif failure is not None:
            error_type = type(failure).__qualname__
            span.set_status(Status(StatusCode.ERROR))
        elif method == "tools/call" and isinstance(result, dict):
            error_type = self._tool_outcome(span, result)
        if error_type is not None:
            span.set_attribute("error.type", error_type)
            measured["error.type"] = error_type
        span.end()
        self.server_duration.record(time.perf_counter() - started, measured)
        self.active[method] -= 1

    def _tool_outcome(self, span: Any, result: JSON) -> str | None:
        """A ``tools/call`` result: ``tool_error`` when the tool failed (``isError``), else
        None, its result recorded when ``record_results`` asks."""
        if result.get("isError") is True:
            span.set_status(Status(StatusCode.ERROR))
            return "tool_error"
        if self.record_results:
            span.set_attribute("gen_ai.tool.call.result", _json(result))
        return None

    def _observe_active(self, options: CallbackOptions) -> Iterator[Observation]:
        for method, count in list(self.active.items()):
            yield Observation(count, {"mcp.method.name": method})

    # ------------------------------------------------------------ client

    def wrap_client(self, client: Any) -> None:
        """Trace every request ``client`` sends (what ``Client(telemetry=...)`` calls)."""
        send = client._request

        async def traced(
            method: str,
            params: JSON | None = None,
            timeout: float | None = None,
            *,
            on_let_go: Any = None,
        ) -> JSON:
            return await self._client_request(client, send, method, params, timeout, on_let_go)

        client._request = traced

    async def _client_request(
        self,
        client: Any,
        send: Callable[..., Awaitable[JSON]],
        method: str,
        params: JSON | None,
        timeout: float | None,
        on_let_go: Any = None,
    ) -> JSON:
        params = dict(params or {})
        attributes = _request_attributes(method, params)
        target = attributes.get(TARGETS.get(method, ""))
        mid = next(client._ids)
        attributes["jsonrpc.request.id"] = str(mid)
        version = client.protocol_version or client.requested_version
        if version:
            attributes["mcp.protocol.version"] = version
        attributes.update(_client_transport(client))
        if self.record_arguments and method == "tools/call":
            attributes["gen_ai.tool.call.arguments"] = _json(params.get("arguments") or {})
        measured = {key: attributes[key] for key in METRIC_KEYS if key in attributes}
        started = time.perf_counter()
        with self.tracer.start_as_current_span(
            f"{method} {target}" if target else method,
            kind=SpanKind.CLIENT,
            attributes=attributes,
            record_exception=False,
            set_status_on_exception=False,
        ) as span:
            meta = dict(params.get("_meta") or {})
            propagate.inject(meta)  # the current context: this span, and any baggage
            params["_meta"] = meta
            error_type = None
            try:
                result = await send(method, params, timeout, mid=mid, on_let_go=on_let_go)
            except ServerError as exc:
                error_type = _refused(span, measured, exc.code, exc.message)
                raise
            except ClientTimeout:
                error_type = "timeout"
                span.set_status(Status(StatusCode.ERROR))
                raise
            except BaseException as exc:
                error_type = type(exc).__qualname__
                span.set_status(Status(StatusCode.ERROR))
                raise
            else:
                if method == "tools/call":
                    error_type = self._tool_outcome(span, result)
                return result
            finally:
                if method == "initialize":  # the session it opened, if any
                    attributes = _client_transport(client)
                    if "mcp.session.id" in attributes:
                        span.set_attribute("mcp.session.id", attributes["mcp.session.id"])
                if error_type is not None:
                    span.set_attribute("error.type", error_type)
                    measured["error.type"] = error_type
                self.client_duration.record(time.perf_counter() - started, measured)


def _refused(span: Any, measured: JSON, code: int, message: str) -> str:
    """A request answered with a JSON-RPC error: its code is the error type (on the span and
    the metric, which then leaves the made-up names out). Returns the error type."""
    error_type = str(code)
    span.set_attribute("rpc.response.status_code", error_type)
    measured["rpc.response.status_code"] = error_type
    _unnamed(measured)
    span.set_status(Status(StatusCode.ERROR, message))
    return error_type


def _parent(meta: JSON | None, headers: dict[str, str] | None) -> tuple[Any, list[Link]]:
    """The remote parent and the links of a server span. The parent is the context in
    ``_meta``; without one, the ambient context (an HTTP server span of ASGI
    instrumentation, say: None is returned, the current context is used), else the HTTP
    request's ``traceparent`` header. With ``_meta``, the ambient or HTTP context is linked
    when it differs (MCP and transport contexts are independent)."""
    if meta is not None and not isinstance(meta.get("traceparent"), str):
        meta = None  # no trace context in it
    if meta is None and (headers is None or "traceparent" not in headers):
        return None, []  # the ambient context, whatever it is, is the parent
    ambient = trace.get_current_span().get_span_context()
    if meta is not None:
        parent = propagate.extract(meta, getter=GETTER)
        remote = trace.get_current_span(parent).get_span_context()
        carried = ambient
        if not carried.is_valid and headers is not None and "traceparent" in headers:
            carried = trace.get_current_span(
                propagate.extract(headers, getter=GETTER)
            ).get_span_context()
        links = [Link(carried)] if carried.is_valid and carried != remote else []
        return parent, links
    if not ambient.is_valid and headers is not None and "traceparent" in headers:
        return propagate.extract(headers, getter=GETTER), []
    return None, []


def _unnamed(measured: JSON) -> None:
    """A request refused by the protocol (an unknown tool, say) may name anything: its
    metric series leaves the name out, so made-up names cannot multiply the series."""
    measured.pop("gen_ai.tool.name", None)
    measured.pop("gen_ai.prompt.name", None)


def _request_attributes(method: str, params: JSON) -> JSON:
    attributes: JSON = {"mcp.method.name": method}
    key = TARGETS.get(method)
    if key is not None:
        name = params.get("name")
        if isinstance(name, str):
            attributes[key] = name
        if method == "tools/call":
            attributes["gen_ai.operation.name"] = "execute_tool"
    elif method in RESOURCE_METHODS:
        uri = params.get("uri")
        if isinstance(uri, str):
            attributes["mcp.resource.uri"] = uri
    return attributes


def _client_transport(client: Any) -> JSON:
    """``network.*``, ``server.*`` and ``mcp.session.id`` of a client's connection."""
    target = client.target
    if isinstance(target, str) and target.startswith(("http://", "https://")):
        url = urlsplit(target)
        attributes: JSON = {"network.transport": "tcp", "network.protocol.name": "http"}
        if url.hostname:
            attributes["server.address"] = url.hostname
            attributes["server.port"] = url.port or (443 if url.scheme == "https" else 80)
        session_id = getattr(client._transport, "session_id", None)
        if session_id:
            attributes["mcp.session.id"] = session_id
        return attributes
    if isinstance(target, (str, list, tuple)):  # a command: stdio
        return {"network.transport": "pipe"}
    return {}


def _json(value: Any) -> str:
    return orjson.dumps(value, default=str).decode()
