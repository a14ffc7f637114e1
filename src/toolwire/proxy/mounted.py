"""A proxy mounted on a toolwire server (``mcp.mount(Server.proxy(...), prefix=...)``):
the upstream's tools, resources, templates and prompts as components of the mounting
server (tools are :class:`~toolwire.composition.transforms.ForwardedTool` objects), so that its
middleware, visibility, auth and transforms apply to them.

Listings come from the proxy's shared upstream connection (all their pages); a tool call
goes up on that connection as the proxy forwards its own ``tools/call``, with the mounting
server's :class:`~toolwire.Context`: the upstream's progress, log messages, elicitation and
sampling reach the client that called, and its cancellation reaches the upstream. Reads
and prompts go up as they are (prompt arguments and template variables are checked there),
and so does ``completion/complete`` for their arguments, when the upstream offers
completions. Subscribing to one of its resources (``resources/subscribe``, or a 2026-07-28
listen stream's ``resourceSubscriptions``) subscribes upstream first (:class:`Watches`);
the upstream's ``notifications/resources/updated`` then reach the mounting server's
subscribers under the mounted URI, until the last of them goes (upstream unsubscribed), or
until the upstream stops listing what served the URI (the subscriptions to it end here
too: :func:`toolwire.composition.subscriptions.dropped`).
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable
from typing import Any

from ..composition.transforms import ForwardedTool
from ..errors import ClientError, RPCError
from ..prompts import Prompt
from ..resources import Resource, ResourceTemplate
from .server import ProxyServer, _plain
from .upstream import JSON, Upstream, upstream_error

logger = logging.getLogger("toolwire")

LISTS = {  # kind: (upstream method, result key, id key, capability)
    "tools": ("tools/list", "tools", "name", "tools"),
    "resources": ("resources/list", "resources", "uri", "resources"),
    "templates": ("resources/templates/list", "resourceTemplates", "uriTemplate", "resources"),
    "prompts": ("prompts/list", "prompts", "name", "prompts"),
}


def _upstream(proxy: ProxyServer) -> Any:
    return proxy.shared_upstream()


async def definitions(proxy: ProxyServer, kind: str) -> dict[str, JSON]:
    """The upstream's ``kind`` list (all its pages), by name, URI or URI template."""
    method, key, ident, capability = LISTS[kind]
    upstream = _upstream(proxy)
    await upstream.client()
    if not upstream.offers(capability):
        return {}
    items = await upstream.listing(kind, method, key)
    return {item[ident]: item for item in items if isinstance(item.get(ident), str)}


def upstream_component(
    proxy: ProxyServer, kind: str, definition: JSON, named: str, watches: Watches
) -> Any:
    """The component registered for an upstream's ``definition`` under ``named`` (a name,
    or for resources and templates a URI); ``watches`` keeps the mount's subscriptions."""
    if kind == "tools":
        return upstream_tool(proxy, definition, named)
    if kind == "prompts":
        return UpstreamPrompt(proxy, definition, named)
    if kind == "resources":
        return UpstreamResource(proxy, definition, named, watches)
    return UpstreamTemplate(proxy, definition, named, watches)


class Watches:
    """The upstream resources the mounting server's clients subscribed to, and where the
    upstream's ``notifications/resources/updated`` for them go.

    An upstream URI is subscribed once on the shared upstream connection (again after that
    connection was opened anew), whatever the number of the mounting server's sessions that
    subscribe to it, and unsubscribed when the last of them unsubscribes, ends its listen
    stream or closes (:meth:`unwatch`); the mounting server sends each update to its own
    subscribers of the mounted URI."""

    def __init__(self, proxy: ProxyServer, outer: Any) -> None:
        self.proxy, self.outer = proxy, outer
        self.routes: dict[str, str] = {}  # upstream URI -> the URI served by the mount
        self._client: Any = None  # the upstream connection the subscriptions were made on
        self._subscribed: set[str] = set()
        self._hooked: set[int] = set()  # the Upstream objects whose updates come here

    async def watch(self, upstream_uri: str, uri: str) -> None:
        upstream = _upstream(self.proxy)
        self._hook(upstream)
        client = await upstream.client()
        if client is not self._client:  # a new upstream connection has no subscriptions
            self._client, self._subscribed = client, set()
        self.routes[upstream_uri] = uri
        if upstream_uri in self._subscribed:
            return
        try:
            await client.subscribe_resource(upstream_uri)
        except (ClientError, RPCError) as exc:
            raise upstream_error(exc) from None
        self._subscribed.add(upstream_uri)

    async def unwatch(self, upstream_uri: str) -> None:
        """Nobody here subscribes to the URI served for ``upstream_uri`` any more: unsubscribe
        upstream (a failure only means the upstream keeps sending updates nobody gets)."""
        self.routes.pop(upstream_uri, None)
        client = self._client
        if upstream_uri not in self._subscribed or client is None:
            return
        self._subscribed.discard(upstream_uri)
        try:
            await client.unsubscribe_resource(upstream_uri)
        except Exception as exc:  # an upstream gone away has nothing to stop
            logger.debug(
                "Mounted proxy %r: cannot unsubscribe %s: %s", self.proxy.name, upstream_uri, exc
            )

    def _hook(self, upstream: Upstream) -> None:
        """Have ``upstream``'s resource updates reach this mount too."""
        if id(upstream) in self._hooked:
            return
        self._hooked.add(id(upstream))
        passed_on = upstream._updated

        def updated(uri: str) -> None:
            passed_on(uri)
            self.updated(uri)

        upstream._updated = updated

    def updated(self, upstream_uri: str) -> None:
        uri = self.routes.get(upstream_uri)
        if uri is not None:
            with contextlib.suppress(RuntimeError):  # no loop: nobody to tell
                self.outer.resource_updated(uri)


