"""Instructions the server executes per ``tools/call``, counted by valgrind's callgrind.

Unlike times, instruction counts repeat exactly on a busy machine, so they tell apart code
whose difference is smaller than the benchmark's round-to-round spread::

    python benchmarks/call_instructions.py                      # this checkout
    python benchmarks/call_instructions.py --src ../old/src     # another checkout's code
    BENCH_ASYNC_ADD=1 python benchmarks/call_instructions.py --http   # the HTTP app's work

It serves ``bench_server.py`` over stdio (2025-06-18) under callgrind with the code in
``--src`` first on ``sys.path``, and prints the instructions per call for sequential calls and
for calls 64 in flight, the start-up (a run with no calls) subtracted. With ``--http`` it
counts sequential calls through the server's HTTP app instead (``json_response`` as the harness
sets it), driven in process by ``asgi_calls.py`` as uvicorn drives it but without sockets, so
the count is the app's own work (past 32 calls made first): a legacy session (2025-06-18), or
2026-07-28 requests with ``--revision 2026-07-28``. ``--server proxy_server.py`` counts a
proxy's own work (its upstream runs outside callgrind). ``--tasks`` counts each kind of round
trip of ``task_roundtrip.py`` on ``task_server.py`` (a plain call, the task tools answered
with their result, a task created then read back with ``tasks/get``). Waiting (start-up, the
end of input) can add instructions when the machine is busy, never remove them, so each count
is the smallest of ``--repeat`` runs. Needs ``valgrind``.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 0,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "count", "version": "0"},
    },
}


WARM = 32  # calls made before the ones counted over HTTP


def app_instructions(src: Path, calls: int, revision: str) -> int:
    """Total instructions of ``asgi_calls.py`` making ``calls`` calls through the HTTP app."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "callgrind.out"
        env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
        env["PYTHONPATH"] = str(src)
        env["PYTHONHASHSEED"] = "0"  # the same hashes, so the same work, run after run
        command = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}"]
        script = str(HERE / "asgi_calls.py")
        run = [*command, sys.executable, script, str(calls), revision]
        subprocess.run(
            run, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env
        )
        return _summary(out)


def _summary(out: Path) -> int:
    found = re.search(r"^summary: (\d+)", out.read_text(), re.MULTILINE)
    if found is None:
        raise SystemExit("callgrind wrote no summary")
    return int(found.group(1))


