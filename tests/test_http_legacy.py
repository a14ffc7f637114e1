"""Streamable HTTP on the legacy revisions (2025-03-26, 2025-06-18, 2025-11-25), end to end.

A real uvicorn serves the endpoint on 127.0.0.1 (``http_server.serve_http``) and the tests
drive it with raw ``httpx``, so status codes, headers and SSE framing are all visible. Every
message the server sends (JSON bodies, SSE ``data:`` payloads, HTTP error bodies) goes
through a :class:`~mcp_spec.WireChecker` for the negotiated revision.

The server runs in the same process (on its own thread and event loop), so a tool can wait
on a :class:`Gate` the test opens: that is how a call is held in the middle while the client
disconnects, with no sleeps.

Covered: sessions (HT-21…HT-25), ``MCP-Protocol-Version`` (HT-26…HT-28), 202 for
notifications and responses (HT-09), Accept negotiation and JSON vs SSE answers (HT-07,
HT-10), a request's messages on its own stream before its response, which ends it (HT-13…
HT-15), the GET stream for unrelated messages (HT-16…HT-18), priming events and event ids
(HT-11, HT-19), resumption with ``Last-Event-ID`` (HT-20), batches (2025-03-26 only), and
the ``json_response`` and ``stateless`` options.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import httpx
import orjson
import pytest
from pydantic import BaseModel

from toolwire import Context, Server

from http_server import serve_http
from mcp_spec import WireChecker

pytestmark = pytest.mark.timeout(30)

REVISIONS = ["2025-03-26", "2025-06-18", "2025-11-25"]
RESUMABLE = "2025-11-25"  # the first revision with priming events and resumable POST streams
HEADER_REVISIONS = ["2025-06-18", "2025-11-25"]  # clients send MCP-Protocol-Version
ELICITATION = ["2025-06-18", "2025-11-25"]
BOTH = "application/json, text/event-stream"
SSE = "text/event-stream"
JSON_ONLY = "application/json"
TIMEOUT = 10.0
RETRY_MS = 1500
JSON = dict[str, Any]


# ---------------------------------------------------------------------------- the server


class Confirm(BaseModel):
    ok: bool


class Gate:
    """An ``asyncio.Event`` on the server's loop that the test opens from its own loop."""

    def __init__(self) -> None:
        self._waiting: concurrent.futures.Future[tuple[asyncio.AbstractEventLoop, asyncio.Event]]
        self._waiting = concurrent.futures.Future()
        self.finished: concurrent.futures.Future[None] = concurrent.futures.Future()

    async def wait(self) -> None:
        """In a tool: wait until the test opens the gate."""
        event = asyncio.Event()
        self._waiting.set_result((asyncio.get_running_loop(), event))
        await event.wait()

    async def open(self) -> None:
        """In the test: let the waiting tool go on."""
        loop, event = await asyncio.wait_for(asyncio.wrap_future(self._waiting), TIMEOUT)
        loop.call_soon_threadsafe(event.set)


def build() -> tuple[Server, Gate]:
    mcp = Server("http-legacy", version="1.0")
    gate = Gate()

    @mcp.tool()
    def add(a: int, b: int) -> int:
        """Add two numbers."""
        return a + b

    @mcp.tool()
    def weather(city: str) -> dict[str, Any]:
        """Weather in a city."""
        return {"city": city, "temperature": 21}

    @mcp.tool()
    async def count(steps: int, ctx: Context) -> str:
        """Count, reporting progress at each step."""
        for step in range(1, steps + 1):
            await ctx.report_progress(step, total=steps, message=f"step {step}")
        return f"counted to {steps}"

    @mcp.tool()
    async def chatty(ctx: Context) -> str:
        """Log at several levels."""
        await ctx.debug("too detailed")
        await ctx.info("working")
        await ctx.warning("careful")
        return "done"

    @mcp.tool()
    async def confirm(ctx: Context) -> str:
        """Ask the user before going on."""
        answer = await ctx.elicit("Proceed?", Confirm)
        return f"{answer.action} ok={answer.data.ok if answer.data else None}"

    @mcp.tool()
    async def gated(ctx: Context) -> str:
        """Report progress, wait for the gate, report again."""
        await ctx.report_progress(1, total=2)
        await gate.wait()
        await ctx.report_progress(2, total=2)
        gate.finished.set_result(None)
        return "through the gate"

    @mcp.tool()
    def grow(name: str = "sprouted") -> str:
        """Add a tool at run time."""

        def sprouted() -> str:
            """A tool added at run time."""
            return "new"

        mcp.add_tool(sprouted, name=name)
        return "grown"

    return mcp, gate


