"""The HTTP client resumes SSE streams the server ends early (SEP-1699, HT-12, HT-20).

A small Streamable HTTP peer (raw ASGI on a real uvicorn) primes each stream with an event
id and a ``retry`` field, then closes the connection without the answer; the client must
wait ``retry`` milliseconds and GET the rest with ``Last-Event-ID``. On 2026-07-28, where
there is no resumption, a stream closed without its answer fails the request at once.
Every message is checked against the negotiated revision's schema.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

import orjson
import pytest

from toolwire import ClientError

from http_server import serve_http
from wire import checked_client

pytestmark = pytest.mark.timeout(30)

LEGACY = "2025-11-25"
MODERN = "2026-07-28"
RETRY_MS = 300
TOOL = {"name": "slow", "inputSchema": {"type": "object", "properties": {}}}


class DroppingPeer:
    """Ends every ``tools/call`` stream (and the first GET stream) after its priming event.

    ``resume_status`` answers the GETs that carry ``Last-Event-ID``; 200 sends what the
    dropped stream still owed (the call's answer, or a log message on the GET stream).
    ``prime=False`` sends no event id at all, so nothing can be resumed.
    """

    def __init__(self, *, prime: bool = True, resume_status: int = 200) -> None:
        self.prime = prime
        self.resume_status = resume_status
        self.owed: dict[str, bytes] = {}  # event id -> the message the dropped stream owed
        self.dropped: dict[str, float] = {}  # event id -> when its stream was dropped
        self.resumes: list[tuple[str, float]] = []  # (Last-Event-ID, seconds after the drop)
        self.gets = 0
        self.events = 0

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
            await self.get(headers.get("last-event-id"), send)
        elif scope["method"] == "DELETE":
            await _reply(send, 200, b"", "text/plain")
        else:
            body = b""
            while True:
                event = await receive()
                body += event.get("body", b"")
                if not event.get("more_body"):
                    break
            await self.post(orjson.loads(body), send)

    def _event_id(self) -> str:
        self.events += 1
        return f"stream/{self.events}"

    async def _prime_and_drop(self, send: Any, owed: bytes) -> None:
        await _start_sse(send)
        if self.prime:
            event_id = self._event_id()
            self.owed[event_id] = owed
            priming = f"id: {event_id}\nretry: {RETRY_MS}\ndata: \n\n".encode()
            await send({"type": "http.response.body", "body": priming, "more_body": True})
            self.dropped[event_id] = time.monotonic()
        await send({"type": "http.response.body", "body": b""})  # ends the connection

    async def post(self, message: dict[str, Any], send: Any) -> None:
        method, mid = message.get("method"), message.get("id")
        if mid is None:
            await _reply(send, 202, b"", "text/plain")
        elif method == "initialize":
            result = {
                "protocolVersion": LEGACY,
                "capabilities": {"tools": {}, "logging": {}},
                "serverInfo": {"name": "dropping", "version": "1"},
            }
            await _reply(send, 200, _answer(mid, result), extra={"mcp-session-id": "s1"})
        elif method == "server/discover":
            result = {
                "resultType": "complete",
                "ttlMs": 0,
                "cacheScope": "private",
                "supportedVersions": [MODERN],
                "capabilities": {"tools": {}},
                "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "d", "version": "1"}},
            }
            await _reply(send, 200, _answer(mid, result))
        elif method == "tools/list":
            result: dict[str, Any] = {"tools": [TOOL]}
            if message["params"].get("_meta"):
                result.update(resultType="complete", ttlMs=0, cacheScope="private")
            await _reply(send, 200, _answer(mid, result))
        else:  # tools/call: the answer is owed to whoever resumes the stream
            answer = {"content": [{"type": "text", "text": "resumed"}], "isError": False}
            await self._prime_and_drop(send, _answer(mid, answer))

    async def get(self, last_event_id: str | None, send: Any) -> None:
        self.gets += 1
        if last_event_id is None:  # the session's GET stream: dropped at once as well
            log = {"level": "info", "data": "after the drop"}
            note = {"jsonrpc": "2.0", "method": "notifications/message", "params": log}
            await self._prime_and_drop(send, orjson.dumps(note))
            return
        self.resumes.append((last_event_id, time.monotonic() - self.dropped[last_event_id]))
        if self.resume_status != 200:
            await _reply(send, self.resume_status, b"", "text/plain")
            return
        await _start_sse(send)
        event = f"id: {self._event_id()}\ndata: ".encode() + self.owed.pop(last_event_id)
        await send({"type": "http.response.body", "body": event + b"\n\n", "more_body": True})
        await send({"type": "http.response.body", "body": b""})


def _answer(mid: Any, result: dict[str, Any]) -> bytes:
    return orjson.dumps({"jsonrpc": "2.0", "id": mid, "result": result})


async def _reply(
    send: Any,
    status: int,
    body: bytes,
    kind: str = "application/json",
    extra: dict[str, str] | None = None,
) -> None:
    headers = [(b"content-type", kind.encode())]
    headers += [(k.encode(), v.encode()) for k, v in (extra or {}).items()]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


async def _start_sse(send: Any) -> None:
    headers = [(b"content-type", b"text/event-stream"), (b"cache-control", b"no-cache")]
    await send({"type": "http.response.start", "status": 200, "headers": headers})


async def test_a_dropped_call_stream_is_resumed_after_the_retry_delay() -> None:
    peer = DroppingPeer()
    with serve_http(peer) as url:
        async with checked_client(url, LEGACY) as client:
            result = await client.call_tool("slow", {})
    assert result.text == "resumed"
    call_resumes = [(eid, after) for eid, after in peer.resumes if eid in peer.dropped]
    assert call_resumes, "the client never came back with Last-Event-ID"
    # the retry field is honoured: no reconnection before RETRY_MS (a little timer slack)
    assert all(after >= RETRY_MS / 1000 - 0.02 for _, after in call_resumes), call_resumes


async def test_the_get_stream_is_resumed_with_last_event_id() -> None:
    peer = DroppingPeer()
    logged = asyncio.Event()

    def on_log(params: dict[str, Any]) -> None:
        if params.get("data") == "after the drop":
            logged.set()

    with serve_http(peer) as url:
        async with checked_client(url, LEGACY, log_handler=on_log):
            await asyncio.wait_for(logged.wait(), 10)
    (event_id, after), *_ = peer.resumes
    assert event_id in peer.dropped and after >= RETRY_MS / 1000 - 0.02


async def test_a_stream_without_event_ids_fails_its_call_at_once() -> None:
    peer = DroppingPeer(prime=False)
    with serve_http(peer) as url:
        async with checked_client(url, LEGACY, timeout=20) as client:
            started = time.monotonic()
            with pytest.raises(ClientError, match="without answering"):
                await client.call_tool("slow", {})
            assert time.monotonic() - started < 5  # not the 20 s timeout
    assert peer.resumes == []


async def test_resuming_is_given_up_when_the_server_refuses_it() -> None:
    peer = DroppingPeer(resume_status=405)
    with serve_http(peer) as url:
        async with checked_client(url, LEGACY, timeout=20) as client:
            with pytest.raises(ClientError, match="resuming it failed"):
                await client.call_tool("slow", {})
    assert len([eid for eid, _ in peer.resumes if eid.startswith("stream/")]) >= 1


async def test_a_modern_stream_closed_without_its_answer_fails_the_call() -> None:
    peer = DroppingPeer()
    with serve_http(peer) as url:
        async with checked_client(url, MODERN, timeout=20) as client:
            started = time.monotonic()
            with pytest.raises(ClientError, match="without answering"):
                await client.call_tool("slow", {})
            assert time.monotonic() - started < 5
    assert peer.resumes == [] and peer.gets == 0  # no resumption in 2026-07-28
