"""The ``toolwire`` command (also ``python -m toolwire``).

::

    toolwire run server.py                 # stdio, as MCP hosts start it
    toolwire run server.py:mcp --transport http --port 8000
    toolwire dev server.py                 # the inspector page; restarts on changes
    toolwire dev http://127.0.0.1:8000/mcp # or any server: a URL, or --command "CMD ARGS"
    toolwire inspect server.py [--json]    # the tool list
    toolwire call server.py divide a=1 b=0 # exit 1: the result is an error
    toolwire install server.py --client claude-desktop|cursor|vscode
    toolwire version

Exit codes: 0 success, 1 the tool returned an error result, 2 bad usage or a file that gives
no server. Nothing decorative is printed: on stdio, stdout belongs to the protocol.
"""

from __future__ import annotations

import argparse
import contextlib
import shlex
import sys
from pathlib import Path

from ..protocol.revisions import REVISIONS
from .loading import LoadError, load_server, split_target

__all__ = ["main"]


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="toolwire", description="Serve and try MCP tools.")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    run = commands.add_parser("run", help="serve FILE[:OBJECT] (stdio by default)")
    run.add_argument("target", metavar="FILE[:OBJECT]")
    run.add_argument("--transport", choices=("stdio", "http"), default="stdio")
    run.add_argument("--host", default="127.0.0.1")
    run.add_argument("--port", type=int, default=8000)
    run.add_argument("--path", default="/mcp")
    run.add_argument(
        "--log-level", default="warning", choices=("critical", "error", "warning", "info", "debug")
    )

    dev = commands.add_parser(
        "dev", help="open the inspector web page for FILE[:OBJECT], a URL or --command"
    )
    dev.add_argument("target", nargs="?", metavar="FILE[:OBJECT] | URL")
    dev.add_argument(
        "--command",
        dest="server_command",
        metavar="COMMAND",
        help='any MCP server over stdio, e.g. "uvx mcp-server-time"',
    )
    dev.add_argument(
        "--header",
        action="append",
        default=[],
        metavar="'NAME: VALUE'",
        help="an HTTP header for a URL server, e.g. 'Authorization: Bearer TOKEN' (repeatable)",
    )
    dev.add_argument("--port", type=int, help="default 6274; 0 picks a free port")
    dev.add_argument("--no-browser", action="store_true", help="only print the address")
    dev.add_argument("--protocol-version", choices=REVISIONS, help="default: the newest")

    inspect = commands.add_parser("inspect", help="list the tools of FILE[:OBJECT]")
    inspect.add_argument("target", metavar="FILE[:OBJECT]")
    inspect.add_argument("--json", action="store_true", help="the raw tools/list array")
    inspect.add_argument("--protocol-version", choices=REVISIONS, help="default: the newest")

    call = commands.add_parser("call", help="call one tool: key=value ... or --args JSON")
    call.add_argument("target", metavar="FILE[:OBJECT]")
    call.add_argument("tool")
    call.add_argument("pairs", nargs="*", metavar="key=value")
    call.add_argument("--args", help="the arguments as a JSON object")
    call.add_argument("--json", action="store_true", help="print structuredContent as JSON")
    call.add_argument("--protocol-version", choices=REVISIONS, help="default: the newest")

    from .install import CLIENTS

    install = commands.add_parser("install", help="add FILE to an MCP host's configuration")
    install.add_argument("target", metavar="FILE[:OBJECT]")
    install.add_argument("--client", required=True, choices=CLIENTS)
    install.add_argument("--name", help="the entry's name (default: the server's name)")
    install.add_argument("--config", type=Path, help="the configuration file to edit")
    install.add_argument("--force", action="store_true", help="replace an entry of that name")

    commands.add_parser("version", help="toolwire, Python and MCP revision versions")
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the exit code."""
    try:
        options = _parser().parse_args(argv)
    except SystemExit as stop:  # --help (0) or a usage error (2), already printed
        return stop.code if isinstance(stop.code, int) else 2
    from . import commands

    if options.command == "version":
        return commands.version()
    if options.command == "dev":
        return _dev(options)
    from .progress import spinner

    quiet = options.command == "run"  # a stdio server's terminal belongs to the protocol
    if quiet and options.transport == "stdio":
        # before the user's file runs: what it prints goes to stderr, not to the client
        from ..transports.stdio_guard import hold_stdio, serving_file

        hold_stdio()
        serving_file(options.target)
    try:
        with contextlib.nullcontext() if quiet else spinner(f"Loading {options.target}"):
            server = load_server(options.target)
    except LoadError as error:
        return commands.usage_error(str(error))
    if options.command == "run":
        return commands.run(
            server, options.transport, options.host, options.port, options.path, options.log_level
        )
    if options.command == "inspect":
        return commands.inspect(server, options.json, options.protocol_version)
    if options.command == "call":
        return commands.call(
            server,
            options.tool,
            options.pairs,
            options.args,
            options.json,
            options.protocol_version,
        )
    return _install(options, server.name)


def _dev(options: argparse.Namespace) -> int:
    """A toolwire file runs in a subprocess that the inspector restarts, so a file that does
    not load yet is not an error here: the page shows why, and the next save tries again."""
    from ..inspector import run
    from .commands import usage_error

    if (options.target is None) == (options.server_command is None):
        return usage_error("dev takes FILE[:OBJECT], a URL, or --command COMMAND (one of them)")
    headers = {}
    for header in options.header:
        name, colon, value = header.partition(":")
        if not colon or not name.strip():
            return usage_error(f"--header {header!r}: write it as 'Name: value'")
        headers[name.strip()] = value.strip()
    is_url = (options.target or "").startswith(("http://", "https://"))
    if headers and not is_url:
        return usage_error("--header is for a server given by its URL")
    command = None
    if options.server_command is not None:
        command = shlex.split(options.server_command)
        if not command:
            return usage_error("--command is empty")
    elif not is_url:
        path, _ = split_target(options.target)
        if not path.is_file():
            return usage_error(f"{path}: no such file")
    return run(
        options.target or options.server_command,
        command=command,
        headers=headers,
        port=options.port,
        open_browser=not options.no_browser,
        protocol_version=options.protocol_version,
    )


def _install(options: argparse.Namespace, server_name: str) -> int:
    from .commands import OK, usage_error
    from .install import InstallError, install

    path, name = split_target(options.target)
    target = str(path.resolve()) + (f":{name}" if name else "")
    try:
        written = install(
            options.client, target, options.name or server_name, options.config, options.force
        )
    except (InstallError, OSError) as error:
        return usage_error(str(error))
    if sys.stderr.isatty():
        print(f"added {options.name or server_name!r} to {written}", file=sys.stderr)
    return OK
