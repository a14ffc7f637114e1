"""The decorator API: plain Python functions become MCP tools.

::

    from toolwire import Server

    mcp = Server("Calculator")

    @mcp.tool()
    def add(a: int, b: int) -> int:
        \"\"\"Add two numbers together.\"\"\"
        return a + b

    if __name__ == "__main__":
        mcp.run()
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any, Literal, TypeVar, overload

from ..errors import RegistrationError
from ..protocol import shaping
from ..tools import Tool
from .context import Context
from .core import JSON, ServerCore, unknown_tool
from .session import Request, ServerConnection

F = TypeVar("F", bound=Callable[..., Any])


class Server(ServerCore):
    """An MCP server whose tools are decorated Python functions.

    ``Server(name, version=None, instructions=None, *, page_size=None, mask_errors=True,
    schema_profile="portable", ...)``: ``mask_errors=False`` shows unexpected exceptions'
    details to the client (for development); ``schema_profile="pydantic"`` publishes
    pydantic's verbatim JSON Schemas instead of the portable ones.
    """

    def __init__(
        self,
        name: str = "toolwire",
        version: str | None = None,
        instructions: str | None = None,
        *,
        schema_profile: Literal["portable", "pydantic"] = "portable",
        **options: Any,
    ) -> None:
        super().__init__(name, version, instructions, **options)
        self.schema_profile = schema_profile
        self._tools: dict[str, Tool] = {}
        self._listing: list[JSON] | None = None

    # ------------------------------------------------------------ registration

    @overload
    def tool(self, name: F, /) -> F: ...

    @overload
    def tool(
        self,
        name: str | None = None,
        /,
        *,
        title: str | None = None,
        description: str | None = None,
        annotations: Any = None,
        output_schema: JSON | bool | None = True,
        structured_output: bool | None = None,
        timeout: float | None = None,
        blocking: bool | None = None,
        tags: Iterable[str] = (),
        meta: JSON | None = None,
        icons: list[Any] | None = None,
    ) -> Callable[[F], F]: ...

    def tool(self, name: Any = None, /, **options: Any) -> Any:
        """Register a function as a tool: ``@mcp.tool``, ``@mcp.tool()`` or ``@mcp.tool("name", ...)``."""
        if callable(name):
            self.add_tool(name)
            return name
        if "name" in options:
            name = options.pop("name")

        def register(fn: F) -> F:
            self.add_tool(fn, name=name, **options)
            return fn

        return register

    def add_tool(self, fn: Callable[..., Any], *, name: str | None = None, **options: Any) -> Tool:
        """Register ``fn`` (a function, async function, bound method or callable) as a tool."""
        tool = Tool(fn, name=name, inject=(Context,), schema_profile=self.schema_profile, **options)
        if tool.name in self._tools:
            raise RegistrationError(f"A tool named {tool.name!r} is already registered")
        self._tools[tool.name] = tool
        self._changed()
        return tool

    def remove_tool(self, name: str) -> None:
        """Unregister a tool; clients are told the list changed."""
        if self._tools.pop(name, None) is None:
            raise KeyError(f"No tool named {name!r}")
        self._changed()

    def get_tool(self, name: str) -> Tool | None:
        return self._tools.get(name)

    @property
    def tools(self) -> Sequence[Tool]:
        """The registered tools, in registration order."""
        return list(self._tools.values())

    def _changed(self) -> None:
        self._listing = None
        self.tools_changed()

    # ------------------------------------------------------------ protocol side

    def tool_definitions(self, request: Request) -> Sequence[JSON]:
        if self._listing is None:
            self._listing = [tool.definition for tool in self._tools.values() if tool.enabled]
        return self._listing

    def invoke_tool(
        self, connection: ServerConnection, request: Request, name: str, arguments: JSON
    ) -> Any:
        tool = self._tools.get(name)
        if tool is None or not tool.enabled:
            raise unknown_tool(name, [t.name for t in self._tools.values() if t.enabled])
        if tool.inline:  # answered right away, no task needed
            context = connection.context_for(request) if tool.schema.injected else None
            result = tool.run_inline(arguments, context, mask_errors=self.mask_errors)
            if context is not None:
                context._finish()
            return shaping.call_result(result, request.features)
        return self._invoke(tool, connection, request, arguments)

    async def _invoke(
        self, tool: Tool, connection: ServerConnection, request: Request, arguments: JSON
    ) -> JSON:
        context = connection.context_for(request) if tool.schema.injected else None
        try:
            result = await tool.run(
                arguments, context, self.runner.run, mask_errors=self.mask_errors
            )
        finally:
            if context is not None:
                context._finish()
        return shaping.call_result(result, request.features)
