"""FastMCP's names for tasks and progress: ``TaskConfig``, ``TasksExtension`` (the
``fastmcp-tasks`` add-on) and the ``Progress`` dependency.

::

    from datetime import timedelta

    from toolwire import FastMCP, Progress, TaskConfig, TasksExtension

    mcp = FastMCP("Reports")
    mcp.add_extension(TasksExtension())  # toolwire serves Tasks itself

    @mcp.tool(task=TaskConfig(poll_interval=timedelta(seconds=1)))  # or task=True
    async def build(pages: int, progress: Progress = Progress()) -> str:
        await progress.set_total(pages)
        for page in range(pages):
            await progress.increment()
            await progress.set_message(f"page {page + 1}")
        return "built"

toolwire runs a tool marked ``task=`` as a task for a 2026-07-28 client that declares the
Tasks extension, and as an ordinary call otherwise; tasks live in the server (or in the
``http_app(store=RedisStore(url))`` of several workers), so ``TasksExtension`` has nothing
to set up: it is accepted so that FastMCP code runs unchanged, and a Redis ``url=`` is
refused with where it goes.
"""

from __future__ import annotations

from typing import Any

from ...functions.inspection import Dependency
from ...tools import TaskConfig
from ..context import Context

__all__ = ["Progress", "TaskConfig", "TasksExtension"]


class TasksExtension:
    """The ``fastmcp-tasks`` add-on's extension; ``mcp.add_extension(TasksExtension())``
    changes nothing on toolwire, which serves the Tasks extension itself."""

    def __init__(self, url: str | None = None, **options: Any) -> None:
        if url is not None and not url.startswith("memory://"):
            raise TypeError(
                "toolwire keeps tasks in the server's store: for several workers serve "
                f"mcp.http_app(store=RedisStore({url!r})) (toolwire.transports.store) "
                "instead of giving TasksExtension(url=...)"
            )
        self.options = options

    def __repr__(self) -> str:
        return "TasksExtension()"

    def install_on(self, server: Any) -> None:
        """Nothing to install: toolwire's server answers the Tasks extension already."""


class ProgressReporter:
    """What a ``Progress`` parameter receives: progress of a task told in steps, each set as
    the task's status as ``ctx.report_progress(current, total, message)`` sets it. On a call
    that is not a task it only keeps count (``current``, ``total``, ``message``), as FastMCP's
    in-memory progress does: ``ctx.report_progress`` reports a plain call's progress."""

    def __init__(self, context: Context) -> None:
        self._context = context
        self.current = 0.0
        self.total: float | None = None
        self.message: str | None = None

    async def set_total(self, total: float) -> None:
        self.total = total
        self._report()

    async def increment(self, amount: float = 1) -> None:
        self.current += amount
        self._report()

    async def set_message(self, message: str | None) -> None:
        self.message = message
        self._report()

    def _report(self) -> None:
        if self._context._task is not None:
            self._context.report_progress(self.current, self.total, self.message)


def _reporter(ctx: Context) -> ProgressReporter:
    return ProgressReporter(ctx)


class Progress(Dependency):
    """FastMCP's progress dependency: ``progress: Progress = Progress()`` gives the tool a
    :class:`ProgressReporter` (``set_total``, ``increment``, ``set_message``)."""

    __slots__ = ()

    def __init__(self) -> None:
        super().__init__(_reporter, "request")
