"""The tool runtime end to end: context, progress, logging, cancellation, timeouts,
concurrency, lifespan and clean-up.

Every test runs in memory and over stdio (``servers/runtime_app.py`` as a subprocess), on a
legacy revision and on 2026-07-28, with every message checked against the revision's JSON
Schema. Tests wait on events (a tool's "started" progress message, a flag its clean-up sets),
never on sleeps; only tools that must be slow sleep, on the server side.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib.util
import json
import sys
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import orjson
import pytest

from toolwire import Client, ClientError, ServerError
from toolwire.client.client import CallResult

from wire import MODERN, SERVERS, TIMEOUT, checked_client, modern_meta, raw_server

LEGACY = "2025-11-25"
ERAS = [pytest.param(LEGACY, id="legacy"), pytest.param(MODERN, id="modern")]
APP = SERVERS / "runtime_app.py"
LOG_LEVEL_KEY = "io.modelcontextprotocol/logLevel"
INVALID_PARAMS = -32602


def _load_app() -> Any:
    """The server module the stdio tests run, loaded here to build the same server in memory."""
    spec = importlib.util.spec_from_file_location("runtime_app", APP)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


runtime_app = _load_app()
build = runtime_app.build
FORWARDED_LOGGER: str = runtime_app.FORWARDED_LOGGER


# ---------------------------------------------------------------------------- rig


class Rig:
    """One runtime server reached in memory or as a stdio subprocess, and its records."""

    def __init__(self, transport: str, tmp_path: Path) -> None:
        self.transport = transport
        self.record_file = tmp_path / "records.txt"
        self._memory_records: list[str] = []
        self.options: dict[str, Any] = {}
        self._server: Any = None

    def configure(self, **options: Any) -> None:
        """Server options (``tool_timeout``, ``max_concurrent_calls``) before the first client."""
        assert self._server is None
        self.options.update(options)

    @property
    def server(self) -> Any:
        if self._server is None:
            self._server = build(self._memory_records.append, **self.options)
        return self._server

    def command(self) -> list[str]:
        command = [sys.executable, str(APP), "--record", str(self.record_file)]
        if self.options.get("tool_timeout") is not None:
            command += ["--tool-timeout", str(self.options["tool_timeout"])]
        if "max_concurrent_calls" in self.options:
            command += ["--max-concurrent", str(self.options["max_concurrent_calls"])]
        if "client_log_level" in self.options:
            command += ["--client-log-level", str(self.options["client_log_level"] or "none")]
        return command

    def records(self) -> list[str]:
        if self.transport == "memory":
            return list(self._memory_records)
        if not self.record_file.exists():
            return []
        return self.record_file.read_text(encoding="utf-8").splitlines()

    @contextlib.asynccontextmanager
    async def client(
        self, revision: str, *, own_messages_valid: bool = True, **options: Any
    ) -> AsyncIterator[Client]:
        """A schema-checked client; it must itself send only valid messages unless told."""
        target = self.server if self.transport == "memory" else self.command()
        options.setdefault("timeout", TIMEOUT)
        async with checked_client(target, revision, **options) as client:
            assert client.protocol_version == revision
            yield client
            if own_messages_valid:
                assert client.checker.client_issues == []  # type: ignore[attr-defined]


@pytest.fixture(params=["memory", "stdio"])
def rig(request: pytest.FixtureRequest, tmp_path: Path) -> Rig:
    return Rig(request.param, tmp_path)


# ---------------------------------------------------------------------------- helpers


async def start(
    client: Client, tool: str, arguments: dict[str, Any]
) -> tuple[asyncio.Task[CallResult], Any]:
    """Call a tool that announces itself; returns the running call and its request id."""
    started: asyncio.Future[Any] = asyncio.get_running_loop().create_future()

    def on_progress(progress: float, total: float | None, message: str | None) -> None:
        if message and message.startswith("started ") and not started.done():
            started.set_result(json.loads(message.removeprefix("started ")))

    call = asyncio.create_task(client.call_tool(tool, arguments, progress=on_progress))
    await asyncio.wait({started, call}, timeout=TIMEOUT, return_when=asyncio.FIRST_COMPLETED)
    assert started.done(), f"{tool} never announced itself: {call}"
    return call, started.result()


async def cancel(client: Client, request_id: Any, reason: str = "no longer needed") -> None:
    """What a host sends when its user stops a call (``Client`` has no method for it)."""
    await client._notify("notifications/cancelled", {"requestId": request_id, "reason": reason})


async def flag_set(client: Client, name: str) -> bool:
    """True once a server-side flag is set (waited for through an ordinary call)."""
    result = await client.call_tool("wait_flag", {"name": name})
    assert not result.is_error, result
    return result.text == "true"


async def echo(client: Client, text: str) -> None:
    result = await client.call_tool("echo", {"text": text})
    assert result.text == text and not result.is_error


def notifications(client: Client, method: str) -> list[dict[str, Any]]:
    return [n.get("params") or {} for n in client.notifications if n["method"] == method]


def in_order(records: list[str], *events: str) -> bool:
    """Every event is recorded, in this order (other events may come between)."""
    positions = [records.index(event) for event in events if event in records]
    return len(positions) == len(events) and positions == sorted(positions)


# ---------------------------------------------------------------------------- context


@pytest.mark.parametrize("revision", [pytest.param("2025-06-18", id="2025-06-18"), *ERAS])
async def test_context_parameter_is_injected_and_never_in_the_schema(
    rig: Rig, revision: str
) -> None:
    """A parameter annotated ``Context`` is filled in by toolwire, wherever it stands."""
    async with rig.client(revision) as client:
        tools = {tool["name"]: tool for tool in await client.list_tools()}
        for name in ("whoami", "whoami_sync", "count_up", "hang", "greet"):
            schema = tools[name]["inputSchema"]
            assert "ctx" not in schema.get("properties", {}), (name, schema)
            assert "ctx" not in schema.get("required", []), (name, schema)
        assert set(tools["greet"]["inputSchema"]["properties"]) == {"name", "punctuation"}
        assert tools["greet"]["inputSchema"]["required"] == ["name"]
        assert (await client.call_tool("greet", {"name": "Ada"})).text == "Hello, Ada!"
        refused = await client.call_tool("greet", {"punctuation": "?"})
        assert refused.is_error and "name" in refused.text


@pytest.mark.parametrize("revision", ERAS)
async def test_context_fields_come_from_initialize_or_from_meta(rig: Rig, revision: str) -> None:
    """Legacy: client info and capabilities as negotiated at initialize; 2026-07-28: from each
    request's ``_meta`` (JR-32). The same for an async tool and a sync one on a thread."""
    info = {"name": "runtime-tests", "version": "1.2.3"}
    capabilities = {"roots": {"listChanged": True}, "experimental": {"runtime": {"on": True}}}
    # 2026-07-28 has no roots/list_changed: the client does not promise it there.
    declared = {**capabilities, "roots": {}} if revision == MODERN else capabilities
    async with rig.client(revision, client_info=info, capabilities=capabilities) as client:
        for tool in ("whoami", "whoami_sync"):
            seen = (await client.call_tool(tool)).structured
            assert seen["protocol_version"] == revision
            assert seen["client_info"]["name"] == "runtime-tests"
            assert seen["client_info"]["version"] == "1.2.3"
            assert seen["client_capabilities"] == declared
            assert isinstance(seen["request_id"], int)
            assert seen["progress_token"] is None
            assert seen["cancelled"] is False
            assert seen["current_is_ctx"] is True
            assert seen["request_context_matches"] is True
            if revision == MODERN:
                assert {
                    "io.modelcontextprotocol/protocolVersion",
                    "io.modelcontextprotocol/clientCapabilities",
                    "io.modelcontextprotocol/clientInfo",
                } <= set(seen["meta_keys"])
            else:
                assert seen["meta_keys"] == []

            with_token = await client.call_tool(tool, progress=lambda p, t, m: None)
            assert str(with_token.structured["progress_token"]).startswith("progress-")
            assert "progressToken" in with_token.structured["meta_keys"]
            assert with_token.structured["request_id"] > seen["request_id"]


