"""Where legacy HTTP sessions and SSE event logs live: this process, or Redis for many.

One worker needs nothing more than memory (:class:`MemoryStore`, the default). Several
workers behind a load balancer share a :class:`RedisStore`:

* a session's negotiated state (revision, client capabilities and info, log level) is
  saved at ``initialize`` and on ``logging/setLevel``, so any worker can continue it;
* every event of a resumable SSE stream is appended to a Redis stream, so a client that
  reconnects with ``Last-Event-ID`` through another worker — even after the first one
  died — gets every event that had been sent, then what the call's worker appends, up to
  the call's answer; each worker keeps a heartbeat key alive, and a resumed stream whose
  worker stopped beating ends with a JSON-RPC error instead of waiting for ever;
* a change of the tool set is published, so workers holding a session's GET stream tell
  their clients.

Nothing is sticky: any request may reach any worker. Every Redis command is bounded
(``timeout``): a Redis that refuses or stops answering raises :class:`StoreUnavailable`,
which the HTTP app answers with ``503`` and ``Retry-After``; nothing is retried behind the
client's back, and the next request after Redis is back is served as usual.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import os
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from typing import Any, TypeVar

import orjson

from ..._compat import cancelled, within
from ..._pip import extra_install
from .contract import (
    JSON,
    SLICE,
    SessionStore,
    StoreUnavailable,
    StreamLog,
    WriterGone,
)

__all__ = [
    "SLICE",
    "MemoryStore",
    "RecordedStream",
    "RedisStore",
    "SessionStore",
    "StoreUnavailable",
    "StreamLog",
    "WriterGone",
]

logger = logging.getLogger("toolwire")

_T = TypeVar("_T")
CLAIMS_PRUNE_AT = 10_000  # expired once-only marks are dropped past this many


class MemoryStore:
    """One process: sessions and event logs stay in the HTTP app's own memory."""

    shared = False

    def __init__(self) -> None:
        self._claims: dict[str, float] = {}  # once-only marks -> when they expire
        self._secrets: dict[str, bytes] = {}
        self._values: dict[str, tuple[float, bytes]] = {}  # name -> (expires, data)

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

    def open_stream(self, session_id: str, stream_id: str, request_id: str | int | None) -> None:
        return None

    async def find_stream(self, session_id: str, stream_id: str) -> StreamLog | None:
        return None

    async def follow(
        self, session_id: str, log: StreamLog, stream_id: str, after: int
    ) -> AsyncIterator[tuple[int, bytes, bool]]:
        return
        yield  # an empty async generator

    async def conclude(self, session_id: str, stream_id: str, seq: int, data: bytes) -> None:
        return None

    async def publish_change(self, event: JSON) -> None:
        return None

    instance = "this-process"  # tasks live in the server's own memory here

    async def save_task(self, task_id: str, state: JSON, ttl_s: float) -> None:
        return None

    async def load_task(self, task_id: str) -> JSON | None:
        return None

    async def worker_alive(self, instance: str) -> bool:
        return True

    async def keep_run(self, task_id: str, job: JSON, ttl_s: float) -> None:
        return None

    async def end_run(self, task_id: str) -> None:
        return None

    async def hand_over(self, task_ids: list[str]) -> None:
        return None

    def take_runs(self, adopt: Callable[[str, JSON], Awaitable[bool]]) -> None:
        return None

    async def claim(self, key: str, ttl_s: float) -> bool:
        """True the first time ``key`` is claimed within ``ttl_s`` seconds."""
        now = time.monotonic()
        claims = self._claims
        if len(claims) > CLAIMS_PRUNE_AT:
            for old in [k for k, until in claims.items() if until <= now]:
                del claims[old]
        until = claims.get(key)
        if until is not None and until > now:
            return False
        claims[key] = now + ttl_s
        return True

    async def shared_secret(self, name: str) -> bytes:
        """A random secret named ``name``, the same for the life of this store."""
        return self._secrets.setdefault(name, os.urandom(32))

    async def get_value(self, name: str) -> bytes | None:
        found = self._values.get(name)
        if found is None:
            return None
        if found[0] <= time.monotonic():
            del self._values[name]
            return None
        return found[1]

    async def set_value(self, name: str, data: bytes, ttl_s: float) -> None:
        now = time.monotonic()
        values = self._values
        if len(values) > CLAIMS_PRUNE_AT and name not in values:
            for old in [k for k, (until, _) in values.items() if until <= now]:
                del values[old]
        values[name] = (now + ttl_s, data)

    async def delete_value(self, name: str) -> None:
        self._values.pop(name, None)


