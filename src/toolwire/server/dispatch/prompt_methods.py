"""The prompt methods, prompts/list and prompts/get, and completion/complete.

They check the request's shape and hand the work to the server's prompt registry
(:class:`toolwire.server.components.prompts.PromptRegistry`), or to the low-level server's handlers
(:class:`toolwire.server.compat.lowlevel_primitives.PrimitiveHandlers`). A server without prompts
does not offer them: -32601, exactly as if the methods did not exist.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from ... import jsonrpc
from ...errors import RPCError
from ..request import JSON, Request
from ..session import ServerConnection


class ServesPrompts(Protocol):
    """What these methods ask of the server: :class:`toolwire.server.components.prompts.PromptRegistry`
    or :class:`toolwire.server.compat.lowlevel_primitives.PrimitiveHandlers` (both above this
    module)."""

    def prompts_page(self, request: Request, cursor: str | None) -> Any: ...

    def render_prompt(
        self, connection: Any, request: Request, name: str, arguments: JSON
    ) -> Any: ...


def _not_found(request: Request) -> RPCError:
    return RPCError(jsonrpc.METHOD_NOT_FOUND, f"Method not found: {request.method}")


def _prompts_of(connection: ServerConnection, request: Request) -> ServesPrompts:
    server: Any = connection.server
    if not getattr(server, "offers_prompts", False):
        raise _not_found(request)
    return server  # type: ignore[no-any-return]


def _list_prompts(connection: ServerConnection, request: Request) -> Any:
    server = _prompts_of(connection, request)
    cursor = request.params.get("cursor")
    if cursor is not None and not isinstance(cursor, str):
        raise RPCError(jsonrpc.INVALID_PARAMS, "Invalid cursor")
    return server.prompts_page(request, cursor)


def _get_prompt(connection: ServerConnection, request: Request) -> Any:
    server = _prompts_of(connection, request)
    params = request.params
    name = params.get("name")
    if not isinstance(name, str):
        raise RPCError(jsonrpc.INVALID_PARAMS, 'Invalid params: prompts/get needs a "name" string')
    arguments = params.get("arguments")
    if arguments is None:
        arguments = {}
    elif not isinstance(arguments, dict):
        raise RPCError(
            jsonrpc.INVALID_PARAMS, 'Invalid params: "arguments" must be an object of strings'
        )
    return server.render_prompt(connection, request, name, arguments)


def _complete(connection: ServerConnection, request: Request) -> Any:
    server: Any = connection.server
    offers = getattr(server, "offers_completions", None)
    if offers is None or not offers():
        raise _not_found(request)
    params = request.params
    ref = params.get("ref")
    if not isinstance(ref, dict):
        raise RPCError(jsonrpc.INVALID_PARAMS, 'Invalid params: "ref" must be an object')
    argument = params.get("argument")
    if not (
        isinstance(argument, dict)
        and isinstance(argument.get("name"), str)
        and isinstance(argument.get("value"), str)
    ):
        raise RPCError(
            jsonrpc.INVALID_PARAMS,
            'Invalid params: "argument" must be an object with "name" and "value" strings',
        )
    context = params.get("context")
    earlier: Any = context.get("arguments") if isinstance(context, dict) else None
    if earlier is None:
        earlier = {}
    elif not (isinstance(earlier, dict) and all(isinstance(v, str) for v in earlier.values())):
        raise RPCError(
            jsonrpc.INVALID_PARAMS,
            'Invalid params: "context.arguments" must be an object of strings',
        )
    return server.complete_argument(request, ref, argument["name"], argument["value"], earlier)


PROMPT_METHODS: dict[str, Callable[[ServerConnection, Request], Any]] = {
    "prompts/list": _list_prompts,
    "prompts/get": _get_prompt,
    "completion/complete": _complete,
}
