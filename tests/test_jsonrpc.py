"""The JSON-RPC codec (``toolwire.jsonrpc``): sans-IO, tested without an event loop."""

from __future__ import annotations

from typing import Any

import orjson
import pytest

from toolwire import jsonrpc
from toolwire.errors import RPCError

from mcp_spec import REVISIONS, SpecViolation, validate_definition

NEW_ERROR_ENVELOPE = ("2025-11-25", "2026-07-28")  # JSONRPCErrorResponse: id optional


def rpc_error(call: Any, *args: Any) -> RPCError:
    with pytest.raises(RPCError) as info:
        call(*args)
    return info.value


# ---------------------------------------------------------------------------- constants


def test_error_codes_are_the_json_rpc_and_mcp_ones() -> None:
    assert jsonrpc.PARSE_ERROR == -32700
    assert jsonrpc.INVALID_REQUEST == -32600
    assert jsonrpc.METHOD_NOT_FOUND == -32601
    assert jsonrpc.INVALID_PARAMS == -32602
    assert jsonrpc.INTERNAL_ERROR == -32603
    # 2026-07-28 reserves -32020..-32099 for the spec's own codes (JR-31).
    for code in (
        jsonrpc.HEADER_MISMATCH,
        jsonrpc.MISSING_CLIENT_CAPABILITY,
        jsonrpc.UNSUPPORTED_PROTOCOL_VERSION,
    ):
        assert -32099 <= code <= -32020
    assert (jsonrpc.MISSING_CLIENT_CAPABILITY, jsonrpc.UNSUPPORTED_PROTOCOL_VERSION) == (
        -32021,
        -32022,
    )


# ---------------------------------------------------------------------------- loads


@pytest.mark.parametrize(
    "data",
    [
        b"{",
        b'{"jsonrpc":"2.0","id":1,"method":"ping"',
        b"{'jsonrpc':'2.0'}",
        b'{"jsonrpc":"2.0","id":1,"method":"ping"} trailing',
        b'{"a":1}{"b":2}',
        b"",
        b"   ",
        b"NaN",
        b"1e400",
        b'{"a":"\\ud800"}',  # lone surrogate escape
        b'{"a":"\xff"}',  # not UTF-8
        b"\xef\xbb\xbf{}",  # byte-order mark
        b'{"a":1,}',
        "{not json",
    ],
    ids=repr,
)
def test_loads_malformed_json_is_a_parse_error(data: bytes | str) -> None:
    error = rpc_error(jsonrpc.loads, data)
    assert error.code == jsonrpc.PARSE_ERROR == -32700
    assert error.message and "\n" not in error.message


@pytest.mark.parametrize(
    "wrap",
    [bytes, bytearray, memoryview, lambda b: b.decode()],
    ids=["bytes", "bytearray", "memoryview", "str"],
)
def test_loads_accepts_every_buffer_type(wrap: Any) -> None:
    data = '{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"text":"héllo 😀 漢字"}}}'.encode()
    message = jsonrpc.loads(wrap(data))
    assert message["params"]["arguments"]["text"] == "héllo 😀 漢字"
    assert message["id"] == 7


def test_loads_tolerates_surrounding_whitespace_and_crlf() -> None:
    assert jsonrpc.loads(b' {"jsonrpc":"2.0","method":"x"}\r\n') == {
        "jsonrpc": "2.0",
        "method": "x",
    }


def test_loads_returns_non_objects_for_classify_to_reject() -> None:
    """Valid JSON that is not a message is a -32600 matter, not -32700."""
    assert jsonrpc.loads(b"[]") == []
    assert jsonrpc.loads(b"42") == 42
    assert jsonrpc.loads(b"null") is None


# ---------------------------------------------------------------------------- dumps


def test_dumps_is_one_compact_utf8_line() -> None:
    """SI-01/SI-02: UTF-8, no embedded newline, no whitespace between tokens."""
    message = {
        "jsonrpc": "2.0",
        "id": 1,
        "result": {"text": "line one\nline two\r\n 😀 漢字 é", "list": [1, 2]},
    }
    data = jsonrpc.dumps(message)
    assert isinstance(data, bytes)
    assert b"\n" not in data and b"\r" not in data
    assert not data.endswith(b"\n")
    assert b": " not in data and b", " not in data
    assert "😀 漢字 é".encode() in data  # raw UTF-8, not \u escapes
    data.decode("utf-8")
    assert orjson.loads(data) == message


