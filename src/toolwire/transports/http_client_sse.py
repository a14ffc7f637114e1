"""Reading the server's SSE streams on the client side, and resuming them (2025-11-25 and
earlier: SEP-1699, HT-11, HT-12, HT-20).

A server may prime a stream with an event that has an ``id`` (and maybe ``retry``) and no
data, and close the connection whenever it likes; the client then waits ``retry``
milliseconds (HT-12: it MUST) and asks for the rest with a GET carrying ``Last-Event-ID``.
:class:`Cursor` keeps what a stream said about itself (the last event id, the reconnection
time) across those connections; :func:`events` reads one connection.

On 2026-07-28 there is no resumption: closing a response stream cancels its request.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import orjson

DEFAULT_RETRY = 1.0  # seconds before reconnecting when the server gave no retry field
MAX_RETRY = 60.0  # a larger retry is cut to this
MAX_IDLE_RECONNECTS = 5  # reconnections in a row that bring no event at all


class TooLarge(Exception):
    """An answer (a body or an SSE event) is larger than the transport accepts."""


@dataclass
class Cursor:
    """Where a resumable stream is: the id of its last event and its reconnection time."""

    last_id: str | None = None
    retry: float | None = None  # seconds, from the last ``retry`` field
    idle: int = 0  # reconnections in a row without an event

    @property
    def delay(self) -> float:
        return min(self.retry if self.retry is not None else DEFAULT_RETRY, MAX_RETRY)

    def resumable(self) -> bool:
        return self.last_id is not None and self.idle < MAX_IDLE_RECONNECTS


async def events(response: Any, limit: int, cursor: Cursor | None = None) -> AsyncIterator[bytes]:
    """The ``data`` of each SSE event in ``response`` (events without data, like priming
    events, are not yielded but their ``id`` counts); :class:`TooLarge` when a line or an
    event passes ``limit`` bytes. ``cursor`` learns the ``id`` and ``retry`` fields."""
    pending = b""
    lines: list[bytes] = []
    size = 0
    event_id: bytes | None = None
    async for chunk in response.aiter_bytes():
        pending += chunk
        if pending.endswith(b"\r"):  # maybe half of a CRLF: wait for the next piece
            text, pending = pending[:-1], b"\r"
        else:
            text, pending = pending, b""
        pieces = text.replace(b"\r\n", b"\n").replace(b"\r", b"\n").split(b"\n")
        pending = pieces.pop() + pending  # the unfinished last line
        if len(pending) > limit:
            raise TooLarge
        for line in pieces:
            if not line:  # the end of an event
                if cursor is not None and event_id is not None:
                    cursor.last_id = event_id.decode(errors="replace")
                    cursor.idle = 0
                event_id = None
                if any(lines):
                    if cursor is not None:
                        cursor.idle = 0
                    yield b"\n".join(lines)
                lines, size = [], 0
            elif line.startswith(b"data:"):
                value = _value(line, 5)
                size += len(value) + 1
                if size > limit:
                    raise TooLarge
                lines.append(value)
            elif line.startswith(b"id:") and b"\0" not in line:
                event_id = _value(line, 3)
            elif line.startswith(b"retry:") and cursor is not None:
                value = _value(line, 6)
                if value.isdigit():
                    cursor.retry = int(value) / 1000
            # comments (":") and the other fields (event) carry nothing the client uses
    if pending.rstrip(b"\r").startswith(b"data:"):
        lines.append(_value(pending.rstrip(b"\r"), 5))
    if any(lines):
        yield b"\n".join(lines)


def _value(line: bytes, start: int) -> bytes:
    value = line[start:]
    return value[1:] if value.startswith(b" ") else value


def answers(data: bytes | None, mid: Any) -> bool:
    """Whether ``data`` is the answer (a result or an error) to request ``mid``."""
    if data is None:
        return False
    try:
        message = orjson.loads(data)
    except orjson.JSONDecodeError:
        return False
    return (
        isinstance(message, dict)
        and "method" not in message
        and message.get("id") == mid
        and ("result" in message or "error" in message)
    )
