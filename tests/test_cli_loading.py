"""Loading a user's file under every command, through the real ``toolwire`` CLI.

A file that ends with a bare ``mcp.run()`` (no ``__main__`` guard) does not serve while the
CLI imports it: ``toolwire run`` serves it with its own options and stops on end of input,
``SIGTERM`` and ``SIGINT``; ``inspect`` and ``call`` never read stdin. What the file's code
prints (Python and descriptor 1) goes to stderr, so ``--json`` output parses. A missing
import gets the package to install into the environment toolwire runs in, and only for
modules known to the table (:mod:`toolwire.cli.packages`).
"""

from __future__ import annotations

import asyncio
import importlib.util
import json
import os
import pty
import shlex
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from mcp_spec import WireChecker, validate_definition
from wire import MODERN, SERVERS, RawServer, stopped_after

pytestmark = [
    pytest.mark.timeout(60),
    pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals and descriptors"),
]

LEGACY = "2025-11-25"
TIMEOUT = 20.0
BARE = SERVERS / "bare_run.py"
BARE_LOWLEVEL = SERVERS / "bare_run_lowlevel.py"
PRINTED = ("printed at import", "written to descriptor 1 at import")
PRINTED_BY_TOOL = ("printed by add", "written to descriptor 1 by add")


def toolwire_command(*args: str) -> list[str]:
    return [sys.executable, "-m", "toolwire", *args]


