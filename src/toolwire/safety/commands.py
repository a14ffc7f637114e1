"""``CommandPolicy``: which command lines a shell-like tool may run.

::

    from toolwire import CommandPolicy

    policy = CommandPolicy(allow={"git": ["status", "log", "diff"], "ls": None})

    @mcp.tool()
    def run(command: str) -> str:
        \"\"\"Run a read-only git or ls command in the repository.\"\"\"
        argv = policy.check(command)  # raises CommandNotAllowed, shown to the model
        done = subprocess.run(argv, shell=False, capture_output=True, text=True, timeout=30)
        return done.stdout + done.stderr

:meth:`CommandPolicy.check` splits a command line the way a POSIX shell splits words
(:mod:`shlex`, quotes and backslashes) and returns the argv, or raises
:class:`CommandNotAllowed` saying why. Never hand the command to a shell: the policy decides
on the argv, and only ``shell=False`` runs exactly that.

A command is refused when it

* uses shell syntax anywhere, even quoted: ``;``, ``&`` (``&&``), ``|``, backticks, ``<``,
  ``>``, ``$(``, ``${`` or ``$NAME``, a newline or a NUL (nothing would interpret them, so a
  command relying on them would not do what it says);
* starts with a program not in ``allow`` (names match exactly: ``/bin/ls`` is not ``ls``);
* for a program with a list of subcommands, has no first argument or one not in that list
  (so ``git -C /elsewhere status`` is refused: options come after the subcommand);
* has more than ``max_args`` arguments or more than ``max_length`` characters;
* has an argument matching one of ``deny_patterns`` (regular expressions, searched in each
  argument), e.g. ``r"^--(output|exec)"``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence

from ..errors import ToolError
from .text import strip_control

__all__ = ["CommandNotAllowed", "CommandPolicy"]

_SHELL_SYNTAX = re.compile(r"[;&|`<>\n\r\x00]|\$[({A-Za-z_]")
_SHOWN = 60  # characters of an argument quoted in a message


class CommandNotAllowed(ToolError):
    """A command a :class:`CommandPolicy` refuses; as a tool's exception its text reaches the model."""


class CommandPolicy:
    """An allow-list of programs (and of their subcommands) for a shell-like tool.

    ``allow`` maps each program to the subcommands it may run (its first argument), or to
    ``None`` for any arguments.
    """

    def __init__(
        self,
        allow: Mapping[str, Iterable[str] | None],
        *,
        max_args: int = 64,
        max_length: int = 4096,
        deny_patterns: Iterable[str | re.Pattern[str]] = (),
    ) -> None:
        if not allow:
            raise ValueError("CommandPolicy needs at least one allowed program")
        self.allow: dict[str, frozenset[str] | None] = {}
        for program, subcommands in allow.items():
            if subcommands is None:
                self.allow[program] = None
                continue
            names = frozenset((subcommands,) if isinstance(subcommands, str) else subcommands)
            if not names:
                raise ValueError(
                    f"CommandPolicy: {program!r} has an empty list of subcommands; "
                    "use None to allow any arguments"
                )
            self.allow[program] = names
        self.max_args = max_args
        self.max_length = max_length
        self.deny_patterns = tuple(re.compile(p) for p in deny_patterns)

    def __repr__(self) -> str:
        return f"CommandPolicy(allow={self.allow!r}, max_args={self.max_args})"

    def check(self, command: str | Sequence[str]) -> list[str]:
        """The argv to run for ``command`` (a command line or an argv); raises
        :class:`CommandNotAllowed` with a message for the model if the policy refuses it."""
        argv = self._split(command)
        if not argv:
            raise CommandNotAllowed("The command is empty")
        program, args = argv[0], argv[1:]
        if program not in self.allow:
            raise CommandNotAllowed(
                f"Program {_shown(program)} is not allowed; allowed programs: "
                + ", ".join(sorted(self.allow))
            )
        subcommands = self.allow[program]
        if subcommands is not None and (not args or args[0] not in subcommands):
            choices = ", ".join(f"{program} {s}" for s in sorted(subcommands))
            if not args:
                raise CommandNotAllowed(f"{program!r} needs a subcommand: one of {choices}")
            raise CommandNotAllowed(
                f"{program} {_shown(args[0])} is not allowed; allowed: {choices}"
            )
        if len(args) > self.max_args:
            raise CommandNotAllowed(
                f"Too many arguments ({len(args)}); the limit is {self.max_args}"
            )
        for arg in args:
            for pattern in self.deny_patterns:
                if pattern.search(arg):
                    raise CommandNotAllowed(f"Argument {_shown(arg)} is not allowed")
        return argv

    def _split(self, command: str | Sequence[str]) -> list[str]:
        if isinstance(command, str):
            text = command
        elif isinstance(command, (list, tuple)) and all(isinstance(a, str) for a in command):
            text = " ".join(command)
        else:
            raise CommandNotAllowed("A command is a string or a list of strings")
        if len(text) > self.max_length:
            raise CommandNotAllowed(
                f"The command is {len(text):,} characters long; the limit is {self.max_length:,}"
            )
        found = _SHELL_SYNTAX.search(text)  # before splitting, which would eat newlines
        if found is not None:
            raise CommandNotAllowed(
                f"Shell syntax is not allowed ({found.group()!r}): commands run without a "
                "shell, one program at a time, with no pipes, redirections, variables or "
                "command substitution"
            )
        if not isinstance(command, str):
            return list(command)
        import shlex  # lazy: only to split or quote a command line

        try:
            return shlex.split(command, comments=False, posix=True)
        except ValueError as exc:  # e.g. "No closing quotation"
            raise CommandNotAllowed(f"Cannot parse the command: {exc}") from None


def _shown(arg: str) -> str:
    text = strip_control(arg)
    return repr(text if len(text) <= _SHOWN else text[: _SHOWN - 3] + "...")
