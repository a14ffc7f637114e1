"""The process's standard streams while it serves stdio: the protocol's, and nobody else's.

A stdio server's stdin and stdout carry JSON-RPC and nothing else, yet everything in the
process may touch them: a ``print()`` at the top of the user's file or inside a tool, a C
library writing to descriptor 1, a subprocess a tool starts that inherits descriptor 0 and
reads what the client sent (``subprocess.run(["git", ...])`` with no ``stdin=``, a tool
that calls ``input()``). :func:`hold_stdio` moves both protocol streams to private
descriptors, points descriptor 1 (and so ``sys.stdout``) at stderr and descriptor 0 (and so
``sys.stdin``) at the null device: stray output lands on stderr, and a stray reader gets
end-of-file at once instead of the next request (the official Python SDK does the same for
stdin, after subprocesses hung servers on Windows).

``toolwire run`` holds the streams before it imports the user's file, so module-level output
is caught too; ``Server.run()`` holds them while it serves (and gives them back after).
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator

__all__ = ["held_stdio", "hold_stdio", "release_stdio", "serving_file", "waiting_hint"]

# (protocol in, protocol out, saved fd 0, saved fd 1) while held
_held: tuple[int, int, int, int] | None = None


def hold_stdio() -> tuple[int, int]:
    """Move the protocol's stdin and stdout to private descriptors (once; later calls return
    the same pair): descriptor 1 becomes stderr, descriptor 0 the null device."""
    global _held
    if _held is not None:
        return _held[0], _held[1]
    with contextlib.suppress(Exception):
        sys.stdout.flush()
    null = os.open(os.devnull, os.O_RDONLY)  # lands on descriptor 0 if that is closed
    if null == 0:  # started with descriptor 0 closed: the client sends nothing
        protocol_in, saved_in = os.dup(0), -1
    elif sys.__stdin__ is None:  # closed at start-up; what holds it now is not stdin
        protocol_in, saved_in = null, -1
    else:
        protocol_in, saved_in = os.dup(0), os.dup(0)
        os.dup2(null, 0)
        os.close(null)
    protocol_out, saved_out = os.dup(1), os.dup(1)
    os.dup2(2, 1)
    with contextlib.suppress(Exception):  # stray prints show up on stderr as they happen
        sys.stdout.reconfigure(line_buffering=True)  # type: ignore[union-attr]
    _held = (protocol_in, protocol_out, saved_in, saved_out)
    return protocol_in, protocol_out


def release_stdio() -> None:
    """Give descriptors 0 and 1 back what they were before :func:`hold_stdio`, and close
    the protocol's private ones."""
    global _held
    if _held is None:
        return
    protocol_in, protocol_out, saved_in, saved_out = _held
    _held = None
    with contextlib.suppress(Exception):
        sys.stdout.flush()
    os.close(protocol_in)
    os.close(protocol_out)
    os.dup2(saved_out, 1)
    os.close(saved_out)
    if saved_in >= 0:
        os.dup2(saved_in, 0)
        os.close(saved_in)


@contextlib.contextmanager
def held_stdio() -> Iterator[tuple[int, int]]:
    """:func:`hold_stdio` for the time of the block, unless they were held already (by
    ``toolwire run``, which keeps them until the process ends)."""
    if _held is not None:
        yield _held[0], _held[1]
        return
    fds = hold_stdio()
    try:
        yield fds
    finally:
        release_stdio()


def waiting_hint(protocol_in: int, name: str | None = None) -> None:
    """Say on stderr, when the server's stdin is a terminal (a person started it by hand),
    that it waits for an MCP client: a stdio server prints nothing of its own and would
    look hung."""
    try:
        if not os.isatty(protocol_in):
            return
    except OSError:
        return
    script = sys.argv[0] if sys.argv and sys.argv[0].endswith(".py") else None
    if _target is not None:
        script = _target
    who = f"MCP server {name!r}" if name else "This MCP server"
    browser = f"; to try it in a browser: toolwire dev {script}" if script else ""
    with contextlib.suppress(Exception):
        sys.stderr.write(
            f"{who} is waiting for an MCP client on stdin (an MCP host starts it and speaks "
            f"JSON-RPC){browser} (Ctrl+C stops it)\n"
        )
        sys.stderr.flush()


_target: str | None = None  # the FILE[:OBJECT] of ``toolwire run``, for the hint


def serving_file(target: str) -> None:
    """Name the file ``toolwire run`` serves, for :func:`waiting_hint`."""
    global _target
    _target = target
