"""Long-running tools as Tasks (SEP-2663, 2026-07-28): a tool registered with ``task=`` answers
a declaring client with a task; the client polls it to its end, answers its questions and
cancels it; toolwire's client does all of that behind ``call_tool``. In memory and over real
HTTP on 127.0.0.1 (where task requests are routed by ``Mcp-Name``), every message checked
against the 2026-07-28 schema."""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import sys
from collections.abc import AsyncIterator, Iterator
from datetime import timedelta
from typing import Any

import pytest
from pydantic import BaseModel

from toolwire import (
    Client,
    ClientError,
    Context,
    RPCError,
    Server,
    ServerError,
    TaskConfig,
    ToolError,
    types,
)
from toolwire.auth import ResourceServer, StaticTokens
from toolwire.errors import ClientTimeout

from http_server import serve_http
from mcp_spec import WireChecker, validate_definition
from wire import checked_client

pytestmark = pytest.mark.timeout(60)

TASKS = "io.modelcontextprotocol/tasks"
LEGACY, MODERN = "2025-11-25", "2026-07-28"
TASK_OPTIONS = {
    "extension_methods": ["tasks/get", "tasks/update", "tasks/cancel", "notifications/tasks"],
    "extension_result_types": ["task"],
}
ISO = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$")


class Confirm(BaseModel):
    confirm: bool


def jobs_server(**options: Any) -> Server:
    mcp = Server("Jobs", **options)
    started: list[str] = []
    mcp.started = started  # type: ignore[attr-defined]

    @mcp.tool(task="optional")
    async def slow(seconds: float, label: str = "job") -> str:
        """Works for a while."""
        started.append(label)
        await asyncio.sleep(seconds)
        return f"{label} done"

    @mcp.tool(task="required")
    async def only_as_task() -> str:
        """Fails as a tool fails, after a moment: an isError result."""
        await asyncio.sleep(0.01)
        raise ToolError("The job failed")

    @mcp.tool(task="optional")
    async def broken() -> str:
        """Ends in a JSON-RPC error, after a moment."""
        await asyncio.sleep(0.01)
        raise RPCError(-32000, "The backend is gone", {"retry": False})

    @mcp.tool(task="optional")
    async def delete(filename: str, ctx: Context) -> str:
        """Asks before it deletes."""
        answer = await ctx.elicit(f"Delete {filename}?", Confirm, key="confirm")
        return "deleted" if answer.action == "accept" and answer.data.confirm else "kept"

    return mcp


@contextlib.asynccontextmanager
async def task_client(target: Any, **options: Any) -> AsyncIterator[Client]:
    options.setdefault("extensions", {TASKS: {}})
    async with checked_client(target, MODERN, **TASK_OPTIONS, **options) as client:
        yield client


@contextlib.contextmanager
def served(where: str, server: Server) -> Iterator[Any]:
    if where == "memory":
        yield server
        return
    with serve_http(server) as url:
        yield url


async def poll(client: Client, task_id: str, *statuses: str) -> dict[str, Any]:
    """tasks/get until the task is in one of ``statuses`` (bounded by the test timeout); a
    task that ended otherwise fails the test at once."""
    while True:
        state = await client.request("tasks/get", {"taskId": task_id})
        if state["status"] in statuses:
            return state
        assert state["status"] not in ("completed", "failed", "cancelled"), state
        await asyncio.sleep(0.02)


# ---------------------------------------------------------------------------- the wire


