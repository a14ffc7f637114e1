"""How long a proxy over HTTP takes to answer its first sessions, and how many upstream
processes it starts for them, in each way of sharing its upstream connection::

    python benchmarks/proxy_sessions.py [--sessions 16] [--rounds 3]

Each round starts ``proxy_server.py http PORT`` in front of ``bench_server.py`` over stdio
(as ``toolwire proxy --command ... --transport http`` would), waits until it accepts, then
opens ``--sessions`` sessions at once, each an ``initialize`` and a ``tools/call``; it reports
the time from the first ``initialize`` to the last answer (the median of the rounds) and the
proxy's child processes once all are answered. Raw JSON-RPC over httpx, no SDK; sessions
declare no capabilities, as the shared harness's do.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path

import httpx

HERE = Path(__file__).resolve().parent
MODES = ("default", "per-session")
HEADERS = {"accept": "application/json, text/event-stream", "content-type": "application/json"}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


async def accepting(url: str) -> None:
    async with httpx.AsyncClient() as http:
        for _ in range(600):
            try:
                await http.get(url, timeout=1)
                return
            except httpx.TransportError:
                await asyncio.sleep(0.05)  # the server is starting: ask again
    raise SystemExit(f"{url} never accepted a connection")


async def session(http: httpx.AsyncClient, url: str) -> None:
    hello = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "proxy-sessions", "version": "1"},
        },
    }
    answer = await http.post(url, json=hello, headers=HEADERS)
    answer.raise_for_status()
    headers = {**HEADERS, "mcp-session-id": answer.headers["mcp-session-id"]}
    headers["mcp-protocol-version"] = "2025-06-18"
    ready = {"jsonrpc": "2.0", "method": "notifications/initialized"}
    await http.post(url, json=ready, headers=headers)
    call = {"jsonrpc": "2.0", "id": 2, "method": "tools/call"}
    call["params"] = {"name": "add", "arguments": {"a": 1, "b": 2}}
    answer = await http.post(url, json=call, headers=headers, timeout=120)
    answer.raise_for_status()
    result = answer.json()
    if "error" in result or result["result"].get("isError"):
        raise SystemExit(f"the call failed: {answer.text[:200]}")


def children(pid: int) -> int:
    path = Path(f"/proc/{pid}/task/{pid}/children")
    return len(path.read_text().split()) if path.exists() else -1


async def one_round(mode: str, sessions: int) -> tuple[float, int]:
    port = free_port()
    env = {**os.environ, "BENCH_PROXY_SHARING": mode, "BENCH_JSON_RESPONSE": "1"}
    python = str(HERE.parent / ".venv" / "bin" / "python")
    command = [python, str(HERE / "proxy_server.py"), "http", str(port)]
    server = subprocess.Popen(command, env=env, stderr=subprocess.DEVNULL)
    try:
        url = f"http://127.0.0.1:{port}/mcp"
        await accepting(url)
        limits = httpx.Limits(max_connections=sessions * 2)
        async with httpx.AsyncClient(limits=limits) as http:
            start = time.perf_counter()
            await asyncio.gather(*(session(http, url) for _ in range(sessions)))
            elapsed = time.perf_counter() - start
        return elapsed, children(server.pid)
    finally:
        server.terminate()
        server.wait(30)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sessions", type=int, default=16)
    parser.add_argument("--rounds", type=int, default=3)
    options = parser.parse_args()
    print(f"| sharing | {options.sessions} sessions answered (median s) | upstream processes |")
    print("|---|---|---|")
    results: dict[str, list[tuple[float, int]]] = {mode: [] for mode in MODES}
    for _ in range(options.rounds):
        for mode in MODES:
            results[mode].append(asyncio.run(one_round(mode, options.sessions)))
    for mode in MODES:
        times = [elapsed for elapsed, _ in results[mode]]
        processes = sorted({count for _, count in results[mode]})
        shown = "/".join(map(str, processes))
        print(f"| {mode} | {statistics.median(times):.2f} | {shown} |", flush=True)


if __name__ == "__main__":
    sys.exit(main())
