"""The commands: ``run``, ``inspect``, ``call`` and ``version``.

``inspect`` and ``call`` talk to the server in memory through toolwire's own ``Client``, so
what they show is exactly what an MCP host would get, encoded and decoded as on the wire.
Each command returns the process exit code.
"""

from __future__ import annotations

import asyncio
import json
import platform
import sys
from typing import Any

from .. import __version__
from ..client import Client
from ..errors import ClientError
from ..protocol.revisions import SUPPORTED_NEWEST_FIRST
from ..server.core import ServerCore
from .arguments import ArgumentError, parse_arguments, parse_json_object
from .progress import spinner

JSON = dict[str, Any]
OK, TOOL_FAILED, USAGE = 0, 1, 2
TIMEOUT = 60.0


def run(server: ServerCore, transport: str, host: str, port: int, path: str, log: str) -> int:
    """Serve until the client leaves (stdio) or a signal arrives (http)."""
    if transport == "stdio":
        server.run()
    else:
        if sys.stderr.isatty():
            print(f"{server.name}: serving on http://{host}:{port}{path}", file=sys.stderr)
        server.run(transport="http", host=host, port=port, path=path, log_level=log)
    return OK


def inspect(server: ServerCore, as_json: bool, revision: str | None = None) -> int:
    """The tools as a client of ``revision`` (default: the newest) sees them."""
    tools = asyncio.run(_list_tools(server, revision))
    if as_json:
        print(json.dumps(tools, indent=2, ensure_ascii=False))
    else:
        print(tool_table(server, tools))
    return OK


async def _list_tools(server: ServerCore, revision: str | None) -> list[JSON]:
    async with Client(server, protocol_version=revision, timeout=TIMEOUT) as client:
        return await client.list_tools()


BADGES = (
    ("readOnlyHint", "read-only"),
    ("destructiveHint", "destructive"),
    ("idempotentHint", "idempotent"),
    ("openWorldHint", "open-world"),
)


def tool_table(server: ServerCore, tools: list[JSON]) -> str:
    """A readable listing: one block per tool, required parameters marked with ``*``."""
    count = f"{len(tools)} tool" + ("" if len(tools) == 1 else "s")
    lines = [f"{server.name} {server.version} - {count}"]
    width = max((len(tool["name"]) for tool in tools), default=0)
    for tool in tools:
        annotations = tool.get("annotations") or {}
        title = tool.get("title") or annotations.get("title")
        badges = [f"[{label}]" for key, label in BADGES if annotations.get(key) is True]
        if annotations.get("readOnlyHint") is True and "[destructive]" in badges:
            badges.remove("[destructive]")  # meaningless on a read-only tool
        head = tool["name"].ljust(width)
        if title:
            head += f"  {title}"
        lines += ["", " ".join([head, *badges])]
        description = (tool.get("description") or "").strip().splitlines()
        if description:
            lines.append(f"    {description[0]}")
        parameters = _parameters(tool.get("inputSchema") or {})
        if parameters:
            lines.append(f"    parameters: {parameters}")
    if any("*" in line for line in lines if line.startswith("    parameters:")):
        lines += ["", "(* required)"]
    return "\n".join(lines)


def _parameters(schema: JSON) -> str:
    required = set(schema.get("required") or [])
    words = []
    for name, spec in (schema.get("properties") or {}).items():
        kind = spec.get("type") if isinstance(spec, dict) else None
        kind = "|".join(kind) if isinstance(kind, list) else kind or "any"
        words.append(f"{name}{'*' if name in required else ''}: {kind}")
    return ", ".join(words)


def call(
    server: ServerCore,
    tool: str,
    pairs: list[str],
    args: str | None,
    as_json: bool,
    revision: str | None = None,
) -> int:
    """Call one tool; exit 0 on success, 1 when the result is an error, 2 on bad usage."""
    return asyncio.run(_call(server, tool, pairs, args, as_json, revision))


async def _call(
    server: ServerCore,
    tool: str,
    pairs: list[str],
    args: str | None,
    as_json: bool,
    revision: str | None,
) -> int:
    async with Client(server, protocol_version=revision, timeout=TIMEOUT) as client:
        tools = {entry["name"]: entry for entry in await client.list_tools()}
        try:
            base = parse_json_object(args) if args is not None else {}
            schema = (tools.get(tool) or {}).get("inputSchema") or {}
            arguments = parse_arguments(pairs, schema, base)
        except ArgumentError as error:
            return usage_error(str(error))
        try:
            with spinner(f"Calling {tool}"):
                result = await client.call_tool(tool, arguments)
        except ClientError as error:  # an unknown tool: the server's "did you mean" message
            return usage_error(str(error))
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