@pytest.mark.parametrize("revision", ERAS)
async def test_context_request_id_is_the_id_on_the_wire(tmp_path: Path, revision: str) -> None:
    """``ctx.request_id`` is exactly the JSON-RPC id, a string kept a string."""
    modern = revision == MODERN
    async with raw_server(APP, "--record", str(tmp_path / "r"), revision=revision) as server:
        if not modern:
            await server.initialize(revision)
        params: dict[str, Any] = {"name": "whoami", "arguments": {}}
        if modern:
            params["_meta"] = modern_meta(**{LOG_LEVEL_KEY: "error"})
        await server.send(
            {"jsonrpc": "2.0", "id": "ctx-7", "method": "tools/call", "params": params}
        )
        seen = (await server.response("ctx-7"))["result"]["structuredContent"]
        assert seen["request_id"] == "ctx-7"
        assert seen["protocol_version"] == revision
        if modern:
            assert LOG_LEVEL_KEY in seen["meta_keys"]
            assert seen["client_info"] == {"name": "tests", "version": "0"}


# ---------------------------------------------------------------------------- progress


@pytest.mark.parametrize("revision", ERAS)
async def test_progress_arrives_in_order_before_the_response_only_with_a_token(
    rig: Rig, revision: str
) -> None:
    """PR-03: values increase (a repeat and a step back are dropped); PR-06: all of it before
    the response; PR-01: nothing without a ``progressToken``. Sync tools report from their
    thread without ``await``."""
    async with rig.client(revision) as client:
        for tool, scale in (("count_up", 1.0), ("count_up_sync", 0.5)):
            seen: list[tuple[float, float | None, str | None]] = []

            def on_progress(progress: float, total: float | None, message: str | None) -> None:
                seen.append((progress, total, message))  # noqa: B023

            result = await client.call_tool(tool, {"steps": 5}, progress=on_progress)
            assert result.text == "counted to 5"
            # every notification was handled before call_tool returned: none came after
            assert seen == [(step * scale, 5 * scale, f"step {step}") for step in range(1, 6)]

            sent = notifications(client, "notifications/progress")
            tokens = {params["progressToken"] for params in sent[-5:]}
            assert len(tokens) == 1
            values = [params["progress"] for params in sent[-5:]]
            assert values == sorted(set(values))

            before = len(client.notifications)
            assert (await client.call_tool(tool, {"steps": 3})).text == "counted to 3"
            assert len(client.notifications) == before, "progress sent without a progressToken"


