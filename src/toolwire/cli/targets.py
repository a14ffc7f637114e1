"""What ``inspect``, ``call`` and ``dev`` talk to: a toolwire file, a URL or a command.

A file is imported here and reached in memory (what its code prints meanwhile goes to
stderr, :mod:`.user_output`); a URL over Streamable HTTP (with the ``--header`` lines
given); ``--command "CMD ARGS"`` is started as a stdio subprocess. An optional part that is
not installed is named with the ``pip install`` that adds it.
"""

from __future__ import annotations

import importlib.util
import shlex
from dataclasses import dataclass, field
from typing import Any

from ..server.core import ServerCore
from .loading import load_server
from .packages import missing_extra_message
from .user_output import divert, restore


class TargetError(Exception):
    """The command line does not name one server to talk to; the message says why."""


@dataclass
class Target:
    """``client`` is what :class:`toolwire.client.Client` takes; ``server`` the in-memory
    server when the target is a file (so hidden items can be explained)."""

    client: Any
    headers: dict[str, str] = field(default_factory=dict)
    server: ServerCore | None = None


def is_url(text: str | None) -> bool:
    return (text or "").startswith(("http://", "https://"))


def parse_headers(lines: list[str]) -> dict[str, str]:
    headers = {}
    for line in lines:
        name, colon, value = line.partition(":")
        if not colon or not name.strip():
            raise TargetError(f"--header {line!r}: write it as 'Name: value'")
        headers[name.strip()] = value.strip()
    return headers


def check_target(target: str | None, command: str | None, headers: dict[str, str]) -> None:
    """One of FILE, URL or ``--command``; ``--header`` only with a URL."""
    if (target is None) == (command is None):
        raise TargetError("give FILE[:OBJECT], a URL, or --command COMMAND (one of them)")
    if headers and not is_url(target):
        raise TargetError("--header is for a server given by its URL")
    if command is not None and not shlex.split(command):
        raise TargetError("--command is empty")


def resolve(target: str | None, command: str | None, header_lines: list[str]) -> Target:
    """The server to connect to; a file is loaded (and may raise ``LoadError``)."""
    headers = parse_headers(header_lines)
    check_target(target, command, headers)
    if command is not None:
        return Target(shlex.split(command))
    assert target is not None
    if is_url(target):
        require_extra("httpx", "a server given by its URL")
        return Target(target, headers)
    from .progress import spinner  # lazy: only when the command runs, not for --help

    with spinner(f"Loading {target}"):
        server = load_server(target)
    return Target(InProcess(server), server=server)


class InProcess:
    """A file's server as the in-memory target of a :class:`~toolwire.client.Client`: from
    the start of its lifespan to the end, what the user's code prints goes to stderr."""

    def __init__(self, server: ServerCore) -> None:
        self.server = server
        self.name = server.name

    def connect(self, send: Any) -> Any:
        return self.server.connect(send)

    async def start(self) -> None:
        divert()
        try:
            await self.server.start()
        except BaseException:
            restore()
            raise

    async def stop(self) -> None:
        try:
            await self.server.stop()
        finally:
            restore()


def require_extra(module: str, what: str) -> None:
    """Raise :class:`TargetError` with the pip command when ``module`` cannot be imported."""
    try:
        found = importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        found = False
    if not found:
        raise TargetError(missing_extra_message(module, what))
