"""Who is calling: the verified access token, and what its scopes cover.

An :class:`AccessToken` is what a verifier makes of a bearer token once it checked it. It
never holds the token itself: what reaches tools cannot be passed on to another API
(AU-21).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from ..errors import RegistrationError


@dataclass(frozen=True)
class AccessToken:
    """A verified caller: ``subject`` (the user), ``client_id``, granted ``scopes``,
    ``expires_at`` (Unix seconds), and the token's ``claims`` (without the token).

    ``token_id`` tells apart tokens that name nobody (neither ``sub`` nor ``client_id``):
    :class:`~toolwire.auth.ResourceServer` sets it to a digest of the token, so each such
    token is a caller of its own (its sessions, rate buckets and ``requestState``), never
    a shared "anonymous" one."""

    subject: str | None = None
    client_id: str | None = None
    scopes: frozenset[str] = frozenset()
    expires_at: int | None = None
    issuer: str | None = None
    audience: tuple[str, ...] = ()
    claims: Mapping[str, Any] = field(default_factory=dict, repr=False, compare=False)
    token_id: str | None = None

    def __str__(self) -> str:
        if self.subject or self.client_id:
            return self.subject or self.client_id or ""
        return f"token:{self.token_id}" if self.token_id else "anonymous"


def _hierarchical(scope: str) -> bool:
    """``:`` separates levels only in plain scopes. A URI scope (one with a ``/``, such as
    ``https://api.example.com/files.write``, or a ``urn:``) is opaque: its scheme is no
    parent of it, so only the same scope or an explicit hierarchy covers it."""
    return "/" not in scope and scope[:4].lower() != "urn:"


def covers(
    granted: Iterable[str],
    needed: Iterable[str],
    hierarchy: Mapping[str, Iterable[str]] | None = None,
) -> bool:
    """True when the ``granted`` scopes include every ``needed`` one (AU-26).

    A granted scope covers itself, the scopes ``hierarchy`` lists under it (transitively),
    and every plain scope it is a whole ``:``-separated prefix of (``files`` covers
    ``files:read`` and ``files:read:own``, not ``filesystem``). URI scopes
    (``https://api.example.com/files.write``, ``urn:...``) have no such parents: ``https``
    does not cover them.
    """
    have = set(granted)
    if hierarchy:
        todo = list(have)
        while todo:
            for child in hierarchy.get(todo.pop(), ()):
                if child not in have:
                    have.add(child)
                    todo.append(child)
    for scope in needed:
        if scope in have:
            continue
        if not _hierarchical(scope):
            return False
        parts = scope.split(":")
        if not any(":".join(parts[:i]) in have for i in range(1, len(parts))):
            return False
    return True


class Guarded(Protocol):
    """Something only some callers may use: a tool, a resource (or template), a prompt."""

    @property
    def scopes(self) -> tuple[str, ...]: ...

    @property
    def auth(self) -> Callable[[Any], bool] | None: ...


def access_rules(
    scopes: str | Iterable[str], auth: Callable[[Any], bool] | None
) -> tuple[tuple[str, ...], Callable[[Any], bool] | None]:
    """``scopes=`` and ``auth=`` as registration gives them, checked: one scope or several
    (non-empty strings), and a predicate or None."""
    needed = (scopes,) if isinstance(scopes, str) else tuple(scopes)
    if not all(isinstance(scope, str) and scope for scope in needed):
        raise RegistrationError(f"scopes must be non-empty strings, got {needed!r}")
    if auth is not None and not callable(auth):
        raise RegistrationError(f"auth must be a function of the caller, got {auth!r}")
    return needed, auth


def may_use(
    caller: Any, item: Guarded, hierarchy: Mapping[str, Iterable[str]] | None = None
) -> bool:
    """True when ``caller`` (the request's identity: an :class:`AccessToken`, another object
    with ``scopes``, or None) may see and use ``item``: its scopes cover the item's
    ``scopes`` and the item's ``auth`` predicate accepts it. One rule for every primitive,
    so a tool, a resource and a prompt guarded alike admit the same callers."""
    if item.scopes and not covers(getattr(caller, "scopes", ()), item.scopes, hierarchy):
        return False
    return item.auth is None or bool(item.auth(caller))


def missing(
    granted: Iterable[str],
    needed: Iterable[str],
    hierarchy: Mapping[str, Iterable[str]] | None = None,
) -> list[str]:
    """The ``needed`` scopes that ``granted`` does not cover, in their order."""
    granted = list(granted)
    return [scope for scope in needed if not covers(granted, [scope], hierarchy)]
