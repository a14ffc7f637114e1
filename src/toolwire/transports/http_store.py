"""Where legacy HTTP sessions and SSE event logs live: this process, or Redis for many.

One worker needs nothing more than memory (:class:`MemoryStore`, the default). Several
workers behind a load balancer share a :class:`RedisStore`:

* a session's negotiated state (revision, client capabilities and info, log level) is
  saved at ``initialize`` and on ``logging/setLevel``, so any worker can continue it;
* every event of a resumable SSE stream is appended to a Redis stream, so a client that
  reconnects with ``Last-Event-ID`` through another worker — even after the first one
  died — gets every event that had been sent;
* a change of the tool set is published, so workers holding a session's GET stream tell
  their clients.

Nothing is sticky: any request may reach any worker.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
from collections.abc import AsyncIterator, Callable
from typing import Any, Protocol

import orjson

logger = logging.getLogger("toolwire")

JSON = dict[str, Any]


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

    def replay(
        self, session_id: str, stream_id: str, after: int
    ) -> AsyncIterator[tuple[int, bytes]]: ...

    async def publish_change(self, event: JSON) -> None: ...


class MemoryStore:
    """One process: sessions and event logs stay in the HTTP app's own memory."""

    shared = False

    async def start(self, on_remote_change: Callable[[JSON], None]) -> None:
        return None

    async def close(self) -> None:
        return None

    async def save_session(self, session_id: str, state: JSON) -> None:
        return None

    async def load_session(self, session_id: str) -> JSON | None:
        return None

    async def drop_session(self, session_id: str) -> None:
        return None

    def record(self, session_id: str, stream_id: str, seq: int, data: bytes, last: bool) -> None:
        return None

    async def flush(self) -> None:
        return None

    async def replay(
        self, session_id: str, stream_id: str, after: int
    ) -> AsyncIterator[tuple[int, bytes]]:
        return
        yield  # an empty async generator

    async def publish_change(self, event: JSON) -> None:
        return None


class RedisStore:
    """Sessions, event logs and change announcements in Redis (``pip install 'toolwire[redis]'``).

    ``RedisStore("redis://127.0.0.1:6379/0")``; keys start with ``prefix``; sessions expire
    after ``session_ttl`` seconds without use, event logs after ``stream_ttl``; a log keeps
    at most ``max_events``; a replay of a stream still being written waits up to
    ``follow_timeout`` seconds for each next event.
    """

    shared = True

    def __init__(
        self,
        url: str = "redis://127.0.0.1:6379/0",
        *,
        prefix: str = "toolwire",
        session_ttl: int = 86_400,
        stream_ttl: int = 3_600,
        max_events: int = 1_024,
        follow_timeout: float = 30.0,
    ) -> None:
        self.url = url
        self.prefix = prefix
        self.session_ttl = session_ttl
        self.stream_ttl = stream_ttl
        self.max_events = max_events
        self.follow_timeout = follow_timeout
        self.instance = os.urandom(8).hex()  # tells our own announcements from others'
        self._redis: Any = None
        self._pending: asyncio.Queue[tuple[str, int, bytes, bool]] | None = None
        self._tasks: list[asyncio.Task[None]] = []

    def _client(self) -> Any:
        if self._redis is None:
            try:
                import redis.asyncio
            except ImportError:
                raise RuntimeError(
                    "RedisStore needs redis-py: pip install 'toolwire[redis]'"
                ) from None
            self._redis = redis.asyncio.Redis.from_url(self.url)
        return self._redis

    def _session_key(self, session_id: str) -> str:
        return f"{self.prefix}:session:{session_id}"

    def _stream_key(self, session_id: str, stream_id: str) -> str:
        return f"{self.prefix}:events:{session_id}:{stream_id}"

    @property
    def _channel(self) -> str:
        return f"{self.prefix}:changes"

    async def start(self, on_remote_change: Callable[[JSON], None]) -> None:
        self._client()
        self._pending = asyncio.Queue()
        self._tasks = [
            asyncio.create_task(self._write_events()),
            asyncio.create_task(self._listen(on_remote_change)),
        ]

    async def close(self) -> None:
        if self._pending is not None:
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(self._pending.join(), 2.0)  # let recorded events land
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        if self._redis is not None:
            await self._redis.aclose()
            self._redis = None

    # ------------------------------------------------------------ sessions

    async def save_session(self, session_id: str, state: JSON) -> None:
        await self._client().set(
            self._session_key(session_id), orjson.dumps(state), ex=self.session_ttl
        )

    async def load_session(self, session_id: str) -> JSON | None:
        key = self._session_key(session_id)
        raw = await self._client().get(key)
        if raw is None:
            return None
        await self._client().expire(key, self.session_ttl)
        state: JSON = orjson.loads(raw)
        return state

    async def drop_session(self, session_id: str) -> None:
        await self._client().delete(self._session_key(session_id))

    # ------------------------------------------------------------ event logs

    def record(self, session_id: str, stream_id: str, seq: int, data: bytes, last: bool) -> None:
        if self._pending is not None:
            self._pending.put_nowait((self._stream_key(session_id, stream_id), seq, data, last))

    async def flush(self) -> None:
        """Wait until every recorded event is in Redis."""
        if self._pending is not None:
            await self._pending.join()

    async def _write_events(self) -> None:
        assert self._pending is not None
        pending = self._pending
        while True:
            batch = [await pending.get()]
            while not pending.empty():
                batch.append(pending.get_nowait())
            try:
                async with self._client().pipeline(transaction=False) as pipe:
                    for key, seq, data, last in batch:
                        pipe.xadd(
                            key,
                            {"d": data, "l": b"1" if last else b"0"},
                            id=f"{seq}-1",
                            maxlen=self.max_events,
                            approximate=True,
                        )
                        pipe.expire(key, self.stream_ttl)
                    await pipe.execute()
            except Exception:
                logger.exception("Could not record %d SSE events in Redis", len(batch))
            finally:
                for _ in batch:
                    pending.task_done()

    async def replay(
        self, session_id: str, stream_id: str, after: int
    ) -> AsyncIterator[tuple[int, bytes]]:
        """The events after ``after``; while the stream is unfinished, wait for more."""
        client = self._client()
        key = self._stream_key(session_id, stream_id)
        last_id = f"{after}-1"
        for _ in range(100_000):
            found = await client.xread(
                {key: last_id}, count=256, block=int(self.follow_timeout * 1000)
            )
            if not found:
                return  # nothing more arrived in time: the writer is gone
            for entry_id, fields in found[0][1]:
                last_id = entry_id.decode() if isinstance(entry_id, bytes) else entry_id
                yield int(last_id.split("-")[0]), fields[b"d"]
                if fields.get(b"l") == b"1":
                    return

    # ------------------------------------------------------------ announcements

    async def publish_change(self, event: JSON) -> None:
        """Tell the other workers: ``{"list": kind}`` or ``{"updated": uri}``."""
        await self._client().publish(self._channel, orjson.dumps({**event, "from": self.instance}))

    async def _listen(self, on_remote_change: Callable[[JSON], None]) -> None:
        pubsub = self._client().pubsub()
        await pubsub.subscribe(self._channel)
        try:
            async for message in pubsub.listen():
                if message.get("type") != "message":
                    continue
                try:
                    event = orjson.loads(message.get("data") or b"")
                except orjson.JSONDecodeError:
                    continue  # not ours
                if isinstance(event, dict) and event.pop("from", None) != self.instance:
                    on_remote_change(event)
        finally:
            with contextlib.suppress(Exception):
                await pubsub.aclose()
