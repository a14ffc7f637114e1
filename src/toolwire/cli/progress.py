"""A spinner on stderr while a command waits (importing a server, connecting, a slow tool).

It shows only when stderr is a terminal and only after a short delay, so quick commands print
nothing extra, and pipes, log files and MCP hosts never see it.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import sys
import threading
from collections.abc import Iterator
from typing import TextIO

FRAMES = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"
PLAIN_FRAMES = "|/-\\"
DELAY = 0.25  # work done sooner than this shows no spinner
INTERVAL = 0.1


@contextlib.contextmanager
def spinner(label: str, stream: TextIO | None = None) -> Iterator[None]:
    """``with spinner("Loading server.py"): ...`` animates ``label`` until the block ends,
    then erases its line."""
    out = stream if stream is not None else sys.stderr
    if not _interactive(out):
        yield
        return
    done = threading.Event()
    frames = FRAMES if _can_encode(out, FRAMES) else PLAIN_FRAMES

    def spin() -> None:
        if done.wait(DELAY):
            return
        for frame in itertools.cycle(frames):
            out.write(f"\r{frame} {label}")
            out.flush()
            if done.wait(INTERVAL):
                break
        out.write("\r\033[K")  # leave the line as it was
        out.flush()

    thread = threading.Thread(target=spin, name="toolwire-spinner", daemon=True)
    thread.start()
    try:
        yield
    finally:
        done.set()
        thread.join()


def _interactive(stream: TextIO) -> bool:
    try:
        return stream.isatty() and os.environ.get("TERM") != "dumb"
    except (AttributeError, ValueError):  # no isatty, or a closed stream
        return False


def _can_encode(stream: TextIO, text: str) -> bool:
    try:
        text.encode(getattr(stream, "encoding", None) or "ascii")
    except (UnicodeEncodeError, LookupError):
        return False
    return True
