"""The ``toolwire`` command line, run as real subprocesses (``python -m toolwire ...``).

``inspect`` and ``call`` reach the server in memory; ``run`` serves it over stdio and HTTP and
is driven by toolwire's ``Client`` with every message checked against the negotiated
revision's schema. Files that give no server fail with exit code 2 and one readable line,
never a traceback. ``install`` has its own tests (``test_install.py``).
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from mcp_spec import validate_definition
from wire import EXAMPLES, MODERN, checked_client

pytestmark = pytest.mark.timeout(30)

CALCULATOR = EXAMPLES / "calculator.py"
LEGACY = "2025-11-25"
TIMEOUT = 15.0

SERVER_TOOL = """
from toolwire import Server

{name} = Server("{title}")

@{name}.tool()
def echo(text: str, times: int = 1, loud: bool = False, tags: list[str] | None = None) -> str:
    \"\"\"Repeat text.\"\"\"
    out = " ".join([text.upper() if loud else text] * times)
    return out + (" " + ",".join(tags) if tags else "")
"""


def toolwire(*args: str, cwd: Path | None = None, home: Path | None = None) -> Any:
    env = dict(os.environ)
    if home is not None:
        env["HOME"] = str(home)
        env["XDG_CONFIG_HOME"] = str(home / ".config")
    return subprocess.run(
        [sys.executable, "-m", "toolwire", *args],
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        cwd=cwd,
        env=env,
    )


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def no_traceback(result: Any) -> None:
    assert "Traceback" not in result.stderr, result.stderr


# ------------------------------------------------------------------ inspect, call, version


def test_inspect_table_shows_names_titles_badges_and_required_parameters() -> None:
    result = toolwire("inspect", str(CALCULATOR))
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].startswith("Calculator ") and lines[0].endswith("6 tools")
    divide = next(line for line in lines if line.startswith("  divide"))
    assert "Divide" in divide and "[read-only]" in divide and "[idempotent]" in divide
    assert "[destructive]" not in divide and "[open-world]" not in divide
    at = lines.index(divide)
    assert lines[at + 1 : at + 4] == [
        "      Divide a by b.",
        "      a*: number  The dividend",
        "      b*: number  The divisor (must not be zero)",
    ]
    assert lines[-1] == "(* required)"
    assert result.stderr == ""


def test_inspect_json_is_the_tools_array_valid_for_the_schema() -> None:
    result = toolwire("inspect", str(CALCULATOR), "--json")
    assert result.returncode == 0, result.stderr
    listings = json.loads(result.stdout)
    assert list(listings) == ["tools"]  # the calculator offers neither resources nor prompts
    tools = listings["tools"]
    assert [tool["name"] for tool in tools] == [
        "add",
        "subtract",
        "multiply",
        "divide",
        "power",
        "sqrt",
    ]
    for tool in tools:
        validate_definition(tool, "Tool", MODERN)
    assert tools[3]["inputSchema"]["required"] == ["a", "b"]


def test_call_error_result_exits_1_with_the_tools_message() -> None:
    result = toolwire("call", str(CALCULATOR), "divide", "a=1", "b=0")
    assert result.returncode == 1
    assert "Cannot divide by zero" in result.stderr
    assert result.stdout == ""
    no_traceback(result)


def test_call_success_prints_the_text_and_exits_0() -> None:
    result = toolwire("call", str(CALCULATOR), "divide", "a=7", "b=2")
    assert (result.returncode, result.stdout.strip()) == (0, "3.5")


def test_call_with_args_json_and_structured_output() -> None:
    result = toolwire("call", str(CALCULATOR), "power", "--args", '{"base": 2, "exponent": 10}')
    assert (result.returncode, result.stdout.strip()) == (0, "1024.0")
    result = toolwire("call", str(CALCULATOR), "add", "a=1", "b=2", "--json")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == {"result": 3}


def test_call_types_values_from_the_input_schema(tmp_path: Path) -> None:
    server = write(tmp_path / "echo.py", SERVER_TOOL.format(name="mcp", title="Echo"))
    result = toolwire("call", str(server), "echo", "text=007", "times=2", "loud=yes", 'tags=["x"]')
    # "007" stays the string typed; times is an integer, loud a boolean, tags a JSON array.
    assert (result.returncode, result.stdout.strip()) == (0, "007 007 x"), result.stderr
    result = toolwire("call", str(server), "echo", "text=hi", "times=two")
    assert result.returncode == 2
    assert "times: expected integer, got 'two'" in result.stderr


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["divde", "a=1", "b=2"], "Did you mean 'divide'?"),
        (["divide", "--args", "{not json"], "--args is not valid JSON"),
        (["divide", "--args", "[1, 2]"], "--args must be a JSON object"),
        (["divide", "a"], "expected key=value, got 'a'"),
    ],
)
def test_call_usage_errors_exit_2(args: list[str], message: str) -> None:
    result = toolwire("call", str(CALCULATOR), *args)
    assert result.returncode == 2
    assert message in result.stderr
    no_traceback(result)


def test_version_lists_toolwire_python_and_revisions() -> None:
    import toolwire as package
    from toolwire.protocol.revisions import REVISIONS

    result = toolwire("version")
    assert result.returncode == 0
    assert f"toolwire {package.__version__}" in result.stdout
    assert f"Python {sys.version_info.major}.{sys.version_info.minor}." in result.stdout
    assert all(revision in result.stdout for revision in REVISIONS)


# ------------------------------------------------------------------ helpful loading errors


def test_file_without_a_server(tmp_path: Path) -> None:
    result = toolwire("inspect", str(write(tmp_path / "empty.py", "x = 1\n")))
    assert result.returncode == 2
    assert "no toolwire server found" in result.stderr
    no_traceback(result)


def test_two_servers_are_listed_and_file_object_picks_one(tmp_path: Path) -> None:
    text = SERVER_TOOL.format(name="first", title="First") + SERVER_TOOL.format(
        name="second", title="Second"
    )
    server = write(tmp_path / "two.py", text)
    result = toolwire("inspect", str(server))
    assert result.returncode == 2
    assert "several servers found (first, second)" in result.stderr
    assert f"{server}:first" in result.stderr
    no_traceback(result)
    picked = toolwire("inspect", f"{server}:second")
    assert picked.returncode == 0 and picked.stdout.startswith("Second ")
    missing = toolwire("inspect", f"{server}:third")
    assert missing.returncode == 2
    assert "'third' does not exist; servers in the file: first, second" in missing.stderr


def test_of_several_servers_the_one_named_mcp_server_or_app_is_served(tmp_path: Path) -> None:
    # as the SDK's and FastMCP's command lines pick one: a main server mounting others
    text = SERVER_TOOL.format(name="weather", title="Weather") + SERVER_TOOL.format(
        name="app", title="Main"
    )
    server = write(tmp_path / "mounted.py", text + "\napp.mount(weather, 'weather')\n")
    result = toolwire("inspect", str(server))
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("Main ")
    assert "weather_echo" in result.stdout


def test_syntax_error_shows_file_line_and_message(tmp_path: Path) -> None:
    server = write(tmp_path / "broken.py", "from toolwire import Server\n\ndef f(:\n    pass\n")
    result = toolwire("inspect", str(server))
    assert result.returncode == 2
    assert f"{server}:3: syntax error" in result.stderr
    assert "def f(:" in result.stderr
    no_traceback(result)


def test_missing_dependency_says_it_is_not_installed(tmp_path: Path) -> None:
    server = write(tmp_path / "needs.py", "import surely_not_installed_pkg.sub\n")
    result = toolwire("run", str(server))
    assert result.returncode == 2
    assert "no module named 'surely_not_installed_pkg' is installed" in result.stderr
    assert "pip install" not in result.stderr  # not a known package: maybe a typo
    no_traceback(result)


def test_missing_file_and_main_block_not_run(tmp_path: Path) -> None:
    result = toolwire("inspect", str(tmp_path / "nowhere.py"))
    assert (result.returncode, "no such file" in result.stderr) == (2, True)
    # The file's own __main__ block would serve stdio and print; loading must not run it.
    text = SERVER_TOOL.format(name="mcp", title="Quiet")
    text += 'if __name__ == "__main__":\n    print("MAIN RAN")\n    mcp.run()\n'
    result = toolwire("inspect", str(write(tmp_path / "quiet.py", text)))
    assert result.returncode == 0 and "MAIN RAN" not in result.stdout


# ------------------------------------------------------------------ run over stdio and HTTP


@pytest.mark.parametrize("revision", [LEGACY, MODERN])
async def test_run_serves_stdio(revision: str) -> None:
    command = [sys.executable, "-m", "toolwire", "run", str(CALCULATOR)]
    async with checked_client(command, protocol_version=revision) as client:
        result = await asyncio.wait_for(client.call_tool("multiply", {"a": 6, "b": 7}), TIMEOUT)
        assert (result.is_error, result.text) == (False, "42.0")
        failed = await asyncio.wait_for(client.call_tool("sqrt", {"x": -4}), TIMEOUT)
        assert failed.is_error and "negative number" in failed.text


@pytest.mark.parametrize("transport", ["http", "streamable-http"])
async def test_run_serves_http_on_the_given_port(transport: str) -> None:
    process = await asyncio.create_subprocess_exec(
        *[sys.executable, "-m", "toolwire", "run", str(CALCULATOR)],
        *["--transport", transport, "--port", "0", "--path", "/tools", "--log-level", "info"],
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.PIPE,
    )
    assert process.stderr is not None
    try:
        url = None
        while url is None:  # uvicorn says where it listens once the socket is bound
            line = (await asyncio.wait_for(process.stderr.readline(), TIMEOUT)).decode()
            assert line, "the server exited before listening"
            if "Uvicorn running on " in line:
                url = line.split("Uvicorn running on ")[1].split()[0] + "/tools"
        for revision in (LEGACY, MODERN):
            async with checked_client(url, protocol_version=revision) as client:
                result = await asyncio.wait_for(client.call_tool("add", {"a": 2, "b": 3}), TIMEOUT)
                assert (result.is_error, result.text) == (False, "5.0")
    finally:
        process.terminate()
        code = await asyncio.wait_for(process.wait(), TIMEOUT)
    assert code == 0


def test_import_toolwire_does_not_load_the_cli() -> None:
    code = "import sys, toolwire; print(any(m.startswith('toolwire.cli') for m in sys.modules))"
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=TIMEOUT
    )
    assert result.stdout.strip() == "False", result.stderr


@pytest.mark.parametrize("revision", ["2025-03-26", "2025-11-25"])
def test_inspect_and_call_speak_the_revision_asked_for(revision: str) -> None:
    listed = toolwire("inspect", str(CALCULATOR), "--json", "--protocol-version", revision)
    assert listed.returncode == 0, listed.stderr
    tools = json.loads(listed.stdout)["tools"]
    for tool in tools:
        validate_definition(tool, "Tool", revision)
    # outputSchema exists from 2025-06-18 on
    assert ("outputSchema" in tools[0]) == (revision >= "2025-06-18")
    called = toolwire(
        "call", str(CALCULATOR), "divide", "a=1", "b=4", "--json", "--protocol-version", revision
    )
    assert called.returncode == 0, called.stderr
    shown = json.loads(called.stdout)
    if revision >= "2025-06-18":
        assert shown == {"result": 0.25}
    else:  # no structuredContent yet: --json shows the whole result
        assert shown["content"] == [{"type": "text", "text": "0.25"}]
        assert "structuredContent" not in shown


def test_an_unknown_revision_is_a_usage_error() -> None:
    result = toolwire("inspect", str(CALCULATOR), "--protocol-version", "1999-01-01")
    assert result.returncode == 2 and "invalid choice" in result.stderr
