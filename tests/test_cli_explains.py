"""Every ``toolwire`` command explains itself, run as real subprocesses.

``run --transport http`` says where it serves once the port accepts; a missing extra is one
line with the pip command (exit 2); ``--version`` and ``--help`` with descriptions and
defaults; a closed stdout ends quietly; ``inspect`` shows tools, resources, templates and
prompts with parameter descriptions and names what scopes hide; ``inspect`` and ``call``
reach a URL (with ``--header``) or ``--command`` as ``dev`` does. Servers over HTTP listen on
127.0.0.1 and are driven by toolwire's ``Client`` with every message checked against the
negotiated revision's schema.
"""

from __future__ import annotations

import asyncio
import json
import os
import socket
import subprocess
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest

from toolwire._pip import extra_install

from mcp_spec import validate_definition
from wire import EXAMPLES, MODERN, checked_client

pytestmark = pytest.mark.timeout(60)

CALCULATOR = EXAMPLES / "calculator.py"
DOCS = EXAMPLES / "docs_server.py"
TIMEOUT = 20.0
SERVING = "over Streamable HTTP at "

SCOPED = """
from toolwire import Server
from toolwire.auth import ResourceServer, StaticTokens

tokens = StaticTokens({"reader": ["notes:read"], "writer": ["notes:read", "notes:write"]})
mcp = Server("Notes", auth=ResourceServer("http://127.0.0.1/mcp", [], tokens))

@mcp.tool(scopes=["notes:read"])
def read_note(name: str) -> str:
    \"\"\"Read one note.\"\"\"
    return "note " + name

@mcp.tool(scopes=["notes:write"])
def write_note(name: str, text: str) -> str:
    \"\"\"Write one note.\"\"\"
    return "written"
"""


def toolwire(*args: str, python: list[str] | None = None) -> Any:
    return subprocess.run(
        [*(python or [sys.executable]), "-m", "toolwire", *args],
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
    )


async def atoolwire(*args: str) -> Any:
    return await asyncio.to_thread(toolwire, *args)


def one_line_error(result: Any) -> str:
    assert result.returncode == 2, (result.stdout, result.stderr)
    assert "Traceback" not in result.stderr, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    return lines[0]


@asynccontextmanager
async def served(target: Path | str) -> AsyncIterator[str]:
    """``toolwire run TARGET --transport http --port 0``; yields the URL it prints."""
    process = await asyncio.create_subprocess_exec(
        *[sys.executable, "-m", "toolwire", "run", str(target), "--transport", "http"],
        *["--port", "0"],
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.PIPE,
    )
    assert process.stderr is not None
    try:
        line = (await asyncio.wait_for(process.stderr.readline(), TIMEOUT)).decode()
        assert SERVING in line, line
        yield line.split(SERVING)[1].strip()
    finally:
        process.terminate()
        code = await asyncio.wait_for(process.wait(), TIMEOUT)
        assert code == 0


# ------------------------------------------------------------------ run over HTTP


async def test_run_http_prints_the_url_once_it_accepts() -> None:
    async with served(CALCULATOR) as url:
        assert url.startswith("http://127.0.0.1:") and url.endswith("/mcp")
        assert not url.endswith(":0/mcp")  # the port actually bound
        async with checked_client(url, protocol_version=MODERN) as client:
            result = await asyncio.wait_for(client.call_tool("add", {"a": 2, "b": 3}), TIMEOUT)
            assert result.text == "5.0"
        # inspect and call reach the same server by its URL
        listed = await atoolwire("inspect", url, "--json")
        assert listed.returncode == 0, listed.stderr
        assert [tool["name"] for tool in json.loads(listed.stdout)["tools"]][:2] == [
            "add",
            "subtract",
        ]
        called = await atoolwire("call", url, "divide", "a=1", "b=4")
        assert (called.returncode, called.stdout.strip()) == (0, "0.25"), called.stderr
        failed = await atoolwire("call", url, "divide", "a=1", "b=0")
        assert failed.returncode == 1 and "Cannot divide by zero" in failed.stderr


# ------------------------------------------------------------------ addresses run cannot use

SERVE_HTTP = {
    "run": ["run", str(CALCULATOR)],
    "proxy": ["proxy", "--command", f"{sys.executable} -m toolwire run {CALCULATOR}"],
}


@pytest.mark.parametrize("command", list(SERVE_HTTP))
def test_a_busy_port_is_one_line_that_suggests_port_0(command: str) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = toolwire(*SERVE_HTTP[command], "--transport", "http", "--port", str(port))
    line = one_line_error(result)
    assert f"port {port} is in use" in line
    assert "--port 0 picks a free port" in line


