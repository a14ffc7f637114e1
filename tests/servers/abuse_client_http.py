"""A misbehaving Streamable HTTP MCP server: a tiny raw ASGI app under a real uvicorn.

``python abuse_client_http.py --fd N MODE [SIZE]`` serves on the listening socket N. It
answers ``initialize`` (legacy, with a session id) and prints ``got <method>`` for every
message it receives, then misbehaves as MODE says:

* ``hang-notification``: never answers a notification's POST.
* ``hang-request``: answers notifications with 202 but never answers ``tools/call``.
* ``huge-length``: answers ``tools/list`` declaring a Content-Length of SIZE bytes.
* ``huge-chunked``: answers ``tools/list`` with a JSON body of SIZE bytes, chunked.
* ``huge-sse``: answers ``tools/list`` with one SSE event of SIZE bytes.

``ping`` is always answered, so a test can check that the client still works.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from typing import Any

import uvicorn

CHUNK = b"a" * (1024 * 1024)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--fd", type=int, required=True)
    parser.add_argument("mode")
    parser.add_argument("size", nargs="?", type=int, default=0)
    options = parser.parse_args()
    mode, size = options.mode, options.size

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "lifespan":
            while True:
                event = await receive()
                if event["type"] == "lifespan.startup":
                    await send({"type": "lifespan.startup.complete"})
                else:
                    await send({"type": "lifespan.shutdown.complete"})
                    return
        if scope["method"] != "POST":
            await send({"type": "http.response.start", "status": 405, "headers": []})
            await send({"type": "http.response.body", "body": b""})
            return
        body = b""
        while True:
            event = await receive()
            body += event.get("body", b"")
            if not event.get("more_body"):
                break
        message = json.loads(body)
        method, mid = message.get("method"), message.get("id")
        print(f"got {method}", flush=True)

        async def answer(status: int, data: bytes = b"", headers: Any = ()) -> None:
            kind = [(b"content-type", b"application/json")] if data else []
            await send(
                {"type": "http.response.start", "status": status, "headers": [*kind, *headers]}
            )
            await send({"type": "http.response.body", "body": data})

        def result(value: Any) -> bytes:
            return json.dumps({"jsonrpc": "2.0", "id": mid, "result": value}).encode()

        if method == "initialize":
            version = message["params"]["protocolVersion"]
            info = {"name": "abuse-http", "version": "0"}
            await answer(
                200,
                result(
                    {"protocolVersion": version, "capabilities": {"tools": {}}, "serverInfo": info}
                ),
                [(b"mcp-session-id", b"abuse-session")],
            )
        elif mid is None:  # a notification
            if mode == "hang-notification":
                await asyncio.Event().wait()
            await answer(202)
        elif method == "ping":
            await answer(200, result({}))
        elif method == "tools/call" and mode == "hang-request":
            await asyncio.Event().wait()
        elif method == "tools/list" and mode.startswith("huge-"):
            head = b'{"jsonrpc": "2.0", "id": ' + json.dumps(mid).encode()
            head += b', "result": {"tools": [{"name": "'
            tail = b'", "inputSchema": {"type": "object"}}]}}'
            if mode == "huge-sse":
                head, tail = b"event: message\ndata: " + head, tail + b"\n\n"
            kind = b"text/event-stream" if mode == "huge-sse" else b"application/json"
            headers = [(b"content-type", kind)]
            if mode == "huge-length":
                headers.append((b"content-length", str(len(head) + size + len(tail)).encode()))
            await send({"type": "http.response.start", "status": 200, "headers": headers})
            await send({"type": "http.response.body", "body": head, "more_body": True})
            for _ in range(size // len(CHUNK)):
                await send({"type": "http.response.body", "body": CHUNK, "more_body": True})
            await send({"type": "http.response.body", "body": tail})
        else:
            await answer(200, result({"tools": []}))

    print("ready", flush=True)
    sys.stdout.flush()
    uvicorn.run(app, fd=options.fd, log_level="warning", lifespan="on")


if __name__ == "__main__":
    main()
