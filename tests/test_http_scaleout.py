"""Streamable HTTP scaled out: two worker processes, one Redis, nginx round-robin in front.

Everything is real and on loopback: ``redis-server``, two ``tests/servers/http_scale.py``
processes sharing a :class:`~toolwire.transports.store.stores.RedisStore`, and ``nginx``
balancing requests over them with no stickiness (``tests/services.py`` starts them). Nothing
is mocked, so these tests prove what a deployment behind a load balancer gets:

* a session initialized through one worker continues through the other, with the same
  ``Mcp-Session-Id``, and what the client set (``logging/setLevel``) holds everywhere;
* a tool-list or resource-list change made on either worker reaches the session's GET stream
  exactly once, and a resource update reaches a subscription made through either worker,
  whichever worker holds that stream;
* a POST SSE stream resumed with ``Last-Event-ID`` after its worker was killed (SIGKILL)
  replays, through the other worker, every event the dead one had sent.

Every message the servers send (JSON bodies and SSE ``data:`` payloads) is validated with
:class:`~mcp_spec.WireChecker` for 2025-11-25.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import signal
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import orjson
import pytest

from mcp_spec import WireChecker
from services import Worker, start_nginx, start_redis, start_worker

pytestmark = pytest.mark.timeout(40)

REVISION = "2025-11-25"
SERVER = Path(__file__).parent / "servers" / "http_scale.py"
BOTH = "application/json, text/event-stream"
TIMEOUT = 10.0  # seconds for any one read from a server
QUIET = 0.5  # seconds a stream must stay silent to show no duplicate arrives
MAX_EVENTS = 50  # events read from one stream at most
JSON = dict[str, Any]


# ---------------------------------------------------------------------------- the cluster


@dataclass
class Cluster:
    redis: str
    a: Worker
    b: Worker
    nginx: str  # the endpoint URL through the load balancer

    @property
    def pids(self) -> set[int]:
        return {self.a.pid, self.b.pid}


@pytest.fixture(scope="module")
def redis_url() -> Iterator[str]:
    with start_redis() as url:
        yield url


@pytest.fixture
def cluster(redis_url: str) -> Iterator[Cluster]:
    with (
        start_worker(SERVER, "--redis", redis_url) as a,
        start_worker(SERVER, "--redis", redis_url) as b,
        start_nginx([a.port, b.port]) as base,
    ):
        cluster = Cluster(redis_url, a, b, f"{base}/mcp")
        yield cluster
        for worker in (a, b):  # a worker that died on its own is a failure (A may be killed)
            if worker.process.poll() not in (None, -9):
                pytest.fail(f"worker {worker.pid} exited:\n{worker.log()}")


# ---------------------------------------------------------------------------- a client


@dataclass
class Event:
    id: str | None
    data: str


async def sse_events(response: httpx.Response) -> AsyncIterator[Event]:
    """The events of an SSE response, at most MAX_EVENTS (comments and blanks skipped)."""
    event_id: str | None = None
    data: list[str] = []
    count = 0
    async for line in response.aiter_lines():
        if line == "":
            if event_id is not None or data:
                yield Event(event_id, "\n".join(data))
                count += 1
                if count >= MAX_EVENTS:
                    return
            event_id, data = None, []
        elif line.startswith("id:"):
            event_id = line[3:].strip()
        elif line.startswith("data:"):
            data.append(line[5:].removeprefix(" "))


@dataclass
class Session:
    """One legacy session driven with raw HTTP; every server message goes to the checker."""

    http: httpx.AsyncClient
    url: str
    checker: WireChecker = field(default_factory=lambda: WireChecker(REVISION))
    id: str | None = None
    ids: Iterator[int] = field(default_factory=lambda: itertools.count(1))

    def headers(self, accept: str = BOTH, **extra: str) -> dict[str, str]:
        headers = {"content-type": "application/json", "accept": accept, **extra}
        if self.id is not None:
            headers["mcp-session-id"] = self.id
            headers["mcp-protocol-version"] = REVISION
        return headers

    def server_sent(self, data: str | bytes) -> JSON:
        self.checker.server_sent(data)
        message: JSON = orjson.loads(data)
        return message

    async def initialize(self) -> None:
        params = {
            "protocolVersion": REVISION,
            "capabilities": {},
            "clientInfo": {"name": "scale-out-test", "version": "1.0"},
        }
        response = await self.post(self.request("initialize", params), self.url)
        assert response.status_code == 200, response.text
        self.id = response.headers["mcp-session-id"]
        self.server_sent(response.content)
        notified = await self.post({"jsonrpc": "2.0", "method": "notifications/initialized"})
        assert notified.status_code == 202, notified.text

    def request(self, method: str, params: JSON | None = None) -> JSON:
        message: JSON = {"jsonrpc": "2.0", "id": next(self.ids), "method": method}
        if params is not None:
            message["params"] = params
        self.checker.client_sent(message)
        return message

    async def post(self, message: JSON, url: str | None = None, **headers: str) -> httpx.Response:
        return await self.http.post(
            url or self.url, content=orjson.dumps(message), headers=self.headers(**headers)
        )

    async def call(
        self, method: str, params: JSON | None = None, *, url: str | None = None
    ) -> tuple[JSON, list[JSON], httpx.Response]:
        """Send a request; its answer and the messages streamed before it."""
        message = self.request(method, params)
        async with self.http.stream(
            "POST", url or self.url, content=orjson.dumps(message), headers=self.headers()
        ) as response:
            assert response.status_code == 200, (await response.aread()).decode()
            if self.id is not None:
                assert response.headers["mcp-session-id"] == self.id
            if response.headers["content-type"].startswith("application/json"):
                return self.server_sent(await response.aread()), [], response
            before: list[JSON] = []
            async for event in sse_events(response):
                if not event.data:  # the priming event
                    continue
                sent = self.server_sent(event.data)
                if sent.get("id") == message["id"]:
                    return sent, before, response
                before.append(sent)
        raise AssertionError(f"the stream ended without answering {method}")

    async def tool(self, name: str, /, url: str | None = None, **arguments: Any) -> Any:
        answer, _, _ = await self.call(
            "tools/call", {"name": name, "arguments": arguments}, url=url
        )
        result = answer["result"]
        assert not result.get("isError"), result
        if "structuredContent" in result:
            return result["structuredContent"]["result"]
        [content] = result["content"]
        return content["text"]


@contextlib.asynccontextmanager
async def session(url: str) -> AsyncIterator[Session]:
    async with httpx.AsyncClient(timeout=TIMEOUT) as http:
        opened = Session(http, url)
        await opened.initialize()
        yield opened
        opened.checker.close()


# ---------------------------------------------------------------------------- (a) sessions


async def test_one_session_is_served_by_both_workers(cluster: Cluster) -> None:
    async with session(cluster.nginx) as mcp:
        pids = [await mcp.tool("whoami") for _ in range(6)]
        assert set(pids) == cluster.pids, f"round-robin should reach both workers: {pids}"
        sums = [await mcp.tool("add", a=i, b=40) for i in range(4)]
        assert sums == [40, 41, 42, 43]
        listed, _, _ = await mcp.call("tools/list")
        names = {tool["name"] for tool in listed["result"]["tools"]}
        assert names == {
            "whoami",
            "add_tool_named",
            "progress_then_wait",
            "add",
            "touch_board",
            "add_note",
            "long_job",
            "resumable_job",
            "confirmed_job",
        }
        pong, _, _ = await mcp.call("ping")
        assert pong["result"] == {}


async def test_a_log_level_set_through_one_worker_holds_on_the_other(cluster: Cluster) -> None:
    async with session(cluster.nginx) as mcp:

        async def logs_from(worker: Any) -> list[Any]:
            answer, before, _ = await mcp.call(
                "tools/call", {"name": "whoami", "arguments": {}}, url=worker.url
            )
            assert answer["result"]["structuredContent"]["result"] == worker.pid
            return [m["params"] for m in before if m.get("method") == "notifications/message"]

        for worker in (cluster.a, cluster.b):  # both know the session; no level set: every one
            assert await logs_from(worker) == [
                {"level": "info", "data": f"whoami on worker {worker.pid}"}
            ]

        answer, _, _ = await mcp.call("logging/setLevel", {"level": "warning"}, url=cluster.a.url)
        assert answer["result"] == {}

        for worker in (cluster.b, cluster.a):
            assert await logs_from(worker) == [], (
                f"worker {worker.pid} ignores the level set through worker {cluster.a.pid}"
            )


# ---------------------------------------------------------------------------- (b) list changes


@pytest.mark.parametrize("changed_on", ["a", "b"])
async def test_a_tool_list_change_reaches_the_get_stream_once(
    cluster: Cluster, changed_on: str
) -> None:
    worker = cluster.a if changed_on == "a" else cluster.b
    async with (
        session(cluster.nginx) as mcp,
        mcp.http.stream("GET", cluster.nginx, headers=mcp.headers("text/event-stream")) as get,
    ):
        assert get.status_code == 200, (await get.aread()).decode()
        assert get.headers["content-type"].startswith("text/event-stream")
        events = sse_events(get)
        priming = await anext(events)
        assert priming.id and not priming.data

        # the GET stream is open on one worker; the change is made on `worker`
        assert await mcp.tool("add_tool_named", url=worker.url, name="late_tool") == "late_tool"

        first = await asyncio.wait_for(anext(events), TIMEOUT)
        assert first.id, "GET stream events carry ids"
        assert mcp.server_sent(first.data) == {
            "jsonrpc": "2.0",
            "method": "notifications/tools/list_changed",
        }
        with contextlib.suppress(asyncio.TimeoutError):
            extra = await asyncio.wait_for(anext(events), QUIET)
            pytest.fail(f"a second message on the GET stream: {extra.data}")


@pytest.mark.parametrize("changed_on", ["a", "b"])
async def test_a_resource_list_change_reaches_the_get_stream_once(
    cluster: Cluster, changed_on: str
) -> None:
    worker = cluster.a if changed_on == "a" else cluster.b
    async with (
        session(cluster.nginx) as mcp,
        mcp.http.stream("GET", cluster.nginx, headers=mcp.headers("text/event-stream")) as get,
    ):
        assert get.status_code == 200, (await get.aread()).decode()
        events = sse_events(get)
        priming = await anext(events)
        assert priming.id and not priming.data

        assert (
            await mcp.tool("add_note", url=worker.url, name=f"on-{changed_on}")
            == f"on-{changed_on}"
        )

        first = await asyncio.wait_for(anext(events), TIMEOUT)
        assert mcp.server_sent(first.data) == {
            "jsonrpc": "2.0",
            "method": "notifications/resources/list_changed",
        }
        with contextlib.suppress(asyncio.TimeoutError):
            extra = await asyncio.wait_for(anext(events), QUIET)
            pytest.fail(f"a second message on the GET stream: {extra.data}")


async def test_a_subscription_made_on_one_worker_hears_updates_made_on_the_other(
    cluster: Cluster,
) -> None:
    async with (
        session(cluster.nginx) as mcp,
        mcp.http.stream("GET", cluster.a.url, headers=mcp.headers("text/event-stream")) as get,
    ):
        assert get.status_code == 200, (await get.aread()).decode()
        events = sse_events(get)
        await anext(events)  # priming

        # the GET stream is on worker a; subscribe through b, update through b
        answer, _, _ = await mcp.call(
            "resources/subscribe", {"uri": "board://status"}, url=cluster.b.url
        )
        assert answer["result"] == {}
        assert await mcp.tool("touch_board", url=cluster.b.url) == "touched"
        update = await asyncio.wait_for(anext(events), TIMEOUT)
        assert mcp.server_sent(update.data) == {
            "jsonrpc": "2.0",
            "method": "notifications/resources/updated",
            "params": {"uri": "board://status"},
        }

        # unsubscribed through b: an update made on a reaches nobody
        answer, _, _ = await mcp.call(
            "resources/unsubscribe", {"uri": "board://status"}, url=cluster.b.url
        )
        assert answer["result"] == {}
        assert await mcp.tool("touch_board", url=cluster.a.url) == "touched"
        with contextlib.suppress(asyncio.TimeoutError):
            extra = await asyncio.wait_for(anext(events), QUIET)
            pytest.fail(f"an update after unsubscribing: {extra.data}")


# ---------------------------------------------------------------------------- (c) resumption


async def test_a_stream_resumes_on_another_worker_after_a_crash(cluster: Cluster) -> None:
    steps = 6
    async with session(cluster.nginx) as mcp:
        message = mcp.request(
            "tools/call",
            {
                "name": "progress_then_wait",
                "arguments": {"n": steps},
                "_meta": {"progressToken": "crash"},
            },
        )
        sent: list[Event] = []
        async with mcp.http.stream(
            "POST", cluster.a.url, content=orjson.dumps(message), headers=mcp.headers()
        ) as response:
            assert response.status_code == 200, (await response.aread()).decode()
            assert response.headers["content-type"].startswith("text/event-stream")
            async for event in sse_events(response):
                assert event.id, "a resumable stream gives every event an id"
                if event.data:
                    progress = mcp.server_sent(event.data)
                    assert progress["method"] == "notifications/progress"
                sent.append(event)
                if len(sent) == steps + 1:  # the priming event and every progress event
                    break
        cluster.a.kill()  # SIGKILL: worker A takes nothing with it but its memory

        priming, progress = sent[0], sent[1:]
        assert [orjson.loads(e.data)["params"]["progress"] for e in progress] == list(
            range(1, steps + 1)
        )
        for seen in (priming, progress[1]):  # resume after an early event, through nginx
            resumed: list[Event] = []
            expected = progress[progress.index(seen) + 1 :] if seen.data else progress
            async with mcp.http.stream(
                "GET",
                cluster.nginx,
                headers=mcp.headers("text/event-stream", **{"last-event-id": seen.id or ""}),
            ) as get:
                assert get.status_code == 200, (await get.aread()).decode()
                assert get.headers["mcp-session-id"] == mcp.id
                async for event in sse_events(get):
                    if not event.data:  # a priming event: nothing to replay
                        continue
                    mcp.server_sent(event.data)
                    resumed.append(event)
                    if len(resumed) == len(expected):
                        break
            assert [(e.id, e.data) for e in resumed] == [(e.id, e.data) for e in expected]


async def test_a_worker_following_another_workers_stream_stops_when_told(redis_url: str) -> None:
    """A GET on B resuming a stream A still writes follows A's log from Redis; B's SIGTERM
    ends that GET (its client resumes elsewhere) and B exits within its grace instead of
    waiting for A's call, which runs on."""
    with (
        start_worker(SERVER, "--redis", redis_url) as a,
        start_worker(SERVER, "--redis", redis_url) as b,
    ):
        async with session(a.url) as mcp:
            params = {"name": "progress_then_wait", "arguments": {"n": 2}}
            message = mcp.request("tools/call", {**params, "_meta": {"progressToken": "p"}})
            seen: list[Event] = []
            async with mcp.http.stream(
                "POST", a.url, content=orjson.dumps(message), headers=mcp.headers()
            ) as response:
                async for event in sse_events(response):
                    seen.append(event)
                    if len(seen) == 3:  # the priming event and both progress events
                        break
            headers = mcp.headers("text/event-stream", **{"last-event-id": seen[1].id or ""})
            async with mcp.http.stream("GET", b.url, headers=headers) as get:
                assert get.status_code == 200, (await get.aread()).decode()
                replayed: list[JSON] = []
                async for event in sse_events(get):
                    if event.data:
                        replayed.append(mcp.server_sent(event.data))
                        if len(replayed) == 1:  # B follows A's log: now stop B
                            b.process.send_signal(signal.SIGTERM)
            assert [m["params"]["progress"] for m in replayed] == [2]
            code = await asyncio.to_thread(b.process.wait, TIMEOUT)
            assert code in (0, -signal.SIGTERM), b.log()
            assert "Traceback" not in b.log(), b.log()
            assert a.process.poll() is None, a.log()
