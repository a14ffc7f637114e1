"""The outermost step of ``tools/call`` when rate limits or an audit log are configured.

A :class:`CallGuard` takes the place of the ``tools/call`` handler in a server's method
table, so nothing of it runs for other methods, and nothing at all when neither feature is
configured. It checks the limits before anything else (a refused call reaches no
middleware and no tool), runs the middleware chain and the tool, and writes the audit line
once the outcome is known. With buckets in memory and an inline tool it answers without a
task switch, like the unguarded path.
"""

from __future__ import annotations

import asyncio
import re
from time import perf_counter
from typing import Any

from .. import jsonrpc
from ..errors import RPCError
from ..protocol import shaping
from ..server.dispatch.middleware import run_chain
from ..server.request import Host, Request
from ..server.session import ServerConnection
from .audit import AuditLog
from .limits import (
    RETRY_AFTER_META,
    MemoryBuckets,
    RateLimiter,
    Refusal,
    caller_of,
    connection_buckets,
)

JSON = dict[str, Any]

# How toolwire words the results it makes itself (see toolwire.tools).
_INVALID = "Invalid arguments for tool "
_TIMED_OUT = re.compile(r"Tool '[^']*' timed out after ")
_REFERENCE = re.compile(r"\(reference ([0-9a-f]{8})\)\s*$")


def outcome_of(result: JSON) -> tuple[str, str | None]:
    """The audit outcome of a ``tools/call`` result, and a masked error's reference id."""
    if result.get("resultType") == "input_required":
        return "input_required", None
    if not result.get("isError"):
        return "ok", None
    meta = result.get("_meta")
    if isinstance(meta, dict) and RETRY_AFTER_META in meta:
        return "rate_limited", None
    content = result.get("content")
    first = content[0] if isinstance(content, list) and content else None
    text = first.get("text") if isinstance(first, dict) else None
    if isinstance(text, str):
        if text.startswith(_INVALID):
            return "invalid_arguments", None
        if _TIMED_OUT.match(text):
            return "timeout", None
        found = _REFERENCE.search(text)
        if found:
            return "error", found.group(1)
    return "error", None


def outcome_of_error(exc: BaseException) -> str:
    """The audit outcome of a ``tools/call`` answered with a JSON-RPC error."""
    if isinstance(exc, RPCError) and exc.code == jsonrpc.INVALID_PARAMS:
        return "unknown_tool" if exc.message.startswith("Unknown tool") else "invalid_arguments"
    return "error"


class CallGuard:
    """``tools/call`` behind rate limits and an audit log (either may be None)."""

    def __init__(self, server: Host, limiter: RateLimiter | None, audit: AuditLog | None) -> None:
        self.server = server
        self.limiter = limiter
        self.audit = audit
        self.handler = type(server).methods["tools/call"]

    def __call__(self, connection: ServerConnection, request: Request) -> Any:
        caller = caller_of(request, connection)
        name = request.params.get("name")
        tool = name if isinstance(name, str) else None
        started = perf_counter()
        entry = self._describe(request, caller, tool)
        limiter = self.limiter
        if limiter is not None:
            known = self._serves(tool, request)
            own = connection_buckets(request, connection)
            if not limiter.local:
                return self._limited_remotely(
                    connection, request, caller, tool, known, own, entry, started
                )
            refusal = limiter.check(caller, tool, known=known, own=own)
            if refusal is not None:
                return self._refused(request, refusal, entry, started)
        return self._run(connection, request, entry, started)

    def _serves(self, tool: str | None, request: Request) -> bool:
        """The server serves ``tool`` to this caller (else its name gets no bucket of its
        own). A server that cannot tell (low-level handlers) serves the names its
        ``per_tool`` limits list."""
        if tool is None:
            return False
        serves = getattr(self.server, "serves_tool", None)
        if serves is not None:
            return bool(serves(tool, request))
        assert self.limiter is not None
        return tool in self.limiter.per_tool

    def _describe(self, request: Request, caller: str, tool: str | None) -> JSON | None:
        """The audit entry as the call arrived (before middleware may change it)."""
        audit = self.audit
        if audit is None or not audit.enabled:
            return None
        found = getattr(self.server, "get_tool", None)
        known = found(tool) if found is not None and tool is not None else None
        return audit.entry(
            caller=caller,
            tool=tool,
            arguments=request.params.get("arguments"),
            sensitive=getattr(known, "sensitive", ()),
            revision=request.features.revision,
            request_id=request.id,
        )

    def _inner(self, connection: ServerConnection, request: Request) -> Any:
        middleware = self.server.middleware
        if middleware:
            return run_chain(middleware, connection, request, self.handler)
        return self.handler(connection, request)

    def _run(
        self, connection: ServerConnection, request: Request, entry: JSON | None, started: float
    ) -> Any:
        if entry is None:
            return self._inner(connection, request)
        try:
            outcome = self._inner(connection, request)
        except Exception as exc:
            self._log(entry, started, outcome_of_error(exc))
            raise
        if isinstance(outcome, dict):
            self._log(entry, started, *outcome_of(outcome))
            return outcome
        return self._finish(outcome, entry, started)

    async def _finish(self, work: Any, entry: JSON, started: float) -> JSON:
        try:
            result: JSON = await work
        except asyncio.CancelledError:
            self._log(entry, started, "cancelled")
            raise
        except Exception as exc:
            self._log(entry, started, outcome_of_error(exc))
            raise
        self._log(entry, started, *outcome_of(result))
        return result

    async def _limited_remotely(
        self,
        connection: ServerConnection,
        request: Request,
        caller: str,
        tool: str | None,
        known: bool,
        own: MemoryBuckets | None,
        entry: JSON | None,
        started: float,
    ) -> JSON:
        assert self.limiter is not None
        try:
            refusal = await self.limiter.check_async(caller, tool, known=known, own=own)
        except asyncio.CancelledError:
            if entry is not None:
                self._log(entry, started, "cancelled")
            raise
        if refusal is not None:
            return self._refused(request, refusal, entry, started)
        outcome = self._run(connection, request, entry, started)
        return outcome if isinstance(outcome, dict) else await outcome

    def _refused(
        self, request: Request, refusal: Refusal, entry: JSON | None, started: float
    ) -> JSON:
        if entry is not None:
            self._log(entry, started, "rate_limited", limit=refusal.limit)
        return shaping.call_result(refusal.result(), request.features)

    def _log(
        self,
        entry: JSON,
        started: float,
        outcome: str,
        error_ref: str | None = None,
        limit: str | None = None,
    ) -> None:
        assert self.audit is not None
        self.audit.finish(entry, started, outcome, error_ref, limit)
