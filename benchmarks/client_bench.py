"""How much toolwire's client costs: sequential stdio ``tools/call`` round trips against the
benchmark server, with toolwire's ``Client`` and with a raw JSON-RPC loop like the shared
harness's (blocking pipes, orjson), interleaved round after round.

Usage:  python benchmarks/client_bench.py [--rounds 5] [--seconds 2]
Prints calls/s for both and the median ratio (raw / toolwire: the client's round trip cost
relative to the harness client's).
"""

from __future__ import annotations

import argparse
import asyncio
import io
import statistics
import subprocess
import sys
import time
from pathlib import Path

import orjson

from toolwire import Client

SERVER = [sys.executable, str(Path(__file__).with_name("bench_server.py")), "stdio"]
INIT = {
    "jsonrpc": "2.0",
    "id": 0,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "raw", "version": "0"},
    },
}


def raw_calls(seconds: float) -> float:
    process = subprocess.Popen(
        SERVER, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, bufsize=0
    )
    assert process.stdin is not None and process.stdout is not None
    out = io.BufferedReader(process.stdout, buffer_size=1 << 16)  # type: ignore[arg-type]
    process.stdin.write(orjson.dumps(INIT) + b"\n")
    out.readline()
    process.stdin.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
    count, deadline, started = 0, time.perf_counter() + seconds, time.perf_counter()
    while time.perf_counter() < deadline:
        count += 1
        call = {
            "jsonrpc": "2.0",
            "id": count,
            "method": "tools/call",
            "params": {"name": "add", "arguments": {"a": count, "b": 1}},
        }
        process.stdin.write(orjson.dumps(call) + b"\n")
        assert orjson.loads(out.readline())["id"] == count
    rate = count / (time.perf_counter() - started)
    process.stdin.close()
    process.wait(5)
    return rate


async def toolwire_calls(seconds: float) -> float:
    async with Client(SERVER, protocol_version="2025-06-18", stderr=subprocess.DEVNULL) as client:
        count, deadline, started = 0, time.perf_counter() + seconds, time.perf_counter()
        while time.perf_counter() < deadline:
            count += 1
            result = await client.call_tool("add", {"a": count, "b": 1})
            assert result.structured == {"result": count + 1}
        return count / (time.perf_counter() - started)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--seconds", type=float, default=2.0)
    options = parser.parse_args()
    ratios = []
    for round_ in range(1, options.rounds + 1):
        raw = raw_calls(options.seconds)
        ours = asyncio.run(toolwire_calls(options.seconds))
        ratios.append(raw / ours)
        print(
            f"round {round_}: raw {raw:,.0f} calls/s, toolwire Client {ours:,.0f} calls/s, ratio {raw / ours:.2f}"
        )
    print(
        f"median round-trip cost of toolwire's Client relative to the raw client: {statistics.median(ratios):.2f}x"
    )


if __name__ == "__main__":
    main()
