"""A rolling restart under steady load, as an operator does it: three workers sharing Redis
behind nginx, each in turn sent ``SIGTERM`` and replaced by a new one on its port; the
workers started in each way deployment.md shows (``mcp.run``, ``toolwire run``, ``uvicorn
module:app``, with ``--workers 2`` too), and the container recipe of ``examples/deploy``
(its workers' command line, behind HAProxy with its ``haproxy.cfg``, which follows
``/readyz``). A stopping worker drains: ``/readyz`` says not ready and it serves
``drain_delay`` more seconds with ``Connection: close`` on every answer (so the balancer keeps
no connection to it), then refuses connections (the balancer sends those requests to another
worker, which is safe: the worker never read them) and gives what is in flight
``shutdown_grace`` seconds.

Eight clients call all along: the official SDK's client on 2025-11-25 sessions and on
2026-07-28, and raw 2026-07-28 requests on kept-alive and on fresh connections. Every call
has its own id, which the tool counts in Redis: a call run twice shows there whatever its
client saw, and a call that failed but ran is a lost result. A task started before the
restart completes. All real processes on loopback; every answer is checked against its
revision's schema."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import shlex
import signal
import sys
import uuid
from collections.abc import AsyncIterator, Coroutine
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import orjson
import pytest
import redis.asyncio as aioredis
import yaml
from mcp import Client as SdkClient

from mcp_spec import WireChecker, validate_definition
from services import (
    LOOPBACK,
    Worker,
    free_port,
    start_haproxy,
    start_listening,
    start_nginx,
    start_redis,
)
from wire import MODERN, modern_meta

pytestmark = pytest.mark.timeout(240)

LEGACY = "2025-11-25"
WORKER = Path(__file__).parent / "servers" / "rolling_worker.py"
DRAIN_DELAY = 2.0  # a stopping worker's seconds of serving while not ready
GRACE = 10.0  # then what its calls and tasks get to end
TASK_S = 4.0  # the task's work: it is still running when its worker is stopped
TIMEOUT = 30.0
TASKS = "io.modelcontextprotocol/tasks"
JSON = dict[str, Any]


@dataclass
class Tally:
    """What the clients saw, by call id: the answer (``"PID RUNS"``), or the failure."""

    answered: dict[str, str] = field(default_factory=dict)
    failed: dict[str, str] = field(default_factory=dict)
    closing: list[str] = field(default_factory=list)  # errors of clients as they closed

    def failure(self, call_id: str, client: str, exc: Exception) -> None:
        self.failed[call_id] = f"{client}: {exc!r}"[:300]


SERVERS = WORKER.parent
TOOLWIRE = (sys.executable, "-m", "toolwire")
UVICORN = (sys.executable, "-m", "uvicorn", "--app-dir", str(SERVERS), "rolling_app:app")
UVICORN_READY = "Application startup complete"


RECIPE = Path(__file__).parents[1] / "examples" / "deploy"


def recipe_command(port: int, redis_url: str) -> list[str]:
    """The workers' command of the container recipe (``examples/deploy/compose.yaml``) for
    this test's server, on loopback, with this test's Redis."""
    services = yaml.safe_load((RECIPE / "compose.yaml").read_text())["services"]
    assert {"redis", "worker1", "worker2", "worker3", "balancer"} <= set(services)
    command = shlex.split(services["worker1"]["command"])
    assert command[:3] == ["toolwire", "run", "server.py"], command
    given = {"--host": "0.0.0.0", "--port": "8000", "--redis": "redis://redis:6379/0"}
    for option, value in given.items():
        at = command.index(option)
        assert command[at + 1] == value, command
        command[at + 1] = {"--host": "127.0.0.1", "--port": str(port), "--redis": redis_url}[option]
    return [*TOOLWIRE, "run", str(WORKER), *command[3:]]


def recipe_balancer(ports: list[int]) -> str:
    """The recipe's ``haproxy.cfg`` with its three workers on these loopback ports."""
    config = (RECIPE / "haproxy.cfg").read_text()
    lines = ["    bind :8080", *(f"    server worker{n} worker{n}:8000" for n in (1, 2, 3))]
    assert all(line in config.splitlines() for line in lines), config
    config = config.replace(lines[0], "    bind {bind}")
    for n, port in enumerate(ports, 1):
        config = config.replace(lines[n], f"    server worker{n} {LOOPBACK}:{port}")
    return config


