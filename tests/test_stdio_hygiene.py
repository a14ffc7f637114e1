"""stdio hygiene through real subprocesses: ``toolwire run`` holds the standard streams
before it imports the user's file (its prints go to stderr), a tool's subprocess or a tool
reading ``sys.stdin`` gets end-of-file instead of the client's next request, and a server
whose stdin is a terminal says on stderr that it waits for an MCP client. Every message the
server writes is checked against the revision's schema."""

from __future__ import annotations

import asyncio
import contextlib
import os
import pty
import sys
from collections.abc import AsyncIterator
from typing import Any

import pytest

from mcp_spec import WireChecker
from wire import MODERN, SERVERS, RawServer, stopped_after

pytestmark = [
    pytest.mark.timeout(60),
    pytest.mark.skipif(sys.platform == "win32", reason="POSIX descriptors and pseudo-terminals"),
]

LEGACY = "2025-11-25"
SCRIPT = SERVERS / "stdio_hygiene.py"
RUN = [sys.executable, "-m", "toolwire", "run", str(SCRIPT)]
SCRIPT_RUN = [sys.executable, str(SCRIPT)]
WAITING = b"is waiting for an MCP client"
TIMEOUT = 20.0


@contextlib.asynccontextmanager
async def served(command: list[str], revision: str) -> AsyncIterator[RawServer]:
    process = await asyncio.create_subprocess_exec(
        *command,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    async with stopped_after(RawServer(process, WireChecker(revision))) as server:
        yield server


async def call(server: RawServer, revision: str, name: str, arguments: dict[str, Any]) -> Any:
    response = await server.request(
        "tools/call", {"name": name, "arguments": arguments}, modern=revision == MODERN
    )
    result = response["result"]
    return result.get("isError", False), result["content"][0]["text"]


@pytest.mark.parametrize("revision", [LEGACY, MODERN])
async def test_module_level_prints_never_reach_the_protocol_stream(revision: str) -> None:
    async with served(RUN, revision) as server:
        if revision != MODERN:
            first = await server.initialize(revision)  # the first line out is the answer
            assert first["result"]["serverInfo"]["name"] == "hygiene"
        assert await call(server, revision, "echo", {"text": "hi"}) == (False, "hi")
        code, rest, err = await server.close()
    assert code == 0 and rest == b""
    assert all(line.startswith(b'{"jsonrpc":"2.0"') for line in server.lines)
    for printed in (b"loading the hygiene server", b"more at import", b"straight to descriptor 1"):
        assert printed in err
    assert b"echo was called" in err
    assert WAITING not in err  # stdin was a pipe: a client, not a person


LIFESPAN = SERVERS / "lifespan_prints.py"


@pytest.mark.parametrize(
    "command",
    [[sys.executable, str(LIFESPAN)], [sys.executable, str(LIFESPAN), "async"]],
    ids=["mcp.run", "run_stdio_async"],
)
async def test_a_lifespan_that_prints_never_reaches_the_protocol_stream(
    command: list[str],
) -> None:
    async with served(command, LEGACY) as server:
        first = await server.initialize(LEGACY)  # the first line out is the answer
        assert first["result"]["serverInfo"]["name"] == "lifespan-prints"
        assert await call(server, LEGACY, "echo", {"text": "hi"}) == (False, "hi")
        code, rest, err = await server.close()
    assert code == 0 and rest == b""
    assert all(line.startswith(b'{"jsonrpc":"2.0"') for line in server.lines)
    for printed in (b"the lifespan starts", b"echo was called", b"the lifespan ends"):
        assert printed in err


@pytest.mark.parametrize("command", [RUN, SCRIPT_RUN], ids=["toolwire-run", "mcp.run"])
@pytest.mark.parametrize("revision", [LEGACY, MODERN])
async def test_a_tool_reading_stdin_gets_end_of_file_not_the_next_request(
    command: list[str], revision: str
) -> None:
    async with served(command, revision) as server:
        if revision != MODERN:
            await server.initialize(revision)
        modern = revision == MODERN
        # the next request follows at once: a subprocess sharing the protocol's stdin
        # would block on it or eat it
        await server.send(
            {
                "jsonrpc": "2.0",
                "id": 101,
                "method": "tools/call",
                "params": _params("run_cat", modern),
            }
        )
        await server.send(
            {
                "jsonrpc": "2.0",
                "id": 102,
                "method": "tools/call",
                "params": _params("read_stdin", modern),
            }
        )
        await server.send(
            {
                "jsonrpc": "2.0",
                "id": 103,
                "method": "tools/call",
                "params": _params("echo", modern, {"text": "still here"}),
            }
        )
        answers = {}
        for _ in range(3):
            message = await server.recv(TIMEOUT)
            answers[message["id"]] = message["result"]["content"][0]["text"]
        assert answers == {101: "cat read 0 bytes", 102: "read ''", 103: "still here"}
        code, _, _ = await server.close()
    assert code == 0


def _params(name: str, modern: bool, arguments: dict[str, Any] | None = None) -> dict[str, Any]:
    from wire import modern_meta

    params: dict[str, Any] = {"name": name, "arguments": arguments or {}}
    if modern:
        params["_meta"] = modern_meta()
    return params


@pytest.mark.parametrize("command", [RUN, SCRIPT_RUN], ids=["toolwire-run", "mcp.run"])
async def test_a_terminal_on_stdin_gets_one_line_saying_the_server_waits(
    command: list[str],
) -> None:
    leader, follower = pty.openpty()
    try:
        process = await asyncio.create_subprocess_exec(
            *command,
            stdin=follower,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
    finally:
        os.close(follower)
    assert process.stderr is not None and process.stdout is not None
    try:
        seen = b""
        while WAITING not in seen:
            line = await asyncio.wait_for(process.stderr.readline(), TIMEOUT)
            assert line, f"stderr ended without the waiting line: {seen!r}"
            seen += line
        (hint,) = [line for line in seen.splitlines() if WAITING in line]
        assert hint.startswith(b"MCP server 'hygiene' is waiting for an MCP client on stdin")
        assert f"toolwire dev {SCRIPT}".encode() in hint
    finally:
        os.close(leader)  # the terminal hangs up: the server ends
        try:
            await asyncio.wait_for(process.wait(), TIMEOUT)
        except asyncio.TimeoutError:
            process.kill()
            await process.wait()
    assert await process.stdout.read() == b"" or command is SCRIPT_RUN
