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

import os
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any, Literal, TypeVar, overload

from ..components import Metadata
from ..errors import RegistrationError
from ..safety import MAX_ARGUMENT_DEPTH, MAX_STRING_LENGTH
from ..tools import TaskConfig, Tool
from .compat.fastmcp_surface import FastMCPSurface
from .compat.sdk_objects import install_sdk_objects
from .components.prompts import PromptRegistry
from .components.registry import Registry, decorator
from .components.resources import ResourceRegistry
from .components.tool_calls import ToolCalls
from .context import Context
from .core import JSON, ServerCore, unknown_tool
from .features import feature
from .inputs import renders_apps
from .request import LOG_RANK, Request

if TYPE_CHECKING:
    from typing_extensions import Unpack

F = TypeVar("F", bound=Callable[..., Any])


class Server(ResourceRegistry, PromptRegistry, ToolCalls, FastMCPSurface):
    """An MCP server whose tools are decorated Python functions.

    ``Server(name="mcp-server", version=None, instructions=None, *, page_size=None,
    mask_errors=True, schema_profile="portable", ...)`` (the name the official SDK's
    ``MCPServer`` gives a server without one): ``mask_errors=False`` shows unexpected exceptions'
    details to the client (for development); ``schema_profile="pydantic"`` publishes
    pydantic's verbatim JSON Schemas instead of the portable ones. ``provider="openai"``
    (or ``"gemini"``, ``"anthropic"``), for a server known to face one LLM provider,
    publishes each tool's input schema as that provider takes it, treats a ``null`` for an
    optional argument as absent, and refuses a tool it cannot express
    (:mod:`toolwire.server.components.facing`). ``titles_from_names=True`` lists every tool that has
    no title with one made from its name (``get_forecast``: "Get Forecast"), for clients
    that show or keep only titled tools; :class:`toolwire.FastMCP` sets it, as FastMCP does.
    A tool returning a list or tuple gives one content block per item, as the official SDK
    does (``structuredContent`` keeps the whole list); ``split_lists=False`` (FastMCP's way,
    :class:`toolwire.FastMCP`'s default; also a tool option) gives one JSON text.

    Input limits and output cleaning (:mod:`toolwire.safety`), defaults for every tool,
    each overridable by the tool option of the same name: a call whose arguments nest
    deeper than ``max_argument_depth`` (32) levels or hold a string longer than
    ``max_string_length`` (1,000,000) characters gets an ``isError`` result naming the
    field, before any validation (None: no limit); ``strip_control_sequences=True``
    removes terminal escape sequences and control characters from every string of every
    result (off by default: it costs a scan of each string).

    Unknown arguments: a call with an argument name the tool has no parameter for (``nite``
    for ``night``) gets an ``isError`` result naming it, with the closest parameter name, so
    the model can correct itself; ``unknown_arguments="ignore"`` drops such names instead,
    except one close to a parameter's name (a likely typo, still refused), and
    ``"ignore-all"`` drops them all (also a tool option). A name that starts with ``_``
    (``_meta``, which some clients put among the arguments) is never an argument: it is
    dropped. A tool with ``**kwargs`` receives them, and one with its own ``input_schema``
    follows that schema's ``additionalProperties``.

    Log messages (``ctx.info(...)``, ``ctx.log``): a legacy client that never sent
    ``logging/setLevel`` gets those at ``client_log_level`` and above (``"debug"``, every
    level, as the official SDK sends them); ``client_log_level=None`` sends it none until
    it chooses a level. A 2026-07-28 request gets them only when its ``_meta`` asks.

    Bounded work: ``max_concurrent_calls`` (256) calls run at once, the rest wait; each
    caller (the authenticated identity, else the session) has a fair share of the slots
    (``max_calls_per_caller``, a quarter by default) and at most
    ``max_queued_calls_per_caller`` (256) calls waiting, past which a call is refused at once
    (-31429, HTTP 429); a 2025-03-26 batch holds at most ``max_batch_size`` (100) messages,
    past which it is refused whole (-32600) and nothing of it runs.

    The official SDK's constructor options (``MCPServer``/``FastMCP``: ``debug``,
    ``log_level``, ``dependencies``, ``auth`` with ``token_verifier``, ``mcp`` 1.x's
    ``host``/``port``/``json_response``/``stateless_http``...) are accepted with the same
    meaning and kept on :attr:`settings` (see :mod:`toolwire.server.compat.sdk_options`).
    """

    _mounts: Sequence[Any] = ()  # the servers mounted here (toolwire.composition.mount)
    _visibility: Callable[[Tool, Request], bool] | None = None

    def __class_getitem__(cls, item: Any) -> type[Server]:
        # ``FastMCP[LifespanT]`` / ``MCPServer[AppContext]`` (the incumbents' servers are
        # generic in their lifespan's value): in a base class or an annotation, the same class.
        return cls

    def __init__(
        self,
        name: str | None = None,
        version: str | None = None,
        instructions: str | None = None,
        *,
        schema_profile: Literal["portable", "pydantic"] = "portable",
        include_tags: Iterable[str] | None = None,
        exclude_tags: Iterable[str] = (),
        visibility: Callable[[Tool, Request], bool] | None = None,
        max_argument_depth: int | None = MAX_ARGUMENT_DEPTH,
        max_string_length: int | None = MAX_STRING_LENGTH,
        strip_control_sequences: bool = False,
        unknown_arguments: Literal["reject", "ignore", "ignore-all"] = "reject",
        provider: Literal["openai", "gemini", "anthropic"] | None = None,
        client_log_level: str | None = "debug",
        titles_from_names: bool = False,
        split_lists: bool = True,
        **options: Any,
    ) -> None:
        # The official SDK's constructor options (debug, log_level, host, port, json_response,
        # auth=AuthSettings(...), ...) with the same meaning, read only when options are given.
        settings: Any = None
        tools: list[Any] = []
        providers = options.pop("providers", None) or () if options else ()
        if options:
            from .compat.sdk_options import absorb  # lazy: the official SDK's surface, on first use

            settings, options, tools = absorb(options)
        super().__init__(name or "mcp-server", version, instructions, **options)
        self._settings = settings
        if client_log_level is not None and client_log_level not in LOG_RANK:
            raise ValueError(
                f"client_log_level={client_log_level!r} is no log level: use one of "
                f"{', '.join(LOG_RANK)}, or None to send log messages only to clients that "
                "chose a level (logging/setLevel)"
            )
        self.client_log_level = client_log_level
        self.dependencies: list[str] = settings.dependencies if settings is not None else []
        self.schema_profile = schema_profile
        self.titles_from_names = titles_from_names
        # A server facing one LLM provider publishes its export (toolwire.server.components.facing).
        self.provider: str | None = None
        if provider is not None:
            # lazy: provider checks, only for a server that names providers
            from .components.facing import check_provider

            self.provider = check_provider(provider)
        # Defaults of the tools' own options of the same names (toolwire.safety).
        self.tool_defaults: dict[str, Any] = {
            "max_argument_depth": max_argument_depth,
            "max_string_length": max_string_length,
            "strip_control_sequences": strip_control_sequences,
            "unknown_arguments": unknown_arguments,
            "split_lists": split_lists,
        }
        self.tasks: Any = (
            None  # the task registry, once a tool runs as a task (toolwire.extensions.tasks)
        )
        self.apps: Any = (
            None  # the MCP Apps views and the tools showing them (toolwire.extensions.apps)
        )
        self.tool_registry: Registry[Tool] = self.registry(
            "tools", "name", "tool named", self.tools_changed
        )
        self._tools = self.tool_registry.items
        # The tool filters and rule, set without announcing a change: nothing is listed yet.
        if include_tags is not None:
            self.tool_registry.include_tags = frozenset(include_tags)
        if exclude_tags:
            self.tool_registry.exclude_tags = frozenset(exclude_tags)
        if visibility is not None:
            self.visibility = visibility
        for fn in tools:
            self.add_tool(fn)
        for provider in providers:  # FastMCP's providers=[FileSystemProvider(root)]
            self.add_provider(provider)

    @property
    def settings(self) -> Any:
        """The official SDK's ``mcp.settings`` (:class:`~toolwire.server.compat.sdk_options.Settings`),
        made on first use when the constructor was given none of the SDK's options."""
        if self._settings is None:
            # lazy: the official SDK's surface, on first use
            from .compat.sdk_options import Settings

            self._settings = Settings()
            self._settings.dependencies = self.dependencies
        return self._settings

    @settings.setter
    def settings(self, settings: Any) -> None:
        self._settings = settings

    # ------------------------------------------------------------ registration

    @staticmethod
    def proxy(
        target: Any, *, name: str | None = None, shared: bool | None = None, **client_options: Any
    ) -> Any:
        """A server that serves another MCP server's tools, resources and prompts:
        ``target`` is a command (stdio), an ``http(s)://`` URL or a ``Client``; see
        :func:`toolwire.proxy.proxy` (docs: "Proxies" in the deployment guide)."""
        # toolwire.proxy sits above server/ and client/ (it joins both): reached by name
        return feature("proxy")(target, name=name, shared=shared, **client_options)

    @overload
    def tool(self, name: F, /) -> F: ...

    @overload
    def tool(
        self,
        name: str | None = None,
        /,
        *,
        annotations: Any = None,
        input_schema: JSON | None = None,
        output_schema: JSON | bool | None = True,
        structured_output: bool | None = None,
        timeout: float | None = None,
        blocking: bool | None = None,
        sensitive: Iterable[str] = (),
        max_argument_depth: int | None = ...,
        max_string_length: int | None = ...,
        strip_control_sequences: bool = ...,
        unknown_arguments: Literal["reject", "ignore", "ignore-all"] = ...,
        split_lists: bool = ...,
        task: Literal["optional", "required"] | bool | TaskConfig | None = None,
        questions_first: bool = False,
        resumable: bool = False,
        app: str | None = None,
        visible_to: str | Iterable[str] | None = None,
        **metadata: Unpack[Metadata],
    ) -> Callable[[F], F]: ...

    def tool(self, name: Any = None, /, **options: Any) -> Any:
        """Register a function as a tool: ``@mcp.tool``, ``@mcp.tool()`` or ``@mcp.tool("name", ...)``.

        ``input_schema={...}`` publishes a hand-written JSON Schema 2020-12 for the arguments
        verbatim and validates calls against it (see docs/tools.md); ``title``, ``description``,
        ``icons``, ``meta``, ``tags``, ``scopes`` and ``auth`` are every component's
        (:class:`toolwire.components.Metadata`); ``app="ui://..."`` shows
        the tool's result in that app's view, and ``visible_to=["app"]`` keeps a tool for the
        view alone (see docs/extensions.md, "MCP Apps")."""
        return decorator(self.add_tool, name, options)

    def add_tool(self, fn: Callable[..., Any], *, name: str | None = None, **options: Any) -> Tool:
        """Register ``fn`` (a function, async function, bound method or callable) as a tool."""
        if isinstance(fn, Tool):  # built beforehand (a derived or forwarded tool)
            return self._add_built_tool(fn, name, options)
        options = {**self.tool_defaults, **options}
        view, visible_to = options.pop("app", None), options.pop("visible_to", None)
        audiences = None
        if view is not None or visible_to is not None:
            check_audiences, tool_meta = feature("check_audiences"), feature("tool_meta")
            label = str(name or getattr(fn, "__name__", None) or fn)
            if view is None:
                raise RegistrationError(f"The tool {label!r}: visible_to= needs app='ui://...'")
            audiences = None if visible_to is None else check_audiences(label, visible_to)
            options["meta"] = tool_meta(label, view, audiences, options.get("meta"))
        tool = Tool(
            fn,
            name=name,
            inject=(Context,),
            provided=self.provided,
            schema_profile=self.schema_profile,
            **options,
        )
        if self.provider is not None:
            # lazy: provider checks, only for a server that names providers
            from .components.facing import face

            face(tool, self.provider)
        if tool.name in self._tools and tool.version is None:  # versions: the registry
            raise RegistrationError(f"A tool named {tool.name!r} is already registered")
        if view is not None:
            self._apps().add_tool(tool.name, view, audiences)
        if tool.task is not None and self.tasks is None:
            feature("serve_tasks")(self)
        if tool.resumable and self.tasks.handover is None:
            self.tasks.handover = feature("Handover")(self.tasks)
        return self.tool_registry.add(tool)

    def provide(
        self,
        key: Any,
        provider: Any = None,
        /,
        *,
        scope: Literal["request", "lifespan"] = "request",
    ) -> Any:
        """Fill every parameter annotated ``key`` (a type) with what ``provider`` gives, in
        the tools, resources and prompts registered after: ``mcp.provide(Pool, make_pool,
        scope="lifespan")``, or ``@mcp.provide(Pool, scope="lifespan")`` on the provider;
        as ``Annotated[Pool, Depends(make_pool, scope=...)]`` would (:func:`toolwire.Depends`,
        docs/runtime.md, "Dependencies"). Returns the provider (or the decorator)."""
        # lazy: only for a function that declares dependencies
        from ..functions.dependencies import provide

        if provider is None:
            return lambda fn: self.provide(key, fn, scope=scope)
        provide(self, key, provider, scope, builtin=(Context,))
        return provider

    def _add_built_tool(self, tool: Tool, name: str | None, options: Any) -> Tool:
        if name is not None or options:
            raise TypeError("add_tool(tool) takes no name nor options")
        if self.provider is not None:
            # lazy: provider checks, only for a server that names providers
            from .components.facing import face

            face(tool, self.provider)
        return self.tool_registry.add(tool)

    def mount(
        self, server: ServerCore, prefix: str | None = None, *, namespace: str | None = None
    ) -> None:
        """Serve ``server``'s tools, resources and prompts here too, live (its later changes
        show up, with ``list_changed``): names become ``{prefix}_{name}``, resource URIs
        ``scheme://{prefix}/rest``; ``server`` may be a proxy (:meth:`proxy`).
        ``namespace=`` is FastMCP's name for the prefix. See :mod:`toolwire.composition.mount`
        and docs/composition.md."""
        feature("mount")(self, server, feature("prefix_of")(prefix, namespace))

    def transform_tool(self, tool: str, /, **changes: Any) -> Tool | None:
        """Replace the tool named ``tool`` by one derived from it: ``name=``, ``title=``,
        ``description=``, ``annotations=``, ``meta=``, ``tags=``, ``arguments={"old":
        Arg(...)}``, ``wrap=`` (:func:`toolwire.composition.transforms.derive_tool`); a mounted
        tool is transformed whenever its mount registers it."""
        derived: Tool | None = feature("transform_tool")(self, tool, changes)
        return derived

    def enable_tool_search(self, **options: Any) -> Any:
        """Show the model ``search_tools`` and ``call_tool`` instead of the whole catalogue
        (:mod:`toolwire.composition.tool_search`, docs/composition.md)."""
        return feature("enable_tool_search")(self, **options)

    @overload
    def app(self, uri: str, /, html: None = None, **options: Any) -> Callable[[F], F]: ...

    @overload
    def app(self, uri: str, /, html: str | os.PathLike[str] | Callable[[], Any]) -> None: ...

    @overload
    def app(
        self,
        uri: str,
        /,
        html: str | os.PathLike[str] | Callable[[], Any],
        *,
        name: str | None = None,
        title: str | None = None,
        description: str | None = None,
        connect_domains: Iterable[str] = (),
        resource_domains: Iterable[str] = (),
        frame_domains: Iterable[str] = (),
        base_uri_domains: Iterable[str] = (),
        permissions: Iterable[str] = (),
        prefers_border: bool | None = None,
        domain: str | None = None,
    ) -> None: ...

    def app(self, uri: str, /, html: Any = None, **options: Any) -> Any:
        """Serve an MCP App view at ``uri`` (``ui://...``): ``html`` is the HTML document, a
        ``pathlib.Path`` to read it from on each read, or a function returning it (also as a
        decorator, ``@mcp.app(uri)``). Tools show it with ``@mcp.tool(app=uri)``. The
        ``*_domains`` lists and ``permissions`` say what the host's sandbox may allow the
        view (docs/extensions.md, "MCP Apps")."""
        if html is None:

            def register(fn: F) -> F:
                self._apps().add_view(self, uri, fn, **options)
                return fn

            return register
        self._apps().add_view(self, uri, html, **options)
        return None

    def _apps(self) -> Any:
        if self.apps is None:
            self.apps = feature("Apps")(self)
            self._rule_tools()
        return self.apps

    def add_skills(self, folder: str | os.PathLike[str], *, authority: str | None = None) -> None:
        """Serve the Agent Skills under ``folder`` (each a folder with a ``SKILL.md``) through
        the Skills extension and ``skill://`` resources (:mod:`toolwire.extensions.skills`)."""
        feature("serve_skills")(self, folder, authority)

    @classmethod
    def from_openapi(
        cls,
        spec: Any,
        client: Any = None,
        *,
        name: str | None = None,
        include: Iterable[Any] | None = None,
        exclude: Iterable[Any] = (),
        names: dict[str, str] | None = None,
        tags: bool = True,
        **options: Any,
    ) -> Server:
        """A server whose tools are the operations of the OpenAPI 3.0/3.1 document ``spec``
        (a dict, a path, a URL, JSON or YAML text), called through ``client``, an
        ``httpx.AsyncClient`` (its base URL and auth headers apply). ``options`` go to
        :class:`Server`; the name defaults to the document's title (docs/tools.md,
        "OpenAPI as tools", and :mod:`toolwire.composition.openapi`)."""
        document = feature("load_openapi")(spec)
        title = (document.get("info") or {}).get("title")
        server = cls(name or (title if isinstance(title, str) and title else "openapi"), **options)
        server.add_openapi(
            document, client, include=include, exclude=exclude, names=names, tags=tags
        )
        return server

    def add_openapi(
        self,
        spec: Any,
        client: Any = None,
        *,
        include: Iterable[Any] | None = None,
        exclude: Iterable[Any] = (),
        names: dict[str, str] | None = None,
        tags: bool = True,
    ) -> list[str]:
        """Add a tool for each operation of an OpenAPI document kept by ``include`` and
        ``exclude`` (``"tag:NAME"``, ``"GET /users/*"``, ``"/path/glob"``, ``"DELETE"`` or a
        function of method, path and operation); ``names`` maps an ``operationId`` (or
        ``"METHOD /path"``) to a tool name. Returns the names of the tools added."""
        added: list[str] = feature("add_openapi")(
            self, spec, client, include=include, exclude=exclude, names=names, tags=tags
        )
        return added

    def remove_tool(self, name: str) -> None:
        """Unregister a tool; clients are told the list changed."""
        self.tool_registry.remove(name)
        if self.apps is not None:
            self.apps.forget_tool(name)

    def get_tool(self, name: str) -> Tool | None:
        return self._tools.get(name)

    def enable_tool(self, name: str) -> None:
        """Show a disabled tool again; clients are told the list changed."""
        self.tool_registry.set_enabled(name, True)

    def disable_tool(self, name: str) -> None:
        """Hide a tool without unregistering it: it leaves tools/list and becomes unknown."""
        self.tool_registry.set_enabled(name, False)

    @property
    def tools(self) -> Sequence[Tool]:
        """The registered tools, in registration order."""
        return list(self._tools.values())

    @property
    def include_tags(self) -> frozenset[str] | None:
        """Only tools with one of these tags are served (None: every tool)."""
        return self.tool_registry.include_tags

    @include_tags.setter
    def include_tags(self, tags: Iterable[str] | None) -> None:
        self.tool_registry.include_tags = frozenset(tags) if tags is not None else None
        self.tool_registry.touch()

    @property
    def exclude_tags(self) -> frozenset[str]:
        """Tools with one of these tags are not served."""
        return self.tool_registry.exclude_tags

    @exclude_tags.setter
    def exclude_tags(self, tags: Iterable[str]) -> None:
        self.tool_registry.exclude_tags = frozenset(tags)
        self.tool_registry.touch()

    async def start(self) -> None:
        """Enter the lifespan when the first connection opens, once every tool's app view is
        known to exist (a tool and its view may be registered in either order)."""
        if self.apps is not None:
            self.apps.check()
        await super().start()
        for mounted in self._mounts:
            await mounted.start()

    async def stop(self) -> None:
        await super().stop()
        for mounted in self._mounts:
            await mounted.stop()

    # ------------------------------------------------------------ protocol side

    @property
    def visibility(self) -> Callable[[Tool, Request], bool] | None:
        """The server's rule on who sees which tool: ``visibility(tool, request)``."""
        return self._visibility

    @visibility.setter
    def visibility(self, rule: Callable[[Tool, Request], bool] | None) -> None:
        self._visibility = rule
        if rule is not None:
            self._rule_tools()
        else:
            self.tool_registry.touch()  # listings no longer depend on it

    def _rule_tools(self) -> None:
        """Check each call and listing against the ``visibility`` predicate and the tools
        only an app's view may call (set once either exists)."""
        registry = self.tool_registry
        registry.rule = self._tool_rule
        registry.ruled = lambda tool: (
            self.visibility is not None
            or (self.apps is not None and tool.name in self.apps.app_only)
        )
        registry.touch()

    def _tool_rule(self, tool: Tool, request: Request) -> bool:
        """A tool only an app's view may call goes to clients that render apps, and the
        server's visibility predicate has its say."""
        if (
            self.apps is not None
            and tool.name in self.apps.app_only
            and not renders_apps(request.capabilities)
        ):
            return False
        return self.visibility is None or self.visibility(tool, request)

    def visible_tools(self, request: Request) -> list[Tool]:
        """The tools this request may see and call, in registration order."""
        return self.tool_registry.visible(request)

    def tool_definitions(self, request: Request) -> tuple[Any, Sequence[JSON]]:
        return self.tool_registry.definitions(request)

    def build_page(
        self,
        request: Request,
        cursor: str | None,
        definitions: Sequence[JSON],
        private: bool = False,
    ) -> JSON:
        if self.titles_from_names:  # the listed name: a mounted tool's has its prefix
            definitions = [with_title(d) for d in definitions]
        return super().build_page(request, cursor, definitions, private)

    def header_params(self, tool: str) -> dict[str, str]:
        found = self._tools.get(tool)
        return found.header_params if found is not None else {}

    def serves_tool(self, name: str, request: Request) -> bool:
        """``name`` is a tool this request may see and call."""
        return self.tool_registry.find(name, request) is not None

    def _find(self, name: str, request: Request) -> Tool:
        tool = self.tool_registry.find(name, request)
        if tool is not None:
            return tool
        raise unknown_tool(name, [t.name for t in self.visible_tools(request)])


def with_title(definition: JSON) -> JSON:
    """A tool definition with a title: its own, its annotations', or one made from its name
    (``get-forecast_now``: "Get Forecast Now")."""
    if definition.get("title"):
        return definition
    title = (definition.get("annotations") or {}).get("title")
    if not title:
        title = definition["name"].replace("_", " ").replace("-", " ").title()
    return {**definition, "title": title}


install_sdk_objects(Server)
