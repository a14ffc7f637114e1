"""A draining worker closes each connection after its answer, so a client's next request
opens a new connection (which a load balancer sends to another worker) instead of reusing one
the worker will close under it.

A real ``mcp.run(transport="http", drain_delay=...)`` worker (``servers/health_worker.py``):
before ``SIGTERM`` an answer keeps its connection open; after it, while the worker still
serves (not ready), every answer (MCP, health, 404) says ``Connection: close`` and the worker
closes the connection once the answer is written.
"""

from __future__ import annotations

import asyncio
import signal
from pathlib import Path

import pytest

from services import start_run_worker

pytestmark = pytest.mark.timeout(60)

WORKER = Path(__file__).resolve().parent / "servers" / "health_worker.py"
TIMEOUT = 15.0
INITIALIZE = (
    b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25",'
    b'"capabilities":{},"clientInfo":{"name":"drain","version":"1"}}}'
)


def request(method: str, path: str, port: int, body: bytes = b"") -> bytes:
    head = (
        f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
        "Accept: application/json, text/event-stream\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(body)}\r\n\r\n"
    )
    return head.encode() + body


async def exchange(
    port: int, method: str, path: str, body: bytes = b""
) -> tuple[dict[str, str], bool]:
    """One request on a new connection: the answer's headers, and whether the worker closed
    the connection after the answer (an open one is closed here after a short wait)."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        writer.write(request(method, path, port, body))
        await writer.drain()
        head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), TIMEOUT)
        lines = head.decode("latin-1").split("\r\n")[1:]
        headers = {
            name.strip().lower(): value.strip()
            for name, _, value in (line.partition(":") for line in lines if line)
        }
        if "content-length" in headers:
            await reader.readexactly(int(headers["content-length"]))
        else:  # chunked: read to the last chunk
            await asyncio.wait_for(reader.readuntil(b"0\r\n\r\n"), TIMEOUT)
        try:  # a kept connection stays silent; a closed one reads end of file at once
            closed = await asyncio.wait_for(reader.read(1), 1.0) == b""
        except asyncio.TimeoutError:
            closed = False
        return headers, closed
    finally:
        writer.close()


async def test_a_draining_worker_closes_each_connection_after_its_answer() -> None:
    with start_run_worker(WORKER, "--drain-delay", "30") as worker:
        port = worker.port
        kept, closed = await exchange(port, "POST", "/mcp", INITIALIZE)
        assert "connection" not in kept and not closed
        worker.process.send_signal(signal.SIGTERM)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + TIMEOUT
        while True:  # readiness turns false first: the drain has begun
            ready, _ = await exchange(port, "GET", "/readyz")
            if ready.get("connection") == "close":
                break
            assert loop.time() < deadline, "the worker never began to drain"
            await asyncio.sleep(0.05)
        for method, path, body in (
            ("POST", "/mcp", INITIALIZE),
            ("GET", "/readyz", b""),
            ("GET", "/nowhere", b""),
        ):
            headers, closed = await exchange(port, method, path, body)
            assert (headers.get("connection"), closed) == ("close", True), (method, path)
        worker.process.send_signal(signal.SIGINT)  # a second signal cuts the delay short
        assert await asyncio.to_thread(worker.process.wait, TIMEOUT) == 0