@pytest.mark.parametrize("revision", ERAS)
async def test_no_progress_or_log_after_the_response(rig: Rig, revision: str) -> None:
    """PR-06/PR-05: a context kept past its call's response can no longer send anything."""
    async with rig.client(revision, log_level="debug") as client:
        seen: list[float] = []
        result = await client.call_tool("leak", progress=lambda p, t, m: seen.append(p))
        assert result.text == "leaked" and seen == [1]
        assert (await client.call_tool("poke_leaked")).text == "poked"
        # anything poke_leaked sent would have arrived before its own response
        assert [p["progress"] for p in notifications(client, "notifications/progress")] == [1]
        assert notifications(client, "notifications/message") == []


# ---------------------------------------------------------------------------- logging

ALL_LEVELS = ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"]


@pytest.mark.parametrize("revision", ERAS)
async def test_log_messages_reach_the_client_at_or_above_its_level(rig: Rig, revision: str) -> None:
    """``ctx.info`` and friends, awaited or not, async or on a thread, are filtered by the level
    the client chose (legacy: ``logging/setLevel``; 2026-07-28: ``_meta`` logLevel)."""
    received: list[dict[str, Any]] = []
    async with rig.client(revision, log_level="warning", log_handler=received.append) as client:
        for tool in ("speak", "speak_sync"):
            received.clear()
            assert (await client.call_tool(tool)).text == "spoke"
            assert [m["level"] for m in received] == ALL_LEVELS[3:]
            by_level = {m["level"]: m for m in received}
            assert by_level["warning"]["data"] == "warning message"
            assert by_level["alert"]["data"] == {"structured": True}
            assert by_level["alert"]["logger"] == "runtime.speak"
            assert "logger" not in by_level["error"]