class ForwardedCompleters(dict[str, Callable[..., Any]]):
    """Completers of an upstream prompt's arguments or template's variables: each asks the
    upstream (``completion/complete`` with the upstream's own ``ref``), which knows which
    arguments it completes."""

    def __init__(self, proxy: ProxyServer, ref: JSON) -> None:
        super().__init__()
        self.proxy, self.ref = proxy, ref

    def __bool__(self) -> bool:
        return True  # every argument may complete

    def get(self, name: str, default: Any = None) -> Callable[..., Any]:
        proxy, ref = self.proxy, self.ref

        async def complete(value: str, arguments: dict[str, str]) -> JSON:
            params: JSON = {"ref": ref, "argument": {"name": name, "value": value}}
            if arguments:
                params["context"] = {"arguments": arguments}
            result = await _upstream(proxy).request("completion/complete", params)
            completion = result.get("completion")
            return completion if isinstance(completion, dict) else {"values": []}

        return complete


def _completers(proxy: ProxyServer, ref: JSON) -> dict[str, Callable[..., Any]]:
    """Forwarded completers when the upstream offers completions, else none."""
    return ForwardedCompleters(proxy, ref) if _upstream(proxy).offers("completions") else {}


def _text(definition: JSON, key: str) -> str | None:
    value = definition.get(key)
    return value if isinstance(value, str) else None


def _metadata(definition: JSON) -> JSON:
    icons, meta, annotations = (definition.get(k) for k in ("icons", "_meta", "annotations"))
    return {
        "title": _text(definition, "title"),
        "description": _text(definition, "description"),
        "mime_type": _text(definition, "mimeType"),
        "annotations": annotations if isinstance(annotations, dict) else None,
        "icons": icons if isinstance(icons, list) else None,
        "meta": meta if isinstance(meta, dict) else None,
    }


async def _read(proxy: ProxyServer, upstream_uri: str, uri: str) -> list[JSON]:
    result = await _upstream(proxy).request("resources/read", {"uri": upstream_uri})
    contents = [c for c in result.get("contents") or () if isinstance(c, dict)]
    return [{**c, "uri": uri} if c.get("uri") == upstream_uri else c for c in contents]


class UpstreamResource(Resource):
    """An upstream resource, read through the proxy's shared upstream connection."""

    def __init__(self, proxy: ProxyServer, definition: JSON, uri: str, watches: Watches) -> None:
        size = definition.get("size")
        super().__init__(
            "",
            uri,
            name=_text(definition, "name"),
            size=size if isinstance(size, int) and not isinstance(size, bool) else None,
            **_metadata(definition),
        )
        self.proxy, self.upstream_uri, self.watches = proxy, definition["uri"], watches
        self.served = uri  # the URI its mount serves (a server mounting that one: its own)

    def _settled_type(self, fn: Any, uri: str) -> str | None:
        return None  # the upstream's listing names one (mime_type) or none

    def registered_in(self, server: Any) -> bool:
        return server.get_resource(self.uri) is self

    def serves(self, uri: str) -> bool:
        return uri == self.uri

    async def read(
        self, uri: str, variables: JSON, injected: Any, run_sync: Any, *, mask_errors: bool
    ) -> list[JSON]:
        return await _read(self.proxy, self.upstream_uri, uri)

    async def watch(self, uri: str) -> None:
        """A client subscribes to ``uri``: subscribe upstream."""
        await self.watches.watch(self.upstream_uri, self.served)

    async def unwatch(self, uri: str) -> None:
        """The last client subscribed to ``uri`` went: unsubscribe upstream."""
        await self.watches.unwatch(self.upstream_uri)


def _variables(**variables: str) -> None:  # pragma: no cover - never called
    return None


