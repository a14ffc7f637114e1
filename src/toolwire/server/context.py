"""What a tool sees of the request that called it.

Declare a parameter annotated ``Context`` and toolwire passes it in (it never appears
in the tool's schema)::

    @mcp.tool()
    async def crunch(n: int, ctx: Context) -> int:
        await ctx.info("starting")
        await ctx.report_progress(0.5, total=1.0, message="half way")
        ...
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING, Any

from ..protocol.revisions import Features

if TYPE_CHECKING:
    from .session import ServerConnection

logger = logging.getLogger("toolwire")

LOG_LEVELS = ("debug", "info", "notice", "warning", "error", "critical", "alert", "emergency")
LOG_RANK = {level: rank for rank, level in enumerate(LOG_LEVELS)}


class Context:
    """The calling request: its id, the client, the revision, and ways to talk back."""

    def __init__(
        self,
        connection: ServerConnection,
        request_id: str | int,
        features: Features,
        *,
        client_info: dict[str, Any] | None,
        client_capabilities: dict[str, Any] | None,
        progress_token: str | int | None,
        log_level: str | None,
        meta: dict[str, Any] | None,
    ) -> None:
        self._connection = connection
        self.request_id = request_id
        self.protocol_version = features.revision
        self._features = features
        self.client_info = client_info or {}
        self.client_capabilities = client_capabilities or {}
        self.progress_token = progress_token
        self.log_level = log_level
        self.meta = meta or {}
        self._last_progress: float | None = None
        self._finished = False
        self._loop = asyncio.get_running_loop()

    @property
    def server(self) -> Any:
        """The server handling this request."""
        return self._connection.server

    def _finish(self) -> None:
        self._finished = True

    def _notify(self, method: str, params: dict[str, Any]) -> None:
        if self._finished:
            return
        try:
            running: asyncio.AbstractEventLoop | None = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is self._loop:
            self._connection.notify(method, params)
        else:  # a sync tool on a worker thread
            self._loop.call_soon_threadsafe(self._notify, method, params)

    async def report_progress(
        self, progress: float, total: float | None = None, message: str | None = None
    ) -> None:
        """Send ``notifications/progress`` if the client asked for progress (it sent a token).

        Values must increase; one that does not is dropped (PR-03). Nothing is sent once
        the call has answered (PR-06).
        """
        self.report_progress_nowait(progress, total, message)

    def report_progress_nowait(
        self, progress: float, total: float | None = None, message: str | None = None
    ) -> None:
        """:meth:`report_progress` for sync tools (thread-safe, no ``await``)."""
        if self.progress_token is None or self._finished:
            return
        if self._last_progress is not None and progress <= self._last_progress:
            logger.debug("progress %r dropped: not above %r", progress, self._last_progress)
            return
        self._last_progress = progress
        params: dict[str, Any] = {"progressToken": self.progress_token, "progress": progress}
        if total is not None:
            params["total"] = total
        if message is not None and self._features.revision >= "2025-03-26":
            params["message"] = message
        self._notify("notifications/progress", params)

    async def log(self, level: str, message: Any, *, logger_name: str | None = None) -> None:
        """Send ``notifications/message`` at ``level`` if the client's log level lets it through."""
        self.log_nowait(level, message, logger_name=logger_name)

    def log_nowait(self, level: str, message: Any, *, logger_name: str | None = None) -> None:
        if level not in LOG_RANK:
            raise ValueError(f"Unknown log level {level!r}; use one of {', '.join(LOG_LEVELS)}")
        if self.log_level is None or LOG_RANK[level] < LOG_RANK[self.log_level]:
            return
        params: dict[str, Any] = {"level": level, "data": message}
        if logger_name:
            params["logger"] = logger_name
        self._notify("notifications/message", params)

    async def debug(self, message: Any) -> None:
        self.log_nowait("debug", message)

    async def info(self, message: Any) -> None:
        self.log_nowait("info", message)

    async def warning(self, message: Any) -> None:
        self.log_nowait("warning", message)

    async def error(self, message: Any) -> None:
        self.log_nowait("error", message)
