"""The options several commands share: the help layout, a server target, the HTTP serving
options and their value types."""

from __future__ import annotations

import argparse

from ..protocol.revisions import REVISIONS


class HELP(argparse.HelpFormatter):
    """Each option's default after its description, when it has a telling one."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        text = action.help or ""
        if action.default in (None, False, [], argparse.SUPPRESS) or "%(default)" in text:
            return text
        return f"{text} (default: %(default)s)"


TARGET_HELP = "a Python file with a toolwire server; :OBJECT picks one when it has several"


def http_arguments(command: argparse.ArgumentParser, transport_help: str) -> None:
    """--transport, --host, --port, --path and --log-level (run, proxy)."""
    command.add_argument(
        "--transport",
        choices=("stdio", "http", "streamable-http"),
        default="stdio",
        help=transport_help,
    )
    command.add_argument("--host", default="127.0.0.1", help="HTTP: the address to listen on")
    command.add_argument(
        "--port", type=port_number, default=8000, help="HTTP: the port; 0 picks a free one"
    )
    command.add_argument(
        "--path", type=endpoint_path, default="/mcp", help="HTTP: the endpoint's path"
    )
    command.add_argument(
        "--log-level",
        default="warning",
        choices=("critical", "error", "warning", "info", "debug"),
        help="HTTP: the server log's level",
    )
    command.add_argument(
        "--redis",
        metavar="URL",
        help="HTTP: share sessions, streams and tasks with other workers through this Redis "
        "(redis://HOST:PORT/DB)",
    )
    command.add_argument(
        "--drain-delay",
        type=seconds,
        default=0.0,
        metavar="SECONDS",
        help="HTTP: after SIGTERM, go on serving this long while /readyz says not ready, so a "
        "load balancer stops sending first (default 0)",
    )
    command.add_argument(
        "--shutdown-grace",
        type=seconds,
        metavar="SECONDS",
        help="what calls and tasks in flight get to end on SIGTERM (default: the server's, 2)",
    )


def port_number(text: str) -> int:
    """A TCP port, 0 to 65535 (argparse shows the message as a usage error)."""
    if not text.isdigit() or int(text) > 65535:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port: give 0 to 65535 (0: a free one)")
    return int(text)


def seconds(text: str) -> float:
    """A duration in seconds, 0 or more."""
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0 <= value < float("inf"):
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds (0 or more)")
    return value


def endpoint_path(text: str) -> str:
    """An HTTP path: it starts with a slash."""
    if not text.startswith("/"):
        raise argparse.ArgumentTypeError(f"{text!r} is not a path: start it with /, e.g. /mcp")
    return text


def server_arguments(command: argparse.ArgumentParser) -> None:
    """FILE, URL or --command, with --header and --protocol-version (dev, inspect, call)."""
    command.add_argument(
        "target",
        nargs="?",
        metavar="FILE[:OBJECT] | URL",
        help=TARGET_HELP + "; or the http(s) URL of a Streamable HTTP server",
    )
    command.add_argument(
        "--command",
        dest="server_command",
        metavar="COMMAND",
        help='any MCP server over stdio, e.g. "uvx mcp-server-time"',
    )
    command.add_argument(
        "--header",
        action="append",
        default=[],
        metavar="'NAME: VALUE'",
        help="an HTTP header for a URL server, e.g. 'Authorization: Bearer TOKEN' (repeatable)",
    )
    command.add_argument(
        "--protocol-version", choices=REVISIONS, help="the MCP revision (default: the newest)"
    )
