"""``toolwire lint``: check the tools and prompts of one or more MCP servers (files, URLs,
``--command``) against the spec, the model providers' profiles and practical limits.

The servers are listed through toolwire's ``Client``, as an MCP host would list them; the
rules are :mod:`toolwire.lint`'s. Several targets are linted together, as the servers of one
host: names that clash across them and the total number of tools are checked too.
Exit codes: 0 no error (warnings too with ``--strict``), 1 errors, 2 bad usage or a server
that cannot be reached.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from typing import TYPE_CHECKING, Any

from .._pip import extra_install
from ..protocol.revisions import REVISIONS
from .loading import LoadError
from .options import HELP, TARGET_HELP

if TYPE_CHECKING:  # the parser is built for every command: the rest loads when lint runs
    from ..lint import Finding, Listing
    from .targets import Target

JSON = dict[str, Any]
OK, FAILED = 0, 1
# toolwire.providers.PROVIDERS, written out: the parser is built for every command (toolwire
# run too), and the profiles load only when lint runs
PROVIDERS = ("openai", "gemini", "anthropic")
STRUCTURAL = (
    "toolwire lint: the schemas were checked structurally (type, properties, required, "
    "items); for the JSON Schema 2020-12 meta-schema check: "
)
JSON_HELP = (
    'the report as JSON: {"targets": [{"target", "server", "revision", "tools", "prompts"}], '
    '"providers": [...], "findings": [{"rule", "severity", "target", "server", "kind", '
    '"name", "path", "message", "provider"}], "errors": N, "warnings": N, "schemaCheck": "meta-schema" or "structural"}'
)


def add_parser(commands: Any) -> None:
    """Register ``lint`` on the CLI's subcommands: the targets and options of ``inspect``,
    several of them at once."""

    parser = commands.add_parser(
        "lint",
        help="check the tools and prompts of servers against the spec and model providers",
        description="Check every tool and prompt argument of one or more servers: the MCP "
        "spec (names, JSON Schema 2020-12 validity, object roots, annotations, duplicates), "
        "what each model provider accepts (schemas, names, description lengths, tool counts), "
        "and missing descriptions or near-duplicate names. Several targets are checked "
        "together, as the servers of one host. Exit 0 without errors, 1 with errors (or "
        "warnings with --strict), 2 when a server cannot be reached.",
        formatter_class=HELP,
    )
    parser.add_argument(
        "target",
        nargs="*",
        metavar="FILE[:OBJECT] | URL",
        help=TARGET_HELP + "; or the http(s) URL of a Streamable HTTP server (several: one "
        "host's servers)",
    )
    parser.add_argument(
        "--command",
        dest="server_command",
        action="append",
        default=[],
        metavar="COMMAND",
        help='any MCP server over stdio, e.g. "uvx mcp-server-time" (repeatable)',
    )
    parser.add_argument(
        "--header",
        action="append",
        default=[],
        metavar="'NAME: VALUE'",
        help="an HTTP header for the URL servers, e.g. 'Authorization: Bearer TOKEN' (repeatable)",
    )
    parser.add_argument(
        "--protocol-version", choices=REVISIONS, help="the MCP revision (default: the newest)"
    )
    parser.add_argument(
        "--provider",
        action="append",
        default=[],
        choices=PROVIDERS,
        help="check for this model provider only (repeatable; default: all of them)",
    )
    parser.add_argument(
        "--as-published",
        action="store_true",
        help="also warn about what a provider refuses in a schema as published, which its "
        "profile reshapes (for hosts that forward schemas unchanged)",
    )
    parser.add_argument("--json", action="store_true", help=JSON_HELP)
    parser.add_argument("--strict", action="store_true", help="warnings fail too (exit 1)")


def command(options: argparse.Namespace) -> int:
    # lazy: the linter, only for the lint command
    from ..lint import errors, known_providers, lint, schema_check
    from .commands import usage_error  # lazy: only when the command runs, not for --help
    from .failures import connection_message  # lazy: only when the command runs, not for --help

    # lazy: only when the command runs, not for --help
    from .targets import TargetError, is_url, parse_headers, resolve

    given: list[tuple[str, str | None]] = [(target, None) for target in options.target]
    given += [(command, command) for command in options.server_command]
    if not given:
        return usage_error("give FILE[:OBJECT], a URL, or --command COMMAND (one or more)")
    try:
        if options.header and not any(is_url(target) for target in options.target):
            raise TargetError("--header is for a server given by its URL")
        parse_headers(options.header)
        targets = []
        for shown, server_command in given:
            header = options.header if is_url(shown) else []
            file_or_url = None if server_command is not None else shown
            targets.append((shown, resolve(file_or_url, server_command, header)))
    except (LoadError, TargetError) as error:
        return usage_error(str(error))
    listings = []
    for shown, target in targets:
        try:
            listings.append(asyncio.run(list_server(shown, target, options.protocol_version)))
        except BrokenPipeError:
            raise
        except Exception as error:
            message = connection_message(error, shown)
            if message is None:
                raise
            return usage_error(message)
    providers = options.provider or list(known_providers())
    findings = lint(listings, providers, as_published=options.as_published)
    if options.json:
        print(json.dumps(report(listings, providers, findings), indent=2, ensure_ascii=False))
    else:
        print(render(listings, providers, findings))
        if schema_check() == "structural":
            print(STRUCTURAL + extra_install("jsonschema"), file=sys.stderr)
    failing = findings if options.strict else errors(findings)
    return FAILED if failing else OK


async def list_server(shown: str, target: Target, revision: str | None) -> Listing:
    """The tools and prompts one server lists (every page)."""
    from ..lint import Listing  # lazy: the linter, only for the lint command
    from .commands import _client  # lazy: only when the command runs, not for --help

    async with _client(target, revision) as client:
        offered = client.server_capabilities
        listing = Listing(shown, str(client.server_info.get("name", "")), client.protocol_version)
        if "tools" in offered:
            listing.tools = await client.list_tools()
        if "prompts" in offered:
            listing.prompts = await client.list_prompts()
        return listing


def report(listings: list[Listing], providers: list[str], findings: list[Finding]) -> JSON:
    """``--json``'s document (its shape is documented in docs/testing.md)."""
    from ..lint import errors, schema_check  # lazy: the linter, only for the lint command

    count = len(errors(findings))
    return {
        "targets": [
            {
                "target": listing.target,
                "server": listing.server,
                "revision": listing.revision,
                "tools": len(listing.tools),
                "prompts": len(listing.prompts),
            }
            for listing in listings
        ],
        "providers": providers,
        "findings": [finding.as_dict() for finding in findings],
        "errors": count,
        "warnings": len(findings) - count,
        "schemaCheck": schema_check(),
    }


