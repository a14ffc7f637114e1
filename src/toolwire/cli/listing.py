"""``toolwire inspect``'s text: tools, resources, resource templates and prompts as a client
sees them, each parameter with its type and description, and a word about what is hidden.

What a server hides from a caller (items behind ``scopes=`` or ``auth=``) is not in any
listing; for a toolwire file the CLI holds the server object, so it compares the listings
with the server's public registries (``tools``, ``resources``, ``resource_templates``,
``prompts``) and names the hidden items and the scopes they need.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

JSON = dict[str, Any]
KINDS = (
    ("tools", "tool", "tools"),
    ("resources", "resource", "resources"),
    ("resourceTemplates", "resource template", "resource templates"),
    ("prompts", "prompt", "prompts"),
)
BADGES = (
    ("readOnlyHint", "read-only"),
    ("destructiveHint", "destructive"),
    ("idempotentHint", "idempotent"),
    ("openWorldHint", "open-world"),
)


def plural(count: int, one: str, many: str) -> str:
    return f"{count} {one if count == 1 else many}"


def render(info: JSON, listings: dict[str, list[JSON]], hidden: list[str]) -> str:
    """The whole listing; ``listings`` has a key per kind the server offers."""
    counts = [plural(len(listings[key]), one, many) for key, one, many in KINDS if key in listings]
    name = f"{info.get('name', '?')} {info.get('version', '')}".strip()
    lines = [f"{name} - {', '.join(counts) or 'nothing listed'}"]
    required = False
    for key, _, many in KINDS:
        entries = listings.get(key)
        if not entries:
            continue
        lines += ["", f"{many.capitalize()}:"]
        for entry in entries:
            block, marked = _ENTRY[key](entry)
            spaced = key in ("tools", "prompts")  # blocks with parameters: a line between
            lines += ["", *block] if spaced or lines[-1].endswith(":") else block
            required = required or marked
    if required:
        lines += ["", "(* required)"]
    if hidden:
        lines += ["", *hidden]
    return "\n".join(lines)


def _first_line(text: Any) -> str:
    lines = str(text or "").strip().splitlines()
    return lines[0] if lines else ""


def _head(name: str, title: Any, extra: Iterable[str] = ()) -> str:
    head = f"  {name}" + (f"  {title}" if title and title != name else "")
    return " ".join([head, *extra])


def _tool(tool: JSON) -> tuple[list[str], bool]:
    annotations = tool.get("annotations") or {}
    badges = [f"[{label}]" for key, label in BADGES if annotations.get(key) is True]
    if annotations.get("readOnlyHint") is True and "[destructive]" in badges:
        badges.remove("[destructive]")  # meaningless on a read-only tool
    lines = [_head(tool["name"], tool.get("title") or annotations.get("title"), badges)]
    if description := _first_line(tool.get("description")):
        lines.append(f"      {description}")
    schema = tool.get("inputSchema") or {}
    needed = set(schema.get("required") or [])
    marked = False
    for name, spec in (schema.get("properties") or {}).items():
        spec = spec if isinstance(spec, dict) else {}
        kind = spec.get("type")
        kind = "|".join(kind) if isinstance(kind, list) else kind or "any"
        star = "*" if name in needed else ""
        marked = marked or bool(star)
        words = f"      {name}{star}: {kind}"
        if "default" in spec:
            words += f" = {spec['default']!r}"
        if text := _first_line(spec.get("description")):
            words += f"  {text}"
        lines.append(words)
    return lines, marked


def _resource(resource: JSON) -> tuple[list[str], bool]:
    mime = f"({resource['mimeType']})" if resource.get("mimeType") else ""
    lines = [_head(resource.get("uri", "?"), resource.get("title") or resource.get("name"), [mime])]
    if description := _first_line(resource.get("description")):
        lines.append(f"      {description}")
    return [line.rstrip() for line in lines], False


def _template(template: JSON) -> tuple[list[str], bool]:
    mime = f"({template['mimeType']})" if template.get("mimeType") else ""
    title = template.get("title") or template.get("name")
    lines = [_head(template.get("uriTemplate", "?"), title, [mime]).rstrip()]
    if description := _first_line(template.get("description")):
        lines.append(f"      {description}")
    return lines, False


def _prompt(prompt: JSON) -> tuple[list[str], bool]:
    lines = [_head(prompt["name"], prompt.get("title"))]
    if description := _first_line(prompt.get("description")):
        lines.append(f"      {description}")
    marked = False
    for argument in prompt.get("arguments") or []:
        star = "*" if argument.get("required") else ""
        marked = marked or bool(star)
        words = f"      {argument.get('name', '?')}{star}"
        if text := _first_line(argument.get("description")):
            words += f"  {text}"
        lines.append(words)
    return lines, marked


_ENTRY = {
    "tools": _tool,
    "resources": _resource,
    "resourceTemplates": _template,
    "prompts": _prompt,
}


ATTRIBUTES = {"name": "name", "uri": "uri", "uriTemplate": "uri_template"}


def hidden_items(server: Any, listings: dict[str, list[JSON]]) -> list[str]:
    """One line per kind with items the server holds behind ``scopes=``/``auth=`` (or keeps
    for MCP App views) that this (token-less, in-memory) caller was not shown, and how to
    see them."""
    registries = (
        ("tools", "tools", "name", "tool", "tools"),
        ("resources", "resources", "uri", "resource", "resources"),
        ("resourceTemplates", "resource_templates", "uriTemplate", "template", "templates"),
        ("prompts", "prompts", "name", "prompt", "prompts"),
    )
    lines = []
    needs_token = False
    apps = getattr(server, "apps", None)
    for_views = apps.app_only if apps is not None else set()
    for key, attribute, field, one, many in registries:
        shown = {entry.get(field) for entry in listings.get(key) or []}
        guarded = []
        for item in getattr(server, attribute, ()) or ():
            name = getattr(item, ATTRIBUTES[field], None)
            if name is None or name in shown or getattr(item, "enabled", True) is False:
                continue
            scopes = sorted(getattr(item, "scopes", None) or ())
            if scopes or getattr(item, "auth", None) is not None:
                need = f" (needs {' '.join(scopes)})" if scopes else " (auth rule)"
                guarded.append(f"{name}{need}")
                needs_token = True
            elif key == "tools" and name in for_views:
                guarded.append(f"{name} (for MCP App views only)")
        if guarded:
            lines.append(
                f"{plural(len(guarded), one, many)} hidden from this caller: {', '.join(guarded)}"
            )
    if needs_token:
        lines.append(
            "They need an access token: serve the file over HTTP and inspect its URL with "
            "--header 'Authorization: Bearer TOKEN'."
        )
    return lines


def hidden_tool_hint(server: Any, name: str) -> str:
    """For ``call``: the tool exists in the file but ``scopes=``/``auth=`` hide it."""
    get_tool = getattr(server, "get_tool", None)
    tool = get_tool(name) if get_tool is not None else None
    if tool is None or not (tool.scopes or tool.auth is not None):
        return ""
    need = f"scopes {' '.join(sorted(tool.scopes))}" if tool.scopes else "its auth rule"
    return (
        f"; {name!r} is hidden from callers without a token (it needs {need}): serve the file "
        "over HTTP and call its URL with --header 'Authorization: Bearer TOKEN'"
    )
