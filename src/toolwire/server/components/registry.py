"""One registry for every kind of component: tools, resources, resource templates, prompts.

A :class:`Registry` is a keyed collection of :class:`~toolwire.components.Component` (keyed
by a tool's or prompt's name, a resource's URI, a template's URI template) that does, the
same way for every kind:

* add, remove and look up, in registration order;
* enable and disable (a disabled component leaves its list and becomes unknown), for
  everyone or, through session rules (:func:`session_enabled`), for one legacy session;
* visibility and access through one check, :meth:`Registry.allows`: the caller's token
  covers the component's ``scopes``, its ``auth`` predicate accepts the caller, and the
  owner's own rule (``rule``: a ``visibility=`` predicate, an app's audience) agrees;
* listing pages, the shown components cached until the set changes;
* change notification: every change calls the owner's ``changed`` hook (the server's
  ``list_changed`` for the kind).

The server's decorator API (``@mcp.tool``, ``@mcp.resource``, ``@mcp.prompt`` and their
``add_*``/``remove_*``/``get_*``/``enable_*``/``disable_*``) is a thin layer over it.
"""

from __future__ import annotations

import base64
import binascii
import functools
from collections.abc import Callable, Iterable, Sequence
from operator import attrgetter
from typing import Any, Generic, TypeVar

from ... import jsonrpc
from ...auth.tokens import may_use
from ...components import Component
from ...errors import RPCError
from ..request import JSON, Request, Rule

C = TypeVar("C", bound=Component)
_NO_TAGS: frozenset[str] = frozenset()

# Each list that can change: its subscriptions/listen filter key and its notification.
LIST_CHANGES = {
    "tools": ("toolsListChanged", "notifications/tools/list_changed"),
    "resources": ("resourcesListChanged", "notifications/resources/list_changed"),
    "prompts": ("promptsListChanged", "notifications/prompts/list_changed"),
}


def encode_cursor(position: str) -> str:
    return base64.urlsafe_b64encode(position.encode()).decode().rstrip("=")


def decode_cursor(cursor: str) -> str:
    try:
        position = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode()
    except (binascii.Error, UnicodeDecodeError, ValueError):
        raise RPCError(jsonrpc.INVALID_PARAMS, "Invalid cursor") from None
    if encode_cursor(position) != cursor:  # lenient base64 would accept altered cursors (PG-05)
        raise RPCError(jsonrpc.INVALID_PARAMS, "Invalid cursor")
    return position


def page_bounds(
    page_size: int | None, keys: Sequence[str], cursor: str | None
) -> tuple[int, int, str | None]:
    """The slice ``[start:end]`` of a listing (items named by ``keys``) that ``cursor`` asks
    for, and the cursor of the next page (None on the last). A cursor names the first item
    of its page, so it stays valid while other items come and go."""
    start = 0
    if cursor:
        position = decode_cursor(cursor)
        if position not in keys:
            raise RPCError(jsonrpc.INVALID_PARAMS, "Invalid cursor")
        start = keys.index(position)
    end = len(keys) if page_size is None else min(len(keys), start + page_size)
    return start, end, encode_cursor(keys[end]) if end < len(keys) else None


def unknown(what: str, name: str, known: Sequence[str]) -> RPCError:
    """-32602 for an unknown tool or prompt (``what``), with the closest name ``known`` (to
    the caller) as a hint (TL-25)."""
    import difflib  # lazy: only for a 'did you mean'

    message = f"Unknown {what}: {name!r}."
    close = difflib.get_close_matches(name, known, n=1, cutoff=0.6)
    if close:
        message += f" Did you mean {close[0]!r}?"
    return RPCError(jsonrpc.INVALID_PARAMS, message)


