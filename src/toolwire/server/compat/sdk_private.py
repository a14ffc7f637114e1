"""The official SDK's private objects that its own examples reach into, where the SDK has no
public way yet (its everything-server does both):

* ``mcp._tool_manager``: the tools by name (``_tools``, ``get_tool``, ``list_tools``), each
  with the SDK's ``parameters``, the published input schema. Setting it publishes another
  schema, as in the SDK: a call's arguments are still those of the function, and names the
  function does not take (what the new schema may let a client send) are dropped.
* ``mcp._lowlevel_server`` (``_mcp_server`` in the SDK 1.x): ``add_request_handler(method,
  params_type, handler)`` (2.x), the handler called as ``handler(ctx, params)`` for every
  request of ``method``, and the 1.x decorators ``set_logging_level()``,
  ``subscribe_resource()`` and ``unsubscribe_resource()`` (``handler(level)``,
  ``handler(uri)``). Each takes the place of toolwire's own answer (``logging/setLevel``,
  ``resources/subscribe``): the handler then keeps what toolwire would have kept.

The public ways: ``@mcp.tool(input_schema={...})`` (validated against it), and an
:class:`~toolwire.Extension` for a method of your own.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any, TypeVar

from ... import jsonrpc
from ...errors import RPCError
from ...tools import Tool
from ..request import JSON, Request
from ..session import ServerConnection
from .lowlevel_primitives import _wire, maybe_await
from .lowlevel_sdk import Params, ServerRequestContext

F = TypeVar("F", bound=Callable[..., Any])


class SdkTool:
    """One tool as the SDK's tool manager holds it: ``name``, ``title``, ``description``,
    ``fn`` and ``parameters``; any other attribute is toolwire's :class:`~toolwire.Tool`'s."""

    def __init__(self, tool: Tool) -> None:
        self._tool = tool

    def __getattr__(self, name: str) -> Any:
        return getattr(self._tool, name)

    @property
    def parameters(self) -> JSON:
        return self._tool.schema.input_schema

    @parameters.setter
    def parameters(self, schema: JSON) -> None:
        if not isinstance(schema, dict) or schema.get("type") != "object":
            raise TypeError(
                f"The input schema of {self._tool.name!r} must be a JSON Schema dict with "
                '"type": "object" at its root'
            )
        tool = self._tool
        old = tool.schema
        properties = old.input_schema.get("properties") or {}
        takes_any = old.input_schema.get("additionalProperties") not in (None, False)

        def make_validator() -> Callable[[JSON], JSON]:
            def validate(arguments: JSON) -> JSON:
                if takes_any or not isinstance(arguments, dict):
                    return old.validate(arguments)
                return old.validate({k: v for k, v in arguments.items() if k in properties})

            return validate

        tool.schema = dataclasses.replace(old, input_schema=schema, _make_validator=make_validator)
        tool.definition = tool._definition()


class ToolManager:
    """``mcp._tool_manager``: the server's tools as the SDK's tool manager lists them."""

    def __init__(self, server: Any) -> None:
        self._server = server

    @property
    def _tools(self) -> dict[str, SdkTool]:
        return {name: SdkTool(tool) for name, tool in self._server.tool_registry.items.items()}

    def get_tool(self, name: str) -> SdkTool | None:
        tool = self._server.tool_registry.get(name)
        return None if tool is None else SdkTool(tool)

    def list_tools(self) -> list[SdkTool]:
        return list(self._tools.values())


class LowLevelServer:
    """``mcp._lowlevel_server``: the request handlers under the server."""

    def __init__(self, server: Any) -> None:
        self._server = server

    def set_logging_level(self) -> Callable[[F], F]:
        """The SDK 1.x decorator of ``handler(level)`` for ``logging/setLevel``."""
        return self._decorator("logging/setLevel", "level")

    def subscribe_resource(self) -> Callable[[F], F]:
        """The SDK 1.x decorator of ``handler(uri)`` for ``resources/subscribe``."""
        return self._decorator("resources/subscribe", "uri")

    def unsubscribe_resource(self) -> Callable[[F], F]:
        """The SDK 1.x decorator of ``handler(uri)`` for ``resources/unsubscribe``."""
        return self._decorator("resources/unsubscribe", "uri")

    def _decorator(self, method: str, field: str) -> Callable[[F], F]:
        def register(handler: F) -> F:
            def call(ctx: Any, params: Params) -> Any:
                if not isinstance(params.get(field), str):
                    raise RPCError(jsonrpc.INVALID_PARAMS, f"{method} needs {field!r}, a string")
                return handler(params[field])

            self.add_request_handler(method, None, call)
            return handler

        return register

    def add_request_handler(
        self, method: str, params_type: Any, handler: Callable[[Any, Any], Any]
    ) -> None:
        """Answer every request of ``method`` with ``handler(ctx, params)``: ``ctx`` is the
        SDK's request context, ``params`` the request's params as ``params_type`` (a model
        of ``toolwire.types`` or the SDK's) reads them; the handler returns a result model
        or a dict."""
        if not isinstance(method, str) or not method or method.startswith("rpc."):
            raise ValueError(f"{method!r} is not a request method a server may answer")
        server = self._server
        validate = getattr(params_type, "model_validate", None)

        async def handle(connection: ServerConnection, request: Request) -> JSON:
            ctx = ServerRequestContext(connection, request, server.lifespan_context)
            if validate is None:
                params: Any = Params(request.params)
            else:
                try:
                    params = validate(request.params)
                except ValueError as exc:  # pydantic's ValidationError among them
                    raise RPCError(
                        jsonrpc.INVALID_PARAMS, f"Invalid params for {method}: {exc}"
                    ) from None
            result = _wire(await maybe_await(handler(ctx, params)))
            if result is None:
                return {}
            if not isinstance(result, dict):
                raise TypeError(
                    f"The handler of {method} returned {type(result).__name__}, not a result"
                )
            return result

        server.methods = {**server.methods, method: handle}
