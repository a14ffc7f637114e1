"""A real uvicorn serving a toolwire server on 127.0.0.1, for HTTP tests.

The listening socket is bound before uvicorn starts (port 0, so the OS picks a free one),
so the URL is known at once and early connections wait in the backlog: nothing polls
for the server to come up.
"""

from __future__ import annotations

import contextlib
import runpy
import socket
import sys
import threading
from collections.abc import Iterator
from typing import Any

import uvicorn


@contextlib.contextmanager
def serve_http(server: Any, path: str = "/mcp", **app_options: Any) -> Iterator[str]:
    """Serve ``server.http_app(path, **app_options)``; yields the endpoint URL."""
    # IPPROTO_TCP given explicitly: asyncio sets TCP_NODELAY only on sockets that say they
    # are TCP, and without it every reused keep-alive request waits for a delayed ACK.
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    sock.listen(128)
    port = sock.getsockname()[1]
    config = uvicorn.Config(
        server.http_app(path, **app_options),
        log_level="warning",
        lifespan="on",
        timeout_graceful_shutdown=2,
    )
    runner = uvicorn.Server(config)
    thread = threading.Thread(target=runner.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{port}{path}"
    finally:
        runner.should_exit = True
        thread.join(10)
        sock.close()


@contextlib.contextmanager
def example_over(script: Any, transport: str) -> Iterator[Any]:
    """A server file's target: its stdio command (``transport="stdio"``), or the URL of its
    ``mcp`` object on a fresh uvicorn (``"http"``)."""
    if transport == "stdio":
        yield [sys.executable, str(script)]
        return
    with serve_http(runpy.run_path(str(script))["mcp"]) as url:
        yield url
