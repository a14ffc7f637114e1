"""``toolwire install``: add a server to an MCP host's configuration, and say what was done.

A file becomes a local (stdio) entry: the host starts ``<this python> -m toolwire run
<absolute FILE>``, so the server runs with the interpreter (and virtual environment)
toolwire is installed in, whatever the host's own PATH is. A URL (the target, or ``--url``
beside a file) becomes a remote (Streamable HTTP) entry where the host supports one. Every
run prints the file it wrote, the entry's name and how to undo it; ``--json`` writes
nothing and prints the entry.
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
from pathlib import Path
from typing import Any

from ...server.launch import split_target
from ..loading import LoadError, load_server
from .config import CLIENTS, InstallError, Written, install
from .hosts import GENERIC, HOSTS, Host

JSON = dict[str, Any]
URL_PREFIXES = ("http://", "https://")


def add_parser(commands: Any) -> None:
    """Register ``install`` and its options on the CLI's subcommands."""
    parser = commands.add_parser(
        "install",
        help="add a server to an MCP host's configuration (or print its entry)",
        description=(
            "Add FILE[:OBJECT] (started by the host over stdio) or a URL (a running HTTP "
            "server) to an MCP host's configuration file, and print what was written where. "
            "Other entries stay; the previous file is kept as <file>.bak."
        ),
    )
    parser.add_argument(
        "target",
        metavar="FILE[:OBJECT] | URL",
        help="a server file (the host starts it) or a running server's http(s) URL",
    )
    parser.add_argument(
        "--client",
        choices=CLIENTS,
        help="the host whose configuration to edit (required unless --json)",
    )
    parser.add_argument(
        "--json",
        action="store_true",
        help="write nothing: print the entry as JSON (in --client's shape if given)",
    )
    parser.add_argument("--name", help="the entry's name (default: the server's name)")
    parser.add_argument(
        "--env",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="an environment variable for the server the host starts (repeatable)",
    )
    parser.add_argument(
        "--env-file",
        type=Path,
        metavar="PATH",
        help="environment variables from a .env file (KEY=VALUE lines); --env wins",
    )
    parser.add_argument(
        "--url",
        metavar="URL",
        help="install FILE as the URL it is served at (toolwire run --transport http)",
    )
    parser.add_argument(
        "--header",
        action="append",
        default=[],
        metavar="'NAME: VALUE'",
        help="an HTTP header for a URL entry, e.g. 'Authorization: Bearer TOKEN' (repeatable)",
    )
    parser.add_argument(
        "--project",
        action="store_true",
        help="edit the project's file in the current folder instead of the user's "
        "(cursor, vscode, gemini-cli; claude-code always does)",
    )
    parser.add_argument(
        "--config", type=Path, metavar="PATH", help="edit this file instead of the host's"
    )
    parser.add_argument(
        "--force", action="store_true", help="replace an existing entry of that name"
    )


def command(options: argparse.Namespace) -> int:
    """Run ``install``; returns the exit code."""
    from ..commands import OK, usage_error  # lazy: only when the command runs, not for --help
    from ..targets import TargetError  # lazy: only when the command runs, not for --help

    try:
        _install(options)
    except (InstallError, TargetError, OSError) as error:
        return usage_error(str(error))
    return OK


