"""stdio end to end: a real server subprocess, raw JSON-RPC lines, every answer schema-checked.

Servers: ``servers/calc.py`` (add, shout, point, sleep, refuse), ``servers/stdio_tools.py``
(echo, stray stdout writers, logging, a slow async tool; ``--max-bytes``, ``--grace``) and
``servers/stdio_blocking.py`` (sync tools that block a worker thread until released).
"""

from __future__ import annotations

import asyncio
import sys
from typing import Any

import orjson
import pytest

from wire import MODERN, SERVERS, TIMEOUT, RawServer, modern_meta, raw_server

LEGACY = "2025-11-25"
BATCHES = "2025-03-26"
EXIT_BOUND = 8.0  # seconds: generous bound for "exits promptly" on a loaded 2-core machine

# ---------------------------------------------------------------------------- helpers


def request(
    mid: Any, method: str, params: dict[str, Any] | None = None, *, modern: bool = False
) -> dict[str, Any]:
    message: dict[str, Any] = {"jsonrpc": "2.0", "id": mid, "method": method}
    if modern:
        params = {**(params or {}), "_meta": modern_meta()}
    if params is not None:
        message["params"] = params
    return message


def call(mid: Any, name: Any, arguments: Any = None, *, modern: bool = False) -> dict[str, Any]:
    params: dict[str, Any] = {"name": name}
    if arguments is not None:
        params["arguments"] = arguments
    return request(mid, "tools/call", params, modern=modern)


def notification(method: str, params: Any = None) -> dict[str, Any]:
    message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
    if params is not None:
        message["params"] = params
    return message


async def send_all(server: RawServer, messages: list[Any]) -> None:
    """Pipeline: every message in one write (each still shown to the schema checker)."""
    for message in messages:
        server.checker.client_sent(message if isinstance(message, dict) else orjson.dumps(message))
    await server.send_raw(b"".join(orjson.dumps(m) + b"\n" for m in messages))


async def recv_many(server: RawServer, count: int) -> list[dict[str, Any]]:
    return [await server.recv() for _ in range(count)]


def text_of(response: dict[str, Any]) -> str:
    assert "result" in response, response
    content = response["result"]["content"]
    assert content and content[0]["type"] == "text", response
    return str(content[0]["text"])


def assert_error(message: Any, code: int, mid: Any = None) -> None:
    """An error response with ``code``; ``mid=None``: the id could not be read, so it is
    ``null`` for a parse error (JSON-RPC 2.0 §5) and absent otherwise (JR-09)."""
    assert isinstance(message, dict), message
    assert "result" not in message, message
    assert message.get("error", {}).get("code") == code, message
    assert isinstance(message["error"].get("message"), str) and message["error"]["message"]
    if mid is None and code == -32700:
        assert "id" in message and message["id"] is None, f"a parse error's id is null: {message}"
    elif mid is None:
        assert "id" not in message, (
            f"an unreadable request's error has no id (never null): {message}"
        )
    else:
        assert message.get("id") == mid and type(message["id"]) is type(mid), message


async def stop(server: RawServer) -> None:
    if server.process.returncode is None:
        try:
            await server.close()
        finally:
            if server.process.returncode is None:
                server.process.kill()
                await server.process.wait()


@pytest.fixture
async def servers() -> Any:
    """``await servers(script, *args, revision=..., env=...)`` starts a server (and initializes
    it on a legacy revision); every server started is stopped after the test."""
    started: list[RawServer] = []

    async def factory(
        script: str = "calc.py",
        *args: str,
        revision: str = LEGACY,
        env: dict[str, str] | None = None,
    ) -> RawServer:
        server = await RawServer.start(script, *args, revision=revision, env=env)
        started.append(server)
        if revision != MODERN:
            response = await server.initialize(revision)
            assert response["result"]["protocolVersion"] == revision
        return server

    yield factory
    for server in started:
        await stop(server)


_probe_ids = iter(range(10**6, 10**7))


async def assert_alive(server: RawServer, *, modern: bool = False) -> None:
    """The very next line the server writes answers a fresh request."""
    mid = next(_probe_ids)
    if modern:
        await server.send(request(mid, "server/discover", modern=True))
    else:
        await server.send(request(mid, "ping"))
    message = await server.recv()
    assert message.get("id") == mid and "result" in message, (
        f"expected the answer to {mid}, got {message}"
    )


