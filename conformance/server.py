"""The server the official MCP conformance harness tests: every tool, resource and prompt its
server scenarios call, written on toolwire's public API the way a user would write them.

    python conformance/server.py [PORT]    # Streamable HTTP at http://127.0.0.1:PORT/mcp

Sections follow the harness's scenarios; the names are the ones the harness calls.
"""

from __future__ import annotations

import sys

from toolwire import Server

mcp = Server("toolwire-conformance-server", version="1.0.0")

# --- tools: content, errors, progress, logging (tools-*) -----------------------------------

# --- questions for the client: sampling, elicitation, roots (legacy and 2026-07-28) -------

# --- resources and prompts ----------------------------------------------------------------

# --- HTTP: streams, headers, stateless 2026-07-28 ------------------------------------------


if __name__ == "__main__":
    mcp.run(
        transport="http", host="127.0.0.1", port=int(sys.argv[1]) if len(sys.argv) > 1 else 3000
    )
