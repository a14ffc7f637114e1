"""The HTTP client against a scripted Streamable HTTP peer (raw ASGI on a real uvicorn):
version negotiation after -32022 (LC-19), tools with invalid ``x-mcp-header`` annotations
left out (TL-39), and a legacy session whose GET stream is open before its first request.
Every message is checked against the negotiated revision's schema."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
from typing import Any

import orjson
import pytest

from toolwire import Client, ClientError, ServerError

from http_server import serve_http
from wire import checked_client

pytestmark = pytest.mark.timeout(30)

MODERN = "2026-07-28"
LIST_META = {"resultType": "complete", "ttlMs": 0, "cacheScope": "private"}


def tool(name: str, **properties: Any) -> dict[str, Any]:
    return {"name": name, "inputSchema": {"type": "object", "properties": properties}}


TOOLS = [
    tool("valid", region={"type": "string", "x-mcp-header": "Region"}),
    tool("plain", query={"type": "string"}),
    tool("empty_name", v={"type": "string", "x-mcp-header": ""}),
    tool("on_a_number", v={"type": "number", "x-mcp-header": "Score"}),
    tool("on_an_object", v={"type": "object", "x-mcp-header": "Data"}),
    tool("with_space", v={"type": "string", "x-mcp-header": "My Region"}),
    tool("with_colon", v={"type": "string", "x-mcp-header": "Region:1"}),
    tool("not_ascii", v={"type": "string", "x-mcp-header": "Région"}),
    tool(
        "twice",
        a={"type": "string", "x-mcp-header": "MyField"},
        b={"type": "string", "x-mcp-header": "myfield"},
    ),
]


class Peer:
    """Answers what the tests need; ``refuse`` is the ``supported`` list of a -32022 sent
    to the first request; ``slow_get`` holds the GET stream's answer until a POST comes
    (or a second), recording whether a request came before the stream was open;
    ``stray``: ``tools/list`` is answered on an SSE stream that first carries an answer to
    a request never sent."""

    def __init__(
        self,
        *,
        refuse: list[str] | None = None,
        slow_get: bool = False,
        stray: bool = False,
    ) -> None:
        self.refuse = refuse
        self.slow_get = slow_get
        self.stray = stray
        self.seen: list[tuple[str, str | None]] = []  # (method, MCP-Protocol-Version)
        self.get_open = False
        self.early: list[str] = []  # requests that came before the GET stream was open
        self.posted = asyncio.Event()

    def http_app(self, path: str, **_: Any) -> Any:
        return self

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "lifespan":
            while (await receive())["type"] != "lifespan.shutdown":
                await send({"type": "lifespan.startup.complete"})
            await send({"type": "lifespan.shutdown.complete"})
            return
        headers = {k.decode().lower(): v.decode() for k, v in scope["headers"]}
        if scope["method"] == "GET":
            if self.slow_get:
                # bounded: the client that waits for this answer goes on after a second
                with contextlib.suppress(asyncio.TimeoutError):
                    await asyncio.wait_for(self.posted.wait(), 1.0)
            self.get_open = True
            start = [(b"content-type", b"text/event-stream")]
            await send({"type": "http.response.start", "status": 200, "headers": start})
            await send({"type": "http.response.body", "body": b": open\n\n", "more_body": True})
            while (await receive())["type"] != "http.disconnect":
                pass
            return
        if scope["method"] == "DELETE":
            await _reply(send, 200, b"")
            return
        body = b""
        while True:
            event = await receive()
            body += event.get("body", b"")
            if not event.get("more_body"):
                break
        message = orjson.loads(body)
        method, mid = message.get("method"), message.get("id")
        self.seen.append((method, headers.get("mcp-protocol-version")))
        if method not in ("initialize", "notifications/initialized"):
            if not self.get_open and self.slow_get:
                self.early.append(method)
            self.posted.set()
        if mid is None:
            await _reply(send, 202, b"")
        elif self.refuse is not None:
            supported, self.refuse = self.refuse, None
            error = {"code": -32022, "message": "Unsupported protocol version"}
            error["data"] = {"supported": supported, "requested": headers["mcp-protocol-version"]}
            await _reply(send, 400, orjson.dumps({"jsonrpc": "2.0", "id": mid, "error": error}))
        elif self.stray and method == "tools/list":
            events = [_answer("never-sent", {}), _answer(mid, self.result(message))]
            start = [(b"content-type", b"text/event-stream")]
            await send({"type": "http.response.start", "status": 200, "headers": start})
            body = b"".join(b"event: message\ndata: " + e + b"\n\n" for e in events)
            await send({"type": "http.response.body", "body": body})
        else:
            await _reply(send, 200, _answer(mid, self.result(message)), session=method)

    def result(self, message: dict[str, Any]) -> dict[str, Any]:
        method = message["method"]
        if method == "initialize":
            return {
                "protocolVersion": message["params"]["protocolVersion"],
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "peer", "version": "1"},
            }
        if method == "server/discover":
            meta = {"io.modelcontextprotocol/serverInfo": {"name": "peer", "version": "1"}}
            return {**LIST_META, "supportedVersions": [MODERN], "capabilities": {}, "_meta": meta}
        if method == "tools/list":
            modern = bool(message["params"].get("_meta"))
            return {"tools": TOOLS, **(LIST_META if modern else {})}
        return {"content": [{"type": "text", "text": "ok"}], "isError": False}


def _answer(mid: Any, result: dict[str, Any]) -> bytes:
    return orjson.dumps({"jsonrpc": "2.0", "id": mid, "result": result})


async def _reply(send: Any, status: int, body: bytes, session: str | None = None) -> None:
    headers = [(b"content-type", b"application/json")]
    if session == "initialize":
        headers.append((b"mcp-session-id", b"s1"))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


@pytest.mark.parametrize("pinned", [MODERN, None])
async def test_a_refused_version_is_asked_again_in_one_the_server_supports(
    pinned: str | None,
) -> None:
    peer = Peer(refuse=[MODERN])
    with serve_http(peer) as url:
        async with checked_client(url, pinned) as client:
            assert client.protocol_version == MODERN
            await client.list_tools()
    assert peer.seen[:3] == [
        ("server/discover", MODERN),
        ("server/discover", MODERN),
        ("tools/list", MODERN),
    ]


async def test_a_legacy_only_server_gets_initialize_in_its_best_revision() -> None:
    peer = Peer(refuse=["2025-03-26", "2025-06-18"])
    with serve_http(peer) as url:
        async with checked_client(url) as client:
            assert client.protocol_version == "2025-06-18"
    assert peer.seen[:2] == [("server/discover", MODERN), ("initialize", None)]


async def test_tools_with_invalid_header_annotations_are_left_out(
    caplog: pytest.LogCaptureFixture,
) -> None:
    peer = Peer()
    with serve_http(peer) as url, caplog.at_level(logging.WARNING, "toolwire.client"):
        async with checked_client(url, MODERN) as client:
            names = [t["name"] for t in await client.list_tools()]
    assert names == ["valid", "plain"]
    left_out = [r.getMessage() for r in caplog.records if "Leaving out tool" in r.getMessage()]
    assert len(left_out) == len(TOOLS) - 2


async def test_legacy_revisions_keep_every_tool() -> None:
    peer = Peer()
    with serve_http(peer) as url:
        async with checked_client(url, "2025-11-25") as client:
            assert len(await client.list_tools()) == len(TOOLS)  # no x-mcp-header rules there


async def test_a_legacy_session_opens_its_get_stream_before_the_first_request() -> None:
    peer = Peer(slow_get=True)
    with serve_http(peer) as url:
        async with checked_client(url, "2025-11-25") as client:
            await client.list_tools()
    assert peer.get_open and peer.early == []


@pytest.mark.parametrize("revision", [None, "2025-06-18"])
async def test_a_server_that_cannot_be_reached_is_the_clients_error(revision: str | None) -> None:
    # A port bound but not listening refuses the connection: no server said anything, so
    # the failure is a ClientError, not a ServerError carrying a code a server never sent.
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{sock.getsockname()[1]}/mcp"
        with pytest.raises(ClientError, match="HTTP request failed") as failed:
            async with Client(url, protocol_version=revision):
                pass
    assert not isinstance(failed.value, ServerError)


async def test_an_answer_to_a_request_never_sent_is_logged(
    caplog: pytest.LogCaptureFixture,
) -> None:
    with serve_http(Peer(stray=True)) as url, caplog.at_level(logging.WARNING, "toolwire"):
        async with Client(url, protocol_version="2025-11-25") as client:
            assert len(await client.list_tools()) == len(TOOLS)
    stray = [r for r in caplog.records if "Ignoring an answer to no request" in r.getMessage()]
    assert len(stray) == 1 and "never-sent" in stray[0].getMessage()