def stdout_messages(server: RawServer, rest: bytes) -> list[dict[str, Any]]:
    """Everything the server ever wrote to stdout, each line a JSON-RPC message (SI-04)."""
    lines = [*server.lines, *(line for line in rest.splitlines(keepends=True) if line.strip())]
    messages = []
    for line in lines:
        assert line.endswith(b"\n"), line
        message = orjson.loads(line)  # raises on anything that is not JSON
        assert isinstance(message, dict) and message.get("jsonrpc") == "2.0", line
        messages.append(message)
    return messages


# ---------------------------------------------------------------------------- malformed input


def _error_cases(modern: bool) -> list[tuple[str, bytes, int, Any]]:
    """(label, raw line, expected code, expected id or None)."""

    def raw(message: Any) -> bytes:
        return orjson.dumps(message)

    return [
        ("truncated object", b'{"jsonrpc":"2.0","id":1,"method":"ping"', -32700, None),
        ("lone brace", b"{", -32700, None),
        ("not json", b"hello there", -32700, None),
        ("single quotes", b"{'jsonrpc':'2.0','id':2,'method':'ping'}", -32700, None),
        ("invalid utf-8", b'{"jsonrpc":"2.0","id":3,"method":"\xff\xfe"}', -32700, None),
        ("two objects on a line", b'{"jsonrpc":"2.0","id":4,"method":"ping"}{}', -32700, None),
        ("number", b"42", -32600, None),
        ("string", b'"ping"', -32600, None),
        ("null", b"null", -32600, None),
        ("empty array", b"[]", -32600, None),
        ("method missing", raw({"jsonrpc": "2.0", "id": 5}), -32600, 5),
        ("method not a string", raw({"jsonrpc": "2.0", "id": 6, "method": 7}), -32600, 6),
        ("id null", raw({"jsonrpc": "2.0", "id": None, "method": "ping"}), -32600, None),
        ("id float", raw({"jsonrpc": "2.0", "id": 1.5, "method": "ping"}), -32600, None),
        ("id bool", raw({"jsonrpc": "2.0", "id": True, "method": "ping"}), -32600, None),
        ("id object", raw({"jsonrpc": "2.0", "id": {"a": 1}, "method": "ping"}), -32600, None),
        ("jsonrpc missing", raw({"id": 8, "method": "ping"}), -32600, 8),
        ("jsonrpc wrong", raw({"jsonrpc": "1.0", "id": 9, "method": "ping"}), -32600, 9),
        ("jsonrpc number", raw({"jsonrpc": 2.0, "id": "s9", "method": "ping"}), -32600, "s9"),
        (
            "params array",
            raw({**request(10, "tools/list", modern=modern), "params": [1, 2]}),
            -32600,
            10,
        ),
        (
            "params string",
            raw({**request(11, "tools/list", modern=modern), "params": "x"}),
            -32600,
            11,
        ),
        ("unknown method", raw(request(12, "no/such/method", {}, modern=modern)), -32601, 12),
        (
            "unknown method, string id",
            raw(request("u", "tools/explode", {}, modern=modern)),
            -32601,
            "u",
        ),
        ("name not a string", raw(call(13, 5, {}, modern=modern)), -32602, 13),
        (
            "name missing",
            raw(request(14, "tools/call", {"arguments": {}}, modern=modern)),
            -32602,
            14,
        ),
        ("arguments array", raw(call(15, "add", [1, 2], modern=modern)), -32602, 15),
        ("arguments string", raw(call(16, "add", "a=1", modern=modern)), -32602, 16),
        ("unknown tool", raw(call(17, "no_such_tool", {}, modern=modern)), -32602, 17),
    ]


@pytest.mark.parametrize("era", ["legacy", "modern"])
async def test_bad_input_gets_the_right_error_and_the_server_keeps_going(
    servers: Any, era: str
) -> None:
    """-32700 (id null), -32600, -32601, -32602; each followed by a request that is answered.

    JR-03/JR-04 (request ids are strings or integers, never null), JR-09 (echo a readable id,
    leave an unreadable one out; null when nothing could be parsed), JR-15 (no batches),
    TL-25 (unknown tool is -32602).
    """
    modern = era == "modern"
    server = await servers("calc.py", revision=MODERN if modern else LEGACY)
    for label, line, code, mid in _error_cases(modern):
        await server.send_raw(line)
        message = await server.recv()
        try:
            assert_error(message, code, mid)
        except AssertionError as exc:
            raise AssertionError(f"{label}: {exc}") from None
        await assert_alive(server, modern=modern)
    code, _rest, _err = await server.close()
    assert code == 0


async def test_unknown_tool_error_suggests_the_closest_name(servers: Any) -> None:
    server = await servers()
    await server.send(call(1, "ad", {"a": 1, "b": 2}))
    message = await server.recv()
    assert_error(message, -32602, 1)
    assert "'add'" in message["error"]["message"]


