"""The runs of resumable tasks, shared by the workers of a :class:`~toolwire.transports.store.RedisStore`.

A task whose tool is declared ``resumable=True`` may run again, from the start, on another
worker. While it runs, its job (what another worker needs to run it) is kept in Redis under
its worker's name. It is handed over when that worker stops before the task ends (past its
shutdown grace) or dies (its heartbeat lapsed: whichever worker notices first hands over all
of its runs, at once and only once). A handover is an entry of a Redis stream read by a
consumer group: exactly one worker takes it, and an entry taken by a worker that died before
it adopted the run goes to another after ``heartbeat`` seconds (``XAUTOCLAIM``).

Keys under the store's prefix: ``run:ID`` (the job of task ID, while it runs), ``runs:WORKER``
(the ids of the runs a worker holds), ``run-workers`` (the workers holding runs) and the
stream ``handovers`` (group ``workers``).
"""

from __future__ import annotations

import asyncio
import logging
import math
from collections.abc import Awaitable, Callable
from typing import Any

import orjson

from .contract import SLICE, StoreUnavailable

logger = logging.getLogger("toolwire")

JSON = dict[str, Any]
GROUP = "workers"
BATCH = 8  # handovers taken at once

# Hand over every run of a dead worker, once: the first worker to remove it from the set of
# workers holding runs queues them all.
SWEEP = """
if redis.call('SREM', KEYS[1], ARGV[1]) == 0 then return 0 end
local ids = redis.call('SMEMBERS', KEYS[2])
for _, id in ipairs(ids) do redis.call('XADD', KEYS[3], '*', 'task', id) end
redis.call('DEL', KEYS[2])
return #ids
"""

# What a worker does with a handover: True once the run is its own (or needs no one).
Adopt = Callable[[str, JSON], Awaitable[bool]]


class RunQueue:
    """The runs this worker holds, and the handovers it takes (see the module)."""

    def __init__(self, store: Any) -> None:
        self.store = store
        prefix = store.prefix
        self._workers = f"{prefix}:run-workers"
        self._stream = f"{prefix}:handovers"
        self._prefix = prefix

    def _job_key(self, task_id: str) -> str:
        return f"{self._prefix}:run:{task_id}"

    def _runs_key(self, instance: str) -> str:
        return f"{self._prefix}:runs:{instance}"

    async def keep(self, task_id: str, job: JSON, ttl_s: float) -> None:
        """This worker runs ``task_id`` (again): its job is kept until :meth:`end`."""
        store = self.store
        pipe = store._client().pipeline(transaction=True)
        pipe.set(self._job_key(task_id), orjson.dumps(job), ex=max(1, math.ceil(ttl_s)))
        pipe.sadd(self._runs_key(store.instance), task_id)
        pipe.sadd(self._workers, store.instance)
        await store._call(pipe.execute())

    async def end(self, task_id: str) -> None:
        """The run of ``task_id`` ended here: nobody is to run it again."""
        store = self.store
        pipe = store._client().pipeline(transaction=True)
        pipe.delete(self._job_key(task_id))
        pipe.srem(self._runs_key(store.instance), task_id)
        await store._call(pipe.execute())

    async def hand_over(self, task_ids: list[str]) -> None:
        """This worker stops before these runs end: another worker is to take each."""
        store = self.store
        pipe = store._client().pipeline(transaction=True)
        for task_id in task_ids:
            pipe.srem(self._runs_key(store.instance), task_id)
            pipe.xadd(self._stream, {"task": task_id})
        await store._call(pipe.execute())

    async def take(self, adopt: Adopt) -> None:
        """Take handovers for as long as this worker runs (a task of the store's)."""
        store = self.store
        loop = asyncio.get_running_loop()
        grouped = False
        swept = 0.0
        while True:
            try:
                if not grouped:
                    await self._group()
                    grouped = True
                if loop.time() - swept >= store.heartbeat / 3:
                    swept = loop.time()
                    await self._sweep()
                for entry_id, fields in await self._next():
                    await self._adopt(entry_id, fields, adopt)
            except StoreUnavailable as exc:
                logger.warning("Could not take task handovers: %s", exc)
                await asyncio.sleep(SLICE)

    async def _group(self) -> None:
        create = self.store._client().xgroup_create(self._stream, GROUP, id="0", mkstream=True)
        try:
            await self.store._call(create)
        except StoreUnavailable as exc:
            if "BUSYGROUP" not in str(exc.__cause__):  # (the group exists already)
                raise

    async def _sweep(self) -> None:
        """Hand over the runs of the workers whose heartbeat lapsed."""
        store = self.store
        client = store._client()
        for raw in await store._call(client.smembers(self._workers)):
            instance = raw.decode() if isinstance(raw, bytes) else raw
            if instance == store.instance or await store.worker_alive(instance):
                continue
            keys = [self._workers, self._runs_key(instance), self._stream]
            count = await store._call(client.eval(SWEEP, len(keys), *keys, instance))
            if count:
                logger.warning(
                    "Worker %s is gone: %d of its task runs handed over", instance, count
                )

    async def _next(self) -> list[tuple[bytes, dict[bytes, bytes]]]:
        """Handovers taken by a worker that died before it adopted them, else new ones."""
        store = self.store
        client = store._client()
        idle_ms = max(1, math.ceil(store.heartbeat * 1000))
        claimed = await store._call(
            client.xautoclaim(self._stream, GROUP, store.instance, idle_ms, "0-0", count=BATCH)
        )
        if claimed[1]:
            return list(claimed[1])
        block_ms = math.ceil(SLICE * 1000)
        read = await store._call(
            client.xreadgroup(
                GROUP, store.instance, {self._stream: ">"}, count=BATCH, block=block_ms
            ),
            extra=SLICE,
        )
        return [entry for _stream, entries in read or () for entry in entries]

    async def _adopt(self, entry_id: bytes, fields: dict[bytes, bytes], adopt: Adopt) -> None:
        store = self.store
        client = store._client()
        task_id = fields.get(b"task", b"").decode()
        raw = await store._call(client.get(self._job_key(task_id))) if task_id else None
        if raw is not None and not await adopt(task_id, orjson.loads(raw)):
            await store._call(client.xadd(self._stream, {"task": task_id}))  # for another
        pipe = client.pipeline(transaction=True)
        pipe.xack(self._stream, GROUP, entry_id)
        pipe.xdel(self._stream, entry_id)
        await store._call(pipe.execute())
