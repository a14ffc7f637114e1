"""A server in FastMCP 4's style with its task add-on runs the same on toolwire after
``toolwire migrate``.

``servers/fastmcp4_tasks_style.py`` uses ``TasksExtension``, ``task=True`` and
``task=TaskConfig(...)``, the ``Progress`` dependency, ``Annotated[T, "text"]`` descriptions,
``mcp_types`` models and a tool that asks by returning an ``InputRequiredResult`` and reads
the answer in ``ctx.input_responses``. It runs over stdio on FastMCP (the ``fastmcp-tasks``
peer of tests/interop/peers.py) and, as the copy ``toolwire migrate`` rewrote, on toolwire;
the official client (``mcp.Client``) lists and calls everything on both, answering the
question the same way, and the outcomes must be equal. On 2025-11-25 FastMCP refuses a
returned ``InputRequiredResult`` (it exists only on 2026-07-28) where toolwire asks the
client with an elicitation request, as ``ctx.elicit`` does (docs/migrating.md). Every
message toolwire sends is checked against the schema of the negotiated revision.
"""

from __future__ import annotations

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
from migrated import migrated

from mcp_spec import WireChecker

pytestmark = [pytest.mark.timeout(180), pytest.mark.peers("fastmcp-tasks")]

SCRIPT = Path(__file__).resolve().parent.parent / "servers" / "fastmcp4_tasks_style.py"
TIMEOUT = 90.0


async def answer(context: Any, params: Any) -> mcp_types.ElicitResult:
    assert params.message == "What kind of dinner?"
    return mcp_types.ElicitResult(action="accept", content={"cuisine": "Thai", "vegetarian": True})


def listed(tool: dict[str, Any]) -> dict[str, Any]:
    """What a model reads of a tool: its name, description and parameters with theirs."""
    properties = tool["inputSchema"].get("properties", {})
    return {
        "name": tool["name"],
        "description": tool.get("description"),
        "properties": {
            name: (sub.get("type"), sub.get("description")) for name, sub in properties.items()
        },
        "required": sorted(tool["inputSchema"].get("required", [])),
        "outputSchema": tool.get("outputSchema"),
    }


def result(done: dict[str, Any]) -> dict[str, Any]:
    """A call's result without ``_meta``."""
    return {key: value for key, value in done.items() if key != "_meta"}


async def drive(command: list[str], mode: str, stderr: IO[str], checked: bool) -> dict[str, Any]:
    checker = WireChecker() if checked else None
    seen: dict[str, Any] = {}
    with anyio.fail_after(TIMEOUT):
        async with Client(
            stdio(command, stderr, checker), mode=mode, elicitation_callback=answer
        ) as client:
            seen["protocol"] = client.protocol_version
            tools = [
                tool.model_dump(by_alias=True, mode="json", exclude_none=True)
                for tool in (await client.list_tools()).tools
            ]
            seen["tools"] = sorted((listed(tool) for tool in tools), key=lambda t: t["name"])
            for name, arguments in (
                ("count", {"label": "run", "steps": 3}),
                ("double", {"n": 21}),
                ("plan_dinner", {}),
            ):
                told: list[tuple[float, float | None, str | None]] = []

                async def progress(done: float, total: float | None, message: str | None) -> None:
                    told.append((done, total, message))  # noqa: B023 (awaited in this turn)

                seen[name] = await outcome(client.call_tool(name, arguments, None, progress))
                if "error" not in seen[name]:
                    seen[name] = result(seen[name])
                seen[f"{name} progress"] = told
    if checker is not None:
        checker.close()
        assert checker.checked > 8, checker.checked
    return seen


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_fastmcp4_task_style_server_runs_the_same_on_toolwire(
    mode: str, tmp_path: Path, stderr: IO[str]
) -> None:
    expected = await drive([peers.fastmcp_tasks(), str(SCRIPT)], mode, stderr, checked=False)
    copy = migrated(SCRIPT, tmp_path)
    seen = await drive([sys.executable, str(copy)], mode, stderr, checked=True)
    assert (
        seen["protocol"]
        == expected["protocol"]
        == ("2026-07-28" if mode == "auto" else "2025-11-25")
    )
    dinner = [{"type": "text", "text": "a vegetarian Thai dinner"}]
    assert (seen["plan_dinner"]["content"], seen["plan_dinner"]["isError"]) == (dinner, False)
    if mode == "legacy":  # FastMCP refuses the guard pattern before 2026-07-28
        refused = expected.pop("plan_dinner")
        assert "only exists at MCP 2026-07-28" in refused["message"], refused
        seen.pop("plan_dinner")
    assert seen["count"]["content"] == [{"type": "text", "text": "run counted 3"}]
    # a plain call's Progress keeps count only, as FastMCP's in-memory progress
    assert seen["count progress"] == []
    assert seen["double"]["structuredContent"] == {"result": 42}
    described = {tool["name"]: tool for tool in seen["tools"]}["count"]["properties"]
    assert described == {
        "label": ("string", "A name for this run"),
        "steps": ("integer", "How many steps to count"),
    }
    assert seen == expected
