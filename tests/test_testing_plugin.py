"""toolwire.testing: connect(), the mcp_client fixture and the assertion helpers.

The pytester tests run pytest in a subprocess on a tiny test file, so they prove that the
plugin loads through its ``pytest11`` entry point, without any import or conftest.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any

import pytest

from toolwire import Client, Server
from toolwire.client.client import CallResult
from toolwire.errors import ClientError
from toolwire.testing import (
    assert_tool_error,
    assert_tool_names,
    assert_tool_result,
    connect,
)

pytest_plugins = ["pytester"]

SERVER_SOURCE = """\
from toolwire import Server

mcp = Server("Adder")


@mcp.tool()
def add(a: int, b: int) -> int:
    \"\"\"Add two numbers.\"\"\"
    return a + b


@mcp.tool()
def divide(a: float, b: float) -> float:
    \"\"\"Divide a by b.\"\"\"
    if b == 0:
        raise ValueError("Cannot divide by zero")
    return a / b


if __name__ == "__main__":
    mcp.run()
"""


def make_server() -> Server:
    namespace: dict[str, Any] = {}
    exec(SERVER_SOURCE, namespace)
    server: Server = namespace["mcp"]
    return server


@pytest.fixture
def mcp_server() -> Server:
    return make_server()


@pytest.fixture
def script(tmp_path: Path) -> Path:
    path = tmp_path / "adder.py"
    path.write_text(SERVER_SOURCE)
    return path


# ---------------------------------------------------------------- connect()


async def test_connect_in_memory_picks_the_newest_revision() -> None:
    async with connect(make_server()) as client:
        assert isinstance(client, Client)
        assert client.protocol_version == "2026-07-28"
        assert_tool_names(await client.list_tools(), ["add", "divide"])
        result = await client.call_tool("add", {"a": 2, "b": 3})
        assert_tool_result(result, text="5", structured={"result": 5})


async def test_connect_on_a_legacy_revision() -> None:
    async with connect(make_server(), "2025-06-18") as client:
        assert client.protocol_version == "2025-06-18"
        assert_tool_error(await client.call_tool("divide", {"a": 1, "b": 0}), "divide by zero")


@pytest.mark.parametrize("form", ["path", "str", "list"])
async def test_connect_to_a_command(script: Path, form: str) -> None:
    target: Any = {
        "path": script,
        "str": str(script),  # a .py file runs on the current interpreter
        "list": [sys.executable, script],
    }[form]
    async with connect(target) as client:
        assert client.server_info["name"] == "Adder"
        assert_tool_result(await client.call_tool("add", {"a": 1, "b": 1}), text="2")


async def test_connect_is_bounded(tmp_path: Path) -> None:
    silent = tmp_path / "silent.py"
    silent.write_text("import time\ntime.sleep(30)\n")
    started = time.monotonic()
    with pytest.raises((TimeoutError, ClientError)):
        async with connect(silent, timeout=0.5):
            pass  # pragma: no cover
    assert time.monotonic() - started < 10


async def test_connect_rejects_what_is_no_server() -> None:
    with pytest.raises(TypeError, match="not int"):
        async with connect(42):  # type: ignore[arg-type]
            pass  # pragma: no cover


# ---------------------------------------------------------------- fixtures


async def test_mcp_client_uses_the_mcp_server_fixture(mcp_client: Client) -> None:
    assert mcp_client.server_info["name"] == "Adder"
    assert mcp_client.protocol_version == "2026-07-28"
    assert_tool_result(
        await mcp_client.call_tool("add", {"a": 2, "b": 3}), structured={"result": 5}
    )


@pytest.mark.mcp_server(Server("Marked"))
async def test_the_marker_wins_over_the_fixture(mcp_client: Client) -> None:
    assert mcp_client.server_info["name"] == "Marked"
    assert_tool_names(await mcp_client.list_tools(), [])


class TestEveryRevision:
    @pytest.fixture(params=["2024-11-05", "2025-06-18", "2026-07-28"])
    def mcp_protocol_version(self, request: pytest.FixtureRequest) -> str:
        return str(request.param)

    async def test_add(self, mcp_client: Client, mcp_protocol_version: str) -> None:
        assert mcp_client.protocol_version == mcp_protocol_version
        result = await mcp_client.call_tool("add", {"a": 2, "b": 3})
        assert_tool_result(
            result, text="5", structured=None if mcp_protocol_version < "2025-06" else {"result": 5}
        )


class TestClientOptions:
    seen: list[str] = []  # noqa: RUF012

    @pytest.fixture
    def mcp_client_options(self) -> dict[str, Any]:
        return {"tap": lambda direction, data: self.seen.append(direction), "timeout": 5}

    async def test_options_reach_the_client(self, mcp_client: Client) -> None:
        assert mcp_client.timeout == 5
        await mcp_client.list_tools()
        assert {"send", "receive"} <= set(self.seen)


# ---------------------------------------------------------------- assertions


def call_result(text: str, structured: Any = None, is_error: bool = False) -> CallResult:
    return CallResult([{"type": "text", "text": text}], structured, is_error)


def test_assert_tool_result_passes() -> None:
    assert_tool_result(call_result("5", {"result": 5}), text="5", structured={"result": 5})
    assert_tool_result(call_result("boom", is_error=True), text="boom", is_error=True)
    assert_tool_result(call_result("anything"))  # only is_error is checked


def test_assert_tool_result_shows_the_error_text_first() -> None:
    with pytest.raises(AssertionError) as info:
        assert_tool_result(call_result("Cannot divide by zero", is_error=True), text="5")
    assert str(info.value) == "The tool call failed (isError):\n  text: 'Cannot divide by zero'"


def test_assert_tool_result_messages() -> None:
    with pytest.raises(AssertionError, match="expected to fail, but it succeeded"):
        assert_tool_result(call_result("5"), is_error=True)
    with pytest.raises(AssertionError) as info:
        assert_tool_result(call_result("6"), text="5")
    assert str(info.value) == "Unexpected tool result text:\n  expected: '5'\n  got:      '6'"
    with pytest.raises(AssertionError) as info:
        assert_tool_result(call_result("", {"a": 1, "b": 2}), structured={"a": 1, "b": 3})
    assert str(info.value) == (
        "Unexpected structured content:\n"
        "  expected: {'a': 1, 'b': 3}\n  got:      {'a': 1, 'b': 2}\n  differing keys: 'b'"
    )


def test_assert_tool_error_messages() -> None:
    assert_tool_error(call_result("Cannot divide by zero", is_error=True), "divide by zero")
    with pytest.raises(AssertionError) as info:
        assert_tool_error(call_result("0.5", {"result": 0.5}), "zero")
    assert str(info.value) == (
        "The tool call was expected to fail with 'zero', but it succeeded:\n"
        "  text: '0.5'\n  structured: {'result': 0.5}"
    )
    with pytest.raises(AssertionError) as info:
        assert_tool_error(call_result("Unknown city", is_error=True), "zero")
    assert str(info.value) == (
        "The tool error does not contain 'zero':\n  error text: 'Unknown city'"
    )


def test_assert_tool_names_messages() -> None:
    assert_tool_names([{"name": "b"}, {"name": "a"}], ["a", "b"])
    assert_tool_names(["a"], ("a",))
    with pytest.raises(AssertionError) as info:
        assert_tool_names([{"name": "add"}, {"name": "sub"}, {"name": "sub"}], ["add", "mul"])
    assert str(info.value) == (
        "The server's tools are not the expected ones:\n"
        "  missing:    mul\n"
        "  unexpected: sub, sub\n"
        "  listed more than once: sub\n"
        "  listed:     add, sub, sub"
    )


# ---------------------------------------------------------------- pytester


USER_TESTS = """\
import pytest
from toolwire.testing import assert_tool_error, assert_tool_result

