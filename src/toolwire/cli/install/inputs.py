"""``--env KEY=VALUE`` and ``--env-file PATH`` for ``install`` (its ``--header`` lines are
read as the other commands read them, :func:`toolwire.cli.targets.parse_headers`)."""

from __future__ import annotations

import re
from pathlib import Path

from .config import InstallError

NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


def environment(env_file: Path | None, pairs: list[str]) -> dict[str, str]:
    """The variables of ``env_file`` (dotenv lines), then ``pairs``, which win."""
    values: dict[str, str] = {}
    if env_file is not None:
        try:
            text = env_file.read_text(encoding="utf-8")
        except OSError as error:
            raise InstallError(f"--env-file {env_file}: {error.strerror or error}") from None
        for number, line in enumerate(text.splitlines(), 1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            if line.startswith("export "):
                line = line[len("export ") :].lstrip()
            key, value = _pair(line, f"{env_file}:{number}")
            values[key] = _unquote(value)
    for pair in pairs:
        key, value = _pair(pair, f"--env {pair!r}")
        values[key] = value
    return values


def _pair(text: str, where: str) -> tuple[str, str]:
    key, equals, value = text.partition("=")
    key = key.strip()
    if not equals or not NAME.match(key):
        raise InstallError(f"{where}: write it as KEY=VALUE (KEY: letters, digits, _)")
    return key, value.strip()


def _unquote(value: str) -> str:
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
        return value[1:-1]
    if " #" in value:  # an unquoted value ends where a comment starts
        value = value.split(" #", 1)[0].rstrip()
    return value