# ---------------------------------------------------------------------------- the client side


@dataclass
class Event:
    data: str
    id: str | None = None
    retry: int | None = None
    event: str | None = None

    @property
    def message(self) -> JSON:
        parsed: JSON = orjson.loads(self.data)
        return parsed


class Events:
    """The SSE events of one response, parsed by hand; every ``data:`` payload is checked."""

    def __init__(self, response: httpx.Response, checker: WireChecker) -> None:
        self.response = response
        self.checker = checker
        self._lines = response.aiter_lines()

    async def next(self) -> Event | None:
        """The next event, or None once the server ended the stream."""
        fields: dict[str, str] = {}
        data: list[str] = []
        async for line in self._lines:  # each read is bounded by the client's timeout
            if line == "":
                if fields or data:
                    return self._event(fields, data)
                continue
            if line.startswith(":"):
                continue
            name, _, value = line.partition(":")
            value = value[1:] if value.startswith(" ") else value
            if name == "data":
                data.append(value)
            else:
                fields[name] = value
        assert not fields and not data, "the stream ended in the middle of an event"
        return None

    def _event(self, fields: dict[str, str], data: list[str]) -> Event:
        text = "\n".join(data)
        if text:
            self.checker.server_sent(text.encode())
        retry = fields.get("retry")
        return Event(text, fields.get("id"), int(retry) if retry else None, fields.get("event"))

    async def message(self) -> JSON:
        """The next event that carries a message (a priming event is skipped)."""
        while True:
            event = await self.next()
            assert event is not None, "the stream ended before the expected message"
            if event.data:
                return event.message

    async def rest(self) -> list[Event]:
        """Every event until the server ends the stream."""
        events = []
        while (event := await self.next()) is not None:
            events.append(event)
        return events


class Peer:
    """One client of the endpoint: raw HTTP, the session id kept, everything schema-checked."""

    def __init__(self, http: httpx.AsyncClient, url: str, revision: str) -> None:
        self.http = http
        self.url = url
        self.revision = revision
        self.checker = WireChecker(revision)
        self.session_id: str | None = None
        self._ids = 0

    # -- messages

    def request(self, method: str, params: JSON | None = None) -> JSON:
        self._ids += 1
        message: JSON = {"jsonrpc": "2.0", "id": self._ids, "method": method}
        if params is not None:
            message["params"] = params
        return message

    def call(self, name: str, arguments: JSON | None = None, *, progress: Any = None) -> JSON:
        params: JSON = {"name": name, "arguments": arguments or {}}
        if progress is not None:
            params["_meta"] = {"progressToken": progress}
        return self.request("tools/call", params)

    # -- HTTP

    def headers(self, accept: str = BOTH, **extra: str | None) -> dict[str, str]:
        headers: dict[str, str | None] = {"content-type": "application/json", "accept": accept}
        if self.session_id is not None:
            headers["mcp-session-id"] = self.session_id
            if self.revision in HEADER_REVISIONS:
                headers["mcp-protocol-version"] = self.revision
        headers.update({name.replace("_", "-"): value for name, value in extra.items()})
        return {name: value for name, value in headers.items() if value is not None}

    def _checked(self, response: httpx.Response) -> httpx.Response:
        if response.headers.get("content-type", "").startswith("application/json"):
            self.checker.server_sent(response.content)
        return response

    async def post(
        self, message: Any, *, accept: str = BOTH, **headers: str | None
    ) -> httpx.Response:
        """POST one message (or a batch); a JSON answer is checked."""
        self.checker.client_sent(message if isinstance(message, dict) else orjson.dumps(message))
        response = await self.http.post(
            self.url, content=orjson.dumps(message), headers=self.headers(accept, **headers)
        )
        return self._checked(response)

    @contextlib.asynccontextmanager
    async def post_stream(
        self, message: JSON, *, accept: str = BOTH, **headers: str | None
    ) -> AsyncIterator[Events]:
        """POST a request whose answer is expected as an SSE stream."""
        self.checker.client_sent(message)
        async with self.http.stream(
            "POST", self.url, content=orjson.dumps(message), headers=self.headers(accept, **headers)
        ) as response:
            assert response.status_code == 200, await response.aread()
            assert response.headers["content-type"].startswith(SSE)
            yield Events(response, self.checker)

    async def get(self, **headers: str | None) -> httpx.Response:
        response = await self.http.get(self.url, headers=self.headers(SSE, **headers))
        return self._checked(response)

    @contextlib.asynccontextmanager
    async def get_stream(self, **headers: str | None) -> AsyncIterator[Events]:
        async with self.http.stream("GET", self.url, headers=self.headers(SSE, **headers)) as r:
            assert r.status_code == 200, await r.aread()
            assert r.headers["content-type"].startswith(SSE)
            yield Events(r, self.checker)

    async def delete(self, **headers: str | None) -> httpx.Response:
        response = await self.http.delete(self.url, headers=self.headers(SSE, **headers))
        return self._checked(response)

    # -- lifecycle

    async def initialize(self, capabilities: JSON | None = None) -> httpx.Response:
        params = {
            "protocolVersion": self.revision,
            "capabilities": capabilities or {},
            "clientInfo": {"name": "tests", "version": "0"},
        }
        response = await self.post(self.request("initialize", params), accept=BOTH)
        assert response.status_code == 200, response.text
        assert response.json()["result"]["protocolVersion"] == self.revision
        self.session_id = response.headers.get("mcp-session-id")
        notified = await self.post({"jsonrpc": "2.0", "method": "notifications/initialized"})
        assert notified.status_code == 202
        return response