@pytest.mark.parametrize("where", ["memory", "http"])
async def test_a_task_is_created_polled_and_completed(where: str) -> None:
    with served(where, jobs_server()) as target:
        async with task_client(target) as client:
            assert TASKS in client.server_extensions
            created = await client.request(
                "tools/call", {"name": "slow", "arguments": {"seconds": 0.3}}
            )
            assert created["resultType"] == "task" and created["status"] == "working"
            assert ISO.match(created["createdAt"]) and ISO.match(created["lastUpdatedAt"])
            assert created["ttlMs"] > 0 and created["pollIntervalMs"] > 0
            assert not {"result", "error", "inputRequests", "content"} & set(created)
            task_id = created["taskId"]
            assert len(task_id) >= 20  # unguessable: it is all a caller needs
            working = await client.request("tasks/get", {"taskId": task_id})
            assert (working["resultType"], working["status"]) == ("complete", "working")
            done = await poll(client, task_id, "completed")
            assert done["result"]["content"] == [{"type": "text", "text": "job done"}]
            validate_definition(done["result"], "CallToolResult", MODERN)  # as inlined
            assert done["result"].get("isError", False) is False
            again = await client.request("tasks/cancel", {"taskId": task_id})
            assert {k: v for k, v in again.items() if k != "_meta"} == {"resultType": "complete"}
            assert (await client.request("tasks/get", {"taskId": task_id}))["status"] == "completed"


@pytest.mark.parametrize("where", ["memory", "http"])
async def test_errors_input_and_cancellation(where: str) -> None:
    server = jobs_server()
    with served(where, server) as target:
        async with task_client(target, capabilities={"elicitation": {}}) as client:
            failing = await client.request("tools/call", {"name": "only_as_task"})
            done = await poll(client, failing["taskId"], "completed", "failed")
            assert done["status"] == "completed" and done["result"]["isError"] is True

            broken = await client.request("tools/call", {"name": "broken"})
            failed = await poll(client, broken["taskId"], "completed", "failed")
            assert failed["status"] == "failed" and "result" not in failed
            assert failed["error"] == {
                "code": -32000,
                "message": "The backend is gone",
                "data": {"retry": False},
            }

            asking = await client.request(
                "tools/call", {"name": "delete", "arguments": {"filename": "a.txt"}}
            )
            waiting = await poll(client, asking["taskId"], "input_required")
            question = waiting["inputRequests"]["confirm"]
            assert question["method"] == "elicitation/create"
            assert question["params"]["message"] == "Delete a.txt?"
            update = {"taskId": asking["taskId"], "inputResponses": {"stray": {"x": 1}}}
            await client.request("tasks/update", update)  # unknown keys are ignored
            answer = {"confirm": {"action": "accept", "content": {"confirm": True}}}
            await client.request(
                "tasks/update", {"taskId": asking["taskId"], "inputResponses": answer}
            )
            finished = await poll(client, asking["taskId"], "completed")
            assert finished["result"]["content"][0]["text"] == "deleted"

            long = await client.request(
                "tools/call", {"name": "slow", "arguments": {"seconds": 60}}
            )
            ack = await client.request("tasks/cancel", {"taskId": long["taskId"]})
            assert ack["resultType"] == "complete" and "status" not in ack
            assert (await poll(client, long["taskId"], "cancelled"))["status"] == "cancelled"

            with pytest.raises(ServerError) as unknown:
                await client.request("tasks/get", {"taskId": "no-such-task"})
            assert unknown.value.code == -32602
            for removed in ("tasks/result", "tasks/list"):
                with pytest.raises(ServerError) as missing:
                    await client.request(removed, {"taskId": long["taskId"]})
                assert missing.value.code == -32601