def test_a_host_that_is_not_this_machines_is_one_line() -> None:
    # 192.0.2.1 is reserved for documentation: no machine has it, and binding fails locally
    result = toolwire("run", str(CALCULATOR), "--transport", "http", "--host", "192.0.2.1")
    line = one_line_error(result)
    assert "192.0.2.1 is not an address of this machine" in line
    assert "--host 127.0.0.1" in line


@pytest.mark.parametrize(
    ("option", "value", "message"),
    [
        ("--port", "99999", "'99999' is not a port: give 0 to 65535"),
        ("--port", "-1", "'-1' is not a port"),
        ("--path", "mcp", "'mcp' is not a path: start it with /"),
    ],
)
@pytest.mark.parametrize("command", list(SERVE_HTTP))
def test_a_bad_port_or_path_is_a_usage_error(
    command: str, option: str, value: str, message: str
) -> None:
    result = toolwire(*SERVE_HTTP[command], "--transport", "http", f"{option}={value}")
    assert result.returncode == 2 and "Traceback" not in result.stderr, result.stderr
    assert f"error: argument {option}: {message}" in result.stderr


def test_dev_refuses_a_port_out_of_range() -> None:
    result = toolwire("dev", str(CALCULATOR), "--no-browser", "--port", "70000")
    assert result.returncode == 2 and "Traceback" not in result.stderr, result.stderr
    assert "'70000' is not a port" in result.stderr


def test_a_url_with_a_port_out_of_range_names_the_cause() -> None:
    line = one_line_error(toolwire("inspect", "http://127.0.0.1:99999/mcp"))
    assert "port must be 0-65535" in line


# ------------------------------------------------------------------ missing extras

BLOCK_HTTP = "import sys; sys.modules['uvicorn'] = sys.modules['httpx'] = None; "


def without_http(*args: str) -> Any:
    code = BLOCK_HTTP + f"from toolwire.cli import main; sys.exit(main({list(args)!r}))"
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=TIMEOUT
    )


@pytest.mark.parametrize(
    ("args", "module"),
    [
        (["run", str(CALCULATOR), "--transport", "http"], "uvicorn"),
        (["inspect", "http://127.0.0.1:9/mcp"], "httpx"),
        (["call", "http://127.0.0.1:9/mcp", "add", "a=1"], "httpx"),
        (["dev", "http://127.0.0.1:9/mcp", "--no-browser"], "httpx"),
    ],
)
def test_a_missing_extra_is_one_line_with_the_pip_command(args: list[str], module: str) -> None:
    line = one_line_error(without_http(*args))
    assert f"({module} is not installed)" in line
    assert line.endswith(extra_install("http"))  # this interpreter's pip, this checkout


# ------------------------------------------------------------------ version, help


def test_version_flag() -> None:
    import toolwire as package

    result = toolwire("--version")
    assert (result.returncode, result.stdout.strip()) == (0, f"toolwire {package.__version__}")


def test_help_of_every_command_has_descriptions_and_defaults() -> None:
    run = toolwire("run", "--help")
    assert run.returncode == 0
    for expected in ("(default: /mcp)", "(default: 127.0.0.1)", "(default: 8000)", "stdio"):
        assert expected in run.stdout, run.stdout
    for command in ("dev", "inspect", "call", "version"):  # install: its own tests
        shown = toolwire(command, "--help")
        assert shown.returncode == 0 and shown.stdout.startswith(f"usage: toolwire {command}")
        options = shown.stdout.split("options:")[1]
        for line in options.splitlines():  # every option has its description
            if line.strip().startswith("--") and "  " not in line.strip():
                index = options.splitlines().index(line)
                assert options.splitlines()[index + 1].startswith(" " * 10), (command, line)
    assert "(default: None)" not in toolwire("call", "--help").stdout


# ------------------------------------------------------------------ closed pipe


