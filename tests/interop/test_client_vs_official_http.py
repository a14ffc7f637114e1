"""toolwire's client against the official SDKs' servers over Streamable HTTP: the
TypeScript SDK 1.x and the Python SDK 1.x, the servers most hosts meet. Both refuse the
2026-07-28 probe (``server/discover``) with an HTTP 400 whose body carries another id (null,
or ``"server-error"``): that is the probe's answer, so the client falls back to
``initialize`` without a warning. Each peer listens on 127.0.0.1 and prints its URL."""

from __future__ import annotations

import asyncio
import logging
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from interop import peers

from wire import checked_client

pytestmark = [pytest.mark.timeout(60), pytest.mark.peers("npm-ts-sdk", "mcp-sdk-1")]

HERE = Path(__file__).parent
TIMEOUT = 20.0


def listening(command: list[str]) -> Iterator[str]:
    """Start ``command``; yield the URL it prints once it accepts; stop it afterwards."""
    process = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True
    )
    try:
        assert process.stdout is not None
        url = process.stdout.readline().strip()
        assert url.startswith("http://127.0.0.1:"), url
        yield url
    finally:
        process.kill()
        process.wait(TIMEOUT)


@pytest.fixture(scope="module")
def typescript_sdk_server() -> Iterator[str]:
    node, sdk = peers.ts_sdk()
    yield from listening([node, str(HERE / "ts_http_server.mjs"), str(sdk)])


@pytest.fixture(scope="module")
def python_sdk_server() -> Iterator[str]:
    yield from listening([peers.python_sdk_1(), str(HERE / "sdk1_http_server.py")])


async def _connect_and_add(url: str) -> None:
    async with checked_client(url) as client:
        assert client.protocol_version == "2025-11-25"  # after the refused probe
        result = await client.call_tool("add", {"a": 2, "b": 3})
        assert (result.is_error, result.text) == (False, "5")


@pytest.mark.parametrize("peer", ["typescript_sdk_server", "python_sdk_server"])
async def test_the_refused_probe_falls_back_without_a_warning(
    peer: str, request: pytest.FixtureRequest, caplog: pytest.LogCaptureFixture
) -> None:
    url = request.getfixturevalue(peer)
    with caplog.at_level(logging.DEBUG, "toolwire"):
        await asyncio.wait_for(_connect_and_add(url), TIMEOUT)
    sent = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert sent == []
