"""Guards for tools that touch the outside world, and limits on what a client may send.

A model chooses a tool's arguments, and a prompt injection can choose them for it; a tool's
output goes back to a model and often to a terminal. These helpers check both directions:

* **Argument limits** (:mod:`.limits`): every ``tools/call`` is checked before any
  validation runs: no value nested deeper than ``Server(max_argument_depth=32)`` levels, no
  string (or object key) longer than ``Server(max_string_length=1_000_000)`` characters.
  A call over a limit gets an ``isError`` result naming the field and the limit.
* :class:`SafePath` (:mod:`.paths`): a parameter type confined to one directory; the tool
  receives a resolved :class:`pathlib.Path` that cannot lead outside it, whatever ``..``,
  absolute paths or symbolic links the client tries.
* :class:`CommandPolicy` (:mod:`.commands`): an allow-list for shell-like tools that turns a
  command line into an argv for ``subprocess.run(argv, shell=False)``, or refuses it.
* :func:`strip_control` (:mod:`.text`): removes terminal escape sequences and control
  characters from text; ``Server(strip_control_sequences=True)`` (or the same option on one
  tool) applies it to every string of every result.
"""

from __future__ import annotations

from .commands import CommandNotAllowed, CommandPolicy
from .limits import MAX_ARGUMENT_DEPTH, MAX_STRING_LENGTH, check_arguments
from .paths import PathNotAllowed, SafePath
from .text import strip_control, strip_control_json

__all__ = [
    "MAX_ARGUMENT_DEPTH",
    "MAX_STRING_LENGTH",
    "CommandNotAllowed",
    "CommandPolicy",
    "PathNotAllowed",
    "SafePath",
    "check_arguments",
    "strip_control",
    "strip_control_json",
]