async def test_blank_lines_are_skipped_and_crlf_is_accepted(servers: Any) -> None:
    server = await servers()
    await server.send_raw(b"\n   \n\t\r\n" + orjson.dumps(request(1, "ping")) + b"\r\n")
    assert await server.recv() == {"jsonrpc": "2.0", "id": 1, "result": {}}
    await assert_alive(server)


# ---------------------------------------------------------------------------- notifications


_NOTIFICATIONS: list[Any] = [
    notification("notifications/initialized"),
    notification("notifications/no_such_thing", {"x": 1}),
    notification("notifications/no_such_thing"),
    # a request method without an id is a notification too
    notification("tools/call", {"name": "add", "arguments": {"a": 1, "b": 2}}),
    notification("notifications/cancelled", {"requestId": 424242, "reason": "unknown id"}),
    notification("notifications/cancelled", {"requestId": [1, 2]}),
    notification("notifications/cancelled", {"requestId": {"a": 1}}),
    notification("notifications/cancelled", {"requestId": None}),
    notification("notifications/cancelled", {}),
    notification("notifications/cancelled"),
    notification("notifications/progress", {"progressToken": [], "progress": "lots"}),
    notification("notifications/roots/list_changed", {"unexpected": True}),
    notification("notifications/cancelled", 5),
    notification("notifications/no_such_thing", [1, 2]),
    notification("notifications/no_such_thing", "text"),
    {"jsonrpc": "2.0", "id": 999, "result": {}},  # a response to nothing the server asked
    {"jsonrpc": "2.0", "id": 998, "error": {"code": -1, "message": "nope"}},
]


@pytest.mark.parametrize("era", ["legacy", "modern"])
async def test_notifications_are_never_answered(servers: Any, era: str) -> None:
    """JR-13: no notification is answered: known, unknown, or with bad params; CN-07 too."""
    modern = era == "modern"
    server = await servers("calc.py", revision=MODERN if modern else LEGACY)
    for message in _NOTIFICATIONS:
        await server.send(message)
        mid = next(_probe_ids)
        await server.send(request(mid, "tools/list", modern=modern))
        answer = await server.recv()
        assert answer.get("id") == mid and "result" in answer, f"{message} was answered: {answer}"
    # all of them at once, then a request: the very next line answers it
    await send_all(server, [*_NOTIFICATIONS, request(77, "tools/list", modern=modern)])
    answer = await server.recv()
    assert answer.get("id") == 77 and "result" in answer, answer
    code, rest, _err = await server.close()
    assert code == 0 and rest == b""


# ---------------------------------------------------------------------------- batches


async def test_batch_on_2025_03_26_is_answered_with_one_array(servers: Any) -> None:
    """JR-15: on 2025-03-26 a batch of requests is answered with one JSON array."""
    server = await servers("calc.py", revision=BATCHES)
    batch = [
        request("p", "ping"),
        call("s", "sleep", {"seconds": 0.1}),
        notification("notifications/no_such_thing"),
        call("a", "add", {"a": 2, "b": 3}),
        request("l", "tools/list"),
    ]
    await server.send(batch)
    answer = await server.recv()
    assert isinstance(answer, list), f"expected one array, got {answer}"
    by_id = {item["id"]: item for item in answer}
    assert sorted(by_id) == ["a", "l", "p", "s"], answer
    assert by_id["p"]["result"] == {}
    assert text_of(by_id["a"]) == "5"
    assert text_of(by_id["s"]) == "slept 0.1"
    assert {t["name"] for t in by_id["l"]["result"]["tools"]} >= {"add", "sleep"}
    await assert_alive(server)


async def test_batch_of_quick_requests_is_answered(servers: Any) -> None:
    """Requests answered inline (no task) still make up one complete array."""
    server = await servers("calc.py", revision=BATCHES)
    await server.send([request(1, "ping"), request(2, "ping"), request(3, "tools/list")])
    answer = await server.recv()
    assert isinstance(answer, list) and sorted(item["id"] for item in answer) == [1, 2, 3], answer
    await assert_alive(server)


async def test_batch_refuses_initialize_and_answers_the_rest(servers: Any) -> None:
    """JR-15: initialize may not be in a batch; its element gets an error, the others their answers."""
    server = await servers("calc.py", revision=BATCHES)
    init = request(
        "i",
        "initialize",
        {
            "protocolVersion": BATCHES,
            "capabilities": {},
            "clientInfo": {"name": "t", "version": "0"},
        },
    )
    await server.send([init, request("p", "ping")])
    answer = await server.recv()
    assert isinstance(answer, list), answer
    by_id = {item.get("id"): item for item in answer}
    assert set(by_id) == {"i", "p"}, answer
    assert "error" in by_id["i"] and "result" not in by_id["i"]
    assert by_id["p"]["result"] == {}
    await assert_alive(server)