def test_dumps_never_raises_and_replaces_lone_surrogates() -> None:
    # A file name that is not UTF-8, as os.listdir() decodes it: a lone surrogate.
    assert orjson.loads(jsonrpc.dumps({"text": "caf\udce9.txt"})) == {"text": "caf\ufffd.txt"}
    assert orjson.loads(jsonrpc.dumps({"k\ud800": ["\ud800"]})) == {"k\ufffd": ["\ufffd"]}
    # A surrogate pair spelled as two code points is the character it stands for.
    assert orjson.loads(jsonrpc.dumps("\ud83d\ude00")) == "\U0001f600"
    assert orjson.loads(jsonrpc.dumps({"n": 2**64, "f": float("nan")})) == {"n": 2**64, "f": None}
    loop: list[Any] = []
    loop.append(loop)
    assert orjson.loads(jsonrpc.dumps({"a": loop, 1: object()}))["a"] == ["<cycle>"]


def test_a_result_that_cannot_be_sent_is_an_internal_error() -> None:
    fine = orjson.loads(jsonrpc.result_bytes(7, {"text": "caf\udce9"}))
    assert fine == {"jsonrpc": "2.0", "id": 7, "result": {"text": "caf\ufffd"}}
    lost = orjson.loads(jsonrpc.result_bytes(7, {"value": object()}))
    assert lost["id"] == 7 and lost["error"]["code"] == jsonrpc.INTERNAL_ERROR
    error = RPCError(jsonrpc.INVALID_PARAMS, "no file caf\udce9.txt")
    assert (
        orjson.loads(jsonrpc.error_bytes(3, error))["error"]["message"] == "no file caf\ufffd.txt"
    )
    note = orjson.loads(jsonrpc.notification_bytes("notifications/message", {"data": "\udce9"}))
    assert note["params"] == {"data": "\ufffd"}


# ---------------------------------------------------------------------------- classify


@pytest.mark.parametrize(
    ("message", "kind"),
    [
        ({"jsonrpc": "2.0", "id": 1, "method": "ping"}, "request"),
        ({"jsonrpc": "2.0", "id": 0, "method": "ping"}, "request"),
        ({"jsonrpc": "2.0", "id": -5, "method": "ping"}, "request"),
        ({"jsonrpc": "2.0", "id": "", "method": "ping"}, "request"),
        ({"jsonrpc": "2.0", "id": "abc", "method": "tools/list", "params": {}}, "request"),
        ({"jsonrpc": "2.0", "id": 2**63, "method": "ping"}, "request"),
        ({"jsonrpc": "2.0", "method": "notifications/initialized"}, "notification"),
        (
            {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1}},
            "notification",
        ),
        ({"jsonrpc": "2.0", "method": "x", "params": None}, "notification"),
        ({"jsonrpc": "2.0", "id": 1, "result": {}}, "response"),
        ({"jsonrpc": "2.0", "id": 1, "error": {"code": -1, "message": "m"}}, "response"),
        ({"jsonrpc": "2.0", "error": {"code": -32700, "message": "m"}}, "response"),
    ],
)
def test_classify_valid_messages(message: dict[str, Any], kind: str) -> None:
    assert jsonrpc.classify(message) == kind


@pytest.mark.parametrize(
    "message",
    [
        pytest.param([], id="empty-array"),
        pytest.param([{"jsonrpc": "2.0", "id": 1, "method": "ping"}], id="batch"),
        pytest.param(42, id="number"),
        pytest.param("ping", id="string"),
        pytest.param(None, id="null"),
        pytest.param(True, id="true"),
        pytest.param({}, id="empty-object"),
        pytest.param({"id": 1, "method": "ping"}, id="jsonrpc-missing"),
        pytest.param({"jsonrpc": "1.0", "id": 1, "method": "ping"}, id="jsonrpc-1.0"),
        pytest.param({"jsonrpc": 2.0, "id": 1, "method": "ping"}, id="jsonrpc-number"),
        pytest.param({"jsonrpc": None, "id": 1, "method": "ping"}, id="jsonrpc-null"),
        pytest.param({"jsonrpc": "2.0", "id": 1}, id="method-missing"),
        pytest.param({"jsonrpc": "2.0", "id": 1, "params": {}}, id="method-missing-with-params"),
        pytest.param({"jsonrpc": "2.0", "id": 1, "method": 5}, id="method-number"),
        pytest.param({"jsonrpc": "2.0", "id": 1, "method": None}, id="method-null"),
        pytest.param({"jsonrpc": "2.0", "id": None, "method": "ping"}, id="id-null"),
        pytest.param({"jsonrpc": "2.0", "id": 1.5, "method": "ping"}, id="id-float"),
        pytest.param({"jsonrpc": "2.0", "id": 1.0, "method": "ping"}, id="id-integral-float"),
        pytest.param({"jsonrpc": "2.0", "id": True, "method": "ping"}, id="id-bool"),
        pytest.param({"jsonrpc": "2.0", "id": [1], "method": "ping"}, id="id-array"),
        pytest.param({"jsonrpc": "2.0", "id": {"a": 1}, "method": "ping"}, id="id-object"),
        pytest.param(
            {"jsonrpc": "2.0", "id": 1, "method": "ping", "params": [1, 2]}, id="params-array"
        ),
        pytest.param(
            {"jsonrpc": "2.0", "id": 1, "method": "ping", "params": "x"}, id="params-string"
        ),
        pytest.param({"jsonrpc": "2.0", "id": 1, "method": "ping", "params": 0}, id="params-zero"),
        pytest.param(
            {"jsonrpc": "2.0", "id": 1, "method": "ping", "params": False}, id="params-false"
        ),
        pytest.param(
            {"jsonrpc": "2.0", "method": "notifications/x", "params": 5},
            id="notification-params-number",
        ),
        pytest.param(
            {"jsonrpc": "2.0", "id": 1, "result": {}, "error": {"code": 1, "message": "m"}},
            id="result-and-error",
        ),
    ],
)
def test_classify_rejects_invalid_requests(message: Any) -> None:
    """JR-03/JR-04 (ids are strings or integers, never null), JR-08, JR-15 (no batches here)."""
    error = rpc_error(jsonrpc.classify, message)
    assert error.code == jsonrpc.INVALID_REQUEST == -32600
    assert error.message.startswith("Invalid")


