"""Worker threads for blocking (sync) tools, so a slow one never stalls the event loop.

``asyncio.to_thread`` pays for a ``concurrent.futures.Future`` and a loop wake-up per
call. Here results travel back in batches: a worker appends to a deque and wakes the
loop only if no wake-up is already pending, so a burst of pipelined calls costs one
wake-up, not one per call. Threads start on demand, up to ``max_workers``; beyond that
calls queue.

Faults stay inside the call that caused them:

* Whatever a call raises comes back to the coroutine awaiting it. A ``BaseException``
  that is not an ``Exception`` (``SystemExit``, ``KeyboardInterrupt``, a stray
  ``asyncio.CancelledError``, a library's own) arrives as :class:`AbortedCall`: raised
  as it is, it would stop the event loop (``SystemExit``, ``KeyboardInterrupt``), pass
  for a cancellation of the awaiting task, or end it with no answer for the client.
  (toolwire's own control-flow exceptions, such as a 2026-07-28 elicitation's, only ever
  come from async code.)
* An exception raised *into* a worker from outside (``PyThreadState_SetAsyncExc``, as
  thread-killing timeout helpers do, possibly after the call it aimed at has returned)
  never ends the worker: the call it interrupted gets :class:`AbortedCall` and the worker
  takes the next one.
* A call given up on while it still runs (its timeout passed, the client cancelled it)
  keeps its thread busy, and nothing can stop a sync function from outside; the pool
  grows by one thread (at most ``max_workers`` more in all) so that stuck calls do not
  starve the others. The extra thread leaves once the stuck call returns.
* A caller's calls may take every free thread, but past its share (``max_workers // 2``)
  only while the pool has a free one; the rest wait their turn on the event loop without
  taking a thread. A call within its share always starts, on a thread of its own if the
  pool is busy (up to ``max_workers`` more in all), so calls one caller leaves blocked
  never keep another caller from a thread. A call holds its share until it returns or is
  given up on (then it has a stand-in, below).
* Workers are daemon threads: a call that never returns does not keep the process
  alive at exit.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import itertools
import logging
import threading
from collections import deque
from collections.abc import Callable
from queue import SimpleQueue
from typing import Any

logger = logging.getLogger("toolwire")


class AbortedCall(Exception):
    """A sync call ended by a ``BaseException`` that is not an ``Exception``; the original
    is the ``__cause__``. Tools report it like any unexpected error (masked, with a
    reference in the log)."""


def _aborted(exc: BaseException) -> AbortedCall:
    text = str(exc)
    aborted = AbortedCall(f"{type(exc).__name__}: {text}" if text else type(exc).__name__)
    aborted.__cause__ = exc
    return aborted


_Outcome = tuple[asyncio.Future[Any], bool, Any, Any]  # future, ok, value or error, owner


class _Inbox:
    """Finished calls waiting to be handed back to one event loop."""

    __slots__ = ("done", "loop", "release", "wakeup_pending")

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.done: deque[_Outcome] = deque()
        self.wakeup_pending = False
        self.release: Callable[[asyncio.Future[Any]], None] | None = None  # a caller's share

    def deliver(self) -> None:
        self.wakeup_pending = False
        done = self.done
        while done:
            future, ok, value, owner = done.popleft()
            if owner is not None and self.release is not None:
                self.release(future)
            if future.done():  # cancelled, or already failed by an interrupted worker
                continue
            if ok:
                future.set_result(value)
            else:
                future.set_exception(value)

    def hand_back(self, outcome: _Outcome, force: bool) -> None:
        """Queue an outcome (from a worker) and wake the loop unless a wake-up is pending;
        ``force`` wakes it regardless (after an interruption the flag cannot be trusted)."""
        self.done.append(outcome)
        if force or not self.wakeup_pending:
            self.wakeup_pending = True
            loop = self.loop
            if not loop.is_closed():
                # RuntimeError: the loop closed meanwhile, nobody is waiting
                with contextlib.suppress(RuntimeError):
                    loop.call_soon_threadsafe(self.deliver)


_Job = tuple[
    asyncio.Future[Any], Callable[..., Any], dict[str, Any], contextvars.Context, _Inbox, Any
]


class ThreadRunner:
    """Runs sync calls on worker threads for whichever event loop submits them.

    A server may be served by one loop after another (``asyncio.run`` twice, a test per
    loop); each loop gets its own inbox, so a result always resolves on the loop that asked.
    """

    def __init__(self, max_workers: int = 16) -> None:
        self.max_workers = max_workers
        self._jobs: SimpleQueue[_Job | None] = SimpleQueue()
        self._threads: list[threading.Thread] = []
        self._names = itertools.count()
        self._idle = 0  # workers waiting for a job
        self._unclaimed = 0  # jobs queued that no worker has taken yet
        self._running: dict[asyncio.Future[Any], None] = {}  # jobs a worker is running
        self._abandoned: set[asyncio.Future[Any]] = set()  # ...that nobody waits for any more
        self._inbox: _Inbox | None = None
        self._lock = threading.Lock()
        # Event-loop side: threads each caller's calls hold, and its calls waiting for one.
        self.share = max(1, max_workers // 2)
        self._held: dict[Any, int] = {}
        self._busy = 0  # threads held by callers' calls, in all
        self._turns: dict[Any, deque[asyncio.Future[None]]] = {}
        self._owners: dict[asyncio.Future[Any], Any] = {}  # calls holding a share, by future

    def _capacity(self) -> int:
        """Threads allowed now: stuck calls that were given up on do not count, nor calls a
        caller started within its share on a busy pool (each up to ``max_workers`` more)."""
        beyond = min(max(self._busy - self.max_workers, 0), self.max_workers)
        return self.max_workers + min(len(self._abandoned), self.max_workers) + beyond

    def submit(
        self, fn: Callable[..., Any], kwargs: dict[str, Any], owner: Any = None
    ) -> asyncio.Future[Any]:
        """Run ``fn(**kwargs)`` on a worker; the future resolves on the calling loop.
        ``owner`` (a caller that took its share with :meth:`run`) gets it back when the call
        returns."""
        loop = asyncio.get_running_loop()
        inbox = self._inbox
        if inbox is None or inbox.loop is not loop:
            inbox = self._inbox = _Inbox(loop)
            inbox.release = self._returned
        future: asyncio.Future[Any] = loop.create_future()
        if owner is not None:
            self._owners[future] = owner
        with self._lock:
            self._unclaimed += 1
            short = self._unclaimed > self._idle and len(self._threads) < self._capacity()
        self._jobs.put((future, fn, kwargs, contextvars.copy_context(), inbox, owner))
        if short:  # every waiting worker already has a job coming: start one more
            self._start_worker()
        return future

    async def run(self, fn: Callable[..., Any], kwargs: dict[str, Any], owner: Any = None) -> Any:
        """``fn(**kwargs)`` on a worker; with an ``owner``, within that caller's share."""
        if owner is not None:
            if self._may_take(owner):
                self._take(owner)
            else:
                await self._wait_turn(owner)
        future = self.submit(fn, kwargs, owner)
        try:
            return await future
        except asyncio.CancelledError:
            self._returned(future)  # given up on: it no longer counts against its caller
            self._abandon(future)
            raise

    def _may_take(self, owner: Any) -> bool:
        """Within the caller's share, or a thread of the pool is still free."""
        return self._held.get(owner, 0) < self.share or self._busy < self.max_workers

    def _take(self, owner: Any) -> None:
        self._held[owner] = self._held.get(owner, 0) + 1
        self._busy += 1

    async def _wait_turn(self, owner: Any) -> None:
        turn: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._turns.setdefault(owner, deque()).append(turn)
        try:
            await turn
        except asyncio.CancelledError:
            if turn.done() and not turn.cancelled():  # handed a thread as it was cancelled
                self._release(owner)
            else:
                waiting = self._turns.get(owner)
                if waiting is not None:
                    with contextlib.suppress(ValueError):  # unless a release dropped it
                        waiting.remove(turn)
                    if not waiting:
                        del self._turns[owner]
            raise

    def _returned(self, future: asyncio.Future[Any]) -> None:
        """A call returned or was given up on: release its caller's thread once."""
        owner = self._owners.pop(future, None)
        if owner is not None:
            self._release(owner)

    def _release(self, owner: Any) -> None:
        """One thread of ``owner`` is free (on the loop): hand it to a waiting call."""
        held = self._held.get(owner, 1) - 1
        if held > 0:
            self._held[owner] = held
        else:
            self._held.pop(owner, None)
        self._busy -= 1
        for waiter in [owner, *self._turns]:  # its own next call first, then the others
            waiting = self._turns.get(waiter)
            while waiting and self._may_take(waiter):
                turn = waiting.popleft()
                if not turn.done():
                    self._take(waiter)
                    turn.set_result(None)
                    break
            if waiting is not None and not waiting:
                del self._turns[waiter]
            if self._busy >= self.max_workers:
                return

    def _abandon(self, future: asyncio.Future[Any]) -> None:
        """The caller gave up on a call: if a worker is still running it, add a thread."""
        with self._lock:
            if future not in self._running:  # finished, or never started (then skipped)
                return
            self._abandoned.add(future)
            short = self._unclaimed > self._idle and len(self._threads) < self._capacity()
        logger.debug("A sync call was given up while its thread still runs it: one more thread")
        if short:
            self._start_worker()

    def _start_worker(self) -> None:
        thread = threading.Thread(
            target=self._work, name=f"toolwire-worker-{next(self._names)}", daemon=True
        )
        with self._lock:
            self._threads.append(thread)
        thread.start()

    # ------------------------------------------------------------ the worker side

    def _work(self) -> None:
        """A worker's life: run jobs until told to stop. Nothing raised into it ends it."""
        idle = [False]  # whether this worker is counted in _idle (kept across restarts)
        while True:
            try:
                self._take_jobs(idle)
                return
            except BaseException:  # raised into the thread between calls, by no call
                logger.error("A worker thread was interrupted between calls", exc_info=True)

    def _take_jobs(self, idle: list[bool]) -> None:
        # An exception raised into a thread strikes only at a call or a loop jump: each count
        # changes together with its flag, and ``_running`` by subscript, with no call in
        # between, so no single strike can leave them disagreeing.
        lock = self._lock
        running = self._running
        with lock:
            if not idle[0]:
                self._idle += 1
                idle[0] = True
        # ``for`` binds the job as ``get`` returns it: a job taken is never lost.
        for job in iter(self._jobs.get, None):
            future = job[0]
            claimed = False
            try:
                try:
                    with lock:
                        self._idle -= 1
                        idle[0] = False
                        self._unclaimed -= 1
                        claimed = True
                        running[future] = None
                    self._call(job)
                except BaseException as exc:  # raised into the thread around the call
                    job[4].hand_back((future, False, _aborted(exc), job[5]), force=True)
                    if not claimed:
                        with lock:
                            if idle[0]:
                                self._idle -= 1
                                idle[0] = False
                            self._unclaimed -= 1
                    logger.error("A worker thread was interrupted around a call", exc_info=exc)
            finally:
                with lock:
                    if future in running:
                        del running[future]
                    leave = future in self._abandoned and self._retire(future)
                    if not leave and not idle[0]:
                        self._idle += 1
                        idle[0] = True
            del job, future
            if leave:
                return
        with lock:  # told to stop
            if idle[0]:
                self._idle -= 1
                idle[0] = False

    def _retire(self, future: asyncio.Future[Any]) -> bool:
        """An abandoned call returned (lock held): True if its stand-in thread should go."""
        self._abandoned.discard(future)
        me = threading.current_thread()
        if len(self._threads) > self._capacity() and me in self._threads:
            self._threads.remove(me)
            return True
        return False

    def _call(self, job: _Job) -> None:
        future, fn, kwargs, context, inbox, owner = job
        if future.done():  # cancelled while it waited for a thread: nobody wants it
            if owner is not None:  # its caller's share comes back all the same
                inbox.hand_back((future, False, None, owner), force=False)
            return
        outcome: _Outcome
        try:
            outcome = (future, True, context.run(fn, **kwargs), owner)
        except Exception as exc:  # handed to the awaiting task
            outcome = (future, False, exc, owner)
        except BaseException as exc:  # SystemExit & co. must not reach the event loop
            outcome = (future, False, _aborted(exc), owner)
        inbox.hand_back(outcome, force=False)

    def shutdown(self) -> None:
        """Let idle workers exit; running calls finish on their own (threads are daemons)."""
        with self._lock:
            threads, self._threads = self._threads, []
        for _ in threads:
            self._jobs.put(None)