async def test_batch_edge_cases_on_2025_03_26(servers: Any) -> None:
    server = await servers("calc.py", revision=BATCHES)
    # only notifications: nothing to answer
    await server.send([notification("notifications/a"), notification("notifications/b")])
    await assert_alive(server)
    # an empty array is an invalid request, answered with a single error object
    await server.send_raw(b"[]")
    assert_error(await server.recv(), -32600)
    await assert_alive(server)
    # an invalid element gets its own error inside the array
    await server.send_raw(b'[5,{"jsonrpc":"2.0","id":"ok","method":"ping"}]')
    answer = await server.recv()
    assert isinstance(answer, list) and len(answer) == 2, answer
    errors = [item for item in answer if "error" in item]
    assert len(errors) == 1
    assert_error(errors[0], -32600)
    assert [item["id"] for item in answer if "result" in item] == ["ok"]
    await assert_alive(server)


@pytest.mark.parametrize("revision", ["2024-11-05", "2025-06-18", LEGACY, MODERN])
async def test_batch_rejected_outside_2025_03_26(servers: Any, revision: str) -> None:
    """SI-03/JR-15: a single -32600 error; nothing in the batch runs."""
    modern = revision == MODERN
    server = await servers("calc.py", revision=revision)
    batch = [
        call(1, "add", {"a": 1, "b": 1}, modern=modern),
        request(2, "tools/list", modern=modern),
    ]
    await server.send_raw(orjson.dumps(batch))
    assert_error(await server.recv(), -32600)
    await assert_alive(server, modern=modern)
    code, rest, _err = await server.close()
    assert code == 0 and rest == b"", "a request inside a rejected batch was answered"


async def test_batch_rejected_before_initialize(servers: Any) -> None:
    server = await servers("calc.py", revision=MODERN)  # no initialize sent
    await server.send_raw(orjson.dumps([request(1, "ping")]))
    assert_error(await server.recv(), -32600)
    await assert_alive(server, modern=True)


# ---------------------------------------------------------------------------- pipelining


@pytest.mark.parametrize("era", ["legacy", "modern"])
async def test_pipelined_requests_are_answered_by_id_quick_ones_first(
    servers: Any, era: str
) -> None:
    modern = era == "modern"
    server = await servers("calc.py", revision=MODERN if modern else LEGACY)
    quick = [
        call("a1", "add", {"a": 1, "b": 2}, modern=modern),
        request("l", "tools/list", modern=modern),
        call("a2", "add", {"a": 40, "b": 2}, modern=modern),
        call("pt", "point", {"x": 3, "y": 4}, modern=modern),
        call("r", "refuse", {"reason": "no"}, modern=modern),
    ]
    await send_all(server, [call("slow", "sleep", {"seconds": 0.5}, modern=modern), *quick])
    answers = await recv_many(server, 6)
    ids = [a["id"] for a in answers]
    assert ids[-1] == "slow", f"the slow call must finish last: {ids}"
    assert sorted(ids[:-1]) == sorted(m["id"] for m in quick)
    by_id = {a["id"]: a for a in answers}
    assert text_of(by_id["a1"]) == "3" and text_of(by_id["a2"]) == "42"
    assert by_id["pt"]["result"]["structuredContent"] == {"x": 3, "y": 4}
    assert by_id["r"]["result"]["isError"] is True and text_of(by_id["r"]) == "no"
    assert text_of(by_id["slow"]) == "slept 0.5"


async def test_two_hundred_pipelined_calls(servers: Any) -> None:
    server = await servers()
    await send_all(server, [call(i, "add", {"a": i, "b": 2 * i}) for i in range(1, 201)])
    answers = await recv_many(server, 200)
    results = {a["id"]: a for a in answers}
    assert sorted(results) == list(range(1, 201))
    for i, answer in results.items():
        assert text_of(answer) == str(3 * i)
        assert answer["result"]["structuredContent"] == {"result": 3 * i}
    await assert_alive(server)


async def test_same_numeric_and_string_id_are_different_requests(servers: Any) -> None:
    """JR-03: ``1`` and ``"1"`` are distinct ids; each answer echoes its own, type and all."""
    server = await servers()
    await send_all(server, [call(1, "sleep", {"seconds": 0.5}), call("1", "add", {"a": 1, "b": 1})])
    answers = await recv_many(server, 2)
    assert answers[0]["id"] == "1" and text_of(answers[0]) == "2"
    assert answers[1]["id"] == 1 and text_of(answers[1]) == "slept 0.5"


