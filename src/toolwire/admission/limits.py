"""Rate limits for ``tools/call``: token buckets per caller, per tool and for the whole server.

::

    from toolwire import Server
    from toolwire.admission.limits import RateLimiter

    mcp = Server(
        "search",
        rate_limits=RateLimiter(
            per_caller="60/minute",                              # each caller
            per_tool={"search": "10/second", "*": "120/minute"},  # each caller, per tool
            total="1000/second",                                 # everyone together
        ),
    )

A rate is ``"N/second"``, ``"N/minute"`` or ``"N/hour"`` (also ``s``, ``sec``, ``min``,
``m``, ``h``), optionally followed by ``burst B``: a bucket holds ``B`` tokens (``N`` by
default) and refills at ``N`` per period, so a quiet caller may make ``B`` calls at once
and then ``N`` per period. A call takes one token from every bucket that applies, or none
when one of them is empty; the caller then gets an ``isError`` result that names the limit
and says when to retry (also as seconds in ``_meta["io.toolwire/retryAfter"]``). The tool
does not run. ``per_tool`` limits count each caller separately; ``"*"`` covers tools not
named; a name the server does not serve shares one bucket per caller with every other
such name. Buckets still owed tokens are never forgotten (see :class:`MemoryBuckets`).

The caller is the authenticated identity (``str(request.identity)``: subject, client id, or
``token:<digest>`` for a token that names neither) when there is one, else the
connection: one stdio client, one legacy HTTP session. A 2026-07-28 HTTP request without authentication is a connection of its own, so there only
``total`` binds: put authentication in front of per-caller limits on HTTP (a legacy
session that several workers serve also counts once per worker without it).

Buckets live in memory by default (one process); ``store=RedisBuckets(url)`` (from
:mod:`toolwire.admission.limits_redis`) keeps them in Redis, so the limits hold across worker
processes.
"""

from __future__ import annotations

import logging
import math
import os
import re
import secrets
import threading
import time
import weakref
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from ..server.request import Request
from ..server.session import ServerConnection
from .limits_redis import RedisBuckets

logger = logging.getLogger("toolwire")

JSON = dict[str, Any]

RETRY_AFTER_META = "io.toolwire/retryAfter"
MAX_KEYS = 100_000  # buckets kept in memory at most (only refilled ones are ever forgotten)
SWEEP_INTERVAL_S = 0.25  # a full table is swept for refilled buckets at most this often
CONNECTION_KEYS = 1_024  # buckets of one unauthenticated connection (its own table)
STORE_RETRY_S = 1.0  # what a refused call is told when the bucket store cannot be reached

_PERIODS = {
    **dict.fromkeys(("s", "sec", "second", "seconds"), 1.0),
    **dict.fromkeys(("m", "min", "minute", "minutes"), 60.0),
    **dict.fromkeys(("h", "hr", "hour", "hours"), 3600.0),
}
_RATE = re.compile(r"\s*(\d+)\s*/\s*([A-Za-z]+)\s*(?:burst\s*(\d+)\s*)?", re.IGNORECASE)


@dataclass(frozen=True)
class Rate:
    """``count`` calls per ``period`` seconds, with up to ``burst`` at once."""

    count: int
    period: float
    burst: int
    text: str

    @property
    def per_second(self) -> float:
        return self.count / self.period

    @classmethod
    def parse(cls, value: str | Rate, burst: int | None = None) -> Rate:
        """``"10/second"``, ``"60/min"``, ``"100/hour burst 20"``; a ValueError says what is wrong."""
        if isinstance(value, Rate):
            return value if burst is None else cls(value.count, value.period, burst, value.text)
        match = _RATE.fullmatch(value) if isinstance(value, str) else None
        period = _PERIODS.get(match.group(2).lower()) if match else None
        if match is None or period is None:
            raise ValueError(
                f"Invalid rate {value!r}: use N/second, N/minute or N/hour, optionally with "
                "'burst B' (e.g. '60/minute' or '10/second burst 20')"
            )
        count = int(match.group(1))
        size = burst if burst is not None else int(match.group(3) or count)
        if count < 1 or size < 1:
            raise ValueError(f"Invalid rate {value!r}: the count and the burst must be at least 1")
        unit = {1.0: "second", 60.0: "minute", 3600.0: "hour"}[period]
        text = f"{count}/{unit}" + (f" burst {size}" if size != count else "")
        return cls(count, period, size, text)


# A demand on one bucket: its key and rate, and which limit it is (for the message).
Demand = tuple[str, Rate, str]
# A refusal from a store: the index of the demand that waits longest, and the wait in seconds.
Verdict = tuple[int, float] | None