@contextlib.asynccontextmanager
async def endpoint(
    revision: str,
    *,
    capabilities: JSON | None = None,
    initialize: bool = True,
    **options: Any,
) -> AsyncIterator[tuple[Peer, Gate]]:
    """A fresh server on 127.0.0.1 and a peer (initialized unless told otherwise)."""
    mcp, gate = build()
    options.setdefault("retry_ms", RETRY_MS)
    with serve_http(mcp, **options) as url:
        async with httpx.AsyncClient(timeout=TIMEOUT) as http:
            peer = Peer(http, url, revision)
            if initialize:
                await peer.initialize(capabilities)
            yield peer, gate
            assert peer.checker.client_issues == []


def text_of(response: JSON) -> str:
    content = response["result"]["content"]
    assert content[0]["type"] == "text"
    text: str = content[0]["text"]
    return text


def assert_empty_202(response: httpx.Response) -> None:
    assert response.status_code == 202
    assert response.content == b""


def error_code(response: httpx.Response) -> int:
    assert response.headers["content-type"].startswith("application/json")
    code: int = response.json()["error"]["code"]
    return code


# ---------------------------------------------------------------------------- sessions


@pytest.mark.parametrize("revision", REVISIONS)
async def test_initialize_issues_a_fresh_random_visible_ascii_session_id(revision: str) -> None:
    async with endpoint(revision, initialize=False) as (peer, _gate):
        ids = []
        for _ in range(3):
            response = await peer.initialize()
            assert response.headers["content-type"].startswith("application/json")
            assert peer.session_id is not None
            ids.append(peer.session_id)
        assert len(set(ids)) == len(ids)  # a new session each time
        for session_id in ids:
            assert len(session_id) >= 22  # at least 128 bits of randomness
            assert all(0x21 <= ord(char) <= 0x7E for char in session_id)
        # Every session works on its own.
        for session_id in ids:
            peer.session_id = session_id
            answer = await peer.post(peer.call("add", {"a": 2, "b": 3}))
            assert answer.status_code == 200
            assert answer.headers["mcp-session-id"] == session_id
            assert text_of(answer.json()) == "5"


@pytest.mark.parametrize("revision", REVISIONS)
async def test_requests_without_a_session_id_get_400(revision: str) -> None:
    async with endpoint(revision) as (peer, _gate):
        answer = await peer.post(peer.request("tools/list"), mcp_session_id=None)
        assert answer.status_code == 400
        assert error_code(answer) == -32600
        note = await peer.post(
            {"jsonrpc": "2.0", "method": "notifications/initialized"}, mcp_session_id=None
        )
        assert note.status_code == 400
        assert (await peer.get(mcp_session_id=None)).status_code == 400
        assert (await peer.delete(mcp_session_id=None)).status_code == 400
        # The session is still there.
        assert (await peer.post(peer.request("tools/list"))).status_code == 200


