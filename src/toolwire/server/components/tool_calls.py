"""Calling a tool: the part of :class:`toolwire.Server` that runs a ``tools/call``.

A sync tool known not to block is answered at once, without a task (and without a
:class:`~toolwire.Context` unless it takes one); any other runs in a task, on the thread
pool when it is sync, within the caller's call slot and the server's ``tool_timeout``. A
tool marked as a task on 2026-07-28 starts one (:mod:`toolwire.extensions.tasks`); a 2026-07-28
call that needs the client's input first answers ``input_required`` and is resumed with the
answers.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from ... import jsonrpc
from ...errors import RPCError
from ...protocol import shaping
from ..context import Context, _current
from ..core import JSON, ServerCore
from ..features import feature
from ..inputs import InputRequired, InvalidAnswer, answer_returned
from ..request import Request
from ..session import ServerConnection

if TYPE_CHECKING:
    from ...tools import Tool


class ToolCalls(ServerCore):
    """The ``tools/call`` half of :class:`toolwire.Server` (a mixin over ``ServerCore``)."""

    if TYPE_CHECKING:  # provided by Server

        def _find(self, name: str, request: Request) -> Tool: ...

    def invoke_tool(
        self,
        connection: ServerConnection,
        request: Request,
        name: str,
        arguments: JSON,
        *,
        as_task: bool = True,
    ) -> Any:
        tool = self._find(name, request)
        if as_task and tool.task is not None and request.features.modern:
            created = feature("start_task")(self, tool, connection, request, arguments)
            if created is not None:
                return created
        params = request.params
        resumed = request.features.modern and (
            "requestState" in params or "inputResponses" in params
        )
        # answered right away, no task needed; a timeout keeps a tool that is only
        # declared non-blocking on a thread, where the timeout can apply
        if tool.inline and not resumed and (tool.never_blocks or self.tool_timeout is None):
            context = self._context(tool, connection, request, None)
            if context is None:
                result = tool.run_inline(arguments, None, mask_errors=self.mask_errors)
            else:
                token = _current.set(context)
                try:
                    result = tool.run_inline(arguments, context, mask_errors=self.mask_errors)
                finally:
                    _current.reset(token)
                    context._finish()
            if result.get("resultType") != "input_required":  # else run again below, asking
                return shaping.call_result(result, request.features)
        answers = (
            self.signer.answers(params, tool.name, arguments, request.caller) if resumed else None
        )
        return self._invoke(tool, connection, request, arguments, answers)

    def _context(
        self, tool: Tool, connection: ServerConnection, request: Request, answers: JSON | None
    ) -> Context | None:
        if tool.needs_context() or self.context_always:
            return connection.context_for(request, answers)
        return None

    async def _invoke(
        self,
        tool: Tool,
        connection: ServerConnection,
        request: Request,
        arguments: JSON,
        answers: JSON | None,
    ) -> JSON:
        context = self._context(tool, connection, request, answers)
        if context is not None:
            _current.set(context)  # this task's own copy of the context variables
        runner = self.runner

        def run(caller: Any) -> Any:
            return tool.run(
                arguments,
                context,
                lambda fn, kwargs: runner.run(fn, kwargs, caller),
                mask_errors=self.mask_errors,
                timeout=self.tool_timeout,
                on_timeout=context._cancel if context is not None else None,
            )

        try:
            result = await self.admitted(connection, request, run)
            if result.get("resultType") == "input_required":  # the tool asks by returning

                def again() -> Any:
                    return self.admitted(connection, request, run)

                result = await answer_returned(result, context, again, tool.name)
        except InputRequired as needed:  # modern: the client answers, then calls again
            return needed.result(self.signer, tool.name, arguments, request.caller)
        except InvalidAnswer as exc:
            raise RPCError(jsonrpc.INVALID_PARAMS, f"Invalid inputResponses: {exc}") from None
        except asyncio.CancelledError:
            if context is not None:
                context._cancel()
            raise
        finally:
            if context is not None:
                context._finish()
        return shaping.call_result(result, request.features)