class MemoryBuckets:
    """Token buckets in this process's memory (the default store).

    ``clock`` is a monotonic clock in seconds (injectable for tests). The table holds at
    most ``max_keys`` buckets. Only buckets that have refilled may be forgotten (an idle
    caller's full bucket is the same as none); a bucket still owing tokens never is, so
    no flood of other keys can hand a caller a fresh burst. When the table is full of
    such buckets, a call that needs a new one is refused until some have refilled
    (``take`` answers index -1 and the wait).
    """

    def __init__(self, clock: Callable[[], float] = time.monotonic, max_keys: int = MAX_KEYS):
        self.clock = clock
        self.max_keys = max_keys
        # key -> [tokens, stamp, full_at]: the level at `stamp` and when it is full again
        self._buckets: dict[str, list[float]] = {}
        self._lock = threading.Lock()  # servers on several threads may share a limiter
        self._next_sweep = -math.inf  # no sweep before then: nothing could have refilled

    def take(self, demands: Sequence[Demand], *, peek: bool = False) -> Verdict:
        """Take one token from each bucket, all or nothing (``peek``: only check)."""
        with self._lock:
            return self._take(demands, peek)

    def _take(self, demands: Sequence[Demand], peek: bool) -> Verdict:
        now = self.clock()
        buckets = self._buckets
        levels: list[float] = []
        worst: Verdict = None
        new = 0
        for index, (key, rate, _limit) in enumerate(demands):
            state = buckets.get(key)
            if state is None:
                level = float(rate.burst)
                new += 1
            else:
                level = min(rate.burst, state[0] + max(0.0, now - state[1]) * rate.per_second)
            if level < 1.0:
                wait = (1.0 - level) / rate.per_second
                if worst is None or wait > worst[1]:
                    worst = (index, wait)
            levels.append(level)
        if worst is not None or peek:
            return worst
        if new and len(buckets) + new > self.max_keys:
            room = self._make_room(now, new)
            if room is not None:
                return (-1, room)
        for (key, rate, _limit), level in zip(demands, levels, strict=True):
            level -= 1.0
            buckets[key] = [level, now, now + (rate.burst - level) / rate.per_second]
        return None

    def _make_room(self, now: float, needed: int) -> float | None:
        """Forget the buckets that have refilled; None if ``needed`` new ones now fit, else
        how long until room may be made. A sweep reads the whole table, so they are spaced:
        after one that freed little, the next waits for the first debt to be repaid (and
        at least ``SWEEP_INTERVAL_S``)."""
        if now < self._next_sweep:
            return self._next_sweep - now
        buckets = self._buckets
        soonest = math.inf
        for key, state in list(buckets.items()):
            if state[2] <= now:
                del buckets[key]
            elif state[2] < soonest:
                soonest = state[2]
        if len(buckets) <= self.max_keys * 3 // 4:
            self._next_sweep = -math.inf
        else:
            self._next_sweep = max(soonest, now + SWEEP_INTERVAL_S)
        if len(buckets) + needed <= self.max_keys:
            return None
        return self._next_sweep - now

    def __len__(self) -> int:
        return len(self._buckets)


class AsyncBuckets(Protocol):
    """A bucket store reached over the network (e.g. :class:`RedisBuckets`)."""

    async def take(self, demands: Sequence[Demand]) -> Verdict: ...

    async def aclose(self) -> None: ...


@dataclass(frozen=True)
class Refusal:
    """Why a call may not run now, and when it may."""

    message: str
    retry_after: float
    limit: str  # "caller", "tool", "total" or "store"

    def result(self) -> JSON:
        """The ``tools/call`` result the model reads."""
        return {
            "content": [{"type": "text", "text": self.message}],
            "isError": True,
            "_meta": {RETRY_AFTER_META: self.retry_after},
        }


def _seconds(wait: float) -> float:
    """A wait rounded up to a tenth of a second: retrying then is never too early."""
    return max(0.1, math.ceil(wait * 10 - 1e-9) / 10)


# A short random id per connection, for callers without an identity (weak: it goes with it).
_CONNECTION_TAGS: weakref.WeakKeyDictionary[Any, str] = weakref.WeakKeyDictionary()
# The buckets of callers without an identity live with their connection, in memory even
# when the others are in Redis (a connection is one process's): a closed connection's go
# with it, and a flood of short-lived connections fills no shared table.
_CONNECTION_BUCKETS: weakref.WeakKeyDictionary[Any, MemoryBuckets] = weakref.WeakKeyDictionary()