def _install(options: argparse.Namespace) -> None:
    from ..targets import parse_headers  # lazy: only when the command runs, not for --help
    from .inputs import environment  # lazy: only when the command runs, not for --help

    host = HOSTS[options.client] if options.client else None
    if host is None and not options.json:
        raise InstallError(
            f"install needs --client ({', '.join(CLIENTS)}), or --json to print the entry"
        )
    if options.json and (options.config or options.project or options.force):
        raise InstallError("--json writes nothing: --config, --project and --force do not apply")
    env = environment(options.env_file, options.env)
    header_values = parse_headers(options.header)
    target_is_url = options.target.startswith(URL_PREFIXES)
    if options.url and target_is_url:
        raise InstallError("give the URL as the target or as --url beside a file, not both")
    if options.url and not options.url.startswith(URL_PREFIXES):
        raise InstallError(f"--url {options.url!r}: an http:// or https:// URL")
    url = options.target if target_is_url else options.url
    shape = host or GENERIC
    warnings: list[str] = []

    name = options.name
    target = options.target
    server = None
    if not target_is_url:
        server, target = _load(options.target)
        name = name or server.name
    if url is not None:
        if env:
            raise InstallError(
                "--env/--env-file set the environment of a server the host starts; a URL "
                "server is already running: set its environment where you start it"
            )
        if shape.url_keys is None:
            raise InstallError(
                f"{shape.label} starts local servers only from its configuration file; add "
                f"{url} in {shape.label} under Settings > Connectors, or install the file "
                "without --url (a stdio entry)"
            )
        if target_is_url:
            found, problem = _probe(url, header_values)
            if problem is not None:
                warnings.append(problem)
            name = name or found
        entry = shape.url_entry(url, header_values)
    else:
        if header_values:
            raise InstallError("--header is for a URL entry (--url URL, or a URL target)")
        # lazy: only when the command runs, not for --help
        from .checks import stdio_warning

        warning = stdio_warning(server)
        if warning:
            warnings.append(warning)
        entry = shape.stdio_entry(sys.executable, ["-m", "toolwire", "run", target], env)
    for warning in warnings:
        print(f"toolwire: warning: {warning}", file=sys.stderr)
    if name is None:
        raise InstallError(f"{url}: the server's name is unknown; give --name NAME")

    if options.json:
        print(json.dumps({name: entry}, indent=2, ensure_ascii=False))
        return
    assert host is not None
    project = options.project or host.user is None
    if options.project and host.project is None:
        raise InstallError(
            f"{host.label} reads one user-wide file ({host.path(False)}), no project file; "
            "drop --project"
        )
    path = (options.config or host.path(project)).absolute()
    written = install(path, host.servers, name, entry, options.force)
    scope = "" if options.config else (" (this project's file)" if project else " (user-wide)")
    print(report(host, name, entry, written, scope, env))


def _load(target: str) -> tuple[Any, str]:
    """The server in ``target`` and ``target`` with its file made absolute."""
    from ..progress import spinner  # lazy: only when the command runs, not for --help

    try:
        with spinner(f"Loading {target}"):
            server = load_server(target)
    except LoadError as error:
        raise InstallError(str(error)) from None
    path, name = split_target(target)
    return server, str(path.resolve()) + (f":{name}" if name else "")


def _probe(url: str, header_values: dict[str, str]) -> tuple[str | None, str | None]:
    from ..progress import spinner  # lazy: only when the command runs, not for --help
    from .checks import probe  # lazy: only when the command runs, not for --help

    with spinner(f"Connecting to {url}"):
        return probe(url, header_values)


def report(
    host: Host, name: str, entry: JSON, written: Written, scope: str, env: dict[str, str]
) -> str:
    """What was written where, what the host will do with it, and how to undo it."""
    if written.unchanged:
        lines = [f"{host.label}: {name!r} is already in {written.path}{scope}"]
    else:
        verb = "replaced" if written.replaced else "added"
        lines = [f"{host.label}: {verb} {name!r} to {written.path}{scope}"]
    if "command" in entry:
        lines.append(f"  starts: {shlex.join([entry['command'], *entry['args']])}")
    else:
        url = next(value for key, value in entry.items() if key in ("url", "serverUrl", "httpUrl"))
        lines.append(f"  connects to: {url}")
    if env:
        lines.append(f"  environment: {', '.join(env)} (the values are stored in that file)")
    if entry.get("headers"):
        lines.append(f"  headers: {', '.join(entry['headers'])} (stored in that file)")
    lines.append(f"  next: {host.restart}")
    undo = f'  undo: delete "{name}" under "{host.servers}" in that file'
    if written.backup is not None:
        undo += f", or restore the previous file {written.backup}"
    lines.append(undo)
    if host.key == "claude-code":
        shown, secret = _masked(entry)
        line = "  for all your projects instead: claude mcp add-json --scope user "
        line += f"{shlex.quote(name)} {shlex.quote(json.dumps(shown))}"
        if secret:
            line += " (with the values of that file in place of <...>)"
        lines.append(line)
    return "\n".join(lines)


def _masked(entry: JSON) -> tuple[JSON, bool]:
    """``entry`` with its environment and header values replaced by ``<NAME>``."""
    shown, secret = dict(entry), False
    for key in ("env", "headers"):
        if entry.get(key):
            shown[key] = {name: f"<{name}>" for name in entry[key]}
            secret = True
    return shown, secret
