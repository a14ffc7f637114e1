"""The ``toolwire`` command (also ``python -m toolwire``).

::

    toolwire run server.py                 # stdio, as MCP hosts start it
    toolwire run server.py:mcp --transport http --port 8000   # prints the URL it serves
    toolwire dev server.py                 # the inspector page; restarts on changes
    toolwire dev http://127.0.0.1:8000/mcp # or any server: a URL, or --command "CMD ARGS"
    toolwire inspect server.py [--json]    # tools, resources, templates, prompts
    toolwire call server.py divide a=1 b=0 # exit 1: the result is an error
    toolwire install server.py --client cursor   # also claude-desktop, claude-code, vscode, ...
    toolwire install http://127.0.0.1:8000/mcp --client vscode   # a running HTTP server
    toolwire lint server.py [other.py URL --command CMD] [--provider openai] [--json]
    toolwire migrate src/ [--check] [--diff]   # mcp / fastmcp imports -> toolwire's
    toolwire version                       # or toolwire --version

``inspect`` and ``call`` take a file, a URL (with ``--header``) or ``--command`` as ``dev``
does. Exit codes: 0 success, 1 the call failed (an error result, or no answer within
``--timeout``), 2 bad usage, a file that gives no server, a server that cannot be reached, an
address ``run`` or ``proxy`` cannot listen on, or a missing optional part (the line says
which ``pip install`` adds it). Nothing decorative is printed: on stdio, stdout belongs to
the protocol.
"""

from __future__ import annotations

import argparse
import os
import shlex
import sys

from .. import __version__
from ..server.launch import split_target
from . import lint_command, proxy_command
from .install import command as install_command
from .loading import LoadError, RunCall, load
from .migrate import command as migrate_command
from .options import HELP, TARGET_HELP, http_arguments, port_number, seconds, server_arguments
from .user_output import to_stderr

