"""Resources on :class:`toolwire.Server`: ``@mcp.resource(uri)`` for fixed URIs and URI
templates, read by clients with ``resources/read`` and by tools with ``ctx.read_resource``.

::

    @mcp.resource("config://app", mime_type="application/json")
    def config() -> dict:
        \"\"\"The application's settings.\"\"\"
        return {"theme": "dark"}

    @mcp.resource("users://{user_id}/profile")
    def profile(user_id: int) -> str:
        return f"User {user_id}"

A server with no resource answers exactly as before: no ``resources`` capability, and the
resource methods are unknown (-32601).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import cached_property
from typing import TYPE_CHECKING, Any, TypeVar, overload

from ... import jsonrpc
from ...components import Metadata
from ...errors import RegistrationError, RPCError, ToolError
from ...protocol import shaping
from ...protocol.revisions import META_SUBSCRIPTION_ID, Features
from ...resources import Resource, ResourceNotFound, ResourceTemplate, is_template
from ..context import Context, _current
from ..core import JSON, ServerCore
from ..dispatch.resource_methods import not_found as not_found
from ..request import Request
from .registry import Registry

if TYPE_CHECKING:
    from typing_extensions import Unpack

F = TypeVar("F", bound=Callable[..., Any])

UPDATED = "notifications/resources/updated"


class ResourceRegistry(ServerCore):
    """The resource half of :class:`toolwire.Server` (a mixin over ``ServerCore``)."""

    # Set by the first registration and kept: a session told about resources can still
    # list them (an empty list) after the last one is removed.
    offers_resources = False

    # The registries are made on first use: a server without resources builds none.
    @cached_property
    def resource_registry(self) -> Registry[Resource]:
        return self.registry("resources", "uri", "resource", self.resources_changed)

    @cached_property
    def template_registry(self) -> Registry[ResourceTemplate]:
        self.resource_registry  # noqa: B018 (made first: resources list before templates)
        return self.registry(
            "resources", "uri_template", "resource template", self.resources_changed
        )

    @cached_property
    def _resources(self) -> dict[str, Resource]:
        return self.resource_registry.items

    @cached_property
    def _templates(self) -> dict[str, ResourceTemplate]:
        return self.template_registry.items

    # ------------------------------------------------------------ registration

    @overload
    def resource(self, uri: str) -> Callable[[F], F]: ...

    @overload
    def resource(
        self,
        uri: str,
        *,
        name: str | None = None,
        mime_type: str | None = None,
        size: int | None = None,
        annotations: Any = None,
        complete: Mapping[str, Callable[..., Any]] | None = None,
        **metadata: Unpack[Metadata],
    ) -> Callable[[F], F]: ...

    def resource(self, uri: str, **options: Any) -> Any:
        """Register a function as a resource (``uri`` fixed) or a resource template (``uri``
        with ``{variables}``, each one a parameter of the function).

        The function may take a ``Context``; it returns ``str`` (text), ``bytes`` (a base64
        blob), a ``File``, JSON-able data (sent as ``application/json`` text) or a list of
        these (several contents). ``name`` defaults to the function's name, ``description``
        to its docstring. ``complete={"variable": fn}`` suggests values of a template's
        variable (``completion/complete``). ``title``, ``icons``, ``meta`` and ``tags`` are
        every component's (:class:`toolwire.components.Metadata`).

        ``scopes=["files:read"]`` and ``auth=lambda caller: ...`` limit who may use it, as
        for tools: another caller does not see it in ``resources/list`` (or
        ``resources/templates/list``), and reading, subscribing to or completing it answers
        as if nothing served the URI.

        ``uri`` may be given by keyword too (``@mcp.resource(uri="...")``, as in the
        official SDK).
        """
        if callable(uri):
            raise TypeError('@mcp.resource needs a URI: @mcp.resource("scheme://path")')

        def register(fn: F) -> F:
            self.add_resource(fn, uri, **options)
            return fn

        return register

    def add_resource(
        self, fn: Any, uri: str | None = None, **options: Any
    ) -> Resource | ResourceTemplate:
        """Register ``fn`` as the resource at ``uri`` (a template if it has ``{variables}``).

        ``fn`` is a function, or the content itself (``str``/``bytes``/``File``), or a
        :class:`~toolwire.resources.Resource` / ``ResourceTemplate`` built beforehand (then
        without ``uri`` and options). Returns the registered object.
        """
        if isinstance(fn, (Resource, ResourceTemplate)):
            if uri is not None or options:
                raise TypeError("add_resource(resource) takes no uri nor options")
            item: Resource | ResourceTemplate = fn
        elif uri is None:
            raise TypeError("add_resource needs a uri")
        elif is_template(uri):
            item = ResourceTemplate(fn, uri, inject=(Context,), provided=self.provided, **options)
        else:
            if options.get("complete"):
                raise RegistrationError(
                    f"Resource {uri!r} has no URI variables: complete= is for templates"
                )
            options.pop("complete", None)
            item = Resource(fn, uri, inject=(Context,), provided=self.provided, **options)
        self.offers_resources = True
        if isinstance(item, ResourceTemplate):
            return self.template_registry.add(item)
        return self.resource_registry.add(item)

    def _registry_of(self, uri: str) -> Registry[Any]:
        """The registry holding ``uri`` (a resource's URI or a template's URI template)."""
        if uri in self._resources:
            return self.resource_registry
        if uri in self._templates:
            return self.template_registry
        raise KeyError(f"No resource or resource template {uri!r}")

    def remove_resource(self, uri: str) -> None:
        """Unregister the resource with this URI (or the template with this URI template);
        clients are told the list changed."""
        self._registry_of(uri).remove(uri)

    def enable_resource(self, uri: str) -> None:
        """Show a disabled resource (or resource template) again; clients are told the
        list changed."""
        self._registry_of(uri).set_enabled(uri, True)

    def disable_resource(self, uri: str) -> None:
        """Hide a resource (or a resource template, by its URI template) without
        unregistering it: it leaves the listing, and reading it answers as for an unknown
        URI."""
        self._registry_of(uri).set_enabled(uri, False)

    @property
    def resources(self) -> Sequence[Resource]:
        """The registered resources with a fixed URI, in registration order."""
        return list(self._resources.values())

    @property
    def resource_templates(self) -> Sequence[ResourceTemplate]:
        """The registered resource templates, in registration order."""
        return list(self._templates.values())

    def get_resource(self, uri: str) -> Resource | None:
        return self._resources.get(uri)

    def find_template(
        self, uri_template: str, request: Request | None = None
    ) -> ResourceTemplate | None:
        """The template registered with exactly this URI template (``completion/complete``
        names templates this way), or None; None too when ``request``'s caller may not use
        it."""
        if request is None:  # the server's own code: every registered template
            return self._templates.get(uri_template)
        return self.template_registry.find(uri_template, request)

    def resource_link(self, uri: str, **overrides: Any) -> Any:
        """A ``types.ResourceLink`` content block for a registered resource (or a URI one of
        the templates serves), with its name, title, description, MIME type, size, icons
        and ``_meta``: ``return [mcp.resource_link("docs://readme"), "see this file"]``.
        ``overrides`` replace fields (e.g. ``description=...``)."""
        from ... import types  # lazy: the full MCP types, only for the SDK-style API

        found = self._locate(uri)
        if found is None:
            raise KeyError(f"No resource or resource template serves {uri!r}")
        fields = {k: v for k, v in found[0].definition.items() if k != "uriTemplate"}
        fields["uri"] = uri
        fields.update(overrides)
        return types.ResourceLink(**fields)

    # ------------------------------------------------------------ capabilities

    def capabilities(self, features: Features) -> JSON:
        capabilities = super().capabilities(features)
        if self.offers_resources:
            # subscribe: resources/subscribe (legacy) or resourceSubscriptions (2026-07-28)
            capabilities["resources"] = {"subscribe": True, "listChanged": True}
        return capabilities

    def accepted_notifications(self, wanted: JSON, request: Request | None = None) -> JSON:
        accepted = super().accepted_notifications(wanted, request)
        if not self.offers_resources:
            return accepted
        if wanted.get("resourcesListChanged") is True:
            accepted["resourcesListChanged"] = True
        uris = wanted.get("resourceSubscriptions")
        if isinstance(uris, list):
            # Only URIs that name something this caller may read: the acknowledgement shows
            # what is honoured.
            known = [
                u
                for u in dict.fromkeys(uris)
                if isinstance(u, str) and self._locate(u, request) is not None
            ]
            if known:
                accepted["resourceSubscriptions"] = known
        return accepted

    def watching(self, uris: Sequence[str], request: Request | None) -> Any:
        """Subscribing to ``uris``: what serves one of them may need to know first (a
        mounted proxy's resource subscribes upstream: its ``watch(uri)`` coroutine). None
        when nothing does, else a coroutine of the URIs that could not be watched, each
        with the error saying why."""
        hooks = []
        for uri in uris:
            found = self._locate(uri, request)
            watch = getattr(found[0], "watch", None) if found is not None else None
            if watch is not None:
                hooks.append((uri, watch))
        return self._watch(hooks) if hooks else None

    @staticmethod
    async def _watch(hooks: list[tuple[str, Callable[[str], Any]]]) -> dict[str, RPCError]:
        failed: dict[str, RPCError] = {}
        for uri, watch in hooks:
            try:
                await watch(uri)
            except RPCError as exc:
                failed[uri] = exc
        return failed

    def unwatching(self, uris: Iterable[str]) -> Any:
        """Subscribers of ``uris`` went away (unsubscribed, a listen stream ended, a session
        closed): what serves one that nobody here subscribes to any more may stop watching
        it (a mounted proxy's resource unsubscribes upstream: its ``unwatch(uri)``
        coroutine). None when nothing has to, else a coroutine."""
        hooks = []
        for uri in set(uris):
            found = self._locate(uri)
            unwatch = getattr(found[0], "unwatch", None) if found is not None else None
            if unwatch is not None and not self.subscribed(uri):
                hooks.append((uri, unwatch))
        return self._unwatch(hooks) if hooks else None

    @staticmethod
    async def _unwatch(hooks: list[tuple[str, Callable[[str], Any]]]) -> None:
        for uri, unwatch in hooks:
            await unwatch(uri)

    def unwatch_later(self, uris: Iterable[str]) -> None:
        """:meth:`unwatching`, run in the background (from code that cannot wait for it)."""
        pending = self.unwatching(uris)
        if pending is None:
            return
        try:
            task = asyncio.get_running_loop().create_task(pending)
        except RuntimeError:  # no loop any more: nothing upstream to tell
            pending.close()
            return
        self._unwatching.add(task)
        task.add_done_callback(self._unwatching.discard)

    @cached_property
    def _unwatching(self) -> set[asyncio.Task[None]]:
        return set()

    def subscribed(self, uri: str) -> bool:
        """Some session of this process subscribes to ``uri`` (``resources/subscribe``, or a
        listen stream's ``resourceSubscriptions``)."""
        for connection in self._connections:
            if uri in connection.subscriptions:
                return True
            for accepted in connection.listeners.values():
                if uri in accepted.get("resourceSubscriptions", ()):
                    return True
        return False

    # ------------------------------------------------------------ notifications

    def resources_changed(self) -> None:
        """Tell connected clients the resource list changed, once per burst of changes."""
        self.list_changed("resources")

    def resource_updated(self, uri: str) -> None:
        """Say that the resource at ``uri`` changed: legacy sessions subscribed to it get
        ``notifications/resources/updated``, and so do 2026-07-28 listen streams that asked
        for it. Callable from sync tools on worker threads too."""
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            serving = self._serving_loop
            if serving is not None and not serving.is_closed():
                serving.call_soon_threadsafe(self.resource_updated, uri)
            return
        self.announce_resource_updated(uri)
        self.tell_other_workers({"updated": uri})

    def announce_resource_updated(self, uri: str) -> None:
        """Send ``notifications/resources/updated`` to this process's subscribers of ``uri``
        (an update made here or, with a shared store, in another worker)."""
        for connection in list(self._connections):
            if connection.features is not None and uri in connection.subscriptions:
                connection.notify(UPDATED, {"uri": uri})
            for mid, accepted in list(connection.listeners.items()):
                if uri in accepted.get("resourceSubscriptions", ()):
                    params = {"_meta": {META_SUBSCRIPTION_ID: mid}, "uri": uri}
                    connection.notify(UPDATED, params, related=mid)

    # ------------------------------------------------------------ protocol side

    def _locate(
        self, uri: str, request: Request | None = None
    ) -> tuple[Resource | ResourceTemplate, JSON] | None:
        """What serves ``uri``: an exact resource first, then templates in registration
        order (with the variables the URI gives). None when nothing does, or when what
        serves it is hidden from ``request``'s caller (or disabled): a URI a protected
        resource serves stays protected even if a template the caller may use also
        matches it. No request: the server's own code, which may read every enabled one."""
        rules = request.rules if request is not None else None
        resource = self._resources.get(uri)
        if resource is not None:
            registry: Registry[Any] = self.resource_registry
            found: tuple[Resource | ResourceTemplate, JSON] = resource, {}
        else:
            for template in self._templates.values():
                variables = template.match(uri)
                if variables is not None:
                    registry, found = self.template_registry, (template, variables)
                    break
            else:
                return None
        item = found[0]
        if registry.shows(item, rules) and registry.allows(item, request):
            return found
        return None

    def resources_page(self, request: Request, cursor: str | None, templates: bool) -> JSON:
        """One page of ``resources/list`` (or ``resources/templates/list``)."""
        if templates:
            registry: Registry[Any] = self.template_registry
            field = "resourceTemplates"
        else:
            registry, field = self.resource_registry, "resources"
        return self.components_page(registry, request, cursor, field, shaping.resource)

    async def read_resource(self, uri: str, context: Context | None = None) -> list[JSON]:
        """The contents of ``uri`` (newest shape: dicts with ``uri``, ``mimeType`` and
        ``text`` or ``blob``). Raises :class:`~toolwire.resources.ResourceNotFound`, or a
        ``ToolError`` saying why the read failed. ``context`` is given to resource functions
        that take one (``ctx.read_resource`` passes the calling tool's, whose caller must
        be one the resource admits)."""
        found = self._locate(uri, context.request if context is not None else None)
        if found is None:
            raise ResourceNotFound(uri)
        item, variables = found
        return await item.read(
            uri, variables, context, self.runner.run, mask_errors=self.mask_errors
        )

    async def read_for(self, connection: Any, request: Request, uri: str) -> JSON:
        """The ``resources/read`` result; failures become JSON-RPC errors (see
        :mod:`toolwire.server.dispatch.resource_methods`)."""
        found = self._locate(uri, request)
        if found is None:
            raise not_found(uri, request.features)
        item, variables = found
        context = connection.context_for(request) if item.injected else None
        if context is not None:
            _current.set(context)  # this task's own copy of the context variables
        try:
            contents = await item.read(
                uri, variables, context, self.runner.run, mask_errors=self.mask_errors
            )
        except ResourceNotFound as exc:
            raise not_found(uri, request.features, str(exc)) from None
        except ToolError as exc:  # its text was chosen (or masked) to be shown
            raise RPCError(jsonrpc.INTERNAL_ERROR, str(exc), {"uri": uri}) from None
        finally:
            if context is not None:
                context._finish()
        result: JSON = {"contents": shaping.resource_contents(contents, request.features)}
        # Contents come fresh from a function that may depend on the caller: never shared.
        return shaping.cacheable(result, request.features, 0, "private")

    def knows(self, uri: str, request: Request | None = None) -> bool:
        """Something serves ``uri`` (that ``request``'s caller may use, when given)."""
        return self._locate(uri, request) is not None