async def test_task_requests_without_mcp_name_are_served_over_http() -> None:
    """SEP-2663 routes tasks/* by ``Mcp-Name: taskId`` but, unlike the core named methods,
    does not make a missing header an error; clients on the Python SDK (FastMCP's tasks
    client among them) send none. A different task id is still a header mismatch."""
    import httpx

    from wire import modern_meta

    checker = WireChecker(MODERN, **TASK_OPTIONS)
    meta = modern_meta(
        **{"io.modelcontextprotocol/clientCapabilities": {"extensions": {TASKS: {}}}}
    )
    ids = iter(range(1, 100))

    async def post(
        http: httpx.AsyncClient, url: str, method: str, params: Any, **headers: str
    ) -> httpx.Response:
        message = {"jsonrpc": "2.0", "id": next(ids), "method": method}
        message["params"] = {**params, "_meta": meta}
        sent = {
            "accept": "application/json, text/event-stream",
            "mcp-protocol-version": MODERN,
            "mcp-method": method,
            **headers,
        }
        checker.client_sent(message)
        answer = await http.post(url, json=message, headers=sent)
        checker.server_sent(answer.content)
        return answer

    with serve_http(jobs_server()) as url:
        async with httpx.AsyncClient(timeout=10) as http:
            call = {"name": "slow", "arguments": {"seconds": 60}}
            created = (await post(http, url, "tools/call", call, **{"mcp-name": "slow"})).json()
            task_id = created["result"]["taskId"]
            got = await post(http, url, "tasks/get", {"taskId": task_id})
            assert got.status_code == 200 and got.json()["result"]["status"] == "working"
            wrong = await post(http, url, "tasks/get", {"taskId": task_id}, **{"mcp-name": "x"})
            assert wrong.status_code == 400 and wrong.json()["error"]["code"] == -32020
            cancel = await post(http, url, "tasks/cancel", {"taskId": task_id})
            assert cancel.status_code == 200 and cancel.json()["result"]["resultType"] == "complete"
            refused = await post(http, url, "tools/call", call)  # core methods need Mcp-Name
            assert refused.status_code == 400 and refused.json()["error"]["code"] == -32020


@pytest.mark.parametrize("where", ["memory", "http"])
async def test_a_client_without_the_extension(where: str) -> None:
    with served(where, jobs_server()) as target:
        async with checked_client(target, MODERN, **TASK_OPTIONS) as client:
            plain = await client.call_tool("slow", {"seconds": 0})
            assert plain.text == "job done" and plain.raw["resultType"] == "complete"
            with pytest.raises(ServerError) as required:
                await client.call_tool("only_as_task", {})
            assert required.value.code == -32021
            needs = {"requiredCapabilities": {"extensions": {TASKS: {}}}}
            assert required.value.data == needs
            with pytest.raises(ServerError) as gated:  # checked before the id is looked up
                await client.request("tasks/get", {"taskId": "gate-test"})
            assert gated.value.code == -32021


async def test_legacy_revisions_run_task_tools_as_ordinary_calls() -> None:
    server = jobs_server()
    async with checked_client(server, LEGACY, extensions={TASKS: {}}) as client:
        assert client.server_extensions == {}  # Tasks is defined on 2026-07-28 only
        assert (await client.call_tool("slow", {"seconds": 0})).text == "job done"


# ---------------------------------------------------------------------------- the client


@contextlib.asynccontextmanager
async def recording_client(target: Any, **options: Any) -> AsyncIterator[tuple[Client, list[str]]]:
    """A client declaring Tasks whose sent methods are recorded, and checked as they go."""
    checker = WireChecker(MODERN, **TASK_OPTIONS)
    methods: list[str] = []

    def tap(direction: str, data: bytes) -> None:
        message = json.loads(data)
        if direction == "send" and isinstance(message, dict) and "method" in message:
            methods.append(message["method"])
        (checker.client_sent if direction == "send" else checker.server_sent)(data)

    declared = {TASKS: {}}
    async with Client(
        target, protocol_version=MODERN, tap=tap, extensions=declared, **options
    ) as client:
        yield client, methods
    assert checker.checked > len(methods)


