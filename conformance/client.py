"""The client the official MCP conformance harness tests, written on toolwire's public API.

The harness runs ``python conformance/client.py <server-url>`` with the scenario's name in
``MCP_CONFORMANCE_SCENARIO`` (and its data in ``MCP_CONFORMANCE_CONTEXT``, the protocol
revision in ``MCP_CONFORMANCE_PROTOCOL_VERSION``); each scenario is one small function here.
"""

from __future__ import annotations

import asyncio
import os
import sys

SCENARIOS: dict[str, object] = {}


async def main(url: str) -> None:
    scenario = os.environ.get("MCP_CONFORMANCE_SCENARIO", "")
    raise SystemExit(f"unknown scenario {scenario!r} for {url}")


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1]))