def test_classify_does_not_mutate_the_message() -> None:
    message = {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "x"}}
    before = orjson.dumps(message)
    jsonrpc.classify(message)
    assert orjson.dumps(message) == before


# ---------------------------------------------------------------------------- request_id


@pytest.mark.parametrize(
    ("message", "expected"),
    [
        ({"jsonrpc": "2.0", "id": 5, "method": 7}, 5),
        ({"id": "abc"}, "abc"),
        ({"id": 0}, 0),
        ({"id": None}, None),
        ({"id": True}, None),
        ({"id": False}, None),
        ({"id": 1.5}, None),
        ({"id": [1]}, None),
        ({}, None),
        ([{"id": 1}], None),
        ("id", None),
        (None, None),
    ],
)
def test_request_id_is_read_only_when_valid(message: Any, expected: Any) -> None:
    """JR-09: an error echoes the id when it can be read; a bool is never an id."""
    mid = jsonrpc.request_id(message)
    assert mid == expected
    assert type(mid) is type(expected)


# ---------------------------------------------------------------------------- builders


def test_error_bytes_without_id_leaves_the_member_out() -> None:
    """JR-09 / §5.6: an unreadable id of a message that parsed is omitted, never null."""
    data = jsonrpc.error_bytes(None, RPCError(jsonrpc.INVALID_REQUEST, "Invalid request"))
    message = orjson.loads(data)
    assert message == {"jsonrpc": "2.0", "error": {"code": -32600, "message": "Invalid request"}}
    assert b"null" not in data


def test_a_parse_error_carries_a_null_id() -> None:
    """JSON-RPC 2.0 §5: the id of a message that could not be parsed is null."""
    data = jsonrpc.error_bytes(None, RPCError(jsonrpc.PARSE_ERROR, "Parse error"))
    assert orjson.loads(data) == {
        "jsonrpc": "2.0",
        "id": None,
        "error": {"code": -32700, "message": "Parse error"},
    }


@pytest.mark.parametrize("mid", [0, 17, "req-1", ""])
def test_error_bytes_echoes_the_id(mid: str | int) -> None:
    message = orjson.loads(
        jsonrpc.error_bytes(mid, RPCError(jsonrpc.METHOD_NOT_FOUND, "Method not found: x"))
    )
    assert message["id"] == mid and type(message["id"]) is type(mid)
    assert message["error"] == {"code": -32601, "message": "Method not found: x"}
    assert "result" not in message


def test_error_bytes_carries_data_only_when_given() -> None:
    data = {"supported": ["2026-07-28"], "requested": "1999-01-01"}
    with_data = orjson.loads(
        jsonrpc.error_bytes(1, RPCError(-32022, "Unsupported protocol version", data))
    )
    assert with_data["error"]["data"] == data
    falsy = orjson.loads(jsonrpc.error_bytes(1, RPCError(-32603, "Internal error", {})))
    assert falsy["error"]["data"] == {}
    without = orjson.loads(jsonrpc.error_bytes(1, RPCError(-32603, "Internal error")))
    assert "data" not in without["error"]


