"""Rate limits on ``tools/call`` (TL-30): token buckets per caller, per tool and per server.

* Rates and the environment: every spelling of a rate, ``RateLimiter.from_env()``, and bad
  values refused with the variable's name, by a real server at start-up too.
* Buckets, driven by an injected clock (no sleeps): the burst, the refill, all-or-nothing
  takes, the limit that waits longest is the one named, and idle buckets are forgotten.
* End to end: a stdio subprocess configured from the environment lets N calls through and
  answers the next with an ``isError`` result saying which limit and when to retry (also in
  ``_meta``), on 2025-11-25 and 2026-07-28, every message checked against the schema; a
  refused call reaches neither middleware nor tool; over real HTTP, two identities
  (``StaticTokens`` bearer tokens) and two unauthenticated legacy sessions are separate
  callers.
* Redis: two server processes sharing one real ``redis-server`` share the limit; a Redis
  that cannot be reached refuses calls (fail closed) unless ``fail_open=True``.
* Unconfigured, the ``tools/call`` path is exactly the plain one.
"""

from __future__ import annotations

import contextlib
import logging
import re
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest

from toolwire import Server
from toolwire.admission.limits import RETRY_AFTER_META, MemoryBuckets, Rate, RateLimiter
from toolwire.admission.limits_redis import RedisBuckets
from toolwire.auth import AccessToken
from toolwire.server.dispatch.methods import METHODS
from toolwire.server.dispatch.middleware import Call, CallNext

from http_server import serve_http
from services import free_port, start_redis
from wire import MODERN, RawServer, checked_client, raw_server

pytestmark = pytest.mark.timeout(30)

LEGACY = "2025-11-25"
JSON = dict[str, Any]
RETRY = re.compile(r"try again in (\d+(?:\.\d)?) s$")


