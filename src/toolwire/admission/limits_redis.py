"""Token buckets in Redis, so rate limits hold across worker processes.

::

    RateLimiter(per_caller="60/minute", store=RedisBuckets("redis://127.0.0.1:6379/0"))

One Lua script checks and takes the tokens of every bucket a call needs in one atomic step,
with Redis's own clock (workers on different machines need not agree on the time). Each
bucket is a hash that expires once it would be full again, so idle callers cost nothing.
Needs redis-py (``pip install 'toolwire[redis]'``) and one Redis server (not a cluster: a
call's buckets are updated together).
"""

from __future__ import annotations

import asyncio
import importlib.util
from collections.abc import Sequence
from typing import Any, Protocol

from .._pip import extra_install


class _Rate(Protocol):
    """What a bucket needs of a :class:`toolwire.admission.limits.Rate` (which loads this
    module only when a Redis store is asked for)."""

    @property
    def per_second(self) -> float: ...

    @property
    def burst(self) -> int: ...


# toolwire.admission.limits's Demand and Verdict: (bucket key, rate, limit), and the refusal.
Demand = tuple[str, _Rate, str]
Verdict = tuple[int, float] | None

# KEYS: the buckets. ARGV: tokens per second and burst of each bucket, in KEYS order.
# Returns {0, "0"} when the tokens were taken, else {index (1-based), seconds to wait}.
TAKE = """
if redis.replicate_commands then redis.replicate_commands() end  -- TIME before writes (Redis < 5)
local now_parts = redis.call('TIME')
local now = tonumber(now_parts[1]) + tonumber(now_parts[2]) / 1000000
local levels = {}
local worst, longest = 0, 0
for i = 1, #KEYS do
  local rate = tonumber(ARGV[2 * i - 1])
  local burst = tonumber(ARGV[2 * i])
  local state = redis.call('HMGET', KEYS[i], 'tokens', 'stamp')
  local level = burst
  if state[1] then
    local elapsed = math.max(0, now - tonumber(state[2]))
    level = math.min(burst, tonumber(state[1]) + elapsed * rate)
  end
  if level < 1 then
    local wait = (1 - level) / rate
    if wait > longest then
      worst, longest = i, wait
    end
  end
  levels[i] = level
end
if worst > 0 then
  return {worst, string.format('%.17g', longest)}
end
for i = 1, #KEYS do
  local rate = tonumber(ARGV[2 * i - 1])
  local burst = tonumber(ARGV[2 * i])
  local level = levels[i] - 1
  local fmt = '%.17g'
  redis.call('HSET', KEYS[i], 'tokens', string.format(fmt, level), 'stamp', string.format(fmt, now))
  redis.call('PEXPIRE', KEYS[i], math.ceil((burst - level) / rate * 1000) + 1000)
end
return {0, '0'}
"""

_SCHEMES = ("redis://", "rediss://", "unix://")


class RedisBuckets:
    """Bucket store in Redis at ``url``; keys start with ``prefix``.

    ``timeout`` bounds each round trip (seconds): a Redis that does not answer in time
    counts as failed, and the limiter's ``fail_open`` decides what the call gets.
    """

    def __init__(self, url: str, *, prefix: str = "toolwire:rate", timeout: float = 0.5) -> None:
        if not url.startswith(_SCHEMES):
            raise ValueError(f"{url!r} is not a Redis URL (redis://, rediss:// or unix://)")
        if importlib.util.find_spec("redis") is None:
            raise RuntimeError(f"RedisBuckets needs redis-py: {extra_install('redis')}")
        self.url = url
        self.prefix = prefix
        self.timeout = timeout
        # A client belongs to the event loop it was made on: one per loop (servers on
        # several loops in one process may share a limiter).
        self._clients: dict[asyncio.AbstractEventLoop, tuple[Any, Any]] = {}

    def _script(self) -> Any:
        loop = asyncio.get_running_loop()
        held = self._clients.get(loop)
        if held is None:
            import redis.asyncio  # optional: redis (the redis extra)

            for gone in [old for old in self._clients if old.is_closed()]:
                del self._clients[gone]
            client = redis.asyncio.Redis.from_url(
                self.url, socket_timeout=self.timeout, socket_connect_timeout=self.timeout
            )
            held = self._clients[loop] = (client, client.register_script(TAKE))
        return held[1]

    async def take(self, demands: Sequence[Demand]) -> Verdict:
        """Take one token from each bucket, all or nothing, atomically in Redis."""
        if not demands:
            return None
        keys = [f"{self.prefix}:{key}" for key, _rate, _limit in demands]
        args: list[float | int] = []
        for _key, rate, _limit in demands:
            args += [rate.per_second, rate.burst]
        index, wait = await self._script()(keys=keys, args=args)
        return None if int(index) == 0 else (int(index) - 1, float(wait))

    async def aclose(self) -> None:
        held = self._clients.pop(asyncio.get_running_loop(), None)
        if held is not None:
            await held[0].aclose()