__all__ = ["main"]


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="toolwire",
        description="Serve, inspect and call MCP servers.",
        epilog="Exit codes: 0 success; 1 the call failed (the tool returned an error result, "
        "or no answer came within --timeout); 2 bad usage, a file that gives no server, a "
        "server that cannot be reached, an address run or proxy cannot listen on (a busy "
        "port: --port 0 picks a free one), or a missing optional part (the message names the "
        "pip command that adds it). What a server file prints, as it loads or in its tools, "
        "goes to stderr under every command: stdout carries the command's output (or the "
        "protocol) alone.",
    )
    parser.add_argument("--version", action="version", version=f"toolwire {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    run = commands.add_parser(
        "run",
        help="serve FILE[:OBJECT] (stdio by default)",
        description="Serve the toolwire server in FILE over stdio (as MCP hosts start it) "
        "or over Streamable HTTP. The file is imported, not run as a script: its "
        "'if __name__ == \"__main__\":' block stays asleep, and a bare mcp.run() at its end "
        "does not serve either; these options decide how the server is served (the call's "
        "own arguments are not used, and a line on stderr names them).",
        formatter_class=HELP,
    )
    run.add_argument("target", metavar="FILE[:OBJECT]", help=TARGET_HELP)
    http_arguments(
        run,
        "stdio as MCP hosts start servers, or Streamable HTTP (http, or its name in the "
        "official SDK: streamable-http)",
    )

    dev = commands.add_parser(
        "dev",
        help="open the inspector web page for FILE[:OBJECT], a URL or --command",
        description="Open the inspector page on 127.0.0.1: browse and call the server's "
        "tools, resources and prompts. A file is restarted when it changes.",
        formatter_class=HELP,
    )
    server_arguments(dev)
    dev.add_argument(
        "--port", type=port_number, help="the page's port (default 6274); 0 picks a free one"
    )
    dev.add_argument("--no-browser", action="store_true", help="only print the address")

    inspect = commands.add_parser(
        "inspect",
        help="list the tools, resources and prompts of FILE[:OBJECT], a URL or --command",
        description="List what a client sees: tools with their parameters, resources, "
        "resource templates and prompts, and what is hidden from this caller.",
        formatter_class=HELP,
    )
    server_arguments(inspect)
    inspect.add_argument(
        "--json",
        action="store_true",
        help='the listings as JSON: {"tools": [...], "resources": [...], '
        '"resourceTemplates": [...], "prompts": [...]} (the kinds the server offers)',
    )

    call = commands.add_parser(
        "call",
        help="call one tool: key=value ... or --args JSON",
        description="Call one tool and print its result. Values are typed by the tool's "
        "input schema: a=1 is a number when the parameter is one. While the tool runs, the "
        "server's log messages go to stderr, and on a terminal its progress shows on the "
        "status line.",
        formatter_class=HELP,
    )
    server_arguments(call)
    call.add_argument("tool", nargs="?", help="the tool's name")
    call.add_argument("pairs", nargs="*", metavar="key=value", help="the arguments")
    call.add_argument("--args", help="the arguments as a JSON object (key=value adds to them)")
    call.add_argument("--json", action="store_true", help="print structuredContent as JSON")
    call.add_argument(
        "--timeout",
        type=seconds,
        default=60,
        metavar="SECONDS",
        help="how long to wait for the tool's answer before cancelling the call (exit 1); "
        "0 waits as long as it takes",
    )
    call.add_argument(
        "--quiet",
        action="store_true",
        help="no log messages or progress on stderr (shown by default: the server's log "
        "messages from level info up, and the tool's progress on a terminal)",
    )
    call.set_defaults(command_parser=call)

    install_command.add_parser(commands)

    lint_command.add_parser(commands)

    proxy_command.add_parser(commands)

    migrate_command.add_parser(commands)

    commands.add_parser(
        "version",
        help="toolwire, Python and MCP revision versions",
        description="Print the versions of toolwire and Python, and the MCP revisions "
        "toolwire speaks.",
    )
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the exit code."""
    parser = _parser()
    try:
        options, extra = parser.parse_known_args(argv)
        if options.command == "call":
            _sort_call_words(options, extra)
        elif extra:
            parser.error(f"unrecognized arguments: {' '.join(extra)}")
    except SystemExit as stop:  # --help (0) or a usage error (2), already printed
        return stop.code if isinstance(stop.code, int) else 2
    try:
        code = _dispatch(options)
        sys.stdout.flush()  # a reader that left is found here, not in Python's exit flush
        return code
    except BrokenPipeError:
        return _reader_left()
    except KeyboardInterrupt:
        return 130


def _dispatch(options: argparse.Namespace) -> int:
    from . import commands  # lazy: only when the command runs, not for --help

    if options.command == "version":
        return commands.version()
    if options.command == "dev":
        return _dev(options)
    if options.command in ("inspect", "call"):
        return _client_command(options)
    if options.command == "install":
        return install_command.command(options)
    if options.command == "lint":
        return lint_command.command(options)
    if options.command == "proxy":
        return proxy_command.command(options)
    if options.command == "migrate":
        return migrate_command.command(options)
    if options.command == "run":
        return _run(options)
    return commands.usage_error(f"unknown command {options.command!r}")


def _run(options: argparse.Namespace) -> int:
    """Serve the file's server as the options say, whatever its own ``run()`` call asks."""
    from . import commands  # lazy: only when the command runs, not for --help

    if options.transport == "stdio":
        # before the user's file runs: what it prints goes to stderr, not to the client
        # lazy: only when serving stdio
        from ..transports.stdio.guard import hold_stdio, serving_file

        hold_stdio()
        serving_file(options.target)
    try:
        loaded = load(options.target)
    except LoadError as error:
        return commands.usage_error(str(error))
    if loaded.run_call is not None:
        _note_run_arguments(loaded.run_call, options)
    with to_stderr():  # over HTTP, what the tools print (stdio holds the streams already)
        return commands.run(
            loaded.server,
            options.transport,
            options.host,
            options.port,
            options.path,
            options.log_level,
            **commands.stop_options(options),
        )


