"""Caching the results of read-only, idempotent tools, per caller, in the session store."""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Awaitable, Callable
from typing import Any

import orjson

from ..server.state import NoCaller, caller_key, values_of
from ._tools import Definitions

logger = logging.getLogger("toolwire")
JSON = dict[str, Any]


class ResultCache:
    """Answer a repeated ``tools/call`` from a cache for ``ttl`` seconds.

    Only tools whose annotations say both ``readOnlyHint`` and ``idempotentHint`` are
    cached (their answer depends on their arguments alone), only successful results, and
    per caller (the authenticated user, else the legacy session or the stdio client, as
    ``ctx.state``): one user never gets another's answer. The key is the tool's name and
    its arguments in canonical JSON (sorted keys). Entries live in the HTTP app's session
    store, so every worker sharing a Redis store shares them; a call that names no caller
    (2026-07-28 over HTTP without auth) or meets an unreachable store is simply not cached.
    ``hits`` and ``misses`` count what happened.
    """

    def __init__(self, ttl: float = 60.0) -> None:
        if not ttl > 0:
            raise ValueError("ttl must be a positive number of seconds")
        self.ttl = ttl
        self.hits = 0
        self.misses = 0
        self._definitions = Definitions()

    async def __call__(self, call: Any, call_next: Callable[[Any], Awaitable[JSON]]) -> JSON:
        name = call.tool_name
        if name is None or "task" in call.params:  # a task is made, never answered from here
            return await call_next(call)
        definition = self._definitions.find(call, name)
        hints = definition.get("annotations") if definition is not None else None
        if not (
            isinstance(hints, dict)
            and hints.get("readOnlyHint") is True
            and hints.get("idempotentHint") is True
        ):
            return await call_next(call)
        try:
            caller = caller_key(call.request, call.connection, "ResultCache")
        except NoCaller:
            return await call_next(call)
        arguments = orjson.dumps(call.arguments, option=orjson.OPT_SORT_KEYS)
        digest = hashlib.sha256(name.encode() + b"\0" + arguments).hexdigest()[:40]
        key = f"cache:{caller}:{digest}"
        store = values_of(call.connection.server)
        try:
            raw = await store.get_value(key)
        except Exception as exc:  # a store that is down only costs the cache
            logger.warning("ResultCache: the store did not answer (%r); calling the tool", exc)
            return await call_next(call)
        if raw is not None:
            self.hits += 1
            cached: JSON = orjson.loads(raw)
            return cached
        self.misses += 1
        result = await call_next(call)
        if (
            isinstance(result, dict)
            and not result.get("isError")
            and result.get("resultType", "complete") == "complete"
            and "content" in result
        ):
            try:
                await store.set_value(key, orjson.dumps(result), self.ttl)
            except Exception as exc:
                logger.warning("ResultCache: could not store a result (%r)", exc)
        return result
