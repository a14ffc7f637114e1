"""FastMCP's proxy (``fastmcp.server.create_proxy``) of a server run over stdio, for the shared
benchmark harness: the same measurement as proxy_server.py, with FastMCP in front.

Usage:  python fastmcp_proxy_server.py stdio | http PORT
        (run with the FastMCP venv the harness uses for its ``fastmcp`` target)
Environment: as bench_server.py (BENCH_TOOLS, BENCH_ASYNC_ADD, BENCH_DIR), passed on to the
upstream process; BENCH_UPSTREAM names the upstream as for proxy_server.py, and
BENCH_UPSTREAM_PYTHON is the Python that runs bench_server.py (default: the ``.venv`` of this
repository). The proxy is FastMCP's recommended form with its defaults: a
stdio transport (whose subprocess FastMCP keeps alive between sessions) given to
``create_proxy``.
"""

import os
import sys
from pathlib import Path

from _harness import serve_http, tg, upstream_command
from fastmcp.client.transports import StdioTransport
from fastmcp.server import create_proxy

PYTHON = os.environ.get("BENCH_UPSTREAM_PYTHON") or str(
    Path(__file__).resolve().parents[1] / ".venv" / "bin" / "python"
)
COMMAND = upstream_command(PYTHON)
UPSTREAM = StdioTransport(COMMAND[0], COMMAND[1:], env=dict(os.environ))

if __name__ == "__main__":
    mode = sys.argv[1] if len(sys.argv) > 1 else "stdio"
    proxy = create_proxy(UPSTREAM, name="bench-fastmcp-proxy")
    if mode == "stdio":
        proxy.run("stdio", show_banner=False)
    elif mode == "http":
        app = proxy.http_app(path="/mcp", json_response=tg.json_response() or None)
        serve_http(app, int(sys.argv[2]))
    else:
        raise SystemExit(f"unknown mode {mode!r}")
