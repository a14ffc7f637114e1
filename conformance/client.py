"""The client the official MCP conformance harness tests, written on toolwire's public API.

The harness runs ``python conformance/client.py <server-url>`` with the scenario's name in
``MCP_CONFORMANCE_SCENARIO`` (and its data in ``MCP_CONFORMANCE_CONTEXT``, the protocol
revision in ``MCP_CONFORMANCE_PROTOCOL_VERSION``); each scenario is one small function here.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys

SCENARIOS: dict[str, object] = {}


# ---------------------------------------------------------------------------- auth scenarios
#
# Every auth/* scenario runs the same well-behaved OAuth client: connect (the first 401 starts
# the authorization), list the tools, call ``test-tool``. The harness's authorization endpoint
# approves at once and answers with a redirect, so "the person in the browser" is a GET of the
# authorization URL whose ``Location`` is the redirect the browser would follow.

AUTH_CLIENT_METADATA_URL = "https://conformance-test.local/client-metadata.json"
AUTH_REDIRECT_URI = "http://localhost:3000/callback"


async def approve_without_user(url: str) -> str:
    """The redirect the authorization endpoint answers ``url`` with (nobody to ask)."""
    import httpx

    async with httpx.AsyncClient(timeout=30.0) as http:
        response = await http.get(url)
    location = response.headers.get("location")
    if response.status_code not in (301, 302, 303, 307, 308) or not location:
        raise RuntimeError(f"the authorization endpoint answered HTTP {response.status_code}")
    return location


async def run_auth(url: str) -> None:
    """The auth/* scenarios: authorize, list the tools, call ``test-tool``."""
    from toolwire import Client
    from toolwire.client import OAuth

    context = json.loads(os.environ.get("MCP_CONFORMANCE_CONTEXT") or "{}")
    auth = OAuth(
        client_id=context.get("client_id"),  # pre-registered, where the scenario has one
        client_secret=context.get("client_secret"),
        client_metadata_url=AUTH_CLIENT_METADATA_URL,
        client_name="toolwire-conformance",
        redirect_uri=AUTH_REDIRECT_URI,
        authorize=approve_without_user,
    )
    version = os.environ.get("MCP_CONFORMANCE_PROTOCOL_VERSION") or None
    async with Client(url, auth=auth, protocol_version=version) as client:
        await client.list_tools()
        await client.call_tool("test-tool", {})


async def main(url: str) -> None:
    scenario = os.environ.get("MCP_CONFORMANCE_SCENARIO", "")
    if scenario.startswith("auth/"):  # the auth scenarios' own dispatch
        return await run_auth(url)
    raise SystemExit(f"unknown scenario {scenario!r} for {url}")


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1]))
