"""Long-running tool calls as Tasks: the extension ``io.modelcontextprotocol/tasks``
(SEP-2663), defined on 2026-07-28 and served on :mod:`toolwire.server.dispatch.extensions`.

``@mcp.tool(task="optional")`` runs a call as a task when the calling client declares the
extension on that request, and as an ordinary call otherwise; ``task="required"`` refuses
other clients with ``-32021`` (``requiredCapabilities.extensions``). The call is answered at
once with the task (``resultType: "task"``, its id, status, times, TTL and poll interval);
the tool runs on, and the client polls ``tasks/get`` until the task ends: ``completed`` with
the tool's result (an ``isError`` result too), ``failed`` with the JSON-RPC error of a
protocol failure, or ``cancelled`` after ``tasks/cancel``. A question the tool asks
(``ctx.elicit``, ``ctx.sample``, ``ctx.list_roots``) moves the task to ``input_required``
with the question under ``inputRequests``; ``tasks/update`` brings the answers and the tool
goes on from where it waited.

With ``questions_first=True`` the call runs as an ordinary one until the tool calls
``ctx.start_task()``: its questions before that are ``input_required`` rounds of the call.

A task id is random (it is all a caller needs to reach the task) and, when the server
authenticates its callers, bound to the caller: another one gets "not found". A task runs
in the process that created it and can be polled for ``ttl_ms`` from its creation; with a
store shared by several workers (:class:`TaskRegistry`) any of them serves it.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .. import jsonrpc
from ..errors import RPCError
from ..protocol.revisions import META_SUBSCRIPTION_ID
from ..server.context import Context
from ..server.dispatch.extensions import Extension
from ..server.inputs import MissingClientCapability
from ..server.request import JSON, Request

if TYPE_CHECKING:
    pass

logger = logging.getLogger("toolwire")

TASKS = "io.modelcontextprotocol/tasks"
MODERN = "2026-07-28"
TTL_MS = 3_600_000  # how long a task can be polled, from its creation
POLL_INTERVAL_MS = 500
MAX_TASKS = 10_000  # kept in memory at most; the oldest that ended go first
TERMINAL = frozenset({"completed", "failed", "cancelled"})
STOPPED = "The worker running the task stopped"  # before the task ended, gracefully or not


_second: tuple[int, str] = (0, "")  # the last whole second _now() wrote, and its text


def _now() -> str:
    """The time as ISO 8601 in UTC with milliseconds (``2026-07-28T12:00:00.123Z``); the
    text of the second is made once per second."""
    global _second
    now = time.time()
    second, text = _second
    if int(now) != second:
        second = int(now)
        text = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(second))
        _second = (second, text)
    return f"{text}.{int((now - second) * 1000):03d}Z"


class Task:
    """One task: its state as ``tasks/get`` shows it, and the tool run behind it."""

    def __init__(
        self,
        owner: str | None,
        ttl_ms: int,
        poll_ms: int | None = None,
        task_id: str | None = None,
        created_at: str | None = None,
    ) -> None:
        self.id = task_id or secrets.token_urlsafe(18)
        self.owner = owner
        self.status = "working"
        self.status_message: str | None = None
        self.updated_at = _now()
        self.created_at = created_at or self.updated_at
        self.expires = time.monotonic() + ttl_ms / 1000
        self.ttl_ms = ttl_ms
        self.poll_ms = poll_ms or POLL_INTERVAL_MS  # the tool's TaskConfig, else the default
        self.result: JSON | None = None
        self.error: JSON | None = None
        self.input_requests: dict[str, JSON] = {}
        self._waiting: dict[str, asyncio.Future[Any]] = {}
        self.run: asyncio.Task[None] | None = None
        self.changed: Callable[[Task], None] = lambda task: None  # the registry saves it
        self.dirty = False  # changed since it was last saved
        self.writer: asyncio.Future[None] | None = None
        self.stopped = False  # its worker stopped before it ended (TaskRegistry.finish)
        self.resumable = False  # it may run again elsewhere (toolwire.extensions.task_handover)
        self.handed_over = False  # its worker stopped and another is to run it again

    def state(self) -> JSON:
        """The task as its creation result and ``tasks/get`` describe it."""
        state: JSON = {
            "taskId": self.id,
            "status": self.status,
            "createdAt": self.created_at,
            "lastUpdatedAt": self.updated_at,
            "ttlMs": self.ttl_ms,
            "pollIntervalMs": self.poll_ms,
        }
        if self.status_message:
            state["statusMessage"] = self.status_message
        if self.status == "input_required":
            state["inputRequests"] = dict(self.input_requests)
        elif self.status == "completed":
            state["result"] = self.result
        elif self.status == "failed":
            state["error"] = self.error
        return state

    def _move(self, status: str, message: str | None = None) -> None:
        if self.status in TERMINAL:
            return
        self.status, self.status_message = status, message
        self._touch()

    def _touch(self) -> None:
        self.updated_at = _now()
        self.changed(self)

    # ------------------------------------------------------------ the tool's questions

    async def ask(self, key: str, method: str, params: JSON) -> Any:
        """A question of the tool: outstanding in the task until ``tasks/update`` answers."""
        waiting = asyncio.get_running_loop().create_future()
        self.input_requests[key] = {"method": method, "params": params}
        self._waiting[key] = waiting
        if self.status == "input_required":
            self._touch()
        self._move("input_required")
        try:
            return await waiting
        finally:
            self.input_requests.pop(key, None)
            self._waiting.pop(key, None)
            if not self.input_requests and self.status == "input_required":
                self._move("working")
            elif self.status == "input_required":
                self._touch()

    def progress(self, done: float, total: float | None, message: str | None) -> None:
        """The tool's progress, as the status message ``tasks/get`` shows."""
        shown = f"{done:g}/{total:g}" if total is not None else f"{done:g}"
        self.status_message = f"{shown}: {message}" if message else shown
        self._touch()

    def answer(self, responses: JSON) -> None:
        """``tasks/update``: answers to outstanding questions; any other key is ignored."""
        for key, response in responses.items():
            waiting = self._waiting.get(key)
            if waiting is not None and not waiting.done():
                waiting.set_result(response)

    def cancel(self) -> None:
        """``tasks/cancel``: stop the run; a task that already ended stays as it is."""
        if self.run is not None and not self.run.done():
            self.run.cancel()


