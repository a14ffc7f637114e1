"""What the client accepts from a server: every answer is checked for the shape the client
relies on, and one that is malformed raises :class:`~toolwire.ClientError` naming what was
wrong (never a ``KeyError`` or ``AttributeError`` from deep inside the client).

Also the revision to ask again in after the server refused one (:func:`agreed_version`), and
the deadline of one request (:class:`Deadline`), which covers writing the request as
well as waiting for its answer.
"""

from __future__ import annotations

import asyncio
from typing import Any

from .. import jsonrpc
from ..errors import ClientError, ServerError
from ..protocol.revisions import REVISIONS

JSON = dict[str, Any]


def result_of(method: str, response: Any) -> JSON:
    """The ``result`` of ``response`` to ``method``; a JSON-RPC error raises
    :class:`~toolwire.ServerError`, a malformed answer :class:`~toolwire.ClientError`."""
    if "error" in response:
        error = response["error"]
        if not isinstance(error, dict) or not isinstance(error.get("code"), int):
            raise ClientError(
                f"The server answered {method} with a malformed error: {error!r:.200}"
            )
        raise ServerError(error["code"], str(error.get("message") or ""), error.get("data"))
    if "result" not in response:
        raise ClientError(f"The server answered {method} with neither a result nor an error")
    result = response["result"]
    if not isinstance(result, dict):
        raise ClientError(
            f"The server answered {method} with a result that is not an object: {result!r:.200}"
        )
    return result


def objects(method: str, key: str, items: Any) -> list[JSON]:
    """``items`` (the ``key`` list of a ``method`` result) when it is a list of objects."""
    if not isinstance(items, list):
        raise ClientError(f"{method} answered without a {key!r} list")
    for item in items:
        if not isinstance(item, dict):
            raise ClientError(f"{method} answered with a {key!r} entry that is not an object")
    return items


def named(method: str, key: str, items: list[JSON], field: str) -> list[JSON]:
    """``items`` when each has a string ``field`` (a tool's or a prompt's ``name``)."""
    for item in items:
        if not isinstance(item.get(field), str):
            raise ClientError(f"{method} answered with a {key!r} entry without a string {field!r}")
    return items


def content_blocks(method: str, content: Any) -> list[JSON]:
    """A result's ``content``: a list of blocks, each an object with a string ``type`` (and a
    string ``text`` for text blocks)."""
    blocks = objects(method, "content", content)
    for block in blocks:
        kind = block.get("type")
        if not isinstance(kind, str):
            raise ClientError(f"{method} answered with a content block without a string 'type'")
        if kind == "text" and not isinstance(block.get("text"), str):
            raise ClientError(f"{method} answered with a text block whose 'text' is not a string")
    return blocks


class Deadline:
    """Calls back when a request's time is up: a write still blocked (a server that stopped
    reading) is interrupted by cancelling the writing task; a request already written gets
    ``asyncio.TimeoutError`` in its answer's future."""

    __slots__ = ("expired", "future", "task", "writing")

    def __init__(self, future: asyncio.Future[Any] | None, task: asyncio.Task[Any] | None):
        self.future = future
        self.task = task
        self.writing = False
        self.expired = False

    def __call__(self) -> None:
        self.expired = True
        if self.writing:
            if self.task is not None:
                self.task.cancel()
        elif self.future is not None and not self.future.done():
            self.future.set_exception(asyncio.TimeoutError())

    def interrupted(self) -> bool:
        """After a ``CancelledError`` while writing: whether this deadline caused it (the
        task's cancellation is then taken back)."""
        if not (self.expired and self.writing):
            return False
        uncancel = getattr(self.task, "uncancel", None)  # Python 3.11+
        if uncancel is not None:
            uncancel()
        return True


def agreed_version(error: ServerError, wanted: str | None) -> str | None:
    """The revision to ask again in after ``error`` (-32022, unsupported protocol version):
    ``wanted`` if the server lists it, else (nothing pinned) the newest revision both sides
    know; ``None`` when there is none or the error is another one."""
    if error.code != jsonrpc.UNSUPPORTED_PROTOCOL_VERSION:
        return None
    supported = error.data.get("supported") if isinstance(error.data, dict) else None
    if not isinstance(supported, list):
        return None
    if wanted is not None:
        return wanted if wanted in supported else None
    return next((v for v in reversed(REVISIONS) if v in supported), None)
