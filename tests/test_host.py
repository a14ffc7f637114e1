"""The host: many servers behind one tool list, LLM-safe names, exports and the approval policy.

Servers are the examples as real stdio subprocesses and ``Server`` objects in memory.
"""

from __future__ import annotations

import itertools
import json
import logging
import re
import subprocess
import sys
from typing import Any

import pytest

from toolwire import Server
from toolwire.client import CallResult, Host
from toolwire.client.host.approval import ApprovalPolicy, ApprovalRequest
from toolwire.client.host.host import (
    HostTool,
    UnknownToolError,
    assign_names,
    to_anthropic_content,
    to_openai_content,
)

from wire import EXAMPLES

VALID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
TIMEOUT = 20.0
pytestmark = pytest.mark.timeout(30)  # every test bounded; each request also has TIMEOUT
LONG = "very.long.tool.name." + "x" * 100  # 120 characters, dots included


def example(name: str) -> list[str]:
    return [sys.executable, str(EXAMPLES / f"{name}.py")]


def make_server(name: str, calls: list[str] | None = None) -> Server:
    """A server with ``add``, a dotted name, a long name and tools of every annotation kind."""
    calls = calls if calls is not None else []
    mcp = Server(name)

    @mcp.tool()
    def add(a: int, b: int) -> int:
        """Add two integers."""
        calls.append("add")
        return a + b

    @mcp.tool(name="files.read", annotations={"readOnlyHint": True})
    def read(path: str) -> str:
        """Read a file."""
        calls.append("files.read")
        return f"contents of {path}"

    @mcp.tool(name=LONG, annotations={"readOnlyHint": True, "openWorldHint": False})
    def long_name() -> str:
        """A tool with a long name."""
        calls.append(LONG)
        return "long"

    @mcp.tool(title="Remove everything", annotations={"title": "Wipe", "destructiveHint": True})
    def wipe(folder: str, recursive: bool = False) -> str:
        """Delete a folder."""
        calls.append("wipe")
        return f"wiped {folder}"

    @mcp.tool(annotations={"title": "Tidy", "destructiveHint": False, "openWorldHint": False})
    def tidy() -> str:
        """Sort things, deleting nothing."""
        calls.append("tidy")
        return "tidy"

    return mcp


class Asker:
    """A confirm callback that records every request and answers ``answer``."""

    def __init__(self, answer: bool) -> None:
        self.answer = answer
        self.requests: list[ApprovalRequest] = []

    async def __call__(self, request: ApprovalRequest) -> bool:
        self.requests.append(request)
        return self.answer


# ------------------------------------------------------------ names


def test_names_are_valid_unique_deterministic_and_reversible() -> None:
    pairs = [
        ("alpha", "add"),
        ("beta", "add"),
        ("alpha", "files.read"),
        ("beta", "files.read"),
        ("alpha", "files_read"),  # the same as files.read once sanitized, on the same server
        ("gamma", "ünïcode tool!"),
        ("alpha", LONG),
        ("beta", LONG),
        ("gamma", LONG + "y"),
        ("gamma", "alpha_add"),  # the same as the prefixed alpha/add
        ("delta", "search"),
    ]
    names = assign_names(pairs)
    assert set(names) == set(pairs)
    assert all(VALID.fullmatch(name) for name in names.values()), names
    assert len(set(names.values())) == len(pairs)
    for order in itertools.islice(itertools.permutations(pairs), 0, 200, 7):
        assert assign_names(order) == names
    assert assign_names(reversed(pairs)) == names
    assert names[("delta", "search")] == "search"  # no collision: unchanged
    assert names[("gamma", "ünïcode tool!")] == "_n_code_tool_"  # sanitized, not prefixed


def test_each_server_alone_keeps_plain_names() -> None:
    names = assign_names([("s", "add"), ("s", "x.y"), ("s", "ok-name_1")])
    assert names == {("s", "add"): "add", ("s", "x.y"): "x_y", ("s", "ok-name_1"): "ok-name_1"}


# ------------------------------------------------------------ listing and routing


