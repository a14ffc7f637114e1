"""Waiting for a task (the extension ``io.modelcontextprotocol/tasks``, SEP-2663) on the
client side.

A client that declares the extension (``Client(extensions={TASKS: {}})``) may get a task
instead of a tool's result. :func:`wait_for_task` polls ``tasks/get`` at the interval the
server suggests, answers the task's input requests with the client's own handlers (through
``tasks/update``, each question once), and returns the tool's result once the task
completed; a failed task raises its JSON-RPC error as :class:`~toolwire.ServerError`, a
cancelled one :class:`~toolwire.ClientError`. When ``timeout`` passes first, the task is
cancelled (``tasks/cancel``) and :class:`~toolwire.errors.ClientTimeout` is raised.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable
from typing import Any

from ..errors import ClientError, ClientTimeout, RPCError, ServerError

TASKS = "io.modelcontextprotocol/tasks"
DEFAULT_POLL_S = 1.0
MIN_POLL_S = 0.05

JSON = dict[str, Any]


class ToolTask:
    """A tool call started with :meth:`~toolwire.Client.start_tool`: a task on the server,
    or, when the server answered at once, its result."""

    def __init__(self, client: Any, tool: str, answer: JSON) -> None:
        self._client = client
        self.tool = tool
        is_task = answer.get("resultType") == "task"
        self.id: str | None = answer.get("taskId") if is_task else None  # None: no task
        self.state: JSON = answer if is_task else {"status": "completed", "result": answer}

    async def status(self) -> JSON:
        """The task as ``tasks/get`` shows it now (``status``, ``statusMessage``, ...)."""
        if self.id is not None:
            self.state = await self._client.request("tasks/get", {"taskId": self.id})
        return self.state

    async def result(self, timeout: float | None = None) -> Any:
        """Wait for the task to end, answering its questions, and return the tool's
        :class:`~toolwire.client.CallResult` (as :meth:`~toolwire.Client.call_tool` does)."""
        if self.id is None:
            result = self.state["result"]
        else:
            result = await wait_for_task(self._client, {**self.state, "taskId": self.id}, timeout)
        return await self._client._call_result(self.tool, result)

    async def cancel(self) -> None:
        """Ask the server to cancel the task (it may still end otherwise)."""
        if self.id is not None:
            await self._client.request("tasks/cancel", {"taskId": self.id})


async def wait_for_task(
    client: Any,
    created: JSON,
    timeout: float | None,
    on_state: Callable[[JSON], Any] | None = None,
) -> JSON:
    """The result of the task ``created`` (a ``resultType: "task"`` answer) once it ends;
    ``on_state`` sees each state polled. Cancelling the wait cancels the task."""
    task_id = created.get("taskId")
    if not isinstance(task_id, str):
        raise ClientError("The server answered with a task that has no taskId")
    try:
        return await _follow(client, task_id, created, timeout, on_state)
    except asyncio.CancelledError:
        with contextlib.suppress(Exception):  # bounded: the client's own request timeout
            await asyncio.shield(_cancel(client, task_id))
        raise


async def _follow(
    client: Any,
    task_id: str,
    created: JSON,
    timeout: float | None,
    on_state: Callable[[JSON], Any] | None,
) -> JSON:
    deadline = None if timeout is None else time.monotonic() + timeout
    answered: set[str] = set()
    state = created
    while True:
        if on_state is not None:
            on_state(state)
        status = state.get("status")
        if status == "completed":
            result = state.get("result")
            if not isinstance(result, dict):
                raise ClientError(f"The task {task_id} completed without a result object")
            return result
        if status == "failed":
            raise _task_error(state.get("error"))
        if status == "cancelled":
            raise ClientError(f"The task {task_id} was cancelled")
        if status == "input_required":
            await _answer(client, task_id, state.get("inputRequests"), answered)
        left = None if deadline is None else deadline - time.monotonic()
        if left is not None and left <= 0:
            await _cancel(client, task_id)
            raise ClientTimeout(f"The task {task_id} did not end within {timeout:g} s; cancelled")
        await asyncio.sleep(min(_interval(state), left) if left is not None else _interval(state))
        state = await client.request("tasks/get", {"taskId": task_id}, timeout=left)


def _task_error(error: Any) -> ServerError:
    """The JSON-RPC error a failed task carries, as the client raises it."""
    error = error if isinstance(error, dict) else {}
    code = error.get("code")
    message = str(error.get("message") or "The task failed")
    return ServerError(code if isinstance(code, int) else -32603, message, error.get("data"))


def _interval(state: JSON) -> float:
    interval = state.get("pollIntervalMs")
    if isinstance(interval, (int, float)) and not isinstance(interval, bool) and interval > 0:
        return max(MIN_POLL_S, interval / 1000)
    return DEFAULT_POLL_S


async def _answer(client: Any, task_id: str, requests: Any, answered: set[str]) -> None:
    """Answer the task's outstanding questions not answered yet (a poll repeats them until
    the server took the answer)."""
    if not isinstance(requests, dict):
        return
    answers: JSON = {}
    for key, request in requests.items():
        if key in answered or not isinstance(request, dict):
            continue
        try:
            answers[key] = await client._answer(request.get("method"), request.get("params") or {})
        except RPCError as exc:
            await _cancel(client, task_id)
            raise ClientError(
                f"The task {task_id} needs input the client could not give: {exc.message}"
            ) from exc
    if answers:
        await client.request("tasks/update", {"taskId": task_id, "inputResponses": answers})
        answered.update(answers)


async def _cancel(client: Any, task_id: str) -> None:
    with contextlib.suppress(ClientError):  # the client gives up on it either way
        await client.request("tasks/cancel", {"taskId": task_id})
