"""2026-07-28 over Streamable HTTP: raw POSTs to a real uvicorn, every message schema-checked.

Each POST stands alone: the body's ``_meta`` says which revision and client it is, and the
``MCP-Protocol-Version``, ``Mcp-Method`` and ``Mcp-Name`` headers must say the same (HT-29,
HT-30). A request is answered as one JSON object unless something has to go out before the
answer (progress), in which case the answer ends an SSE stream that carries only that
request's notifications (HT-35). Closing that stream cancels the request (CN-10);
``subscriptions/listen`` is a long-lived stream of its own (MP-10).

The server runs in a thread of this process, so tools report what happened to them through
thread-safe events the tests wait on (bounded), never through sleeps.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import threading
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from typing import Any

import httpx
import orjson
import pytest
from pydantic import BaseModel, Field

from toolwire import Context, Server

from http_server import serve_http
from mcp_spec import WireChecker
from wire import MODERN, modern_meta

pytestmark = pytest.mark.timeout(30)

JSON = dict[str, Any]
TIMEOUT = 10.0
BOTH = "application/json, text/event-stream"
SERVER_INFO = "io.modelcontextprotocol/serverInfo"
SUBSCRIPTION_ID = "io.modelcontextprotocol/subscriptionId"
PROTOCOL_VERSION = "io.modelcontextprotocol/protocolVersion"
CLIENT_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities"
NAMED = {"tools/call", "resources/read", "prompts/get"}


# ---------------------------------------------------------------- the server under test


class Signal:
    """Set by a tool on the server's thread, awaited (with a bound) by the test."""

    def __init__(self) -> None:
        self._event = threading.Event()

    def set(self) -> None:
        self._event.set()

    async def wait(self, timeout: float = TIMEOUT) -> None:
        if not await asyncio.to_thread(self._event.wait, timeout):
            raise AssertionError(f"not signalled within {timeout} s")


class Confirm(BaseModel):
    confirm: bool = Field(description="Tick to go ahead")


@dataclass
class App:
    """A server built for one test, and what its tools saw."""

    server: Server
    runs: list[str] = field(default_factory=list)
    deleted: list[str] = field(default_factory=list)
    slow_events: list[str] = field(default_factory=list)
    slow_started: Signal = field(default_factory=Signal)
    slow_ended: Signal = field(default_factory=Signal)


def build() -> App:
    mcp = Server("http-modern", version="1.2.3")
    app = App(mcp)

    @mcp.tool()
    def add(a: int, b: int) -> int:
        """Add two numbers."""
        app.runs.append("add")
        return a + b

    @mcp.tool()
    async def count(ctx: Context, n: int = 3) -> str:
        """Count to n, reporting each step."""
        for step in range(1, n + 1):
            await ctx.report_progress(step, n, f"step {step}")
        return f"counted to {n}"

    @mcp.tool()
    async def slow(ctx: Context) -> str:
        """Report once, then wait until cancelled."""
        app.slow_events.append("started")
        try:
            await ctx.report_progress(1, None, "working")
            app.slow_started.set()
            await asyncio.Event().wait()  # only a cancellation ends this
            return "never"
        except asyncio.CancelledError:
            app.slow_events.append("cancelled")
            raise
        finally:
            app.slow_events.append("finally")
            app.slow_ended.set()

    @mcp.tool(annotations={"destructiveHint": True})
    async def delete_files(paths: list[str], ctx: Context) -> str:
        """Delete files once the user confirms."""
        answer = await ctx.elicit(f"Delete {len(paths)} files?", Confirm)
        if answer.action == "accept" and answer.data.confirm:
            app.deleted.extend(paths)
            return f"Deleted {len(paths)} files"
        return f"Kept the files ({answer.action})"

    @mcp.tool()
    def grow(name: str) -> str:
        """Add a tool called ``name``."""

        def extra() -> str:
            return name

        mcp.add_tool(extra, name=name, description="Added at run time.")
        return f"added {name}"

    return app


@pytest.fixture
def app() -> App:
    return build()


