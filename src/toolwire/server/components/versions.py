"""Component versions and server-wide switches, as FastMCP 3 has them.

::

    @mcp.tool(version="1.0")
    def convert(amount: float) -> float: ...

    @mcp.tool(version="2.0")                     # the same name again: a newer version
    def convert(amount: float, currency: str = "EUR") -> float: ...

    mcp.disable(tags={"internal"})               # every component tagged "internal"
    mcp.enable(names={"debug_dump"})             # the last switch that matches wins
    mcp.enable(tags={"public"}, only=True)       # only these
    mcp.disable(keys={"tool:convert@2.0"})       # one version: 1.0 is served again

Several versions of one name coexist: listings show, and calls reach, the highest enabled
one (versions compare part by part, numbers as numbers: ``"1.10"`` is above ``"1.9"``).

A switch names components by ``names`` (their names, or resource URIs and template URI
templates), ``keys`` (``"tool:name@version"``, ``"resource:uri@"`` for an unversioned one),
``tags`` and ``components`` (``"tool"``, ``"resource"``, ``"template"``, ``"prompt"``); a
component matches when it meets every criterion given. Switches apply to the components
registered before and after them, in the order they were made, and ``enable_tool(name)``
and the like still switch one component directly.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from ...errors import RegistrationError

KINDS = {"tool": "tool", "resource": "resource", "template": "template", "prompt": "prompt"}
_PART = re.compile(r"(\d+)|(\D+)")


@dataclass(frozen=True)
class Switch:
    """One ``mcp.enable``/``mcp.disable``: what it sets, and what it matches."""

    enable: bool
    names: frozenset[str] | None = None
    keys: frozenset[str] | None = None
    tags: frozenset[str] | None = None
    everything: bool = False  # enable(..., only=True): first, everything off

    def matches(self, kind: str, key: str, item: Any) -> bool:
        if self.everything:
            return True
        if self.names is not None and key not in self.names and item.name not in self.names:
            return False
        if self.keys is not None and f"{kind}:{key}@{item.version or ''}" not in self.keys:
            return False
        return self.tags is None or bool(item.tags & self.tags)


def order(version: str | None) -> tuple[Any, ...]:
    """How versions sort: part by part, numbers as numbers, a leading ``v`` ignored; no
    version sorts below every version."""
    if version is None:
        return ()
    text = version[1:] if version[:1] in "vV" and version[1:2].isdigit() else version
    return tuple(
        (0, int(number), "") if number else (1, 0, word)
        for number, word in _PART.findall(text)
        if number or word.strip(".-_")
    )


def kind_of(registry: Any) -> str:
    """A registry's kind as switches and keys name it."""
    if registry.noun == "resource template":
        return "template"
    return str(registry.kind).rstrip("s")


def _switched(registry: Any, key: str, item: Any) -> None:
    kind = kind_of(registry)
    for switch in registry.switches:
        if switch.matches(kind, key, item):
            item.enabled = switch.enable


def admit(registry: Any, key: str, item: Any) -> None:
    """Add ``item`` under ``key``: after the server-wide switches, and as another version
    when a component of that key is registered already."""
    _switched(registry, key, item)
    current = registry.items.get(key)
    if current is None:
        registry.items[key] = item
        return
    every = registry.versions.get(key) or [current]
    if item.version is None or any(other.version in (None, item.version) for other in every):
        if item.version is None or current.version is None:
            raise RegistrationError(f"A {registry.noun} {key!r} is already registered")
        raise RegistrationError(
            f"A {registry.noun} {key!r} with version {item.version!r} is already registered"
        )
    registry.versions[key] = [*every, item]
    pick(registry, key)


def pick(registry: Any, key: str) -> None:
    """Serve the highest enabled version of ``key`` (the highest, when none is)."""
    every = registry.versions[key]
    enabled = [item for item in every if item.enabled] or every
    registry.items[key] = max(enabled, key=lambda item: order(item.version))


def _set(values: str | Iterable[str] | None, what: str) -> frozenset[str] | None:
    if values is None:
        return None
    if isinstance(values, str):
        values = (values,)
    found = frozenset(values)
    if not all(isinstance(value, str) for value in found):
        raise TypeError(f"{what} are strings")
    return found


def switch(
    server: Any,
    enable: bool,
    *,
    names: str | Iterable[str] | None = None,
    keys: str | Iterable[str] | None = None,
    version: Any = None,
    tags: str | Iterable[str] | None = None,
    components: str | Iterable[str] | None = None,
    only: bool = False,
) -> None:
    """``mcp.enable``/``mcp.disable``: add the switch to each registry of ``components``
    and apply it to what is registered; listings change and clients are told."""
    if version is not None:
        raise TypeError(
            "version= (a VersionSpec) is not supported: name the versions with "
            "keys={'tool:name@1.0', ...} instead"
        )
    kinds = _set(components, "components")
    unknown = sorted((kinds or frozenset()) - set(KINDS))
    if unknown:
        raise ValueError(
            f"Unknown component kind(s) {unknown}: use 'tool', 'resource', 'template' or 'prompt'"
        )
    made = Switch(enable, _set(names, "names"), _set(keys, "keys"), _set(tags, "tags"))
    switches = [Switch(False, everything=True), made] if only else [made]
    for registry in registries(server):
        if kinds is not None and kind_of(registry) not in kinds:
            continue
        registry.switches.extend(switches)
        for key in list(registry.items):
            for item in registry.versions.get(key) or [registry.items[key]]:
                for one in switches:
                    if one.matches(kind_of(registry), key, item):
                        item.enabled = one.enable
            if key in registry.versions:
                pick(registry, key)
        registry.touch()


def registries(server: Any) -> list[Any]:
    """The server's registries: tools, resources, templates, prompts."""
    found = [getattr(server, "tool_registry", None)]
    for name in ("resource_registry", "template_registry", "prompt_registry"):
        found.append(getattr(server, name, None))
    return [registry for registry in found if registry is not None]
