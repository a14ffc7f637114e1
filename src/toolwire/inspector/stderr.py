"""What the server writes on stderr, as the inspector shows it: lines grouped into records (a
log message and its traceback are one record, not one row per line), and a traceback read into
frames, the developer's own told from toolwire's, the standard library's and other libraries',
with the reference id of the masked error it explains.

A Python traceback has a fixed shape (``Traceback (most recent call last):``, indented frames,
the exception's line, chained tracebacks after a blank line and a sentence), which is how its
lines are told from the next message without waiting for more output.
"""

from __future__ import annotations

import os
import re
import sysconfig
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

JSON = dict[str, Any]

TRACEBACK = "Traceback (most recent call last):"
GROUP = "+ Exception Group Traceback (most recent call last):"  # indented, with "|" margins
CHAINED = (
    "During handling of the above exception, another exception occurred:",
    "The above exception was the direct cause of the following exception:",
)
FRAME = re.compile(r'^  File "(?P<file>[^"]*)", line (?P<line>\d+)(?:, in (?P<name>.*))?$')
REFERENCE = re.compile(r"\(reference ([0-9a-f]{8})\)")
MAX_RECORD_LINES = 1000  # a longer record goes on in a new one

# The states of a record: a plain message, a traceback's frames, the lines after its exception,
# the sentence that introduces a chained traceback.
PLAIN, FRAMES, AFTER, CHAIN = "plain", "frames", "after", "chain"


@dataclass
class Record:
    """One record's lines; ``entry`` is what the page shows of it (set by the reader)."""

    lines: list[str]
    entry: JSON | None = None
    state: str = PLAIN


class Records:
    """Groups stderr lines into records; the last one stays open for the lines that continue
    it."""

    def __init__(self) -> None:
        self.last: Record | None = None

    def feed(self, lines: Iterable[str]) -> list[Record]:
        """Add ``lines``; the records they began or extended, in order."""
        touched: list[Record] = []
        for line in lines:
            record = self.last
            if (
                record is None
                or len(record.lines) >= MAX_RECORD_LINES
                or not _goes_on(record, line)
            ):
                record = self.last = Record([line], state=_first_state(line))
            else:
                record.lines.append(line)
            if not touched or touched[-1] is not record:
                touched.append(record)
        return touched


def _first_state(line: str) -> str:
    if line == TRACEBACK:
        return FRAMES
    return AFTER if line.strip() == GROUP else PLAIN


def _goes_on(record: Record, line: str) -> bool:
    """Whether ``line`` continues ``record`` (and move the record to its next state)."""
    indented = line[:1].isspace()
    if record.state == PLAIN:
        state = _first_state(line)
        record.state = state
        return state != PLAIN
    if record.state == FRAMES:
        if line and not indented:  # the exception's line
            record.state = AFTER
        return True
    if record.state == CHAIN:
        if line == TRACEBACK:
            record.state = FRAMES
        return not line or line == TRACEBACK
    if line in CHAINED:
        record.state = CHAIN
        return True
    return not line or indented  # the rest of the exception's message, its notes


def read_traceback(lines: list[str]) -> JSON | None:
    """The traceback in a record: ``text`` (all of it, chained ones included), the frames of
    the exception that was raised last (``file``, ``line``, ``name``, ``own``: the developer's
    code, not toolwire's or a library's, and ``text``), its ``exception`` line(s), and the
    ``reference`` the message before it names (a masked error's id), or None."""
    starts = [i for i, line in enumerate(lines) if line == TRACEBACK]
    if not starts:
        return None
    frames: list[JSON] = []
    exception: list[str] = []
    for line in lines[starts[-1] + 1 :]:
        match = FRAME.match(line)
        if match and not exception:
            file = match["file"]
            frames.append(
                {
                    "file": file,
                    "line": int(match["line"]),
                    "name": match["name"],
                    "own": is_own(file),
                    "text": line,
                }
            )
        elif line[:1].isspace() and frames and not exception:
            frames[-1]["text"] += "\n" + line  # the source line and its markers
        else:
            exception.append(line)
    reference = REFERENCE.search("\n".join(lines[: starts[0]]))
    return {
        "reference": reference[1] if reference else None,
        "exception": "\n".join(exception).strip("\n"),
        "frames": frames,
        "text": "\n".join(lines[starts[0] :]).rstrip(),
    }


def masked_reference(result: JSON | None, failure: str | None) -> str | None:
    """The reference id in a call's error (an ``isError`` result's text, or the message of a
    JSON-RPC error), or None."""
    texts = [failure or ""]
    if isinstance(result, dict) and result.get("isError") is True:
        content = result.get("content")
        blocks = content if isinstance(content, list) else []
        texts += [
            block["text"]
            for block in blocks
            if isinstance(block, dict) and isinstance(block.get("text"), str)
        ]
    for text in texts:
        found = REFERENCE.search(text)
        if found:
            return found[1]
    return None


def _library_folders() -> tuple[str, ...]:
    """toolwire's own package and the standard library (the server runs on the same Python
    when the inspector starts it from a file)."""
    paths = sysconfig.get_paths()
    folders = {str(Path(__file__).resolve().parents[1]), paths["stdlib"], paths["platstdlib"]}
    return tuple(os.path.realpath(folder) + os.sep for folder in folders)


LIBRARIES = _library_folders()


def is_own(file: str) -> bool:
    """Whether a frame's file is the developer's code: not toolwire's, not the standard
    library's (asyncio's, threading's...), not an installed package's, not ``<frozen ...>``."""
    if file.startswith("<"):
        return False
    if {"site-packages", "dist-packages"} & set(Path(file).parts):
        return False
    return not os.path.realpath(file).startswith(LIBRARIES)