async def test_merged_listing_of_stdio_and_memory_servers(tmp_path: Any) -> None:
    from toolwire import Client

    notes = Client(example("notes"), env={"NOTES_DB": str(tmp_path / "notes.db")}, timeout=TIMEOUT)
    servers = {"calc": example("calculator"), "notes": notes, "mem": make_server("Mem")}
    async with Host(servers, trusted={"calc"}, timeout=TIMEOUT) as host:
        tools = await host.list_tools()
        assert all(isinstance(t, HostTool) for t in tools)
        by_name = {t.name: t for t in tools}
        assert len(by_name) == len(tools)
        assert all(VALID.fullmatch(name) for name in by_name)
        # add is offered by calc and mem: both prefixed; the others stay plain.
        assert by_name["calc_add"].server == "calc" and by_name["calc_add"].tool == "add"
        assert by_name["mem_add"].server == "mem"
        assert "add" not in by_name
        for plain in ("subtract", "divide", "add_note", "search_notes", "files_read", "wipe"):
            assert plain in by_name, plain
        assert host.resolve("files_read") == ("mem", "files.read")
        assert host.resolve("search_notes") == ("notes", "search_notes")
        long = [t for t in tools if t.tool == LONG]
        assert len(long) == 1 and len(long[0].name) <= 64
        assert host.resolve(long[0].name) == ("mem", LONG)
        assert by_name["calc_add"].definition["annotations"]["title"] == "Add"

        result = await host.call_tool("calc_add", {"a": 2, "b": 3})
        assert result.structured == {"result": 5.0} and not result.is_error
        result = await host.call_tool("divide", {"a": 1, "b": 0})
        assert result.is_error and result.text == "Cannot divide by zero"

        with pytest.raises(UnknownToolError, match="Unknown tool 'add'"):
            await host.call_tool("add", {"a": 1, "b": 2})
        with pytest.raises(KeyError):
            host.resolve("nope")


async def test_names_do_not_depend_on_connection_order() -> None:
    async def names(order: list[str]) -> dict[str, tuple[str, str]]:
        servers = {name: make_server(name) for name in order}
        async with Host(servers, timeout=TIMEOUT) as host:
            return {t.name: (t.server, t.tool) for t in await host.list_tools()}

    first = await names(["one", "two.x", "three"])
    assert first == await names(["three", "one", "two.x"])
    assert all(VALID.fullmatch(name) for name in first)
    assert first["two_x_add"] == ("two.x", "add")
    assert len(first) == 15


async def test_routing_reaches_the_right_server() -> None:
    left: list[str] = []
    right: list[str] = []
    servers = {"left": make_server("L", left), "right": make_server("R", right)}
    async with Host(servers, confirm=Asker(True), timeout=TIMEOUT) as host:
        await host.list_tools()
        assert (await host.call_tool("right_add", {"a": 1, "b": 1})).structured == {"result": 2}
        assert right == ["add"] and left == []
        name = next(t.name for t in host.tools if t.server == "left" and t.tool == LONG)
        assert (await host.call_tool(name)).text == "long"
        assert left == [LONG]


async def test_a_server_that_cannot_start_fails_the_host_clearly() -> None:
    servers = {"ok": make_server("ok"), "broken": [sys.executable, "-c", "pass"]}
    with pytest.raises(Exception, match="broken"):
        async with Host(servers, timeout=TIMEOUT):
            pass


# ------------------------------------------------------------ exports


async def test_exports_have_the_exact_api_shapes() -> None:
    async with Host({"calc": example("calculator")}, trusted={"calc"}, timeout=TIMEOUT) as host:
        await host.list_tools()
        schema = {
            "type": "object",
            "properties": {
                "a": {"type": "number", "description": "The first number"},
                "b": {"type": "number", "description": "The second number"},
            },
            "required": ["a", "b"],
        }
        assert host.openai_tools()[0] == {
            "type": "function",
            "function": {
                "name": "add",
                "description": "Add two numbers together.",
                "parameters": schema,
            },
        }
        assert host.anthropic_tools()[0] == {
            "name": "add",
            "description": "Add two numbers together.",
            "input_schema": schema,
        }
        assert len(host.openai_tools()) == len(host.anthropic_tools()) == 6

        result = await host.call_tool("divide", {"a": 1, "b": 0})
        assert to_anthropic_content(result, "toolu_1") == {
            "type": "tool_result",
            "tool_use_id": "toolu_1",
            "content": [{"type": "text", "text": "Cannot divide by zero"}],
            "is_error": True,
        }
        result = await host.call_tool("add", {"a": 1, "b": 2})
        assert to_openai_content(result, "call_1") == {
            "role": "tool",
            "tool_call_id": "call_1",
            "content": "3.0",
        }


