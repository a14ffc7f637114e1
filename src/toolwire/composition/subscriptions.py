"""Subscriptions to what a mount no longer serves.

A mount registers the resources and templates of a mounted proxy (or of a server mounting
one) in the mounting server; when one of them goes (the upstream stopped listing it), the
URIs it served may have subscribers that nothing serves any more: their subscriptions end
(:func:`dropped`) and the upstream is told (:func:`unwatched`).
"""

from __future__ import annotations

from typing import Any


def dropped(server: Any, held: list[Any]) -> list[tuple[Any, str]]:
    """A list of ``server`` changed: a resource (or template) of ``held`` (an upstream's,
    registered there by a mounted proxy, or by a server mounting that mount) that is no
    longer registered served URIs some of ``server``'s sessions subscribe to. Nothing
    serves such a URI any more, so its subscriptions end: each session's record of it goes
    (its legacy subscriptions, its listen streams' ``resourceSubscriptions``). Returns the
    ``(unwatch, uri)`` to run (the upstream URI unsubscribed). A URI still served (the
    resource came back with another definition) keeps its subscribers."""
    ended: list[tuple[Any, str]] = []
    gone = [item for item in held if not item.registered_in(server)]
    if not gone:
        return ended
    subscribed = _subscribed_uris(server)
    for item in gone:
        for uri in sorted(subscribed):
            if item.serves(uri) and not server.knows(uri):
                _forget(server, uri)
                ended.append((item.unwatch, uri))
    return ended


async def unwatched(ended: list[tuple[Any, str]]) -> None:
    for unwatch, uri in ended:
        await unwatch(uri)


def _subscribed_uris(server: Any) -> set[str]:
    """The URIs some session of ``server`` subscribes to (either era)."""
    uris: set[str] = set()
    for connection in list(server._connections):
        uris.update(connection.subscriptions)
        for accepted in connection.listeners.values():
            uris.update(accepted.get("resourceSubscriptions", ()))
    return uris


def _forget(server: Any, uri: str) -> None:
    """No session of ``server`` subscribes to ``uri`` any more."""
    for connection in list(server._connections):
        connection.subscriptions.discard(uri)
        for accepted in connection.listeners.values():
            subscribed = accepted.get("resourceSubscriptions")
            if isinstance(subscribed, list) and uri in subscribed:
                kept = [u for u in subscribed if u != uri]
                if kept:
                    accepted["resourceSubscriptions"] = kept
                else:
                    del accepted["resourceSubscriptions"]
