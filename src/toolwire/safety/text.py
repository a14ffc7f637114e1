"""Removing terminal control sequences from text a tool sends back (TL-31).

Tool output often comes from programs, files or web pages an attacker can write to. Shown
in a terminal, an escape sequence in it can rewrite the screen, set the window title, hide
text, plant a hyperlink or (in some terminals) answer back with input; inside a prompt it
is noise at best. :func:`strip_control` removes:

* ANSI escape sequences: CSI (``ESC [`` ... final byte, e.g. colours and cursor moves),
  the string sequences OSC, DCS, SOS, PM and APC (``ESC ]`` ... ``BEL`` or ``ESC \\``, e.g.
  titles and hyperlinks; their payload goes too) and two-character escapes, in their 7-bit
  and 8-bit (C1) forms;
* every other C0 control character, DEL and the C1 controls (U+0080-U+009F). Newline, tab
  and carriage return stay.

An unfinished sequence loses its introducer, so what remains is inert text. Text without
control characters is returned as it is, after one scan.
"""

from __future__ import annotations

import re
from typing import Any

__all__ = ["strip_control", "strip_control_json"]

_ESCAPE = re.compile(
    # CSI: parameter bytes, intermediate bytes, one final byte.
    r"(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]"
    # OSC, DCS, SOS, PM, APC: a payload of printable text up to BEL or ST. The payload never
    # spans another control, so an unfinished sequence cannot make the scan quadratic.
    r"|(?:\x1b[\]PX^_]|[\x90\x98\x9d\x9e\x9f])[^\x00-\x1f\x7f-\x9f]*(?:\x07|\x1b\\|\x9c)"
    # Any other escape: ESC, intermediate bytes, one final byte (or a lone ESC).
    r"|\x1b[ -/]*[0-~]?"
)
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")


def strip_control(text: str) -> str:
    """``text`` without terminal escape sequences and control characters (``\\n``, ``\\t``
    and ``\\r`` are kept)."""
    if _CONTROL.search(text) is None:
        return text
    return _CONTROL.sub("", _ESCAPE.sub("", text))


def strip_control_json(value: Any) -> Any:
    """``value`` (JSON data) with :func:`strip_control` applied to every string, keys included."""
    if isinstance(value, str):
        return strip_control(value)
    if isinstance(value, dict):
        return {
            (strip_control(k) if isinstance(k, str) else k): strip_control_json(v)
            for k, v in value.items()
        }
    if isinstance(value, (list, tuple)):
        return [strip_control_json(item) for item in value]
    return value
