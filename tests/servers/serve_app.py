"""Serves the ``mcp`` object of a server file over Streamable HTTP, the same way on every
framework that has the official SDK's ``mcp.streamable_http_app()`` (the SDK 1.x and 2.x,
toolwire): uvicorn on a socket of 127.0.0.1 bound to a free port, whose URL is printed on
stdout once it accepts connections. ``python serve_app.py server.py``; stops on SIGTERM.
"""

import runpy
import socket
import sys
from typing import Any

import uvicorn


class Announced(uvicorn.Server):
    async def startup(self, sockets: Any = None) -> None:
        await super().startup(sockets)
        port = self.servers[0].sockets[0].getsockname()[1]
        print(f"http://127.0.0.1:{port}/mcp", flush=True)


if __name__ == "__main__":
    mcp = runpy.run_path(sys.argv[1], run_name="served")["mcp"]
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.bind(("127.0.0.1", 0))
    config = uvicorn.Config(mcp.streamable_http_app(), log_level="warning", lifespan="on")
    Announced(config).run(sockets=[sock])
