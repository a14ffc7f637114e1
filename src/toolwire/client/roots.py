"""Roots: the directories and files the client lets servers work in (``roots/list``).

``Client(roots=[...])`` declares the ``roots`` capability and answers ``roots/list``, whether
the server asks with a request (legacy revisions) or puts the question in an
``InputRequiredResult`` (2026-07-28). A root is a ``file://`` URI, given as a string or as
a dict ``{"uri": ..., "name": ...}``. :meth:`ClientRoots.set_roots` changes them and, on a
legacy session, sends ``notifications/roots/list_changed`` (2026-07-28 has no such
notification: servers ask again when they need to).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

JSON = dict[str, Any]
RootLike = str | JSON

__all__ = ["ClientRoots", "roots_of"]


def roots_of(roots: Iterable[RootLike]) -> list[JSON]:
    """The ``Root`` objects for ``roots``; ``ValueError`` names the first one that is not a
    ``file://`` URI (the spec allows no other scheme for now) or has a bad ``name``."""
    if isinstance(roots, (str, dict)):
        raise ValueError("roots is a list of roots, not a single root")
    result = []
    for root in roots:
        entry: JSON = {"uri": root} if isinstance(root, str) else dict(root)
        uri = entry.get("uri")
        if not isinstance(uri, str) or not uri.startswith("file://"):
            raise ValueError(f"A root must be a file:// URI, not {uri!r}")
        if "name" in entry and not isinstance(entry["name"], str):
            raise ValueError(f"The name of root {uri!r} must be a string")
        unknown = set(entry) - {"uri", "name", "_meta"}
        if unknown:
            raise ValueError(f"Root {uri!r} has unknown fields: {', '.join(sorted(unknown))}")
        result.append(entry)
    return result


class ClientRoots:
    """The roots half of :class:`~toolwire.client.Client` (state set up by its ``__init__``)."""

    if TYPE_CHECKING:  # provided by Client
        _roots: list[JSON] | None
        _transport: Any
        ended: Any

        @property
        def modern(self) -> bool: ...

        async def _notify(
            self, method: str, params: JSON | None = None, timeout: float | None = None
        ) -> None: ...

    @property
    def roots(self) -> list[JSON]:
        """The roots the client offers (a copy); empty when it offers none."""
        return [dict(root) for root in self._roots or []]

    async def set_roots(self, roots: Iterable[RootLike]) -> None:
        """Offer ``roots`` from now on (the client must have been given ``roots=``, which
        declares the capability). On a legacy session the server is told with
        ``notifications/roots/list_changed``; on 2026-07-28 it sees them the next time
        it asks."""
        if self._roots is None:
            raise ValueError("set_roots needs a client created with roots= (even roots=[])")
        self._roots = roots_of(roots)
        if self._transport is not None and self.ended is None and not self.modern:
            await self._notify("notifications/roots/list_changed")

    def _list_roots(self, params: JSON) -> JSON:
        """The answer to ``roots/list``."""
        return {"roots": self.roots}
