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
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import orjson

from ..errors import RPCError, ToolError
from ..protocol import shaping
from .request import Request
from .session import ServerConnection

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


async def run_chain(
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
            if call.method != "tools/call":
                return await layer(call, following)
            try:
                return await layer(call, following)
            except ToolError as exc:  # for the model to read, like a tool's own ToolError
                if isinstance(exc, RPCError):  # also a JSON-RPC error (-32021): it stays one
                    raise
                return {"content": [{"type": "text", "text": str(exc)}], "isError": True}

        return step

    chain: CallNext = innermost
    for layer in reversed(middleware):
        chain = link(layer, chain)
    result = await chain(Call(request.method, request.params, request, connection))
    if (
        request.method == "tools/call"
        and isinstance(result, dict)
        and result.get("resultType") != "input_required"
    ):
        result = shaping.call_result(result, request.features)  # what a layer added, too
    return result