def test_result_conversion_of_images_resources_and_structured_content() -> None:
    result = CallResult(
        content=[
            {"type": "text", "text": "Here:"},
            {"type": "image", "data": "aGk=", "mimeType": "image/png"},
            {"type": "resource_link", "uri": "file:///a.txt", "name": "a.txt"},
        ]
    )
    assert to_anthropic_content(result, "t") == {
        "type": "tool_result",
        "tool_use_id": "t",
        "content": [
            {"type": "text", "text": "Here:"},
            {
                "type": "image",
                "source": {"type": "base64", "media_type": "image/png", "data": "aGk="},
            },
            {"type": "text", "text": "[resource: a.txt <file:///a.txt>]"},
        ],
        "is_error": False,
    }
    assert to_openai_content(result, "c")["content"] == (
        "Here:\n[image: image/png]\n[resource: a.txt <file:///a.txt>]"
    )
    structured_only = CallResult(content=[], structured={"x": 1})
    assert to_openai_content(structured_only) == {"role": "tool", "content": '{"x": 1}'}


# ------------------------------------------------------------ approval


async def test_approval_decisions(caplog: pytest.LogCaptureFixture) -> None:
    trusted_calls: list[str] = []
    other_calls: list[str] = []
    asker = Asker(True)
    servers = {"mine": make_server("M", trusted_calls), "theirs": make_server("T", other_calls)}
    caplog.set_level(logging.INFO, logger="toolwire.audit")
    async with Host(servers, trusted={"mine"}, confirm=asker, timeout=TIMEOUT) as host:
        await host.list_tools()
        # Trusted and read-only: runs without asking.
        assert (await host.call_tool("mine_files_read", {"path": "a"})).text == "contents of a"
        # Trusted, neither destructive nor open world: runs without asking.
        assert (await host.call_tool("mine_tidy")).text == "tidy"
        assert asker.requests == []
        # No annotations (defaults: destructive, open world): asks, even on a trusted server.
        await host.call_tool("mine_add", {"a": 1, "b": 2})
        # Destructive: asks with the exact arguments and the title by precedence.
        arguments = {"folder": "/tmp/x", "recursive": True}
        assert (await host.call_tool("mine_wipe", arguments)).text == "wiped /tmp/x"
        # Untrusted: its read-only annotation is ignored, so it asks.
        assert (await host.call_tool("theirs_files_read", {"path": "b"})).text == "contents of b"
        assert [(r.server, r.tool, r.trusted) for r in asker.requests] == [
            ("mine", "add", True),
            ("mine", "wipe", True),
            ("theirs", "files.read", False),
        ]
        wipe = asker.requests[1]
        assert wipe.arguments == arguments
        assert wipe.title == "Remove everything"
        assert wipe.annotations == {"title": "Wipe", "destructiveHint": True}
        assert asker.requests[0].title == "add"
        assert trusted_calls == ["files.read", "tidy", "add", "wipe"]
        assert other_calls == ["files.read"]

    records = [r for r in caplog.records if r.name == "toolwire.audit"]
    assert [(r.server, r.tool, r.decision) for r in records] == [  # type: ignore[attr-defined]
        ("mine", "files.read", "allow"),
        ("mine", "tidy", "allow"),
        ("mine", "add", "allow"),
        ("mine", "wipe", "allow"),
        ("theirs", "files.read", "allow"),
    ]
    assert records[3].arguments == arguments  # type: ignore[attr-defined]
    assert "approved by the user" in records[3].reason  # type: ignore[attr-defined]
    assert records[0].reason == "trusted server, read-only tool"  # type: ignore[attr-defined]
    assert "untrusted" in records[4].reason  # type: ignore[attr-defined]