async def test_call_tool_waits_answers_and_raises_for_the_task() -> None:
    def refuse(params: dict[str, Any]) -> dict[str, Any]:
        return {"action": "accept", "content": {"confirm": False}}

    async with recording_client(jobs_server(), elicitation_handler=refuse) as (client, sent):
        sent.clear()  # the handshake
        result = await client.call_tool("slow", {"seconds": 0.2, "label": "report"})
        assert result.text == "report done" and not result.is_error
        # tasks/get until it ends, and tools/list once: the client checks the result's
        # structuredContent against the tool's output schema
        assert sent[0] == "tools/call" and set(sent[1:]) == {"tasks/get", "tools/list"}
        assert sent.count("tools/list") == 1
        assert (await client.call_tool("delete", {"filename": "b.txt"})).text == "kept"
        assert "tasks/update" in sent
        assert (await client.call_tool("only_as_task", {})).is_error
        with pytest.raises(ServerError) as failed:
            await client.call_tool("broken", {})
        assert (failed.value.code, failed.value.data) == (-32000, {"retry": False})
        sent.clear()
        with pytest.raises(ClientTimeout, match="cancelled"):
            await client.call_tool("slow", {"seconds": 60}, timeout=0.3)
        assert sent[0] == "tools/call" and sent[-1] == "tasks/cancel"


async def test_start_tool_gives_a_handle_to_the_task() -> None:
    def confirm(params: dict[str, Any]) -> dict[str, Any]:
        return {"action": "accept", "content": {"confirm": True}}

    async with task_client(jobs_server(), elicitation_handler=confirm) as client:
        job = await client.start_tool("slow", {"seconds": 60, "label": "long"})
        assert job.id is not None and (await job.status())["status"] == "working"
        await job.cancel()
        with pytest.raises(ClientError, match="was cancelled"):
            await job.result()
        asking = await client.start_tool("delete", {"filename": "d.txt"})
        assert (await asking.result(timeout=10)).text == "deleted"  # answered on the way
        assert (await asking.status())["status"] == "completed"
    async with checked_client(jobs_server(), MODERN, **TASK_OPTIONS) as plain:
        at_once = await plain.start_tool("slow", {"seconds": 0})  # no Tasks: no task
        assert at_once.id is None and (await at_once.status())["status"] == "completed"
        assert (await at_once.result()).text == "job done"
        await at_once.cancel()  # nothing to cancel


@pytest.mark.parametrize("where", ["memory", "http"])
async def test_a_task_tool_that_ends_at_once_is_answered_with_its_result(where: str) -> None:
    """Nothing to wait for (a sync tool that never blocks, an async one that ends without
    waiting): the declaring client gets the result or the error itself, not a task; a tool
    that waits, even for one turn of the loop, is a task."""
    mcp = jobs_server()

    @mcp.tool(task="required", blocking=False)
    def total(values: list[int]) -> int:
        """Adds the values up."""
        return sum(values)

    @mcp.tool(task="optional")
    async def double(value: int) -> int:
        """Doubles the value, or refuses a negative one."""
        if value < 0:
            raise RPCError(-32000, "No negative values", {"value": value})
        return 2 * value

    with served(where, mcp) as target:
        async with task_client(target) as client:
            answered = await client.request(
                "tools/call", {"name": "total", "arguments": {"values": [1, 2, 3]}}
            )
            assert answered["resultType"] == "complete" and "taskId" not in answered
            assert answered["structuredContent"] == {"result": 6}
            job = await client.start_tool("total", {"values": [4]})
            assert job.id is None and (await job.result()).structured == {"result": 4}
            doubled = await client.request(
                "tools/call", {"name": "double", "arguments": {"value": 4}}
            )
            assert doubled["resultType"] == "complete" and doubled["structuredContent"] == {
                "result": 8
            }
            with pytest.raises(ServerError, match="No negative values") as refused_value:
                await client.request("tools/call", {"name": "double", "arguments": {"value": -1}})
            assert (refused_value.value.code, refused_value.value.data) == (-32000, {"value": -1})
            created = await client.request(
                "tools/call", {"name": "slow", "arguments": {"seconds": 0}}
            )
            assert created["resultType"] == "task"
            assert (await poll(client, created["taskId"], "completed"))["result"]["content"]
        async with checked_client(target, MODERN, **TASK_OPTIONS) as plain:
            with pytest.raises(ServerError, match="runs as a task") as refused:
                await plain.request("tools/call", {"name": "total", "arguments": {"values": []}})
            assert refused.value.code == -32021