def test_result_bytes() -> None:
    data = jsonrpc.result_bytes("a", {"content": [{"type": "text", "text": "😀"}]})
    assert orjson.loads(data) == {
        "jsonrpc": "2.0",
        "id": "a",
        "result": {"content": [{"type": "text", "text": "😀"}]},
    }
    assert b"\n" not in data


def test_notification_and_request_bytes() -> None:
    assert orjson.loads(jsonrpc.notification_bytes("notifications/tools/list_changed")) == {
        "jsonrpc": "2.0",
        "method": "notifications/tools/list_changed",
    }
    note = orjson.loads(
        jsonrpc.notification_bytes("notifications/progress", {"progressToken": 1, "progress": 1})
    )
    assert note["params"] == {"progressToken": 1, "progress": 1} and "id" not in note
    assert orjson.loads(jsonrpc.request_bytes(3, "ping")) == {
        "jsonrpc": "2.0",
        "id": 3,
        "method": "ping",
    }
    request = orjson.loads(jsonrpc.request_bytes("r", "tools/list", {"cursor": "c"}))
    assert request == {
        "jsonrpc": "2.0",
        "id": "r",
        "method": "tools/list",
        "params": {"cursor": "c"},
    }


def test_built_messages_classify_as_what_they_are() -> None:
    assert jsonrpc.classify(jsonrpc.loads(jsonrpc.request_bytes(1, "ping"))) == "request"
    assert jsonrpc.classify(jsonrpc.loads(jsonrpc.notification_bytes("n"))) == "notification"
    assert jsonrpc.classify(jsonrpc.loads(jsonrpc.result_bytes(1, {}))) == "response"
    assert (
        jsonrpc.classify(jsonrpc.loads(jsonrpc.error_bytes(None, RPCError(-32700, "e"))))
        == "response"
    )


@pytest.mark.parametrize("revision", REVISIONS)
def test_built_messages_match_the_schema(revision: str) -> None:
    """JR-01/JR-06/JR-10/JR-14: every builder emits a valid JSON-RPC message of each revision."""
    done = {"resultType": "complete"} if revision == "2026-07-28" else {}  # JR-29
    validate_definition(orjson.loads(jsonrpc.result_bytes(1, done)), "JSONRPCMessage", revision)
    validate_definition(
        orjson.loads(jsonrpc.result_bytes("x", {**done, "a": [1]})), "JSONRPCMessage", revision
    )
    validate_definition(
        orjson.loads(jsonrpc.error_bytes(2, RPCError(-32601, "Method not found: x"))),
        "JSONRPCMessage",
        revision,
    )
    validate_definition(
        orjson.loads(jsonrpc.error_bytes(2, RPCError(-32602, "Bad", {"k": 1}))),
        "JSONRPCMessage",
        revision,
    )
    validate_definition(
        orjson.loads(jsonrpc.notification_bytes("notifications/x")), "JSONRPCNotification", revision
    )
    validate_definition(
        orjson.loads(jsonrpc.notification_bytes("notifications/x", {"a": 1})),
        "JSONRPCNotification",
        revision,
    )
    validate_definition(orjson.loads(jsonrpc.request_bytes(5, "ping")), "JSONRPCRequest", revision)
    validate_definition(
        orjson.loads(jsonrpc.request_bytes("s", "tools/list", {})), "JSONRPCRequest", revision
    )
    idless = orjson.loads(jsonrpc.error_bytes(None, RPCError(-32600, "Invalid request")))
    if revision in NEW_ERROR_ENVELOPE:
        validate_definition(idless, "JSONRPCErrorResponse", revision)
    else:  # the legacy schemas require an id even where JSON-RPC has none to echo
        with pytest.raises(SpecViolation):
            validate_definition(idless, "JSONRPCError", revision)


def test_parse_error_and_invalid_request_match_the_2026_error_definitions() -> None:
    parse = orjson.loads(jsonrpc.error_bytes(None, rpc_error(jsonrpc.loads, b"{")))
    validate_definition(parse["error"], "ParseError", "2026-07-28")
    invalid = orjson.loads(jsonrpc.error_bytes(None, rpc_error(jsonrpc.classify, [])))
    validate_definition(invalid["error"], "InvalidRequestError", "2026-07-28")


def test_round_trip() -> None:
    messages: list[Any] = [
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "tools/call",
            "params": {"name": "a", "arguments": {"x": [1, 2.5, None, True]}},
        },
        {
            "jsonrpc": "2.0",
            "method": "notifications/cancelled",
            "params": {"requestId": "r", "reason": "é"},
        },
        {"jsonrpc": "2.0", "id": "r", "result": {"content": []}},
    ]
    for message in messages:
        assert jsonrpc.loads(jsonrpc.dumps(message)) == message