def under_callgrind(src: Path, out: Path, *args: str) -> subprocess.Popen[bytes]:
    """A server script started under callgrind with the code in ``src``, spoken to over
    its stdin and stdout."""
    # As the shared harness starts servers: without the caller's PYTHON* settings.
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    env["PYTHONPATH"] = str(src)
    command = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}"]
    return subprocess.Popen(
        [*command, sys.executable, *args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=env,
    )


def instructions(src: Path, calls: int, window: int, script: Path) -> int:
    """Total instructions of a server that answers ``calls`` calls, ``window`` at a time."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "callgrind.out"
        server = under_callgrind(src, out, str(script), "stdio")
        assert server.stdin is not None and server.stdout is not None

        def send(message: dict[str, object]) -> None:
            server.stdin.write(json.dumps(message).encode() + b"\n")  # type: ignore[union-attr]

        send(INITIALIZE)
        server.stdin.flush()
        server.stdout.readline()
        send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        for first in range(1, calls + 1, window):
            batch = range(first, min(first + window, calls + 1))
            for mid in batch:
                arguments = {"a": mid, "b": 2}
                send(
                    {
                        "jsonrpc": "2.0",
                        "id": mid,
                        "method": "tools/call",
                        "params": {"name": "add", "arguments": arguments},
                    }
                )
            server.stdin.flush()
            for _ in batch:
                if "result" not in json.loads(server.stdout.readline()):
                    raise SystemExit("a call failed")
        server.stdin.close()
        server.wait(timeout=600)
        return _summary(out)


TASK_META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientInfo": {"name": "count", "version": "0"},
    "io.modelcontextprotocol/clientCapabilities": {
        "extensions": {"io.modelcontextprotocol/tasks": {}}
    },
}
TASK_TOOLS = {"plain call": "add", "sync task": "add_task", "async task": "add_async_task"}
TASK_TOOLS["task"] = "add_later_task"


def task_instructions(src: Path, tool: str, count: int) -> int:
    """Total instructions of ``task_server.py`` answering ``count`` round trips of ``tool``
    (2026-07-28 requests): the call, then ``tasks/get`` until the task completed, if the call
    was answered with a task."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "callgrind.out"
        server = under_callgrind(src, out, str(HERE / "task_server.py"))
        assert server.stdin is not None and server.stdout is not None
        ids = iter(range(1, 1 << 30))

        def ask(method: str, params: dict[str, object]) -> dict[str, object]:
            message = {"jsonrpc": "2.0", "id": next(ids), "method": method, "params": params}
            server.stdin.write(json.dumps(message).encode() + b"\n")  # type: ignore[union-attr]
            server.stdin.flush()  # type: ignore[union-attr]
            answer = json.loads(server.stdout.readline())  # type: ignore[union-attr]
            if "result" not in answer:
                raise SystemExit(f"{method} failed: {answer}")
            return answer["result"]  # type: ignore[no-any-return]

        started = {"name": "add", "arguments": {"a": 0, "b": 0}, "_meta": TASK_META}
        ask("tools/call", started)  # (in the start-up's count too)
        for _ in range(count):
            call = {"name": tool, "arguments": {"a": 1, "b": 2}, "_meta": TASK_META}
            result = ask("tools/call", call)
            while result.get("resultType") == "task" or result.get("status") == "working":
                task_id = result["taskId"]
                result = ask("tasks/get", {"taskId": task_id, "_meta": TASK_META})
        server.stdin.close()
        server.wait(timeout=600)
        return _summary(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--src", type=Path, default=HERE.parent / "src", help="the code to count")
    parser.add_argument("--calls", type=int, default=2048, help="calls per count (2048)")
    parser.add_argument("--repeat", type=int, default=3, help="runs per count, the least kept (3)")
    parser.add_argument("--http", action="store_true", help="through the HTTP app, sequential")
    parser.add_argument(
        "--server", type=Path, default=HERE / "bench_server.py", help="over stdio: the server"
    )
    parser.add_argument("--revision", default="2025-06-18", help="with --http (or 2026-07-28)")
    parser.add_argument(
        "--tasks", action="store_true", help="task_server.py: each kind of task round trip"
    )
    args = parser.parse_args()

    if args.tasks:
        calls = args.calls // 4  # (a task round trip is several requests)
        for kind, tool in TASK_TOOLS.items():
            counts = [
                min(task_instructions(args.src, tool, n) for _ in range(args.repeat))
                for n in (0, calls)
            ]
            print(f"{kind}: {(counts[1] - counts[0]) / calls:,.0f} instructions per round trip")
        return

    if args.http:

        def counted(calls: int) -> int:
            return min(app_instructions(args.src, calls, args.revision) for _ in range(args.repeat))

        # A run of WARM calls subtracted: the start-up, and what the first calls load.
        per_call = (counted(WARM + args.calls) - counted(WARM)) / args.calls
        print(f"HTTP {args.revision}, sequential: {per_call:,.0f} instructions per call")
        return

    def least(calls: int, window: int) -> int:
        return min(instructions(args.src, calls, window, args.server) for _ in range(args.repeat))

    start = least(0, 1)
    for name, window in (("sequential", 1), ("64 in flight", 64)):
        per_call = (least(args.calls, window) - start) / args.calls
        print(f"{name}: {per_call:,.0f} instructions per call")


if __name__ == "__main__":
    main()
