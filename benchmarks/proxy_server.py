"""A ``toolwire proxy`` of a server run over stdio, for the shared benchmark harness: what a
``tools/call`` through the proxy costs beside the direct call to the same upstream.

Usage:  python proxy_server.py stdio | http PORT
Environment: as bench_server.py (BENCH_TOOLS, BENCH_ASYNC_ADD, BENCH_DIR), passed on to the
upstream process; BENCH_UPSTREAM names the upstream (``toolwire``, bench_server.py, by
default; or a harness peer: ``mcp``, ``fastmcp``, ``limit``; or ``in-process``:
bench_server.py's server loaded into this process and spoken to in memory, as
``toolwire proxy server.py`` does); BENCH_PROXY_SHARING=per-session gives each HTTP session
an upstream connection of its own (``shared=False``) instead of the default, where the
harness's sessions, which declare no capability the upstream could use, share one.
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
    sharing = os.environ.get("BENCH_PROXY_SHARING", "default")
    if sharing not in ("default", "per-session"):
        raise SystemExit(f"BENCH_PROXY_SHARING={sharing!r}: default or per-session")
    shared = False if sharing == "per-session" else None
    proxy = Server.proxy(upstream, name="bench-toolwire-proxy", shared=shared)
    if mode == "stdio":
        proxy.run()
    elif mode == "http":
        serve_http(proxy.http_app("/mcp", json_response=tg.json_response()), int(sys.argv[2]))
    else:
        raise SystemExit(f"unknown mode {mode!r}")
