"""A stdio MCP server written by hand (no SDK), for what toolwire's own servers never send.

It speaks legacy revisions only (``initialize``) and lists one tool whose ``outputSchema`` has
an array root: allowed from 2026-07-28, refused by the schemas of 2025-06-18 and 2025-11-25,
which toolwire's shaping would drop but a hand-written server sends as it is.
"""

from __future__ import annotations

import json
import sys

TOOLS = [
    {
        "name": "list_output",
        "description": "Lists some words.",
        "inputSchema": {"type": "object", "properties": {}, "additionalProperties": False},
        "outputSchema": {"type": "array", "items": {"type": "string"}},
    }
]


def answer(message: dict) -> dict | None:
    method, ident = message.get("method"), message.get("id")
    if ident is None:
        return None  # a notification
    if method == "initialize":
        asked = message.get("params", {}).get("protocolVersion", "2025-11-25")
        version = asked if asked in ("2025-06-18", "2025-11-25") else "2025-11-25"
        result = {
            "protocolVersion": version,
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "lint-raw", "version": "1.0.0"},
        }
    elif method == "tools/list":
        result = {"tools": TOOLS}
    elif method == "ping":
        result = {}
    else:
        error = {"code": -32601, "message": f"Method not found: {method}"}
        return {"jsonrpc": "2.0", "id": ident, "error": error}
    return {"jsonrpc": "2.0", "id": ident, "result": result}


def main() -> None:
    for line in sys.stdin:
        if not line.strip():
            continue
        reply = answer(json.loads(line))
        if reply is not None:
            sys.stdout.write(json.dumps(reply) + "\n")
            sys.stdout.flush()


if __name__ == "__main__":
    main()
