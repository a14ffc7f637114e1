"""Worker threads for blocking (sync) tools, so a slow one never stalls the event loop.

``asyncio.to_thread`` pays for a ``concurrent.futures.Future`` and a loop wake-up per
call. Here results travel back in batches: a worker appends to a deque and wakes the
loop only if no wake-up is already pending, so a burst of pipelined calls costs one
wake-up, not one per call. Threads start on demand, up to ``max_workers``; beyond that
calls queue.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import threading
from collections import deque
from collections.abc import Callable
from queue import SimpleQueue
from typing import Any


class _Inbox:
    """Finished calls waiting to be handed back to one event loop."""

    __slots__ = ("done", "loop", "wakeup_pending")

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.done: deque[tuple[asyncio.Future[Any], bool, Any]] = deque()
        self.wakeup_pending = False

    def deliver(self) -> None:
        self.wakeup_pending = False
        done = self.done
        while done:
            future, ok, value = done.popleft()
            if future.cancelled():
                continue
            if ok:
                future.set_result(value)
            else:
                future.set_exception(value)


_Job = tuple[asyncio.Future[Any], Callable[..., Any], dict[str, Any], contextvars.Context, _Inbox]


class ThreadRunner:
    """Runs sync calls on worker threads for whichever event loop submits them.

    A server may be served by one loop after another (``asyncio.run`` twice, a test per
    loop); each loop gets its own inbox, so a result always resolves on the loop that asked.
    """

    def __init__(self, max_workers: int = 16) -> None:
        self.max_workers = max_workers
        self._jobs: SimpleQueue[_Job | None] = SimpleQueue()
        self._threads: list[threading.Thread] = []
        self._idle = 0  # workers waiting for a job
        self._unclaimed = 0  # jobs queued that no worker has taken yet
        self._inbox: _Inbox | None = None
        self._lock = threading.Lock()

    def submit(self, fn: Callable[..., Any], kwargs: dict[str, Any]) -> asyncio.Future[Any]:
        """Run ``fn(**kwargs)`` on a worker; the future resolves on the calling loop."""
        loop = asyncio.get_running_loop()
        inbox = self._inbox
        if inbox is None or inbox.loop is not loop:
            inbox = self._inbox = _Inbox(loop)
        future: asyncio.Future[Any] = loop.create_future()
        with self._lock:
            self._unclaimed += 1
            short = self._unclaimed > self._idle and len(self._threads) < self.max_workers
        self._jobs.put((future, fn, kwargs, contextvars.copy_context(), inbox))
        if short:  # every waiting worker already has a job coming: start one more
            self._start_worker()
        return future

    async def run(self, fn: Callable[..., Any], kwargs: dict[str, Any]) -> Any:
        return await self.submit(fn, kwargs)

    def _start_worker(self) -> None:
        thread = threading.Thread(
            target=self._work, name=f"toolwire-worker-{len(self._threads)}", daemon=True
        )
        self._threads.append(thread)
        thread.start()

    def _work(self) -> None:
        jobs = self._jobs
        while True:
            with self._lock:
                self._idle += 1
            job = jobs.get()
            with self._lock:
                self._idle -= 1
                if job is not None:
                    self._unclaimed -= 1
            if job is None:
                return
            future, fn, kwargs, context, inbox = job
            try:
                outcome = (future, True, context.run(fn, **kwargs))
            except BaseException as exc:  # handed to the awaiting task
                outcome = (future, False, exc)
            inbox.done.append(outcome)
            del job, future, outcome
            if not inbox.wakeup_pending:
                inbox.wakeup_pending = True
                loop = inbox.loop
                if not loop.is_closed():
                    # RuntimeError: the loop closed meanwhile, nobody is waiting
                    with contextlib.suppress(RuntimeError):
                        loop.call_soon_threadsafe(inbox.deliver)
            del inbox

    def shutdown(self) -> None:
        """Let idle workers exit; running calls finish on their own (threads are daemons)."""
        for _ in self._threads:
            self._jobs.put(None)
        self._threads.clear()
