"""Sequential ``tools/call`` requests through bench_server.py's HTTP app, in process.

Usage:  python asgi_calls.py CALLS [REVISION]   (REVISION: 2025-06-18, default, or 2026-07-28)

The app is driven as uvicorn drives it (``receive`` gives the body, then waits until the
response is complete and says ``http.disconnect``), without sockets or an HTTP parser, so
what is counted is the app's own work: ``call_instructions.py --http`` runs it under
callgrind. BENCH_ASYNC_ADD=1 makes ``add`` async, as for bench_server.py.
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

MODERN = "2026-07-28"
HEADERS = [
    (b"content-type", b"application/json"),
    (b"accept", b"application/json, text/event-stream"),
    (b"host", b"127.0.0.1"),
]


async def post(app: Any, body: bytes, headers: list[tuple[bytes, bytes]]) -> dict[str, Any]:
    """One request; its status, headers and body."""
    complete = asyncio.Event()
    read = False
    answer: dict[str, Any] = {"body": b""}

    async def receive() -> dict[str, Any]:
        nonlocal read
        if not read:
            read = True
            return {"type": "http.request", "body": body, "more_body": False}
        await complete.wait()
        return {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        if message["type"] == "http.response.start":
            answer["status"] = message["status"]
            answer["headers"] = dict(message["headers"])
        else:
            answer["body"] += message.get("body", b"")
            if not message.get("more_body"):
                complete.set()

    scope = {
        "type": "http",
        "method": "POST",
        "path": "/mcp",
        "headers": headers,
        "client": ("127.0.0.1", 40000),
        "server": ("127.0.0.1", 80),
        "scheme": "http",
        "query_string": b"",
        "root_path": "",
    }
    await app(scope, receive, send)
    return answer


async def main(calls: int, revision: str) -> None:
    from bench_server import server, tg  # (tg: the harness's _toolgen)

    app = server.http_app("/mcp", json_response=tg.json_response())
    startup: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
    started = asyncio.Event()
    await startup.put({"type": "lifespan.startup"})

    async def lifespan_send(message: dict[str, Any]) -> None:
        started.set()

    lifespan = asyncio.ensure_future(app({"type": "lifespan"}, startup.get, lifespan_send))
    await started.wait()
    meta: dict[str, Any] = {}
    if revision == MODERN:
        headers = [
            *HEADERS,
            (b"mcp-protocol-version", MODERN.encode()),
            (b"mcp-method", b"tools/call"),
            (b"mcp-name", b"add"),
        ]
        meta = {
            "io.modelcontextprotocol/protocolVersion": MODERN,
            "io.modelcontextprotocol/clientCapabilities": {},
            "io.modelcontextprotocol/clientInfo": {"name": "count", "version": "0"},
        }
    else:
        params = {"protocolVersion": revision, "capabilities": {}, "clientInfo": {"name": "c"}}
        params["clientInfo"]["version"] = "0"
        initialize = {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": params}
        answer = await post(app, json.dumps(initialize).encode(), HEADERS)
        session = answer["headers"][b"mcp-session-id"]
        headers = [
            *HEADERS,
            (b"mcp-session-id", session),
            (b"mcp-protocol-version", revision.encode()),
        ]
        await post(app, b'{"jsonrpc":"2.0","method":"notifications/initialized"}', headers)
    for mid in range(1, calls + 1):
        call: dict[str, Any] = {"name": "add", "arguments": {"a": mid, "b": 2}}
        if meta:
            call["_meta"] = meta
        message = {"jsonrpc": "2.0", "id": mid, "method": "tools/call", "params": call}
        answer = await post(app, json.dumps(message).encode(), headers)
        if answer["status"] != 200 or b'"result"' not in answer["body"]:
            raise SystemExit(f"a call failed: {answer}")
    await startup.put({"type": "lifespan.shutdown"})
    await lifespan


if __name__ == "__main__":
    calls = int(sys.argv[1])
    revision = sys.argv[2] if len(sys.argv) > 2 else "2025-06-18"
    sys.argv[1:] = []  # bench_server.py reads its own arguments
    asyncio.run(main(calls, revision))
