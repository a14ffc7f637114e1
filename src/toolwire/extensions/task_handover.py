"""Resumable tasks across the workers of a shared store: ``@mcp.tool(task=...,
resumable=True)`` declares that a task of the tool may run again, from the start, on another
worker (the tool is idempotent, or picks up from progress it saved itself).

While such a task runs, its job (the tool, the arguments, the call's ``_meta`` and client,
the task's id, owner and times) is kept in the store under its worker's name. When that
worker stops before the task ends (past its ``shutdown_grace``) or dies (its heartbeat
lapsed), another worker takes the job over (:mod:`toolwire.transports.store.runs`):
it runs the tool again under the same task id, for the same caller, and the task goes on
as before for whoever polls it; its state says ``working`` meanwhile, never ``failed``.
A task of another tool fails as before: "The worker running the task stopped".
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable
from typing import TYPE_CHECKING, Any

from .. import jsonrpc
from ..errors import RPCError
from ..protocol.revisions import FEATURES
from ..server.context import Context
from ..server.request import JSON, Request
from .task_run import _run
from .tasks import TERMINAL, Task, TaskRegistry

if TYPE_CHECKING:
    from ..tools import Tool

logger = logging.getLogger("toolwire")

TAKEN_OVER = "Taken over by another worker; running again"


class Handover:
    """The resumable tasks of ``registry``: their jobs kept, others' taken over."""

    def __init__(self, registry: TaskRegistry) -> None:
        self.registry = registry

    def kept(
        self, task: Task, answering: Awaitable[JSON], tool: Tool, request: Request, arguments: JSON
    ) -> Awaitable[JSON]:
        """The answer to the call that started ``task``, its job kept in the store first:
        from the moment the client knows the task, another worker can take it over."""
        task.resumable = True  # (before its first save: its state says so)
        job = {
            "tool": tool.name,
            "arguments": arguments,
            "id": request.id,
            "meta": request.meta,
            "capabilities": request.capabilities,
            "client_info": request.client_info,
            "revision": request.features.revision,
            "owner": task.owner,
            "created_at": task.created_at,
            "ttl_ms": task.ttl_ms,
            "poll_ms": task.poll_ms,
            "expires_at": time.time() + task.ttl_ms / 1000,
        }
        return self._kept(task, job, answering)

    async def _kept(self, task: Task, job: JSON, answering: Awaitable[JSON]) -> JSON:
        try:
            await self.registry.store.keep_run(task.id, job, task.ttl_ms / 1000)
        except Exception as exc:  # Redis trouble: it runs here, and fails if this worker stops
            logger.warning("Could not keep the job of the task %s: %s", task.id, exc)
            task.resumable = False
        return await answering

    async def adopt(self, task_id: str, job: JSON) -> bool:
        """Run the task ``task_id`` again here, from ``job``: True once it runs here, or when
        there is nothing to run (it ended, or its TTL passed); False while this worker
        stops."""
        registry = self.registry
        if registry.stopping:
            return False
        store = registry.store
        state = await store.load_task(task_id)
        left_s = job["expires_at"] - time.time()
        if state is None or state.get("status") in TERMINAL or left_s <= 0:
            return True
        server = registry.server
        task = Task(job["owner"], job["ttl_ms"], job["poll_ms"], task_id, job["created_at"])
        task.expires = time.monotonic() + left_s
        task.resumable = True
        registry.add(task)
        tool = server.get_tool(job["tool"])
        if tool is None or not tool.resumable:
            error = RPCError(jsonrpc.INTERNAL_ERROR, f"No worker can run {job['tool']!r} again")
            task.error = error.to_error()
            task._move("failed", error.message)
            return True
        await store.keep_run(task_id, job, left_s)
        task.run = asyncio.ensure_future(_rerun(server, tool, task, job))
        task.status_message = TAKEN_OVER
        task._touch()  # saved as this worker's
        logger.info("Took over the task %s of tool %r", task_id, tool.name)
        return True


async def _rerun(server: Any, tool: Tool, task: Task, job: JSON) -> None:
    meta = job.get("meta")
    params: JSON = {"name": tool.name, "arguments": job["arguments"]}
    if meta is not None:
        params["_meta"] = meta
    request = Request(
        job["id"],
        "tools/call",
        params,
        FEATURES[job["revision"]],
        meta,
        job.get("capabilities"),
        job.get("client_info"),
        None,
    )
    request.identity = job["owner"]  # the caller the task is bound to
    connection = server.connect(lambda _data: None)  # nobody waits on the call itself
    context = Context(connection, request)
    context._task = task
    try:
        await _run(server, tool, task, context, job["arguments"])
    finally:
        connection.close()