async def finished(*args: str, stdin: Any = asyncio.subprocess.DEVNULL) -> tuple[int, str, str]:
    """Run the CLI to its end (its stdin as given, never written to nor closed here)."""
    process = await asyncio.create_subprocess_exec(
        *toolwire_command(*args),
        stdin=stdin,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    assert process.stdout is not None and process.stderr is not None
    try:
        out, err = await asyncio.wait_for(
            asyncio.gather(process.stdout.read(), process.stderr.read()), TIMEOUT
        )
        code = await asyncio.wait_for(process.wait(), TIMEOUT)
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
    return code, out.decode(), err.decode()


async def started(*args: str, revision: str) -> RawServer:
    process = await asyncio.create_subprocess_exec(
        *toolwire_command(*args),
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    return RawServer(process, WireChecker(revision))


async def add(server: RawServer, revision: str) -> str:
    """Call ``add`` (after the handshake on a legacy revision); the answer's text."""
    if revision != MODERN:
        first = await server.initialize(revision)
        assert first["result"]["serverInfo"]["name"] == "bare"
    response = await server.request(
        "tools/call", {"name": "add", "arguments": {"a": 2, "b": 3}}, modern=revision == MODERN
    )
    return str(response["result"]["content"][0]["text"])


# ------------------------------------------------------------------ a bare mcp.run()


@pytest.mark.parametrize("revision", [LEGACY, MODERN])
async def test_run_of_a_bare_run_file_answers_then_exits_on_end_of_input(revision: str) -> None:
    async with stopped_after(await started("run", str(BARE), revision=revision)) as server:
        assert await add(server, revision) == "5"
        code, rest, err = await server.close()
    assert (code, rest) == (0, b"")
    assert all(line.startswith(b'{"jsonrpc":"2.0"') for line in server.lines)
    text = err.decode()
    for printed in (*PRINTED, *PRINTED_BY_TOOL):
        assert printed in text
    assert "after run" not in text  # the import ended at run(); nothing served it twice
    assert "calls run(" not in text  # run() had no arguments to override


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
async def test_run_of_a_bare_run_file_stops_on_a_signal(signum: int) -> None:
    async with stopped_after(await started("run", str(BARE), revision=MODERN)) as server:
        assert await add(server, MODERN) == "5"
        server.process.send_signal(signum)  # stdin stays open: only the signal stops it
        code = await asyncio.wait_for(server.process.wait(), TIMEOUT)
    assert code == 0


async def test_run_names_the_arguments_of_the_files_own_run_call_it_does_not_use(
    tmp_path: Path,
) -> None:
    call = 'mcp.run(transport="http", port=1)'
    text = BARE.read_text().replace("mcp.run()", call)
    lineno = text.splitlines().index(call) + 1
    server_file = tmp_path / "asks_http.py"
    server_file.write_text(text)
    async with stopped_after(await started("run", str(server_file), revision=LEGACY)) as server:
        assert await add(server, LEGACY) == "5"  # served over stdio, as the command says
        code, _, err = await server.close()
    assert code == 0
    line = next(line for line in err.decode().splitlines() if "calls run(" in line)
    assert line.startswith(f"toolwire: {server_file}:{lineno} calls run(transport='http', port=1)")
    assert "serves stdio" in line


@pytest.mark.parametrize("stdin", ["devnull", "open-pipe"])
@pytest.mark.parametrize("server_file", [BARE, BARE_LOWLEVEL], ids=["Server", "lowlevel"])
async def test_inspect_and_call_of_a_bare_run_file_finish_without_reading_stdin(
    server_file: Path, stdin: str
) -> None:
    given = asyncio.subprocess.DEVNULL if stdin == "devnull" else asyncio.subprocess.PIPE
    code, out, err = await finished("inspect", "--json", str(server_file), stdin=given)
    assert code == 0, err
    (tool,) = json.loads(out)["tools"]
    validate_definition(tool, "Tool", MODERN)
    assert tool["name"] == "add"
    code, out, err = await finished("call", str(server_file), "add", "a=2", "b=3", stdin=given)
    assert (code, out, "Traceback" in err) == (0, "5\n", False)
    assert "waiting for an MCP client" not in err


async def test_inspect_of_a_bare_run_file_on_a_terminal_names_no_placeholder() -> None:
    leader, follower = pty.openpty()
    try:
        code, out, err = await finished("inspect", str(BARE), stdin=follower)
    finally:
        os.close(follower)
        os.close(leader)
    assert code == 0 and "add" in out
    assert "waiting for an MCP client" not in err and "FILE" not in err


async def test_a_server_on_a_terminal_started_without_a_file_suggests_no_file() -> None:
    code = 'from toolwire import Server; Server("nameless").run()'
    leader, follower = pty.openpty()
    try:
        process = await asyncio.create_subprocess_exec(
            sys.executable, "-c", code, stdin=follower, stderr=asyncio.subprocess.PIPE
        )
    finally:
        os.close(follower)
    assert process.stderr is not None
    try:
        line = await asyncio.wait_for(process.stderr.readline(), TIMEOUT)
    finally:
        os.close(leader)  # the terminal hangs up: the server ends
        try:
            await asyncio.wait_for(process.wait(), TIMEOUT)
        except asyncio.TimeoutError:
            process.kill()
            await process.wait()
    assert line.startswith(b"MCP server 'nameless' is waiting for an MCP client on stdin")
    assert b"FILE" not in line and b"toolwire dev" not in line


# ------------------------------------------------------------------ stdout is the command's


@pytest.mark.parametrize(
    "args",
    [["inspect", "--json"], ["call", "--json", "add", "a=2", "b=3"], ["lint", "--json"]],
    ids=["inspect", "call", "lint"],
)
async def test_json_output_is_alone_on_stdout_and_the_files_prints_on_stderr(
    args: list[str],
) -> None:
    command, *rest = args
    code, out, err = await finished(command, str(BARE), *rest)
    assert code == 0, err
    document = json.loads(out)
    for printed in PRINTED:
        assert printed in err
    if command == "call":
        assert document == {"result": 5}
        for printed in PRINTED_BY_TOOL:
            assert printed in err
    elif command == "inspect":
        assert [tool["name"] for tool in document["tools"]] == ["add"]
    else:
        assert (document["targets"][0]["server"], document["errors"]) == ("bare", 0)


ARGPARSE_SERVER = """
import argparse
import sys

from toolwire import Server

parser = argparse.ArgumentParser()
parser.add_argument("--name", default="configured")
options = parser.parse_args()  # at import, as many example servers do
mcp = Server(options.name)


@mcp.tool()
def argv() -> list[str]:
    return sys.argv[1:]


if __name__ == "__main__":
    mcp.run()
"""


async def test_a_file_that_parses_its_arguments_at_import_sees_none(tmp_path: Path) -> None:
    # as under python FILE: the file's parser does not see the command's own words
    server = tmp_path / "configured.py"
    server.write_text(ARGPARSE_SERVER)
    code, out, err = await finished("inspect", "--json", str(server))
    assert code == 0, err
    assert [tool["name"] for tool in json.loads(out)["tools"]] == ["argv"]
    code, out, err = await finished("call", "--json", str(server), "argv")
    assert (code, json.loads(out)) == (0, {"result": []}), err
    running = await started("run", str(server), revision=LEGACY)
    async with stopped_after(running):
        first = await running.initialize(LEGACY)
        assert first["result"]["serverInfo"]["name"] == "configured"


SPLIT_SERVER = """
from toolwire import Server

mcp = Server("split")

import tools  # registers its tools on this server

class Point:
    pass

@mcp.tool(structured_output=False)
def where() -> str:  # the module a class of the file belongs to
    return type(Point()).__module__
"""

SPLIT_TOOLS = """
from server import mcp

@mcp.tool()
def ping() -> str:
    return "pong"
"""


async def test_a_module_importing_the_file_by_its_name_gets_the_same_server(
    tmp_path: Path,
) -> None:
    # the file is imported under its stem: tools.py's `from server import mcp` is this
    # server, not a second copy of the file
    (tmp_path / "server.py").write_text(SPLIT_SERVER)
    (tmp_path / "tools.py").write_text(SPLIT_TOOLS)
    code, out, err = await finished("inspect", "--json", str(tmp_path / "server.py"))
    assert code == 0, err
    assert sorted(tool["name"] for tool in json.loads(out)["tools"]) == ["ping", "where"]
    code, out, err = await finished("call", "--json", str(tmp_path / "server.py"), "where")
    assert code == 0, err
    assert json.loads(out)["content"] == [{"type": "text", "text": "server"}]


async def test_install_json_prints_only_the_entry() -> None:
    code, out, err = await finished("install", str(BARE), "--json")
    assert code == 0, err
    (entry,) = json.loads(out).values()
    assert entry["args"][-1] == str(BARE)
    assert PRINTED[0] in err


# ------------------------------------------------------------------ missing dependencies

PIP = f"{shlex.quote(sys.executable)} -m pip install"


@pytest.mark.parametrize(
    ("module", "package"),
    [("cv2", "opencv-python"), ("sklearn", "scikit-learn"), ("bs4", "beautifulsoup4")],
)
def test_a_missing_import_names_the_package_and_this_environment(
    tmp_path: Path, module: str, package: str
) -> None:
    if importlib.util.find_spec(module) is not None:
        pytest.skip(f"{module} is installed here")
    server_file = tmp_path / "needs.py"
    server_file.write_text(f"import {module}\n")
    result = subprocess.run(
        toolwire_command("inspect", str(server_file)),
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        stdin=subprocess.DEVNULL,
    )
    assert result.returncode == 2
    assert result.stderr == (
        f"toolwire: {server_file}: missing dependency {module!r}: {PIP} {package}\n"
    )


@pytest.mark.parametrize(
    ("module", "hint"),
    [("numpyy", "did you mean numpy?"), ("surely_not_installed_pkg", "check the spelling")],
)
def test_an_unknown_missing_import_gets_no_pip_suggestion(
    tmp_path: Path, module: str, hint: str
) -> None:
    server_file = tmp_path / "typo.py"
    server_file.write_text(f"import {module}\n")
    result = subprocess.run(
        toolwire_command("run", str(server_file)),
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        stdin=subprocess.DEVNULL,
    )
    assert result.returncode == 2
    assert "pip" not in result.stderr
    assert f"no module named {module!r} is installed" in result.stderr
    assert f"({sys.executable}); {hint}" in result.stderr
