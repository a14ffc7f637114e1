"""The examples in a real MCP client: the official SDK's, over stdio, in both eras."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import anyio
import pytest
from mcp import Client, StdioServerParameters

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
SRC_DIR = Path(__file__).resolve().parents[2] / "src"

CASES = {
    "calculator.py": ("divide", {"a": 7, "b": 2}, "3.5"),
    "bmi.py": ("calculate_bmi", {"weight_kg": 70, "height_m": 1.75}, None),
    "weather.py": ("get_forecast", {"city": "Oslo"}, None),
}


def _parameters(script: str) -> StdioServerParameters:
    # The SDK passes the child only a few variables; let it find toolwire and this interpreter.
    env = {"PYTHONPATH": str(SRC_DIR), "PATH": os.environ.get("PATH", "")}
    return StdioServerParameters(command=sys.executable, args=[str(EXAMPLES / script)], env=env)


@pytest.mark.parametrize("mode", ["legacy", "auto"])
@pytest.mark.parametrize("script", sorted(CASES))
async def test_example_lists_and_calls_in_the_official_client(script: str, mode: str) -> None:
    tool, arguments, text = CASES[script]
    with anyio.fail_after(45):
        async with Client(_parameters(script), mode=mode) as client:
            expected = "2025-11-25" if mode == "legacy" else "2026-07-28"
            assert client.protocol_version == expected
            listing = await client.list_tools()
            names = [t.name for t in listing.tools]
            assert tool in names, names
            result = await client.call_tool(tool, arguments)
            assert not result.is_error, result
            if text is not None:
                assert result.content[0].text == text
            else:
                assert result.structured_content, result