def render(listings: list[Listing], providers: list[str], findings: list[Finding]) -> str:
    """A table: severity, rule, where, message; then a summary line."""
    from ..lint import errors  # lazy: the linter, only for the lint command
    from .listing import plural  # lazy: only when the command runs, not for --help

    tools = sum(len(listing.tools) for listing in listings)
    prompts = sum(len(listing.prompts) for listing in listings)
    servers = ", ".join(listing.server or listing.target for listing in listings)
    counted = f"{plural(tools, 'tool', 'tools')}, {plural(prompts, 'prompt', 'prompts')}"
    head = f"{servers}: {counted} checked (spec, {', '.join(providers) or 'no provider'})"
    if not findings:
        return head + "\nNo problems found."
    several = len(listings) > 1
    rows = [("SEVERITY", "RULE", "WHERE", "MESSAGE")]
    for finding in findings:
        where = f"{finding.kind} {finding.name}".strip() if finding.name else finding.kind
        if finding.path and finding.path != "name":
            where += f" {finding.path}"
        if several and finding.server:
            where = f"{finding.server}: {where}"
        rows.append((finding.severity, finding.rule, where, finding.message))
    widths = [max(len(row[column]) for row in rows) for column in range(3)]
    lines = [head, ""]
    for row in rows:
        cells = [row[column].ljust(widths[column]) for column in range(3)]
        lines.append("  ".join([*cells, row[3]]).rstrip())
    count = len(errors(findings))
    lines += ["", f"{count} error(s), {len(findings) - count} warning(s)"]
    return "\n".join(lines)


def rules_table() -> str:
    """The rules as a Markdown table (docs/testing.md shows it; a test compares them)."""
    from ..lint import RULES  # lazy: the linter, only for the lint command

    lines = ["| Rule | Severity | Checks | Source |", "| --- | --- | --- | --- |"]
    for rule in RULES.values():
        cells = (f"`{rule.id}`", rule.severity, rule.checks, rule.source)
        lines.append("| " + " | ".join(cell.replace("|", "\\|") for cell in cells) + " |")
    return "\n".join(lines)
