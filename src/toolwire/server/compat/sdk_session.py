"""The official SDK's ``ctx.session`` and ``ctx.request_context``, on toolwire's Context.

Code written for the SDK's decorator server (``MCPServer`` in ``mcp`` 2.x, ``FastMCP`` in
1.x) talks back to the client through ``ctx.session`` (a ``ServerSession``) and reads the
request through ``ctx.request_context``::

    @mcp.tool()
    async def summarize(text: str, ctx: Context[ServerSession, AppContext]) -> str:
        result = await ctx.session.create_message(
            messages=[SamplingMessage(role="user", content=TextContent(type="text", text=text))],
            max_tokens=100,
        )
        await ctx.session.send_log_message("info", "summarized")
        db = ctx.request_context.lifespan_context.db
        ...

Each method does what the Context already does (:mod:`toolwire.server.context`), so it
follows the negotiated revision as every other Context call: on 2026-07-28 a question to
the client is an ``InputRequiredResult`` round, and log messages go only to requests that
asked for them. Results read as the SDK's models do: ``result.content.text``,
``result.stop_reason``, ``client_params.client_info.name`` (attributes in snake_case or
by their wire names, and as dict keys).

Where toolwire differs on purpose: ``send_resource_updated(uri)`` reaches the sessions
subscribed to ``uri`` (``resources/subscribe``, or a 2026-07-28 listen stream), as the
protocol says, where the SDK sends it to the caller whether subscribed or not.

Loaded on first use of ``ctx.session`` or ``ctx.request_context``.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from ...errors import ToolError
from ..inputs import ElicitationResult, sampling_result

# The Context (toolwire.server.context, which loads this module) is typed Any here.
Context = Any

__all__ = ["Fields", "RequestContext", "ServerSession"]

JSON = dict[str, Any]

_SNAKE = re.compile(r"_([a-z])")


def _camel(name: str) -> str:
    return _SNAKE.sub(lambda m: m.group(1).upper(), name)


class Fields(dict[str, Any]):
    """A JSON object whose keys read as attributes too, by their wire name
    (``progressToken``) or in snake_case (``progress_token``), as the SDK's models read;
    nested objects read the same way."""

    def __getattr__(self, name: str) -> Any:
        for key in (name, _camel(name)):
            if key in self:
                return self[key]
        if name.startswith("__"):
            raise AttributeError(name)
        return None  # an optional field the peer did not send, as the SDK's models give it

    def get(self, key: str, default: Any = None) -> Any:
        if key in self:
            return self[key]
        return super().get(_camel(key), default)

    def __getitem__(self, key: str) -> Any:
        value = super().__getitem__(key)
        return fields(value)


def fields(value: Any) -> Any:
    """``value`` with its JSON objects readable as :class:`Fields`."""
    if isinstance(value, Fields):
        return value
    if isinstance(value, Mapping):
        return Fields(value)
    if isinstance(value, list):
        return [fields(item) for item in value]
    return value


def wire(value: Any) -> Any:
    """A protocol object as wire JSON: toolwire's ``types``, the SDK's models, dicts."""
    if hasattr(value, "to_wire"):
        return value.to_wire()
    if hasattr(value, "model_dump"):
        return value.model_dump(mode="json", by_alias=True, exclude_none=True)
    if isinstance(value, Mapping):
        return {k: wire(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [wire(item) for item in value]
    return value


def _covers(declared: Any, wanted: Any) -> bool:
    """Every key of ``wanted`` (recursively) is declared."""
    if not isinstance(wanted, dict):
        return True
    if not isinstance(declared, dict):
        return False
    return all(key in declared and _covers(declared[key], sub) for key, sub in wanted.items())


class ServerSession:
    """The SDK's ``ServerSession`` for one request: ``ctx.session``.

    Annotating a tool's context ``Context[ServerSession, AppContext]`` (as the SDK's 1.x
    examples do) still injects toolwire's Context.
    """

    def __init__(self, context: Context) -> None:
        self._ctx = context

    # ------------------------------------------------------------ who is calling

    @property
    def protocol_version(self) -> str:
        return str(self._ctx.protocol_version)

    @property
    def client_params(self) -> Fields:
        """What the client said of itself: ``capabilities``, ``client_info``,
        ``protocol_version``."""
        return Fields(
            protocolVersion=self._ctx.protocol_version,
            capabilities=Fields(self._ctx.client_capabilities),
            clientInfo=Fields(self._ctx.client_info),
        )

    @property
    def client_capabilities(self) -> Fields:
        return Fields(self._ctx.client_capabilities)

    def check_client_capability(self, capability: Any) -> bool:
        """The client declared every capability in ``capability`` (a ``ClientCapabilities``
        or its dict)."""
        return _covers(self._ctx.client_capabilities, wire(capability))

    @property
    def can_send_request(self) -> bool:
        """A request to the client can be delivered (legacy sessions; 2026-07-28 asks in
        ``InputRequiredResult`` rounds instead, which the Context methods do)."""
        return not self._ctx._features.modern

    # ------------------------------------------------------------ questions for the client

    async def create_message(
        self,
        messages: list[Any],
        *,
        max_tokens: int,
        system_prompt: str | None = None,
        include_context: str | None = None,
        temperature: float | None = None,
        stop_sequences: list[str] | None = None,
        metadata: JSON | None = None,
        model_preferences: Any = None,
        tools: list[Any] | None = None,
        tool_choice: Any = None,
        related_request_id: Any = None,
    ) -> Fields:
        """``sampling/createMessage``: the client's model answers (``result.content``,
        ``result.model``, ``result.stop_reason``)."""
        ctx = self._ctx
        ctx._require(
            "sampling", "2024-11-05", "The client offers no model to ask (no sampling support)"
        )
        if tools is not None or tool_choice is not None:
            ctx._require(
                "sampling",
                "2025-11-25",
                "The client's model cannot use tools (no sampling.tools support)",
                mode="tools",
            )
        params: JSON = {"messages": wire(messages), "maxTokens": max_tokens}
        for key, value in (
            ("systemPrompt", system_prompt),
            ("includeContext", include_context),
            ("temperature", temperature),
            ("stopSequences", stop_sequences),
            ("metadata", metadata),
            ("modelPreferences", wire(model_preferences)),
            ("tools", wire(tools)),
            ("toolChoice", wire(tool_choice)),
        ):
            if value is not None:
                params[key] = value
        answer = await ctx._ask("sample", "sampling/createMessage", params, None)
        ctx._understood(sampling_result, answer)  # refuses an answer that is not one
        return Fields(answer)

    async def elicit_form(
        self, message: str, requested_schema: Any, related_request_id: Any = None
    ) -> ElicitationResult:
        """Ask the user to fill in ``requested_schema`` (a JSON schema dict, or a pydantic
        model class): ``result.action`` and ``result.content``."""
        answer: ElicitationResult = await self._ctx.elicit(message, requested_schema)
        return answer

    async def elicit(
        self, message: str, requested_schema: Any, related_request_id: Any = None
    ) -> ElicitationResult:
        """The SDK's older name of :meth:`elicit_form`."""
        return await self.elicit_form(message, requested_schema)

    async def elicit_url(
        self, message: str, url: str, elicitation_id: str, related_request_id: Any = None
    ) -> ElicitationResult:
        """Ask the user to go to ``url``; ``elicitation_id`` names this elicitation."""
        answer: ElicitationResult = await self._ctx.elicit_url(
            message, url, elicitation_id=elicitation_id
        )
        return answer

    async def list_roots(self) -> Fields:
        """The client's roots: ``result.roots``, each with ``uri`` and ``name``."""
        roots = await self._ctx.list_roots()
        return Fields(roots=[Fields(uri=r.uri, name=r.name) for r in roots])

    async def send_ping(self) -> Fields:
        """Ping the client (legacy sessions: 2026-07-28 servers send no requests)."""
        if self._ctx._features.modern:
            raise ToolError(
                "send_ping(): on 2026-07-28 a server sends the client no requests; "
                "the client pings the server instead"
            )
        await self._ctx._connection.request("ping", {}, related=self._ctx.request_id)
        return Fields()

    async def send_request(
        self, request: Any, result_type: Any = None, *args: Any, **options: Any
    ) -> Any:
        """Send the client a request (a ``ServerRequest`` model or ``{"method", "params"}``);
        the result as ``result_type`` when given."""
        sent = wire(request)
        answer = await self._ctx._ask("request", sent["method"], sent.get("params") or {}, None)
        if result_type is not None and hasattr(result_type, "model_validate"):
            return result_type.model_validate(answer)
        return fields(answer)

    # ------------------------------------------------------------ notifications

    async def send_log_message(
        self, level: str, data: Any, logger: str | None = None, related_request_id: Any = None
    ) -> None:
        """``notifications/message``, as ``ctx.log(level, data)``."""
        self._ctx.log(level, data, logger_name=logger)

    async def report_progress(
        self, progress: float, total: float | None = None, message: str | None = None
    ) -> None:
        self._ctx.report_progress(progress, total, message)

    async def send_progress_notification(
        self,
        progress_token: str | int,
        progress: float,
        total: float | None = None,
        message: str | None = None,
        related_request_id: Any = None,
    ) -> None:
        """``notifications/progress`` for ``progress_token``."""
        params: JSON = {"progressToken": progress_token, "progress": progress}
        if total is not None:
            params["total"] = total
        if message is not None and self._ctx._features.audio:  # message since 2025-03-26
            params["message"] = message
        self._ctx._notify("notifications/progress", params)

    async def send_notification(self, notification: Any, related_request_id: Any = None) -> None:
        """Send a notification (a ``ServerNotification`` model or ``{"method", "params"}``)."""
        sent = wire(notification)
        self._ctx._notify(sent["method"], sent.get("params") or {})

    async def send_resource_updated(self, uri: Any) -> None:
        """``notifications/resources/updated`` to the sessions subscribed to ``uri``."""
        await self._ctx.notify_resource_updated(uri)

    async def send_resource_list_changed(self) -> None:
        await self._ctx.notify_resources_changed()

    async def send_tool_list_changed(self) -> None:
        await self._ctx.notify_tools_changed()

    async def send_prompt_list_changed(self) -> None:
        await self._ctx.notify_prompts_changed()

    async def send_elicit_complete(
        self, elicitation_id: str, related_request_id: Any = None
    ) -> None:
        """``notifications/elicitation/complete`` (2025-11-25; no such notification
        exists in the other revisions, where nothing is sent)."""
        if self._ctx.protocol_version == "2025-11-25":
            self._ctx._notify(
                "notifications/elicitation/complete", {"elicitationId": elicitation_id}
            )


