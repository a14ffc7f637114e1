"""Mounted servers: ``mcp.mount(other, prefix="weather")``.

Each tool, resource, resource template and prompt of ``other`` becomes a component of
``mcp``'s own registries, so everything ``mcp`` applies to its components applies to them:
middleware, visibility, tags, scopes and auth, paging, transforms, tool search.

* **Names.** With a prefix, a tool or prompt ``forecast`` is ``weather_forecast``: the form
  the :class:`~toolwire.Host` gives a name two servers share
  (:func:`toolwire.protocol.naming.prefixed_name`: only ``A-Za-z0-9_-``, cut and hashed past
  64 characters, so every LLM API takes it). A resource ``data://today`` is
  ``data://weather/today`` and a template ``data://{day}`` is ``data://weather/{day}``: the
  prefix becomes the URI's authority (``scheme:rest`` without ``//`` becomes
  ``scheme:weather/rest``), a URI any client takes, whose scheme still says what it is.
  Without a prefix, names and URIs stay as they are and one already taken is a
  :class:`~toolwire.errors.RegistrationError`.
* **Live.** The mounted server tells its mounts about each change of its lists
  (``ServerCore.list_listeners``): its components are registered again, and ``mcp``'s
  clients get ``notifications/*/list_changed``. Its ``resource_updated(uri)`` reaches
  ``mcp``'s subscribers of the mounted URI (through its ``change_hooks``).
* **Calls.** A mounted toolwire server's tool runs in ``mcp``'s call, with ``mcp``'s
  :class:`~toolwire.Context`: progress, logs, elicitation, sampling and cancellation reach
  ``mcp``'s client. Its own middleware runs around the call (under the tool's own name)
  inside ``mcp``'s, and its own access rule (``visibility=``) is checked besides ``mcp``'s
  (:class:`InnerRule`). Its resources and prompts are its own functions, registered again;
  its middleware sees their reads, renders, completions and listings too
  (:mod:`toolwire.composition.mount_routes`).
* **Proxies.** A mounted :meth:`Server.proxy <toolwire.Server.proxy>` lists the upstream's
  tools when ``mcp`` starts serving and again when the upstream says they changed; its
  calls go upstream through one connection shared by all of ``mcp``'s sessions, carrying
  progress, logs and questions both ways (:mod:`toolwire.proxy.mounted`). An upstream
  that cannot be listed (not reachable yet) is listed again after ``RETRY_FIRST_S``
  seconds, then twice as long each time up to ``RETRY_MAX_S``, while ``mcp`` serves.
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import inspect
import logging
import re
from typing import Any

from ..errors import RegistrationError
from ..protocol.naming import prefixed_name
from ..resources.uri_template import UriTemplate
from ..server.request import Request
from ..tools import Tool
from .mount_routes import route
from .subscriptions import dropped, unwatched
from .transforms import ForwardedTool, rules_of, running

logger = logging.getLogger("toolwire")

_PREFIX = re.compile(r"[A-Za-z0-9_-]{1,64}")
RETRY_FIRST_S = 0.5  # a mounted proxy that could not be listed is listed again after this
RETRY_MAX_S = 30.0  # ... and then at most this far apart


def prefixed_uri(prefix: str, uri: str) -> str:
    """``scheme://rest`` -> ``scheme://{prefix}/rest``; ``scheme:rest`` -> ``scheme:{prefix}/rest``."""
    scheme, sep, rest = uri.partition("://")
    if sep:
        return f"{scheme}://{prefix}/{rest}"
    scheme, sep, rest = uri.partition(":")
    return f"{scheme}:{prefix}/{rest}" if sep else f"{prefix}/{uri}"


def prefix_of(prefix: str | None, namespace: str | None) -> str | None:
    """The prefix of ``mount(server, prefix)`` or ``mount(server, namespace=...)`` (FastMCP's
    name for it): one of the two."""
    if namespace is None:
        return prefix
    if prefix is not None and prefix != namespace:
        raise RegistrationError(
            f"mount() got prefix={prefix!r} and namespace={namespace!r}: they are the same "
            "setting (namespace is FastMCP's name for the prefix); give one"
        )
    return namespace


def mount(outer: Any, inner: Any, prefix: str | None) -> Mount:
    if inner is outer:
        raise RegistrationError("A server cannot be mounted on itself")
    if prefix is not None and (not isinstance(prefix, str) or not _PREFIX.fullmatch(prefix)):
        raise RegistrationError(
            f"Invalid mount prefix {prefix!r}: use 1-64 characters of A-Z, a-z, 0-9, '_' and '-'"
        )
    if any(m.inner is inner for m in outer._mounts):
        raise RegistrationError(f"The server {inner.name!r} is already mounted here")
    mounted = Mount(outer, inner, prefix)
    try:
        mounted.sync_local()  # clashes show now, before anything is attached
    except RegistrationError:
        mounted.unregister()
        raise
    outer._mounts = [*outer._mounts, mounted]
    inner.list_listeners = [*inner.list_listeners, mounted.changed]
    if not mounted.proxied:
        inner.change_hooks.append(mounted.updated)
        route(outer)  # its middleware sees reads, prompts, completions and listings too
    return mounted


