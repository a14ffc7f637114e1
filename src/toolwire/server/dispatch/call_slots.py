"""Admission of tool calls: a fair share of the call slots for every caller.

``max_concurrent_calls`` calls run at once in the whole server. Each caller has a share of
``max_calls_per_caller`` of them (a quarter of the total by default) and may go past it only
into slots that still leave a whole share free for others: a lone caller can use three
quarters of the slots, and calls that one caller leaves hanging never take them all. A
caller's other calls wait in its own queue; when a slot frees, the callers with waiting
calls take turns (round robin), so one caller's backlog never delays the others. A caller may have at most
``max_queued_calls_per_caller`` calls waiting: more are refused at once with the JSON-RPC
error ``-31429`` (HTTP 429 for a JSON answer), which says how many are running and waiting.

Who the caller is (:func:`caller_key`): the authenticated identity when there is one; else,
over HTTP, the client's network address, whatever sessions it opened (behind a reverse proxy
every unauthenticated client shares the proxy's address: put authentication in front); else
the connection itself (one stdio client).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import OrderedDict, deque
from typing import Any

from ...errors import RPCError
from ...jsonrpc import SERVER_BUSY
from ..request import Request
from ..session import ServerConnection

__all__ = ["CallGate", "caller_key"]


def caller_key(request: Request, connection: ServerConnection) -> Any:
    """Whose share a call counts against (see the module docs)."""
    identity = request.identity
    if identity is not None:
        return ("identity", str(identity))
    if connection.peer is not None:  # HTTP: every session of one address is one caller
        return ("peer", connection.peer)
    return connection


class _Caller:
    __slots__ = ("running", "waiting")

    def __init__(self) -> None:
        self.running = 0
        self.waiting: deque[asyncio.Future[None]] = deque()


class CallGate:
    """The call slots of one event loop (see the module docs)."""

    def __init__(self, total: int, per_caller: int, queued: int) -> None:
        self.total = total
        self.per_caller = per_caller
        self.queued = queued
        self.running = 0
        self._callers: dict[Any, _Caller] = {}
        self._turns: OrderedDict[Any, _Caller] = OrderedDict()  # callers with calls waiting

    def _may_start(self, caller: _Caller) -> bool:
        """A free slot, within the caller's share or leaving a whole share free for others."""
        running = self.running
        return running < self.total and (
            caller.running < self.per_caller or running < self.total - self.per_caller
        )

    async def enter(self, key: Any) -> None:
        """Take a slot for ``key``'s call, waiting for its turn if need be."""
        caller = self._callers.get(key)
        if caller is None:
            caller = self._callers[key] = _Caller()
        if not caller.waiting and self._may_start(caller):
            caller.running += 1
            self.running += 1
            return
        if len(caller.waiting) >= self.queued:
            raise RPCError(
                SERVER_BUSY,
                f"Too many calls: this caller has {caller.running} running and "
                f"{len(caller.waiting)} waiting (max_queued_calls_per_caller); retry once "
                "some have answered, or cancel them",
                {"running": caller.running, "waiting": len(caller.waiting)},
            )
        turn: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        caller.waiting.append(turn)
        self._turns[key] = caller
        try:
            await turn
        except asyncio.CancelledError:
            if turn.done() and not turn.cancelled():  # the slot came with the cancellation
                self.leave(key)
            else:
                with contextlib.suppress(ValueError):  # unless handing out dropped it
                    caller.waiting.remove(turn)
                self._forget(key, caller)
            raise

    def leave(self, key: Any) -> None:
        """A call of ``key`` ended: its slot goes to the next caller in turn."""
        caller = self._callers[key]
        caller.running -= 1
        self.running -= 1
        self._forget(key, caller)
        if self._turns:
            self._hand_out()

    def _hand_out(self) -> None:
        """Free slots go to the callers with waiting calls, one call each per round."""
        turns = self._turns
        granted = True
        while granted and self.running < self.total:
            granted = False
            for key, caller in list(turns.items()):
                if self.running >= self.total:
                    return
                if not self._may_start(caller):
                    continue
                while caller.waiting:
                    turn = caller.waiting.popleft()
                    if not turn.done():
                        turn.set_result(None)
                        caller.running += 1
                        self.running += 1
                        granted = True
                        break
                turns.move_to_end(key)  # to the back of the line
                if not caller.waiting:
                    del turns[key]

    def _forget(self, key: Any, caller: _Caller) -> None:
        if not caller.waiting:
            self._turns.pop(key, None)
            if not caller.running:
                self._callers.pop(key, None)