def _note_run_arguments(call: RunCall, options: argparse.Namespace) -> None:
    """Name on stderr the arguments of the file's own ``run()`` call that the command line
    overrides (it decides how to serve)."""

    def http(transport: str) -> str:
        return "http" if transport == "streamable-http" else transport

    given = {
        "transport": http(options.transport),
        "host": options.host,
        "port": options.port,
        "path": options.path,
        "log_level": options.log_level,
    }
    asked = {"transport": http(call.transport), **call.options}
    if call.transport == "stdio":  # run()'s default: a bare mcp.run() asks for nothing
        del asked["transport"]
    unused = {key: value for key, value in asked.items() if given.get(key, object()) != value}
    if unused:
        shown = ", ".join(f"{key}={value!r}" for key, value in unused.items())
        print(
            f"toolwire: {call.where} calls run({shown}) as it loads; toolwire run does not "
            f"use those arguments and serves {given['transport']} as its options say "
            "(--transport, --host, --port, --path)",
            file=sys.stderr,
        )


def _sort_call_words(options: argparse.Namespace, extra: list[str]) -> None:
    """``call [FILE | URL] TOOL key=value ...``: argparse stops filling positionals at the
    first option between them (``call URL --header H TOOL``), so the words are sorted here,
    in the order typed; with ``--command`` there is no FILE."""
    flags = [word for word in extra if word.startswith("-")]
    if flags:
        options.command_parser.error(f"unrecognized arguments: {' '.join(flags)}")
    given = (options.target, options.tool)
    words = [word for word in given if word is not None] + options.pairs + extra
    if options.server_command is None and words:
        options.target = words.pop(0)
    else:
        options.target = None
    if not words:
        options.command_parser.error("the tool's name is missing")
    options.tool, options.pairs = words[0], words[1:]


def _client_command(options: argparse.Namespace) -> int:
    """``inspect`` and ``call``: a file in memory, a URL or ``--command``."""
    from . import commands  # lazy: only when the command runs, not for --help
    from .failures import connection_message  # lazy: only when the command runs, not for --help
    from .targets import TargetError, resolve  # lazy: only when the command runs, not for --help

    try:
        target = resolve(options.target, options.server_command, options.header)
    except (LoadError, TargetError) as error:
        return commands.usage_error(str(error))
    try:
        if options.command == "inspect":
            return commands.inspect(target, options.json, options.protocol_version)
        return commands.call(
            target,
            options.tool,
            options.pairs,
            options.args,
            options.json,
            options.protocol_version,
            timeout=options.timeout,
            quiet=options.quiet,
        )
    except BrokenPipeError:
        raise
    except Exception as error:
        message = connection_message(error, options.target or options.server_command)
        if message is None:
            raise
        return commands.usage_error(message)


def _reader_left() -> int:
    """stdout's reader went away (``toolwire inspect FILE | head -1``): stop quietly. Python
    would otherwise report the failed flush at exit, so stdout now points at the null device."""

    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass
    return 0


def _dev(options: argparse.Namespace) -> int:
    """A toolwire file runs in a subprocess that the inspector restarts, so a file that does
    not load yet is not an error here: the page shows why, and the next save tries again."""
    from .commands import usage_error  # lazy: only when the command runs, not for --help

    # lazy: only when the command runs, not for --help
    from .targets import TargetError, check_target, is_url, parse_headers, require_extra

    try:
        headers = parse_headers(options.header)
        check_target(options.target, options.server_command, headers)
        if is_url(options.target):
            require_extra("httpx", "a server given by its URL")
    except TargetError as error:
        return usage_error(str(error))
    command = None
    if options.server_command is not None:
        command = shlex.split(options.server_command)
    elif not is_url(options.target):
        path, _ = split_target(options.target)
        if not path.is_file():
            return usage_error(f"{path}: no such file")
    from ..inspector import run  # lazy: the inspector, only for toolwire dev

    return run(
        options.target or options.server_command,
        command=command,
        headers=headers,
        port=options.port,
        open_browser=not options.no_browser,
        protocol_version=options.protocol_version,
    )