@pytest.mark.parametrize("revision", REVISIONS)
async def test_unknown_and_deleted_sessions_get_404(revision: str) -> None:
    async with endpoint(revision) as (peer, _gate):
        unknown = await peer.post(peer.request("tools/list"), mcp_session_id="no-such-session")
        assert unknown.status_code == 404
        assert (await peer.get(mcp_session_id="no-such-session")).status_code == 404

        assert (await peer.post(peer.request("ping"))).status_code == 200
        ended = await peer.delete()
        assert ended.status_code in (200, 204)
        after = await peer.post(peer.request("ping"))
        assert after.status_code == 404
        assert (await peer.get()).status_code == 404
        assert (await peer.delete()).status_code == 404
        note = await peer.post({"jsonrpc": "2.0", "method": "notifications/initialized"})
        assert note.status_code == 404

        # On 404 the client starts over with a fresh initialize (no session id).
        peer.session_id = None
        await peer.initialize()
        assert (await peer.post(peer.request("ping"))).status_code == 200


@pytest.mark.parametrize("revision", HEADER_REVISIONS)
@pytest.mark.parametrize("version", ["banana", "1999-01-01", "2026-07-28"])
async def test_an_unsupported_protocol_version_header_gets_400(revision: str, version: str) -> None:
    async with endpoint(revision) as (peer, _gate):
        answer = await peer.post(peer.request("tools/list"), mcp_protocol_version=version)
        assert answer.status_code == 400
        assert (await peer.get(mcp_protocol_version=version)).status_code == 400
        # Without the header the request is served (HT-27), and with the right one too.
        assert (await peer.post(peer.request("ping"), mcp_protocol_version=None)).status_code == 200
        assert (await peer.post(peer.request("ping"))).status_code == 200


# ---------------------------------------------------------------------------- 202 and Accept


@pytest.mark.parametrize("revision", REVISIONS)
async def test_notifications_and_responses_get_202_with_an_empty_body(revision: str) -> None:
    async with endpoint(revision) as (peer, _gate):
        for message in (
            {"jsonrpc": "2.0", "method": "notifications/initialized"},
            {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 99}},
            {"jsonrpc": "2.0", "method": "notifications/roots/list_changed"},
            {"jsonrpc": "2.0", "id": "never-asked", "result": {}},  # a response nobody awaits
        ):
            assert_empty_202(await peer.post(message))


@pytest.mark.parametrize("revision", REVISIONS)
async def test_a_quick_call_is_answered_as_json(revision: str) -> None:
    async with endpoint(revision) as (peer, _gate):
        answer = await peer.post(peer.call("add", {"a": 1, "b": 41}))
        assert answer.status_code == 200
        assert answer.headers["content-type"].startswith("application/json")
        assert answer.headers["mcp-session-id"] == peer.session_id
        assert answer.json()["id"] == peer._ids
        assert text_of(answer.json()) == "42"


@pytest.mark.parametrize("revision", REVISIONS)
async def test_a_client_that_accepts_only_json_gets_json_even_with_progress(
    revision: str,
) -> None:
    async with endpoint(revision) as (peer, _gate):
        answer = await peer.post(peer.call("count", {"steps": 3}, progress="p"), accept=JSON_ONLY)
        assert answer.status_code == 200
        assert answer.headers["content-type"].startswith("application/json")
        assert text_of(answer.json()) == "counted to 3"


@pytest.mark.parametrize("revision", REVISIONS)
async def test_a_client_that_accepts_only_sse_gets_sse_even_for_a_quick_call(
    revision: str,
) -> None:
    async with endpoint(revision) as (peer, _gate):
        async with peer.post_stream(peer.call("add", {"a": 2, "b": 2}), accept=SSE) as events:
            messages = [event.message for event in await events.rest() if event.data]
        assert len(messages) == 1
        assert text_of(messages[0]) == "4"


@pytest.mark.parametrize("accept", ["text/html", "application/xml, text/plain"])
async def test_a_post_that_accepts_neither_json_nor_sse_gets_406(accept: str) -> None:
    async with endpoint("2025-11-25") as (peer, _gate):
        answer = await peer.post(peer.call("add", {"a": 1, "b": 1}), accept=accept)
        assert answer.status_code == 406


# ---------------------------------------------------------------------------- SSE answers


