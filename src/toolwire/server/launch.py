"""Who serves when a file calls ``run()``: the server, unless a program that imports the file
to serve it itself has taken the call over; and how such a program names a server in a file
(``FILE[:OBJECT]``, :func:`split_target`).

A server file that ends with a bare ``mcp.run()`` (no ``if __name__ == "__main__":`` guard)
calls it while ``toolwire run`` (or ``inspect``, ``call``, ...) imports the file. While it
imports, the command line installs a taker with :func:`taken`: ``run()`` and
``run_stdio_async()`` then hand it the server and their arguments instead of serving (the
taker raises to end the import there, so the command does what it was asked).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

Taker = Callable[[Any, str, dict[str, Any]], None]

_taker: Taker | None = None


@contextlib.contextmanager
def taken(taker: Taker) -> Iterator[None]:
    """While the block runs, ``run(transport, **options)`` calls ``taker(server, transport,
    options)`` instead of serving."""
    global _taker
    previous, _taker = _taker, taker
    try:
        yield
    finally:
        _taker = previous


def take(server: Any, transport: str, options: dict[str, Any]) -> bool:
    """Give the run to the taker, if there is one; True when it took it."""
    if _taker is None:
        return False
    _taker(server, transport, options)
    return True


def split_target(target: str) -> tuple[Path, str | None]:
    """``FILE[:OBJECT]`` -> (path, object name); a drive letter's colon is not a separator."""
    head, sep, tail = target.rpartition(":")
    if sep and head and tail.isidentifier() and not Path(target).exists():
        return Path(head), tail
    return Path(target), None