class Clock:
    """A monotonic clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def retry_of(result: JSON) -> float:
    """The retry time a refusal states in its text, checked against its ``_meta``."""
    text = result["content"][0]["text"]
    found = RETRY.search(text)
    assert found, text
    assert result["_meta"][RETRY_AFTER_META] == float(found.group(1))
    return float(found.group(1))


# ---------------------------------------------------------------- rates and the environment


@pytest.mark.parametrize(
    ("text", "count", "period", "burst"),
    [
        ("10/second", 10, 1, 10),
        ("10/s", 10, 1, 10),
        ("10/sec", 10, 1, 10),
        (" 60 / Minute ", 60, 60, 60),
        ("60/min", 60, 60, 60),
        ("5/h", 5, 3600, 5),
        ("100/hour burst 20", 100, 3600, 20),
    ],
)
def test_rates_parse_in_every_spelling(text: str, count: int, period: int, burst: int) -> None:
    rate = Rate.parse(text)
    assert (rate.count, rate.period, rate.burst) == (count, period, burst)
    assert rate.per_second == count / period
    assert Rate.parse(text, burst=3).burst == 3  # the burst= override


@pytest.mark.parametrize(
    "text", ["sixty/minute", "10/day", "0/second", "10", "", "10/second burst 0", "-1/s"]
)
def test_bad_rates_are_refused_with_a_clear_message(text: str) -> None:
    with pytest.raises(ValueError, match="Invalid rate"):
        Rate.parse(text)


def test_from_env_reads_every_variable() -> None:
    limiter = RateLimiter.from_env(
        {
            "TOOLWIRE_RATE_LIMIT_CALLER": "60/minute",
            "TOOLWIRE_RATE_LIMIT_TOOL": "search=10/second, *=120/min burst 30",
            "TOOLWIRE_RATE_LIMIT_TOTAL": "1000/s",
            "TOOLWIRE_RATE_LIMIT_REDIS_URL": "redis://127.0.0.1:6379/0",
            "TOOLWIRE_RATE_LIMIT_FAIL_OPEN": "1",
        }
    )
    assert limiter is not None
    assert limiter.per_caller is not None and limiter.per_caller.text == "60/minute"
    assert {name: rate.text for name, rate in limiter.per_tool.items()} == {
        "search": "10/second",
        "*": "120/minute burst 30",
    }
    assert limiter.total is not None and limiter.total.text == "1000/second"
    assert isinstance(limiter.store, RedisBuckets) and not limiter.local
    assert limiter.fail_open


def test_from_env_without_limits_is_none() -> None:
    assert RateLimiter.from_env({}) is None
    assert RateLimiter.from_env({"TOOLWIRE_RATE_LIMIT_CALLER": "  "}) is None
    only = RateLimiter.from_env({"TOOLWIRE_RATE_LIMIT_TOTAL": "5/s"})
    assert only is not None and only.local and not only.fail_open


@pytest.mark.parametrize(
    ("variable", "value", "message"),
    [
        ("TOOLWIRE_RATE_LIMIT_CALLER", "lots", "Invalid rate 'lots'"),
        ("TOOLWIRE_RATE_LIMIT_TOTAL", "5/fortnight", "Invalid rate"),
        ("TOOLWIRE_RATE_LIMIT_TOOL", "search", "is not 'tool=rate'"),
        ("TOOLWIRE_RATE_LIMIT_TOOL", "=5/s", "is not 'tool=rate'"),
        ("TOOLWIRE_RATE_LIMIT_TOOL", "search=fast", "Invalid rate 'fast'"),
        ("TOOLWIRE_RATE_LIMIT_REDIS_URL", "http://127.0.0.1:6379", "not a Redis URL"),
        ("TOOLWIRE_RATE_LIMIT_FAIL_OPEN", "maybe", "use 1 or 0"),
    ],
)
def test_from_env_bad_values_name_the_variable(variable: str, value: str, message: str) -> None:
    env = {"TOOLWIRE_RATE_LIMIT_CALLER": "60/minute", variable: value}
    with pytest.raises(ValueError, match=re.escape(variable)) as raised:
        RateLimiter.from_env(env)
    assert message in str(raised.value)


def test_a_redis_url_without_a_limit_is_an_error() -> None:
    with pytest.raises(ValueError, match="no limit is"):
        RateLimiter.from_env({"TOOLWIRE_RATE_LIMIT_REDIS_URL": "redis://127.0.0.1:6379/0"})
    with pytest.raises(ValueError, match="at least one"):
        RateLimiter()


async def test_a_bad_setting_stops_the_server_at_startup() -> None:
    """The server refuses to start rather than run without the limits it was given."""
    env = {"TOOLWIRE_RATE_LIMIT_CALLER": "lots/minute"}
    async with raw_server("rate_limited.py", revision=MODERN, env=env) as server:
        code, out, err = await server.close()
    assert code != 0 and out == b""
    assert b"ValueError: TOOLWIRE_RATE_LIMIT_CALLER: Invalid rate 'lots/minute'" in err


# ---------------------------------------------------------------- buckets, with a clock


def test_a_bucket_allows_its_burst_then_refills_at_its_rate() -> None:
    clock = Clock()
    limiter = RateLimiter(per_caller="60/minute burst 3", clock=clock)
    assert [limiter.check("alice", "search") for _ in range(3)] == [None] * 3
    refused = limiter.check("alice", "search")
    assert refused is not None and (refused.limit, refused.retry_after) == ("caller", 1.0)
    assert refused.message == (
        "Rate limit exceeded for this caller (60/minute burst 3): try again in 1 s"
    )
    clock.now += 0.5
    refused = limiter.check("alice", "search")
    assert refused is not None and refused.retry_after == 0.5
    clock.now += 0.5
    assert limiter.check("alice", "search") is None  # one token came back
    assert limiter.check("alice", "search") is not None
    clock.now += 3600  # a long pause fills the bucket up to its burst, no further
    assert [limiter.check("alice", "search") for _ in range(3)] == [None] * 3
    assert limiter.check("alice", "search") is not None


def test_per_tool_limits_count_each_caller_and_tool_apart() -> None:
    limiter = RateLimiter(per_tool={"search": "24/minute burst 1", "*": "5/second"}, clock=Clock())
    assert limiter.check("alice", "search") is None
    refused = limiter.check("alice", "search")
    assert refused is not None
    assert refused.message == (
        "Rate limit exceeded for tool 'search' (24/minute burst 1): try again in 2.5 s"
    )
    assert limiter.check("bob", "search") is None  # bob has a bucket of his own
    assert [limiter.check("alice", "echo") for _ in range(5)] == [None] * 5  # the "*" rate
    assert limiter.check("alice", "echo") is not None
    assert limiter.check("alice", "other") is None  # each tool under "*" counts apart


def test_a_refused_call_takes_no_token_from_the_other_limits() -> None:
    limiter = RateLimiter(per_caller="3/minute", per_tool={"search": "1/minute"}, clock=Clock())
    assert limiter.check("alice", "search") is None
    for _ in range(5):  # refused by the tool limit: the caller's bucket is left alone
        refused = limiter.check("alice", "search")
        assert refused is not None and refused.limit == "tool"
    assert limiter.check("alice", "echo") is None
    assert limiter.check("alice", "echo") is None
    refused = limiter.check("alice", "echo")
    assert refused is not None and refused.limit == "caller"


def test_the_limit_that_waits_longest_is_the_one_named() -> None:
    limiter = RateLimiter(per_caller="1/minute", total="1/second", clock=Clock())
    assert limiter.check("alice", "search") is None
    refused = limiter.check("alice", "search")
    assert refused is not None and (refused.limit, refused.retry_after) == ("caller", 60.0)


def test_the_total_limit_covers_every_caller() -> None:
    limiter = RateLimiter(total="2/second", clock=Clock())
    assert limiter.check("alice", "a") is None
    assert limiter.check("bob", "b") is None
    refused = limiter.check("carol", "c")
    assert refused is not None and refused.message.startswith(
        "Rate limit exceeded for this server (2/second)"
    )


def test_idle_buckets_are_forgotten_and_the_table_stays_bounded() -> None:
    clock = Clock()
    buckets = MemoryBuckets(clock, max_keys=10)
    rate = Rate.parse("1/second")
    for number in range(100):  # each caller's bucket is full again a second later
        assert buckets.take([(f"caller:{number}", rate, "caller")]) is None
        clock.now += 0.5
    assert len(buckets) <= 10
    clock.now += 1.0  # all idle again
    for number in range(10):
        assert buckets.take([(f"busy:{number}", rate, "caller")]) is None
    assert len(buckets) <= 10
    # None idle: a bucket still owed a token is never forgotten (that would hand its
    # caller a fresh burst); a call needing a new one waits until one has refilled.
    refused = buckets.take([("busy:10", rate, "caller")])
    assert refused is not None and refused[0] == -1 and 0 < refused[1] <= 1.0
    assert buckets.take([("busy:0", rate, "caller")]) == (0, 1.0)  # still owed
    clock.now += 1.0
    assert buckets.take([("busy:10", rate, "caller")]) is None
    assert len(buckets) <= 10


# ---------------------------------------------------------------- end to end over stdio


async def call(server: RawServer, name: str, arguments: JSON, modern: bool) -> JSON:
    response = await server.request(
        "tools/call", {"name": name, "arguments": arguments}, modern=modern
    )
    result: JSON = response["result"]
    return result


@pytest.mark.parametrize("revision", [LEGACY, MODERN])
async def test_n_calls_pass_and_the_next_is_told_when_to_retry(revision: str) -> None:
    """A limit from TOOLWIRE_RATE_LIMIT_TOOL, over a real stdio pipe (TL-30); every message
    is validated against the negotiated revision's schema."""
    env = {"TOOLWIRE_RATE_LIMIT_TOOL": "search=3/minute"}
    modern = revision == MODERN
    async with raw_server("rate_limited.py", revision=revision, env=env) as server:
        if not modern:
            await server.initialize(revision)
        for number in range(3):
            result = await call(server, "search", {"query": f"q{number}"}, modern)
            assert result["content"][0]["text"] == f"results for q{number}"
            assert not result.get("isError")
        refused = await call(server, "search", {"query": "one more"}, modern)
        assert refused["isError"] is True
        assert refused["content"][0]["text"].startswith(
            "Rate limit exceeded for tool 'search' (3/minute): try again in "
        )
        assert 19.0 <= retry_of(refused) <= 20.0  # a token every 20 s
        assert (await call(server, "echo", {"text": "hi"}, modern))["content"][0]["text"] == "hi"
        if modern:
            assert refused["resultType"] == "complete"
        assert server.checker.checked >= 5
        code, _out, err = await server.close()
    assert code == 0, err