async def test_a_legacy_client_that_chose_no_level_gets_every_level(rig: Rig) -> None:
    """As the official SDK does, a session that never sent ``logging/setLevel`` gets log
    messages of every level (``Server(client_log_level="debug")``, the default)."""
    async with rig.client(LEGACY) as client:
        assert (await client.call_tool("speak")).text == "spoke"
        received = notifications(client, "notifications/message")
        assert [m["level"] for m in received] == ALL_LEVELS


@pytest.mark.parametrize("revision", ERAS)
async def test_no_log_messages_when_the_client_chose_no_level(rig: Rig, revision: str) -> None:
    """LG-07: without a level (no ``_meta`` logLevel) nothing is sent on 2026-07-28; a
    legacy session without ``logging/setLevel`` gets none with ``client_log_level=None``."""
    rig.configure(client_log_level=None)
    async with rig.client(revision) as client:
        for tool in ("speak", "speak_sync", "python_logging"):
            assert not (await client.call_tool(tool)).is_error
        assert notifications(client, "notifications/message") == []


@pytest.mark.parametrize("revision", ERAS)
async def test_the_level_can_change_between_calls(rig: Rig, revision: str) -> None:
    """Legacy: a later ``logging/setLevel`` applies to later calls. 2026-07-28: the level is
    per request, nothing is remembered from an earlier request (JR-32, LG-07)."""
    async with rig.client(revision, log_level="debug") as client:
        await client.call_tool("speak")
        assert [m["level"] for m in notifications(client, "notifications/message")] == ALL_LEVELS
        client.notifications.clear()
        if revision == MODERN:
            client.log_level = None  # the next request carries no logLevel
            await client.call_tool("speak")
            assert notifications(client, "notifications/message") == []
            client.log_level = "critical"
        else:
            await client.request("logging/setLevel", {"level": "critical"})
        await client.call_tool("speak_sync")
        levels = [m["level"] for m in notifications(client, "notifications/message")]
        assert levels == ["critical", "alert", "emergency"]


@pytest.mark.parametrize("revision", ERAS)
async def test_python_logging_is_forwarded_from_inside_tools(rig: Rig, revision: str) -> None:
    """``mcp.forward_logging("runtime.app")``: records that logger makes during a call reach
    the calling client at its level, with the logger's name; other loggers' do not."""
    async with rig.client(revision, log_level="warning") as client:
        for tool in ("python_logging", "python_logging_sync"):
            client.notifications.clear()
            assert (await client.call_tool(tool)).text == "logged"
            messages = notifications(client, "notifications/message")
            assert messages, "nothing forwarded"
            assert all(m["logger"] == FORWARDED_LOGGER for m in messages)
            assert messages[0] == {
                "level": "warning",
                "logger": FORWARDED_LOGGER,
                "data": "python warning",
            }
            assert "not forwarded" not in str(messages)
        assert [m["data"] for m in messages] == ["python warning"]


@pytest.mark.parametrize("revision", ERAS)
async def test_python_logging_below_warning_is_forwarded_to_a_client_asking_for_it(
    rig: Rig, revision: str
) -> None:
    async with rig.client(revision, log_level="debug") as client:
        assert (await client.call_tool("python_logging")).text == "logged"
        levels = [m["level"] for m in notifications(client, "notifications/message")]
        assert levels == ["debug", "info", "warning", "error"]


@pytest.mark.parametrize("revision", ERAS)
async def test_an_invalid_log_level_is_invalid_params(rig: Rig, revision: str) -> None:
    """LG-03: -32602 for a level that is not one of RFC 5424's, and the server carries on."""
    async with rig.client(revision, own_messages_valid=False) as client:
        with pytest.raises(ServerError) as refused:
            if revision == MODERN:
                await client.request(
                    "tools/call",
                    {"name": "speak", "arguments": {}, "_meta": {LOG_LEVEL_KEY: "loud"}},
                )
            else:
                await client.request("logging/setLevel", {"level": "loud"})
        assert refused.value.code == INVALID_PARAMS
        assert "loud" in str(refused.value)
        await echo(client, "still here")
        assert notifications(client, "notifications/message") == []


