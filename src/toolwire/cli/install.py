"""``toolwire install FILE --client ...``: add the server to an MCP host's configuration.

The host starts ``<this python> -m toolwire run <absolute FILE>``, so the server runs with
the interpreter (and virtual environment) toolwire is installed in, whatever the host's own
PATH is. The configuration file is edited, never replaced: other entries stay, the previous
file is kept as ``<file>.bak``, the new one is written next to it and moved into place, and an
existing entry of the same name is only overwritten with ``--force``.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

JSON = dict[str, Any]
CLIENTS = ("claude-desktop", "cursor", "vscode")


class InstallError(Exception):
    """The configuration could not be updated; the message says why."""


def config_path(client: str) -> Path:
    """Where each host reads its MCP servers (home from ``HOME``/``USERPROFILE``)."""
    home = Path(os.path.expanduser("~"))
    if client == "cursor":
        return home / ".cursor" / "mcp.json"
    if client == "vscode":
        return Path.cwd() / ".vscode" / "mcp.json"  # the workspace's configuration
    if sys.platform == "darwin":
        folder = home / "Library" / "Application Support"
    elif sys.platform == "win32":
        folder = Path(os.environ.get("APPDATA") or home / "AppData" / "Roaming")
    else:
        folder = Path(os.environ.get("XDG_CONFIG_HOME") or home / ".config")
    return folder / "Claude" / "claude_desktop_config.json"


def server_entry(client: str, target: str) -> JSON:
    entry: JSON = {"type": "stdio"} if client == "vscode" else {}
    entry["command"] = sys.executable
    entry["args"] = ["-m", "toolwire", "run", target]
    return entry


def install(client: str, target: str, name: str, path: Path | None, force: bool) -> Path:
    """Write the entry for ``target`` under ``name``; returns the configuration file."""
    path = path or config_path(client)
    key = "servers" if client == "vscode" else "mcpServers"
    config = _read(path)
    servers = config.setdefault(key, {})
    if not isinstance(servers, dict):
        raise InstallError(f"{path}: {key!r} is not a JSON object")
    entry = server_entry(client, target)
    if name in servers and servers[name] != entry and not force:
        raise InstallError(
            f"{path}: a server named {name!r} is already configured; "
            "use --force to replace it or --name to choose another name"
        )
    servers[name] = entry
    _write(path, config)
    return path


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


def _write(path: Path, config: JSON) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.exists():
        shutil.copy2(path, path.with_name(path.name + ".bak"))
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as file:
            json.dump(config, file, indent=2, ensure_ascii=False)
            file.write("\n")
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
