"""Editing an MCP host's configuration file for ``toolwire install``.

The file is edited, never replaced: other entries and settings stay, the previous file is
kept as ``<file>.bak``, the new one is written next to it and moved into place, and an
existing entry of the same name is only overwritten with ``--force``. The command itself
(arguments, checks, what it prints) is in :mod:`toolwire.cli.install.command`.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .hosts import HOSTS

JSON = dict[str, Any]
CLIENTS = tuple(HOSTS)


class InstallError(Exception):
    """The configuration could not be updated; the message says why."""


@dataclass
class Written:
    path: Path
    backup: Path | None  # the previous file, when there was one
    replaced: bool  # an entry of that name was there (and differed)
    unchanged: bool  # the same entry was already there: nothing was written


def install(path: Path, key: str, name: str, entry: JSON, force: bool) -> Written:
    """Put ``entry`` under ``config[key][name]`` in the JSON file at ``path``."""
    config = _read(path)
    servers = config.setdefault(key, {})
    if not isinstance(servers, dict):
        raise InstallError(f"{path}: {key!r} is not a JSON object")
    if servers.get(name) == entry:
        return Written(path, None, False, True)
    replaced = name in servers
    if replaced and not force:
        raise InstallError(
            f"{path}: a server named {name!r} is already configured; "
            "use --force to replace it or --name to choose another name"
        )
    servers[name] = entry
    backup = _write(path, config)
    return Written(path, backup, replaced, False)


def _read(path: Path) -> JSON:
    if not path.exists():
        return {}
    text = path.read_text(encoding="utf-8")
    if not text.strip():
        return {}
    try:
        config = json.loads(text)
    except json.JSONDecodeError as error:
        raise InstallError(
            f"{path}:{error.lineno}:{error.colno}: not valid JSON ({error.msg}); "
            "fix or move the file first"
        ) from None
    if not isinstance(config, dict):
        raise InstallError(f"{path}: the configuration is not a JSON object")
    return config


def _write(path: Path, config: JSON) -> Path | None:
    path.parent.mkdir(parents=True, exist_ok=True)
    backup = None
    if path.exists():
        backup = path.with_name(path.name + ".bak")
        shutil.copy2(path, backup)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as file:
            json.dump(config, file, indent=2, ensure_ascii=False)
            file.write("\n")
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return backup