# ---------------------------------------------------------------------------- cancellation


@pytest.mark.parametrize("revision", ERAS)
async def test_cancelled_async_tool_stops_and_is_never_answered(rig: Rig, revision: str) -> None:
    """CN-04: the tool sees CancelledError, its ``finally`` and context managers run, and no
    response is ever sent for it, while other calls keep being answered."""
    async with rig.client(revision) as client:
        call, request_id = await start(client, "hang", {"key": "a"})
        await echo(client, "during")
        assert not call.done()
        await cancel(client, request_id)
        assert await flag_set(client, "a:done")
        await echo(client, "after")
        records = rig.records()
        assert in_order(records, "start:a", "open:a", "close:a", "cancelled:a", "finally:a")
        assert not call.done(), "the cancelled call was answered"
    with pytest.raises(ClientError, match="closed"):
        await call  # still unanswered when the connection closed


@pytest.mark.parametrize("revision", ERAS)
async def test_cancelled_sync_tool_sees_the_cancelled_flag(rig: Rig, revision: str) -> None:
    """A tool on a worker thread cannot be interrupted; it sees ``ctx.cancelled`` turn true,
    and its late result is never sent."""
    async with rig.client(revision) as client:
        call, request_id = await start(client, "hang_sync", {"key": "s"})
        await echo(client, "during")
        await cancel(client, request_id)
        assert await flag_set(client, "s:done")
        await echo(client, "after")
        assert in_order(rig.records(), "start:s", "open:s", "saw-cancelled:s:True", "close:s")
        assert not call.done(), "the cancelled call was answered"
    with pytest.raises(ClientError, match="closed"):
        await call


@pytest.mark.parametrize("revision", ERAS)
async def test_a_tool_that_catches_the_cancel_still_sends_nothing(rig: Rig, revision: str) -> None:
    """CN-04/CN-12: after the cancel nothing more goes out for the request, not even when the
    tool catches CancelledError, reports progress and logs (directly and through Python
    logging) and returns a value. ``ctx.cancelled`` is already true in its handler."""
    async with rig.client(revision, log_level="debug") as client:
        call, request_id = await start(client, "stubborn", {"key": "c"})
        await cancel(client, request_id)
        assert await flag_set(client, "c:done")
        await echo(client, "after")
        assert "caught:c:True" in rig.records()
        assert not call.done(), "the cancelled call was answered"
        assert [p["progress"] for p in notifications(client, "notifications/progress")] == [0]
        assert notifications(client, "notifications/message") == []
    with pytest.raises(ClientError, match="closed"):
        await call


@pytest.mark.parametrize("revision", ERAS)
async def test_a_call_the_client_gives_up_on_is_cancelled_on_the_server(
    rig: Rig, revision: str
) -> None:
    """CN-14: a client-side timeout sends ``notifications/cancelled``; the tool is stopped."""
    async with rig.client(revision) as client:
        with pytest.raises(ClientError, match="timed out"):
            await client.call_tool("hang", {"key": "t"}, timeout=0.5)
        assert await flag_set(client, "t:done")
        assert in_order(rig.records(), "start:t", "close:t", "cancelled:t", "finally:t")
        sent = [n for n in client.notifications if n["method"] == "notifications/cancelled"]
        assert sent == [], "the server never sends notifications/cancelled for a call"