@pytest.mark.parametrize("revision", REVISIONS)
async def test_progress_comes_on_the_calls_stream_before_the_response_which_ends_it(
    revision: str,
) -> None:
    async with endpoint(revision) as (peer, _gate), peer.get_stream() as unrelated:
        call = peer.call("count", {"steps": 3}, progress="tok")
        async with peer.post_stream(call) as events:
            received = await events.rest()  # ends: the stream stops after the response
        messages = [event.message for event in received if event.data]
        methods = [m.get("method") for m in messages]
        assert methods == ["notifications/progress"] * 3 + [None]  # HT-13, HT-14
        assert [m["params"]["progress"] for m in messages[:3]] == [1, 2, 3]
        assert all(m["params"]["progressToken"] == "tok" for m in messages[:3])
        assert messages[-1]["id"] == call["id"]
        assert text_of(messages[-1]) == "counted to 3"

        # Nothing of that call went to the GET stream: the next thing on it is a
        # list change, which belongs to no request (HT-17, HT-18).
        grown = await peer.post(peer.call("grow"))
        assert text_of(grown.json()) == "grown"
        note = await unrelated.message()
        assert note["method"] == "notifications/tools/list_changed"


@pytest.mark.parametrize("revision", REVISIONS)
async def test_log_messages_come_on_the_calls_stream_at_the_level_set(revision: str) -> None:
    async with endpoint(revision) as (peer, _gate):

        async def logged() -> list[tuple[str, str]]:
            call = peer.call("chatty")
            async with peer.post_stream(call) as events:
                messages = [event.message for event in await events.rest() if event.data]
            assert messages[-1]["id"] == call["id"]
            assert text_of(messages[-1]) == "done"
            logs = [m["params"] for m in messages if m.get("method") == "notifications/message"]
            return [(log["level"], log["data"]) for log in logs]

        # Before logging/setLevel: every level, as the official SDK sends them
        assert await logged() == [
            ("debug", "too detailed"),
            ("info", "working"),
            ("warning", "careful"),
        ]
        level = await peer.post(peer.request("logging/setLevel", {"level": "warning"}))
        assert level.status_code == 200
        assert level.json()["result"] == {}
        assert await logged() == [("warning", "careful")]


@pytest.mark.parametrize("revision", ELICITATION)
async def test_elicitation_is_asked_on_the_calls_stream_and_answered_by_post(
    revision: str,
) -> None:
    async with endpoint(revision, capabilities={"elicitation": {}}) as (peer, _gate):
        call = peer.call("confirm")
        async with peer.post_stream(call) as events:
            asked = await events.message()
            assert asked["method"] == "elicitation/create"
            assert asked["params"]["message"] == "Proceed?"
            answer = {
                "jsonrpc": "2.0",
                "id": asked["id"],
                "result": {"action": "accept", "content": {"ok": True}},
            }
            assert_empty_202(await peer.post(answer))  # a response POST: 202, no body
            rest = [event.message for event in await events.rest() if event.data]
        assert [m.get("id") for m in rest] == [call["id"]]
        assert text_of(rest[0]) == "accept ok=True"


