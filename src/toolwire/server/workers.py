"""Worker threads for blocking (sync) tools, so a slow one never stalls the event loop.

``asyncio.to_thread`` pays for a ``concurrent.futures.Future`` and a loop wake-up per
call. Here results travel back in batches: a worker appends to a deque and wakes the
loop only if no wake-up is already pending, so a burst of pipelined calls costs one
wake-up, not one per call. Threads start on demand, up to ``max_workers``; beyond that
calls queue.
"""

from __future__ import annotations

import asyncio
import contextvars
import threading
from collections import deque
from collections.abc import Callable
from queue import SimpleQueue
from typing import Any

_Job = tuple[asyncio.Future[Any], Callable[..., Any], dict[str, Any], contextvars.Context]


class ThreadRunner:
    def __init__(self, max_workers: int = 16) -> None:
        self.max_workers = max_workers
        self._jobs: SimpleQueue[_Job | None] = SimpleQueue()
        self._done: deque[tuple[asyncio.Future[Any], bool, Any]] = deque()
        self._threads: list[threading.Thread] = []
        self._idle = 0
        self._wakeup_pending = False
        self._loop: asyncio.AbstractEventLoop | None = None
        self._lock = threading.Lock()

    def submit(self, fn: Callable[..., Any], kwargs: dict[str, Any]) -> asyncio.Future[Any]:
        """Run ``fn(**kwargs)`` on a worker; the future resolves on the calling loop."""
        loop = self._loop
        if loop is None:
            loop = self._loop = asyncio.get_running_loop()
        future: asyncio.Future[Any] = loop.create_future()
        self._jobs.put((future, fn, kwargs, contextvars.copy_context()))
        if self._idle == 0 and len(self._threads) < self.max_workers:
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
        jobs, done = self._jobs, self._done
        while True:
            with self._lock:
                self._idle += 1
            job = jobs.get()
            with self._lock:
                self._idle -= 1
            if job is None:
                return
            future, fn, kwargs, context = job
            try:
                outcome = (future, True, context.run(fn, **kwargs))
            except BaseException as exc:  # handed to the awaiting task
                outcome = (future, False, exc)
            done.append(outcome)
            del job, future, outcome
            if not self._wakeup_pending:
                self._wakeup_pending = True
                loop = self._loop
                if loop is not None and not loop.is_closed():
                    try:
                        loop.call_soon_threadsafe(self._deliver)
                    except RuntimeError:  # the loop closed meanwhile
                        return

    def _deliver(self) -> None:
        self._wakeup_pending = False
        done = self._done
        while done:
            future, ok, value = done.popleft()
            if future.cancelled():
                continue
            if ok:
                future.set_result(value)
            else:
                future.set_exception(value)

    def shutdown(self) -> None:
        """Let idle workers exit; running calls finish on their own (threads are daemons)."""
        for _ in self._threads:
            self._jobs.put(None)
        self._threads.clear()