@pytest.mark.parametrize("revision", ERAS)
async def test_unknown_late_and_malformed_cancels_are_ignored(rig: Rig, revision: str) -> None:
    """CN-07: cancels for finished, unknown or unreadable ids change nothing and get no answer."""
    async with rig.client(revision, own_messages_valid=False) as client:
        finished = (await client.call_tool("whoami")).structured["request_id"]
        call, running = await start(client, "hang", {"key": "k"})
        for params in (
            {"requestId": finished},
            {"requestId": 987654},
            {"requestId": str(running)},  # same digits, but a string id is another request
            {"requestId": True},
            {"requestId": 1.5},
            {"requestId": None},
            {"reason": "no id at all"},
        ):
            await client._notify("notifications/cancelled", params)
        await client._notify("notifications/cancelled", None)
        await echo(client, "unaffected")
        assert not call.done()
        assert "cancelled:k" not in rig.records()
        await cancel(client, running)
        assert await flag_set(client, "k:done")
        methods = {n["method"] for n in client.notifications}
        assert methods == {"notifications/progress"}, "only the calls' own 'started' progress"
    with pytest.raises(ClientError, match="closed"):
        await call


@pytest.mark.parametrize("revision", ERAS)
async def test_stdio_cancelled_calls_get_no_response_ever(tmp_path: Path, revision: str) -> None:
    """CN-04/CN-12 on the wire: every line the server writes until it exits is read, and none
    answers a cancelled id. Cancels that only look like an id (``false`` and ``0.0`` for id 0,
    ``"0"``), late, unknown or without an id get nothing back and stop nothing (CN-07)."""
    modern = revision == MODERN
    record_file = tmp_path / "records.txt"
    async with raw_server(APP, "--record", str(record_file), revision=revision) as server:
        if not modern:
            await server.initialize(revision)

        def call(mid: Any, name: str, arguments: dict[str, Any], **meta: Any) -> dict[str, Any]:
            params: dict[str, Any] = {"name": name, "arguments": arguments}
            if modern or meta:
                params["_meta"] = {**(modern_meta() if modern else {}), **meta}
            return {"jsonrpc": "2.0", "id": mid, "method": "tools/call", "params": params}

        for mid, key, token in (("h-1", "w1", "tok-1"), (0, "w0", 0)):
            await server.send(call(mid, "hang", {"key": key}, progressToken=token))
            started = await server.recv()
            assert started["method"] == "notifications/progress", started
            assert started["params"]["progressToken"] == token
            assert started["params"]["message"] == f"started {json.dumps(mid)}"
        await server.send(call(2, "echo", {"text": "during"}))
        assert (await server.response(2))["result"]["content"][0]["text"] == "during"
        for params in (
            {"requestId": 2},
            {"requestId": False},
            {"requestId": 0.0},
            {"requestId": "0"},
            {"requestId": 777},
            {"requestId": None},
            {},
        ):
            await server.notify("notifications/cancelled", params)
        await server.send(call(3, "echo", {"text": "junk ignored"}))
        answer = await server.recv()  # the very next line: nothing was sent for the junk
        assert answer["id"] == 3 and answer["result"]["content"][0]["text"] == "junk ignored"
        assert "cancelled:w0" not in record_file.read_text(encoding="utf-8")

        for mid in ("h-1", 0):
            await server.notify("notifications/cancelled", {"requestId": mid, "reason": "stop"})
        await server.send(call(4, "wait_flag", {"name": "w1:done"}))
        await server.send(call(5, "wait_flag", {"name": "w0:done"}))
        for mid in (4, 5):
            assert (await server.response(mid))["result"]["content"][0]["text"] == "true"
        for params in ({"requestId": "h-1"}, {"requestId": 0}):  # late: already stopped
            await server.notify("notifications/cancelled", params)
        await server.send(call(6, "echo", {"text": "after"}))
        answer = await server.recv()
        assert answer["id"] == 6 and answer["result"]["content"][0]["text"] == "after"
        code, rest, _err = await server.close()
        assert code == 0
        written = [orjson.loads(line) for line in [*server.lines, *rest.splitlines()] if line]
        answered = [message["id"] for message in written if "id" in message]
        assert answered == ([1] if not modern else []) + [2, 3, 4, 5, 6], written
        assert server.notifications == []
    records = record_file.read_text(encoding="utf-8").splitlines()
    for key in ("w1", "w0"):
        assert in_order(records, "lifespan:enter", f"close:{key}", f"cancelled:{key}")
    assert records[-1].startswith("lifespan:exit")


