"""The client's roots on the server side: reacting to ``notifications/roots/list_changed``.

A tool reads the roots with ``await ctx.list_roots()``. A legacy client that declared
``roots: {listChanged: true}`` tells the server when its roots change; handlers registered
with ``@mcp.on_roots_changed`` then get the new list (toolwire asks for it with
``roots/list``). 2026-07-28 has no such notification: a tool asks each time it needs them.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections.abc import Callable
from typing import Any

from ..inputs import Root, roots_result
from ..session import ServerConnection

logger = logging.getLogger("toolwire")

RootsHandler = Callable[[list[Root]], Any]
_refreshing: set[asyncio.Task[None]] = set()  # held until done (the loop keeps weak refs)


def roots_changed(connection: ServerConnection, handlers: list[RootsHandler]) -> None:
    """The client said its roots changed: fetch them and pass them to ``handlers``."""
    capabilities = connection.client_capabilities or {}
    if not handlers or connection.features is None or "roots" not in capabilities:
        return
    task = asyncio.ensure_future(_refresh(connection, list(handlers)))
    _refreshing.add(task)
    task.add_done_callback(_refreshing.discard)


async def _refresh(connection: ServerConnection, handlers: list[RootsHandler]) -> None:
    try:
        roots = roots_result(await connection.request("roots/list", {}))
    except Exception as exc:
        logger.warning("Could not list the client's roots after it said they changed: %s", exc)
        return
    for handler in handlers:
        try:
            outcome = handler(roots)
            if inspect.isawaitable(outcome):
                await outcome
        except Exception:
            logger.exception("A roots-changed handler failed")