@pytest.fixture
def url(app: App) -> Iterator[str]:
    with serve_http(app.server) as endpoint:
        yield endpoint


# ---------------------------------------------------------------- a raw 2026-07-28 client


def parse_sse(lines: list[str]) -> list[dict[str, str]]:
    """SSE events (field -> value) from the lines of a stream."""
    events: list[dict[str, str]] = []
    event: dict[str, str] = {}
    for line in [*lines, ""]:
        if not line:
            if event:
                events.append(event)
            event = {}
        elif not line.startswith(":"):
            name, _, value = line.partition(":")
            value = value[1:] if value.startswith(" ") else value
            event[name] = f"{event[name]}\n{value}" if name in event else value
    return events


@dataclass
class Answer:
    """One HTTP answer: status, headers, the JSON-RPC messages it carried (schema-checked)."""

    status: int
    headers: httpx.Headers
    messages: list[JSON]
    events: list[dict[str, str]]

    @property
    def content_type(self) -> str:
        return self.headers.get("content-type", "").split(";")[0]

    @property
    def last(self) -> JSON:
        return self.messages[-1]


class Peer:
    """A 2026-07-28 client speaking raw HTTP; everything on the wire goes through a checker."""

    def __init__(self, http: httpx.AsyncClient, url: str) -> None:
        self.http = http
        self.url = url
        self.checker = WireChecker(MODERN)
        self._ids = itertools.count(1)

    def request(self, method: str, params: JSON | None = None, *, meta: JSON | None = None) -> JSON:
        params = dict(params or {})
        params["_meta"] = {**modern_meta(), **(meta or {})}
        return {"jsonrpc": "2.0", "id": next(self._ids), "method": method, "params": params}

    def call(self, name: str, arguments: JSON | None = None, **options: Any) -> JSON:
        return self.request("tools/call", {"name": name, "arguments": arguments or {}}, **options)

    @staticmethod
    def headers_for(message: JSON, **overrides: str | None) -> dict[str, str]:
        """The mirrored headers a correct client sends; ``None`` in overrides leaves one out
        (``Mcp_Session_Id=`` stands for ``Mcp-Session-Id``)."""
        params = message.get("params") or {}
        headers = {
            "Accept": BOTH,
            "Content-Type": "application/json",
            "MCP-Protocol-Version": (params.get("_meta") or {}).get(PROTOCOL_VERSION, MODERN),
            "Mcp-Method": message["method"],
        }
        if message["method"] in NAMED:
            headers["Mcp-Name"] = params.get("name", params.get("uri"))
        for name, value in overrides.items():
            name = name.replace("_", "-")
            headers = {k: v for k, v in headers.items() if k.lower() != name.lower()}
            if value is not None:
                headers[name] = value
        return headers

    def received(self, data: bytes | str) -> JSON:
        self.checker.server_sent(data)
        message: JSON = orjson.loads(data)
        return message

    async def post(
        self, message: JSON, headers: dict[str, str] | None = None, **overrides: str | None
    ) -> Answer:
        self.checker.client_sent(message)
        response = await self.http.post(
            self.url,
            content=orjson.dumps(message),
            headers=headers if headers is not None else self.headers_for(message, **overrides),
        )
        events: list[dict[str, str]] = []
        messages: list[JSON] = []
        content_type = response.headers.get("content-type", "")
        if content_type.startswith("text/event-stream"):
            events = parse_sse(response.text.splitlines())
            messages = [self.received(e["data"]) for e in events if e.get("data")]
        elif content_type.startswith("application/json"):
            messages = [self.received(response.content)]
        return Answer(response.status_code, response.headers, messages, events)

    @contextlib.asynccontextmanager
    async def stream(
        self, message: JSON, **overrides: str | None
    ) -> AsyncIterator[tuple[httpx.Response, AsyncIterator[JSON]]]:
        """POST and read the answer as it comes; leaving the block closes the stream."""
        self.checker.client_sent(message)
        async with self.http.stream(
            "POST",
            self.url,
            content=orjson.dumps(message),
            headers=self.headers_for(message, **overrides),
        ) as response:

            async def messages() -> AsyncIterator[JSON]:
                lines: list[str] = []
                async for line in response.aiter_lines():
                    if line:
                        lines.append(line)
                        continue
                    for event in parse_sse(lines):
                        assert "id" not in event, event  # no resumability in 2026 (HT-19)
                        if event.get("data"):
                            yield self.received(event["data"])
                    lines = []

            yield response, messages()