def started_by(mode: str, port: int, redis_url: str) -> contextlib.AbstractContextManager[Worker]:
    """A worker on ``port`` started in one of the ways deployment.md shows."""
    env = {
        "ROLLING_REDIS": redis_url,
        "ROLLING_DRAIN_DELAY": str(DRAIN_DELAY),
        "ROLLING_GRACE": str(GRACE),
    }
    if mode == "compose recipe":
        return start_listening(recipe_command(port, redis_url), port, "Serving rolling", env=env)
    if mode == "mcp.run":
        return start_listening([sys.executable, str(WORKER), str(port)], port, "listening", env=env)
    if mode == "toolwire run":
        command = [*TOOLWIRE, "run", str(WORKER), "--transport", "http", "--port", str(port)]
        command += ["--redis", redis_url, "--drain-delay", str(DRAIN_DELAY)]
        command += ["--shutdown-grace", str(GRACE)]
        return start_listening(command, port, "Serving rolling", env=env)
    command = [*UVICORN, "--host", "127.0.0.1", "--port", str(port)]
    if mode == "uvicorn --workers 2":
        command += ["--workers", "2"]
        return start_listening(command, port, UVICORN_READY, times=2, env=env)
    return start_listening(command, port, UVICORN_READY, env=env)


class Workers:
    """Three workers on fixed ports, each replaced in turn."""

    def __init__(self, mode: str, redis_url: str, stack: contextlib.ExitStack) -> None:
        self.mode = mode
        self.redis_url = redis_url
        self.stack = stack
        self.ports = [free_port() for _ in range(3)]
        self.started: list[Worker] = []

    def logs(self) -> str:
        """What the workers wrote, for a failure's message."""
        return "\n".join(f"worker {w.pid}:\n{w.log()}" for w in self.started if w.log())

    async def start(self, port: int) -> Worker:
        starting = started_by(self.mode, port, self.redis_url)
        worker = await asyncio.to_thread(self.stack.enter_context, starting)
        self.started.append(worker)
        return worker

    async def replace(self, old: Worker) -> Worker:
        old.process.send_signal(signal.SIGTERM)
        code = await asyncio.to_thread(old.process.wait, DRAIN_DELAY + GRACE + TIMEOUT)
        # (uvicorn raises the signal again once it has stopped)
        assert code in (0, -signal.SIGTERM), old.log()
        assert "Traceback" not in old.log(), old.log()
        return await self.start(old.port)


def result_text(result: JSON, revision: str) -> str:
    validate_definition(result, "CallToolResult", revision)
    assert not result.get("isError"), result
    text: str = result["content"][0]["text"]
    return text


async def sdk_client(url: str, mode: str, tally: Tally, going: asyncio.Event) -> None:
    """The official SDK's client: ``legacy`` (2025-11-25 session) or ``auto`` (2026-07-28)."""
    revision = LEGACY if mode == "legacy" else MODERN
    client = SdkClient(url, mode=mode, read_timeout_seconds=TIMEOUT)
    await client.__aenter__()
    try:
        assert client.protocol_version == revision
        while going.is_set():
            call_id = uuid.uuid4().hex
            try:
                result = await client.call_tool("count", {"call_id": call_id})
                dumped = result.model_dump(by_alias=True, mode="json", exclude_none=True)
                tally.answered[call_id] = result_text(dumped, revision)
            except Exception as exc:
                tally.failure(call_id, f"sdk {mode}", exc)
                return  # its session may be gone with it
    finally:
        try:
            await client.__aexit__(None, None, None)
        except Exception as exc:  # e.g. anyio.BrokenResourceError from the SDK's transport
            # (an answer that reached it after its session stopped reading): not a call's
            # outcome, which the tally holds; shown with the figures
            tally.closing.append(f"sdk {mode} closing: {exc!r}"[:300])


HEADERS = {
    "accept": "application/json, text/event-stream",
    "content-type": "application/json",
    "mcp-protocol-version": MODERN,
}
WITH_TASKS = modern_meta(
    **{"io.modelcontextprotocol/clientCapabilities": {"extensions": {TASKS: {}}}}
)


async def post(http: httpx.AsyncClient, url: str, message: JSON) -> JSON:
    """One 2026-07-28 request; its result, checked against the schema."""
    headers = {**HEADERS, "mcp-method": message["method"]}
    if message["method"] == "tools/call":
        headers["mcp-name"] = message["params"]["name"]
    checker = WireChecker(MODERN, extension_methods=["tasks/get"], extension_result_types=["task"])
    checker.client_sent(message)
    answer = await http.post(url, content=orjson.dumps(message), headers=headers)
    assert answer.headers.get("content-type") == "application/json", (answer, answer.text)
    checker.server_sent(answer.content)
    reply: JSON = orjson.loads(answer.content)
    assert "result" in reply, (answer.status_code, reply)
    result: JSON = reply["result"]
    return result


def call(call_id: str, mid: int) -> JSON:
    arguments = {"call_id": call_id}
    params = {"name": "count", "arguments": arguments, "_meta": modern_meta()}
    return {"jsonrpc": "2.0", "id": mid, "method": "tools/call", "params": params}