def decorator(add: Callable[..., Any], name: Any, options: dict[str, Any]) -> Any:
    """What ``@mcp.tool`` and ``@mcp.prompt`` are: bare (``name`` is the function), called
    (``@mcp.tool()``), or with a name and options; ``add(fn, name=..., **options)``
    registers."""
    if callable(name):
        add(name)
        return name
    name = options.pop("name", name)

    def register(fn: Any) -> Any:
        add(fn, name=name, **options)
        return fn

    return register


def session_enabled(rules: Sequence[Rule], kind: str, key: str, item: Component) -> bool:
    """Whether ``item`` is enabled for a session with these rules, each ``(enable, names,
    tags, kinds)``: the last rule of its kind (``kinds`` None: every kind) that names its key
    or one of its tags decides, else the server-wide ``enabled``."""
    enabled = item.enabled
    for enable, names, tags, kinds in rules:
        if (kinds is None or kind in kinds) and (key in names or item.tags & tags):
            enabled = enable
    return enabled


class Registry(Generic[C]):
    """The components of one kind, by key, in registration order."""

    # Which components the owner's rule may refuse (None: every one), and what listings
    # cache: class-level defaults, read only by listings.
    ruled: Callable[[C], bool] | None = None
    _shown: list[C] | None = None
    _guarded = False
    _definitions: list[JSON] | None = None

    def __init__(
        self, kind: str, key: str, noun: str, changed: Callable[[], None], owner: Any = None
    ) -> None:
        self.kind = kind  # the list it belongs to: "tools", "resources" or "prompts"
        self.key: Callable[[C], str] = _getter(key)  # the attribute that names one
        self.noun = noun  # how messages name one: "tool named", "resource", ...
        self.changed = changed
        self.owner = owner  # the server whose scope hierarchy access checks follow
        self.items: dict[str, C] = {}
        # Read by every lookup (find): on the instance, where they are found at once.
        # Tag filters (tools: Server(include_tags=..., exclude_tags=...)).
        self.include_tags: frozenset[str] | None = None
        self.exclude_tags: frozenset[str] = _NO_TAGS
        # The owner's access rule (None: none).
        self.rule: Callable[[C, Request], bool] | None = None
        # Server-wide switches, in order (mcp.enable/disable: toolwire.server.components.versions),
        # and every version of the names registered more than once.
        self.switches: list[Any] = []
        self.versions: dict[str, list[C]] = {}

    def scope_hierarchy(self) -> Any:
        """Which scopes imply which (AU-26): the owner's, if it has one."""
        return getattr(self.owner, "scope_hierarchy", None)

    # ------------------------------------------------------------ the collection

    def add(self, item: C) -> C:
        key = self.key(item)
        if key in self.items or self.switches:
            # another version of it, or server-wide switches (mcp.disable(tags=...)) to
            # apply: toolwire.server.components.versions (loaded by the servers that use either)
            from .versions import admit  # lazy: component versions, only for a versioned component

            admit(self, key, item)
        else:
            self.items[key] = item
        self.touch()
        return item

    def remove(self, key: str) -> C:
        item = self.items.pop(key, None)
        if item is None:
            raise KeyError(f"No {self.noun} {key!r}")
        self.versions.pop(key, None)
        self.touch()
        return item

    def get(self, key: str) -> C | None:
        return self.items.get(key)

    def __iter__(self) -> Any:
        return iter(self.items.values())

    def __len__(self) -> int:
        return len(self.items)

    def set_enabled(self, key: str, enabled: bool) -> None:
        """Enable or disable a component for everyone; a change is announced."""
        item = self.items.get(key)
        if item is None:
            raise KeyError(f"No {self.noun} {key!r}")
        if item.enabled != enabled:
            item.enabled = enabled
            if key in self.versions:  # another version may take its place
                # lazy: component versions, only for a versioned component
                from .versions import pick

                pick(self, key)
            self.touch()

    def touch(self) -> None:
        """The set changed: forget what was cached and tell the owner."""
        self._shown = None
        self._definitions = None
        self.changed()

    # ------------------------------------------------------------ visibility and access

    def shown(self) -> list[C]:
        """Enabled components that pass the tag filters (the same for every request)."""
        if self._shown is None:
            self._shown = [item for item in self.items.values() if self.shows(item)]
            ruled = self.ruled
            self._guarded = any(
                item.scopes
                or item.auth is not None
                or (self.rule is not None and (ruled is None or ruled(item)))
                or _mounted_rule(item) is not None
                for item in self._shown
            )
        return self._shown

    @property
    def guarded(self) -> bool:
        """Some shown component may be refused to some caller: listings depend on who asks."""
        self.shown()
        return self._guarded

    def shows(self, item: C, rules: Sequence[Rule] | None = None) -> bool:
        """``item`` is enabled (for a session with ``rules``) and passes the tag filters."""
        if rules:
            if not session_enabled(rules, self.kind, self.key(item), item):
                return False
        elif not item.enabled:
            return False
        tags = item.tags
        include = self.include_tags
        return (include is None or bool(tags & include)) and not tags & self.exclude_tags

    def allows(self, item: C, request: Request | None) -> bool:
        """``request``'s caller may use ``item`` (no request: the server's own code, which
        may use every component): the one access check of every kind."""
        if request is None:
            return True
        if (item.scopes or item.auth is not None) and not may_use(
            request.identity, item, self.scope_hierarchy()
        ):
            return False
        mounted = _mounted_rule(item)
        if mounted is not None and not mounted(item, request):
            return False
        return self.rule is None or self.rule(item, request)

    def visible(self, request: Request | None) -> list[C]:
        """The components ``request`` may see and use, in registration order."""
        rules = request.rules if request is not None else None
        if rules:
            items: Iterable[C] = (i for i in self.items.values() if self.shows(i, rules))
        else:
            items = self.shown()
            if not self._guarded:
                return self._shown  # type: ignore[return-value]
        return [item for item in items if self.allows(item, request)]

    def find(self, key: str, request: Request | None) -> C | None:
        """The component ``key`` if ``request`` may see and use it, else None."""
        item = self.items.get(key)
        if (
            item is not None
            and self.shows(item, request.rules if request is not None else None)
            and self.allows(item, request)
        ):
            return item
        return None

    def definitions(self, request: Request) -> tuple[Any, Sequence[JSON]]:
        """The definitions ``request`` may see, with a key naming that set (None when every
        request sees the same: then the list is cached until the set changes)."""
        shown = self.shown()
        if not self._guarded and not request.rules:
            if self._definitions is None:
                self._definitions = [item.definition for item in shown]
            return None, self._definitions
        items = self.visible(request)
        return tuple(map(self.key, items)), [item.definition for item in items]

    def page(
        self,
        request: Request,
        cursor: str | None,
        page_size: int | None,
        field: str,
        shape: Callable[[JSON, Any], JSON],
    ) -> tuple[JSON, bool]:
        """One page of the listing (``field``: the result's key, each definition shaped by
        ``shape`` for the request's revision), and whether it depends on who asks."""
        listing, definitions = self.definitions(request)
        keys = [self.key(item) for item in self.visible(request)] if listing is None else listing
        start, end, after = page_bounds(page_size, keys, cursor)
        features = request.features
        result: JSON = {field: [shape(d, features) for d in definitions[start:end]]}
        if after is not None:
            result["nextCursor"] = after
        return result, listing is not None


@functools.cache
def _getter(key: str) -> Callable[[Any], str]:
    """The getter of a component's ``key`` attribute, one per attribute name."""
    return attrgetter(key)


def _mounted_rule(item: Any) -> Callable[[Any, Request], bool] | None:
    """The access rule of the server ``item`` was mounted from (``mcp.mount``), while that
    server has one (its ``visibility=`` predicate)."""
    rule = getattr(item, "mounted_rule", None)
    return rule if rule is not None and rule.active else None