async def next_message(messages: AsyncIterator[JSON]) -> JSON:
    return await asyncio.wait_for(messages.__anext__(), TIMEOUT)


@pytest.fixture
async def peer(url: str) -> AsyncIterator[Peer]:
    async with httpx.AsyncClient(timeout=TIMEOUT) as http:
        client = Peer(http, url)
        yield client
    assert client.checker.checked > 0


def error_of(answer: Answer) -> JSON:
    assert answer.content_type == "application/json", answer
    (message,) = answer.messages
    assert "result" not in message, message
    error: JSON = message["error"]
    return error


async def assert_serving(peer: Peer) -> None:
    answer = await peer.post(peer.call("add", {"a": 20, "b": 22}))
    assert answer.status == 200, answer
    assert answer.last["result"]["structuredContent"] == {"result": 42}


# ---------------------------------------------------------------- plain calls


async def test_a_call_is_answered_as_json(peer: Peer, app: App) -> None:
    """HT-10, JR-29: a call with nothing to say first is one JSON object, with
    resultType and the server's identity in _meta; no session is minted."""
    message = peer.call("add", {"a": 2, "b": 3})
    answer = await peer.post(message)
    assert answer.status == 200
    assert answer.content_type == "application/json"
    assert "mcp-session-id" not in answer.headers
    (response,) = answer.messages
    assert response["id"] == message["id"]
    result = response["result"]
    assert result["resultType"] == "complete"
    assert result["content"] == [{"type": "text", "text": "5"}]
    assert result["structuredContent"] == {"result": 5}
    assert result["_meta"][SERVER_INFO] == {"name": "http-modern", "version": "1.2.3"}
    assert app.runs == ["add"]


async def test_discover_and_list_carry_caching_hints(peer: Peer) -> None:
    """MP-12, JR-29: server/discover and tools/list over HTTP, each a complete,
    cacheable result."""
    discover = await peer.post(peer.request("server/discover"))
    assert discover.status == 200
    assert MODERN in discover.last["result"]["supportedVersions"]
    listing = await peer.post(peer.request("tools/list"))
    assert listing.status == 200
    result = listing.last["result"]
    assert result["resultType"] == "complete"
    assert result["ttlMs"] >= 0 and result["cacheScope"] in ("public", "private")
    assert {t["name"] for t in result["tools"]} >= {"add", "count", "slow", "delete_files"}


async def test_a_notification_post_is_accepted_without_a_body(peer: Peer) -> None:
    """HT-09: a notification gets 202 and an empty body."""
    message = peer.request("notifications/progress")
    del message["id"]
    message["params"].update(progressToken="x", progress=1)
    response = await peer.http.post(
        peer.url,
        content=orjson.dumps(message),
        headers=peer.headers_for(message),
    )
    assert response.status_code == 202
    assert response.content == b""
    await assert_serving(peer)


# ---------------------------------------------------------------- mirrored headers


MISMATCHES = {
    "no MCP-Protocol-Version": {"MCP-Protocol-Version": None},
    "other MCP-Protocol-Version": {"MCP-Protocol-Version": "2025-11-25"},
    "no Mcp-Method": {"Mcp-Method": None},
    "other Mcp-Method": {"Mcp-Method": "tools/list"},
    "Mcp-Method in other case": {"Mcp-Method": "Tools/Call"},
    "no Mcp-Name": {"Mcp-Name": None},
    "other Mcp-Name": {"Mcp-Name": "count"},
    "Mcp-Name in other case": {"Mcp-Name": "ADD"},
}


