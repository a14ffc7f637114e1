"""What a task round trip costs against a plain call: raw JSON-RPC over stdio (2026-07-28,
as the shared harness talks), one server, interleaved rounds.

* plain: ``tools/call add`` answered with the result;
* task: ``tools/call add_task`` answered with a task, then ``tasks/get`` until it completed
  (the tool ends at once, so this is the extension's own cost: creating, tracking and
  reading back a task).

Usage:  python benchmarks/task_roundtrip.py [--rounds 5] [--seconds 2]
Prints round trips per second for both, per round, and the median ratio task / plain.
"""

from __future__ import annotations

import argparse
import io
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import orjson

SERVER = [sys.executable, str(Path(__file__).with_name("task_server.py"))]
META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientInfo": {"name": "bench", "version": "0"},
    "io.modelcontextprotocol/clientCapabilities": {
        "extensions": {"io.modelcontextprotocol/tasks": {}}
    },
}


class Pipe:
    def __init__(self) -> None:
        self.process = subprocess.Popen(
            SERVER,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            bufsize=0,
        )
        assert self.process.stdin is not None and self.process.stdout is not None
        self.stdin = self.process.stdin
        self.out = io.BufferedReader(self.process.stdout, buffer_size=1 << 16)  # type: ignore[arg-type]
        self.ids = 0

    def request(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        self.ids += 1
        message = {"jsonrpc": "2.0", "id": self.ids, "method": method, "params": params}
        self.stdin.write(orjson.dumps(message) + b"\n")
        answer: dict[str, Any] = orjson.loads(self.out.readline())
        if "result" not in answer:
            raise RuntimeError(f"{method}: {answer}")
        return answer["result"]

    def close(self) -> None:
        self.stdin.close()
        self.process.wait(10)


def plain(pipe: Pipe) -> None:
    call = {"name": "add", "arguments": {"a": 1, "b": 2}, "_meta": META}
    assert pipe.request("tools/call", call)["content"][0]["text"] == "3"


def task(pipe: Pipe) -> None:
    call = {"name": "add_task", "arguments": {"a": 1, "b": 2}, "_meta": META}
    created = pipe.request("tools/call", call)
    assert created["resultType"] == "task"
    while True:
        state = pipe.request("tasks/get", {"taskId": created["taskId"], "_meta": META})
        if state["status"] == "completed":
            assert state["result"]["content"][0]["text"] == "3"
            return


def rate(pipe: Pipe, one: Any, seconds: float) -> float:
    count, started = 0, time.perf_counter()
    deadline = started + seconds
    while time.perf_counter() < deadline:
        one(pipe)
        count += 1
    return count / (time.perf_counter() - started)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--seconds", type=float, default=2.0)
    options = parser.parse_args()
    pipe = Pipe()
    try:
        rate(pipe, plain, 0.5)  # warm-up
        rate(pipe, task, 0.5)
        ratios = []
        for number in range(1, options.rounds + 1):
            plain_rate = rate(pipe, plain, options.seconds)
            task_rate = rate(pipe, task, options.seconds)
            ratios.append(plain_rate / task_rate)
            print(
                f"round {number}: plain {plain_rate:,.0f}/s, task {task_rate:,.0f}/s "
                f"(a task round trip costs {ratios[-1]:.2f} plain calls)"
            )
        print(f"median: a task round trip costs {statistics.median(ratios):.2f} plain calls")
    finally:
        pipe.close()


if __name__ == "__main__":
    main()
