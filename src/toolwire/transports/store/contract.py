"""What a session store is (:class:`SessionStore`), the errors it raises, and how long one
blocking read of a shared store lasts: the contract the HTTP app and the stores
(:mod:`toolwire.transports.store.stores`) share."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any, Protocol

__all__ = ["SLICE", "SessionStore", "StoreUnavailable", "StreamLog", "WriterGone"]

JSON = dict[str, Any]
SLICE = 1.0  # seconds one blocking read of an event log waits, well under any socket timeout


class StoreUnavailable(Exception):
    """The session store did not answer in time (or refused): the request can be retried."""


class WriterGone(Exception):
    """The worker writing a followed event log is gone: the log will never be finished."""


class StreamLog(Protocol):
    """What a store knows of a recorded stream: its last sequence number and who writes it."""

    last: int
    request_id: str | int | None


class SessionStore(Protocol):
    """The contract of a store; ``shared`` says whether other processes see the same data."""

    shared: bool

    async def start(self, on_remote_change: Callable[[JSON], None]) -> None: ...

    async def close(self) -> None: ...

    async def save_session(self, session_id: str, state: JSON) -> None: ...

    async def load_session(self, session_id: str) -> JSON | None: ...

    async def drop_session(self, session_id: str) -> None: ...

    def record(
        self, session_id: str, stream_id: str, seq: int, data: bytes, last: bool
    ) -> None: ...

    async def flush(self) -> None: ...

    def open_stream(
        self, session_id: str, stream_id: str, request_id: str | int | None
    ) -> None: ...

    async def find_stream(self, session_id: str, stream_id: str) -> StreamLog | None: ...

    def follow(
        self, session_id: str, log: StreamLog, stream_id: str, after: int
    ) -> AsyncIterator[tuple[int, bytes, bool]]: ...

    async def conclude(self, session_id: str, stream_id: str, seq: int, data: bytes) -> None: ...

    async def publish_change(self, event: JSON) -> None: ...

    # Tasks (toolwire.extensions.tasks) shared between workers: the state each worker reads, and
    # whether the worker that runs a task is still alive.
    instance: str

    async def save_task(self, task_id: str, state: JSON, ttl_s: float) -> None: ...

    async def load_task(self, task_id: str) -> JSON | None: ...

    async def worker_alive(self, instance: str) -> bool: ...

    # Runs of resumable tasks, handed over to another worker when theirs stops or dies
    # (toolwire.transports.store.runs).
    async def keep_run(self, task_id: str, job: JSON, ttl_s: float) -> None: ...

    async def end_run(self, task_id: str) -> None: ...

    async def hand_over(self, task_ids: list[str]) -> None: ...

    def take_runs(self, adopt: Callable[[str, JSON], Awaitable[bool]]) -> None: ...

    # Once-only marks and shared secrets (DPoP proof replay, DPoP nonces:
    # toolwire.auth.dpop), seen alike by every worker.
    async def claim(self, key: str, ttl_s: float) -> bool: ...

    async def shared_secret(self, name: str) -> bytes: ...

    # Values with a lifetime (per-caller state, cached results: toolwire.server.state).
    async def get_value(self, name: str) -> bytes | None: ...

    async def set_value(self, name: str, data: bytes, ttl_s: float) -> None: ...

    async def delete_value(self, name: str) -> None: ...
