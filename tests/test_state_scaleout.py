"""``ctx.state`` and ``ResultCache`` across workers: two HTTP workers behind nginx share a
real redis-server (``tests/servers/prod_state.py``, bearer tokens for alice and bob).

What a user stores through one worker, that user reads through the other, in both eras
(a legacy session, and the stateless 2026-07-28 revision); another user never does;
values expire when their time to live runs out; a cached read-only tool answers the same
caller from either worker, and never another caller. Every message is validated against
the negotiated revision's schema (``checked_client``).
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from services import start_nginx, start_redis, start_worker
from wire import checked_client

pytestmark = pytest.mark.timeout(60)

SERVER = Path(__file__).parent / "servers" / "prod_state.py"
ERAS = ["2025-11-25", "2026-07-28"]
TRIES = 6  # calls made to reach the other worker (nginx alternates: two suffice)


@pytest.fixture(scope="module")
def cluster() -> Iterator[tuple[str, str, set[int]]]:
    with (
        start_redis() as redis_url,
        start_worker(SERVER, "--redis", redis_url) as a,
        start_worker(SERVER, "--redis", redis_url) as b,
        start_nginx([a.port, b.port]) as base,
    ):
        yield f"{base}/mcp", redis_url, {a.pid, b.pid}


async def call(client: Any, name: str, **arguments: Any) -> Any:
    result = await client.call_tool(name, arguments)
    assert not result.is_error, result.content
    return result.structured


async def test_session_state_follows_the_session_across_workers(
    cluster: tuple[str, str, set[int]],
) -> None:
    """FastMCP's ``ctx.set_state``/``get_state``: one MCP session's values, read through
    either worker; another session of the same user has its own."""
    url, _, pids = cluster
    async with (
        checked_client(url, "2025-11-25", auth="token-alice") as first,
        checked_client(url, "2025-11-25", auth="token-alice") as second,
    ):
        wrote = await call(first, "session_set", key="cart", value=["tea"])
        assert wrote["session"] == first._transport.session_id  # the Mcp-Session-Id
        readers = set()
        for _ in range(TRIES):
            answer = await call(first, "session_get", key="cart")
            assert answer["value"] == ["tea"] and answer["session"] == wrote["session"]
            readers.add(answer["worker"])
            if answer["worker"] != wrote["worker"]:
                break
        assert readers - {wrote["worker"]}, "no read went through the other worker"
        assert readers <= pids
        for _ in range(2):  # through both workers
            assert (await call(second, "session_get", key="cart"))["value"] is None


@pytest.mark.parametrize("revision", ERAS)
async def test_state_follows_the_user_across_workers(
    cluster: tuple[str, str, set[int]], revision: str
) -> None:
    url, _, pids = cluster
    key = f"city-{revision}"
    async with (
        checked_client(url, revision, auth="token-alice") as alice,
        checked_client(url, revision, auth="token-bob") as bob,
    ):
        wrote = (await call(alice, "remember", key=key, value={"name": "Paris"}))["worker"]
        readers = set()
        for _ in range(TRIES):
            answer = await call(alice, "recall", key=key)
            assert answer["value"] == {"name": "Paris"}
            readers.add(answer["worker"])
            if answer["worker"] != wrote:
                break
        assert readers - {wrote}, "no read went through the other worker"
        assert {wrote} | readers <= pids
        seen_by_bob = set()
        for _ in range(TRIES):
            answer = await call(bob, "recall", key=key)
            assert answer["value"] is None  # never another user's
            seen_by_bob.add(answer["worker"])
        assert seen_by_bob == pids
        await call(bob, "remember", key=key, value="Oslo")
        assert (await call(alice, "recall", key=key))["value"] == {"name": "Paris"}
        await call(alice, "forget", key=key)
        for _ in range(2):  # through both workers
            assert (await call(alice, "recall", key=key))["value"] is None
            assert (await call(bob, "recall", key=key))["value"] == "Oslo"


@pytest.mark.parametrize("revision", ERAS)
async def test_state_expires(cluster: tuple[str, str, set[int]], revision: str) -> None:
    url, redis_url, _ = cluster
    key = f"short-{revision}"
    import redis.asyncio

    store = redis.asyncio.Redis.from_url(redis_url)
    try:
        async with checked_client(url, revision, auth="token-alice") as alice:
            await call(alice, "remember", key=key, value=1, ttl=1.5)
            names = [n async for n in store.scan_iter(match=f"toolwire:value:state:*:{key}")]
            assert len(names) == 1
            assert 0 < await store.pttl(names[0]) <= 1500  # the per-set TTL, in Redis
            await call(alice, "remember", key=f"{key}-default", value=2)
            names = [
                n async for n in store.scan_iter(match=f"toolwire:value:state:*:{key}-default")
            ]
            assert 86_000_000 < await store.pttl(names[0]) <= 86_400_000  # the default: a day
            # Redis expires it: bounded wait for the event, reading through both workers.
            loop = asyncio.get_running_loop()
            deadline = loop.time() + 10
            while (await call(alice, "recall", key=key))["value"] is not None:
                assert loop.time() < deadline, "the value never expired"
                await asyncio.sleep(0.2)
            assert (await call(alice, "recall", key=key))["value"] is None
    finally:
        await store.aclose()


@pytest.mark.parametrize("revision", ERAS)
async def test_result_cache_is_per_caller_and_shared_by_workers(
    cluster: tuple[str, str, set[int]], revision: str
) -> None:
    url, _, _ = cluster
    q = f"q-{revision}"
    async with (
        checked_client(url, revision, auth="token-alice") as alice,
        checked_client(url, revision, auth="token-bob") as bob,
    ):
        first = await call(alice, "lookup", q=q)
        again = [await call(alice, "lookup", q=q) for _ in range(3)]  # both workers answer
        assert all(answer == first for answer in again)  # from the cache, even elsewhere
        theirs = await call(bob, "lookup", q=q)
        assert theirs["run"] != first["run"]  # bob's own run, never alice's result
        assert (await call(alice, "lookup", q=q + "!"))["run"] != first["run"]