async def test_initialize_is_never_cancelled(tmp_path: Path) -> None:
    """LC-12/CN-01: a cancel for the initialize request, even in the same write, is ignored."""
    async with raw_server(APP, "--record", str(tmp_path / "r"), revision=LEGACY) as server:
        initialize = {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": LEGACY,
                "capabilities": {},
                "clientInfo": {"name": "tests", "version": "0"},
            },
        }
        cancelled = {
            "jsonrpc": "2.0",
            "method": "notifications/cancelled",
            "params": {"requestId": 1},
        }
        server.checker.client_sent(initialize)
        server.checker.client_sent(cancelled)
        await server.send_raw(orjson.dumps(initialize) + b"\n" + orjson.dumps(cancelled))
        answer = await server.response(1)
        assert answer["result"]["protocolVersion"] == LEGACY
        await server.notify("notifications/initialized")
        echoed = await server.request("tools/call", {"name": "echo", "arguments": {"text": "x"}})
        assert echoed["result"]["content"][0]["text"] == "x"


class _SilentServer:
    """A server that takes messages and never answers (to see what a client sends)."""

    def __init__(self) -> None:
        self.received: list[dict[str, Any]] = []

    def connect(self, send: Callable[[bytes], None]) -> _SilentServer:
        return self

    def feed(self, data: bytes) -> None:
        self.received.append(orjson.loads(data))

    def send(self, data: bytes) -> None:  # pragma: no cover - it never answers
        raise AssertionError("silent")

    async def drain(self, grace: float) -> None:
        # one loop pass: messages the client already handed over are fed first
        passed = asyncio.get_running_loop().create_future()
        asyncio.get_running_loop().call_soon(passed.set_result, None)
        await passed

    async def start(self) -> None:
        pass

    async def stop(self) -> None:
        pass


async def test_the_client_never_cancels_initialize() -> None:
    """LC-12: when initialize times out the client gives up without notifications/cancelled."""
    silent = _SilentServer()
    with pytest.raises(ClientError, match="timed out"):
        async with Client(silent, protocol_version=LEGACY, timeout=0.2):
            pass
    assert [m["method"] for m in silent.received] == ["initialize"]


# ---------------------------------------------------------------------------- timeouts


@pytest.mark.parametrize("revision", ERAS)
async def test_a_tool_past_its_timeout_gets_an_error_result(rig: Rig, revision: str) -> None:
    """``@mcp.tool(timeout=0.5)``: an ``isError`` result saying it timed out, other calls
    answered meanwhile; the async tool is cancelled (its ``finally`` runs), the sync one sees
    ``ctx.cancelled``."""
    async with rig.client(revision) as client:
        hanging, _ = await start(client, "hang_timed", {"key": "ta"})
        stuck, _ = await start(client, "hang_sync_timed", {"key": "ts"})
        for n in range(3):
            await echo(client, f"meanwhile {n}")
        for result in (await hanging, await stuck):
            assert result.is_error
            assert "timed out" in result.text and "0.5" in result.text
        assert await flag_set(client, "ta:done") and await flag_set(client, "ts:done")
        records = rig.records()
        assert in_order(records, "start:ta", "close:ta", "cancelled:ta", "finally:ta")
        assert in_order(records, "start:ts", "saw-cancelled:ts:True", "close:ts")


@pytest.mark.parametrize("revision", ERAS)
async def test_the_server_timeout_applies_to_tools_without_their_own(
    rig: Rig, revision: str
) -> None:
    """``Server(tool_timeout=0.3)`` stops a tool with no timeout of its own; a tool that has
    its own (30 s) may take longer than 0.3 s."""
    rig.configure(tool_timeout=0.3)
    async with rig.client(revision) as client:
        hanging = client.call_tool("hang", {"key": "d"})
        patient = client.call_tool("patient", {"seconds": 0.6})
        stopped, waited = await asyncio.gather(hanging, patient)
        assert stopped.is_error and "timed out after 0.3" in stopped.text
        assert not waited.is_error and waited.text == "took 0.6"
        assert await flag_set(client, "d:done")
        assert in_order(rig.records(), "start:d", "close:d", "cancelled:d", "finally:d")


