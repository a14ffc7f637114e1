"""What the HTTP endpoint refuses, and that it keeps serving afterwards.

DNS rebinding (HT-02, HT-03, HT-04): by default only loopback ``Host`` values and loopback
``Origin`` values are served, anything else is 403; a deployment names its hosts and
origins. Bodies are bounded in size (413) and in time (408), open streams are counted (503),
requests must be JSON (415) and accept an answer the server can give (406), malformed JSON
is -32700 without an id, and a tool that crashes says so without leaking its traceback.
After every refusal the same server answers a normal call.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import AsyncIterator, Iterator
from typing import Any
from urllib.parse import urlsplit

import httpx
import orjson
import pytest

from toolwire import Context, Server

from http_server import serve_http
from mcp_spec import WireChecker
from wire import MODERN, modern_meta

pytestmark = pytest.mark.timeout(30)

JSON = dict[str, Any]
TIMEOUT = 10.0
LEGACY = "2025-11-25"
BOTH = "application/json, text/event-stream"
SECRET = "postgres://admin:hunter2@db.internal/prod"


def build() -> Server:
    mcp = Server("http-safety")

    @mcp.tool()
    def add(a: int, b: int) -> int:
        """Add two numbers."""
        return a + b

    @mcp.tool()
    def crash() -> str:
        """Fail the way a library deep inside a tool fails."""
        raise RuntimeError(f"could not connect to {SECRET}")

    gate: list[asyncio.Event] = []

    @mcp.tool()
    async def hold(ctx: Context) -> str:
        """Report progress, then wait until ``release`` is called."""
        gate.append(asyncio.Event())
        await ctx.report_progress(1, None, "holding")
        await gate[-1].wait()
        return "released"

    @mcp.tool()
    def release() -> str:
        """Let every ``hold`` call finish."""
        for event in gate:
            event.set()
        return f"released {len(gate)}"

    return mcp


@pytest.fixture(scope="module")
def default_url() -> Iterator[str]:
    """One server with default options for the tests that need nothing else."""
    with serve_http(build()) as url:
        yield url


@pytest.fixture
async def http() -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(timeout=TIMEOUT) as client:
        yield client


_ids = itertools.count(1)


def call(name: str, arguments: JSON | None = None, **meta: Any) -> JSON:
    return {
        "jsonrpc": "2.0",
        "id": next(_ids),
        "method": "tools/call",
        "params": {"name": name, "arguments": arguments or {}, "_meta": modern_meta(**meta)},
    }


def headers_for(message: JSON, **extra: str) -> dict[str, str]:
    headers = {
        "Accept": BOTH,
        "Content-Type": "application/json",
        "MCP-Protocol-Version": MODERN,
        "Mcp-Method": message["method"],
        "Mcp-Name": message["params"]["name"],
    }
    headers.update({name.replace("_", "-"): value for name, value in extra.items()})
    return headers


def checked(response: httpx.Response, checker: WireChecker | None = None) -> JSON:
    """The JSON-RPC body of ``response``, validated as a 2026-07-28 server message."""
    assert response.headers["content-type"].startswith("application/json"), response.text
    (checker or WireChecker(MODERN)).server_sent(response.content)
    body: JSON = response.json()
    return body


async def post(http: httpx.AsyncClient, url: str, message: JSON, **extra: str) -> httpx.Response:
    return await http.post(
        url, content=orjson.dumps(message), headers=headers_for(message, **extra)
    )


async def assert_serving(http: httpx.AsyncClient, url: str) -> None:
    """A normal call on a fresh connection still works."""
    message = call("add", {"a": 40, "b": 2})
    checker = WireChecker(MODERN)
    checker.client_sent(message)
    async with httpx.AsyncClient(timeout=TIMEOUT) as fresh:
        response = await post(fresh, url, message)
    assert response.status_code == 200, response.text
    assert checked(response, checker)["result"]["structuredContent"] == {"result": 42}


# ---------------------------------------------------------------- Host and Origin


@pytest.mark.parametrize(
    "host", ["example.com", "evil.example:8000", "127.0.0.1.nip.io", "localhost.evil.example"]
)
async def test_a_foreign_host_is_forbidden_by_default(
    http: httpx.AsyncClient, default_url: str, host: str
) -> None:
    """HT-02, HT-04: a request naming a host that is not loopback is a DNS-rebinding
    attempt against a local server: 403, and the tool never runs."""
    response = await post(http, default_url, call("add", {"a": 1, "b": 1}), Host=host)
    assert response.status_code == 403
    body = checked(response)
    assert body["error"]["code"] == -32600
    assert "result" not in body
    await assert_serving(http, default_url)


@pytest.mark.parametrize("host", ["localhost", "localhost:9999", "127.0.0.1:1", "[::1]:8000"])
async def test_loopback_hosts_are_served(
    http: httpx.AsyncClient, default_url: str, host: str
) -> None:
    response = await post(http, default_url, call("add", {"a": 1, "b": 1}), Host=host)
    assert response.status_code == 200, response.text


@pytest.mark.parametrize("allowed", [["example.com"], ["*"]])
async def test_named_hosts_are_served(http: httpx.AsyncClient, allowed: list[str]) -> None:
    """A public deployment names its hosts (or accepts any with "*")."""
    with serve_http(build(), allowed_hosts=allowed) as url:
        response = await post(http, url, call("add", {"a": 2, "b": 2}), Host="example.com:8443")
        assert response.status_code == 200, response.text
        assert checked(response)["result"]["structuredContent"] == {"result": 4}
        other = await post(http, url, call("add", {"a": 2, "b": 2}), Host="other.example")
        assert other.status_code == (200 if allowed == ["*"] else 403)


@pytest.mark.parametrize(
    "origin", ["http://evil.example", "https://evil.example:443", "null", "http://127.0.0.2.evil"]
)
async def test_a_foreign_origin_is_forbidden(
    http: httpx.AsyncClient, default_url: str, origin: str
) -> None:
    """HT-02, HT-03: a present Origin that is not allowed is 403 (a JSON-RPC error
    without an id), and the tool never runs."""
    response = await post(http, default_url, call("add", {"a": 1, "b": 1}), Origin=origin)
    assert response.status_code == 403
    body = checked(response)
    assert "id" not in body and body["error"]["code"] == -32600
    await assert_serving(http, default_url)


@pytest.mark.parametrize(
    "origin",
    ["http://localhost:3000", "http://127.0.0.1:8080", "http://[::1]", "https://localhost"],
)
async def test_loopback_origins_are_served(
    http: httpx.AsyncClient, default_url: str, origin: str
) -> None:
    response = await post(http, default_url, call("add", {"a": 1, "b": 1}), Origin=origin)
    assert response.status_code == 200, response.text


async def test_named_origins_are_served(http: httpx.AsyncClient) -> None:
    """allowed_origins lists exactly the web origins that may call the server."""
    with serve_http(build(), allowed_origins=["https://app.example"]) as url:
        good = await post(http, url, call("add", {"a": 1, "b": 1}), Origin="https://app.example")
        assert good.status_code == 200, good.text
        bad = await post(http, url, call("add", {"a": 1, "b": 1}), Origin="http://evil.example")
        assert bad.status_code == 403
        await assert_serving(http, url)


# ---------------------------------------------------------------- malformed requests


async def test_a_body_over_the_limit_is_413(http: httpx.AsyncClient) -> None:
    with serve_http(build(), max_body_bytes=2048) as url:
        message = call("add", {"a": 1, "b": 1, "padding": "x" * 4096})
        response = await post(http, url, message)
        assert response.status_code == 413
        await assert_serving(http, url)


@pytest.mark.parametrize("content_type", ["text/plain", "application/x-www-form-urlencoded", None])
async def test_a_body_that_is_not_json_is_415(
    http: httpx.AsyncClient, default_url: str, content_type: str | None
) -> None:
    message = call("add", {"a": 1, "b": 1})
    headers = headers_for(message)
    if content_type is None:
        del headers["Content-Type"]
    else:
        headers["Content-Type"] = content_type
    response = await http.post(default_url, content=orjson.dumps(message), headers=headers)
    assert response.status_code == 415
    await assert_serving(http, default_url)


async def test_an_answer_the_client_cannot_accept_is_406(
    http: httpx.AsyncClient, default_url: str
) -> None:
    """HT-07, HT-10: the server can only answer with JSON or SSE."""
    response = await post(http, default_url, call("add", {"a": 1, "b": 1}), Accept="text/html")
    assert response.status_code == 406
    await assert_serving(http, default_url)


@pytest.mark.parametrize("method", ["PUT", "PATCH"])
async def test_other_http_methods_are_405(
    http: httpx.AsyncClient, default_url: str, method: str
) -> None:
    response = await http.request(method, default_url, content=b"{}")
    assert response.status_code == 405
    assert "POST" in response.headers["allow"]
    await assert_serving(http, default_url)


async def test_another_path_is_404(http: httpx.AsyncClient, default_url: str) -> None:
    message = call("add", {"a": 1, "b": 1})
    response = await post(http, default_url.replace("/mcp", "/other"), message)
    assert response.status_code == 404


@pytest.mark.parametrize("body", [b'{"jsonrpc": "2.0", "id": 1, "method": ', b"\xff\xfe", b""])
async def test_malformed_json_is_a_parse_error_without_an_id(
    http: httpx.AsyncClient, default_url: str, body: bytes
) -> None:
    """400, -32700 and ``"id": null``: the message could not be read (JSON-RPC 2.0 §5)."""
    headers = {"Accept": BOTH, "Content-Type": "application/json"}
    response = await http.post(default_url, content=body, headers=headers)
    assert response.status_code == 400
    error = checked(response)
    assert error["error"]["code"] == -32700
    assert "id" in error and error["id"] is None
    await assert_serving(http, default_url)


async def test_a_body_that_arrives_too_slowly_is_408() -> None:
    """A client that announces a body and never finishes sending it is cut off."""
    with serve_http(build(), body_timeout=0.5) as url:
        parts = urlsplit(url)
        body = orjson.dumps(call("add", {"a": 1, "b": 1}))
        head = (
            f"POST {parts.path} HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            f"Content-Type: application/json\r\nAccept: {BOTH}\r\n"
            f"Content-Length: {len(body)}\r\n\r\n"
        ).encode()
        reader, writer = await asyncio.open_connection(parts.hostname, parts.port)
        try:
            writer.write(head + body[:10])
            await writer.drain()
            status = await asyncio.wait_for(reader.readline(), TIMEOUT)
        finally:
            writer.close()
        assert status.split()[1] == b"408", status
        async with httpx.AsyncClient(timeout=TIMEOUT) as http:
            await assert_serving(http, url)


async def test_streams_beyond_the_limit_are_503(http: httpx.AsyncClient) -> None:
    """With max_streams open, one more SSE answer is refused (503); a JSON answer still
    works, and so does a stream once the open one has ended."""
    with serve_http(build(), max_streams=1) as url:
        holding = call("hold", progressToken="h")
        async with http.stream(
            "POST", url, content=orjson.dumps(holding), headers=headers_for(holding)
        ) as first:
            assert first.headers["content-type"].startswith("text/event-stream")
            lines = first.aiter_lines()
            line = await asyncio.wait_for(lines.__anext__(), TIMEOUT)
            while not line.startswith("data:"):
                line = await asyncio.wait_for(lines.__anext__(), TIMEOUT)
            assert orjson.loads(line[5:])["method"] == "notifications/progress"

            another = call("hold", progressToken="h2")
            refused = await post(http, url, another, Accept="text/event-stream")
            assert refused.status_code == 503
            await assert_serving(http, url)  # JSON answers need no stream

            released = await post(http, url, call("release"), Accept="application/json")
            assert released.status_code == 200
            # the refused call never ran: only the first one was holding
            assert released.json()["result"]["content"][0]["text"] == "released 1"
            rest = [line async for line in lines]
            assert any('"result"' in line for line in rest), rest
        streamed = await post(http, url, call("release"), Accept="text/event-stream")
        assert streamed.status_code == 200
        assert streamed.headers["content-type"].startswith("text/event-stream")


# ---------------------------------------------------------------- failing tools


async def _legacy_session(http: httpx.AsyncClient, url: str) -> dict[str, str]:
    initialize = {
        "jsonrpc": "2.0",
        "id": 0,
        "method": "initialize",
        "params": {
            "protocolVersion": LEGACY,
            "capabilities": {},
            "clientInfo": {"name": "tests", "version": "0"},
        },
    }
    base = {"Accept": BOTH, "Content-Type": "application/json"}
    response = await http.post(url, content=orjson.dumps(initialize), headers=base)
    assert response.status_code == 200, response.text
    headers = {
        **base,
        "Mcp-Session-Id": response.headers["mcp-session-id"],
        "MCP-Protocol-Version": LEGACY,
    }
    initialized = {"jsonrpc": "2.0", "method": "notifications/initialized"}
    done = await http.post(url, content=orjson.dumps(initialized), headers=headers)
    assert done.status_code == 202
    return headers


async def test_a_crashing_tool_leaks_nothing(http: httpx.AsyncClient, default_url: str) -> None:
    """TL-24, SB: an unexpected exception is an isError result with a generic message and
    a reference, in both eras; no traceback, no exception text, no source path."""
    modern = call("crash")
    bodies = [await post(http, default_url, modern)]
    headers = await _legacy_session(http, default_url)
    legacy = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "crash"}}
    bodies.append(await http.post(default_url, content=orjson.dumps(legacy), headers=headers))
    for response, revision in zip(bodies, [MODERN, LEGACY], strict=True):
        assert response.status_code == 200, response.text
        checker = WireChecker(revision)
        checker.client_sent(modern if revision == MODERN else legacy)
        result = checked(response, checker)["result"]
        assert result["isError"] is True
        (block,) = result["content"]
        assert "crash" in block["text"] and "reference" in block["text"], block
        for leak in ("Traceback", "RuntimeError", SECRET, "hunter2", ".py", 'File "'):
            assert leak not in response.text, (leak, response.text)
    await assert_serving(http, default_url)
