"""The server's questions to the client (``ping``, ``sampling/createMessage``,
``elicitation/create`` ...), answered by the handlers given to
:class:`~toolwire.client.Client`.

Each question is answered on its own task (a person may take a while), at most
``max_server_requests`` at once: past that a question is answered at once with a JSON-RPC
error (code -31429, as a busy toolwire server answers) asking to try again later, so a server that floods the client with
requests cannot make it hold more than that many. Writing an answer waits at most the
client's ``timeout``.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .. import jsonrpc
from ..errors import RPCError

logger = logging.getLogger("toolwire.client")

JSON = dict[str, Any]
Handler = Callable[[JSON], Any]  # answers a server's question: params -> result (may be async)

MAX_SERVER_REQUESTS = 32


class ServerQuestions:
    """Answering the server's requests (state set up by ``Client.__init__``)."""

    if TYPE_CHECKING:  # provided by Client
        max_server_requests: int
        _answerers: dict[str, Handler]
        _answering: dict[str | int, asyncio.Task[None]]
        _tasks: set[asyncio.Task[None]]

        async def _send_within(
            self, data: bytes, what: str, timeout: float | None = None
        ) -> None: ...

    async def _question(self, message: JSON) -> None:
        """Take a request from the server: start answering it, or refuse it at once."""
        mid = message["id"]
        if not isinstance(mid, (str, int)):
            logger.warning("Ignoring a request whose id is not valid: %.200r", message)
        elif not isinstance(message["method"], str):
            error = RPCError(jsonrpc.INVALID_REQUEST, "Invalid request: method is not a string")
            await self._answer_now(mid, error)
        elif len(self._answering) >= self.max_server_requests:
            error = RPCError(
                jsonrpc.SERVER_BUSY,
                f"The client is answering {self.max_server_requests} requests already "
                "(max_server_requests); try again later",
            )
            await self._answer_now(mid, error)
        else:
            task = asyncio.create_task(self._server_request(message))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)
            self._answering[mid] = task  # so the server can withdraw it

    async def _answer_now(self, mid: str | int, error: RPCError) -> None:
        try:
            await self._send_within(jsonrpc.error_bytes(mid, error), "an error answer")
        except Exception as exc:  # the server went away, or does not read: nobody to tell
            logger.debug("Could not answer the server's request %r: %s", mid, exc)

    async def _server_request(self, message: JSON) -> None:
        try:
            await self._answer_server(message)
        except Exception as exc:  # the server went away, or does not read its answers
            logger.warning("Could not answer the server's %s request: %s", message["method"], exc)
        finally:
            self._answering.pop(message["id"], None)

    async def _answer_server(self, message: JSON) -> None:
        method, mid = message["method"], message["id"]
        if method == "ping":
            await self._send_within(jsonrpc.result_bytes(mid, {}), "a ping answer")
            return
        params = message.get("params", {})
        try:
            if not isinstance(params, dict):
                raise RPCError(jsonrpc.INVALID_PARAMS, "Invalid params: not an object")
            result = await self._answer(method, params)
        except RPCError as exc:
            await self._send_within(jsonrpc.error_bytes(mid, exc), f"the {method} answer")
        else:
            await self._send_within(jsonrpc.result_bytes(mid, result), f"the {method} answer")

    async def _answer(self, method: str, params: JSON) -> JSON:
        """The result for a server's question (a legacy request or a modern input request)."""
        answerer = self._answerers.get(method)
        if answerer is None:
            raise RPCError(jsonrpc.METHOD_NOT_FOUND, f"Method not found: {method}")
        try:
            outcome = answerer(params)
            if inspect.isawaitable(outcome):
                outcome = await outcome
        except RPCError:  # the handler's own answer: an error with its code
            raise
        except Exception as exc:
            logger.exception("The %s handler failed", method)
            raise RPCError(jsonrpc.INTERNAL_ERROR, f"the {method} handler failed") from exc
        if method == "elicitation/create":
            outcome = with_defaults(params, outcome)
        return outcome  # type: ignore[no-any-return]


def with_defaults(params: JSON, result: Any) -> Any:
    """An accepted form elicitation's ``content`` with the ``default`` of each field the
    answer left out (SEP-1034: a form shows the defaults, and a person who accepts without
    touching a field accepts its default)."""
    if not isinstance(result, dict) or result.get("action") != "accept":
        return result
    if params.get("mode", "form") != "form":
        return result
    schema = params.get("requestedSchema")
    fields = schema.get("properties") if isinstance(schema, dict) else None
    if not isinstance(fields, dict):
        return result
    content = result.get("content")
    if content is not None and not isinstance(content, dict):
        return result
    filled = dict(content or {})
    for name, field in fields.items():
        if isinstance(field, dict) and "default" in field and name not in filled:
            filled[name] = field["default"]
    return {**result, "content": filled} if filled or content is not None else result
