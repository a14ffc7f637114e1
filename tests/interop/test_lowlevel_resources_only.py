"""A low-level server with resources and no resource-template handler (the official SDK's
``simple-resource`` example): on the SDK and, with only its imports changed by ``toolwire
migrate``, on toolwire, each a subprocess over stdio driven by the official client.

Both declare the ``resources`` capability and list and read the same resources, and both
answer ``resources/templates/list``, which has no handler, with -32601 (method not found).
Every message toolwire sends is checked against the schema of the negotiated revision.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import IO, Any

import anyio
import pytest
from mcp import Client, MCPError

from interop.test_lowlevel_sdk_styles import outcome, stdio
from migrated import migrated

from mcp_spec import WireChecker

pytestmark = pytest.mark.timeout(120)

SERVERS = Path(__file__).resolve().parents[1] / "servers"
SCRIPT = SERVERS / "sdk2_resources_only.py"
TIMEOUT = 60.0


async def drive(command: list[str], stderr: IO[str], mode: str, checked: bool) -> dict[str, Any]:
    checker = WireChecker() if checked else None
    seen: dict[str, Any] = {}
    with anyio.fail_after(TIMEOUT):
        async with Client(stdio(command, stderr, checker), mode=mode) as client:
            seen["protocol"] = client.protocol_version
            seen["resources capability"] = client.server_capabilities.resources is not None
            seen["resources"] = await outcome(client.list_resources())
            seen["read"] = await outcome(client.read_resource("file:///greeting.txt"))
            try:
                listed = await client.list_resource_templates()
                seen["templates"] = listed.resource_templates
            except MCPError as exc:
                seen["templates"] = exc.code
    if checker is not None:
        checker.close()
        assert checker.checked > 4, checker.checked
    return seen


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_a_list_without_a_handler_is_not_found_on_both(mode: str, tmp_path: Path) -> None:
    with (tmp_path / "stderr.log").open("w", encoding="utf-8") as stderr:
        sdk = await drive([sys.executable, str(SCRIPT)], stderr, mode, checked=False)
        copy = migrated(SCRIPT, tmp_path)
        toolwire = await drive([sys.executable, str(copy)], stderr, mode, checked=True)
    assert sdk["templates"] == -32601
    assert sdk["resources capability"] is True
    assert toolwire == sdk