from adder import mcp


@pytest.fixture
def mcp_server():
    return mcp


async def test_add(mcp_client):
    result = await mcp_client.call_tool("add", {"a": 2, "b": 3})
    assert_tool_result(result, text="5", structured={"result": 5})


async def test_divide_by_zero(mcp_client):
    assert_tool_error(await mcp_client.call_tool("divide", {"a": 1, "b": 0}), "by zero")


async def test_fails_readably(mcp_client):
    result = await mcp_client.call_tool("divide", {"a": 1, "b": 0})
    assert_tool_result(result, text="inf")


@pytest.mark.mcp_server("adder.py")
async def test_over_stdio(mcp_client):
    assert mcp_client.protocol_version == "2026-07-28"
    assert_tool_result(await mcp_client.call_tool("add", {"a": 1, "b": 2}), text="7")
"""


def run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    pytester.makepyfile(adder=SERVER_SOURCE)
    return pytester.runpytest_subprocess("-p", "no:cacheprovider", "--timeout=60", *args)


def test_a_user_project_gets_the_fixtures_from_the_entry_point(pytester: pytest.Pytester) -> None:
    pytester.makeini(
        "[pytest]\nasyncio_mode = auto\nasyncio_default_fixture_loop_scope = function\n"
    )
    pytester.makepyfile(test_adder=USER_TESTS)
    result = run(pytester)
    result.assert_outcomes(passed=2, failed=2)
    result.stdout.fnmatch_lines(
        [
            "*_ test_fails_readably _*",
            '>*assert_tool_result(result, text="inf")',
            "E * AssertionError: The tool call failed (isError):",
            "E *   text: 'Cannot divide by zero'",
            "*_ test_over_stdio _*",
            "E * AssertionError: Unexpected tool result text:",
            "E *   expected: '7'",
            "E *   got:      '3'",
        ]
    )
    # the helpers hide their own frames: the user's line is the last one shown
    assert "__tracebackhide__" not in result.stdout.str()
    assert "testing.py" not in result.stdout.str()


@pytest.mark.parametrize("plugins", [[], ["-p", "no:asyncio"]], ids=["strict", "no-asyncio"])
def test_no_configuration_is_needed(pytester: pytest.Pytester, plugins: list[str]) -> None:
    """No ini file, no marks: with pytest-asyncio in its default (strict) mode, and without
    pytest-asyncio at all, the tests that use mcp_client run as written."""
    pytester.makepyfile(
        test_adder=USER_TESTS,
        test_sync="""
        def test_sync_use(mcp_client):
            mcp_client.list_tools
        """,
        conftest="""
        import pytest
        from adder import mcp

        @pytest.fixture
        def mcp_server():
            return mcp
        """,
    )
    result = run(pytester, *plugins)
    # a sync test gets a connected client from pytest-asyncio, and a clear error without it
    result.assert_outcomes(passed=2 if plugins else 3, failed=3 if plugins else 2)
    result.stdout.fnmatch_lines(["*_ test_fails_readably _*", "*expected: '7'*"])
    if plugins:  # the client exists only in the test's own loop
        result.stdout.fnmatch_lines(
            ["*AttributeError: mcp_client.list_tools: the client is connected only in a test *"]
        )


def test_strict_mode_and_a_missing_server(pytester: pytest.Pytester) -> None:
    pytester.makeini(
        "[pytest]\nasyncio_mode = strict\nasyncio_default_fixture_loop_scope = function\n"
    )
    pytester.makepyfile(
        test_strict="""
        import pytest
        from toolwire.testing import assert_tool_names

        @pytest.mark.asyncio
        @pytest.mark.mcp_server("adder.py")
        async def test_listed(mcp_client):
            assert_tool_names(await mcp_client.list_tools(), ["add", "divide"])

        @pytest.mark.asyncio
        async def test_no_server(mcp_client):
            pass
        """
    )
    result = run(pytester, "--strict-markers")
    result.assert_outcomes(passed=1, errors=1)
    result.stdout.fnmatch_lines(["*mcp_client needs a server: define a `mcp_server` fixture*"])


def test_only_the_plugin_module_is_rewritten(pytester: pytest.Pytester) -> None:
    """pytest would rewrite every toolwire module as it is first imported (the distribution
    has a pytest plugin), also in a server's threads; the plugin keeps that to itself, so a
    module toolwire loads lazily during a test loads as written."""
    pytester.makepyfile(
        test_loaded="""
        import importlib

        import toolwire.testing


        def rewritten(module):
            return type(module.__loader__).__name__ == "AssertionRewritingHook"


        def test_loaded():
            assert rewritten(toolwire.testing)
            assert not rewritten(importlib.import_module("toolwire.server.compat.sdk_private"))
        """
    )
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "--timeout=60")
    result.assert_outcomes(passed=1)