async def test_a_task_needing_input_the_client_cannot_give_is_cancelled() -> None:
    server = jobs_server()
    declared = {TASKS: {}}
    capabilities = {"elicitation": {}}  # declared, but no handler to answer with
    async with task_client(server, extensions=declared, capabilities=capabilities) as client:
        with pytest.raises(ClientError, match="needs input the client could not give"):
            await client.call_tool("delete", {"filename": "c.txt"})


# ---------------------------------------------------------------------------- the caller


def test_tasks_are_bound_to_their_caller() -> None:
    tokens = StaticTokens({"alice-token": ["mcp"], "bob-token": ["mcp"]})
    server = jobs_server(auth=ResourceServer("http://127.0.0.1/mcp", [], tokens))

    async def check(url: str) -> None:
        async with task_client(url, auth="alice-token") as alice:
            created = await alice.request(
                "tools/call", {"name": "slow", "arguments": {"seconds": 60}}
            )
            async with task_client(url, auth="bob-token") as bob:
                for method in ("tasks/get", "tasks/cancel"):
                    with pytest.raises(ServerError) as hidden:
                        await bob.request(method, {"taskId": created["taskId"]})
                    assert hidden.value.code == -32602
            state = await alice.request("tasks/get", {"taskId": created["taskId"]})
            assert state["status"] == "working"  # bob's cancel did not reach it
            await alice.request("tasks/cancel", {"taskId": created["taskId"]})

    with serve_http(server) as url:
        asyncio.run(asyncio.wait_for(check(url), 30))


def test_task_options_are_checked() -> None:
    from toolwire import RegistrationError

    def job() -> None:
        """A job."""

    with pytest.raises(RegistrationError, match='task= is "optional", "required", True, a Tas'):
        Server("S").tool(task="always")(job)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match='mode is "optional", "required" or "forbidden"'):
        TaskConfig(mode="always")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="poll_interval must be positive"):
        TaskConfig(poll_interval=timedelta(0))
    # FastMCP's spellings
    mcp = Server("S")
    assert mcp.add_tool(job, name="a", task=True).task == "optional"
    assert mcp.add_tool(job, name="b", task=False).task is None
    assert mcp.add_tool(job, name="c", task=TaskConfig("required")).task == "required"
    assert mcp.add_tool(job, name="d", task=TaskConfig("forbidden")).task is None
    # resumable= (run again elsewhere) is for task tools that start as tasks
    assert mcp.add_tool(job, name="e", task=True, resumable=True).resumable
    for options in ({}, {"task": True, "questions_first": True}):
        with pytest.raises(RegistrationError, match="resumable= is for task tools that start"):
            mcp.add_tool(job, name="f", resumable=True, **options)


async def test_a_task_that_asks_by_returning_an_input_required_result() -> None:
    """FastMCP's guard pattern run as a task: the task waits in input_required, tasks/update
    brings the answer, and the tool runs again reading it in ctx.input_responses; the task
    asks clients to poll at its TaskConfig's interval."""
    mcp = Server("Guard")

    @mcp.tool(task=TaskConfig(poll_interval=timedelta(milliseconds=250)))
    async def plan(ctx: Context) -> str | types.InputRequiredResult:
        answers = ctx.input_responses
        if answers is None:
            question = types.ElicitRequest(
                params=types.ElicitRequestFormParams(
                    message="Confirm?",
                    requested_schema={
                        "type": "object",
                        "properties": {"confirm": {"type": "boolean"}},
                        "required": ["confirm"],
                    },
                )
            )
            return types.InputRequiredResult(
                result_type="input_required", input_requests={"ok": question}
            )
        answer = answers["ok"]
        assert isinstance(answer, types.ElicitResult)
        return f"confirmed: {answer.content['confirm']}"  # type: ignore[index]

    def confirm(params: dict[str, Any]) -> dict[str, Any]:
        assert params["message"] == "Confirm?"
        return {"action": "accept", "content": {"confirm": True}}

    async with recording_client(mcp, elicitation_handler=confirm) as (client, sent):
        created = await client.request("tools/call", {"name": "plan", "arguments": {}, "task": {}})
        assert created["resultType"] == "task" and created["pollIntervalMs"] == 250
        sent.clear()
        result = await client.call_tool("plan", {})
        assert result.text == "confirmed: True" and not result.is_error
        assert "tasks/update" in sent


