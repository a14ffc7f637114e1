"""``toolwire proxy``: serve another MCP server through toolwire, a bridge between
transports: ``--command "npx some-server"`` (stdio) offered over Streamable HTTP, or a
URL offered over stdio to a host that only starts commands (see
:func:`toolwire.proxy.proxy`).
"""

from __future__ import annotations

import argparse
import shlex
from typing import Any

from .loading import LoadError
from .options import HELP, http_arguments, server_arguments


def add_parser(commands: Any) -> None:
    """Register ``proxy`` on the CLI's subcommands."""

    proxy = commands.add_parser(
        "proxy",
        help="serve a URL or --command through toolwire (stdio <-> HTTP bridge)",
        description="Serve the tools, resources and prompts of another MCP server: a "
        "stdio server (--command) over Streamable HTTP, or an HTTP server (URL) over "
        "stdio. Client sessions share one upstream connection, except a session the upstream "
        "may ask something (its client declared sampling, elicitation or roots), which gets "
        "its own; progress, log messages, elicitation, sampling, roots, cancellation and "
        "list changes cross it.",
        formatter_class=HELP,
    )
    server_arguments(proxy)
    http_arguments(
        proxy, "how the proxy is served: stdio as MCP hosts start servers, or Streamable HTTP"
    )
    sharing = proxy.add_mutually_exclusive_group()
    sharing.add_argument(
        "--shared",
        action="store_const",
        const=True,
        dest="shared",
        help="one upstream connection for every client session",
    )
    sharing.add_argument(
        "--per-session",
        action="store_const",
        const=False,
        dest="shared",
        help="an upstream connection for each client session",
    )
    proxy.add_argument("--name", help="the proxy's server name (default: from the target)")


def command(options: argparse.Namespace) -> int:
    """Serve the proxy until the client leaves (stdio) or a signal arrives (HTTP)."""
    from ..proxy import proxy  # lazy: the proxy, only for toolwire proxy
    from . import commands  # lazy: only when the command runs, not for --help
    from .targets import TargetError, resolve  # lazy: only when the command runs, not for --help

    if options.transport == "stdio":
        from ..transports.stdio.guard import hold_stdio  # lazy: only when serving stdio

        hold_stdio()  # what the upstream prints goes to stderr, not to the client
    try:
        target = resolve(options.target, options.server_command, options.header)
    except (LoadError, TargetError) as error:
        return commands.usage_error(str(error))
    client_options: dict[str, Any] = {"protocol_version": options.protocol_version}
    if target.headers:
        client_options["headers"] = target.headers
    name = options.name
    if name is None and options.server_command is not None:
        name = f"proxy of {shlex.split(options.server_command)[0]}"
    server = proxy(target.client, name=name, shared=options.shared, **client_options)
    return commands.run(
        server,
        options.transport,
        options.host,
        options.port,
        options.path,
        options.log_level,
        **commands.stop_options(options),
    )