@pytest.mark.parametrize("override", MISMATCHES.values(), ids=list(MISMATCHES))
async def test_missing_or_mismatched_headers_are_rejected(
    peer: Peer, app: App, override: dict[str, str | None]
) -> None:
    """HT-29, HT-30, HT-33: a required header that is missing or says something else than
    the body is 400 with HeaderMismatch (-32020); header values are case-sensitive; the
    tool never runs."""
    message = peer.call("add", {"a": 1, "b": 1})
    answer = await peer.post(message, **override)
    assert answer.status == 400
    assert error_of(answer)["code"] == -32020
    assert answer.last.get("id") in (None, message["id"])
    assert app.runs == []
    await assert_serving(peer)


async def test_header_names_are_case_insensitive(peer: Peer) -> None:
    """HT-33: names in any case are the same headers."""
    message = peer.call("add", {"a": 1, "b": 2})
    headers = {
        "accept": BOTH,
        "CONTENT-TYPE": "application/json",
        "mcp-protocol-version": MODERN,
        "MCP-METHOD": "tools/call",
        "mCp-NaMe": "add",
    }
    answer = await peer.post(message, headers)
    assert answer.status == 200, answer
    assert answer.last["result"]["content"] == [{"type": "text", "text": "3"}]


async def test_a_request_without_client_capabilities_is_invalid_params(peer: Peer) -> None:
    """JR-34: _meta without clientCapabilities is -32602, HTTP 400."""
    message = peer.request("tools/list")
    del message["params"]["_meta"][CLIENT_CAPABILITIES]
    answer = await peer.post(message)
    assert answer.status == 400
    error = error_of(answer)
    assert error["code"] == -32602
    assert "clientCapabilities" in error["message"]
    await assert_serving(peer)


async def test_a_request_without_meta_is_invalid_params(peer: Peer) -> None:
    """JR-34: a 2026-07-28 POST whose body has no _meta at all is -32602, HTTP 400."""
    message = peer.request("tools/list")
    del message["params"]["_meta"]
    answer = await peer.post(message)  # the headers still say 2026-07-28
    assert answer.status == 400
    assert error_of(answer)["code"] == -32602
    await assert_serving(peer)


async def test_an_unsupported_version_is_named_with_the_supported_ones(peer: Peer) -> None:
    """LC-18, HT-28: a revision the server does not speak is 400 with
    UnsupportedProtocolVersion (-32022) listing what it supports."""
    message = peer.request("tools/list", meta={PROTOCOL_VERSION: "2099-01-01"})
    answer = await peer.post(message)
    assert answer.status == 400
    error = error_of(answer)
    assert error["code"] == -32022
    assert error["data"]["requested"] == "2099-01-01"
    assert MODERN in error["data"]["supported"]
    await assert_serving(peer)


async def test_an_unknown_method_is_404(peer: Peer) -> None:
    """HT-31: a method the server does not implement is 404 with -32601."""
    answer = await peer.post(peer.request("tools/frobnicate"))
    assert answer.status == 404
    assert error_of(answer)["code"] == -32601
    await assert_serving(peer)


@pytest.mark.parametrize("legacy_method", ["ping", "logging/setLevel"])
async def test_legacy_only_methods_are_404_in_2026(peer: Peer, legacy_method: str) -> None:
    """JR-32, HT-31: a 2026-07-28 request for a method only the handshake era has."""
    params = {"level": "info"} if legacy_method == "logging/setLevel" else {}
    answer = await peer.post(peer.request(legacy_method, params))
    assert answer.status == 404
    assert error_of(answer)["code"] == -32601


async def test_initialize_always_opens_a_legacy_session(url: str) -> None:
    """HT-39: a dual-era server answers initialize with a handshake-era session, even
    when the POST also carries 2026-07-28 headers and _meta."""
    message = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "tests", "version": "0"},
            "_meta": modern_meta(),
        },
    }
    headers = Peer.headers_for(message)
    async with httpx.AsyncClient(timeout=TIMEOUT) as http:
        response = await http.post(url, content=orjson.dumps(message), headers=headers)
    assert response.status_code == 200, response.text
    assert response.json()["result"]["protocolVersion"] == "2025-11-25"
    assert response.headers["mcp-session-id"]


