"""Which tool parameters a 2026-07-28 Streamable HTTP client mirrors into ``Mcp-Param-{Name}``
headers (``x-mcp-header`` in the tool's ``inputSchema``, SEP-2243), and whether a tool's
annotations are valid at all (TL-38): a header name is a non-empty RFC 9110 token (so no
spaces, colons, control or non-ASCII characters), unique regardless of case, on a
``properties`` entry of type string, integer or boolean. A client drops a tool whose
annotations break these rules from its tool list (TL-39). Sans-IO.
"""

from __future__ import annotations

import re
from typing import Any

__all__ = ["NAMED_METHODS", "header_params"]

# The methods whose 2026-07-28 HTTP requests carry ``Mcp-Name`` (HT-29), and the parameter it
# mirrors; the Tasks extension routes its methods by task id (SEP-2663).
NAMED_METHODS = {
    "tools/call": "name",
    "resources/read": "uri",
    "prompts/get": "name",
    "tasks/get": "taskId",
    "tasks/update": "taskId",
    "tasks/cancel": "taskId",
}

TOKEN = re.compile(r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+")  # an RFC 9110 token
MIRRORED_TYPES = ("string", "integer", "boolean")


def header_params(input_schema: Any) -> tuple[dict[str, str], str | None]:
    """``({parameter: header name}, None)`` for a valid schema, ``({}, problem)`` otherwise."""
    properties = input_schema.get("properties") if isinstance(input_schema, dict) else None
    if not isinstance(properties, dict):
        return {}, None
    mirrored: dict[str, str] = {}
    seen: set[str] = set()
    for param, prop in properties.items():
        if not isinstance(prop, dict) or "x-mcp-header" not in prop:
            continue
        header = prop["x-mcp-header"]
        if not isinstance(header, str) or not TOKEN.fullmatch(header):
            return {}, f"x-mcp-header {header!r} of {param!r} is not a header-name token"
        if header.lower() in seen:
            return {}, f"x-mcp-header {header!r} is used twice"
        if prop.get("type") not in MIRRORED_TYPES:
            return {}, (
                f"x-mcp-header {header!r} is on {param!r}, which is not a string, "
                "integer or boolean"
            )
        seen.add(header.lower())
        mirrored[param] = header
    return mirrored, None
