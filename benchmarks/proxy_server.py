"""A ``toolwire proxy`` of a server run over stdio, for the shared benchmark harness: what a
``tools/call`` through the proxy costs beside the direct call to the same upstream.

Usage:  python proxy_server.py stdio | http PORT
Environment: as bench_server.py (BENCH_TOOLS, BENCH_ASYNC_ADD, BENCH_DIR), passed on to the
upstream process; BENCH_UPSTREAM names the upstream (``toolwire``, bench_server.py, by
default; or a harness peer: ``mcp``, ``fastmcp``, ``limit``; or ``in-process``:
bench_server.py's server loaded into this process and spoken to in memory, as
``toolwire proxy server.py`` does). Over HTTP every session shares one upstream connection
(``shared=True``), so the figures are the proxy's, not a subprocess start per session.
"""

import os
import sys

from _harness import serve_http, tg, upstream_command

from toolwire import Server

if __name__ == "__main__":
    mode = sys.argv[1] if len(sys.argv) > 1 else "stdio"
    if os.environ.get("BENCH_UPSTREAM") == "in-process":
        from bench_server import server as upstream
    else:
        upstream = upstream_command(sys.executable)
    proxy = Server.proxy(upstream, name="bench-toolwire-proxy", shared=mode == "http")
    if mode == "stdio":
        proxy.run()
    elif mode == "http":
        serve_http(proxy.http_app("/mcp", json_response=tg.json_response()), int(sys.argv[2]))
    else:
        raise SystemExit(f"unknown mode {mode!r}")