@pytest.mark.parametrize("revision", REVISIONS)
async def test_a_tool_added_at_run_time_is_announced_on_the_get_stream_only(
    revision: str,
) -> None:
    async with endpoint(revision) as (peer, _gate):
        async with peer.get_stream() as unrelated:
            grown = await peer.post(peer.call("grow"))
            # The call's own answer is plain JSON: the list change did not ride on it.
            assert grown.headers["content-type"].startswith("application/json")
            assert text_of(grown.json()) == "grown"
            note = await unrelated.message()
            assert note == {"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}
        listed = await peer.post(peer.request("tools/list"))
        assert "sprouted" in [tool["name"] for tool in listed.json()["result"]["tools"]]


@pytest.mark.parametrize("revision", REVISIONS)
async def test_a_second_get_stream_gets_409(revision: str) -> None:
    async with endpoint(revision) as (peer, _gate), peer.get_stream():
        second = await peer.get()
        assert second.status_code == 409


async def test_get_needs_to_accept_sse() -> None:
    async with endpoint("2025-11-25") as (peer, _gate):
        answer = await peer.http.get(peer.url, headers=peer.headers(JSON_ONLY))
        assert answer.status_code == 406


# ---------------------------------------------------------------------------- event ids, resumption


async def test_streams_start_with_a_priming_event_and_event_ids_name_their_stream() -> None:
    async with endpoint(RESUMABLE) as (peer, _gate):
        streams: list[list[Event]] = []
        async with peer.get_stream() as unrelated:
            priming = await unrelated.next()
            assert priming is not None
            for steps in (2, 1):
                async with peer.post_stream(
                    peer.call("count", {"steps": steps}, progress=steps)
                ) as e:
                    streams.append(await e.rest())
            await peer.post(peer.call("grow"))
            changed = await unrelated.next()
            assert changed is not None
            streams.append([priming, changed])

        for events in streams:
            first = events[0]
            assert first.id and first.data == "" and first.retry == RETRY_MS  # HT-11, HT-12
            assert all(event.id for event in events)
            assert all(event.data for event in events[1:])
            names = {event.id.rsplit("/", 1)[0] for event in events if event.id}
            assert len(names) == 1  # every id of a stream names that stream
        ids = [event.id for events in streams for event in events]
        assert len(set(ids)) == len(ids)  # unique across the session's streams (HT-19)
        names = {events[0].id.rsplit("/", 1)[0] for events in streams if events[0].id}
        assert len(names) == len(streams)


@pytest.mark.parametrize("revision", ["2025-03-26", "2025-06-18"])
async def test_older_revisions_get_no_priming_event(revision: str) -> None:
    """An empty ``data:`` is not a JSON-RPC message: clients before 2025-11-25 choke on it."""
    async with endpoint(revision) as (peer, _gate), peer.get_stream() as unrelated:
        async with peer.post_stream(peer.call("count", {"steps": 1}, progress=1)) as events:
            received = await events.rest()
        assert all(event.data for event in received)
        await peer.post(peer.call("grow"))
        first = await unrelated.next()
        assert first is not None and first.data, "the GET stream opened with an empty event"


async def test_a_client_that_drops_a_call_stream_resumes_it_and_loses_nothing() -> None:
    async with endpoint(RESUMABLE) as (peer, gate):
        call = peer.call("gated", progress="g")
        async with peer.post_stream(call) as events:
            priming = await events.next()
            first = await events.next()
            assert priming is not None and first is not None
            assert first.message["params"]["progress"] == 1
        # Gone in the middle of the call; the call goes on while nobody listens (disconnect
        # is not cancellation on legacy revisions).
        await gate.open()
        await asyncio.wait_for(asyncio.wrap_future(gate.finished), TIMEOUT)

        assert first.id is not None
        async with peer.get_stream(last_event_id=first.id) as resumed:
            replayed = await resumed.rest()  # the stream ends with the call's response
        assert [event.id for event in replayed] == [
            f"{first.id.rsplit('/', 1)[0]}/{seq}" for seq in (2, 3)
        ]
        progress, response = (event.message for event in replayed)
        assert progress["method"] == "notifications/progress"
        assert progress["params"] == {"progressToken": "g", "progress": 2, "total": 2}
        assert response["id"] == call["id"]
        assert text_of(response) == "through the gate"

        # Resuming from the priming event replays the whole stream, once more.
        assert priming.id is not None
        async with peer.get_stream(last_event_id=priming.id) as again:
            everything = [event.message for event in await again.rest() if event.data]
        assert [m.get("method") for m in everything] == ["notifications/progress"] * 2 + [None]

        # Only real event ids of this session resume anything.
        assert (await peer.get(last_event_id="nowhere/1")).status_code in (400, 404)


async def test_a_dropped_get_stream_resumes_with_what_was_sent_meanwhile() -> None:
    async with endpoint(RESUMABLE) as (peer, _gate):
        async with peer.get_stream() as unrelated:
            assert (priming := await unrelated.next()) is not None and priming.id
            await peer.post(peer.call("grow", {"name": "first"}))
            seen = await unrelated.next()
            assert seen is not None and seen.id
        # Gone; the next list change is kept for the client.
        await peer.post(peer.call("grow", {"name": "second"}))
        async with peer.get_stream(last_event_id=seen.id) as resumed:
            missed = await resumed.next()
            assert missed is not None and missed.id
            assert missed.message["method"] == "notifications/tools/list_changed"
            assert missed.id.rsplit("/", 1)[0] == seen.id.rsplit("/", 1)[0]
            # The resumed stream is the session's GET stream: a second one is refused, so
            # no message goes out twice (HT-18).
            assert (await peer.get()).status_code == 409


# ---------------------------------------------------------------------------- batches


async def test_batches_on_2025_03_26_are_answered_with_an_array() -> None:
    async with endpoint("2025-03-26") as (peer, _gate):
        add = peer.call("add", {"a": 20, "b": 22})
        ping = peer.request("ping")
        batch = [add, {"jsonrpc": "2.0", "method": "notifications/initialized"}, ping]
        answer = await peer.post(batch)
        assert answer.status_code == 200
        assert answer.headers["content-type"].startswith("application/json")
        answers = {item["id"]: item for item in answer.json()}
        assert sorted(answers) == sorted([add["id"], ping["id"]])
        assert text_of(answers[add["id"]]) == "42"
        assert answers[ping["id"]]["result"] == {}

        notes = [
            {"jsonrpc": "2.0", "method": "notifications/initialized"},
            {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 7}},
        ]
        assert_empty_202(await peer.post(notes))