class TaskRegistry:
    """``server``'s tasks: those this process runs, by id, forgotten once their TTL has
    passed; with a shared store (``http_app(store=RedisStore(...))``), also the others'.

    With a shared store each task's state is saved there as it changes, so any worker
    answers ``tasks/get``; ``tasks/update`` and ``tasks/cancel`` reaching a worker that does
    not run the task are passed to the one that does. A task whose worker stopped beating
    is reported ``failed``, never left ``working``.
    """

    def __init__(self, server: Any, ttl_ms: int = TTL_MS) -> None:
        self.server = server
        self.ttl_ms = ttl_ms
        self._tasks: dict[str, Task] = {}
        # Other workers' tasks followed by listen streams here: task id -> those streams' ids.
        self._followers: dict[str, set[str | int]] = {}
        # Calls of questions_first tools, until their tool calls ctx.start_task().
        self.starters: dict[Request, Callable[[Context], Task]] = {}
        self.stopping = False  # finish() began: no task is taken over from another worker
        # Resumable tools' tasks (toolwire.extensions.task_handover), once one is registered.
        self.handover: Any = None

    @property
    def store(self) -> Any:
        return getattr(self.server, "shared_store", None)

    def create(self, owner: str | None, poll_ms: int | None = None) -> Task:
        self._forget_expired()
        if len(self._tasks) >= MAX_TASKS:  # the oldest tenth of those that ended go at once
            ended = [task.id for task in self._tasks.values() if task.status in TERMINAL]
            for task_id in ended[: len(self._tasks) - MAX_TASKS + MAX_TASKS // 10]:
                del self._tasks[task_id]
        return self.add(Task(owner, self.ttl_ms, poll_ms))

    def add(self, task: Task) -> Task:
        """Run ``task`` here: its changes are told and saved."""
        task.changed = self._changed
        self._tasks[task.id] = task
        return task

    def local(self, task_id: str, request: Request) -> Task | None:
        """The task ``task_id`` if this process runs it for this caller."""
        self._forget_expired()
        task = self._tasks.get(task_id)
        return task if task is not None and task.owner == request.caller else None

    async def shared_state(self, task_id: str, request: Request) -> JSON:
        """The state another worker saved for ``task_id``; -32602 when there is none for
        this caller. A task whose worker is gone is failed here and then."""
        store = self.store
        saved: JSON | None = await store.load_task(task_id) if store is not None else None
        if saved is None or saved.pop("owner", None) != request.caller:
            raise RPCError(jsonrpc.INVALID_PARAMS, f"Task not found: {task_id[:100]!r}")
        worker = saved.pop("worker", None)
        resumable = saved.pop("resumable", False)  # another worker takes it over
        if (
            saved.get("status") not in TERMINAL
            and not resumable
            and not await store.worker_alive(worker)
        ):
            error = RPCError(jsonrpc.INTERNAL_ERROR, STOPPED)
            saved.pop("inputRequests", None)
            saved.update(status="failed", error=error.to_error(), statusMessage=error.message)
            saved["lastUpdatedAt"] = _now()
            await store.save_task(task_id, {**saved, "owner": request.caller}, self.ttl_ms / 1000)
        return saved

    def listened(self, task_ids: Any, request: Request) -> list[str]:
        """The ids of a ``subscriptions/listen`` filter's ``taskIds`` this caller may follow
        here: its own tasks that this process runs (SEP-2663 ``notifications/tasks``)."""
        declared = request.capabilities.get("extensions") if request.capabilities else None
        if not (isinstance(declared, dict) and isinstance(declared.get(TASKS), dict)):
            raise MissingClientCapability.extension(
                TASKS, f"Task notifications need the extension {TASKS!r}"
            )
        if not isinstance(task_ids, list):
            return []
        ids = dict.fromkeys(i for i in task_ids if isinstance(i, str))
        tasks = [task for task in map(lambda i: self.local(i, request), ids) if task is not None]
        # Each task's state now, once the stream is acknowledged: a task that changes no
        # more (it ended before the stream opened) is heard of too.
        for task in tasks:
            asyncio.get_running_loop().call_soon(self._tell_listeners, task, request.id)
        return [task.id for task in tasks]

    def _tell_listeners(self, task: Task, only: str | int | None = None) -> None:
        """``notifications/tasks`` with the task's state, on each listen stream that asked
        (``only``: the stream of that request id)."""
        for connection in list(self.server._connections):
            for mid, accepted in list(connection.listeners.items()):
                if task.id in accepted.get("taskIds", ()) and only in (None, mid):
                    params = {**task.state(), "_meta": {META_SUBSCRIPTION_ID: mid}}
                    connection.notify("notifications/tasks", params, related=mid)

    def confirm_remote(self, task_ids: Any, accepted: JSON, request: Request) -> Any:
        """With a shared store: a coroutine of ``accepted`` with the listed tasks of this
        caller that other workers run added, their states then told from what those workers
        publish; None when there are none to look up."""
        if self.store is None or not isinstance(task_ids, list):
            return None
        here = set(accepted.get("taskIds", ()))
        remote = [
            task_id
            for task_id in dict.fromkeys(task_ids)
            if isinstance(task_id, str) and task_id not in here and task_id not in self._tasks
        ]
        return self._confirm(remote, accepted, request) if remote else None

    async def _confirm(self, remote: list[str], accepted: JSON, request: Request) -> JSON:
        states: dict[str, JSON] = {}
        for task_id in remote:
            try:
                states[task_id] = await self.shared_state(task_id, request)
            except RPCError:  # no task of this caller's
                continue
            except Exception as exc:  # Redis trouble: the stream goes on without it
                logger.warning("Could not look up the task %s: %s", task_id, exc)
        loop = asyncio.get_running_loop()
        for task_id, state in states.items():
            self._followers.setdefault(task_id, set()).add(request.id)
            # (once the stream is acknowledged, as for the tasks run here)
            loop.call_soon(self._tell_followers, task_id, state, request.id)
        followed = list(states)
        if not followed:
            return accepted
        return {**accepted, "taskIds": [*accepted.get("taskIds", ()), *followed]}

    def _tell_followers(self, task_id: str, state: JSON, only: str | int | None = None) -> None:
        """``notifications/tasks`` for another worker's task, on the listen streams here that
        follow it; a task that ended is followed no more."""
        followers = self._followers.get(task_id)
        if not followers:
            return
        for connection in list(self.server._connections):
            for mid, accepted in list(connection.listeners.items()):
                if (
                    mid in followers
                    and only in (None, mid)
                    and task_id in accepted.get("taskIds", ())
                ):
                    params = {**state, "_meta": {META_SUBSCRIPTION_ID: mid}}
                    connection.notify("notifications/tasks", params, related=mid)
        if state.get("status") in TERMINAL:
            del self._followers[task_id]

    def received(self, event: JSON) -> None:
        """Another worker passed on a ``tasks/update`` or ``tasks/cancel`` for a task here, or
        published the new state of a task it runs."""
        if isinstance(event.get("state"), dict):
            self._tell_followers(event["task"], event["state"])
            return
        task = self._tasks.get(event.get("task"))  # type: ignore[arg-type]
        if task is None:
            return
        if isinstance(event.get("answers"), dict):
            task.answer(event["answers"])
        if event.get("cancel") is True:
            task.cancel()

    def _changed(self, task: Task) -> None:
        self._tell_listeners(task)
        if self.store is None:
            return
        task.dirty = True
        if task.writer is None or task.writer.done():
            task.writer = asyncio.ensure_future(self._write(task))

    async def _write(self, task: Task) -> None:
        """Save ``task`` while it changes: one write at a time, the latest state last."""
        store = self.store
        while task.dirty and store is not None:
            task.dirty = False
            remaining = max(1.0, task.expires - time.monotonic())
            record = {**task.state(), "owner": task.owner, "worker": store.instance}
            if task.resumable:
                record["resumable"] = True
            try:
                await store.save_task(task.id, record, remaining)
                # (listen streams on other workers may follow it)
                await store.publish_change({"task": task.id, "state": task.state()})
                if task.resumable and task.status in TERMINAL:
                    await store.end_run(task.id)
            except Exception as exc:  # Redis trouble: the next change tries again
                logger.warning("Could not save the task %s: %s", task.id, exc)

    async def saved(self, task: Task) -> None:
        """Wait until ``task`` is in the shared store (a task must exist before it is
        announced)."""
        self._changed(task)
        if task.writer is not None:
            await task.writer

    async def finish(self, grace: float) -> None:
        """A stopping server's tasks count as work in flight: those running get ``grace``
        seconds to end, the rest fail saying that their worker stopped (a resumable one is
        handed over to another worker instead); every task's last state is in the shared
        store before this returns (and the store closes)."""
        self.stopping = True
        running = {task.run: task for task in self._tasks.values() if task.run is not None}
        pending = [run for run in running if not run.done()]
        if pending:
            _done, late = await asyncio.wait(pending, timeout=grace)
            for run in late:
                task = running[run]
                if task.resumable and self.store is not None:
                    task.handed_over = True
                else:
                    task.stopped = True
                run.cancel()
            if late:
                await asyncio.wait(late, timeout=1.0)
            handed = [running[run].id for run in late if running[run].handed_over]
            for task_id in handed:  # (the store tells where it is now)
                del self._tasks[task_id]
            if handed:
                try:
                    await self.store.hand_over(handed)
                except Exception as exc:  # its heartbeat's end hands them over instead
                    logger.warning("Could not hand over the tasks %s: %s", handed, exc)
        writers = [task.writer for task in self._tasks.values() if task.writer is not None]
        if any(not writer.done() for writer in writers):
            await asyncio.wait(writers, timeout=2.0)

    def _forget_expired(self) -> None:
        """Forget the tasks whose TTL passed: the oldest first, as every task has the same
        TTL (so this is cheap however many tasks there are)."""
        now = time.monotonic()
        while self._tasks:
            oldest = next(iter(self._tasks.values()))
            if oldest.expires > now:
                break
            del self._tasks[oldest.id]
            oldest.cancel()


# ---------------------------------------------------------------------------- the extension


def serve_tasks(server: Any) -> None:
    """Give ``server`` a task registry and serve the Tasks extension's methods."""
    registry = server.tasks = TaskRegistry(server)
    extension = Extension(TASKS, revisions=[MODERN])

    # Sync where the task runs here (the common case: no coroutine, no extra task), a
    # coroutine where the shared store must be asked.
    @extension.method("tasks/get", client_required=True)
    def get(params: JSON, ctx: Context) -> Any:
        task_id = _task_id(params)
        task = registry.local(task_id, ctx.request)
        return task.state() if task is not None else registry.shared_state(task_id, ctx.request)

    @extension.method("tasks/update", client_required=True)
    def update(params: JSON, ctx: Context) -> Any:
        responses = params.get("inputResponses", {})
        if not isinstance(responses, dict):
            raise RPCError(
                jsonrpc.INVALID_PARAMS, 'Invalid params: "inputResponses" must be an object'
            )
        return _reach(registry, _task_id(params), ctx.request, {"answers": responses})

    @extension.method("tasks/cancel", client_required=True)
    def cancel(params: JSON, ctx: Context) -> Any:
        return _reach(registry, _task_id(params), ctx.request, {"cancel": True})

    server.add_extension(extension)


def _task_id(params: JSON) -> str:
    task_id = params.get("taskId")
    if not isinstance(task_id, str):
        raise RPCError(jsonrpc.INVALID_PARAMS, 'Invalid params: "taskId" must be a string')
    return task_id


def _reach(registry: TaskRegistry, task_id: str, request: Request, event: JSON) -> Any:
    """Answer or cancel the task: here if this process runs it (``{}`` at once), else
    through the store (a coroutine of ``{}``)."""
    if registry.local(task_id, request) is not None:
        registry.received({"task": task_id, **event})
        return {}
    return _reach_shared(registry, task_id, request, event)


async def _reach_shared(
    registry: TaskRegistry, task_id: str, request: Request, event: JSON
) -> JSON:
    state = await registry.shared_state(task_id, request)  # -32602 if there is none
    if state.get("status") not in TERMINAL:
        await registry.store.publish_change({"task": task_id, **event})
    return {}
