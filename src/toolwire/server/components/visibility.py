"""Per-session visibility: a handler shows or hides components for its own session.

::

    @mcp.tool(tags={"admin"})
    def drop_table(name: str) -> str: ...

    mcp.disable_tool("drop_table")  # hidden from every session, until one unlocks it

    @mcp.tool()
    async def unlock(password: str, ctx: Context) -> str:
        if password != SECRET:
            raise ToolError("Wrong password")
        await ctx.enable_components(tags={"admin"})   # this session alone sees them now
        return "Admin tools unlocked"

``ctx.enable_components(names, tags=..., kinds=...)`` and ``ctx.disable_components(...)``
add a rule to the calling legacy session (2024-11-05 ... 2025-11-25): components of
``kinds`` (``"tools"``, ``"resources"``, ``"prompts"``; all by default) named in ``names``
(a tool's or prompt's name, a resource's URI, a template's URI template) or carrying one of
``tags`` are shown, or hidden, for that session; the last rule naming a component decides,
else the server-wide state (``enable_tool``/``disable_tool``...). ``ctx.reset_components()``
forgets the session's rules. Access rules (scopes, ``auth``, ``visibility=``) and the
server's tag filters still apply: a rule never shows a component its caller may not use.

A list whose visible set changed is announced to that session alone
(``notifications/<kind>/list_changed``, on the stream of the call that changed it), when the
session was offered that list. Other sessions see nothing change.

2026-07-28 has no sessions: every request stands alone (stateless). Over HTTP there is
nothing to attach the rules to, and the call is refused with a :class:`~toolwire.ToolError`
saying so (use ``enable_tool``/``disable_tool`` for everyone, or ``Server(visibility=...)``
for a rule on the caller). A stdio (or in-memory) connection has one client for its whole
life, so on 2026-07-28 the connection holds the rules, as a legacy session does; its
listings are then private to it (``cacheScope``), and a change is announced on its
``subscriptions/listen`` streams that asked for that list. A server without component registries (the low-level server, a proxy) has
nothing for the rules to hide. The rules live with the connection in this process: a legacy HTTP session
continued by another worker, or an app with ``stateless=True``, does not keep them.
"""

from __future__ import annotations

from collections.abc import Iterable

from ...errors import ToolError
from ..request import Connection, Request, Rule
from .registry import LIST_CHANGES

KINDS = tuple(LIST_CHANGES)


def rule(
    enable: bool,
    names: str | Iterable[str],
    tags: str | Iterable[str],
    kinds: str | Iterable[str] | None,
) -> Rule:
    """A session rule, its arguments checked."""
    named = frozenset((names,) if isinstance(names, str) else names)
    tagged = frozenset((tags,) if isinstance(tags, str) else tags)
    if not named and not tagged:
        raise ValueError("Name the components (names=...) or their tags (tags=...)")
    kinds_set = None
    if kinds is not None:
        kinds_set = frozenset((kinds,) if isinstance(kinds, str) else kinds)
        unknown = sorted(kinds_set - set(KINDS))
        if unknown:
            raise ValueError(f"Unknown component kinds {unknown}: use {', '.join(KINDS)}")
    return enable, named, tagged, kinds_set


def refuse_stateless(request: Request) -> None:
    """2026-07-28 requests over HTTP belong to no session: nothing can hold per-session
    rules (a stdio connection can: it has one client)."""
    if request.features.modern:
        from ...transports.http_trace import current_request  # lazy: only over HTTP

        if current_request.get() is not None:
            raise ToolError(
                "Per-session visibility needs a session, and a 2026-07-28 request over "
                "HTTP belongs to none: use enable_tool/disable_tool (for everyone) or "
                "Server(visibility=...)"
            )


def visible_keys(connection: Connection, request: Request, kind: str) -> list[str]:
    """The keys of the ``kind`` components ``request`` sees, under its current rules."""
    registries = getattr(connection.server, "registries", {}).get(kind, ())
    return [registry.key(item) for registry in registries for item in registry.visible(request)]


def change(connection: Connection, request: Request, added: Rule | None) -> None:
    """Add a rule to the session's (None: forget them all), on the event loop, and tell
    the session, alone, of each list whose visible set changed."""
    rules = None if added is None else (*(connection.rules or ()), added)
    before = {kind: visible_keys(connection, request, kind) for kind in KINDS}
    connection.rules = rules
    request.rules = rules  # the rest of this call sees the change too
    offered = connection.offered
    for kind in KINDS:
        if visible_keys(connection, request, kind) == before[kind]:
            continue
        filter_key, method = LIST_CHANGES[kind]
        if request.features.modern:  # no session to notify: the listen streams that asked
            tell = getattr(connection, "tell_listeners", None)
            if tell is not None:
                tell(filter_key, method)
        elif offered is None or kind in offered:
            connection.notify(method, None, related=request.id)
