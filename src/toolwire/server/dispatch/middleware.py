"""Middleware: functions that wrap the handling of requests.

::

    @mcp.add_middleware
    async def timing(call, call_next):
        started = time.perf_counter()
        try:
            return await call_next(call)
        finally:
            log.info("%s %s took %.1f ms", call.method, call.tool_name, ...)

A middleware gets the :class:`Call` and ``call_next``; it may change ``call.params`` (for
example the arguments of a ``tools/call``), return its own result instead of calling on, or
raise ``RPCError`` to answer with a protocol error. On ``tools/call`` a ``ToolError`` it
raises becomes an ``isError`` result with that text (what the model should read, e.g. a rate
limit), which the outer layers see as the result. Results are dicts in the shape of the
newest revision; a ``tools/call`` result is shaped for the client's revision after the
middleware (a 2024-11-05 client never sees ``structuredContent`` a layer added). The first
middleware added is the outermost. ``initialize`` is never passed through middleware.

A middleware object whose ``answers_inline`` attribute is true (toolwire's ``Telemetry``)
is a plain function instead: its ``call_next(call)`` gives the result itself when the
request was answered at once (a sync tool run inline, a listing), else an awaitable of it,
and it returns the same. When every layer is such, a request answered at once goes through
the middleware with no task and no coroutine, as it does with none.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import orjson

from ...errors import RPCError, ToolError
from ...protocol import shaping
from ..request import Request
from ..session import ServerConnection

JSON = dict[str, Any]
Handler = Callable[["ServerConnection", "Request"], Any]


@dataclass
class Call:
    """One request on its way through the middleware."""

    method: str
    params: JSON
    request: Request
    connection: ServerConnection

    @property
    def tool_name(self) -> str | None:
        name = self.params.get("name") if self.method == "tools/call" else None
        return name if isinstance(name, str) else None

    @property
    def arguments(self) -> JSON:
        """The ``tools/call`` arguments; changes made to this dict reach the tool."""
        if self.method != "tools/call":
            return {}
        arguments = self.params.get("arguments")
        if arguments is None:  # optional in the request: give the layer a dict that sticks
            arguments = self.params["arguments"] = {}
        return arguments if isinstance(arguments, dict) else {}

    @property
    def protocol_version(self) -> str:
        return self.request.features.revision

    @property
    def identity(self) -> Any:
        return self.request.identity


CallNext = Callable[[Call], Awaitable[JSON]]
Middleware = Callable[[Call, CallNext], Awaitable[JSON]]


def run_chain(
    middleware: list[Middleware], connection: ServerConnection, request: Request, handler: Handler
) -> Any:
    """``handler`` run through ``middleware``: the result, or an awaitable of it."""
    if all(getattr(layer, "answers_inline", False) for layer in middleware):
        return _inline_chain(middleware, connection, request, handler)
    return _chain(middleware, connection, request, handler)


async def _chain(
    middleware: list[Middleware], connection: ServerConnection, request: Request, handler: Handler
) -> JSON:
    async def innermost(call: Call) -> JSON:
        request.params = call.params
        outcome = handler(call.connection, request)
        if isinstance(outcome, bytes):  # a pre-serialized page
            return orjson.loads(outcome)  # type: ignore[no-any-return]
        if isinstance(outcome, dict):
            return outcome
        return await outcome  # type: ignore[no-any-return]

    def link(layer: Middleware, following: CallNext) -> CallNext:
        async def step(call: Call) -> JSON:
            try:
                outcome = layer(call, following)
                return outcome if isinstance(outcome, dict) else await outcome
            except ToolError as exc:
                return _tool_error(call, exc)

        return step

    chain: CallNext = innermost
    for layer in reversed(middleware):
        chain = link(layer, chain)
    return _shaped(request, await chain(Call(request.method, request.params, request, connection)))


def _inline_chain(
    middleware: list[Middleware], connection: ServerConnection, request: Request, handler: Handler
) -> Any:
    def innermost(call: Call) -> Any:
        request.params = call.params
        outcome = handler(call.connection, request)
        if isinstance(outcome, bytes):  # a pre-serialized page
            return orjson.loads(outcome)
        return outcome

    def link(layer: Any, following: Any) -> Any:
        def step(call: Call) -> Any:
            try:
                outcome = layer(call, following)
            except ToolError as exc:
                return _tool_error(call, exc)
            return outcome if isinstance(outcome, dict) else _awaited(call, outcome)

        return step

    chain: Any = innermost
    for layer in reversed(middleware):
        chain = link(layer, chain)
    outcome = chain(Call(request.method, request.params, request, connection))
    if isinstance(outcome, dict):
        return _shaped(request, outcome)
    return _shaped_later(request, outcome)


async def _awaited(call: Call, outcome: Awaitable[JSON]) -> JSON:
    try:
        return await outcome
    except ToolError as exc:
        return _tool_error(call, exc)


async def _shaped_later(request: Request, outcome: Awaitable[JSON]) -> JSON:
    return _shaped(request, await outcome)


def _tool_error(call: Call, exc: ToolError) -> JSON:
    """A ``ToolError`` a layer raised on ``tools/call``: for the model to read, like a tool's
    own (an ``RPCError``, -32021, stays an error; on other methods it propagates)."""
    if call.method != "tools/call" or isinstance(exc, RPCError):
        raise exc
    return {"content": [{"type": "text", "text": str(exc)}], "isError": True}


def _shaped(request: Request, result: JSON) -> JSON:
    """A ``tools/call`` result shaped for the client's revision: what a layer added, too."""
    if (
        request.method == "tools/call"
        and isinstance(result, dict)
        and result.get("resultType") != "input_required"
    ):
        return shaping.call_result(result, request.features)
    return result