@pytest.mark.parametrize("buffered", [True, False])
def test_a_closed_stdout_ends_without_a_traceback(buffered: bool) -> None:
    env = {key: value for key, value in os.environ.items() if key != "PYTHONUNBUFFERED"}
    if not buffered:  # each print reaches the pipe at once: the error comes from print
        env["PYTHONUNBUFFERED"] = "1"
    process = subprocess.Popen(
        [sys.executable, "-m", "toolwire", "inspect", str(DOCS)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    )
    assert process.stdout is not None and process.stderr is not None
    process.stdout.close()  # the reader leaves before anything is written (as `| head` can)
    try:
        stderr = process.stderr.read().decode()
        code = process.wait(TIMEOUT)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(TIMEOUT)
    assert (code, stderr) == (0, "")


# ------------------------------------------------------------------ inspect shows everything


def test_inspect_lists_resources_templates_and_prompts_with_descriptions() -> None:
    result = toolwire("inspect", str(DOCS))
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    pages = len(list((EXAMPLES.parent / "docs").rglob("*.md")))  # the example serves docs/
    assert lines[0] == f"Docs 0.1.0 - 1 tool, {pages} resources, 1 resource template, 1 prompt"
    for heading in ("Tools:", "Resources:", "Resource templates:", "Prompts:"):
        assert heading in lines
    assert "      query*: string  Words to look for (case does not matter)" in lines
    assert "      limit: integer = 5  How many pages to return at most (1-20)" in lines
    assert "  docs://index.md  toolwire (text/markdown)" in lines
    assert "  docs://{+path}  Documentation page (text/markdown)" in lines
    assert "  summarize  Summarize a page" in lines
    assert "      path*  The page, e.g. index.md" in lines

    listed = toolwire("inspect", str(DOCS), "--json")
    everything = json.loads(listed.stdout)
    assert sorted(everything) == ["prompts", "resourceTemplates", "resources", "tools"]
    for key, definition in (
        ("tools", "Tool"),
        ("resources", "Resource"),
        ("resourceTemplates", "ResourceTemplate"),
        ("prompts", "Prompt"),
    ):
        assert everything[key]
        for entry in everything[key]:
            validate_definition(entry, definition, MODERN)


async def test_inspect_names_what_scopes_hide_and_a_token_shows_it(tmp_path: Path) -> None:
    server = tmp_path / "notes.py"
    server.write_text(SCOPED, encoding="utf-8")
    local = await atoolwire("inspect", str(server))
    assert local.returncode == 0, local.stderr
    assert local.stdout.startswith("Notes 0.1.0 - 0 tools")
    assert (
        "2 tools hidden from this caller: read_note (needs notes:read), "
        "write_note (needs notes:write)" in local.stdout
    )
    assert "--header 'Authorization: Bearer TOKEN'" in local.stdout
    hidden = one_line_error(await atoolwire("call", str(server), "write_note", "name=a", "text=b"))
    assert "'write_note' is hidden from callers without a token (it needs scopes notes:write)" in (
        hidden
    )

    async with served(server) as url:
        refused = one_line_error(await atoolwire("inspect", url))
        assert "401" in refused and "--header 'Authorization: Bearer TOKEN'" in refused
        reader = await atoolwire("inspect", url, "--header", "Authorization: Bearer reader")
        assert reader.returncode == 0, reader.stderr
        assert reader.stdout.startswith("Notes 0.1.0 - 1 tool\n") and "read_note" in reader.stdout
        writer = ("--header", "Authorization: Bearer writer")
        called = await atoolwire("call", url, *writer, "write_note", "name=a", "text=b")
        assert (called.returncode, called.stdout.strip()) == (0, "written"), called.stderr
        async with checked_client(url, protocol_version=MODERN, auth="writer") as client:
            assert len(await asyncio.wait_for(client.list_tools(), TIMEOUT)) == 2


async def test_inspect_names_the_tools_kept_for_app_views() -> None:
    local = await atoolwire("inspect", str(EXAMPLES / "checklist_app.py"))
    assert local.returncode == 0, local.stderr
    assert local.stdout.startswith("Checklist 0.1.0 - 2 tools, 1 resource")
    assert "ui://checklist/view (text/html;profile=mcp-app)" in local.stdout
    assert "1 tool hidden from this caller: toggle_item (for MCP App views only)" in local.stdout
    assert "access token" not in local.stdout


# ------------------------------------------------------------------ --command, usage


def test_inspect_and_call_take_a_command() -> None:
    command = f"{sys.executable} -m toolwire run {CALCULATOR}"
    listed = toolwire("inspect", "--command", command)
    assert listed.returncode == 0, listed.stderr
    assert listed.stdout.startswith("Calculator 0.1.0 - 6 tools")
    called = toolwire("call", "--command", command, "divide", "a=1", "b=4", "--json")
    assert (called.returncode, json.loads(called.stdout)) == (0, {"result": 0.25})


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["inspect"], "give FILE[:OBJECT], a URL, or --command COMMAND"),
        (["inspect", str(CALCULATOR), "--header", "A: b"], "--header is for a server given"),
        (["inspect", "http://127.0.0.1:9/mcp", "--header", "nocolon"], "write it as 'Name:"),
        (["inspect", "http://127.0.0.1:1/mcp"], "http://127.0.0.1:1/mcp: "),
    ],
)
def test_target_usage_errors_are_one_line(args: list[str], message: str) -> None:
    assert message in one_line_error(toolwire(*args))


def test_call_without_a_tool_name_is_a_usage_error() -> None:
    result = toolwire("call", str(CALCULATOR))
    assert result.returncode == 2 and "the tool's name is missing" in result.stderr
