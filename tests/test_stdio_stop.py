"""A stdio server stops cleanly whatever its stdin is: the null device (``nohup``, ``docker
run`` without ``-i``, systemd), a closed descriptor, a file of requests, or a pipe that stays
open; and ``SIGTERM``/``SIGINT`` stop it within its grace. Each case runs as ``python FILE``
and as ``toolwire run FILE``, through real subprocesses; every answer is checked against the
revision's schema."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import orjson
import pytest

from mcp_spec import WireChecker
from wire import EXAMPLES, MODERN, modern_meta

pytestmark = [
    pytest.mark.timeout(60),
    pytest.mark.skipif(sys.platform == "win32", reason="POSIX descriptors and signals"),
]

TIMEOUT = 20.0  # any single wait: a line, an exit
EXIT_BOUND = 8.0  # seconds: generous bound for "exits promptly" on a loaded 2-core machine

SERVER = """
import asyncio
import os
import threading

from toolwire import Server

mcp = Server(
    "stopping",
    shutdown_grace=float(os.environ.get("STOP_GRACE", "2")),
    max_message_bytes=int(os.environ.get("STOP_MAX_BYTES", "1000000")),
    max_pending_output_bytes=int(os.environ.get("STOP_MAX_PENDING", "1048576")),
    max_calls_in_flight=int(os.environ.get("STOP_MAX_CALLS", "32")),
)


@mcp.tool()
def add(a: int, b: int) -> int:
    return a + b


@mcp.tool()
async def sleep(seconds: float) -> str:
    await asyncio.sleep(seconds)
    return f"slept {seconds}"


@mcp.tool(structured_output=False)  # answers of ``size`` bytes
async def blob(size: int, pad: str = "") -> str:
    return "x" * size


@mcp.tool()
def threads() -> str:
    return " ".join(sorted(thread.name for thread in threading.enumerate()))


if __name__ == "__main__":
    mcp.run()
