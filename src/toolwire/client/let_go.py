"""Hearing that the server let a call's stream go (SEP-1699 polling), for those who relay it.

A legacy Streamable HTTP server may end the connection carrying a call's SSE stream before
the answer; the HTTP transport resumes it with ``Last-Event-ID`` on its own. A call made
with ``on_let_go=`` (``call_tool``, ``request``) is also told at that moment, with the
server's reconnect delay in milliseconds (or None): a proxy lets go of its own client's
stream then. A client made with ``relay_let_go=True`` declares
``experimental["io.toolwire/letGo"]``, and a toolwire server with no stream of its own to
end (stdio, memory, 2026-07-28) tells it instead (:mod:`toolwire.protocol.let_go`).

:class:`ClientLetGo` is that part of :class:`~toolwire.client.Client` (state set up by its
``__init__``).
"""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from ..protocol import let_go

logger = logging.getLogger("toolwire.client")

JSON = dict[str, Any]
#: Told that the server let a call's stream go: the reconnect delay in ms, or None.
LetGoHandler = Callable[[int | None], Awaitable[None] | None]


class ClientLetGo:
    """Routing a let-go to the call it concerns."""

    if TYPE_CHECKING:  # provided by Client
        _let_go: dict[str | int, LetGoHandler]
        _pending: dict[str | int, Any]
        _tasks: set[Any]

    def _heard_let_go(self, mid: Any, retry_ms: int | None) -> None:
        """Request ``mid``'s stream was let go (its HTTP stream ended after an event id and
        before the answer, or the server said so): tell the call's ``on_let_go``. A call
        made without one may still hear it through its pending answer's ``let_go`` (the
        proxy's fast path stands there in place of a future)."""
        if not isinstance(mid, (str, int)):
            return
        handler = self._let_go.get(mid)
        if handler is None:
            handler = getattr(self._pending.get(mid), "let_go", None)
            if handler is None:
                return
        try:
            outcome = handler(retry_ms)
            if inspect.isawaitable(outcome):
                task = asyncio.ensure_future(outcome)
                self._tasks.add(task)
                task.add_done_callback(self._tasks.discard)
        except Exception:  # an observer's bug must not break the connection
            logger.exception("A call's on_let_go failed")

    def _let_go_notice(self, message: JSON) -> bool:
        """Whether ``message`` (a ``notifications/message``) is the server's let-go notice;
        if so its call is told."""
        told = let_go.read(message.get("params"))
        if told is None:
            return False
        self._heard_let_go(*told)
        return True
