"""What every toolwire server shares: identity, capabilities, tool listing and calling.

:class:`toolwire.Server` (decorators) and :class:`toolwire.lowlevel.Server` (handlers)
both build on :class:`ServerCore`; a transport asks it for a connection with
:meth:`ServerCore.connect` and feeds that connection messages.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Sequence
from contextlib import AbstractAsyncContextManager
from typing import TYPE_CHECKING, Any

from .. import __version__
from ..errors import RPCError
from ..protocol import shaping
from ..protocol.revisions import FEATURES, REVISIONS, Features
from .components.registry import LIST_CHANGES as LIST_CHANGES
from .components.registry import Registry, page_bounds, unknown
from .components.registry import decode_cursor as decode_cursor
from .components.registry import encode_cursor as encode_cursor
from .dispatch.call_slots import CallGate, caller_key
from .dispatch.client_log import forward_logging
from .dispatch.methods import METHODS
from .dispatch.middleware import Handler, Middleware, run_chain
from .features import feature
from .inputs import StateSigner
from .request import Request
from .serving import Serving
from .session import ServerConnection
from .workers import ThreadRunner

if TYPE_CHECKING:
    from .dispatch.extensions import Extension


JSON = dict[str, Any]
MAX_CACHED_PAGES = 256


def unknown_tool(name: str, known: Sequence[str]) -> RPCError:
    """-32602 for an unknown tool, with the closest known name as a hint (TL-25)."""
    return unknown("tool", name, known)


class ServerCore(Serving):
    """Identity, options and the protocol-facing operations of a server."""

    methods: dict[str, Callable[[ServerConnection, Request], Any]] = METHODS
    #: Called with the kind (tools, resources, prompts) whenever a list changes, connected
    #: clients or not: how a server mounting this one keeps up (toolwire.composition.mount).
    list_listeners: Sequence[Callable[[str], None]] = ()

    def __init__(
        self,
        name: str,
        version: str | None = None,
        instructions: str | None = None,
        *,
        title: str | None = None,
        description: str | None = None,
        website_url: str | None = None,
        icons: list[JSON] | None = None,
        page_size: int | None = None,
        mask_errors: bool = True,
        max_workers: int = 32,
        list_ttl_ms: int = 60_000,
        discover_ttl_ms: int = 3_600_000,
        shutdown_grace: float = 2.0,
        max_message_bytes: int | None = None,
        max_pending_output_bytes: int | None = None,
        max_calls_in_flight: int | None = None,
        tool_timeout: float | None = None,
        max_concurrent_calls: int = 256,
        max_batch_size: int | None = 100,
        max_calls_per_caller: int | None = None,
        max_queued_calls_per_caller: int = 256,
        lifespan: Callable[[Any], AbstractAsyncContextManager[Any]] | None = None,
        middleware: Sequence[Middleware] = (),
        state_secret: bytes | None = None,
        auth: Any = None,
        rate_limits: Any = None,  # a toolwire.admission.RateLimiter
        audit: Any = None,  # a toolwire.admission.AuditLog, or True for the default one
        extensions: Sequence[Extension] = (),
    ) -> None:
        if page_size is not None and page_size < 1:
            raise ValueError("page_size must be at least 1")
        self.name = name
        self.version = version or __version__
        self.instructions = instructions
        info: JSON = {"name": name, "version": self.version}
        if icons:  # dicts, or Icon models (toolwire.types.Icon, the SDK's mcp.types.Icon)
            icons = [
                i.model_dump(by_alias=True, exclude_none=True) if hasattr(i, "model_dump") else i
                for i in icons
            ]
        for key, value in (
            ("title", title),
            ("description", description),
            ("websiteUrl", website_url),
            ("icons", icons),
        ):
            if value:
                info[key] = value
        self._info_by_revision = {
            rev: shaping.implementation(info, FEATURES[rev]) for rev in REVISIONS
        }
        self.page_size = page_size
        self.mask_errors = mask_errors
        self.list_ttl_ms = list_ttl_ms
        self.discover_ttl_ms = discover_ttl_ms
        self.shutdown_grace = shutdown_grace
        # The largest message read (stdio line, HTTP body); None: each transport's default.
        self.max_message_bytes = max_message_bytes
        # stdio: answers left unread above which no more requests are read; None: default.
        self.max_pending_output_bytes = max_pending_output_bytes
        # stdio: calls in flight past which no more requests are handled; None: default.
        self.max_calls_in_flight = max_calls_in_flight
        self.tool_timeout = tool_timeout
        # Call admission (toolwire.server.dispatch.call_slots): slots in all, each caller's share of
        # them (a quarter by default) and how many of its calls may wait for one.
        self.max_concurrent_calls = max_concurrent_calls
        self.max_calls_per_caller = (
            max_calls_per_caller
            if max_calls_per_caller is not None
            else max(1, max_concurrent_calls // 4)
        )
        self.max_queued_calls_per_caller = max_queued_calls_per_caller
        # A 2025-03-26 batch holds at most max_batch_size messages (None: no limit); a larger
        # one is refused whole, before anything of it runs.
        self.max_batch_size = max_batch_size
        self.runner = ThreadRunner(max_workers)
        self.middleware: list[Middleware] = list(middleware)
        self.signer = StateSigner(state_secret)
        # HTTP callers must bring a valid access token (toolwire.auth.ResourceServer).
        self.auth = auth
        # Rate limits and the audit log wrap tools/call only, and only when configured.
        self.rate_limits = rate_limits
        self.audit: Any = None
        if audit is True:
            self.audit = feature("AuditLog")()
        elif audit:
            self.audit = audit
        self._guard: Handler | None = None
        if rate_limits is not None or self.audit is not None:
            self._guard = feature("CallGuard")(self, rate_limits, self.audit)
            self.methods = {**self.methods, "tools/call": self._guard}
        self.lifespan = lifespan
        self.lifespan_context: Any = None
        self._lifespan_scope: AbstractAsyncContextManager[Any] | None = None
        # Server.provide's dependencies by type; the lifespan-scoped values made so far.
        self.provided: dict[Any, Any] = {}
        self.dependency_values: Any = None
        self._users = 0
        self._slots: tuple[asyncio.AbstractEventLoop, CallGate] | None = None
        self._serving_loop: asyncio.AbstractEventLoop | None = None
        self.change_hooks: list[Callable[[JSON], None]] = []
        self._connections: set[ServerConnection] = set()
        self._pages: dict[tuple[str, str | None, Any], bytes] = {}
        # The component registries of each list (toolwire.Server's tools, resources and
        # templates, prompts), in the order they list.
        self.registries: dict[str, list[Registry[Any]]] = {}
        self._changes_pending: set[str] = set()  # lists whose change is being announced
        self.context_always = False  # set when Python logging is forwarded to clients
        self.roots_handlers: list[Callable[[Any], Any]] = []
        self.extensions: dict[str, Extension] = {}
        self.shared_store: Any = None  # set by an HTTP app whose store other workers share
        self.state_ttl = 86_400.0  # seconds a ctx.state value lives by default (.state)
        self.extension_notifications: dict[str, tuple[Extension, Callable[[JSON], Any]]] = {}
        for extension in extensions:
            self.add_extension(extension)

    @property
    def scope_hierarchy(self) -> Any:
        """Which scopes imply which (AU-26), from the resource-server settings."""
        return getattr(self.auth, "scope_hierarchy", None)

    # ------------------------------------------------------------ identity

    def info_for(self, features: Features) -> JSON:
        return self._info_by_revision[features.revision]

    def capabilities(self, features: Features) -> JSON:
        """What this server offers, for ``initialize`` and ``server/discover``; the resource
        and prompt registries of :class:`toolwire.Server` add theirs (LC-13)."""
        # List changes reach legacy sessions as notifications and modern clients on their
        # subscriptions/listen streams.
        capabilities: JSON = {"tools": {"listChanged": True}, "logging": {}}
        extensions = {
            identifier: dict(extension.settings)
            for identifier, extension in self.extensions.items()
            if features.revision in extension.revisions
        }
        if extensions:
            capabilities["extensions"] = extensions
        return capabilities

    # ------------------------------------------------------------ extensions

    def add_extension(self, extension: Extension) -> None:
        """Serve ``extension`` (SEP-2133): advertise it in ``capabilities.extensions`` and
        answer its methods and notifications (:mod:`toolwire.server.dispatch.extensions`)."""
        from .dispatch.extensions import install  # lazy: only for a server with extensions

        install(self, extension)

    def accepted_notifications(self, wanted: JSON, request: Request | None = None) -> JSON:
        """The part of a ``subscriptions/listen`` filter this server will deliver (to
        ``request``'s caller); the resource and prompt registries add theirs."""
        accepted: JSON = (
            {"toolsListChanged": True} if wanted.get("toolsListChanged") is True else {}
        )
        tasks = getattr(self, "tasks", None)
        if "taskIds" in wanted and tasks is not None and request is not None:
            accepted["taskIds"] = tasks.listened(wanted["taskIds"], request)
        return accepted

    def confirm_listened(self, wanted: JSON, accepted: JSON, request: Request) -> Any:
        """A coroutine of ``accepted`` with what only the shared store can confirm added
        (the caller's tasks that other workers run), or None when nothing needs it."""
        tasks = getattr(self, "tasks", None)
        if tasks is None or "taskIds" not in accepted:
            return None
        return tasks.confirm_remote(wanted["taskIds"], accepted, request)

    # ------------------------------------------------------------ tools (overridden)

    def tool_definitions(self, request: Request) -> tuple[Any, Sequence[JSON]]:
        """Definitions of the tools this request may see, in a stable order, with a key
        naming that set (None when every request sees the same tools)."""
        return None, []

    def invoke_tool(
        self, connection: ServerConnection, request: Request, name: str, arguments: JSON
    ) -> Any:
        """The ``tools/call`` result (shaped for the request's revision), or a coroutine of it."""
        raise unknown_tool(name, [])

    def tools_page(self, request: Request, cursor: str | None) -> Any:
        """The serialized ``tools/list`` result for one page, cached until the tool set changes
        (or, in subclasses, a coroutine of the result dict)."""
        listing, definitions = self.tool_definitions(request)
        key = (request.features.revision, cursor, listing)
        page = self._pages.get(key)
        if page is None:
            result = shaping.complete(
                # A listing that differs per caller must not be shared between callers.
                self.build_page(request, cursor, definitions, private=listing is not None),
                request.features,
                self.info_for(request.features),
            )
            page = shaping.result_fragment(result)
            if len(self._pages) >= MAX_CACHED_PAGES:  # many distinct visible sets
                self._pages.clear()
            self._pages[key] = page
        return page

    def build_page(
        self,
        request: Request,
        cursor: str | None,
        definitions: Sequence[JSON],
        private: bool = False,
    ) -> JSON:
        """One page of ``tools/list`` for the request's revision (``private``: cached only
        for this caller, 2026-07-28's ``cacheScope``)."""
        features = request.features
        start, end, after = self.page_bounds([d["name"] for d in definitions], cursor)
        result: JSON = {"tools": [shaping.tool(d, features) for d in definitions[start:end]]}
        if after is not None:
            result["nextCursor"] = after
        scope = "private" if private else "public"
        return shaping.cacheable(result, features, self.list_ttl_ms, scope)

    def page_bounds(self, keys: Sequence[str], cursor: str | None) -> tuple[int, int, str | None]:
        """The slice ``[start:end]`` of a listing (items named by ``keys``) that ``cursor``
        asks for, and the cursor of the next page (None on the last)."""
        return page_bounds(self.page_size, keys, cursor)

    def registry(
        self, kind: str, key: str, noun: str, changed: Callable[[], None]
    ) -> Registry[Any]:
        """A registry of components of the ``kind`` list, each named by its attribute
        ``key`` (:mod:`toolwire.server.components.registry`), whose access checks follow this server's
        scope hierarchy."""
        registry: Registry[Any] = Registry(kind, key, noun, changed, self)
        self.registries.setdefault(kind, []).append(registry)
        return registry

    def components_page(
        self,
        registry: Registry[Any],
        request: Request,
        cursor: str | None,
        field: str,
        shape: Callable[[JSON, Any], JSON],
    ) -> JSON:
        """One page of a registry's listing, cacheable as the revision allows (a listing
        that depends on who asks is private to the caller: MP-13, MP-14)."""
        result, private = registry.page(request, cursor, self.page_size, field, shape)
        scope = "private" if private else "public"
        return shaping.cacheable(result, request.features, self.list_ttl_ms, scope)

    def header_params(self, tool: str) -> dict[str, str]:
        """The tool's parameters mirrored into ``Mcp-Param-*`` headers (for HTTP)."""
        return {}

    def tools_changed(self) -> None:
        """Forget cached listings and tell connected clients, once per burst of changes."""
        self._pages.clear()
        self.list_changed("tools")

    def list_changed(self, kind: str) -> None:
        """Tell connected clients that the ``kind`` list (tools, resources, prompts) changed,
        once per burst of changes: from the event loop or, through it, from a sync function
        on a worker thread."""
        for listener in self.list_listeners:
            listener(kind)
        if kind in self._changes_pending or not self._connections:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # a sync tool on a worker thread changed the set
            serving = self._serving_loop
            if serving is not None and not serving.is_closed():
                serving.call_soon_threadsafe(self.list_changed, kind)
            return
        self._changes_pending.add(kind)
        loop.call_soon(self._announce_change, kind)

    def _announce_change(self, kind: str) -> None:
        self._changes_pending.discard(kind)
        self.announce_list_changed(kind)
        self.tell_other_workers({"list": kind})

    def tell_other_workers(self, event: JSON) -> None:
        """Pass a change (``{"list": kind}`` or ``{"updated": uri}``) to the hooks, e.g. an
        HTTP app publishing it to the workers that share its session store."""
        for hook in self.change_hooks:
            hook(event)

    def announce_list_changed(self, kind: str) -> None:
        """Send ``notifications/<kind>/list_changed`` to this process's legacy sessions and
        to the listen streams that asked for it (a change made here or, with a shared store,
        in another worker)."""
        filter_key, method = LIST_CHANGES[kind]
        for connection in list(self._connections):
            offered = connection.offered
            if connection.features is not None and (offered is None or kind in offered):
                connection.notify(method)  # a legacy session that was offered this list
            connection.tell_listeners(filter_key, method)

    # ------------------------------------------------------------ calls in flight

    def call_slots(self) -> CallGate:
        """The tool calls in flight: a share per caller within the server-wide limit."""
        loop = asyncio.get_running_loop()
        if self._slots is None or self._slots[0] is not loop:
            gate = CallGate(
                self.max_concurrent_calls,
                self.max_calls_per_caller,
                self.max_queued_calls_per_caller,
            )
            self._slots = (loop, gate)
        return self._slots[1]

    async def admitted(
        self, connection: ServerConnection, request: Request, work: Callable[[Any], Any]
    ) -> Any:
        """``await work(caller)`` once the caller's call has a slot (or ``SERVER_BUSY`` at once)."""
        key = caller_key(request, connection)
        gate = self.call_slots()
        await gate.enter(key)
        try:
            return await work(key)
        finally:
            gate.leave(key)

    # ------------------------------------------------------------ middleware

    def add_middleware(self, middleware: Middleware) -> Middleware:
        """Wrap request handling: ``async def mw(call, call_next)``; the first added is outermost.

        Usable as a decorator. ``call`` is a :class:`~toolwire.server.dispatch.middleware.Call`
        (``method``, ``params``, ``request``, ``tool_name``, ``arguments``); return
        ``await call_next(call)`` or a result of your own.
        """
        self.middleware.append(middleware)
        return middleware

    def through_middleware(
        self, connection: ServerConnection, request: Request, handler: Handler
    ) -> Any:
        if handler is self._guard:  # it runs the middleware itself, inside its own step
            return handler(connection, request)
        return run_chain(self.middleware, connection, request, handler)

    # ------------------------------------------------------------ the client's roots

    def on_roots_changed(self, handler: Callable[[Any], Any]) -> Callable[[Any], Any]:
        """Decorator: ``handler(roots)`` (sync or async) gets the client's new list of
        :class:`~toolwire.server.inputs.Root` each time a legacy client says its roots changed."""
        self.roots_handlers.append(handler)
        return handler

    def roots_changed(self, connection: ServerConnection) -> None:
        """A client sent ``notifications/roots/list_changed`` (transports' sessions call this)."""
        if self.roots_handlers:
            from .dispatch.roots import roots_changed  # lazy: only when a client's roots change

            roots_changed(connection, self.roots_handlers)

    def extension_notified(self, connection: ServerConnection, method: str, params: JSON) -> None:
        """A client sent a notification an extension defines (sessions call this)."""
        from .dispatch.extensions import notified  # lazy: only for a server with extensions

        extension, handler = self.extension_notifications[method]
        notified(connection, extension, handler, params)

    # ------------------------------------------------------------ lifespan

    async def start(self) -> None:
        """Enter the lifespan when the first connection opens (transports call this)."""
        self._users += 1
        self._serving_loop = asyncio.get_running_loop()
        if self._users == 1 and self.lifespan is not None:
            scope = self.lifespan(self)
            self.lifespan_context = await scope.__aenter__()
            self._lifespan_scope = scope

    async def stop(self) -> None:
        """Leave the lifespan when the last connection closes."""
        self._users = max(0, self._users - 1)
        if self._users == 0 and self.dependency_values is not None:  # before the lifespan
            values, self.dependency_values = self.dependency_values, None
            await values.aclose()
        scope, self._lifespan_scope = self._lifespan_scope, None
        if self._users == 0 and scope is not None:
            self.lifespan_context = None
            await scope.__aexit__(None, None, None)
        else:
            self._lifespan_scope = scope
        if self._users == 0:
            if self.rate_limits is not None:
                await self.rate_limits.aclose()
            if self.audit is not None:
                self.audit.close()

    def forward_logging(
        self, logger: str | logging.Logger = "", level: int = logging.DEBUG
    ) -> None:
        """Send Python log records made inside tool calls to the calling client.

        ``logger`` is a logger or its name (the root logger by default). Each client still
        gets only the levels it asked for; the logger's level is lowered to ``level`` if it
        would drop those records first.
        """
        forward_logging(logger, level)
        self.context_always = True
