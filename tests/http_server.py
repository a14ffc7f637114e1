"""A real uvicorn serving a toolwire server on 127.0.0.1, for HTTP tests.

The listening socket is bound before uvicorn starts (port 0, so the OS picks a free one),
so the URL is known at once, and the test goes on once uvicorn says it has started (its
startup imports done, the app's lifespan entered): nothing polls for the server to come up,
and nothing of its start runs beside the test's first steps. The last matters on CPython
3.11: pytest rewrites the modules of its plugins' packages (toolwire, anyio) as they are
imported, with ``ast.parse``, and two threads building ASTs at once fail with "SystemError:
AST constructor recursion depth mismatch" (python/cpython#106905).
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


class _Uvicorn(uvicorn.Server):
    """uvicorn's server, saying when it has started."""

    def __init__(self, config: uvicorn.Config) -> None:
        super().__init__(config)
        self.up = threading.Event()

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets=sockets)
        self.up.set()


def bound_socket(port: int = 0) -> socket.socket:
    """A listening TCP socket on 127.0.0.1 (port 0: the OS picks a free one)."""
    # IPPROTO_TCP given explicitly: asyncio sets TCP_NODELAY only on sockets that say they
    # are TCP, and without it every reused keep-alive request waits for a delayed ACK.
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", port))
    sock.listen(128)
    return sock


@contextlib.contextmanager
def uvicorn_on(app: Any, sock: socket.socket, lifespan: str = "on") -> Iterator[None]:
    """``app`` served by uvicorn in a thread on ``sock``, from its start to the block's end
    (then the socket is closed)."""
    config = uvicorn.Config(
        app, log_level="warning", lifespan=lifespan, timeout_graceful_shutdown=2
    )
    runner = _Uvicorn(config)
    thread = threading.Thread(target=runner.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    try:
        if not runner.up.wait(30) or not thread.is_alive():
            raise RuntimeError("uvicorn did not start (its log is above)")
        yield
    finally:
        runner.should_exit = True
        thread.join(10)
        sock.close()


@contextlib.contextmanager
def serve_http(server: Any, path: str = "/mcp", **app_options: Any) -> Iterator[str]:
    """Serve ``server.http_app(path, **app_options)``; yields the endpoint URL."""
    sock = bound_socket()
    with uvicorn_on(server.http_app(path, **app_options), sock):
        yield f"http://127.0.0.1:{sock.getsockname()[1]}{path}"


@contextlib.contextmanager
def example_over(script: Any, transport: str) -> Iterator[Any]:
    """A server file's target: its stdio command (``transport="stdio"``), or the URL of its
    ``mcp`` object on a fresh uvicorn (``"http"``)."""
    if transport == "stdio":
        yield [sys.executable, str(script)]
        return
    with serve_http(runpy.run_path(str(script))["mcp"]) as url:
        yield url
