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
raise ``RPCError`` to answer with a protocol error. Results are dicts in the shape of the
newest revision; the revision's shaping happens afterwards. The first middleware added is
the outermost. ``initialize`` is never passed through middleware.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import orjson

if TYPE_CHECKING:
    from .session import Request, ServerConnection

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
        arguments = self.params.get("arguments") if self.method == "tools/call" else None
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
            return await layer(call, following)

        return step

    chain: CallNext = innermost
    for layer in reversed(middleware):
        chain = link(layer, chain)
    return await chain(Call(request.method, request.params, request, connection))
