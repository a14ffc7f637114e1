"""What a command shows on stderr while it waits (importing a server, connecting, a slow
tool): a spinner, the tool's progress and the server's log messages.

The spinner shows only when stderr is a terminal and only after a short delay, so quick
commands print nothing extra, and pipes, log files and MCP hosts never see it. Its label can
change while it spins (a tool's progress); :meth:`Status.note` prints a line above it on a
terminal, and as a plain line anywhere else.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import sys
import threading
from collections.abc import Iterator
from typing import Any, TextIO

from ..safety import strip_control

FRAMES = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"
PLAIN_FRAMES = "|/-\\"
DELAY = 0.25  # work done sooner than this shows no spinner
INTERVAL = 0.1
CLEAR = "\r\033[K"  # back to the line's start, and erase it


class Status:
    """One line of status on ``stream`` (stderr by default): ``label`` while
    :meth:`spinning`, and the lines given to :meth:`note`."""

    def __init__(self, label: str, stream: TextIO | None = None) -> None:
        self.label = label
        self.out = stream if stream is not None else sys.stderr
        self.interactive = _interactive(self.out)
        self._lock = threading.Lock()  # the spinner's thread and note() share the line
        self._drawn = False  # the spinner's line is on the terminal

    def note(self, line: str) -> None:
        """Print ``line``; on a terminal the spinner's line is erased first and comes back
        below it at the next frame."""
        with self._lock:
            self.out.write((CLEAR if self._drawn else "") + line + "\n")
            self.out.flush()
            self._drawn = False

    @contextlib.contextmanager
    def spinning(self) -> Iterator[Status]:
        """Animate the label until the block ends, then erase its line."""
        if not self.interactive:
            yield self
            return
        done = threading.Event()
        frames = FRAMES if _can_encode(self.out, FRAMES) else PLAIN_FRAMES
        width = _width(self.out)

        def spin() -> None:
            if done.wait(DELAY):
                return
            for frame in itertools.cycle(frames):
                with self._lock:
                    self.out.write(f"{CLEAR}{frame} {self.label}"[: width + len(CLEAR)])
                    self.out.flush()
                    self._drawn = True
                if done.wait(INTERVAL):
                    break
            with self._lock:
                self.out.write(CLEAR)  # leave the line as it was
                self.out.flush()
                self._drawn = False

        thread = threading.Thread(target=spin, name="toolwire-spinner", daemon=True)
        thread.start()
        try:
            yield self
        finally:
            done.set()
            thread.join()


def spinner(label: str, stream: TextIO | None = None) -> contextlib.AbstractContextManager[Status]:
    """``with spinner("Loading server.py"): ...`` animates ``label`` until the block ends."""
    return Status(label, stream).spinning()


def progress_text(progress: float, total: float | None, message: str | None) -> str:
    """``3/10 Fetching page 3``: a ``notifications/progress`` for a status line."""
    text = f"{progress:g}/{total:g}" if total else f"{progress:g}"
    return one_line(f"{text} {message}" if message else text)


def log_text(params: dict[str, Any]) -> str:
    """``[info weather] Fetching the forecast``: a ``notifications/message`` as a line."""
    data = params.get("data")
    if not isinstance(data, str):
        data = json.dumps(data, ensure_ascii=False)
    where = " ".join(str(part) for part in (params.get("level"), params.get("logger")) if part)
    return strip_control(f"[{where}] {data}").replace("\r", "")


def one_line(text: str) -> str:
    """``text`` from a server, safe for a terminal's status line."""
    return " ".join(strip_control(text).split())


def _interactive(stream: TextIO) -> bool:
    try:
        return stream.isatty() and os.environ.get("TERM") != "dumb"
    except (AttributeError, ValueError):  # no isatty, or a closed stream
        return False


def _width(stream: TextIO) -> int:
    """The terminal's columns less one: a line that wraps cannot be redrawn in place."""
    try:
        columns = os.get_terminal_size(stream.fileno()).columns
    except (AttributeError, ValueError, OSError):
        columns = 0
    return (columns or 80) - 1  # a terminal that tells no size (0) is taken as 80 wide


def _can_encode(stream: TextIO, text: str) -> bool:
    try:
        text.encode(getattr(stream, "encoding", None) or "ascii")
    except (UnicodeEncodeError, LookupError):
        return False
    return True
