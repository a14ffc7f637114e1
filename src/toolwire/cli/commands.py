"""The commands: ``run``, ``inspect``, ``call`` and ``version``.

``inspect`` and ``call`` talk to the server through toolwire's own ``Client`` (a file in
memory, a URL over Streamable HTTP, a command over stdio), so what they show is exactly what
an MCP host would get, encoded and decoded as on the wire.
Each command returns the process exit code.
"""

from __future__ import annotations

import asyncio
import errno
import json
import platform
import sys
from typing import Any

from .. import __version__
from ..client import Client
from ..errors import ClientError, ClientTimeout, ListenError
from ..protocol.revisions import SUPPORTED_NEWEST_FIRST
from ..server.core import ServerCore
from .arguments import ArgumentError, parse_arguments, parse_json_object
from .listing import hidden_items, hidden_tool_hint, render
from .progress import Status, log_text, progress_text
from .targets import Target, TargetError, require_extra

JSON = dict[str, Any]
OK, TOOL_FAILED, USAGE = 0, 1, 2
TIMEOUT = 60.0


def run(
    server: ServerCore,
    transport: str,
    host: str,
    port: int,
    path: str,
    log: str,
    *,
    redis: str | None = None,
    drain_delay: float = 0.0,
    shutdown_grace: float | None = None,
) -> int:
    """Serve until the client leaves (stdio) or a signal arrives (http). ``redis``: the
    URL of the store the workers share; ``drain_delay``, ``shutdown_grace``: see
    docs/deployment.md."""
    if shutdown_grace is not None:
        server.shutdown_grace = shutdown_grace
    if transport == "stdio":
        if redis is not None or drain_delay:
            return usage_error("--redis and --drain-delay are for --transport http")
        server.run()
        return OK
    try:
        require_extra("uvicorn", "--transport http")
        if redis is not None:
            require_extra("redis", "--redis")
    except TargetError as error:
        return usage_error(str(error))

    def listening(bound_host: str, bound_port: int) -> None:
        shown = f"[{bound_host}]" if ":" in bound_host else bound_host
        url = f"http://{shown}:{bound_port}{path}"
        print(f"Serving {server.name} over Streamable HTTP at {url}", file=sys.stderr, flush=True)

    options: JSON = {"drain_delay": drain_delay}
    if redis is not None:
        # lazy: the HTTP stack, only when serving HTTP
        from ..transports.store.stores import RedisStore

        options["store"] = RedisStore(redis)
    try:
        server.run(
            transport="http",
            host=host,
            port=port,
            path=path,
            log_level=log,
            on_listening=listening,
            **options,
        )
    except ListenError as error:
        return usage_error(f"{error}; {_listen_remedy(error)}")
    return OK


def stop_options(options: Any) -> JSON:
    """``run``'s keyword arguments from the command line's ``--redis``, ``--drain-delay``
    and ``--shutdown-grace``."""
    return {
        "redis": options.redis,
        "drain_delay": options.drain_delay,
        "shutdown_grace": options.shutdown_grace,
    }


def _listen_remedy(error: ListenError) -> str:
    if error.errno in (errno.EADDRINUSE, errno.EACCES):
        return "--port 0 picks a free port, or give another --port"
    return "use --host 127.0.0.1 (this machine only) or 0.0.0.0 (every interface)"


def inspect(target: Target, as_json: bool, revision: str | None = None) -> int:
    """Tools, resources, templates and prompts as a client of ``revision`` (default: the
    newest) sees them; ``--json``: the listings' arrays by kind."""
    info, listings = asyncio.run(_list_all(target, revision))
    if as_json:
        print(json.dumps(listings, indent=2, ensure_ascii=False))
        return OK
    hidden = hidden_items(target.server, listings) if target.server is not None else []
    print(render(info, listings, hidden))
    return OK


