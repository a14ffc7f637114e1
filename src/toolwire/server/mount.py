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
  clients get ``notifications/*/list_changed``.
* **Calls.** A mounted toolwire server's tool runs in ``mcp``'s call, with ``mcp``'s
  :class:`~toolwire.Context`: progress, logs, elicitation, sampling and cancellation reach
  ``mcp``'s client. Its resources and prompts are its own functions, registered again.
* **Proxies.** A mounted :meth:`Server.proxy <toolwire.Server.proxy>` lists the upstream's
  tools when ``mcp`` starts serving and again when the upstream says they changed; its
  calls go upstream through one connection shared by all of ``mcp``'s sessions, carrying
  progress, logs and questions both ways (:mod:`toolwire.proxy.mounted`).
"""

from __future__ import annotations

import asyncio
import copy
import logging
import re
from typing import Any

from ..errors import RegistrationError
from ..protocol.naming import prefixed_name
from ..tools import Tool
from .transforms import ForwardedTool, rules_of, running

logger = logging.getLogger("toolwire")

_PREFIX = re.compile(r"[A-Za-z0-9_-]{1,64}")


def prefixed_uri(prefix: str, uri: str) -> str:
    """``scheme://rest`` -> ``scheme://{prefix}/rest``; ``scheme:rest`` -> ``scheme:{prefix}/rest``."""
    scheme, sep, rest = uri.partition("://")
    if sep:
        return f"{scheme}://{prefix}/{rest}"
    scheme, sep, rest = uri.partition(":")
    return f"{scheme}:{prefix}/{rest}" if sep else f"{prefix}/{uri}"


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
    return mounted


class Mount:
    """One server mounted on another, and what it registered there."""

    def __init__(self, outer: Any, inner: Any, prefix: str | None) -> None:
        self.outer = outer
        self.inner = inner
        self.prefix = prefix
        self.proxied = hasattr(inner, "upstream_for")
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
            return
        if kind != "tools":
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return
        task = loop.create_task(self.sync_proxied())
        self._syncing.add(task)
        task.add_done_callback(self._syncing.discard)

    async def start(self) -> None:
        await self.inner.start()
        if self.proxied:
            await self.sync_proxied()

    async def stop(self) -> None:
        await self.inner.stop()

    # ------------------------------------------------------------ a toolwire server

    def sync_local(self, kind: str | None = None) -> None:
        if self.proxied:
            return
        inner = self.inner
        if kind in (None, "tools") and hasattr(inner, "tools"):
            shown = [tool for tool in inner.tools if _shows(inner, tool)]
            self._sync_tools({tool.name: tool for tool in shown}, self._local_tool)
        if kind in (None, "resources") and hasattr(inner, "resources"):
            self._sync_readables("resources", {r.uri: r for r in inner.resources})
            self._sync_readables("templates", {t.uri_template: t for t in inner.resource_templates})
        if kind in (None, "prompts") and hasattr(inner, "prompts"):
            self._sync_prompts({p.name: p for p in inner.prompts})

    def _local_tool(self, key: str, tool: Tool) -> Tool:
        return ForwardedTool(
            running(tool),
            name=self.name(key),
            input_schema=tool.schema.input_schema,
            output_schema=tool.schema.output_schema,
            wraps_result=tool.schema.wraps_result,
            structured=tool.structured,
            needs_context=bool(tool.schema.injected),
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

    def _sync_tools(self, desired: dict[str, Any], build: Any) -> None:
        """Register what ``desired`` (inner id -> source) holds and drop what it no longer
        does; a source that changed (another object, another definition) is built again."""
        outer, done = self.outer, self.registered["tools"]
        for key, (source, name) in list(done.items()):
            if desired.get(key) is not source:
                del done[key]
                if outer.get_tool(name) is not None:
                    outer.remove_tool(name)
        rules = rules_of(outer)
        for key, source in desired.items():
            if key in done:
                continue
            tool = rules.apply(build(key, source))
            outer.add_tool(tool)
            done[key] = (source, tool.name)

    def _sync_readables(self, kind: str, desired: dict[str, Any]) -> None:
        outer, done = self.outer, self.registered[kind]
        for key, (source, uri) in list(done.items()):
            if desired.get(key) is not source:
                del done[key]
                outer.remove_resource(uri)
        for key, source in desired.items():
            if key in done:
                continue
            item = copy.copy(source)
            if kind == "resources":
                item.uri = self.uri(key)
            else:
                from ..resources.uri_template import UriTemplate

                item.uri_template = self.uri(key)
                item.template = UriTemplate(item.uri_template)
            item.definition = item._definition()
            outer.add_resource(item)
            done[key] = (source, self.uri(key))

    def _sync_prompts(self, desired: dict[str, Any]) -> None:
        outer, done = self.outer, self.registered["prompts"]
        for key, (source, name) in list(done.items()):
            if desired.get(key) is not source:
                del done[key]
                outer.remove_prompt(name)
        for key, source in desired.items():
            if key in done:
                continue
            prompt = copy.copy(source)
            prompt.name = self.name(key)
            prompt.definition = prompt._definition()
            outer.add_prompt(prompt)
            done[key] = (source, prompt.name)

    # ------------------------------------------------------------ a proxy

    async def sync_proxied(self) -> None:
        """List the upstream's tools (through the proxy) and register them."""
        import importlib

        mounted = importlib.import_module("toolwire.proxy.mounted")
        try:
            definitions = await mounted.tool_definitions(self.inner)
        except Exception as exc:  # the upstream is unreachable: its tools are not served
            logger.warning("Mounted proxy %r: cannot list its tools: %s", self.inner.name, exc)
            return
        previous = {key: source for key, (source, _) in self.registered["tools"].items()}
        desired = {}
        for definition in definitions:
            key = definition["name"]
            kept = previous.get(key)
            desired[key] = kept if kept == definition else definition

        def build(key: str, definition: Any) -> Tool:
            tool: Tool = mounted.upstream_tool(self.inner, definition, self.name(key))
            return tool

        self._sync_tools(desired, build)


def _shows(server: Any, tool: Tool) -> bool:
    """The mounted server itself would list ``tool`` (enabled, kept by its tag filters)."""
    include = getattr(server, "include_tags", None)
    exclude: frozenset[str] = getattr(server, "exclude_tags", frozenset())
    return (
        tool.enabled and (include is None or bool(tool.tags & include)) and not tool.tags & exclude
    )