def caller_of(request: Request, connection: ServerConnection) -> str:
    """Who is calling: the authenticated identity, else ``connection:<short id>``."""
    identity = request.identity
    if identity is not None:
        return str(identity)
    tag = _CONNECTION_TAGS.get(connection)
    if tag is None:
        tag = _CONNECTION_TAGS[connection] = secrets.token_hex(4)
    return f"connection:{tag}"


def connection_buckets(request: Request, connection: ServerConnection) -> MemoryBuckets | None:
    """The connection's own bucket table when the caller has no identity, else None."""
    if request.identity is not None:
        return None
    table = _CONNECTION_BUCKETS.get(connection)
    if table is None:
        table = _CONNECTION_BUCKETS[connection] = MemoryBuckets(max_keys=CONNECTION_KEYS)
    return table


def _split(demands: list[Demand]) -> tuple[list[Demand], list[Demand]]:
    """A caller's own demands, and the server-wide one (``total`` comes last)."""
    if demands and demands[-1][2] == "total":
        return demands[:-1], demands[-1:]
    return demands, []


def _shifted(verdict: Verdict, offset: int) -> Verdict:
    """A verdict on the shared demands, as an index into the whole list."""
    if verdict is None or verdict[0] < 0:
        return verdict
    return (verdict[0] + offset, verdict[1])