class RequestContext:
    """The SDK's ``ctx.request_context``: ``request_id``, ``meta`` (the request's ``_meta``,
    read as ``meta.progressToken`` or ``meta.get("progress_token")``), ``session``,
    ``lifespan_context``, ``request`` (the HTTP request, None on stdio) and
    ``protocol_version``; the Context's other attributes read through it."""

    def __init__(self, context: Context) -> None:
        self._ctx = context
        self.request_id = context.request_id
        self.meta = Fields(context.meta)
        self.protocol_version = context.protocol_version

    @property
    def session(self) -> ServerSession:
        return ServerSession(self._ctx)

    @property
    def lifespan_context(self) -> Any:
        return self._ctx.lifespan_context

    @property
    def close_sse_stream(self) -> Callable[[], Awaitable[None]] | None:
        return sse_closer(self._ctx)

    @property
    def request(self) -> Any:
        return self._ctx.http

    def __getattr__(self, name: str) -> Any:
        # Anything else is the Context's (``ctx.request_context`` was the Context itself).
        return getattr(self._ctx, name)


def sse_closer(context: Context) -> Callable[[], Awaitable[None]] | None:
    """The SDK's ``close_sse_stream`` callback: ends the HTTP connection that carries the
    call's SSE stream, the client resuming with ``Last-Event-ID``; None where the transport
    has no such stream (stdio, memory)."""
    if context._connection.close_sse is None:
        return None
    closer: Callable[[], Awaitable[None]] = context.close_sse_stream
    return closer


def completion_arguments(
    ref: JSON, name: str, value: str, context: dict[str, str] | None
) -> tuple[Any, Any, Any]:
    """``(ref, argument, context)`` for an SDK-style completion handler: toolwire's
    ``types`` models where they exist (``PromptReference``, ``ResourceTemplateReference``,
    ``CompletionArgument``, ``CompletionContext``), else objects reading the same."""
    from ... import types  # lazy: the full MCP types, only for the SDK-style API

    def made(model: str, data: JSON) -> Any:
        cls = getattr(types, model, None)
        if cls is not None:
            try:
                return cls.model_validate(data)
            except ValueError:  # (pydantic's ValidationError) a shape the model refuses
                pass
        return Fields(data)

    kind = "PromptReference" if ref.get("type") == "ref/prompt" else "ResourceTemplateReference"
    return (
        made(kind, ref),
        made("CompletionArgument", {"name": name, "value": value}),
        None if context is None else made("CompletionContext", {"arguments": context}),
    )