# ---------------------------------------------------------------------------- the example


async def test_the_bulk_import_example_over_stdio() -> None:
    """examples/bulk_import.py as a host runs it: the task's progress shows in its status
    message, its question waits for tasks/update, and a cancelled import stops between
    two records."""
    from wire import EXAMPLES

    command = [sys.executable, str(EXAMPLES / "bulk_import.py")]
    answers: list[dict[str, Any]] = []

    def overwrite(params: dict[str, Any]) -> dict[str, Any]:
        answers.append(params)
        return {"action": "accept", "content": {"overwrite": True}}

    async with task_client(command, elicitation_handler=overwrite) as client:
        first = await client.call_tool("import_records", {"count": 5, "batch": "first"})
        assert first.text == "Imported 5 records (first)" and answers == []
        created = await client.request(
            "tools/call",
            {"name": "import_records", "arguments": {"count": 200, "batch": "b", "delay": 0.05}},
        )
        waiting = await poll(client, created["taskId"], "input_required")
        assert (
            "5 of the records exist already"
            in (waiting["inputRequests"]["overwrite"]["params"]["message"])
        )
        answer = {"overwrite": {"action": "accept", "content": {"overwrite": True}}}
        update = {"taskId": created["taskId"], "inputResponses": answer}
        await client.request("tasks/update", update)
        while True:  # the progress shows in the status message
            state = await poll(client, created["taskId"], "working")
            done, _, rest = state.get("statusMessage", "").partition("/")
            if done.isdigit() and int(done) >= 3:
                assert rest.startswith(f"200: record {done}")
                break
        await client.request("tasks/cancel", {"taskId": created["taskId"]})
        assert (await poll(client, created["taskId"], "cancelled"))["status"] == "cancelled"
        imported = int((await client.call_tool("count_imported", {})).text)
        assert 5 <= imported < 200  # stopped between two records
        second = await client.call_tool("import_records", {"count": 3, "batch": "again"})
        assert second.text == "Imported 3 records (again)" and len(answers) == 1


async def test_the_registry_stays_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    """Past MAX_TASKS the oldest tasks that ended are forgotten, a tenth at a time; tasks
    still running are kept; an expired task is gone."""
    from toolwire.extensions import tasks

    monkeypatch.setattr(tasks, "MAX_TASKS", 20)
    server = jobs_server()
    async with task_client(server) as client:
        running = await client.request("tools/call", {"name": "slow", "arguments": {"seconds": 60}})
        first = await client.request("tools/call", {"name": "slow", "arguments": {"seconds": 0}})
        await poll(client, first["taskId"], "completed")
        for _ in range(25):
            created = await client.request(
                "tools/call", {"name": "slow", "arguments": {"seconds": 0}}
            )
            await poll(client, created["taskId"], "completed")
        assert len(server.tasks._tasks) <= 20
        with pytest.raises(ServerError):  # the oldest that ended went first
            await client.request("tasks/get", {"taskId": first["taskId"]})
        assert (await client.request("tasks/get", {"taskId": running["taskId"]}))[
            "status"
        ] == "working"
        server.tasks._tasks[running["taskId"]].expires = 0  # its TTL passed
        with pytest.raises(ServerError):
            await client.request("tasks/get", {"taskId": running["taskId"]})


