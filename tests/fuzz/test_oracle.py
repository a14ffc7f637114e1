"""The fuzz oracle itself (no I/O): what it expects for hand-written messages, and that it
notices a missing, an extra or a wrong answer. A fuzz test is only as good as its oracle."""

from __future__ import annotations

from typing import Any

import orjson
import pytest

from . import oracle
from .oracle import ABSENT, Answer, BatchAnswer

LIMIT = 4096


def expect(line: bytes, batches: bool = False) -> list[Any]:
    return oracle.expected_for_line(line, limit=LIMIT, batches=batches)


@pytest.mark.parametrize(
    ("line", "wanted"),
    [
        (b'{"jsonrpc":"2.0","id":1,"method":"ping"}', [Answer(1)]),
        (b'{"jsonrpc":"2.0","id":"a","method":"x","params":null}', [Answer("a")]),
        (b'{"jsonrpc":"2.0","method":"notifications/initialized"}', []),
        (b'{"jsonrpc":"1.0","method":"notifications/x","params":5}', []),  # JR-13
        (b'{"jsonrpc":"2.0","method":1}', [Answer(ABSENT, code=-32600)]),
        (b'{"jsonrpc":"2.0","id":null,"method":"ping"}', [Answer(ABSENT, code=-32600)]),
        (b'{"jsonrpc":"2.0","id":1.5,"method":"ping"}', [Answer(ABSENT, code=-32600)]),
        (b'{"jsonrpc":"1.0","id":7,"method":"ping"}', [Answer(7, code=-32600)]),
        (b'{"jsonrpc":"2.0","id":7,"method":"ping","params":[1]}', [Answer(7, code=-32600)]),
        (b'{"jsonrpc":"2.0","id":3,"result":{}}', []),
        (b'{"jsonrpc":"2.0","id":3,"result":{},"error":{}}', [Answer(3, code=-32600)]),
        (b'{"jsonrpc":"2.0","id":3}', [Answer(3, code=-32600)]),
        (b"42", [Answer(ABSENT, code=-32600)]),
        (b"[]", [Answer(ABSENT, code=-32600)]),
        (b'[{"jsonrpc":"2.0","id":1,"method":"ping"}]', [Answer(ABSENT, code=-32600)]),
        (b'{"jsonrpc":"2.0","id":1,', [Answer(None, code=-32700)]),
        (b'{"jsonrpc":"2.0","id":1,"method":"\xff"}', [Answer(None, code=-32700)]),
        (b"[" * 1025 + b"]" * 1025, [Answer(None, code=-32700)]),
        (b" \t\r", []),
        (b'"' + b"x" * LIMIT + b'"', [Answer(ABSENT, code=-32600)]),
    ],
)
def test_expected_answers(line: bytes, wanted: list[Any]) -> None:
    assert expect(line) == wanted


def test_batches_where_a_revision_has_them() -> None:
    batch = [
        {"jsonrpc": "2.0", "id": 1, "method": "ping"},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "initialize"},
        7,
    ]
    assert expect(orjson.dumps(batch), batches=True) == [
        BatchAnswer([Answer(1), Answer(2, error=True), Answer(ABSENT, code=-32600)])
    ]
    only_notes = [{"jsonrpc": "2.0", "method": "notifications/initialized"}]
    assert expect(orjson.dumps(only_notes), batches=True) == []


def test_match_notices_missing_extra_and_wrong_answers() -> None:
    ping = expect(b'{"jsonrpc":"2.0","id":1,"method":"ping"}')
    result = {"jsonrpc": "2.0", "id": 1, "result": {}}
    assert oracle.match(ping, [result]) == []
    assert oracle.match(ping, []) != []  # missing
    assert oracle.match(ping, [result, result]) != []  # one too many
    assert oracle.match(ping, [{**result, "id": "1"}]) != []  # "1" is not 1
    note = expect(b'{"jsonrpc":"2.0","method":"notifications/initialized"}')
    assert oracle.match(note, [result]) != []  # a notification got an answer (JR-13)
    garbage = expect(b"{")
    parse_error = {"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "Parse"}}
    assert oracle.match(garbage, [parse_error]) == []  # "id": null (JSON-RPC 2.0 §5)
    assert oracle.match(garbage, [{**parse_error, "id": 0}]) != []  # no id to echo
    idless = {"jsonrpc": "2.0", "error": parse_error["error"]}
    assert oracle.match(garbage, [idless]) != []
    other_code = {"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": "x"}}
    assert oracle.match(garbage, [other_code]) != []


def test_a_cancelled_call_may_go_unanswered() -> None:
    lines = [
        b'{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"add"}}',
        b'{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":5}}',
    ]
    expected = [e for line in lines for e in expect(line)]
    oracle.mark_cancellable(expected, oracle.cancelled_ids([orjson.loads(x) for x in lines]))
    assert oracle.match(expected, []) == []
    assert oracle.match(expected, [{"jsonrpc": "2.0", "id": 5, "result": {}}]) == []


@pytest.mark.parametrize(
    "answer",
    [
        [],
        {"jsonrpc": "2.0", "id": 1},
        {"jsonrpc": "2.0", "id": None, "result": {}},
        {"jsonrpc": "2.0", "id": 1, "result": 5},
        {"jsonrpc": "2.0", "id": 1, "error": {"code": "1", "message": "m"}},
        {"jsonrpc": "2.0", "id": 1, "error": {"code": 1}},
        {"jsonrpc": "2.0", "id": 1, "error": {"code": -32603, "message": "Internal error"}},
        {"jsonrpc": "1.0", "id": 1, "result": {}},
        {"jsonrpc": "2.0", "id": 1, "result": {}, "extra": 1},
    ],
)
def test_malformed_answers_are_named(answer: Any) -> None:
    assert oracle.shape_problems(answer)