@pytest.mark.parametrize("revision", [LEGACY, MODERN])
async def test_a_refused_call_reaches_neither_middleware_nor_tool(revision: str) -> None:
    """The limiter is the outermost step; tools/list and the rest are never limited."""
    seen: list[str] = []
    ran: list[str] = []

    async def record(call: Call, call_next: CallNext) -> JSON:
        seen.append(call.method)
        return await call_next(call)

    mcp = Server("guarded", rate_limits=RateLimiter(per_caller="2/minute"), middleware=[record])

    @mcp.tool()
    def work() -> str:
        """Do some work."""
        ran.append("work")
        return "done"

    async with checked_client(mcp, revision) as client:
        assert [(await client.call_tool("work")).text for _ in range(2)] == ["done", "done"]
        refused = await client.call_tool("work")
        assert refused.is_error and "for this caller (2/minute)" in refused.text
        assert [tool["name"] for tool in await client.list_tools()] == ["work"]
        assert ran == ["work", "work"]
        assert seen.count("tools/call") == 2 and "tools/list" in seen


def test_nothing_is_added_to_tools_call_when_not_configured() -> None:
    plain = Server("plain")
    assert plain.methods is METHODS
    limited = Server("limited", rate_limits=RateLimiter(total="5/s"))
    assert limited.methods["tools/call"] is not METHODS["tools/call"]
    assert {k: v for k, v in limited.methods.items() if k != "tools/call"} == {
        k: v for k, v in METHODS.items() if k != "tools/call"
    }