class Mount:
    """One server mounted on another, and what it registered there."""

    def __init__(self, outer: Any, inner: Any, prefix: str | None) -> None:
        self.outer = outer
        self.inner = inner
        self.prefix = prefix
        # a proxy says what mounting it needs (toolwire.proxy.mounted): the proxy package
        # sits above this one, which never names it
        self.proxied = getattr(inner, "mounting", None) is not None
        if self.proxied:
            inner.shared = True  # one upstream connection serves every session of outer
        # per kind: the id in inner -> (what it was built from, the id registered in outer)
        self.registered: dict[str, dict[str, tuple[Any, str]]] = {
            "tools": {},
            "resources": {},
            "templates": {},
            "prompts": {},
        }
        self._syncing: set[asyncio.Task[None]] = set()
        self._retrying: asyncio.Task[None] | None = None
        self._failing = False  # the last listing failed (logged once until it works)
        self._watches: Any = None  # a proxy's subscribed resources (toolwire.proxy.mounted)

    # ------------------------------------------------------------ names

    def name(self, name: str) -> str:
        return name if self.prefix is None else prefixed_name(self.prefix, name)

    def uri(self, uri: str) -> str:
        return uri if self.prefix is None else prefixed_uri(self.prefix, uri)

    def renamed(self, registered: str, now: str) -> None:
        """The outer server replaced the tool ``registered`` by ``now`` (a transform)."""
        tools = self.registered["tools"]
        for key, (source, name) in tools.items():
            if name == registered:
                tools[key] = (source, now)

    def unregister(self) -> None:
        """Take back everything this mount registered."""
        outer = self.outer
        for kind, done in self.registered.items():
            for _, name in done.values():
                if kind == "tools":
                    outer.remove_tool(name)
                elif kind == "prompts":
                    outer.remove_prompt(name)
                else:
                    outer.remove_resource(name)
            done.clear()

    # ------------------------------------------------------------ changes

    def changed(self, kind: str) -> None:
        """The mounted server's ``kind`` list changed."""
        if not self.proxied:
            self.sync_local(kind)
            if kind == "tools":  # its own access rule may have changed (visibility=)
                self.outer.tool_registry.touch()
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return
        task = loop.create_task(self._sync_or_retry(kind))
        self._syncing.add(task)
        task.add_done_callback(self._syncing.discard)

    def updated(self, event: dict[str, Any]) -> None:
        """A change the mounted toolwire server announced: a resource update reaches the
        mounting server's subscribers of its mounted URI."""
        uri = event.get("updated")
        if isinstance(uri, str):
            self.outer.resource_updated(self.uri(uri))

    async def start(self) -> None:
        await self.inner.start()
        if self.proxied:
            await self._sync_or_retry()

    async def stop(self) -> None:
        await self.inner.stop()
        retrying = self._retrying
        if retrying is not None and not getattr(self.inner, "_users", 0):
            self._retrying = None
            retrying.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await retrying

    async def _sync_or_retry(self, kind: str | None = None) -> None:
        if not await self.sync_proxied(kind) and self._retrying is None:
            self._retrying = asyncio.get_running_loop().create_task(self._retry())

    async def _retry(self) -> None:
        """List the upstream again, backing off, until it answers."""
        delay = RETRY_FIRST_S
        try:
            while True:
                await asyncio.sleep(delay)
                if await self.sync_proxied():
                    return
                delay = min(delay * 2, RETRY_MAX_S)
        finally:
            if self._retrying is asyncio.current_task():
                self._retrying = None

    def _sync(self, kind: str, desired: dict[str, Any], build: Any, strict: bool = True) -> None:
        """Register what ``desired`` (id in the mounted server -> source) holds and drop what
        it no longer does; a source that changed (another object, another definition) is
        built again."""
        outer, done = self.outer, self.registered[kind]
        remove = {"tools": outer.remove_tool, "prompts": outer.remove_prompt}.get(
            kind, outer.remove_resource
        )
        for key, (source, registered) in list(done.items()):
            if desired.get(key) is not source:
                del done[key]
                with contextlib.suppress(KeyError):  # already gone (removed by hand)
                    remove(registered)
        rules = rules_of(outer) if kind == "tools" else None
        for key, source in desired.items():
            if key in done:
                continue
            try:
                done[key] = (source, self._register(kind, build(key, source), rules))
            except RegistrationError as exc:
                if strict:
                    raise
                # an upstream's component that cannot be served here (a clash, a bad name)
                logger.warning("Mounted proxy %r: %s", self.inner.name, exc)

    def _register(self, kind: str, item: Any, rules: Any) -> str:
        outer = self.outer
        if rules is not None:
            item = rules.apply(item)
            outer.add_tool(item)
            return str(item.name)
        if kind == "prompts":
            outer.add_prompt(item)
            return str(item.name)
        outer.add_resource(item)
        return str(item.uri if kind == "resources" else item.uri_template)

    # ------------------------------------------------------------ a toolwire server

    def sync_local(self, kind: str | None = None) -> None:
        if self.proxied:
            return
        inner = self.inner
        if kind in (None, "tools") and hasattr(inner, "tools"):
            shown = [tool for tool in inner.tools if _shows(inner, tool)]
            self._sync("tools", {tool.name: tool for tool in shown}, self._local_tool)
        if kind in (None, "resources") and hasattr(inner, "resources"):
            watched = [*self._watched("resources"), *self._watched("templates")]
            self._sync("resources", {r.uri: r for r in inner.resources}, self._local_resource)
            templates = {t.uri_template: t for t in inner.resource_templates}
            self._sync("templates", templates, self._local_template)
            if watched:  # a mounted proxy's, deeper: subscriptions to what it dropped end
                self._unwatch_dropped(watched)
        if kind in (None, "prompts") and hasattr(inner, "prompts"):
            self._sync("prompts", {p.name: p for p in inner.prompts}, self._local_prompt)

    def _watched(self, kind: str) -> list[Any]:
        """The registered resources (or templates) of ``kind`` that an upstream serves (a
        mounted proxy's, here or deeper): subscribing to them subscribes upstream."""
        if kind not in ("resources", "templates"):
            return []
        outer = self.outer
        found = [
            outer.get_resource(name) or outer.find_template(name)
            for _, name in self.registered[kind].values()
        ]
        return [item for item in found if hasattr(item, "unwatch") and hasattr(item, "serves")]

    def _unwatch_dropped(self, watched: list[Any]) -> None:
        ended = dropped(self.outer, watched)
        if not ended:
            return
        try:
            task = asyncio.get_running_loop().create_task(unwatched(ended))
        except RuntimeError:  # no loop: no upstream connection to tell
            return
        self._syncing.add(task)
        task.add_done_callback(self._syncing.discard)

    def _local_tool(self, key: str, tool: Tool) -> Tool:
        forwarded = MountedTool(
            self.inner,
            self._through_inner(key, tool),
            name=self.name(key),
            input_schema=tool.schema.input_schema,
            output_schema=tool.schema.output_schema,
            wraps_result=tool.schema.wraps_result,
            structured=tool.structured,
            # a Context when the tool takes one (or dependencies), or when its server's
            # middleware needs the call's connection: as a direct call would build one
            needs_context=lambda: tool.needs_context() or bool(self.inner.middleware),
            title=tool.title,
            description=tool.description,
            annotations=tool.annotations,
            meta=tool.meta,
            icons=tool.icons,
            tags=tool.tags,
            scopes=tool.scopes,
            auth=tool.auth,
            sensitive=tool.sensitive,
            original=tool,
        )
        forwarded.mounted_rule = InnerRule(self.inner, tool)  # type: ignore[attr-defined]
        return forwarded

    def _through_inner(self, key: str, tool: Tool) -> Any:
        """A forward that runs ``tool`` through the mounted server's own middleware (if it
        has any), which sees the call under the tool's own name ``key``."""
        run, inner = running(tool), self.inner

        def forward(
            arguments: Any,
            context: Any,
            run_sync: Any,
            mask_errors: bool,
            timeout: float | None,
            on_timeout: Any,
        ) -> Any:
            if not getattr(inner, "middleware", None):
                return run(arguments, context, run_sync, mask_errors, timeout, on_timeout)
            asked = context.request
            request = asked.with_params({**asked.params, "name": key, "arguments": dict(arguments)})

            def handler(connection: Any, request: Request) -> Any:
                given = request.params.get("arguments")
                given = given if isinstance(given, dict) else {}
                return run(given, context, run_sync, mask_errors, timeout, on_timeout)

            outcome = inner.through_middleware(context._connection, request, handler)
            return outcome if inspect.isawaitable(outcome) else _ready(outcome)

        return forward

    # A mounted server's resources and prompts are its own objects (their functions,
    # completers, access rules), copied under the prefixed URI or name.

    def _local_resource(self, key: str, source: Any) -> Any:
        item = copy.copy(source)
        item.uri = self.uri(key)
        item.definition = item._definition()
        item.mounted_from = (self, key)  # toolwire.composition.mount_routes
        return item

    def _local_template(self, key: str, source: Any) -> Any:

        item = copy.copy(source)
        item.uri_template = self.uri(key)
        item.template = UriTemplate(item.uri_template)
        item.definition = item._definition()
        item.mounted_from = (self, key)
        return item

    def _local_prompt(self, key: str, source: Any) -> Any:
        prompt = copy.copy(source)
        prompt.name = self.name(key)
        prompt.definition = prompt._definition()
        prompt.mounted_from = (self, key)
        return prompt

    # ------------------------------------------------------------ a proxy

    async def sync_proxied(self, kind: str | None = None) -> bool:
        """List what the upstream offers (through the proxy) and register it; False when
        the upstream could not be listed."""
        mounted = self.inner.mounting
        if self._watches is None:
            self._watches = mounted.Watches(self.inner, self.outer)
        kinds: tuple[str, ...] = ("tools", "resources", "templates", "prompts")
        if kind is not None:
            kinds = (kind,)
        if kind == "resources":
            kinds = ("resources", "templates")
        for each in kinds:
            try:
                definitions = await mounted.definitions(self.inner, each)
            except Exception as exc:  # the upstream is unreachable: listed again later
                log = logger.debug if self._failing else logger.warning
                log("Mounted proxy %r: cannot list its %s: %s", self.inner.name, each, exc)
                self._failing = True
                return False
            previous = {key: source for key, (source, _) in self.registered[each].items()}
            desired = {}
            for key, definition in definitions.items():
                kept = previous.get(key)
                desired[key] = kept if kept == definition else definition

            def build(key: str, definition: Any, each: str = each) -> Any:
                named = self.name(key) if each in ("tools", "prompts") else self.uri(key)
                return mounted.upstream_component(
                    self.inner, each, definition, named, self._watches
                )

            watched = self._watched(each)
            self._sync(each, desired, build, strict=False)
            if watched:  # subscribed resources the upstream no longer lists: unsubscribed
                await unwatched(dropped(self.outer, watched))
        self._failing = False
        return True