# ---------------------------------------------------------------------------- blocking sync tools


async def test_blocked_sync_tool_does_not_stall_other_requests(servers: Any) -> None:
    """A sync tool blocked on its thread: ping, add and the call that unblocks it still run."""
    server = await servers("stdio_blocking.py")
    await server.send(call("h", "hold", {"key": "k"}))
    await send_all(server, [request("p", "ping"), call("a", "add", {"a": 2, "b": 2})])
    first = await recv_many(server, 2)
    assert {m["id"] for m in first} == {"p", "a"}, first
    await server.send(call("r", "release", {"key": "k"}))
    rest = {m["id"]: m for m in await recv_many(server, 2)}
    assert set(rest) == {"r", "h"}
    assert text_of(rest["h"]) == "released"


async def test_time_sleep_in_a_sync_tool_does_not_stall_the_loop(servers: Any) -> None:
    server = await servers("stdio_blocking.py")
    await send_all(
        server,
        [
            call("b", "block", {"seconds": 1.0}),
            request("p", "ping"),
            call("a", "add", {"a": 1, "b": 2}),
        ],
    )
    answers = await recv_many(server, 3)
    assert [m["id"] for m in answers][-1] == "b", answers
    assert text_of(answers[-1]) == "blocked 1.0"


async def _quick_calls_then_hold(server: RawServer, tool: str) -> list[dict[str, Any]]:
    for i in range(12):  # enough quick calls for the tool to be moved onto the event loop
        await server.send(call(f"q{i}", tool, {"key": "t", "wait": False}))
        assert text_of(await server.response(f"q{i}")) == "quick"
    await server.send(call("h", tool, {"key": "t"}))
    await server.send(request("p", "ping"))
    first = await server.recv()
    await server.send(call("r", "release", {"key": "t"}))
    return [first, *await recv_many(server, 2)]


async def test_a_quick_sync_tool_that_turns_slow_stays_off_the_loop(servers: Any) -> None:
    """A sync tool that calls things is never moved inline, however quick its calls: one that
    turns slow (here until its hold times out) and a later blocked one never delay a ping."""
    server = await servers("stdio_blocking.py", "--hold-timeout", "0.5")
    for i in range(12):  # enough quick calls for the tool to be moved onto the event loop
        await server.send(call(f"q{i}", "hold", {"key": "t", "wait": False}))
        assert text_of(await server.response(f"q{i}")) == "quick"
    await server.send(call("stall", "hold", {"key": "never"}))
    assert text_of(await server.response("stall")) == "timed out"
    answers = await _quick_calls_then_hold(server, "hold")
    assert answers[0]["id"] == "p", f"ping waited for the blocked tool: {answers}"
    assert text_of({a["id"]: a for a in answers}["h"]) == "released"


async def test_tool_declared_blocking_never_stalls_after_quick_calls(servers: Any) -> None:
    """``blocking=True`` keeps a sync tool on worker threads however quick its calls are."""
    server = await servers("stdio_blocking.py", "--hold-timeout", "5")
    answers = await _quick_calls_then_hold(server, "hold_on_thread")
    assert answers[0]["id"] == "p", answers
    assert text_of({a["id"]: a for a in answers}["h"]) == "released"


# ---------------------------------------------------------------------------- stdout protection


async def test_stray_stdout_writes_go_to_stderr(servers: Any) -> None:
    """SI-04: print, sys.stdout(.buffer), os.write(1) and child processes never reach stdout."""
    server = await servers("stdio_tools.py")
    messages = [call(f"n{i}", "noisy", {"text": f"x{i}"}) for i in range(3)]
    messages += [call(f"s{i}", "noisy_async", {"text": f"y{i}"}) for i in range(3)]
    messages += [call(f"e{i}", "echo", {"text": f"z{i}"}) for i in range(10)]
    await send_all(server, messages)
    answers = {a["id"]: a for a in await recv_many(server, len(messages))}
    assert (
        text_of(answers["n1"]) == "x1"
        and text_of(answers["s2"]) == "y2"
        and text_of(answers["e9"]) == "z9"
    )
    code, rest, err = await server.close()
    assert code == 0
    out = stdout_messages(server, rest)
    assert all("method" in m or "id" in m for m in out)
    stderr = err.decode()
    for i in range(3):
        for marker in ("print", "write", "buffer", "fd1", "child"):
            assert f"{marker}:x{i}" in stderr, f"{marker}:x{i} missing from stderr"
        for marker in ("async-print", "async-fd1"):
            assert f"{marker}:y{i}" in stderr
    raw_out = b"".join(server.lines) + rest
    assert b"print:" not in raw_out and b"fd1:" not in raw_out and b"child:" not in raw_out