class RateLimiter:
    """Token-bucket limits on ``tools/call`` (see the module docs).

    ``store`` is where buckets live: in memory (default; ``clock`` is its clock) or a
    :class:`~toolwire.admission.limits_redis.RedisBuckets`. ``fail_open`` says what happens
    when that store cannot be reached: by default the call is refused with an ``isError``
    result ("try again in 1 s") and an error is logged, since limits that silently vanish
    are what an abuser hopes for; ``fail_open=True`` lets calls through with a warning.
    """

    def __init__(
        self,
        per_caller: str | Rate | None = None,
        per_tool: Mapping[str, str | Rate] | None = None,
        total: str | Rate | None = None,
        *,
        store: AsyncBuckets | None = None,
        clock: Callable[[], float] = time.monotonic,
        fail_open: bool = False,
    ) -> None:
        self.per_caller = None if per_caller is None else Rate.parse(per_caller)
        self.per_tool = {name: Rate.parse(rate) for name, rate in (per_tool or {}).items()}
        self.total = None if total is None else Rate.parse(total)
        if self.per_caller is None and not self.per_tool and self.total is None:
            raise ValueError("RateLimiter needs at least one of per_caller, per_tool, total")
        self.memory = MemoryBuckets(clock) if store is None else None
        self.store = store
        self.fail_open = fail_open
        self._complained = -math.inf  # when the store's failure was last logged

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> RateLimiter | None:
        """Limits from the environment, or None when none is set.

        ``TOOLWIRE_RATE_LIMIT_CALLER="60/minute"``, ``TOOLWIRE_RATE_LIMIT_TOOL=
        "search=10/second,*=120/minute"``, ``TOOLWIRE_RATE_LIMIT_TOTAL="1000/second"``,
        ``TOOLWIRE_RATE_LIMIT_REDIS_URL="redis://host:6379/0"`` (buckets in Redis) and
        ``TOOLWIRE_RATE_LIMIT_FAIL_OPEN=1``. A bad value raises ValueError naming the variable.
        """
        env = os.environ if environ is None else environ
        prefix = "TOOLWIRE_RATE_LIMIT_"

        def get(name: str) -> str | None:
            value = env.get(prefix + name, "").strip()
            return value or None

        def parsed(name: str, value: str) -> Rate:
            try:
                return Rate.parse(value)
            except ValueError as exc:
                raise ValueError(f"{prefix}{name}: {exc}") from None

        caller, tools, total, url = get("CALLER"), get("TOOL"), get("TOTAL"), get("REDIS_URL")
        fail_open = (get("FAIL_OPEN") or "0").lower()
        if fail_open not in ("0", "1", "true", "false", "yes", "no"):
            raise ValueError(f"{prefix}FAIL_OPEN: use 1 or 0, not {fail_open!r}")
        if caller is None and tools is None and total is None:
            if url is not None:
                raise ValueError(
                    f"{prefix}REDIS_URL is set but no limit is: set {prefix}CALLER, "
                    f"{prefix}TOOL or {prefix}TOTAL"
                )
            return None
        per_tool: dict[str, Rate] = {}
        for item in (tools or "").split(","):
            if not item.strip():
                continue
            name, sep, rate = item.partition("=")
            if not sep or not name.strip():
                raise ValueError(
                    f"{prefix}TOOL: {item.strip()!r} is not 'tool=rate' "
                    "(e.g. 'search=10/second,*=120/minute')"
                )
            per_tool[name.strip()] = parsed("TOOL", rate)
        store: AsyncBuckets | None = None
        if url is not None:
            try:
                store = RedisBuckets(url)
            except ValueError as exc:
                raise ValueError(f"{prefix}REDIS_URL: {exc}") from None
        return cls(
            parsed("CALLER", caller) if caller else None,
            per_tool,
            parsed("TOTAL", total) if total else None,
            store=store,
            fail_open=fail_open in ("1", "true", "yes"),
        )

    # ------------------------------------------------------------ checking a call

    @property
    def local(self) -> bool:
        """The buckets are in memory: a call is checked without awaiting anything."""
        return self.memory is not None

    def demands(self, caller: str, tool: str | None, known: bool = True) -> list[Demand]:
        """The buckets a call by ``caller`` of ``tool`` takes a token from. A name the
        server does not serve to this caller (``known=False``) has no bucket of its own:
        all such names share one per caller, at the ``"*"`` rate, so made-up names cannot
        multiply buckets."""
        wanted: list[Demand] = []
        if self.per_caller is not None:
            wanted.append((f"caller:{caller}", self.per_caller, "caller"))
        if tool is not None and self.per_tool:
            rate = self.per_tool.get(tool) if known else None
            if rate is not None or (rate := self.per_tool.get("*")) is not None:
                # The caller's length first: no (caller, tool) pair spells another's key.
                name = f"={tool}" if known else "?"
                wanted.append((f"tool:{len(caller)}:{caller}{name}", rate, "tool"))
        if self.total is not None:
            wanted.append(("total", self.total, "total"))
        return wanted

    def check(
        self,
        caller: str,
        tool: str | None,
        *,
        known: bool = True,
        own: MemoryBuckets | None = None,
    ) -> Refusal | None:
        """With buckets in memory: None if the call may run (its tokens are taken).
        ``own``: the table of a caller without identity (:func:`connection_buckets`)."""
        assert self.memory is not None, "check() is for buckets in memory; use check_async()"
        demands = self.demands(caller, tool, known)
        if own is None:
            return self._refusal(demands, tool, self.memory.take(demands))
        mine, shared = _split(demands)
        verdict = own.take(mine, peek=True)
        if verdict is None and shared:
            verdict = _shifted(self.memory.take(shared), len(mine))
        if verdict is None:
            verdict = own.take(mine)
        return self._refusal(demands, tool, verdict)

    async def check_async(
        self,
        caller: str,
        tool: str | None,
        *,
        known: bool = True,
        own: MemoryBuckets | None = None,
    ) -> Refusal | None:
        """Like :meth:`check`, for any store."""
        if self.memory is not None:
            return self.check(caller, tool, known=known, own=own)
        assert self.store is not None
        demands = self.demands(caller, tool, known)
        mine, shared = _split(demands) if own is not None else ([], demands)
        if own is not None:
            verdict = own.take(mine, peek=True)
            if verdict is not None:
                return self._refusal(demands, tool, verdict)
        try:
            verdict = _shifted(await self.store.take(shared), len(mine)) if shared else None
        except Exception as exc:  # the store is down or slow: documented choice, see class
            return self._store_failed(exc)
        if verdict is None and own is not None:
            verdict = own.take(mine)
        return self._refusal(demands, tool, verdict)

    def _refusal(self, demands: list[Demand], tool: str | None, verdict: Verdict) -> Refusal | None:
        if verdict is None:
            return None
        index, wait = verdict
        seconds = _seconds(wait)
        if index < 0:  # the bucket table is full of buckets still owed tokens
            return Refusal(
                f"Too many callers are rate limited right now: try again in {seconds:g} s",
                seconds,
                "capacity",
            )
        _key, rate, limit = demands[index]
        if limit == "tool":
            what = f"for tool {tool!r}"
        elif limit == "caller":
            what = "for this caller"
        else:
            what = "for this server"
        return Refusal(
            f"Rate limit exceeded {what} ({rate.text}): try again in {seconds:g} s",
            seconds,
            limit,
        )

    def _store_failed(self, exc: Exception) -> Refusal | None:
        now = time.monotonic()
        if now - self._complained >= 10.0:  # once in a while, not once per call
            self._complained = now
            if self.fail_open:
                logger.warning("Rate limits not enforced, the bucket store failed: %r", exc)
            else:
                logger.error("Refusing tool calls, the rate-limit store failed: %r", exc)
        if self.fail_open:
            return None
        return Refusal(
            f"Rate limiting is unavailable right now: try again in {STORE_RETRY_S:g} s",
            STORE_RETRY_S,
            "store",
        )

    async def aclose(self) -> None:
        """Close the store's connections (the server does this when it stops)."""
        if self.store is not None:
            await self.store.aclose()