# ---------------------------------------------------------------- callers over HTTP


def limited_server(**options: Any) -> Server:
    mcp = Server("http-limits", rate_limits=RateLimiter(per_caller="2/minute"), **options)

    @mcp.tool()
    def whoami() -> str:
        """Say hello."""
        return "hello"

    return mcp


async def two_then_refused(client: Any) -> None:
    assert [(await client.call_tool("whoami")).text for _ in range(2)] == ["hello", "hello"]
    refused = await client.call_tool("whoami")
    assert refused.is_error and refused.text.startswith(
        "Rate limit exceeded for this caller (2/minute): try again in "
    )


@pytest.mark.parametrize("revision", [LEGACY, MODERN])
async def test_two_identities_have_buckets_of_their_own_over_http(revision: str) -> None:
    """Authenticated callers are keyed by identity: on 2026-07-28 every POST is a new
    connection, and the limit still holds per caller."""
    auth_module = pytest.importorskip("toolwire.auth")
    resource_server = getattr(auth_module, "ResourceServer", None)
    static_tokens = getattr(auth_module, "StaticTokens", None)
    if resource_server is None or static_tokens is None:
        pytest.skip("toolwire.auth has no ResourceServer/StaticTokens")
    tokens = static_tokens(
        {
            "alice-bearer-token": AccessToken(subject="alice"),
            "bob-bearer-token": AccessToken(subject="bob"),
        }
    )
    auth = resource_server("http://127.0.0.1/mcp", ["http://127.0.0.1/issuer"], tokens)
    with serve_http(limited_server(auth=auth)) as url:
        for token in ("alice-bearer-token", "bob-bearer-token"):
            headers = {"Authorization": f"Bearer {token}"}
            async with checked_client(url, revision, headers=headers) as client:
                await two_then_refused(client)
        async with checked_client(
            url, revision, headers={"Authorization": "Bearer alice-bearer-token"}
        ) as again:  # a new connection, the same caller: still refused
            assert (await again.call_tool("whoami")).is_error


