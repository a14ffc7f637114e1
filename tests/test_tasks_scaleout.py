"""Tasks across workers: two worker processes sharing a RedisStore (and nginx round-robin in
front), all real and on loopback. A task started through worker A is polled, answered and
cancelled through worker B, and heard of on a listen stream there; a task whose worker is killed (SIGKILL) is reported ``failed``
through the other, never left ``working``; a task whose worker is stopped (SIGTERM) ends
within the worker's grace, or fails saying so. Every message is checked against 2026-07-28."""

from __future__ import annotations

import asyncio
import contextlib
import signal
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest

from toolwire import Client

from services import Worker, start_nginx, start_redis, start_worker
from wire import checked_client

pytestmark = pytest.mark.timeout(60)

MODERN = "2026-07-28"
TASKS = "io.modelcontextprotocol/tasks"
SERVER = Path(__file__).parent / "servers" / "http_scale.py"
HEARTBEAT_S = 5.0  # RedisStore's default: a worker that has not beaten this long is gone
STOPPED = (0, -signal.SIGTERM)  # uvicorn.run() raises the signal again once it has stopped
OPTIONS = {
    "extension_methods": ["tasks/get", "tasks/update", "tasks/cancel", "notifications/tasks"],
    "extension_result_types": ["task"],
    "extensions": {TASKS: {}},
    "capabilities": {"elicitation": {}},  # the task's question is answered with tasks/update
}


@pytest.fixture(scope="module")
def redis_url() -> Iterator[str]:
    with start_redis() as url:
        yield url


@pytest.fixture
def workers(redis_url: str) -> Iterator[tuple[Worker, Worker]]:
    args = ("--redis", redis_url)
    with start_worker(SERVER, *args) as a, start_worker(SERVER, *args) as b:
        yield a, b


@contextlib.contextmanager
def graceful(redis_url: str, grace: float) -> Iterator[tuple[Worker, Worker]]:
    """Two workers whose calls and tasks get ``grace`` seconds on SIGTERM."""
    args = ("--redis", redis_url, "--grace", str(grace))
    with start_worker(SERVER, *args) as a, start_worker(SERVER, *args) as b:
        yield a, b


@contextlib.asynccontextmanager
async def clients(a: Worker, b: Worker) -> AsyncIterator[tuple[Client, Client]]:
    async with (
        checked_client(a.url, MODERN, **OPTIONS) as through_a,
        checked_client(b.url, MODERN, **OPTIONS) as through_b,
    ):
        yield through_a, through_b


async def poll(client: Client, task_id: str, *statuses: str) -> dict[str, Any]:
    while True:
        state = await client.request("tasks/get", {"taskId": task_id})
        if state["status"] in statuses:
            return state
        assert state["status"] not in ("completed", "failed", "cancelled"), state
        await asyncio.sleep(0.05)


async def test_a_task_started_on_a_is_answered_polled_and_cancelled_on_b(
    workers: tuple[Worker, Worker],
) -> None:
    a, b = workers
    async with clients(a, b) as (through_a, through_b):
        created = await through_a.request("tools/call", {"name": "confirmed_job"})
        task_id = created["taskId"]
        seen_by_b = await through_b.request("tasks/get", {"taskId": task_id})  # at once
        assert seen_by_b["status"] in ("working", "input_required")
        waiting = await poll(through_b, task_id, "input_required")
        assert waiting["inputRequests"]["go"]["method"] == "elicitation/create"
        answer = {"go": {"action": "accept", "content": {"go": True}}}
        await through_b.request("tasks/update", {"taskId": task_id, "inputResponses": answer})
        done = await poll(through_b, task_id, "completed")
        assert done["result"]["content"][0]["text"] == f"confirmed on worker {a.pid}"

        running = await through_a.request(
            "tools/call", {"name": "long_job", "arguments": {"seconds": 60}}
        )
        await through_b.request("tasks/cancel", {"taskId": running["taskId"]})
        cancelled = await poll(through_b, running["taskId"], "cancelled")
        assert cancelled["status"] == "cancelled"
        assert (await through_a.request("tasks/get", {"taskId": running["taskId"]}))[
            "status"
        ] == "cancelled"


async def test_a_listen_stream_on_b_hears_a_task_that_a_runs(
    workers: tuple[Worker, Worker],
) -> None:
    """notifications/tasks reach a listen stream on any worker: each state the task's worker
    publishes, up to its end; an id that is no task of the caller's is not followed."""
    a, b = workers
    async with clients(a, b) as (through_a, through_b), contextlib.AsyncExitStack() as stack:
        created = await through_a.request(
            "tools/call", {"name": "long_job", "arguments": {"seconds": 0.5}}
        )
        task_id = created["taskId"]
        # Another client's stream on B, with the same request id (ids are per client).
        other = await stack.enter_async_context(checked_client(b.url, MODERN, **OPTIONS))
        tools_only = await other.listen(tools_list_changed=True)
        subscription = await through_b.listen(
            tools_list_changed=False, task_ids=[task_id, "no-such-task"]
        )
        assert subscription == tools_only
        acknowledged = next(
            n
            for n in through_b.notifications
            if n["method"] == "notifications/subscriptions/acknowledged"
        )
        assert acknowledged["params"]["notifications"] == {"taskIds": [task_id]}
        heard: list[dict[str, Any]] = []
        while not any(n["status"] == "completed" for n in heard):  # bounded by the timeout
            heard = [
                n["params"] for n in through_b.notifications if n["method"] == "notifications/tasks"
            ]
            await asyncio.sleep(0.02)
        assert {n["taskId"] for n in heard} == {task_id}
        assert heard[0]["status"] == "working"
        assert heard[-1]["result"]["content"][0]["text"] == str(a.pid)
        assert all(
            n["_meta"]["io.modelcontextprotocol/subscriptionId"] == subscription for n in heard
        )
        assert not [n for n in other.notifications if n["method"] == "notifications/tasks"]
        await through_b.stop_listening(subscription)
        await other.stop_listening(tools_only)
        assert (await through_b.request("tasks/get", {"taskId": task_id}))["status"] == "completed"


