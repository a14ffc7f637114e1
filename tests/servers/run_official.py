"""Runs a server file as ``__main__``, as ``python server.py`` would, but on a free port.

The file's own ``mcp.run(transport="streamable-http", ...)`` keeps all of its options; only
the address becomes 127.0.0.1 with a port the OS picks, announced as ``listening PORT`` on
stderr once uvicorn accepts connections. ``python run_official.py server.py``.
"""

import runpy
import sys
from typing import Any

import uvicorn

from toolwire.server.core import ServerCore

run_http = ServerCore._run_http
startup = uvicorn.Server.startup


def on_free_port(self: Any, host: str = "127.0.0.1", port: int = 8000, **options: Any) -> None:
    run_http(self, host="127.0.0.1", port=0, **options)


async def announced(self: Any, sockets: Any = None) -> None:
    await startup(self, sockets)
    port = self.servers[0].sockets[0].getsockname()[1]
    print(f"listening {port}", file=sys.stderr, flush=True)


ServerCore._run_http = on_free_port  # type: ignore[method-assign]
uvicorn.Server.startup = announced  # type: ignore[method-assign]
sys.argv = sys.argv[1:]
runpy.run_path(sys.argv[0], run_name="__main__")
