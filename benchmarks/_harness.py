"""What the benchmark servers share: the shared harness's ``_toolgen`` module (found through
BENCH_DIR, default ../shared/bench/servers beside this repository), an HTTP start made the
same way as every peer's (asyncio loop, h11, no access log), and the upstream a proxy target
serves (BENCH_UPSTREAM)."""

import os
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
SERVERS = Path(os.environ.get("BENCH_DIR", str(HERE.parents[1] / "shared" / "bench" / "servers")))
sys.path.insert(0, str(SERVERS))

import _toolgen as tg  # noqa: E402

#: The harness's peers a proxy target can serve: (venv, server script in BENCH_DIR).
PEERS = {
    "limit": ("venv-limit", "limit_server.py"),
    "mcp": ("venv-mcp", "mcp_sdk_server.py"),
    "fastmcp": ("venv-fastmcp", "fastmcp_server.py"),
}


def upstream_command(toolwire_python: str) -> list[str]:
    """The stdio command of the server a proxy target stands in front of: BENCH_UPSTREAM
    names it, ``toolwire`` (bench_server.py, run by ``toolwire_python``; the default) or one
    of the harness's peers (run by its venv in BENCH_VENVS, default ~/.cache/mcp-bench)."""
    name = os.environ.get("BENCH_UPSTREAM", "toolwire")
    if name == "toolwire":
        return [toolwire_python, str(HERE / "bench_server.py"), "stdio"]
    if name not in PEERS:
        raise SystemExit(f"BENCH_UPSTREAM={name!r}: one of toolwire, {', '.join(PEERS)}")
    venv, script = PEERS[name]
    venvs = Path(os.environ.get("BENCH_VENVS", str(Path.home() / ".cache" / "mcp-bench")))
    return [str(venvs / venv / "bin" / "python"), str(SERVERS / script), "stdio"]


def serve_http(app: Any, port: int) -> None:
    import uvicorn

    uvicorn.run(
        app,
        host="127.0.0.1",
        port=port,
        log_level="warning",
        access_log=False,
        loop="asyncio",
        http="h11",
        lifespan="on",
    )


__all__ = ["serve_http", "tg", "upstream_command"]