@pytest.mark.parametrize("revision", ERAS)
async def test_a_tool_raising_its_own_timeout_error_is_not_a_deadline(
    rig: Rig, revision: str
) -> None:
    async with rig.client(revision) as client:
        result = await client.call_tool("impatient")
        assert result.is_error
        assert result.text == "the upstream service did not answer"


# ---------------------------------------------------------------------------- concurrency


@pytest.mark.parametrize("revision", ERAS)
async def test_two_hundred_concurrent_calls_stay_within_the_limit(rig: Rig, revision: str) -> None:
    """``Server(max_concurrent_calls=10)``: 200 concurrent calls, async and then sync, are all
    answered, and the tools never see more than 8 of them running at once: a lone caller
    leaves a share (``max_calls_per_caller``, a quarter: 2) free for others."""
    limit = 10
    fair = limit - limit // 4  # what a lone caller may use
    rig.configure(max_concurrent_calls=limit)
    async with rig.client(revision) as client:
        for tool in ("busy", "busy_sync"):
            results = await asyncio.gather(
                *(client.call_tool(tool, {"n": n, "limit": fair}) for n in range(200))
            )
            assert [r.text for r in results] == [str(n) for n in range(200)]
            assert not any(r.is_error for r in results)
        stats = (await client.call_tool("busy_stats")).structured
        assert stats["calls"] == {"async": 200, "sync": 200}
        assert stats["max"] == {"async": fair, "sync": fair}


# ---------------------------------------------------------------------------- lifespan


@pytest.mark.parametrize("revision", ERAS)
async def test_lifespan_is_entered_before_the_first_call_and_left_at_shutdown(
    rig: Rig, revision: str
) -> None:
    """Tools reach what the lifespan yielded through ``ctx.lifespan_context`` and
    ``ctx.request_context.lifespan_context``; it is left when the client goes (stdio: stdin
    closes; memory: the client closes)."""
    assert rig.records() == []
    async with rig.client(revision) as client:
        assert rig.records() == ["lifespan:enter"]
        first = (await client.call_tool("use_db")).structured
        second = (await client.call_tool("use_db_sync")).structured
        assert first == {"name": "runtime-db", "queries": 1, "same": True}
        assert second == {"name": "runtime-db", "queries": 2, "same": True}
        assert rig.records() == ["lifespan:enter"]
    assert rig.records() == ["lifespan:enter", "lifespan:exit:2"]


async def test_lifespan_is_shared_by_clients_and_left_after_the_last(tmp_path: Path) -> None:
    """In memory, two clients of one server share one lifespan; it ends with the last one."""
    rig = Rig("memory", tmp_path)
    async with rig.client(LEGACY) as one:
        async with rig.client(MODERN) as two:
            assert (await one.call_tool("use_db")).structured["queries"] == 1
            assert (await two.call_tool("use_db")).structured["queries"] == 2
        assert rig.records() == ["lifespan:enter"]
        assert (await one.call_tool("use_db")).structured["queries"] == 3
    assert rig.records() == ["lifespan:enter", "lifespan:exit:3"]


@pytest.mark.parametrize("revision", ERAS)
async def test_failing_tools_release_what_they_opened(rig: Rig, revision: str) -> None:
    """A tool that raises still leaves its context managers: an expected error comes back as
    its message, an unexpected one masked; both close what they opened."""
    async with rig.client(revision) as client:
        expected = await client.call_tool("fail_holding", {"key": "f1"})
        assert expected.is_error and expected.text == "f1 failed"
        unexpected = await client.call_tool("fail_holding_async", {"key": "f2"})
        assert unexpected.is_error and "exploded" not in unexpected.text
        records = rig.records()
        assert in_order(records, "open:f1", "close:f1")
        assert in_order(records, "open:f2", "close:f2")