class UpstreamTemplate(ResourceTemplate):
    """An upstream resource template: a URI it matches here is read upstream without the
    mount's prefix."""

    def __init__(
        self, proxy: ProxyServer, definition: JSON, uri_template: str, watches: Watches
    ) -> None:
        super().__init__(
            _variables, uri_template, name=_text(definition, "name"), **_metadata(definition)
        )
        self.proxy, self.watches = proxy, watches
        self.upstream_template = definition["uriTemplate"]
        self.served_head = self.head  # where its mount serves it (see served_uri)
        self.upstream_head = self.upstream_template[: self.upstream_template.find("{")]
        self.completers = _completers(
            proxy, {"type": "ref/resource", "uri": self.upstream_template}
        )

    @property
    def head(self) -> str:
        """What its URIs start with here (a server mounting its mount serves it under
        another URI template: a copy of it, whose head is that one's)."""
        return self.uri_template[: self.uri_template.find("{")]

    def upstream_uri(self, uri: str) -> str:
        return str(self.upstream_head) + uri[len(self.head) :]

    def served_uri(self, uri: str) -> str:
        """``uri`` as its mount serves it (where the upstream's updates are announced)."""
        return str(self.served_head) + uri[len(self.head) :]

    def registered_in(self, server: Any) -> bool:
        return server.find_template(self.uri_template) is self

    def serves(self, uri: str) -> bool:
        return self.match(uri) is not None

    async def read(
        self, uri: str, variables: JSON, injected: Any, run_sync: Any, *, mask_errors: bool
    ) -> list[JSON]:
        return await _read(self.proxy, self.upstream_uri(uri), uri)

    async def watch(self, uri: str) -> None:
        """A client subscribes to ``uri`` (one this template serves): subscribe upstream."""
        await self.watches.watch(self.upstream_uri(uri), self.served_uri(uri))

    async def unwatch(self, uri: str) -> None:
        """The last client subscribed to ``uri`` went: unsubscribe upstream."""
        await self.watches.unwatch(self.upstream_uri(uri))


def _arguments(**arguments: str) -> None:  # pragma: no cover - never called
    return None


class UpstreamPrompt(Prompt):
    """An upstream prompt: its arguments are checked upstream."""

    def __init__(self, proxy: ProxyServer, definition: JSON, name: str) -> None:
        icons, meta = definition.get("icons"), definition.get("_meta")
        super().__init__(
            _arguments,
            name=name,
            title=_text(definition, "title"),
            description=_text(definition, "description"),
            icons=icons if isinstance(icons, list) else None,
            meta=meta if isinstance(meta, dict) else None,
        )
        self.proxy, self.upstream_name = proxy, definition["name"]
        self.completers = _completers(proxy, {"type": "ref/prompt", "name": self.upstream_name})
        arguments = definition.get("arguments")
        if isinstance(arguments, list):
            self.definition = {**self.definition, "arguments": arguments}

    async def render(
        self, kwargs: dict[str, Any], injected: Any, run_sync: Any, *, mask_errors: bool
    ) -> JSON:
        params = {"name": self.upstream_name, "arguments": kwargs}
        return _plain(await _upstream(self.proxy).request("prompts/get", params))


def upstream_tool(proxy: ProxyServer, definition: JSON, name: str) -> ForwardedTool:
    """A tool named ``name`` here whose calls go to the upstream's ``definition["name"]``."""
    upstream_name = definition["name"]
    output = definition.get("outputSchema")
    schema = definition.get("inputSchema")

    async def forward(
        arguments: JSON,
        context: Any,
        run_sync: Any,
        mask_errors: bool,
        timeout: float | None,
        on_timeout: Callable[[], None] | None,
    ) -> JSON:
        asked = context.request
        request = asked.with_params({**asked.params, "name": upstream_name, "arguments": arguments})
        result = await proxy._forward_call(_upstream(proxy), context, request, False)
        return _plain(result)

    annotations = definition.get("annotations")
    return ForwardedTool(
        forward,
        name=name,
        input_schema=schema if isinstance(schema, dict) else {"type": "object"},
        output_schema=output if isinstance(output, dict) else None,
        structured=True,
        needs_context=True,
        title=definition.get("title") if isinstance(definition.get("title"), str) else None,
        description=definition.get("description")
        if isinstance(definition.get("description"), str)
        else None,
        annotations={k: v for k, v in annotations.items() if k in _ANNOTATIONS}
        if isinstance(annotations, dict)
        else None,
        meta=definition.get("_meta") if isinstance(definition.get("_meta"), dict) else None,
        icons=definition.get("icons") if isinstance(definition.get("icons"), list) else None,
    )


_ANNOTATIONS = {"title", "readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"}
