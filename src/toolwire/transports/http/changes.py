"""Changes between workers that share a session store: what one worker's server changes (a
tool, resource or prompt list; a resource's contents) is published, and what the others
published is told to this worker's clients."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, Iterable
from typing import Any

from ..store.contract import SessionStore
from .session import Session

logger = logging.getLogger("toolwire")

JSON = dict[str, Any]


class ChangeRelay:
    """``publish`` is the server's change hook; ``received`` the store's listener."""

    def __init__(
        self, server: Any, store: SessionStore, sessions: Callable[[], Iterable[Session]]
    ) -> None:
        self.server = server
        self.store = store
        self.sessions = sessions

    def publish(self, event: JSON) -> None:
        task = asyncio.ensure_future(self.store.publish_change(event))
        task.add_done_callback(_log_failure)

    def received(self, event: JSON) -> None:
        """Another worker changed a list or updated a resource (tell this worker's clients),
        or passed on a request for one of this worker's tasks."""
        uri = event.get("updated")
        if "list" in event:
            with contextlib.suppress(KeyError, TypeError):  # a kind this server does not know
                self.server.announce_list_changed(event["list"])
        elif "task" in event:  # an answer or a cancel for a task this worker runs
            tasks = getattr(self.server, "tasks", None)
            if tasks is not None:
                tasks.received(event)
        elif isinstance(uri, str) and hasattr(self.server, "announce_resource_updated"):
            task = asyncio.ensure_future(self._updated(uri))
            task.add_done_callback(_log_failure)

    async def _updated(self, uri: str) -> None:
        # A subscription may have been made through another worker: the store knows.
        for session in list(self.sessions()):
            if session.standalone_open:
                state = await self.store.load_session(session.id)
                if state is not None:
                    session.restore(state)
        self.server.announce_resource_updated(uri)


def _log_failure(task: asyncio.Future[None]) -> None:
    if not task.cancelled() and task.exception() is not None:
        logger.error("Could not pass a change to other workers", exc_info=task.exception())
