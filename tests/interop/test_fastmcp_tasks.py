"""Tasks (SEP-2663, 2026-07-28) both ways between toolwire and FastMCP's tasks add-on (PyPI
``fastmcp-tasks``), real processes only.

* FastMCP's client (``fastmcp_tasks_client.py`` beside this file, run in the add-on's own
  virtualenv) drives toolwire task tools on a real uvicorn on 127.0.0.1: ``call_tool`` waits
  for one task, answering its question through the client's ``elicitation_handler``, and a
  ``call_tool_task`` handle cancels another. A tap around the ASGI app checks every message
  both ways against the 2026-07-28 schema.
* toolwire's client (``call_tool`` and ``start_tool``) drives a FastMCP task server
  (``fastmcp_tasks_server.py``, its tasks kept in a real redis-server through pydocket) over
  Streamable HTTP; every message it receives is checked against the same schema.

Besides the generic checks of an extension's messages, a task's inlined parts are checked
against their core definitions: ``result`` as a ``CallToolResult``, ``inputRequests`` as
``InputRequests``, and the ``inputResponses`` of ``tasks/update`` as ``InputResponses``.

The add-on is installed from PyPI into ``.venv/fastmcp-tasks`` on first use
(:func:`interop.peers.fastmcp_tasks`); it is never a dependency of toolwire.
"""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path
from typing import Any

import pytest

from interop import peers
from interop.test_ts_sdk_client import Tap, Tapped
from test_tasks import TASK_OPTIONS, TASKS, jobs_server
from toolwire import Client, ClientError

from http_server import serve_http
from mcp_spec import WireChecker, validate_definition
from services import start_redis, start_worker

pytestmark = [pytest.mark.timeout(120), pytest.mark.peers("fastmcp-tasks")]

MODERN = "2026-07-28"
HERE = Path(__file__).resolve().parent
ISO = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$")
STATUSES = {"working", "input_required", "completed", "failed", "cancelled"}


@pytest.fixture(scope="module")
def python() -> str:
    return peers.fastmcp_tasks()


def check_task_parts(message: Any) -> None:
    """The parts of a Tasks message the schema defines elsewhere, and the Task shape."""
    if not isinstance(message, dict):
        return
    params = message.get("params")
    if message.get("method") == "tasks/update" and isinstance(params, dict):
        validate_definition(params.get("inputResponses"), "InputResponses", MODERN)
    result = message.get("result")
    if not (isinstance(result, dict) and "taskId" in result):
        return
    assert isinstance(result["taskId"], str) and result["taskId"], result
    assert result.get("status") in STATUSES, result
    assert ISO.match(result["createdAt"]) and ISO.match(result["lastUpdatedAt"]), result
    ttl = result["ttlMs"]
    assert ttl is None or (isinstance(ttl, int) and ttl > 0), result
    interval = result.get("pollIntervalMs")
    assert interval is None or (isinstance(interval, int) and interval > 0), result
    assert not {"ttl", "pollInterval", "task"} & set(result), result
    if result.get("resultType") == "task":
        assert not {"result", "error", "inputRequests"} & set(result), result
        return
    assert result.get("resultType") == "complete", result  # tasks/get
    if result["status"] == "completed":
        validate_definition(result["result"], "CallToolResult", MODERN)
    if result["status"] == "input_required":
        assert result["inputRequests"], result
        validate_definition(result["inputRequests"], "InputRequests", MODERN)
    if result["status"] == "failed":
        assert isinstance(result["error"].get("code"), int), result


class TaskTap(Tap):
    """The ASGI tap of the TypeScript SDK test, checking Tasks' extension messages too."""

    def __init__(self) -> None:
        super().__init__()
        self.checker = WireChecker(**TASK_OPTIONS)

    def _check(self, side: str, data: bytes) -> None:
        super()._check(side, data)
        if data.strip():
            try:
                check_task_parts(json.loads(data))
            except AssertionError as exc:
                self.problems.append(f"{side}: {exc}")