async def test_stdout_is_protocol_only_even_when_logging_targets_stdout(servers: Any) -> None:
    """SI-04/SI-06: an application that points logging at sys.stdout still logs to stderr."""
    server = await servers("stdio_tools.py", "--log-to-stdout")
    await server.send(call(1, "log", {"message": "hello"}))
    assert text_of(await server.response(1)) == "logged"
    code, rest, err = await server.close()
    assert code == 0
    stdout_messages(server, rest)
    assert b"app-log:hello" in err and b"toolwire-log:hello" in err
    assert b"log:hello" not in b"".join(server.lines) + rest


async def test_debug_logging_to_stdout_during_start_up_stays_off_the_protocol_stream(
    servers: Any,
) -> None:
    """SI-04: nothing toolwire does inside ``run()`` may reach stdout, start-up included."""
    server = await servers("stdio_tools.py", "--log-to-stdout", "--log-level", "DEBUG")
    await server.send(call(1, "log", {"message": "hello"}))
    assert text_of(await server.response(1)) == "logged"
    code, rest, err = await server.close()
    assert code == 0
    stdout_messages(server, rest)
    assert b"Using selector" in err


async def test_logging_goes_to_stderr_only(servers: Any) -> None:
    """SI-06: the server's own log (an unexpected tool failure, with its details) is on stderr."""
    server = await servers("stdio_tools.py")
    await send_all(
        server, [call(1, "log", {"message": "hi"}), call(2, "crash", {"detail": "s3cr3t"})]
    )
    answers = {a["id"]: a for a in await recv_many(server, 2)}
    assert text_of(answers[1]) == "logged"
    assert answers[2]["result"]["isError"] is True
    assert "s3cr3t" not in text_of(answers[2]), "unexpected exception details must stay in the log"
    code, rest, err = await server.close()
    assert code == 0
    stdout_messages(server, rest)
    assert b"app-log:hi" in err and b"toolwire-log:hi" in err
    assert b"crash-detail:s3cr3t" in err or b"RuntimeError" in err
    assert b"s3cr3t" not in b"".join(server.lines) + rest


# ---------------------------------------------------------------------------- encoding


TEXT = 'héllo 😀 漢字 🇫🇷 Ωμέγα \u2028 tab\t quote" backslash\\ newline\n end'


@pytest.mark.parametrize(
    "env",
    [{"LC_ALL": "C", "LANG": "C"}, {"LC_ALL": "C", "LANG": "C", "PYTHONUTF8": "0"}],
    ids=["C-locale", "C-locale-no-utf8-mode"],
)
async def test_non_ascii_round_trips_as_utf8_in_the_c_locale(
    servers: Any, monkeypatch: pytest.MonkeyPatch, env: dict[str, str]
) -> None:
    """SI-01/SI-02: UTF-8 and one compact line per message whatever the locale."""
    for name in ("PYTHONIOENCODING", "PYTHONUTF8", "LC_CTYPE", "LC_ALL", "LANG"):
        monkeypatch.delenv(name, raising=False)
    server = await servers("stdio_tools.py", env=env)
    await server.send(call(1, "echo", {"text": TEXT}))
    answer = await server.response(1)
    assert text_of(answer) == TEXT
    line = server.lines[-1]
    assert line.count(b"\n") == 1 and line.endswith(b"}\n")
    assert "😀 漢字 🇫🇷 Ωμέγα".encode() in line, "non-ASCII text is sent as raw UTF-8"
    # ASCII-only input with \u escapes comes back as UTF-8 too
    await server.send_raw(
        b'{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo",'
        b'"arguments":{"text":"\\ud83d\\ude00\\u6f22"}}}'
    )
    answer = await server.response(2)
    assert text_of(answer) == "😀漢"
    assert "😀漢".encode() in server.lines[-1]
    # an error message that quotes non-ASCII input
    await server.send(call(3, "échø_😀", {}))
    answer = await server.response(3)
    assert_error(answer, -32602, 3)
    assert "échø_😀" in answer["error"]["message"]


# ---------------------------------------------------------------------------- EOF and exit


async def test_clean_exit_on_eof(servers: Any) -> None:
    """SI-11: stdin closed -> exit code 0, promptly, nothing more on stdout."""
    server = await servers()
    await assert_alive(server)
    start = asyncio.get_running_loop().time()
    code, rest, _err = await server.close(timeout=EXIT_BOUND)
    assert code == 0 and rest == b""
    assert asyncio.get_running_loop().time() - start < EXIT_BOUND