def asking_server() -> Server:
    mcp = Server("Deploys")

    @mcp.tool(task="optional", questions_first=True)
    async def deploy(env: str, ctx: Context) -> str:
        """Asks first (input_required rounds), then runs as a task."""
        answer = await ctx.elicit(f"Deploy to {env}?", Confirm, key="go")
        if answer.action != "accept" or not answer.data.confirm:
            return "not deployed"
        await ctx.start_task()
        await asyncio.sleep(0.1)
        ctx.report_progress(1, 2, "halfway")
        await asyncio.sleep(0.1)
        return f"deployed to {env}"

    return mcp


@pytest.mark.parametrize("where", ["memory", "http"])
async def test_questions_first_then_a_task(where: str) -> None:
    def yes(params: dict[str, Any]) -> dict[str, Any]:
        return {"action": "accept", "content": {"confirm": True}}

    def no(params: dict[str, Any]) -> dict[str, Any]:
        return {"action": "accept", "content": {"confirm": False}}

    with served(where, asking_server()) as target:
        async with recording_client(target, elicitation_handler=yes) as (client, sent):
            sent.clear()
            result = await client.call_tool("deploy", {"env": "prod"})
            assert result.text == "deployed to prod"
            # round 1 asks, round 2 (with the answer) becomes the task, which is polled
            assert sent[:2] == ["tools/call", "tools/call"]
            assert set(sent[2:]) == {"tasks/get", "tools/list"}  # its output schema, once
            job = await client.start_tool("deploy", {"env": "staging"})
            assert job.id is not None  # the rounds were answered on the way
            await job.cancel()
            assert (await poll(client, job.id, "cancelled"))["status"] == "cancelled"
        async with recording_client(target, elicitation_handler=no) as (client, sent):
            sent.clear()
            assert (await client.call_tool("deploy", {"env": "prod"})).text == "not deployed"
            assert "tasks/get" not in sent  # it never became a task
        async with checked_client(target, MODERN, elicitation_handler=yes) as plain:
            assert (await plain.call_tool("deploy", {"env": "dev"})).text == "deployed to dev"


@pytest.mark.parametrize("where", ["memory", "http"])
async def test_a_listen_stream_hears_the_tasks_it_asked_for(where: str) -> None:
    """notifications/tasks: each change of a followed task, with the state tasks/get would
    give, on the listen stream that asked; other tasks and unknown ids are not followed."""
    with served(where, jobs_server()) as target:
        async with task_client(target) as client:
            followed = await client.request(
                "tools/call", {"name": "slow", "arguments": {"seconds": 0.2, "label": "a"}}
            )
            other = await client.request(
                "tools/call", {"name": "slow", "arguments": {"seconds": 0.2, "label": "b"}}
            )
            subscription = await client.listen(
                tools_list_changed=False, task_ids=[followed["taskId"], "no-such-task"]
            )
            acknowledged = next(
                n
                for n in client.notifications
                if n["method"] == "notifications/subscriptions/acknowledged"
            )
            assert acknowledged["params"]["notifications"] == {"taskIds": [followed["taskId"]]}
            await poll(client, other["taskId"], "completed")
            await poll(client, followed["taskId"], "completed")
            heard: list[dict[str, Any]] = []
            while not any(n["status"] == "completed" for n in heard):  # bounded by the timeout
                heard = [
                    n["params"]
                    for n in client.notifications
                    if n["method"] == "notifications/tasks"
                ]
                await asyncio.sleep(0.02)
            assert {n["taskId"] for n in heard} == {followed["taskId"]}
            assert heard[-1]["result"]["content"][0]["text"] == "a done"
            assert all(
                n["_meta"]["io.modelcontextprotocol/subscriptionId"] == subscription for n in heard
            )
            await client.stop_listening(subscription)
        async with checked_client(target, MODERN, **TASK_OPTIONS) as undeclared:
            with pytest.raises(ClientError):
                await undeclared.listen(task_ids=["any"])
