"""How the HTTP app stops: drain (requests read are answered, calls and tasks get the grace),
close (every session and stream ends, a cut call says so), then cancel what still runs.

Mixed into :class:`~toolwire.transports.http.app.HttpApp`: its lifespan (uvicorn) or its runner
(``mcp.run``) calls :meth:`Stopping.stop`, or ``drain`` and ``close`` in turn.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import TYPE_CHECKING, Any

from ..store.contract import SessionStore
from .resume import Followed, cut_answer
from .sse import Stream

if TYPE_CHECKING:
    from . import limits

logger = logging.getLogger("toolwire")

STRAGGLER_S = 1.0  # how long requests still running after a stop's close get to end


def where(task: asyncio.Task[Any]) -> str:
    """Where ``task`` waits: its coroutines' functions and lines, outermost first."""
    parts = []
    awaited: Any = task.get_coro()
    while (
        frame := getattr(awaited, "cr_frame", None) or getattr(awaited, "gi_frame", None)
    ) is not None:
        parts.append(f"{frame.f_code.co_name}:{frame.f_lineno}")
        awaited = getattr(awaited, "cr_await", None) or getattr(awaited, "gi_yieldfrom", None)
    return " > ".join(parts) or repr(task)


class Stopping:
    """The HTTP app's graceful stop (see the module)."""

    server: Any
    store: SessionStore
    sessions: limits.SessionTable
    modern_calls: set[Stream]
    followed: Followed
    draining: bool
    closing: bool
    posts: int
    requests: set[asyncio.Task[Any] | None]
    _stragglers: set[asyncio.Task[Any]]
    _posts_done: asyncio.Event | None
    _stopped: asyncio.Future[None] | None

    async def stop(self) -> None:
        """A graceful stop the runner does not do itself: not ready from now on, the calls in
        flight and running tasks get the server's ``shutdown_grace``, then every stream ends,
        so the runner's wait for open connections ends too. Done once: a second call waits
        for the first."""
        if self._stopped is None:
            self.draining = True
            self._stopped = asyncio.ensure_future(self._drain_and_close())
        await asyncio.shield(self._stopped)

    async def _drain_and_close(self) -> None:
        await self.drain(self.server.shutdown_grace)
        await self.close()
        await self._end_stragglers()

    async def _end_stragglers(self) -> None:
        """A request still being handled :data:`STRAGGLER_S` after the close (a body that
        never arrives, say) is cancelled, each with a warning that says where it waited: a
        runner that waits for every request (uvicorn) then stops within the grace."""
        left = [task for task in self.requests if task is not None and not task.done()]
        if left:
            await asyncio.wait(left, timeout=STRAGGLER_S)
        for task in left:
            if not task.done():
                logger.warning(
                    "Cancelled a request still running after the grace, at %s", where(task)
                )
                self._stragglers.add(task)
                task.cancel()

    async def drain(self, grace: float) -> None:
        """A graceful stop's middle step: listen streams end at once; every request read
        before now is answered, and calls in flight and running tasks end, within ``grace``
        seconds; the rest are cancelled. (A request can be read before the stop and reach
        its session's connection after it: it is answered too, never cut.)"""
        deadline = asyncio.get_running_loop().time() + grace
        self.server.end_listening()
        await self._posts_end(deadline)
        await self.server.drain_connections(self._left(deadline))
        await self._posts_end(deadline)  # one read meanwhile: answered, not cut by close()

    async def _posts_end(self, deadline: float) -> None:
        """Until no POST is being handled, or ``deadline``. A request whose head the runner
        has just read enters the app one event loop step later: it is let in (and counted)
        first."""
        await asyncio.sleep(0)
        if self.posts:
            self._posts_done = asyncio.Event()
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(self._posts_done.wait(), self._left(deadline))

    @staticmethod
    def _left(deadline: float) -> float:
        return max(0.0, deadline - asyncio.get_running_loop().time())

    async def close(self) -> None:
        """End every session, giving calls in flight a moment to answer. A call cut short
        is answered with a JSON-RPC error ("shutting down") where its client waits for JSON
        or a stream it cannot resume; a resumable stream ends, and its log in a shared store
        gets that error, so a resumption through another worker ends at once. A stream
        followed from that log ends too, and a GET read from now on is refused (503)."""
        self.closing = True
        sessions = list(self.sessions.values())
        self.sessions.clear()
        for session in sessions:
            await session.connection.drain(1.0)
            for stream in session.streams.values():
                if self.store.shared and not stream.done and stream.request_id is not None:
                    _, data = cut_answer(stream.request_id, True)
                    self.store.record(session.id, stream.id, stream.seq + 1, data, True)
                stream.close()
        for stream in list(self.modern_calls):
            stream.close()
        self.followed.close()
