"""What the benchmark servers share: the shared harness's ``_toolgen`` module (found through
BENCH_DIR, default ../shared/bench/servers beside this repository) and an HTTP start made the
same way as every peer's (asyncio loop, h11, no access log)."""

import os
import sys
from pathlib import Path
from typing import Any

_default = Path(__file__).resolve().parents[2] / "shared" / "bench" / "servers"
sys.path.insert(0, os.environ.get("BENCH_DIR", str(_default)))

import _toolgen as tg  # noqa: E402


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


__all__ = ["serve_http", "tg"]