async def test_a_task_whose_worker_died_is_failed_on_the_other(
    workers: tuple[Worker, Worker],
) -> None:
    a, b = workers
    async with clients(a, b) as (through_a, through_b):
        created = await through_a.request(
            "tools/call", {"name": "long_job", "arguments": {"seconds": 60}}
        )
        assert (await through_b.request("tasks/get", {"taskId": created["taskId"]}))[
            "status"
        ] == "working"
        a.kill()
        killed = time.monotonic()
        failed = await poll(through_b, created["taskId"], "failed")
        # noticed once the heartbeat lapsed: seconds, not the half minute it once took
        assert time.monotonic() - killed < 3 * HEARTBEAT_S
        assert failed["error"]["message"] == "The worker running the task stopped"
        assert "result" not in failed


async def test_call_tool_behind_a_balancer_waits_for_the_task(
    workers: tuple[Worker, Worker],
) -> None:
    a, b = workers
    with start_nginx([a.port, b.port]) as base:
        async with checked_client(f"{base}/mcp", MODERN, **OPTIONS) as client:
            for _ in range(3):  # polls alternate between the workers
                result = await client.call_tool("long_job", {"seconds": 0.3})
                assert int(result.text) in (a.pid, b.pid)


async def test_a_task_running_when_its_worker_is_stopped_ends_within_the_grace(
    redis_url: str,
) -> None:
    with graceful(redis_url, grace=20) as (a, b):
        async with clients(a, b) as (through_a, through_b):
            created = await through_a.request(
                "tools/call", {"name": "long_job", "arguments": {"seconds": 1.5}}
            )
            a.process.send_signal(signal.SIGTERM)
            done = await poll(through_b, created["taskId"], "completed")
            assert done["result"]["content"][0]["text"] == str(a.pid)  # a finished it
            assert await asyncio.to_thread(a.process.wait, 20) in STOPPED


async def test_a_task_longer_than_the_grace_fails_saying_its_worker_stopped(
    redis_url: str,
) -> None:
    with graceful(redis_url, grace=0.5) as (a, b):
        async with clients(a, b) as (through_a, through_b):
            created = await through_a.request(
                "tools/call", {"name": "long_job", "arguments": {"seconds": 60}}
            )
            a.process.send_signal(signal.SIGTERM)
            failed = await poll(through_b, created["taskId"], "failed")
            assert failed["error"]["message"] == "The worker running the task stopped"
            assert failed["statusMessage"] == failed["error"]["message"]
            assert await asyncio.to_thread(a.process.wait, 20) in STOPPED


async def test_a_dead_workers_resumable_task_completes_on_the_other(
    workers: tuple[Worker, Worker],
) -> None:
    """A is killed (SIGKILL) with two tasks running: B notices within seconds, runs the
    resumable one again to its end, and reports the other failed."""
    a, b = workers
    async with clients(a, b) as (through_a, through_b):
        job = {"name": "resumable_job", "arguments": {"seconds": 1.0}}
        resumable = (await through_a.request("tools/call", job))["taskId"]
        other = await through_a.request(
            "tools/call", {"name": "long_job", "arguments": {"seconds": 60}}
        )
        a.kill()
        killed = time.monotonic()
        failed = await poll(through_b, other["taskId"], "failed")
        assert failed["error"]["message"] == "The worker running the task stopped"
        done = await poll(through_b, resumable, "completed")
        assert time.monotonic() - killed < 3 * HEARTBEAT_S + 1.0
        assert done["result"]["content"][0]["text"] == str(b.pid)  # run again, on B
        assert done["taskId"] == resumable


async def test_a_resumable_task_longer_than_the_grace_is_handed_over(redis_url: str) -> None:
    """A stops (SIGTERM) with a resumable task that outlasts its grace: A hands it over at
    the grace's end and B runs it again to its end (never reported failed meanwhile)."""
    with graceful(redis_url, grace=0.5) as (a, b):
        async with clients(a, b) as (through_a, through_b):
            job = {"name": "resumable_job", "arguments": {"seconds": 2.0}}
            task_id = (await through_a.request("tools/call", job))["taskId"]
            a.process.send_signal(signal.SIGTERM)
            done = await poll(through_b, task_id, "completed")
            assert done["result"]["content"][0]["text"] == str(b.pid)
            assert await asyncio.to_thread(a.process.wait, 20) in STOPPED
            assert "Traceback" not in a.log(), a.log()
