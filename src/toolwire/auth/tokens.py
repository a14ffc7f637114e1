"""Who is calling: the verified access token, and what its scopes cover.

An :class:`AccessToken` is what a verifier makes of a bearer token once it checked it. It
never holds the token itself: what reaches tools cannot be passed on to another API
(AU-21).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class AccessToken:
    """A verified caller: ``subject`` (the user), ``client_id``, granted ``scopes``,
    ``expires_at`` (Unix seconds), and the token's ``claims`` (without the token)."""

    subject: str | None = None
    client_id: str | None = None
    scopes: frozenset[str] = frozenset()
    expires_at: int | None = None
    issuer: str | None = None
    audience: tuple[str, ...] = ()
    claims: Mapping[str, Any] = field(default_factory=dict, repr=False, compare=False)

    def __str__(self) -> str:
        return self.subject or self.client_id or "anonymous"


def covers(
    granted: Iterable[str],
    needed: Iterable[str],
    hierarchy: Mapping[str, Iterable[str]] | None = None,
) -> bool:
    """True when the ``granted`` scopes include every ``needed`` one (AU-26).

    A granted scope covers itself, the scopes ``hierarchy`` lists under it (transitively),
    and every scope it is a ``:``-prefix of (``files`` covers ``files:read``).
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
        parts = scope.split(":")
        if not any(":".join(parts[:i]) in have for i in range(1, len(parts))):
            return False
    return True


def missing(
    granted: Iterable[str],
    needed: Iterable[str],
    hierarchy: Mapping[str, Iterable[str]] | None = None,
) -> list[str]:
    """The ``needed`` scopes that ``granted`` does not cover, in their order."""
    granted = list(granted)
    return [scope for scope in needed if not covers(granted, [scope], hierarchy)]