@dataclass
class RecordedStream:
    """A stream found in Redis: its last recorded sequence number, the request it answers
    (None for a GET stream) and the worker writing it (None when unknown)."""

    last: int
    request_id: str | int | None
    owner: str | None


class RedisStore:
    """Sessions, event logs and change announcements in Redis (``pip install 'toolwire[redis]'``).

    ``RedisStore("redis://127.0.0.1:6379/0")``; keys start with ``prefix``; sessions expire
    after ``session_ttl`` seconds without use, event logs after ``stream_ttl``; a log keeps
    at most ``max_events``. Each worker refreshes a heartbeat every ``heartbeat / 3`` seconds
    that lives ``heartbeat`` seconds: a stream resumed through another worker follows its log
    for as long as the writing worker beats, and ends with an error at most ``heartbeat`` + 2
    seconds after that worker died (``follow_timeout`` seconds without an event when its
    writer is unknown); a task of a dead worker is reported failed as soon as its heartbeat
    lapsed. Every Redis command must answer within ``timeout`` seconds, or
    :class:`StoreUnavailable` is raised.
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
        heartbeat: float = 5.0,
        timeout: float = 2.0,
    ) -> None:
        self.url = url
        self.prefix = prefix
        self.session_ttl = session_ttl
        self.stream_ttl = stream_ttl
        self.max_events = max_events
        self.follow_timeout = follow_timeout
        self.heartbeat = heartbeat
        self.timeout = timeout
        self.instance = os.urandom(8).hex()  # tells our own announcements from others'
        self._redis: Any = None
        self._errors: tuple[type[BaseException], ...] = (OSError, asyncio.TimeoutError)
        self._pending: asyncio.Queue[tuple[str, str, str, int, bytes, bool]] | None = None
        self._tasks: list[asyncio.Task[None]] = []
        self._run_queue: Any = None  # the runs of resumable tasks, once used

    def _client(self) -> Any:
        if self._redis is None:
            try:
                import redis.asyncio  # optional: redis (the redis extra)
                from redis.asyncio.retry import Retry  # optional: redis (the redis extra)
                from redis.backoff import NoBackoff  # optional: redis (the redis extra)
                from redis.exceptions import RedisError  # optional: redis (the redis extra)
            except ImportError:
                raise RuntimeError(f"RedisStore needs redis-py: {extra_install('redis')}") from None
            self._errors = (RedisError, OSError, asyncio.TimeoutError)
            # A socket timeout above the longest blocking read (SLICE): a silent Redis is
            # noticed within `timeout`, never mistaken for a quiet log. One quick retry
            # replaces a pooled connection that a restarted Redis closed.
            self._redis = redis.asyncio.Redis.from_url(
                self.url,
                socket_timeout=self.timeout + SLICE,
                socket_connect_timeout=self.timeout,
                retry=Retry(NoBackoff(), 1),
            )
        return self._redis

    async def _call(self, command: Awaitable[_T], extra: float = 0.0) -> _T:
        """One Redis command, bounded by ``timeout`` (+ ``extra`` for a blocking read)."""
        try:
            return await within(command, self.timeout + extra)
        except self._errors as exc:
            raise StoreUnavailable(f"Redis did not answer: {exc!r}") from exc

    def _session_key(self, session_id: str) -> str:
        return f"{self.prefix}:session:{session_id}"

    def _stream_key(self, session_id: str, stream_id: str) -> str:
        return f"{self.prefix}:events:{session_id}:{stream_id}"

    def _meta_key(self, session_id: str, stream_id: str) -> str:
        return f"{self.prefix}:stream:{session_id}:{stream_id}"

    def _task_key(self, task_id: str) -> str:
        return f"{self.prefix}:task:{task_id}"

    def _worker_key(self, instance: str) -> str:
        return f"{self.prefix}:worker:{instance}"

    async def ping(self) -> None:
        """Raise :class:`StoreUnavailable` unless Redis answers (readiness checks)."""
        await self._call(self._client().ping())

    @property
    def _channel(self) -> str:
        return f"{self.prefix}:changes"

    async def start(self, on_remote_change: Callable[[JSON], None]) -> None:
        self._client()
        self._pending = asyncio.Queue()
        self._tasks = [
            asyncio.create_task(self._write_events()),
            asyncio.create_task(self._listen(on_remote_change)),
            asyncio.create_task(self._beat()),
        ]

    async def close(self) -> None:
        if self._pending is not None:
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(self._pending.join(), 2.0)  # let recorded events land
        await cancelled(self._tasks)
        if self._redis is not None:
            with contextlib.suppress(StoreUnavailable):  # resumed streams end at once
                await self._call(self._redis.delete(self._worker_key(self.instance)))
            with contextlib.suppress(*self._errors):
                await self._redis.aclose()
            self._redis = None

    async def _beat(self) -> None:
        """Keep this worker's heartbeat alive while it runs (see ``heartbeat``)."""
        key = self._worker_key(self.instance)
        ttl_ms = max(1, math.ceil(self.heartbeat * 1000))
        failing = False
        while True:
            try:
                await self._call(self._client().set(key, b"1", px=ttl_ms))
                if failing:
                    logger.warning("Redis answers again")
                failing = False
            except StoreUnavailable as exc:
                if not failing:
                    logger.warning("Redis is unavailable: %s", exc)
                failing = True
            await asyncio.sleep(self.heartbeat / 3)

    # ------------------------------------------------------------ sessions

    async def save_session(self, session_id: str, state: JSON) -> None:
        await self._call(
            self._client().set(
                self._session_key(session_id), orjson.dumps(state), ex=self.session_ttl
            )
        )

    async def load_session(self, session_id: str) -> JSON | None:
        key = self._session_key(session_id)
        pipe = self._client().pipeline(transaction=False)
        pipe.get(key)
        pipe.expire(key, self.session_ttl)
        raw, _ = await self._call(pipe.execute())
        if raw is None:
            return None
        state: JSON = orjson.loads(raw)
        return state

    async def drop_session(self, session_id: str) -> None:
        await self._call(self._client().delete(self._session_key(session_id)))

    # ------------------------------------------------------------ event logs

    def record(self, session_id: str, stream_id: str, seq: int, data: bytes, last: bool) -> None:
        if self._pending is not None:
            self._pending.put_nowait(("event", session_id, stream_id, seq, data, last))

    def open_stream(self, session_id: str, stream_id: str, request_id: str | int | None) -> None:
        """Say that a resumable stream exists (its priming event is about to be sent), who
        writes it and which request it answers."""
        if self._pending is not None:
            meta = orjson.dumps({"owner": self.instance, "request": request_id})
            self._pending.put_nowait(("open", session_id, stream_id, 0, meta, False))

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
                pipe = self._client().pipeline(transaction=False)
                for kind, session_id, stream_id, seq, data, last in batch:
                    if kind == "open":
                        pipe.set(self._meta_key(session_id, stream_id), data, ex=self.stream_ttl)
                        continue
                    key = self._stream_key(session_id, stream_id)
                    pipe.xadd(
                        key,
                        {"d": data, "l": b"1" if last else b"0"},
                        id=f"{seq}-1",
                        maxlen=self.max_events,
                        approximate=True,
                    )
                    pipe.expire(key, self.stream_ttl)
                await self._call(pipe.execute(raise_on_error=False))
            except StoreUnavailable as exc:
                logger.warning("Could not record %d SSE events in Redis: %s", len(batch), exc)
            finally:
                for _ in batch:
                    pending.task_done()

    async def find_stream(self, session_id: str, stream_id: str) -> RecordedStream | None:
        """What Redis knows of a stream, or None when it never recorded one by that id."""
        pipe = self._client().pipeline(transaction=False)
        pipe.get(self._meta_key(session_id, stream_id))
        pipe.xrevrange(self._stream_key(session_id, stream_id), count=1)
        meta, newest = await self._call(pipe.execute())
        if meta is None and not newest:
            return None
        found = orjson.loads(meta) if meta is not None else {}
        last = int(_entry_id(newest[0][0]).split("-")[0]) if newest else 0
        return RecordedStream(last, found.get("request"), found.get("owner"))

    async def follow(
        self, session_id: str, log: StreamLog, stream_id: str, after: int
    ) -> AsyncIterator[tuple[int, bytes, bool]]:
        """The events after ``after`` as ``(seq, data, last)``, then each one appended, until
        the last one. Raises :class:`WriterGone` once the writing worker's heartbeat has
        expired (or, its writer unknown, after ``follow_timeout`` seconds without an event).
        Every blocking read lasts at most ``SLICE`` seconds."""
        client = self._client()
        key = self._stream_key(session_id, stream_id)
        owner = getattr(log, "owner", None)
        last_id = f"{after}-1"
        quiet = 0.0
        missing = False  # the writer's heartbeat was found expired once (one more read)
        while True:
            found = await self._call(
                client.xread({key: last_id}, count=256, block=int(SLICE * 1000)), SLICE
            )
            if found:
                quiet = 0.0
                for entry_id, fields in found[0][1]:
                    last_id = _entry_id(entry_id)
                    last = fields.get(b"l") == b"1"
                    yield int(last_id.split("-")[0]), fields[b"d"], last
                    if last:
                        return
                continue
            quiet += SLICE
            if owner is not None:
                alive = await self._call(client.exists(self._worker_key(owner)))
                if not alive and missing:  # and nothing came in one more read
                    raise WriterGone(owner)
                missing = not alive
            elif quiet >= self.follow_timeout:
                raise WriterGone("unknown")

    async def conclude(self, session_id: str, stream_id: str, seq: int, data: bytes) -> None:
        """Append the last event ``seq`` of a stream whose writer is gone (once: a second
        attempt, by another reader, fails on the sequence and changes nothing)."""
        key = self._stream_key(session_id, stream_id)
        with contextlib.suppress(*self._errors):
            await self._call(self._client().xadd(key, {"d": data, "l": b"1"}, id=f"{seq}-1"))

    # ------------------------------------------------------------ tasks

    async def save_task(self, task_id: str, state: JSON, ttl_s: float) -> None:
        ttl = max(1, math.ceil(ttl_s))
        await self._call(self._client().set(self._task_key(task_id), orjson.dumps(state), ex=ttl))

    async def claim(self, key: str, ttl_s: float) -> bool:
        """True for the first worker to claim ``key`` within ``ttl_s`` seconds (SET NX)."""
        ttl = max(1, math.ceil(ttl_s))
        done = await self._call(
            self._client().set(f"{self.prefix}:once:{key}", b"1", nx=True, ex=ttl)
        )
        return bool(done)

    async def shared_secret(self, name: str) -> bytes:
        """A random secret named ``name`` that every worker reads alike (the first sets it)."""
        key = f"{self.prefix}:secret:{name}"
        await self._call(self._client().set(key, os.urandom(32), nx=True))
        value = await self._call(self._client().get(key))
        return bytes(value)

    async def get_value(self, name: str) -> bytes | None:
        raw = await self._call(self._client().get(f"{self.prefix}:value:{name}"))
        return None if raw is None else bytes(raw)

    async def set_value(self, name: str, data: bytes, ttl_s: float) -> None:
        ttl_ms = max(1, math.ceil(ttl_s * 1000))
        await self._call(self._client().set(f"{self.prefix}:value:{name}", data, px=ttl_ms))

    async def delete_value(self, name: str) -> None:
        await self._call(self._client().delete(f"{self.prefix}:value:{name}"))

    async def load_task(self, task_id: str) -> JSON | None:
        raw = await self._call(self._client().get(self._task_key(task_id)))
        if raw is None:
            return None
        state: JSON = orjson.loads(raw)
        return state

    async def worker_alive(self, instance: str) -> bool:
        """Whether the worker ``instance`` beat within ``heartbeat`` seconds."""
        return bool(await self._call(self._client().exists(self._worker_key(instance))))

    # ------------------------------------------------------------ runs of resumable tasks

    def _runs(self) -> Any:
        if self._run_queue is None:
            # lazy: the run queue, only for a store that runs Tasks
            from .runs import RunQueue

            self._run_queue = RunQueue(self)
        return self._run_queue

    async def keep_run(self, task_id: str, job: JSON, ttl_s: float) -> None:
        await self._runs().keep(task_id, job, ttl_s)

    async def end_run(self, task_id: str) -> None:
        await self._runs().end(task_id)

    async def hand_over(self, task_ids: list[str]) -> None:
        await self._runs().hand_over(task_ids)

    def take_runs(self, adopt: Callable[[str, JSON], Awaitable[bool]]) -> None:
        """Take the runs other workers hand over, while this store runs."""
        self._tasks.append(asyncio.create_task(self._runs().take(adopt)))

    # ------------------------------------------------------------ announcements

    async def publish_change(self, event: JSON) -> None:
        """Tell the other workers: ``{"list": kind}`` or ``{"updated": uri}``."""
        await self._call(
            self._client().publish(self._channel, orjson.dumps({**event, "from": self.instance}))
        )

    async def _listen(self, on_remote_change: Callable[[JSON], None]) -> None:
        """Hear the other workers' announcements; subscribe again after Redis trouble."""
        while True:
            try:
                await self._listen_once(on_remote_change)
            except self._errors as exc:
                logger.warning("Lost the Redis change channel (%r); subscribing again", exc)
            await asyncio.sleep(SLICE)

    async def _listen_once(self, on_remote_change: Callable[[JSON], None]) -> None:
        pubsub = self._client().pubsub()
        try:
            await within(pubsub.subscribe(self._channel), self.timeout)
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


def _entry_id(raw: bytes | str) -> str:
    return raw.decode() if isinstance(raw, bytes) else raw
