"""Lines written at the end of the read that brought them about.

A stdio writer gathers what is written in one pass of the event loop and writes it at once.
While a read is being handled (a client's lines to a stdio server, an upstream server's
answers to a proxy), what it produces is written when that read's handling ends, in the
same pass: a sequential call costs the server one pass of the loop instead of two, and a
burst of pipelined calls is still one write.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Callable

logger = logging.getLogger("toolwire")


class _Held(threading.local):
    flushes: list[Callable[[], None]] | None = None  # while a read is handled


_held = _Held()


def hold() -> bool:
    """A read is being handled: writes wait for :func:`release`. True if this call began
    the holding (the outermost read), and so must release it."""
    if _held.flushes is not None:
        return False
    _held.flushes = []
    return True


def release() -> None:
    """The read was handled: write what it produced."""
    flushes, _held.flushes = _held.flushes, None
    for flush in flushes or ():
        try:
            flush()
        except Exception:  # as the loop would report a failing callback
            logger.exception("Failed to write")


def soon(loop: asyncio.AbstractEventLoop, flush: Callable[[], None]) -> None:
    """Call ``flush`` when the read being handled ends, or on the loop's next pass."""
    flushes = _held.flushes
    if flushes is None:
        loop.call_soon(flush)
    else:
        flushes.append(flush)