async def raw_client(url: str, kept: bool, tally: Tally, going: asyncio.Event) -> None:
    """Raw 2026-07-28 calls on one kept-alive connection, or each on a fresh one."""
    ids = itertools.count(1)
    async with httpx.AsyncClient(timeout=TIMEOUT) as kept_alive:
        while going.is_set():
            call_id = uuid.uuid4().hex
            try:
                if kept:
                    result = await post(kept_alive, url, call(call_id, next(ids)))
                else:
                    async with httpx.AsyncClient(timeout=TIMEOUT) as fresh:
                        result = await post(fresh, url, call(call_id, next(ids)))
                tally.answered[call_id] = result_text(result, MODERN)
            except Exception as exc:
                tally.failure(call_id, f"raw {'kept' if kept else 'fresh'}", exc)


async def start_task(url: str, call_id: str) -> str:
    arguments = {"call_id": call_id, "seconds": TASK_S}
    params = {"name": "slow_count", "arguments": arguments, "_meta": WITH_TASKS}
    message = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params}
    async with httpx.AsyncClient(timeout=TIMEOUT) as http:
        created = await post(http, url, message)
    assert created["resultType"] == "task", created
    task_id: str = created["taskId"]
    return task_id


async def task_end(url: str, task_id: str) -> JSON:
    params = {"taskId": task_id, "_meta": WITH_TASKS}
    message = {"jsonrpc": "2.0", "id": 1, "method": "tasks/get", "params": params}
    async with httpx.AsyncClient(timeout=TIMEOUT) as http:
        while True:
            state = await post(http, url, message)
            if state["status"] in ("completed", "failed", "cancelled"):
                return state
            await asyncio.sleep(0.1)


@contextlib.asynccontextmanager
async def calling(*clients: Coroutine[Any, Any, None]) -> AsyncIterator[None]:
    running = [asyncio.ensure_future(client) for client in clients]
    try:
        yield
        await asyncio.wait_for(asyncio.gather(*running), TIMEOUT)
    finally:
        for client in running:
            client.cancel()
        await asyncio.gather(*running, return_exceptions=True)


async def runs_counted(redis_url: str) -> dict[str, int]:
    counts = aioredis.Redis.from_url(redis_url)
    try:
        keys = [key async for key in counts.scan_iter("rolling:runs:*")]
        values = await counts.mget(keys) if keys else []
    finally:
        await counts.aclose()
    return {key.decode().rsplit(":", 1)[1]: int(n) for key, n in zip(keys, values, strict=True)}


MODES = ["mcp.run", "toolwire run", "uvicorn", "uvicorn --workers 2", "compose recipe"]


@pytest.mark.parametrize("mode", MODES)
async def test_a_rolling_restart_under_load_fails_loses_and_repeats_nothing(mode: str) -> None:
    with contextlib.ExitStack() as stack:
        redis_url = stack.enter_context(start_redis())
        workers = Workers(mode, redis_url, stack)
        first = [await workers.start(port) for port in workers.ports]
        if mode == "compose recipe":  # HAProxy following /readyz
            base = stack.enter_context(start_haproxy(recipe_balancer(workers.ports)))
        else:
            nginx = start_nginx(workers.ports, " max_fails=0", resend_posts=True)
            base = stack.enter_context(nginx)
        url = f"{base}/mcp"
        tally, going = Tally(), asyncio.Event()
        going.set()
        clients = [
            *(sdk_client(url, mode, tally, going) for mode in ("legacy", "legacy", "auto", "auto")),
            *(raw_client(url, kept, tally, going) for kept in (True, True, False, False)),
        ]
        async with calling(*clients):
            task_id = await start_task(url, "the-task")
            for old in first:
                await workers.replace(old)
            going.clear()
        task = await asyncio.wait_for(task_end(url, task_id), TIMEOUT)
        runs = await runs_counted(redis_url)
        twice = {call_id: n for call_id, n in runs.items() if n > 1}
        lost = [call_id for call_id in tally.failed if call_id in runs]
        print(
            f"{mode}: calls {len(tally.answered) + len(tally.failed)}, failed {len(tally.failed)}, "
            f"run twice {len(twice)}, lost {len(lost)}, task {task['status']}"
        )
        print(*tally.closing, sep="\n")
        if tally.failed:  # (with nginx's log: pytest shows a failure's whole output)
            print(*tally.failed.values(), workers.logs(), sep="\n")
        assert not tally.failed, list(tally.failed.values())[:5]
        assert not twice
        assert len(tally.answered) > 100  # the clients called all along
        assert all(runs[call_id] == 1 for call_id in tally.answered)
        assert task["status"] == "completed", task
        assert runs["the-task"] == 1
