"""FastMCP 3's server methods on :class:`toolwire.Server`: ``enable``/``disable``,
``add_transform``, ``run_async``, ``custom_route`` (the official SDK's too) and the listings
a script reads from its own server (``await mcp.list_tools()``).

::

    mcp.disable(tags={"internal"})
    mcp.add_transform(PromptsAsTools(mcp))
    await mcp.run_async(transport="stdio")

``enable``/``disable`` are the server-wide switches of :mod:`toolwire.server.components.versions`;
``add_transform`` takes :class:`~toolwire.server.compat.fastmcp_transforms.PromptsAsTools` and
:class:`~toolwire.server.compat.fastmcp_transforms.ResourcesAsTools` (toolwire's own tool
transforms are :meth:`Server.transform_tool`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, TypeVar

from ..._pip import extra_install

S = TypeVar("S", bound="FastMCPSurface")
F = TypeVar("F", bound=Callable[..., Any])


class FastMCPSurface:
    """The FastMCP methods of :class:`toolwire.Server` (a base class of it)."""

    custom_routes: tuple[Any, ...] = ()  # @mcp.custom_route(...), in order

    def custom_route(
        self,
        path: str,
        methods: Iterable[str],
        name: str | None = None,
        include_in_schema: bool = True,
    ) -> Callable[[F], F]:
        """Serve a plain HTTP route beside the MCP endpoint of :meth:`http_app` (FastMCP's
        and the official SDK's decorator): the function is a Starlette endpoint, ``async def
        health(request) -> Response``, outside the server's authentication
        (:mod:`toolwire.transports.http.routes`)."""
        # lazy: toolwire.transports.http stays off the import path of a stdio server
        from ...transports.http.routes import CustomRoute

        if isinstance(methods, str):
            methods = [methods]

        def register(fn: F) -> F:
            route = CustomRoute(path, list(methods), fn, name, include_in_schema)
            self.custom_routes = (*self.custom_routes, route)
            return fn

        return register

    def enable(
        self: S,
        *,
        names: str | Iterable[str] | None = None,
        keys: str | Iterable[str] | None = None,
        version: Any = None,
        tags: str | Iterable[str] | None = None,
        components: str | Iterable[str] | None = None,
        only: bool = False,
    ) -> S:
        """Enable the components that match every criterion given: ``names`` (names,
        URIs, URI templates), ``keys`` (``"tool:name@1.0"``), ``tags``, ``components``
        (``"tool"``, ``"resource"``, ``"template"``, ``"prompt"``); ``only=True`` disables
        every other one. Later switches win over earlier ones (:mod:`.versions`)."""
        # lazy: component versions, only for a versioned component
        from ..components.versions import switch

        switch(
            self,
            True,
            names=names,
            keys=keys,
            version=version,
            tags=tags,
            components=components,
            only=only,
        )
        return self

    def disable(
        self: S,
        *,
        names: str | Iterable[str] | None = None,
        keys: str | Iterable[str] | None = None,
        version: Any = None,
        tags: str | Iterable[str] | None = None,
        components: str | Iterable[str] | None = None,
    ) -> S:
        """Disable the components that match every criterion given (as :meth:`enable`):
        they leave the listings and become unknown to calls."""
        # lazy: component versions, only for a versioned component
        from ..components.versions import switch

        switch(
            self, False, names=names, keys=keys, version=version, tags=tags, components=components
        )
        return self

    def add_transform(self, transform: Any) -> None:
        """Apply FastMCP's ``PromptsAsTools(mcp)`` or ``ResourcesAsTools(mcp)``."""
        apply = getattr(transform, "apply_to", None)
        if apply is None:
            raise TypeError(
                f"add_transform takes PromptsAsTools(mcp) or ResourcesAsTools(mcp), not "
                f"{type(transform).__name__}: derive a tool with mcp.transform_tool(...), "
                "hide components with mcp.disable(...), prefix names with "
                "mcp.mount(server, prefix=...)"
            )
        apply(self)

    def add_provider(self, provider: Any) -> None:
        """Register what FastMCP's ``FileSystemProvider(root)`` or
        ``SkillsDirectoryProvider(roots)`` provides (also ``Server(..., providers=[...])``)."""
        if not getattr(provider, "toolwire_provider", False):
            raise TypeError(
                "add_provider takes FileSystemProvider(root) or SkillsDirectoryProvider(roots), "
                f"not {type(provider).__name__}: "
                "serve another server's components with mcp.mount(server, namespace=...), "
                "another MCP server's with mcp.mount(Server.proxy(target)), an OpenAPI "
                "service's with Server.from_openapi(...), skills with mcp.add_skills(folder)"
            )
        provider.apply_to(self)

    async def run_async(self, transport: str | None = None, **options: Any) -> None:
        """Serve from a running event loop: ``"stdio"`` (the default) until the client goes
        away, ``"http"``/``"streamable-http"`` (``host``, ``port``, ``path`` and the options
        of ``run``) until cancelled. FastMCP's ``show_banner`` is accepted (no banner is
        ever printed: stdout belongs to the protocol)."""
        options.pop("show_banner", None)
        transport = transport or "stdio"
        server: Any = self
        if transport == "stdio":
            await server.run_stdio_async(**options)
        elif transport in ("http", "streamable-http"):
            await server.run_http_async(**options)
        elif transport == "sse":
            server.run("sse")  # refused there, with the alternative
        else:
            raise ValueError(
                f"Unknown transport {transport!r}: use 'stdio', 'http' or 'streamable-http'"
            )

    async def run_http_async(
        self,
        host: str = "127.0.0.1",
        port: int = 8000,
        log_level: str = "warning",
        on_listening: Any = None,
        **options: Any,
    ) -> None:
        """Streamable HTTP with uvicorn on the running event loop, with the options of
        ``run(transport="http")``."""
        import importlib.util  # lazy: only to look for an optional package

        server: Any = self
        if importlib.util.find_spec("uvicorn") is None:
            raise RuntimeError(f"HTTP needs the http extra: {extra_install('http')}")
        # lazy: the HTTP stack, only when serving HTTP
        from ...transports.http.run import serve_uvicorn_async

        options = server._sdk_http_options(
            {"host": host, "port": port, "log_level": log_level, **options}
        )
        host = options.pop("host", host)
        port = options.pop("port", port)
        log_level = options.pop("log_level", log_level)
        await serve_uvicorn_async(
            server.http_app(host=host, **options),
            host=host,
            port=port,
            log_level=log_level,
            grace=server.shutdown_grace,
            on_listening=on_listening,
        )

    async def list_tools(self) -> list[Any]:
        """The tools a client is shown, as :class:`toolwire.types.Tool` (what FastMCP's and
        the SDK's ``await mcp.list_tools()`` give a script that looks at its own server)."""
        from ...types import Tool  # lazy: the full MCP types, only for the SDK-style API

        server: Any = self
        return [Tool.model_validate(t.definition) for t in server.tool_registry.visible(None)]

    async def list_resources(self) -> list[Any]:
        """The resources a client is shown, as :class:`toolwire.types.Resource`."""
        from ...types import Resource  # lazy: the full MCP types, only for the SDK-style API

        server: Any = self
        listed = server.resource_registry.visible(None)
        return [Resource.model_validate(r.definition) for r in listed]

    async def list_resource_templates(self) -> list[Any]:
        """The resource templates a client is shown, as
        :class:`toolwire.types.ResourceTemplate`."""
        # lazy: the full MCP types, only for the SDK-style API
        from ...types import ResourceTemplate

        server: Any = self
        listed = server.template_registry.visible(None)
        return [ResourceTemplate.model_validate(t.definition) for t in listed]

    async def list_prompts(self) -> list[Any]:
        """The prompts a client is shown, as :class:`toolwire.types.Prompt`."""
        from ...types import Prompt  # lazy: the full MCP types, only for the SDK-style API

        server: Any = self
        return [Prompt.model_validate(p.definition) for p in server.prompt_registry.visible(None)]
