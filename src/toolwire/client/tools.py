"""The tool half of :class:`~toolwire.client.Client`: listing tools (cached when asked)
and calling them, with ``structuredContent`` checked against each tool's ``outputSchema``."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..protocol.header_params import header_params
from ..protocol.revisions import META_IDEMPOTENCY_KEY as IDEMPOTENCY_KEY
from .answers import content_blocks, named
from .outputs import OutputChecks
from .primitives import walk_pages
from .tasks import ToolTask, wait_for_task

if TYPE_CHECKING:
    from .let_go import LetGoHandler
    from .tasks import ToolTask

logger = logging.getLogger("toolwire.client")

JSON = dict[str, Any]
ProgressHandler = Callable[[float, float | None, str | None], Awaitable[None] | None]


@dataclass
class CallResult:
    """What a ``tools/call`` returned."""

    content: list[JSON]
    structured: Any = None
    is_error: bool = False
    raw: JSON = field(default_factory=dict)

    @property
    def text(self) -> str:
        """The text blocks joined with newlines."""
        return "\n".join(block["text"] for block in self.content if block.get("type") == "text")


class ClientTools:
    """``list_tools`` and ``call_tool`` (state set up by ``Client.__init__``)."""

    if TYPE_CHECKING:  # provided by Client
        cache_tools: bool
        server_capabilities: JSON
        _tools: list[JSON] | None
        _tools_expiry: float | None
        _tools_generation: int
        _outputs: OutputChecks
        _ids: Iterator[int]
        _progress: dict[str | int, ProgressHandler]
        _transport: Any

        @property
        def modern(self) -> bool: ...

        async def request(
            self,
            method: str,
            params: JSON | None = None,
            *,
            timeout: float | None = None,
            on_let_go: LetGoHandler | None = None,
        ) -> JSON: ...

    def invalidate_tools(self) -> None:
        """Forget the cached tool list: the next :meth:`list_tools` asks the server."""
        self._tools = None
        self._tools_expiry = None
        self._tools_generation += 1

    def _tools_fresh(self) -> bool:
        if self._tools is None:
            return False
        if self._tools_expiry is None:
            return True
        return asyncio.get_running_loop().time() < self._tools_expiry

    async def list_tools(self, *, refresh: bool = False) -> list[JSON]:
        """Every tool the server offers, following ``nextCursor`` through all pages.

        With ``Client(cache_tools=True)`` the list is cached: for the ``ttlMs`` a 2026-07-28
        server gives, and on a legacy server announcing ``tools.listChanged`` until it says
        the list changed; ``notifications/tools/list_changed`` (on a legacy session or a
        2026-07-28 listen stream) always clears it. A server that promises neither is asked
        every time. ``refresh=True`` always asks.
        """
        if not refresh and self._tools_fresh():
            assert self._tools is not None
            return list(self._tools)
        generation = self._tools_generation
        tools, ttl = await walk_pages(self.request, "tools/list", "tools")
        named("tools/list", "tools", tools, "name")
        if self.modern and getattr(self._transport, "mirrors_header_params", False):
            tools = _with_valid_headers(tools)
        self._outputs.learn(tools)
        if generation == self._tools_generation:  # no change announced meanwhile
            self._cache_tools(tools, ttl)
        return tools

    def _cache_tools(self, tools: list[JSON], ttl: float | None) -> None:
        if not self.cache_tools:
            return
        announces = bool((self.server_capabilities.get("tools") or {}).get("listChanged"))
        if self.modern and ttl is not None and ttl > 0:
            self._tools = list(tools)
            self._tools_expiry = asyncio.get_running_loop().time() + ttl / 1000
        elif not self.modern and announces:
            self._tools = list(tools)
            self._tools_expiry = None
        else:
            self._tools = None

    async def _check_structured(self, name: str, result: JSON) -> None:
        """TL-23: structured results must match the tool's declared outputSchema."""
        if result.get("isError"):
            return
        if result.get("structuredContent") is not None and not self._outputs.knows(name):
            await self.list_tools()  # a tool this client has not listed yet
        self._outputs.check(name, result)

    async def call_tool(
        self,
        name: str,
        arguments: JSON | None = None,
        *,
        timeout: float | None = None,
        progress: ProgressHandler | None = None,
        task_status: Callable[[JSON], Any] | None = None,
        on_let_go: LetGoHandler | None = None,
        idempotency_key: str | None = None,
    ) -> CallResult:
        """Call a tool and return its result; a tool the server runs as a task (with the
        Tasks extension declared) is waited for, and ``task_status`` sees each state polled.
        ``on_let_go(retry_ms)`` is called when the server lets the call's stream go before
        answering (SEP-1699 polling: the answer still comes; :mod:`toolwire.client.let_go`).
        ``idempotency_key`` (a UUID, say): a toolwire server runs the call once however often
        it comes with that key, so over HTTP it is sent again, once, when the connection
        fails before the answer (:mod:`toolwire.server.dispatch.idempotency`)."""
        params: JSON = {"name": name, "arguments": arguments or {}}
        meta: JSON = {}
        token = None
        if progress is not None:
            token = f"progress-{next(self._ids)}"
            self._progress[token] = progress
            meta["progressToken"] = token
        if idempotency_key is not None:
            meta[IDEMPOTENCY_KEY] = idempotency_key
        if meta:
            params["_meta"] = meta
        try:
            result = await self.request("tools/call", params, timeout=timeout, on_let_go=on_let_go)
        finally:
            if token is not None:
                self._progress.pop(token, None)
        if result.get("resultType") == "task":  # the client declared Tasks (.tasks)
            result = await wait_for_task(self, result, timeout, task_status)
        return await self._call_result(name, result)

    async def start_tool(
        self, name: str, arguments: JSON | None = None, *, timeout: float | None = None
    ) -> ToolTask:
        """Call a tool without waiting for it to end: a :class:`~toolwire.client.tasks.ToolTask`
        whose ``status()``, ``result()`` and ``cancel()`` follow the task the server made of
        the call (with the Tasks extension declared), or hold the result it answered with."""

        params: JSON = {"name": name, "arguments": arguments or {}}
        return ToolTask(self, name, await self.request("tools/call", params, timeout=timeout))

    async def _call_result(self, name: str, result: JSON) -> CallResult:
        await self._check_structured(name, result)
        return CallResult(
            content=content_blocks("tools/call", result.get("content", [])),
            structured=result.get("structuredContent"),
            is_error=bool(result.get("isError")),
            raw=result,
        )


def _with_valid_headers(tools: list[JSON]) -> list[JSON]:
    """The tools whose ``x-mcp-header`` annotations are valid: a Streamable HTTP client
    leaves the others out, with a warning (TL-39), since it cannot call them correctly."""
    kept = []
    for tool in tools:
        _, problem = header_params(tool.get("inputSchema"))
        if problem is None:
            kept.append(tool)
        else:
            logger.warning("Leaving out tool %r: %s", tool["name"], problem)
    return kept