class MountedTool(ForwardedTool):
    """A mounted toolwire server's tool, run as that server runs it when called directly: a
    :class:`~toolwire.Context` only when needed (``needs_context``), and right on the event
    loop when the tool would run there (a sync tool that never blocks) and its server has no
    middleware to pass the call through."""

    def __init__(self, inner: Any, forward: Any, **options: Any) -> None:
        self.inner = inner
        super().__init__(forward, **options)

    @property
    def inline(self) -> bool:
        original = self.original
        return original is not None and original.inline and not self.inner.middleware

    @inline.setter
    def inline(self, value: bool) -> None:
        pass  # it follows the mounted tool's own

    @property
    def never_blocks(self) -> bool:
        return self.original is not None and self.original.never_blocks

    @never_blocks.setter
    def never_blocks(self, value: bool) -> None:
        pass

    def run_inline(self, arguments: Any, injected: Any, *, mask_errors: bool) -> Any:
        assert self.original is not None
        if self.nulls_from is not None and arguments:  # Server(provider=...): null = absent
            # lazy: the providers' schema rules, only for a tool checked or exported for one
            from ..providers import null_means_absent

            arguments = null_means_absent(arguments, self.nulls_from)
        return self.original.run_inline(arguments, injected, mask_errors=mask_errors)


class InnerRule:
    """The mounted server's own access rule (its ``visibility=`` predicate, its app-only
    tools) for one of its tools, checked by the mounting server's registry besides its own
    (``Registry.allows``) while the mounted server has such a rule."""

    def __init__(self, server: Any, tool: Tool) -> None:
        self.server, self.tool = server, tool

    @property
    def active(self) -> bool:
        registry = getattr(self.server, "tool_registry", None)
        if registry is None or registry.rule is None:
            return False
        return registry.ruled is None or bool(registry.ruled(self.tool))

    def __call__(self, item: Any, request: Any) -> bool:
        return bool(self.server.tool_registry.rule(self.tool, request))


def _shows(server: Any, tool: Tool) -> bool:
    """The mounted server itself would list ``tool`` (enabled, kept by its tag filters)."""
    include = getattr(server, "include_tags", None)
    exclude: frozenset[str] = getattr(server, "exclude_tags", frozenset())
    return (
        tool.enabled and (include is None or bool(tool.tags & include)) and not tool.tags & exclude
    )


async def _ready(result: Any) -> Any:
    """A result the mounted server's middleware gave at once, as the awaitable a forward is."""
    return result