async def test_a_denied_call_never_reaches_the_server(caplog: pytest.LogCaptureFixture) -> None:
    calls: list[str] = []
    asker = Asker(False)
    caplog.set_level(logging.INFO, logger="toolwire.audit")
    servers = {"mem": make_server("M", calls)}
    async with Host(servers, trusted={"mem"}, confirm=asker, timeout=TIMEOUT) as host:
        await host.list_tools()
        result = await host.call_tool("wipe", {"folder": "/"})
        assert result.is_error
        assert "denied by the user" in result.text
        assert calls == []
        assert asker.requests[0].arguments == {"folder": "/"}
    (record,) = [r for r in caplog.records if r.name == "toolwire.audit"]
    assert record.decision == "deny"  # type: ignore[attr-defined]
    assert record.server == "mem" and record.tool == "wipe"  # type: ignore[attr-defined]
    assert record.arguments == {"folder": "/"}  # type: ignore[attr-defined]
    assert record.reason == "may be destructive; denied by the user"  # type: ignore[attr-defined]


async def test_without_a_confirm_callback_what_needs_asking_is_denied() -> None:
    calls: list[str] = []
    async with Host({"mem": make_server("M", calls)}, timeout=TIMEOUT) as host:
        await host.list_tools()
        result = await host.call_tool("files_read", {"path": "a"})  # untrusted: must ask
        assert result.is_error and "denied by the user" in result.text
        assert calls == []


async def test_a_sync_confirm_and_a_failing_confirm() -> None:
    def failing(request: ApprovalRequest) -> bool:
        raise RuntimeError("no terminal")

    policy = ApprovalPolicy({"s"}, lambda request: request.arguments.get("ok") is True)
    definition = {"name": "wipe", "annotations": {"destructiveHint": True}}
    assert (await policy.decide("s", definition, {"ok": True})).allowed
    assert not (await policy.decide("s", definition, {"ok": False})).allowed
    decision = await ApprovalPolicy({"s"}, failing).decide("s", definition, {})
    assert not decision.allowed and decision.asked and "failed" in decision.reason
    # A truthy value that is not True does not approve.
    policy = ApprovalPolicy((), lambda request: 1)  # type: ignore[arg-type,return-value]
    assert not (await policy.decide("s", {"name": "x"}, {})).allowed


# ------------------------------------------------------------ the example


def test_host_chat_example_prints_both_formats() -> None:
    run = subprocess.run(
        [sys.executable, str(EXAMPLES / "host_chat.py")],
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        check=True,
    )
    tools = json.loads(run.stdout)
    assert {t["name"] for t in tools["anthropic"]} == {
        t["function"]["name"] for t in tools["openai"]
    }
    names = [t["name"] for t in tools["anthropic"]]
    assert {"add", "divide", "add_note", "delete_notes"} <= set(names)
    assert all(VALID.fullmatch(name) for name in names)
    assert all(set(t) == {"name", "description", "input_schema"} for t in tools["anthropic"])
    assert all(
        t["type"] == "function" and set(t["function"]) == {"name", "description", "parameters"}
        for t in tools["openai"]
    )


async def test_a_host_with_an_http_server() -> None:
    """An HTTP server beside a stdio one: merged names, a call routed over HTTP, and a tool
    added on the HTTP server listed after a refresh."""
    import sys as _sys

    from toolwire import Server as _Server

    from http_server import serve_http

    remote = _Server("remote")

    @remote.tool(annotations={"readOnlyHint": True})
    def add(a: int, b: int) -> int:
        return a + b

    calculator = [_sys.executable, str(EXAMPLES / "calculator.py")]
    with serve_http(remote) as url:
        async with Host({"web": url, "calc": calculator}, trusted={"web"}) as host:
            names = {tool.name for tool in await host.list_tools()}
            assert "web_add" in names and "calc_add" in names  # both have add
            result = await host.call_tool("web_add", {"a": 2, "b": 40})
            assert not result.is_error and result.text == "42"
            remote.add_tool(lambda: "pong", name="ping_me")
            refreshed = {tool.name for tool in await host.list_tools(refresh=True)}
            assert "ping_me" in refreshed