@pytest.mark.parametrize("revision", HEADER_REVISIONS)
async def test_batches_are_rejected_on_later_revisions(revision: str) -> None:
    async with endpoint(revision) as (peer, _gate):
        answer = await peer.post([peer.call("add", {"a": 1, "b": 2}), peer.request("ping")])
        assert answer.status_code == 400
        assert error_code(answer) == -32600
        peer.checker.client_issues.clear()  # the batch itself is what was wrong


# ---------------------------------------------------------------------------- options


@pytest.mark.parametrize("revision", REVISIONS)
async def test_json_response_never_streams_and_progress_goes_to_the_get_stream(
    revision: str,
) -> None:
    async with endpoint(revision, json_response=True) as (peer, _gate):
        async with peer.get_stream() as unrelated:
            answer = await peer.post(peer.call("count", {"steps": 2}, progress=5))
            assert answer.status_code == 200
            assert answer.headers["content-type"].startswith("application/json")
            assert text_of(answer.json()) == "counted to 2"
            progress = [await unrelated.message() for _ in range(2)]
            assert [p["params"]["progress"] for p in progress] == [1, 2]
            assert all(p["params"]["progressToken"] == 5 for p in progress)
        refused = await peer.post(peer.call("add", {"a": 1, "b": 1}), accept=SSE)
        assert refused.status_code == 406


async def test_stateless_keeps_no_session_and_reads_the_revision_from_the_header() -> None:
    async with endpoint("2025-06-18", stateless=True, initialize=False) as (peer, _gate):
        started = await peer.initialize()
        assert "mcp-session-id" not in started.headers
        assert peer.session_id is None

        # Each request stands alone; the revision comes from MCP-Protocol-Version.
        checked = {}
        for version in ("2025-06-18", None):
            peer.checker = WireChecker(version or "2025-03-26")
            answer = await peer.post(
                peer.call("weather", {"city": "Oslo"}), mcp_protocol_version=version
            )
            assert answer.status_code == 200
            assert "mcp-session-id" not in answer.headers
            checked[version] = answer.json()["result"]
        assert checked["2025-06-18"]["structuredContent"] == {"city": "Oslo", "temperature": 21}
        assert "structuredContent" not in checked[None]  # 2025-03-26 had none

        assert (await peer.get()).status_code == 405
        assert (await peer.delete()).status_code == 405
        assert_empty_202(await peer.post({"jsonrpc": "2.0", "method": "notifications/initialized"}))


async def test_stateless_requests_leave_no_connection_behind() -> None:
    mcp, _gate = build()
    with serve_http(mcp, stateless=True) as url:
        async with httpx.AsyncClient(timeout=TIMEOUT) as http:
            peer = Peer(http, url, "2025-06-18")
            await peer.initialize()
            for _ in range(5):
                answer = await peer.post(peer.call("add", {"a": 1, "b": 1}))
                assert text_of(answer.json()) == "2"
                async with peer.post_stream(peer.call("count", {"steps": 1}, progress=1)) as events:
                    assert len([e for e in await events.rest() if e.data]) == 2
                assert_empty_202(
                    await peer.post({"jsonrpc": "2.0", "method": "notifications/initialized"})
                )
            # Every request's connection ended with it (else each would be kept, and told of
            # every tool-list change, for as long as the server runs).
            assert not mcp._connections