async def test_exit_on_eof_without_any_message() -> None:
    async with raw_server("calc.py", revision=LEGACY) as server:
        code, rest, _err = await server.close(timeout=EXIT_BOUND)
        assert code == 0 and rest == b""


async def test_last_message_without_newline_is_handled_at_eof() -> None:
    async with raw_server("calc.py", revision=MODERN) as server:
        assert server.process.stdin is not None
        server.process.stdin.write(orjson.dumps(request(1, "server/discover", modern=True)))
        code, rest, _err = await server.close()
        assert code == 0
        answers = [orjson.loads(line) for line in rest.splitlines()]
        assert [a["id"] for a in answers] == [1] and "result" in answers[0]


@pytest.mark.parametrize(
    ("script", "tool", "arguments", "text"),
    [
        ("calc.py", "sleep", {"seconds": 0.5}, "slept 0.5"),
        ("stdio_blocking.py", "block", {"seconds": 0.5}, "blocked 0.5"),
    ],
    ids=["async", "sync"],
)
async def test_call_in_flight_at_eof_is_answered_before_exit(
    servers: Any, script: str, tool: str, arguments: dict[str, Any], text: str
) -> None:
    """SI-11: an in-flight call still gets its answer within the grace period (2 s)."""
    server = await servers(script)
    await server.send(call("f", tool, arguments))
    code, rest, _err = await server.close()
    assert code == 0
    answers = [orjson.loads(line) for line in rest.splitlines()]
    assert [a["id"] for a in answers] == ["f"], answers
    assert text_of(answers[0]) == text


@pytest.mark.parametrize(
    ("script", "args", "tool", "arguments"),
    [
        ("stdio_tools.py", ("--grace", "0.3"), "sleep", {"seconds": 60}),
        ("stdio_blocking.py", ("--grace", "0.3", "--hold-timeout", "60"), "hold", {"key": "k"}),
    ],
    ids=["async", "sync"],
)
async def test_call_longer_than_the_grace_period_does_not_keep_the_server_alive(
    servers: Any, script: str, args: tuple[str, ...], tool: str, arguments: dict[str, Any]
) -> None:
    server = await servers(script, *args)
    await server.send(call("f", tool, arguments))
    await assert_alive(server)
    start = asyncio.get_running_loop().time()
    code, rest, _err = await server.close(timeout=EXIT_BOUND)
    assert code == 0
    assert asyncio.get_running_loop().time() - start < EXIT_BOUND
    assert rest == b"", "a call cut off by shutdown sends nothing"


async def test_stdin_and_stdout_as_regular_files(tmp_path: Any) -> None:
    """``server < requests.jsonl > answers.jsonl``: files instead of pipes."""
    requests = tmp_path / "requests.jsonl"
    answers = tmp_path / "answers.jsonl"
    lines = [request(1, "server/discover", modern=True), notification("notifications/x")]
    lines += [call(i, "add", {"a": i, "b": 1}, modern=True) for i in range(2, 12)]
    lines += [call(20, "sleep", {"seconds": 0.1}, modern=True)]
    requests.write_bytes(b"".join(orjson.dumps(m) + b"\n" for m in lines) + b"{broken\n")
    with requests.open("rb") as stdin, answers.open("wb") as stdout:
        process = await asyncio.create_subprocess_exec(
            sys.executable,
            str(SERVERS / "calc.py"),
            stdin=stdin,
            stdout=stdout,
            stderr=asyncio.subprocess.PIPE,
        )
        try:
            _out, err = await asyncio.wait_for(process.communicate(), TIMEOUT)
        finally:
            if process.returncode is None:
                process.kill()
                await process.wait()
    assert process.returncode == 0, err.decode()
    raw = answers.read_bytes()
    got = [orjson.loads(line) for line in raw.splitlines()]
    assert len(got) == 13, got
    by_id = {m.get("id"): m for m in got}
    assert set(by_id) == {None, 1, 20, *range(2, 12)}
    for i in range(2, 12):
        assert text_of(by_id[i]) == str(i + 1)
    assert_error(by_id[None], -32700)
    assert b"Traceback" not in err, err.decode()


# ---------------------------------------------------------------------------- message size


