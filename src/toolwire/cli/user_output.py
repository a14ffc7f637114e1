"""The user's code writes to stderr; the command's own output alone is on stdout.

``toolwire inspect --json FILE | jq`` must read JSON only, yet the file may ``print()`` as it
loads, and its tools or lifespan when they run in this process. While the user's code runs
(:func:`to_stderr`), descriptor 1 points at stderr, so ``print()``, ``sys.stdout`` and C
code writing to descriptor 1 land there; the command prints its result after, on the real
stdout. (``toolwire run`` serving stdio keeps the streams for the protocol for good, see
:mod:`toolwire.transports.stdio.guard`.)
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator

_depth = 0
_saved = -1  # the real stdout while diverted
_line_buffering = False  # sys.stdout's, before: while diverted, each line shows as printed


def divert() -> None:
    """Point descriptor 1 at stderr until the matching :func:`restore` (calls nest)."""
    global _depth, _saved, _line_buffering
    _depth += 1
    if _depth > 1:
        return
    _flush()
    try:
        saved = os.dup(1)
    except OSError:  # no stdout: nothing to keep apart
        return
    try:
        os.dup2(2, 1)
    except OSError:  # no stderr: stdout stays as it is
        os.close(saved)
        return
    _saved = saved
    _line_buffering = getattr(sys.stdout, "line_buffering", False)
    _reconfigure(True)


def restore() -> None:
    """Give descriptor 1 back the real stdout, after what the user's code left unflushed."""
    global _depth, _saved
    _depth = max(0, _depth - 1)
    if _depth or _saved < 0:
        return
    _flush()
    os.dup2(_saved, 1)
    os.close(_saved)
    _saved = -1
    _reconfigure(_line_buffering)


@contextlib.contextmanager
def to_stderr() -> Iterator[None]:
    """:func:`divert` for the time of the block."""
    divert()
    try:
        yield
    finally:
        restore()


def _flush() -> None:
    with contextlib.suppress(Exception):  # the user's code may have replaced or closed it
        sys.stdout.flush()


def _reconfigure(line_buffering: bool) -> None:
    with contextlib.suppress(Exception):
        sys.stdout.reconfigure(line_buffering=line_buffering)  # type: ignore[union-attr]
