"""What the page sees of each exchange with the server: tool calls with their status,
progress, logs and result, and the JSON-RPC messages that belong to each.

:class:`Traffic` sorts every message the client sends or receives to the call or other
exchange it belongs to: by the task that sent it, by request id, by progress token.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

JSON = dict[str, Any]


def now_ms() -> float:
    return time.time() * 1000


@dataclass
class Exchange:
    """A request from the page other than ``tools/call``: only its messages are kept."""

    traffic: list[JSON] = field(default_factory=list)


@dataclass
class Call:
    """One ``tools/call`` made from the page, as the page sees it (see :meth:`as_json`)."""

    id: int
    tool: str
    arguments: JSON
    status: str = "running"  # running, ok, error (isError), cancelled, failed (no result)
    started_at: float = field(default_factory=now_ms)
    duration_ms: float | None = None
    progress: JSON | None = None
    result: JSON | None = None
    failure: str | None = None
    logs: list[JSON] = field(default_factory=list)
    traffic: list[JSON] = field(default_factory=list)
    task: asyncio.Task[None] | None = None
    server_task: JSON | None = None  # the server runs the call as a task: its last state
    cancel_reason: str = "Cancelled from the inspector"
    reference: str | None = None  # a masked error's reference id
    traceback: JSON | None = None  # the one the server logged under it (inspector/stderr.py)
    _started: float = field(default_factory=time.perf_counter)

    def finish(
        self, status: str, *, result: JSON | None = None, failure: str | None = None
    ) -> None:
        self.status, self.result, self.failure = status, result, failure
        self.duration_ms = round((time.perf_counter() - self._started) * 1000, 3)

    def as_json(self) -> JSON:
        return {
            "id": self.id,
            "tool": self.tool,
            "arguments": self.arguments,
            "status": self.status,
            "startedAt": self.started_at,
            "durationMs": self.duration_ms,
            "progress": self.progress,
            "serverTask": self.server_task,
            "result": self.result,
            "failure": self.failure,
            "traceback": self.traceback,
            "logs": self.logs,
            "traffic": self.traffic,
        }


Owner = Call | Exchange
# The exchange whose requests the current task sends (set by the task that sends them).
sending_for: ContextVar[Owner | None] = ContextVar("toolwire_inspector_owner", default=None)


class Traffic:
    """Sorts messages to their owners; ``running()`` gives the calls still running, to whom
    logs and questions that name no request belong when there is exactly one."""

    def __init__(self, running: Callable[[], list[Call]]) -> None:
        self.running = running
        self._ours: dict[Any, Owner] = {}  # JSON-RPC id of a request we sent -> owner
        self._theirs: dict[Any, Owner] = {}  # id of a server's question -> owner
        self._progress: dict[Any, Owner] = {}

    def clear(self) -> None:
        self._ours.clear()
        self._theirs.clear()
        self._progress.clear()

    def forget(self, owner: Owner) -> None:
        """An exchange is over: an answer that still arrives belongs to nobody."""
        for table in (self._ours, self._progress):
            for key in [key for key, value in table.items() if value is owner]:
                del table[key]

    def owner(self, direction: str, message: JSON) -> Owner | None:
        mid = message.get("id")
        method = message.get("method")
        params = params_of(message)
        if direction == "send":
            if method is None:  # our answer to a server's question
                return self._theirs.pop(mid, None)
            owner = sending_for.get()
            if owner is not None and mid is not None:
                self._ours[mid] = owner
                token = (params.get("_meta") or {}).get("progressToken")
                if token is not None:
                    self._progress[token] = owner
            return owner
        if method is None:  # the answer to one of our requests
            return self._ours.pop(mid, None)
        if method == "notifications/progress":
            return self._progress.get(params.get("progressToken"))
        # Logs and questions from the server name no request on stdio: they belong to the
        # call running, when there is exactly one.
        running = self.running()
        call = running[0] if len(running) == 1 else None
        if call is not None and mid is not None:
            self._theirs[mid] = call
        return call


def params_of(message: JSON) -> JSON:
    params = message.get("params")
    return params if isinstance(params, dict) else {}
