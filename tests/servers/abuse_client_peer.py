"""A misbehaving stdio MCP server, speaking raw JSON-RPC lines, for the client's abuse tests.

It answers ``initialize`` (``server/discover`` is unknown to it, so clients fall back to a
legacy revision), then misbehaves as the first argument says:

* ``deaf``: never reads its stdin again (a large request fills the pipe and blocks).
* ``flood``: keeps answering ``ping`` and ``tools/list`` while a second thread sends
  ``sampling/createMessage``, ``elicitation/create`` and ``ping`` requests and log
  notifications, padded to about 1 KiB each, as fast as it can until stdin closes.
* ``deaf-flood``: the same flood, but it never reads the client's answers.
* ``huge N``: answers ``tools/list`` with a line of about N bytes.
* ``malformed CASE``: answers ``tools/list``, ``tools/call``, ``resources/read`` and
  ``prompts/get`` in the malformed way CASE names (see ``ANSWERS``), then answers ``ping``
  properly, so a test can check that the client still works.

Every line it writes is announced on stderr only when something fails.
"""

from __future__ import annotations

import contextlib
import json
import sys
import threading
from typing import Any

REVISION = "2025-06-18"
PAD = "x" * 1000
out = sys.stdout.buffer
lock = threading.Lock()


def write(message: Any) -> None:
    data = message if isinstance(message, bytes) else json.dumps(message).encode()
    with lock:
        out.write(data + b"\n")
        out.flush()


def result(mid: Any, value: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": mid, "result": value}


TOOL = {"name": "echo", "inputSchema": {"type": "object"}}
ANSWERS: dict[str, Any] = {
    # what tools/list, tools/call, resources/read and prompts/get answer, per case
    "result-not-object": lambda mid, method: result(mid, [1, 2, 3]),
    "no-result": lambda mid, method: {"jsonrpc": "2.0", "id": mid},
    "error-not-object": lambda mid, method: {"jsonrpc": "2.0", "id": mid, "error": "boom"},
    "tools-missing": lambda mid, method: result(mid, {"nextCursor": None}),
    "tool-not-object": lambda mid, method: result(
        mid, {"tools": ["echo"], "content": ["hi"], "contents": ["x"], "messages": [3]}
    ),
    "tool-without-name": lambda mid, method: result(
        mid, {"tools": [{"inputSchema": {"type": "object"}}], "content": [{"type": "text"}]}
    ),
    "content-wrong-shape": lambda mid, method: result(
        mid,
        {
            "tools": [TOOL],
            "content": [{"type": "text", "text": 42}, {"text": "no type"}],
            "contents": [{"uri": 7, "text": ["not", "text"]}],
            "messages": [{"role": "user", "content": "just a string"}],
        },
    ),
    "content-not-list": lambda mid, method: result(
        mid, {"tools": [TOOL], "content": "text", "contents": {"a": 1}, "messages": "m"}
    ),
    "cursor-not-string": lambda mid, method: result(mid, {"tools": [TOOL], "nextCursor": {"a": 1}}),
    "not-json-rpc": lambda mid, method: [
        b"[1, 2, 3]",
        b'{"hello": "world"}',
        b"not json at all",
        b'{"jsonrpc": "2.0", "id": [1, 2], "result": {}}',
        b'{"jsonrpc": "2.0", "method": 7, "id": 99}',
        b'{"jsonrpc": "2.0", "method": "notifications/progress", "params": [1]}',
        b'{"jsonrpc": "2.0", "method": "notifications/cancelled", "params": "x"}',
        b'{"jsonrpc": "2.0", "id": 12345, "result": {}}',
        json.dumps(result(mid, {"tools": [TOOL], "content": []})).encode(),
    ],
}


def flood(stop: threading.Event) -> None:
    kinds = [
        ("sampling/createMessage", {"messages": [], "maxTokens": 1, "systemPrompt": PAD}),
        ("elicitation/create", {"message": PAD, "requestedSchema": {"type": "object"}}),
        ("ping", {"_meta": {"pad": PAD}}),
    ]
    count = 0
    while not stop.is_set():
        lines = []
        for _ in range(100):
            count += 1
            method, params = kinds[count % 3]
            lines.append(
                json.dumps(
                    {"jsonrpc": "2.0", "id": f"s{count}", "method": method, "params": params}
                ).encode()
            )
            lines.append(
                json.dumps(
                    {
                        "jsonrpc": "2.0",
                        "method": "notifications/message",
                        "params": {"level": "info", "data": PAD},
                    }
                ).encode()
            )
        try:
            write(b"\n".join(lines))
        except (BrokenPipeError, ValueError, OSError):
            return


def main() -> None:
    mode = sys.argv[1]
    arg = sys.argv[2] if len(sys.argv) > 2 else ""
    stop = threading.Event()
    for raw in sys.stdin.buffer:
        if not raw.strip():
            continue
        message = json.loads(raw)
        if not isinstance(message, dict) or "method" not in message:
            continue  # answers to the flood's requests
        method, mid = message["method"], message.get("id")
        if method == "initialize":
            write(
                result(
                    mid,
                    {
                        "protocolVersion": message["params"]["protocolVersion"],
                        "capabilities": {"tools": {}, "resources": {}, "prompts": {}},
                        "serverInfo": {"name": "abuse", "version": "0"},
                    },
                )
            )
            continue
        if mid is None:
            if method == "notifications/initialized":
                if mode == "deaf":
                    stop.wait()  # never reads again
                if mode in ("flood", "deaf-flood"):
                    threading.Thread(target=flood, args=(stop,), daemon=True).start()
                    if mode == "deaf-flood":
                        stop.wait()
            continue
        if method == "server/discover":
            error = {"code": -32601, "message": "Method not found"}
            write({"jsonrpc": "2.0", "id": mid, "error": error})
        elif method == "ping":
            write(result(mid, {}))
        elif mode == "huge":
            size = int(arg)
            head = (
                b'{"jsonrpc": "2.0", "id": '
                + json.dumps(mid).encode()
                + b', "result": {"tools": [{"name": "'
            )
            chunk = b"a" * (1024 * 1024)
            with lock:
                out.write(head)
                for _ in range(size // len(chunk)):
                    out.write(chunk)
                out.write(b'", "inputSchema": {"type": "object"}}]}}\n')
                out.flush()
        elif mode == "malformed":
            answer = ANSWERS[arg](mid, method)
            for line in answer if isinstance(answer, list) else [answer]:
                write(line)
        elif method == "tools/list":
            write(result(mid, {"tools": [TOOL]}))
        else:
            write({"jsonrpc": "2.0", "id": mid, "error": {"code": -32601, "message": method}})
    stop.set()


if __name__ == "__main__":
    with contextlib.suppress(BrokenPipeError, KeyboardInterrupt):
        main()
