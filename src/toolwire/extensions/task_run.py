"""The run of one task: a tool call answered with a Task at once (or, for a
``questions_first`` tool, once it calls ``ctx.start_task()``), the tool run on, its outcome
settled into the task's status and result, and its questions asked through the task.

:mod:`toolwire.extensions.tasks` holds the tasks (:class:`~.tasks.Task`), their registry and
the ``tasks/*`` methods; the server reaches :func:`start_task` by name.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
from typing import TYPE_CHECKING, Any

from .. import jsonrpc
from ..errors import RPCError
from ..protocol import shaping
from ..server.context import Context, _current
from ..server.inputs import InvalidAnswer, MissingClientCapability, answer_returned
from ..server.request import JSON, Request
from ..server.session import ServerConnection
from .tasks import STOPPED, TASKS, Task, TaskRegistry

if TYPE_CHECKING:
    from ..tools import Tool

logger = logging.getLogger("toolwire")


def start_task(
    server: Any, tool: Tool, connection: ServerConnection, request: Request, arguments: JSON
) -> Any:
    """Answer a ``tools/call`` of a task tool with a new task, or None when it runs as an
    ordinary call: the client did not declare the extension and the tool may, or the tool
    is answered at once."""
    declared = request.capabilities.get("extensions") if request.capabilities else None
    if not (isinstance(declared, dict) and isinstance(declared.get(TASKS), dict)):
        if tool.task == "required":
            raise MissingClientCapability.extension(
                TASKS, f"The tool {tool.name!r} runs as a task: declare the extension {TASKS!r}"
            )
        return None
    if tool.inline and (tool.never_blocks or server.tool_timeout is None):
        # A sync tool that never blocks is answered right here with its result, which the
        # extension lets a server give instead of a task: there is nothing to wait for.
        return None
    registry: TaskRegistry = server.tasks
    if tool.questions_first:
        return _questions_first(server, tool, connection, request, arguments)
    task = registry.create(request.caller, tool.task_poll_ms)
    created = {"resultType": "task", **task.state()}
    context = Context(connection, request)
    context._task = task
    task.run = asyncio.ensure_future(_run(server, tool, task, context, arguments))
    if tool.resumable and registry.store is not None:
        return registry.handover.kept(
            task, _answer(registry, task, created), tool, request, arguments
        )
    return _answer(registry, task, created)


async def _questions_first(
    server: Any, tool: Tool, connection: ServerConnection, request: Request, arguments: JSON
) -> JSON:
    """The call runs as an ordinary one (its questions are input_required rounds) until the
    tool calls ``ctx.start_task()``: the client is then answered with the task, and the run
    goes on as the task's."""
    registry: TaskRegistry = server.tasks
    begun: asyncio.Future[JSON] = asyncio.get_running_loop().create_future()

    def start(context: Context) -> Task:
        task = registry.create(request.caller, tool.task_poll_ms)
        context._task = task
        task.run = run
        begun.set_result({"resultType": "task", **task.state()})
        return task

    registry.starters[request] = start
    outcome = server.invoke_tool(connection, request, tool.name, arguments, as_task=False)
    run = asyncio.ensure_future(outcome if inspect.isawaitable(outcome) else _value(outcome))
    try:
        await asyncio.wait({run, begun}, return_when=asyncio.FIRST_COMPLETED)
    except asyncio.CancelledError:
        if not begun.done():
            run.cancel()
        raise
    finally:
        registry.starters.pop(request, None)
    if not begun.done():
        answered: JSON = run.result()  # an ordinary result, or an input_required round
        return answered
    task = registry._tasks[begun.result()["taskId"]]
    run.add_done_callback(lambda done: _settle(task, done))
    if registry.store is not None:
        await registry.saved(task)
    return begun.result()


async def _value(result: Any) -> Any:
    return result


def _settle(task: Task, run: asyncio.Future[Any]) -> None:
    """The run of a task started by the tool ended: its result or error is the task's."""
    if run.cancelled():
        _cancelled(task)
    elif isinstance(run.exception(), RPCError):
        error = run.exception()
        assert isinstance(error, RPCError)
        task.error = error.to_error()
        task._move("failed", error.message)
    elif run.exception() is not None:
        logger.error("The task %s failed", task.id, exc_info=run.exception())
        task.error = RPCError(jsonrpc.INTERNAL_ERROR, "Internal error").to_error()
        task._move("failed", "Internal error")
    else:
        task.result = {**run.result(), "resultType": "complete"}
        task._move("completed")


def _cancelled(task: Task) -> None:
    """The run of ``task`` was cancelled: by ``tasks/cancel``, or by its worker stopping."""
    if task.handed_over:  # it goes on elsewhere: its state stays as it is
        return
    if task.stopped:
        error = RPCError(jsonrpc.INTERNAL_ERROR, STOPPED)
        task.error = error.to_error()
        task._move("failed", error.message)
    else:
        task._move("cancelled", "The task was cancelled")


async def _answer(registry: TaskRegistry, task: Task, created: JSON) -> JSON:
    """The answer to the call. The run's asyncio task was made before the one answering, so
    it has had its first turn by now (unless middleware awaits this within its own task): a
    tool that ended without waiting is answered with its result or its error, which the
    extension lets a server give instead of a task. Otherwise the task, once a
    ``tasks/get`` on any worker finds it."""
    if task.status in ("completed", "failed"):
        registry._tasks.pop(task.id, None)  # nobody will ask for it: its id was never given
        if task.error is not None:
            raise RPCError(task.error["code"], task.error["message"], task.error.get("data"))
        assert task.result is not None
        return task.result
    if registry.store is not None:
        await registry.saved(task)
    return created


async def _run(server: Any, tool: Tool, task: Task, context: Context, arguments: JSON) -> None:
    _current.set(context)
    runner = server.runner
    # A sync tool that never blocks runs right here, as an ordinary call of it would.
    inline = tool.inline and (tool.never_blocks or server.tool_timeout is None)

    async def once() -> JSON:
        if inline:
            return tool.run_inline(arguments, context, mask_errors=server.mask_errors)
        return await tool.run(
            arguments,
            context,
            lambda fn, kwargs: runner.run(fn, kwargs),
            mask_errors=server.mask_errors,
            timeout=server.tool_timeout,
            on_timeout=context._cancel,
        )

    try:
        result = await once()
        if result.get("resultType") == "input_required":  # the tool asks by returning
            result = await answer_returned(result, context, once, tool.name)
    except asyncio.CancelledError:
        context._cancel()
        _cancelled(task)
        return
    except InvalidAnswer as exc:
        task.error = RPCError(jsonrpc.INVALID_PARAMS, f"Invalid inputResponses: {exc}").to_error()
        task._move("failed", task.error["message"])
        return
    except RPCError as exc:  # the tool's own protocol error, or a missing client capability
        task.error = exc.to_error()
        task._move("failed", exc.message)
        return
    except Exception:
        logger.exception("The task %s of tool %r failed", task.id, tool.name)
        task.error = RPCError(jsonrpc.INTERNAL_ERROR, "Internal error").to_error()
        task._move("failed", "Internal error")
        return
    finally:
        context._finish()
    # the CallToolResult the call would have answered with (2026-07-28: with its resultType)
    task.result = {
        **shaping.call_result(result, context.request.features),
        "resultType": "complete",
    }
    task._move("completed")