"""


@pytest.fixture
def server_file(tmp_path: Path) -> Path:
    path = tmp_path / "stopping.py"
    path.write_text(SERVER, encoding="utf-8")
    return path


def script(path: Path) -> list[str]:
    return [sys.executable, str(path)]


def cli(path: Path) -> list[str]:
    return [sys.executable, "-m", "toolwire", "run", str(path)]


COMMANDS = [pytest.param(script, id="python-FILE"), pytest.param(cli, id="toolwire-run")]


def call(mid: Any, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    params = {"name": name, "arguments": arguments, "_meta": modern_meta()}
    return {"jsonrpc": "2.0", "id": mid, "method": "tools/call", "params": params}


def text_of(message: dict[str, Any]) -> str:
    assert "result" in message and not message["result"].get("isError"), message
    return str(message["result"]["content"][0]["text"])


def answers(checker: WireChecker, out: bytes) -> dict[Any, dict[str, Any]]:
    """The lines a server wrote, each a checked JSON-RPC message, by id."""
    got: dict[Any, dict[str, Any]] = {}
    for line in out.splitlines():
        checker.server_sent(line)
        message = orjson.loads(line)
        assert message.get("id") not in got, f"answered twice: {message}"
        got[message.get("id")] = message
    return got


def requests_file(tmp_path: Path, messages: list[dict[str, Any]], checker: WireChecker) -> Path:
    for message in messages:
        checker.client_sent(message)
    path = tmp_path / "requests.jsonl"
    path.write_bytes(b"".join(orjson.dumps(m) + b"\n" for m in messages))
    return path


@contextlib.asynccontextmanager
async def started(
    command: list[str],
    stdin: Any,
    stdout: Any = asyncio.subprocess.PIPE,
    limit: int = 2**16,
    **env: str,
) -> AsyncIterator[asyncio.subprocess.Process]:
    """A server process for the block (``limit``: the longest line read from it; ``env``:
    the server file's settings); killed afterwards if it is still running."""
    process = await asyncio.create_subprocess_exec(
        *command,
        stdin=stdin,
        stdout=stdout,
        stderr=asyncio.subprocess.PIPE,
        limit=limit,
        env={**os.environ, **env},
    )
    try:
        yield process
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()


async def ended(process: asyncio.subprocess.Process) -> tuple[int, bytes, bytes, float]:
    """Wait for the exit: (exit code, stdout, stderr, seconds it took)."""
    loop = asyncio.get_running_loop()
    start = loop.time()
    out, err = await asyncio.wait_for(process.communicate(), TIMEOUT)
    code = await asyncio.wait_for(process.wait(), TIMEOUT)
    return code, out or b"", err, loop.time() - start


def clean(err: bytes) -> None:
    assert b"Traceback" not in err, err.decode(errors="replace")
    assert b"PermissionError" not in err, err.decode(errors="replace")


# ---------------------------------------------------------------------------- no input


CLOSED_STDIN = ["bash", "-c", 'exec 0<&- "$@"', "bash"]  # runs the command with fd 0 closed


@pytest.mark.parametrize("stdin", ["devnull", "closed"])
@pytest.mark.parametrize("command", COMMANDS)
async def test_no_input_is_the_end_of_input_exit_0_at_once(command: Any, stdin: str) -> None:
    """``< /dev/null`` and ``<&-``: the event loop cannot watch either; the server reads end
    of input and exits 0, without a traceback, writing nothing on stdout."""
    argv = command(EXAMPLES / "calculator.py")
    if stdin == "closed":
        argv = [*CLOSED_STDIN, *argv]
    async with started(argv, asyncio.subprocess.DEVNULL) as process:
        code, out, err, took = await ended(process)
    assert code == 0, err.decode(errors="replace")
    assert out == b""
    assert took < EXIT_BOUND
    clean(err)


async def test_a_file_opened_on_a_closed_descriptor_0_is_not_read_as_stdin(
    tmp_path: Path,
) -> None:
    """Started with descriptor 0 closed, a file the server opens at import lands on it; at
    ``mcp.run()`` that file is not stdin: never read as requests, never replaced."""
    data = tmp_path / "data.jsonl"
    data.write_bytes(b'{"jsonrpc":"2.0","id":1,"method":"ping"}\n' * 3)
    path = tmp_path / "opens_a_file.py"
    path.write_text(
        "import os, sys\n"
        "from toolwire import Server\n"
        f"kept = open({str(data)!r}, 'rb')\n"
        "print(f'kept on descriptor {kept.fileno()}', file=sys.stderr, flush=True)\n"
        "mcp = Server('opens-a-file')\n"
        "mcp.run()\n"
        "print(f'still the file: {os.path.samestat(os.fstat(0), os.stat(kept.name))}', "
        "file=sys.stderr)\n",
        encoding="utf-8",
    )
    async with started([*CLOSED_STDIN, *script(path)], asyncio.subprocess.DEVNULL) as process:
        code, out, err, took = await ended(process)
    assert code == 0, err.decode(errors="replace")
    assert b"kept on descriptor 0" in err, err.decode(errors="replace")
    assert out == b"", "the file on descriptor 0 was read as requests"
    assert b"still the file: True" in err
    assert took < EXIT_BOUND
    clean(err)


# ---------------------------------------------------------------------------- a file of requests


@pytest.mark.parametrize("command", COMMANDS)
async def test_a_file_of_requests_is_answered_in_full_then_the_server_exits(
    command: Any, server_file: Path, tmp_path: Path
) -> None:
    """``< requests.jsonl``: every request is answered on stdout (the slow call too, within
    the grace), an over-long line gets its error, then exit 0."""
    checker = WireChecker(MODERN)
    messages = [call(i, "add", {"a": i, "b": 1}) for i in range(50)]
    messages.append(call("slow", "sleep", {"seconds": 0.3}))
    messages.append(call("long", "blob", {"size": 1, "pad": "p" * 5000}))
    path = requests_file(tmp_path, messages, checker)
    with path.open("rb") as stdin:
        async with started(command(server_file), stdin, STOP_MAX_BYTES="4096") as process:
            code, out, err, took = await ended(process)
    assert code == 0, err.decode(errors="replace")
    assert took < EXIT_BOUND
    got = answers(checker, out)
    assert set(got) == {*range(50), "slow", None}, sorted(map(str, got))
    assert [text_of(got[i]) for i in range(50)] == [str(i + 1) for i in range(50)]
    assert text_of(got["slow"]) == "slept 0.3"
    assert got[None]["error"]["code"] == -32600, got[None]
    clean(err)


@pytest.mark.parametrize("stdout", ["devnull", "file"])
@pytest.mark.parametrize("command", COMMANDS)
async def test_stdout_a_file_or_the_null_device(
    command: Any, stdout: str, server_file: Path, tmp_path: Path
) -> None:
    """``< requests.jsonl > answers.jsonl`` (or ``> /dev/null``): answers are written, the
    server exits 0, no traceback."""
    checker = WireChecker(MODERN)
    path = requests_file(tmp_path, [call(i, "add", {"a": i, "b": i}) for i in range(20)], checker)
    written = tmp_path / "answers.jsonl"
    with path.open("rb") as stdin, written.open("wb") as file:
        out_to = asyncio.subprocess.DEVNULL if stdout == "devnull" else file
        async with started(command(server_file), stdin, out_to) as process:
            code, _out, err, took = await ended(process)
    assert code == 0, err.decode(errors="replace")
    assert took < EXIT_BOUND
    clean(err)
    if stdout == "file":
        got = answers(checker, written.read_bytes())
        assert {mid: text_of(m) for mid, m in got.items()} == {i: str(2 * i) for i in range(20)}


@pytest.mark.parametrize("command", COMMANDS)
async def test_a_call_longer_than_the_grace_does_not_keep_a_file_fed_server_alive(
    command: Any, server_file: Path, tmp_path: Path
) -> None:
    """End of the file with a call that would take a minute: the answers before it come, the
    call gets its grace (0.5 s), is cut off unanswered, and the server exits 0."""
    checker = WireChecker(MODERN)
    messages = [call("first", "add", {"a": 1, "b": 2}), call("stuck", "sleep", {"seconds": 60})]
    path = requests_file(tmp_path, messages, checker)
    with path.open("rb") as stdin:
        async with started(command(server_file), stdin, STOP_GRACE="0.5") as process:
            code, out, err, took = await ended(process)
    assert code == 0, err.decode(errors="replace")
    assert took < EXIT_BOUND
    got = answers(checker, out)
    assert list(got) == ["first"] and text_of(got["first"]) == "3"
    clean(err)


async def test_a_file_is_read_no_faster_than_its_answers_are(
    server_file: Path, tmp_path: Path
) -> None:
    """Pausing works on a file as on a pipe: while the answers go unread, the server stops
    reading the file (its read offset, shared with this test's descriptor, stays far behind
    the end); as they are read, it reads on, and every request is answered."""
    checker = WireChecker(MODERN)
    size, count, pad = 50_000, 600, "p" * 8000
    messages = [call(i, "blob", {"size": size, "pad": pad}) for i in range(count)]
    path = requests_file(tmp_path, messages, checker)
    total = path.stat().st_size  # about 5 MB
    # read at most: the lines waiting for a slot (1 MiB) and a read's worth beyond them,
    # the 4 calls in flight, and the requests of the answers read meanwhile (50 x 8 kB)
    bound = 2 * 1024 * 1024
    offsets = []
    limits = {"STOP_MAX_PENDING": "200000", "STOP_MAX_CALLS": "4"}
    with path.open("rb") as stdin:
        async with started(cli(server_file), stdin, limit=2 * size, **limits) as process:
            assert process.stdout is not None
            for mid in range(count):
                line = await asyncio.wait_for(process.stdout.readline(), TIMEOUT)
                if mid < 50:
                    offsets.append(os.lseek(stdin.fileno(), 0, os.SEEK_CUR))
                checker.server_sent(line)
                assert len(text_of(orjson.loads(line))) == size
            code, out, err, _took = await ended(process)
    assert code == 0 and out == b""
    assert max(offsets) < bound < total, (offsets, total)
    clean(err)


# ---------------------------------------------------------------------------- signals


async def first_answer(process: asyncio.subprocess.Process, checker: WireChecker) -> Any:
    assert process.stdout is not None
    line = await asyncio.wait_for(process.stdout.readline(), TIMEOUT)
    assert line, "stdout ended before the first answer"
    checker.server_sent(line)
    return orjson.loads(line)


@pytest.mark.parametrize("name", ["SIGTERM", "SIGINT"])
@pytest.mark.parametrize("command", COMMANDS)
async def test_a_signal_stops_a_server_whose_stdin_stays_open(
    command: Any, name: str, server_file: Path
) -> None:
    """The client keeps stdin open; after an answer (the server is serving), the signal stops
    it within its grace: the call in flight (a minute long) is cut off, exit 0. The pipe is
    watched by the event loop, no thread reads it."""
    checker = WireChecker(MODERN)
    async with started(command(server_file), asyncio.subprocess.PIPE, STOP_GRACE="1") as process:
        assert process.stdin is not None
        for message in (call("threads", "threads", {}), call("stuck", "sleep", {"seconds": 60})):
            checker.client_sent(message)
            process.stdin.write(orjson.dumps(message) + b"\n")
        await process.stdin.drain()
        answer = await first_answer(process, checker)
        assert answer["id"] == "threads"
        assert "toolwire-stdin" not in text_of(answer).split(), text_of(answer)
        process.send_signal(getattr(signal, name))
        code, out, err, took = await ended(process)
    assert code == 0, err.decode(errors="replace")
    assert took < EXIT_BOUND
    assert out == b"", "the call cut off by the stop is never answered"
    assert f"{name}: reading no more requests".encode() in err
    clean(err)


@pytest.mark.parametrize("name", ["SIGTERM", "SIGINT"])
@pytest.mark.parametrize("command", COMMANDS)
async def test_a_signal_stops_a_server_fed_from_a_file(
    command: Any, name: str, server_file: Path, tmp_path: Path
) -> None:
    """stdin a file whose last call would take a minute, a grace of a minute too: after the
    first answer, the signal (a second one if the first began the stop) ends the server at
    once, exit 0, the long call unanswered."""
    checker = WireChecker(MODERN)
    messages = [call("first", "add", {"a": 2, "b": 2}), call("stuck", "sleep", {"seconds": 60})]
    path = requests_file(tmp_path, messages, checker)
    signum = getattr(signal, name)
    with path.open("rb") as stdin:
        async with started(command(server_file), stdin, STOP_GRACE="60") as process:
            assert text_of(await first_answer(process, checker)) == "4"
            process.send_signal(signum)
            assert process.stderr is not None
            line = await asyncio.wait_for(process.stderr.readline(), TIMEOUT)
            if b"reading no more requests" in line:  # the signal came before the end of file
                process.send_signal(signum)
            code, out, err, took = await ended(process)
    assert code == 0, (line + err).decode(errors="replace")
    assert took < EXIT_BOUND
    assert out == b""
    assert b"cancelling the calls still running" in line + err
    clean(line + err)
