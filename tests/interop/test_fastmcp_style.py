"""A server in FastMCP 3's style runs the same on toolwire after ``toolwire migrate``.

``servers/fastmcp3_style.py`` uses ``ToolResult``, tool versions, tags with
``mcp.enable``/``mcp.disable``, per-session state (``ctx.set_state``/``get_state``,
``ctx.session_id``), ``ctx.elicit(response_type=...)`` with ``str``, ``int``, ``bool``, a list
of choices, a dataclass and ``None``, ``PromptsAsTools``/``ResourcesAsTools`` and
``run_async``. It runs over stdio on FastMCP itself (the pinned peer of
tests/interop/peers.py) and, as a copy ``toolwire migrate`` rewrote, on toolwire; the official
client (``mcp.Client``) lists and calls everything on both, answering the questions the same
way, and the outcomes must be equal. Every message toolwire sends is checked against the
schema of the negotiated revision.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import IO, Any

import anyio
import pytest
from mcp import Client
from mcp import types as mcp_types

from interop import peers
from interop.test_lowlevel_sdk_styles import outcome, stdio
from interop.test_lowlevel_sdk_styles import stderr as stderr  # the fixture

from mcp_spec import WireChecker

pytestmark = [pytest.mark.timeout(180), pytest.mark.peers("fastmcp")]

SERVERS = Path(__file__).resolve().parent.parent / "servers"
SCRIPT = "fastmcp3_style.py"
TIMEOUT = 90.0
# The answers the client gives, by question.
ANSWERS: dict[str, Any] = {
    "What is your name?": {"value": "Ada"},
    "How old are you?": {"value": 36},
    "Shall we go on?": {"value": True},
    "Which color?": {"value": "blue"},
    "Who are you?": {"name": "Ada", "age": 36},
    "Confirm?": {},
}


async def answer(context: Any, params: Any) -> mcp_types.ElicitResult:
    if params.message == "Decline this":
        return mcp_types.ElicitResult(action="decline")
    if params.message == "Cancel this":
        return mcp_types.ElicitResult(action="cancel")
    return mcp_types.ElicitResult(action="accept", content=ANSWERS[params.message])


def listed(tool: dict[str, Any]) -> dict[str, Any]:
    """A tool as the comparison sees it: what a model reads (name, description, input
    properties with their types and required ones, read-only hint); each framework words
    its schemas its own way (titles, additionalProperties, FastMCP's _meta: its version is
    compared apart)."""
    schema = tool["inputSchema"]
    return {
        "name": tool["name"],
        "description": " ".join((tool.get("description") or "").split()),
        "properties": {
            name: sorted(str(branch.get("type")) for branch in sub.get("anyOf", [sub]))
            for name, sub in schema.get("properties", {}).items()
        },
        "required": sorted(schema.get("required", [])),
        "readOnly": tool.get("annotations", {}).get("readOnlyHint"),
        "outputSchema": tool.get("outputSchema"),
    }


async def exercise(client: Client) -> dict[str, Any]:
    seen: dict[str, Any] = {}
    tools = [
        tool.model_dump(by_alias=True, mode="json", exclude_none=True)
        for tool in (await client.list_tools()).tools
    ]
    seen["tools"] = sorted((listed(tool) for tool in tools), key=lambda tool: tool["name"])
    seen["convert version"] = next(
        tool.get("_meta", {}).get("fastmcp", {}).get("version")
        for tool in tools
        if tool["name"] == "convert"
    )
    calls: list[tuple[str, dict[str, Any]]] = [
        ("report", {"rows": 3}),
        ("summary", {"rows": 4}),
        ("convert", {"amount": 2.5}),
        ("reset", {}),
        ("preview", {}),
        ("recall", {"key": "city"}),
        ("remember", {"key": "city", "value": "Oslo"}),
        ("recall", {"key": "city"}),
        ("same_session", {}),
        ("same_session", {}),
        ("ask_name", {}),
        ("ask_age", {}),
        ("ask_ok", {}),
        ("ask_color", {}),
        ("ask_person", {}),
        ("ask_confirm", {}),
        ("ask_declined", {}),
        ("ask_cancelled", {}),
        ("list_prompts", {}),
        ("get_prompt", {"name": "review", "arguments": {"code": "x = 1"}}),
        ("list_resources", {}),
        ("read_resource", {"uri": "data://greeting"}),
        ("read_resource", {"uri": "user://42/profile"}),
        ("define", {"word": "wire"}),  # built by Tool.from_function, a Context parameter
    ]
    for number, (name, arguments) in enumerate(calls):
        done = await outcome(client.call_tool(name, arguments))
        if name == "report":  # its _meta is what the tool gave (plain() leaves _meta out)
            called = await client.call_tool(name, arguments)
            done["_meta"] = called.model_dump(by_alias=True, mode="json").get("_meta")
        if "error" in done or done.get("isError"):  # each framework words its refusals
            done = {"refused": True}
        if name == "list_resources" and not done.get("refused"):
            done = json.loads(done["content"][0]["text"])  # a listing, MIME types and all
        seen[f"{number} {name}"] = done
    resources = await outcome(client.list_resources())
    seen["resources"] = sorted(
        (item["uri"], item.get("mimeType")) for item in resources["resources"]
    )
    templates = await outcome(client.list_resource_templates())
    seen["templates"] = sorted(
        (item["uriTemplate"], item.get("mimeType")) for item in templates["resourceTemplates"]
    )
    prompts = await outcome(client.list_prompts())
    seen["prompts"] = sorted(item["name"] for item in prompts["prompts"])
    return seen


async def drive(command: list[str], stderr: IO[str], checked: bool) -> dict[str, Any]:
    checker = WireChecker() if checked else None
    with anyio.fail_after(TIMEOUT):
        async with Client(
            stdio(command, stderr, checker), mode="legacy", elicitation_callback=answer
        ) as client:
            seen = await exercise(client)
    if checker is not None:
        checker.close()
        assert checker.checked > 40, checker.checked
    return seen


def migrated(folder: Path) -> Path:
    """A copy of the server whose imports ``toolwire migrate`` rewrote."""
    copy = folder / SCRIPT
    shutil.copy(SERVERS / SCRIPT, copy)
    done = subprocess.run(
        [sys.executable, "-m", "toolwire", "migrate", str(copy)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert "fastmcp" not in "".join(
        line for line in copy.read_text(encoding="utf-8").splitlines() if "import" in line
    )
    return copy


def check_seen(seen: dict[str, Any]) -> None:
    """What both sides must give, so that an equal failure is no pass."""
    names = [tool["name"] for tool in seen["tools"]]
    assert "reset" not in names and "preview" in names and names.count("convert") == 1
    assert {"list_prompts", "get_prompt", "list_resources", "read_resource"} <= set(names)
    assert seen["convert version"] == "2.0"
    report = seen["0 report"]
    assert report["content"] == [{"type": "text", "text": "3 rows"}], report
    assert report["structuredContent"] == {"rows": 3, "complete": True}
    assert report["_meta"] == {"source": "report"}
    assert seen["2 convert"]["content"][0]["text"] == "2.5 EUR"
    assert seen["3 reset"] == {"refused": True}
    assert seen["5 recall"]["content"][0]["text"] == "city is None"
    assert seen["7 recall"]["content"][0]["text"] == "city is Oslo"
    assert [seen["8 same_session"], seen["9 same_session"]] != [None, None]
    assert seen["9 same_session"]["content"][0]["text"] == "same"
    texts = {key: value["content"][0]["text"] for key, value in seen.items() if "ask_" in key}
    assert texts == {
        "10 ask_name": "accepted 'Ada'",
        "11 ask_age": "accepted 36",
        "12 ask_ok": "accepted True",
        "13 ask_color": "accepted 'blue'",
        "14 ask_person": "Ada is 36",
        "15 ask_confirm": "accepted {}",
        "16 ask_declined": "declined",
        "17 ask_cancelled": "cancelled",
    }
    prompts = json.loads(seen["18 list_prompts"]["content"][0]["text"])
    assert [prompt["name"] for prompt in prompts] == ["review", "secret_prompt"]
    rendered = json.loads(seen["19 get_prompt"]["content"][0]["text"])
    assert rendered["messages"][0]["content"].startswith("Review this python code")
    assert seen["21 read_resource"]["content"][0]["text"] == "Hello from the resource"
    assert seen["22 read_resource"]["content"][0]["text"] == "profile of 42"
    # a function resource or template is listed with the MIME type of its reads
    assert seen["resources"] == [("data://greeting", "text/plain")]
    assert seen["templates"] == [("user://{user_id}/profile", "text/plain")]
    listed = {item.get("uri"): item for item in seen["20 list_resources"]}
    assert listed["data://greeting"]["mime_type"] == "text/plain"


async def test_fastmcp_style_server_runs_the_same_on_toolwire(
    tmp_path: Path, stderr: IO[str]
) -> None:
    fastmcp_python = peers.fastmcp()
    expected = await drive([fastmcp_python, str(SERVERS / SCRIPT)], stderr, checked=False)
    check_seen(expected)
    seen = await drive([sys.executable, str(migrated(tmp_path))], stderr, checked=True)
    for mine, theirs in zip(seen["tools"], expected["tools"], strict=True):
        assert mine == theirs
    assert seen == expected
