"""What a task round trip costs against a plain call: raw JSON-RPC over stdio (2026-07-28,
as the shared harness talks), one server, interleaved rounds.

* plain: ``tools/call add`` answered with the result;
* sync task: ``tools/call add_task``, a sync task tool that never blocks, and
* async task: ``tools/call add_async_task``, an async one that ends without waiting: both
  answered with the result itself, as the extension allows;
* task: ``tools/call add_later_task`` (it waits one turn of the event loop) answered with a
  task, then ``tasks/get`` until it completed (ready at the first), so this is the
  extension's own cost: creating, tracking and reading back a task.

Usage:  python benchmarks/task_roundtrip.py [--rounds 5] [--seconds 2]
Prints round trips per second for each, per round, and the median ratios to plain.
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


def sync_task(pipe: Pipe) -> None:
    at_once(pipe, "add_task")


def async_task(pipe: Pipe) -> None:
    at_once(pipe, "add_async_task")


def at_once(pipe: Pipe, name: str) -> None:
    """A tool answered with its result; the first call of a sync one runs on a thread (until
    it is judged never to block), which makes a task."""
    call = {"name": name, "arguments": {"a": 1, "b": 2}, "_meta": META}
    answered = pipe.request("tools/call", call)
    if answered["resultType"] == "task":
        polled(pipe, answered)
    else:
        assert answered["content"][0]["text"] == "3"


def task(pipe: Pipe) -> None:
    call = {"name": "add_later_task", "arguments": {"a": 1, "b": 2}, "_meta": META}
    created = pipe.request("tools/call", call)
    assert created["resultType"] == "task"
    polled(pipe, created)


def polled(pipe: Pipe, created: dict[str, Any]) -> None:
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
        kinds = {"sync task": sync_task, "async task": async_task, "task": task}
        for one in (plain, *kinds.values()):  # warm-up
            rate(pipe, one, 0.5)
        ratios: dict[str, list[float]] = {kind: [] for kind in kinds}
        for number in range(1, options.rounds + 1):
            plain_rate = rate(pipe, plain, options.seconds)
            rates = {kind: rate(pipe, one, options.seconds) for kind, one in kinds.items()}
            line = [f"round {number}: plain {plain_rate:,.0f}/s"]
            for kind, kind_rate in rates.items():
                ratios[kind].append(plain_rate / kind_rate)
                line.append(f"{kind} {kind_rate:,.0f}/s ({ratios[kind][-1]:.2f} plain calls)")
            print(", ".join(line))
        for kind, values in ratios.items():
            print(f"median: a {kind} round trip costs {statistics.median(values):.2f} plain calls")
    finally:
        pipe.close()


if __name__ == "__main__":
    main()