async def test_a_stray_session_id_is_ignored(peer: Peer) -> None:
    """HT-37: Mcp-Session-Id from a 2026-07-28 client changes nothing and is never echoed."""
    answer = await peer.post(peer.call("add", {"a": 4, "b": 4}), Mcp_Session_Id="made-up-by-client")
    assert answer.status == 200, answer
    assert answer.last["result"]["structuredContent"] == {"result": 8}
    assert "mcp-session-id" not in answer.headers
    streamed = await peer.post(
        peer.call("count", {"n": 1}, meta={"progressToken": "t"}),
        Mcp_Session_Id="made-up-by-client",
    )
    assert streamed.status == 200
    assert streamed.content_type == "text/event-stream"
    assert "mcp-session-id" not in streamed.headers


# ---------------------------------------------------------------- SSE answers


async def test_progress_streams_then_the_answer_ends_the_stream(peer: Peer) -> None:
    """HT-10, HT-13, HT-15, HT-35, HT-36, PR-01..PR-03: with a progress token the answer is
    an SSE stream of that request's progress, in order, closed by its response; no event
    ids (nothing to resume in 2026) and X-Accel-Buffering: no."""
    message = peer.call("count", {"n": 3}, meta={"progressToken": "job-7"})
    answer = await peer.post(message)
    assert answer.status == 200
    assert answer.content_type == "text/event-stream"
    assert answer.headers["x-accel-buffering"] == "no"
    assert "mcp-session-id" not in answer.headers
    assert all("id" not in event for event in answer.events), answer.events
    *progress, final = answer.messages
    assert [m["method"] for m in progress] == ["notifications/progress"] * 3
    assert [m["params"]["progressToken"] for m in progress] == ["job-7"] * 3
    assert [m["params"]["progress"] for m in progress] == [1, 2, 3]
    assert final["id"] == message["id"]
    assert final["result"]["content"] == [{"type": "text", "text": "counted to 3"}]


async def test_a_json_only_client_gets_only_the_answer(peer: Peer) -> None:
    """HT-10: a client that accepts only JSON gets the response alone, never a stream."""
    message = peer.call("count", {"n": 2}, meta={"progressToken": 5})
    answer = await peer.post(message, Accept="application/json")
    assert answer.status == 200
    assert answer.content_type == "application/json"
    (response,) = answer.messages
    assert response["result"]["content"] == [{"type": "text", "text": "counted to 2"}]


async def test_closing_the_stream_cancels_the_call(peer: Peer, app: App) -> None:
    """CN-10, CN-12: closing the response stream of a running call cancels it: the tool
    sees CancelledError and its finally block runs; the server goes on serving."""
    message = peer.call("slow", meta={"progressToken": "slow-1"})
    async with peer.stream(message) as (response, messages):
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/event-stream")
        first = await next_message(messages)
        assert first["method"] == "notifications/progress"
        assert first["params"]["progressToken"] == "slow-1"
        await app.slow_started.wait()
        assert app.slow_events == ["started"]
    await app.slow_ended.wait()
    assert app.slow_events == ["started", "cancelled", "finally"]
    await assert_serving(peer)


async def test_giving_up_before_the_json_answer_cancels_the_call(peer: Peer, app: App) -> None:
    """CN-10: a client waiting for a JSON answer that closes the connection cancels too."""
    message = peer.call("slow")  # no progress token: nothing is streamed first
    waiting = asyncio.ensure_future(peer.post(message))
    await app.slow_started.wait()
    waiting.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await waiting
    await app.slow_ended.wait()
    assert app.slow_events == ["started", "cancelled", "finally"]
    await assert_serving(peer)


# ---------------------------------------------------------------- subscriptions/listen


