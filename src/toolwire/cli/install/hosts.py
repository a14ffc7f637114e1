"""The MCP hosts ``toolwire install`` knows: where each reads its servers, and in what shape.

Each host keeps its servers in a JSON object (``mcpServers``, or ``servers`` for VS Code)
mapping a name to an entry. A local entry starts a command (stdio); a remote entry names a
URL (Streamable HTTP), under the key the host documents:

* claude-desktop: ``<config>/Claude/claude_desktop_config.json``; no remote entries in the
  file (Claude Desktop adds remote servers under Settings > Connectors);
* claude-code: ``./.mcp.json`` (the project's); remote ``{"type": "http", "url": ...}``;
* cursor: ``~/.cursor/mcp.json`` or ``./.cursor/mcp.json``; remote ``{"url": ...}``;
* vscode: ``<config>/Code/User/mcp.json`` or ``./.vscode/mcp.json``, under ``servers``;
  remote ``{"type": "http", "url": ...}``;
* windsurf: ``~/.codeium/windsurf/mcp_config.json``; remote ``{"serverUrl": ...}``;
* gemini-cli: ``~/.gemini/settings.json`` or ``./.gemini/settings.json``; remote
  ``{"httpUrl": ...}``.

``<config>`` is ``~/Library/Application Support`` on macOS, ``%APPDATA%`` on Windows and
``$XDG_CONFIG_HOME`` (default ``~/.config``) elsewhere. Claude Code's user-wide servers live in
``~/.claude.json``, a file the ``claude`` command owns, so toolwire writes the project's
``.mcp.json`` and prints the ``claude mcp add-json`` command for the user-wide scope.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

JSON = dict[str, Any]


@dataclass(frozen=True)
class Host:
    key: str  # the --client value
    label: str  # as the host calls itself
    servers: str  # the object holding the entries
    user: tuple[str, ...] | None  # path parts under home (or the app-config folder)
    project: tuple[str, ...] | None  # path parts under the current folder
    app_config: bool = False  # ``user`` is under the platform's application-config folder
    stdio_type: bool = False  # a local entry says ``"type": "stdio"``
    url_keys: JSON | None = None  # the remote entry's fixed keys; None: not in this file
    url_key: str = "url"  # the key that holds the URL
    restart: str = ""  # what makes the host read the new entry

    def path(self, project: bool) -> Path:
        parts = self.project if project else self.user
        if parts is None:
            raise ValueError(self.key)
        if project:
            return Path.cwd().joinpath(*parts)
        home = Path(os.path.expanduser("~"))
        return (app_config_folder(home) if self.app_config else home).joinpath(*parts)

    def stdio_entry(self, command: str, args: list[str], env: dict[str, str]) -> JSON:
        entry: JSON = {"type": "stdio"} if self.stdio_type else {}
        entry["command"] = command
        entry["args"] = args
        if env:
            entry["env"] = env
        return entry

    def url_entry(self, url: str, headers: dict[str, str]) -> JSON:
        entry: JSON = dict(self.url_keys or {})
        entry[self.url_key] = url
        if headers:
            entry["headers"] = headers
        return entry


def app_config_folder(home: Path) -> Path:
    """Where desktop applications keep their settings on this platform."""
    if sys.platform == "darwin":
        return home / "Library" / "Application Support"
    if sys.platform == "win32":
        return Path(os.environ.get("APPDATA") or home / "AppData" / "Roaming")
    return Path(os.environ.get("XDG_CONFIG_HOME") or home / ".config")


HOSTS = {
    host.key: host
    for host in (
        Host(
            "claude-desktop",
            "Claude Desktop",
            "mcpServers",
            ("Claude", "claude_desktop_config.json"),
            None,
            app_config=True,
            restart="quit Claude Desktop completely and open it again",
        ),
        Host(
            "claude-code",
            "Claude Code",
            "mcpServers",
            None,
            (".mcp.json",),
            stdio_type=True,
            url_keys={"type": "http"},
            restart="start `claude` in this folder and approve the project's server (/mcp lists it)",
        ),
        Host(
            "cursor",
            "Cursor",
            "mcpServers",
            (".cursor", "mcp.json"),
            (".cursor", "mcp.json"),
            url_keys={},
            restart="Cursor lists it under Settings > MCP; enable it there",
        ),
        Host(
            "vscode",
            "VS Code",
            "servers",
            ("Code", "User", "mcp.json"),
            (".vscode", "mcp.json"),
            app_config=True,
            stdio_type=True,
            url_keys={"type": "http"},
            restart="run 'MCP: List Servers' in VS Code and start it",
        ),
        Host(
            "windsurf",
            "Windsurf",
            "mcpServers",
            (".codeium", "windsurf", "mcp_config.json"),
            None,
            url_keys={},
            url_key="serverUrl",
            restart="press refresh in Windsurf's MCP panel",
        ),
        Host(
            "gemini-cli",
            "Gemini CLI",
            "mcpServers",
            (".gemini", "settings.json"),
            (".gemini", "settings.json"),
            url_keys={},
            url_key="httpUrl",
            restart="start `gemini` again; /mcp lists it",
        ),
    )
}

# ``--json`` alone: the entry in the common ``mcpServers`` shape most hosts read.
GENERIC = Host("json", "JSON", "mcpServers", None, None, url_keys={"type": "http"})