async def test_two_legacy_sessions_without_auth_are_two_callers() -> None:
    with serve_http(limited_server()) as url:
        async with checked_client(url, LEGACY) as first, checked_client(url, LEGACY) as second:
            await two_then_refused(first)
            await two_then_refused(second)


# ---------------------------------------------------------------- Redis


@pytest.fixture(scope="module")
def redis_server() -> Iterator[str]:
    with start_redis() as url:
        yield url


@pytest.fixture
def redis_url(redis_server: str) -> Iterator[str]:
    import redis

    client = redis.Redis.from_url(redis_server)
    client.flushdb()
    try:
        yield redis_server
    finally:
        client.close()


@contextlib.asynccontextmanager
async def two_workers(env: dict[str, str]) -> AsyncIterator[tuple[RawServer, RawServer]]:
    async with (
        raw_server("rate_limited.py", revision=MODERN, env=env) as first,
        raw_server("rate_limited.py", revision=MODERN, env=env) as second,
    ):
        yield first, second


async def test_a_limit_in_redis_holds_across_two_server_processes(redis_url: str) -> None:
    env = {
        "TOOLWIRE_RATE_LIMIT_TOTAL": "4/minute",
        "TOOLWIRE_RATE_LIMIT_REDIS_URL": redis_url,
    }
    async with two_workers(env) as (first, second):
        for number in range(4):  # alternating: each process sees only two of them
            server = first if number % 2 == 0 else second
            result = await call(server, "echo", {"text": str(number)}, modern=True)
            assert result["content"][0]["text"] == str(number)
        for server in (first, second):
            refused = await call(server, "echo", {"text": "late"}, modern=True)
            assert refused["isError"] is True
            assert "for this server (4/minute)" in refused["content"][0]["text"]
            assert 14.0 <= retry_of(refused) <= 15.0  # a token every 15 s

    import redis

    client = redis.Redis.from_url(redis_url)
    try:  # a bucket is gone once it would be full again: idle callers cost nothing
        assert 0 < client.pttl("toolwire:rate:total") <= 61_000
    finally:
        client.close()


async def test_redis_buckets_keep_each_tool_and_caller_apart(redis_url: str) -> None:
    limiter = RateLimiter(per_tool={"search": "2/hour"}, store=RedisBuckets(redis_url))
    try:
        assert await limiter.check_async("alice", "search") is None
        assert await limiter.check_async("alice", "search") is None
        refused = await limiter.check_async("alice", "search")
        assert refused is not None and refused.limit == "tool"
        assert 1799.0 <= refused.retry_after <= 1800.0
        assert await limiter.check_async("bob", "search") is None
        assert await limiter.check_async("alice", "echo") is None  # no limit on echo
    finally:
        await limiter.aclose()


@pytest.mark.parametrize("fail_open", [False, True])
async def test_an_unreachable_redis_fails_closed_unless_told_otherwise(
    fail_open: bool, caplog: pytest.LogCaptureFixture
) -> None:
    dead = RedisBuckets(f"redis://127.0.0.1:{free_port()}/0", timeout=2.0)
    # total: an unauthenticated connection's own buckets are in its memory, the server's in Redis
    limiter = RateLimiter(per_caller="5/s", total="100/s", store=dead, fail_open=fail_open)
    mcp = Server("no-redis", rate_limits=limiter)

    @mcp.tool()
    def echo(text: str) -> str:
        """Return the text."""
        return text

    caplog.set_level(logging.WARNING, logger="toolwire")
    async with checked_client(mcp, MODERN) as client:
        first = await client.call_tool("echo", {"text": "hi"})
        second = await client.call_tool("echo", {"text": "again"})
    store_records = [r for r in caplog.records if "store failed" in r.getMessage()]
    assert len(store_records) == 1  # said once, not once per call
    if fail_open:
        assert (first.text, second.text) == ("hi", "again")
        assert store_records[0].levelno == logging.WARNING
    else:
        assert first.is_error and first.text == (
            "Rate limiting is unavailable right now: try again in 1 s"
        )
        assert first.raw["_meta"][RETRY_AFTER_META] == 1.0
        assert store_records[0].levelno == logging.ERROR