async def test_over_long_lines_get_an_error_and_the_server_keeps_going(servers: Any) -> None:
    """A line over ``max_message_bytes`` is refused (never run) whatever size it arrives in."""
    limit = 4096
    server = await servers("stdio_tools.py", "--max-bytes", str(limit))

    def echo_line(mid: int, size: int) -> bytes:
        head = orjson.dumps(call(mid, "echo", {"text": ""}))
        return head.replace(b'"text":""', b'"text":"' + b"x" * (size - len(head)) + b'"')

    # exactly at the limit: accepted
    line = echo_line(1, limit)
    assert len(line) == limit
    await server.send_raw(line)
    assert len(text_of(await server.response(1))) == limit - len(
        orjson.dumps(call(1, "echo", {"text": ""}))
    )
    for mid, size in [(2, limit + 1), (3, 3 * limit), (4, 1_000_000)]:
        await server.send_raw(echo_line(mid, size))
        assert_error(await server.recv(), -32600)
        await assert_alive(server)
    # an over-long line and a good one in the same write
    await server.send_raw(echo_line(5, 2 * limit) + b"\n" + orjson.dumps(request(6, "ping")))
    assert_error(await server.recv(), -32600)
    assert (await server.recv())["id"] == 6
    code, rest, _err = await server.close()
    assert code == 0
    assert rest == b"", "an over-long request must not be run"


# ---------------------------------------------------------------------------- cancellation


@pytest.mark.parametrize("era", ["legacy", "modern"])
async def test_cancelled_call_is_never_answered(servers: Any, era: str) -> None:
    """CN-04/CN-12: no response for a cancelled request; later requests are still answered.

    The server's grace period is long (30 s): if the cancelled call were still running, the
    exit after EOF would wait for it.
    """
    modern = era == "modern"
    revision = MODERN if modern else LEGACY
    server = await servers("stdio_tools.py", "--grace", "30", revision=revision)
    await server.send(call("slow", "sleep", {"seconds": 60}, modern=modern))
    await server.send(call("other", "sleep", {"seconds": 0.2}, modern=modern))
    await server.send(notification("notifications/cancelled", {"requestId": "slow", "reason": "t"}))
    await server.send(call("e", "echo", {"text": "after"}, modern=modern))
    first = await recv_many(server, 2)
    assert [m["id"] for m in first] == ["e", "other"], first
    await assert_alive(server, modern=modern)
    start = asyncio.get_running_loop().time()
    code, rest, _err = await server.close(timeout=EXIT_BOUND)
    assert code == 0
    assert rest == b"", f"the cancelled call was answered: {rest!r}"
    assert asyncio.get_running_loop().time() - start < EXIT_BOUND


async def test_cancel_in_the_same_write_as_the_request(servers: Any) -> None:
    server = await servers()
    await send_all(
        server,
        [
            call(1, "sleep", {"seconds": 0.3}),
            notification("notifications/cancelled", {"requestId": 1}),
            call(2, "sleep", {"seconds": 0.3}),
        ],
    )
    answer = await server.recv()
    assert answer["id"] == 2, answer
    code, rest, _err = await server.close()
    assert code == 0 and rest == b""


async def test_cancelled_sync_call_is_never_answered(servers: Any) -> None:
    """CN-04 for a sync tool blocked on a thread: its late result is dropped."""
    server = await servers("stdio_blocking.py")
    await server.send(call("h", "hold", {"key": "k"}))
    await server.send(notification("notifications/cancelled", {"requestId": "h"}))
    await assert_alive(server)
    await server.send(call("r", "release", {"key": "k"}))
    assert text_of(await server.response("r")) == "ok"
    # the hold returns on its thread now; only the next request's answer may follow
    await server.send(call("a", "add", {"a": 1, "b": 1}))
    assert (await server.recv())["id"] == "a"
    code, rest, _err = await server.close()
    assert code == 0 and rest == b"", rest


async def test_unknown_late_and_mistyped_cancels_are_ignored(servers: Any) -> None:
    """CN-06/CN-07: such cancels are ignored silently and cancel nothing else.

    ``2.0`` and ``true`` are not request ids (JR-03) even though Python compares them equal to
    ``2`` and ``1``.
    """
    server = await servers("stdio_blocking.py")
    await server.send(call(1, "add", {"a": 1, "b": 1}))
    assert text_of(await server.response(1)) == "2"
    await server.send(call(2, "hold", {"key": "k"}))
    for request_id in [1, 12345, "2", 2.0, True, [2], {"id": 2}, None]:
        params = {"requestId": request_id, "reason": "test"}
        await server.send(notification("notifications/cancelled", params))
        await assert_alive(server)
    await server.send(call("r", "release", {"key": "k"}))
    answers = {m["id"]: m for m in await recv_many(server, 2)}
    assert set(answers) == {2, "r"}, "a cancel for another id hit this call"
    assert text_of(answers[2]) == "released"
    code, rest, _err = await server.close()
    assert code == 0 and rest == b""