async def run_fastmcp_client(python: str, url: str) -> dict[str, Any]:
    process = await asyncio.create_subprocess_exec(
        python,
        str(HERE / "fastmcp_tasks_client.py"),
        url,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    try:
        out, err = await asyncio.wait_for(process.communicate(), 100)
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
    assert process.returncode == 0, err.decode()[-3000:]
    report: dict[str, Any] = json.loads(out.decode().strip().splitlines()[-1])
    return report


async def test_fastmcp_tasks_client_drives_toolwire_tasks(python: str) -> None:
    tap = TaskTap()
    server = jobs_server()
    with serve_http(Tapped(server, tap)) as url:
        report = await run_fastmcp_client(python, url)
    assert "fatal" not in report, report
    assert report["fastmcp_tasks"] == "4.1.4"
    assert report["protocolVersion"] == MODERN
    assert {"slow", "delete"} <= set(report["tools"])

    # call_tool waited for the task, and answered its question through elicitation_handler
    assert report["slow"] == {"text": "report done", "isError": False}
    assert report["delete"] == {"text": "deleted", "isError": False}
    assert [q["message"] for q in report["questions"]] == ["Delete a.txt?"]

    # the call_tool_task handle: working, then cancelled by tasks/cancel
    created = report["created"]
    assert (created["resultType"], created["status"]) == ("task", "working")
    assert report["working"] == "working"
    cancelled = report["cancelled"]
    assert (cancelled["taskId"], cancelled["status"]) == (created["taskId"], "cancelled")
    assert report["cancelledResult"] == f"Task {created['taskId']} was cancelled"
    assert server.started == ["report", "long"]  # type: ignore[attr-defined]

    assert tap.problems == []
    assert tap.checker.client_issues == []  # FastMCP's own messages are valid too
    assert tap.checker.revision == MODERN
    assert tap.server_messages >= 10


async def test_toolwire_client_drives_fastmcp_tasks(python: str) -> None:
    checker = WireChecker(MODERN, **TASK_OPTIONS)
    problems: list[str] = []
    received: list[dict[str, Any]] = []
    sent: set[str] = set()

    def tap(direction: str, data: bytes) -> None:
        message = json.loads(data)
        try:
            if direction == "send":
                sent.add(message.get("method", ""))
                checker.client_sent(data)
            else:
                received.append(message)
                checker.server_sent(data)
            check_task_parts(message)
        except AssertionError as exc:
            problems.append(f"{direction}: {exc}")

    questions: list[dict[str, Any]] = []

    def confirm(params: dict[str, Any]) -> dict[str, Any]:
        questions.append(params)
        return {"action": "accept", "content": {"confirm": True}}

    script = HERE / "fastmcp_tasks_server.py"
    with start_redis() as redis, start_worker(script, "--redis", redis, python=python) as worker:
        async with Client(
            worker.url,
            protocol_version=MODERN,
            extensions={TASKS: {}},
            elicitation_handler=confirm,
            tap=tap,
        ) as client:
            assert TASKS in client.server_extensions
            done = await client.call_tool("slow", {"seconds": 0.2, "label": "report"}, timeout=30)
            assert done.text == "report done" and not done.is_error

            asked = await client.call_tool("confirm_delete", {"filename": "a.txt"}, timeout=30)
            assert asked.text == "deleted" and not asked.is_error
            assert [q["message"] for q in questions] == ["Delete a.txt?"]

            job = await client.start_tool("slow", {"seconds": 60, "label": "long"})
            assert job.id is not None
            assert (await job.status())["status"] in ("working", "input_required")
            await job.cancel()
            with pytest.raises(ClientError, match="was cancelled"):
                await job.result(timeout=30)
            assert (await job.status())["status"] == "cancelled"

    assert problems == []
    tasked = [m["result"] for m in received if m.get("result", {}).get("resultType") == "task"]
    assert len(tasked) == 3  # each call was answered with a task
    assert {"tasks/get", "tasks/update", "tasks/cancel"} <= sent
    assert checker.checked > len(received)  # every message both ways was checked