async def test_listen_streams_tool_list_changes(peer: Peer) -> None:
    """MP-10, HT-35, HT-36: subscriptions/listen is an SSE stream acknowledged first; a tool
    added later is announced on it, tagged with the subscription id; the new tool is
    callable; closing the stream ends the subscription and the server goes on."""
    listen = peer.request("subscriptions/listen", {"notifications": {"toolsListChanged": True}})
    async with peer.stream(listen) as (response, messages):
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/event-stream")
        assert response.headers["x-accel-buffering"] == "no"
        assert "mcp-session-id" not in response.headers
        ack = await next_message(messages)
        assert ack["method"] == "notifications/subscriptions/acknowledged"
        assert ack["params"]["_meta"][SUBSCRIPTION_ID] == listen["id"]
        assert ack["params"]["notifications"] == {"toolsListChanged": True}

        grown = await peer.post(peer.call("grow", {"name": "fresh"}))
        assert grown.last["result"]["content"] == [{"type": "text", "text": "added fresh"}]
        changed = await next_message(messages)
        assert changed["method"] == "notifications/tools/list_changed"
        assert changed["params"]["_meta"][SUBSCRIPTION_ID] == listen["id"]

        listing = await peer.post(peer.request("tools/list"))
        assert "fresh" in {t["name"] for t in listing.last["result"]["tools"]}
        called = await peer.post(peer.call("fresh"))
        assert called.last["result"]["content"] == [{"type": "text", "text": "fresh"}]
    await assert_serving(peer)


async def test_listen_acknowledges_only_what_it_delivers(peer: Peer) -> None:
    """MP-10: notification types the server does not send are not acknowledged."""
    listen = peer.request("subscriptions/listen", {"notifications": {"resourcesListChanged": True}})
    async with peer.stream(listen) as (response, messages):
        assert response.status_code == 200
        ack = await next_message(messages)
        assert ack["method"] == "notifications/subscriptions/acknowledged"
        assert ack["params"]["notifications"] == {}
    await assert_serving(peer)


# ---------------------------------------------------------------- elicitation (MRTR)


async def test_elicitation_is_an_input_required_result_then_a_retry(peer: Peer, app: App) -> None:
    """MP-01, MP-03, MP-08, TL-37: over HTTP the question comes back as an
    InputRequiredResult (never as a server request); the retry, a new POST with a new id,
    the answer and the echoed requestState, completes the call; nothing happens before."""
    capable = {CLIENT_CAPABILITIES: {"elicitation": {"form": {}}}}
    arguments = {"paths": ["a.txt", "b.txt"]}
    first = await peer.post(peer.call("delete_files", arguments, meta=capable))
    assert first.status == 200
    assert first.content_type == "application/json"
    result = first.last["result"]
    assert result["resultType"] == "input_required"
    ((key, question),) = result["inputRequests"].items()
    assert question["method"] == "elicitation/create"
    assert question["params"]["message"] == "Delete 2 files?"
    assert app.deleted == []

    retry = peer.call("delete_files", arguments, meta=capable)
    retry["params"]["inputResponses"] = {key: {"action": "accept", "content": {"confirm": True}}}
    retry["params"]["requestState"] = result["requestState"]
    second = await peer.post(retry)
    assert second.status == 200
    assert second.last["id"] == retry["id"] != first.last["id"]
    done = second.last["result"]
    assert done["resultType"] == "complete"
    assert done["content"] == [{"type": "text", "text": "Deleted 2 files"}]
    assert app.deleted == ["a.txt", "b.txt"]


async def test_elicitation_without_the_capability_is_refused(peer: Peer, app: App) -> None:
    """MP-04, JR-37: a client that cannot elicit is never asked; a request that needs it is
    refused with -32021 naming the capability, and HTTP 400."""
    answer = await peer.post(peer.call("delete_files", {"paths": ["a.txt"]}))
    assert answer.status == 400
    error = error_of(answer)
    assert error["code"] == -32021
    assert error["data"] == {"requiredCapabilities": {"elicitation": {}}}
    assert app.deleted == []
    assert app.deleted == []