async def _list_all(target: Target, revision: str | None) -> tuple[JSON, dict[str, list[JSON]]]:
    async with _client(target, revision) as client:
        offered = client.server_capabilities
        listings: dict[str, list[JSON]] = {}
        if "tools" in offered:
            listings["tools"] = await client.list_tools()
        if "resources" in offered:
            listings["resources"] = await client.list_resources()
            listings["resourceTemplates"] = await client.list_resource_templates()
        if "prompts" in offered:
            listings["prompts"] = await client.list_prompts()
        return client.server_info, listings


def _client(target: Target, revision: str | None, **options: Any) -> Client:
    options.setdefault("timeout", TIMEOUT)
    return Client(
        target.client, protocol_version=revision, headers=target.headers or None, **options
    )


def call(
    target: Target,
    tool: str,
    pairs: list[str],
    args: str | None,
    as_json: bool,
    revision: str | None = None,
    *,
    timeout: float = TIMEOUT,
    quiet: bool = False,
) -> int:
    """Call one tool; exit 0 on success, 1 when the result is an error or ``timeout``
    seconds (0: no limit) pass without one, 2 on bad usage. The tool's progress and the
    server's log messages go to stderr unless ``quiet``."""
    return asyncio.run(_call(target, tool, pairs, args, as_json, revision, timeout, quiet))


async def _call(
    target: Target,
    tool: str,
    pairs: list[str],
    args: str | None,
    as_json: bool,
    revision: str | None,
    timeout: float,
    quiet: bool,
) -> int:
    status = Status(f"Calling {tool}")
    reports: dict[str, Any] = {}
    if not quiet:  # the server sends its log messages from level info up
        reports = {"log_level": "info", "log_handler": lambda params: status.note(log_text(params))}

    def progress(value: float, total: float | None, message: str | None) -> None:
        status.label = f"Calling {tool}: {progress_text(value, total, message)}"

    limit = TIMEOUT if timeout else None  # --timeout 0: connecting has no limit either
    async with _client(target, revision, timeout=limit, **reports) as client:
        tools = {entry["name"]: entry for entry in await client.list_tools()}
        try:
            base = parse_json_object(args) if args is not None else {}
            schema = (tools.get(tool) or {}).get("inputSchema") or {}
            arguments = parse_arguments(pairs, schema, base)
        except ArgumentError as error:
            return usage_error(str(error))
        try:
            with status.spinning():
                result = await client.call_tool(
                    tool,
                    arguments,
                    timeout=timeout or None,
                    progress=None if quiet or not status.interactive else progress,
                )
        except ClientTimeout:
            print(
                f"toolwire: {tool} did not answer within {timeout:g} s, so the call was "
                "cancelled; --timeout SECONDS waits longer (0: as long as it takes)",
                file=sys.stderr,
            )
            return TOOL_FAILED
        except ClientError as error:  # an unknown tool: the server's "did you mean" message
            return usage_error(str(error) + hidden_tool_hint(target.server, tool))
    text = "\n".join(_block_text(block) for block in result.content)
    if result.is_error:
        print(text, file=sys.stderr)
        return TOOL_FAILED
    if as_json:
        shown = result.structured if result.structured is not None else result.raw
        print(json.dumps(shown, indent=2, ensure_ascii=False))
    elif text:
        print(text)
    return OK


def _block_text(block: JSON) -> str:
    """Text as it is; other content as a one-line summary."""
    kind = block.get("type")
    if kind == "text":
        return str(block.get("text", ""))
    if kind in ("image", "audio"):
        return f"[{kind} {block.get('mimeType', '')}, {len(block.get('data', ''))} base64 chars]"
    if kind == "resource_link":
        return f"[resource link {block.get('uri', '')}]"
    if kind == "resource":
        resource = block.get("resource") or {}
        return str(resource.get("text") or f"[resource {resource.get('uri', '')}]")
    return f"[{kind} content]"


def version() -> int:
    print(f"toolwire {__version__}")
    print(f"Python {platform.python_version()}")
    print(f"MCP revisions: {', '.join(SUPPORTED_NEWEST_FIRST)}")
    return OK


def usage_error(message: str) -> int:
    print(f"toolwire: {message}", file=sys.stderr)
    return USAGE
