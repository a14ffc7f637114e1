"""How a stdio server process stops: on a signal, within a deadline, and never hanging at exit.

* ``SIGTERM`` and ``SIGINT`` (an MCP host sends ``SIGTERM`` when a server outlives the end
  of its stdin, LC-14; a terminal's Ctrl+C sends ``SIGINT``) begin a graceful stop: no new
  requests are read, calls in flight get the grace period to answer, the rest are
  cancelled (and never answered, as for any cancelled request), the lifespan is left and
  ``mcp.run()`` returns, so the process exits with status 0. A signal while the server
  is already stopping (the host lost patience) cancels the calls still running at once.
* :func:`run_to_the_end` runs the serving coroutine like ``asyncio.run``, except that
  nothing left over may keep the process alive: tasks that ignore their cancellation get
  half a second more, and a call stuck in ``asyncio.to_thread`` (a thread the interpreter would
  wait for at exit) makes the process exit at once rather than never. Sync tools run on
  daemon threads (see :mod:`toolwire.server.workers`), which never hold the exit up.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import os
import signal
import sys
import threading
from collections.abc import Callable, Coroutine, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

logger = logging.getLogger("toolwire")

STOP_SIGNALS = ("SIGTERM", "SIGINT")
LEFTOVER_WAIT_S = 0.5  # for tasks still running once serving ended (already cancelled once)


def _free_to_take(signum: int) -> bool:
    """Only signals nobody else handles: the default, or asyncio.run's own Ctrl+C handler."""
    handler = signal.getsignal(signum)
    if handler in (signal.SIG_DFL, signal.default_int_handler):
        return True
    owner = getattr(getattr(handler, "func", None), "__self__", None)
    return type(owner).__name__ == "Runner" and type(owner).__module__.startswith("asyncio")


@contextlib.contextmanager
def stop_signals(
    loop: asyncio.AbstractEventLoop, received: Callable[[str], None]
) -> Iterator[list[str]]:
    """Call ``received(name)`` on the loop for each SIGTERM/SIGINT while the block runs.

    Only on the main thread of a POSIX process, and only for signals the application has
    not claimed itself; yields the names of the signals taken.
    """
    taken: list[str] = []
    if threading.current_thread() is threading.main_thread():
        for name in STOP_SIGNALS:
            signum = getattr(signal, name, None)
            if signum is None or not _free_to_take(signum):
                continue
            try:
                loop.add_signal_handler(signum, received, name)
            except (NotImplementedError, RuntimeError, ValueError):  # not POSIX, or no loop
                continue
            taken.append(name)
    try:
        yield taken
    finally:
        for name in taken:
            loop.remove_signal_handler(getattr(signal, name))


@contextlib.contextmanager
def signals_ignored(loop: asyncio.AbstractEventLoop) -> Iterator[list[str]]:
    """While the block runs (the last clean-up of a stopping server, such as leaving its
    lifespan) SIGTERM and SIGINT are noted and ignored: the process is ending anyway, and
    dying now could leave a database or a file half closed."""

    def ignored(name: str) -> None:
        logger.warning("%s ignored: the server is already finishing its clean-up", name)

    with stop_signals(loop, ignored) as taken:
        yield taken


class _CountingExecutor(ThreadPoolExecutor):
    """The serving loop's default executor (``asyncio.to_thread``), counting the calls
    that are running, so that the end of serving knows whether one is stuck."""

    def __init__(self) -> None:
        super().__init__(thread_name_prefix="toolwire-executor")
        self.running = 0
        self._count = threading.Lock()

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        return super().submit(self._counted, functools.partial(fn, *args, **kwargs))

    def _counted(self, call: Callable[[], Any]) -> Any:
        with self._count:
            self.running += 1
        try:
            return call()
        finally:
            with self._count:
                self.running -= 1


def run_to_the_end(main: Coroutine[Any, Any, None]) -> None:
    """``asyncio.run(main)`` with a bounded clean-up (see the module's docstring)."""
    loop = asyncio.new_event_loop()
    executor = _CountingExecutor()
    loop.set_default_executor(executor)
    stuck = 0
    try:
        asyncio.set_event_loop(loop)
        loop.run_until_complete(main)
    finally:
        try:
            stuck = _cancel_leftovers(loop)
            loop.run_until_complete(loop.shutdown_asyncgens())
        finally:
            executor.shutdown(wait=False, cancel_futures=True)
            asyncio.set_event_loop(None)
            if not stuck:  # closing a loop under stuck tasks would only add warnings
                loop.close()
    if stuck or executor.running:
        logger.warning(
            "Exiting with %d task(s) and %d thread(s) still running tool code "
            "that ignored the shutdown",
            stuck,
            executor.running,
        )
        _exit_now()


def _cancel_leftovers(loop: asyncio.AbstractEventLoop) -> int:
    """Cancel what is still running; the number of tasks that did not stop in time."""
    tasks = [task for task in asyncio.all_tasks(loop) if not task.done()]
    if not tasks:
        return 0
    for task in tasks:
        task.cancel()
    loop.run_until_complete(asyncio.wait(tasks, timeout=LEFTOVER_WAIT_S))
    for task in tasks:
        if task.done() and not task.cancelled() and task.exception() is not None:
            logger.error("A task failed while the server stopped", exc_info=task.exception())
    return sum(not task.done() for task in tasks)


def _exit_now() -> None:
    """Exit with status 0 without waiting for threads or tasks stuck in tool code."""
    logging.shutdown()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    os._exit(0)
