"""What a server must answer to whatever it is sent, decided from JSON-RPC 2.0 and MCP alone.

The oracle does not ask the server how it classified a message: it reads the bytes the
client wrote and says which answers must come back.

* A line longer than the limit: one ``-32600`` error without an id.
* A blank line: nothing. Bytes that are not JSON (orjson, the wire's parser, decides: so
  invalid UTF-8 and nesting past 1024 levels count as not JSON): one ``-32700`` error
  with ``"id": null`` (JSON-RPC 2.0 §5).
* A JSON object with ``method`` and a readable ``id`` (a string or an integer, JR-04): one
  response carrying that id, a result or an error (``-32600`` if the envelope is wrong).
  ``"params": null`` counts as no params, as toolwire chose (tests/test_jsonrpc.py).
  An unreadable id: one ``-32600`` error without an id.
* A notification (a string ``method``, no ``id``): nothing, even if malformed (JR-13).
  ``{"method": 1}`` without an id is an invalid request, answered as JSON-RPC's own
  example shows: one ``-32600`` error without an id.
* A response (``result`` xor ``error``) to a request the server never sent: nothing.
* Anything else (a number, a string, ``null``, an object that is none of the above): one
  ``-32600`` error, with the id if one can be read.
* An array (a batch): only revision 2025-03-26 has them (JR-15); there an array of the
  answers its members would get (nothing if none would; ``initialize`` inside one is an
  error), elsewhere, and for an empty array, one ``-32600`` error without an id.
* A call cancelled in the same case (``notifications/cancelled``) may go unanswered (CN-04).

And every answer is well-formed JSON-RPC: an object with ``"jsonrpc": "2.0"``, exactly one
of ``result`` (an object) and ``error`` (an integer code and a string message), and an id
that is a string or an integer when present. ``-32603`` is never right here: none of the
fuzz target's tools fails unexpectedly, so an internal error means the server tripped over
what it was sent.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import orjson

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
INTERNAL_ERROR = -32603


class _Absent:
    def __repr__(self) -> str:
        return "<no id>"


ABSENT: Any = _Absent()


def valid_id(value: Any) -> bool:
    return isinstance(value, (str, int)) and not isinstance(value, bool)


def same_id(a: Any, b: Any) -> bool:
    """Ids as JSON sees them: 1 and "1" differ, and so do 1 and true."""
    if a is ABSENT or b is ABSENT:
        return a is b
    return type(a) is type(b) and a == b


@dataclass
class Answer:
    """One response a message must get."""

    id: Any  # the id it must carry, or ABSENT
    code: int | None = None  # it must be an error with this code
    error: bool = False  # it must be an error (any code)
    optional: bool = False  # its call may have been cancelled

    def accepts(self, message: Any) -> bool:
        if not isinstance(message, dict) or not same_id(self.id, message.get("id", ABSENT)):
            return False
        if self.code is not None:
            return (
                isinstance(message.get("error"), dict) and message["error"].get("code") == self.code
            )
        return "error" in message if self.error else True


@dataclass
class BatchAnswer:
    """One array response holding the answers of a batch's members."""

    answers: list[Answer] = field(default_factory=list)


Expected = Answer | BatchAnswer


# ---------------------------------------------------------------------------- expectations


def answer_for(value: Any) -> Answer | None:
    """The answer one decoded (non-array) message must get, or None for no answer."""
    if not isinstance(value, dict):
        return Answer(ABSENT, code=INVALID_REQUEST)
    mid = value.get("id", ABSENT)
    readable = valid_id(mid)
    if "method" in value:
        if "id" not in value:
            if isinstance(value["method"], str):
                return None  # a notification, well-formed or not
            return Answer(ABSENT, code=INVALID_REQUEST)
        if not readable:
            return Answer(ABSENT, code=INVALID_REQUEST)
        params = value.get("params")
        if (
            value.get("jsonrpc") == "2.0"
            and isinstance(value["method"], str)
            and (params is None or isinstance(params, dict))
        ):
            return Answer(mid)
        return Answer(mid, code=INVALID_REQUEST)
    if value.get("jsonrpc") == "2.0" and ("result" in value) != ("error" in value):
        return None  # a response to nothing the server asked: dropped
    return Answer(mid if readable else ABSENT, code=INVALID_REQUEST)


def expected_for_value(value: Any, *, batches: bool) -> list[Expected]:
    if not isinstance(value, list):
        answer = answer_for(value)
        return [] if answer is None else [answer]
    if not value or not batches:
        return [Answer(ABSENT, code=INVALID_REQUEST)]
    inside: list[Answer] = []
    for member in value:
        answer = answer_for(member)
        if answer is not None and isinstance(member, dict) and member.get("method") == "initialize":
            answer.error = True  # initialize is never part of a batch
        if answer is not None:
            inside.append(answer)
    return [BatchAnswer(inside)] if inside else []


def decode(line: bytes) -> tuple[bool, Any]:
    try:
        return True, orjson.loads(line)
    except orjson.JSONDecodeError:
        return False, None


def expected_for_line(line: bytes, *, limit: int, batches: bool) -> list[Expected]:
    if len(line) > limit:
        return [Answer(ABSENT, code=INVALID_REQUEST)]
    if not line.strip():
        return []
    ok, value = decode(line)
    if not ok:
        return [Answer(None, code=PARSE_ERROR)]  # "id": null (JSON-RPC 2.0 §5)
    return expected_for_value(value, batches=batches)


def as_sent(value: Any) -> Any:
    """A decoded client message as toolwire reads it, for the schema checker (which would
    otherwise call every result to it a violation): an explicit ``null`` is taken as absent,
    for ``params`` (tests/test_jsonrpc.py), for a ``tools/call``'s ``arguments``
    (server/dispatch/methods.py) and for the other members of ``params`` (a ``null`` cursor), as
    toolwire chose on purpose for clients that serialize a missing value as ``null``."""
    if isinstance(value, list):
        return [as_sent(member) if isinstance(member, dict) else member for member in value]
    if not isinstance(value, dict) or "params" not in value:
        return value
    params = value["params"]
    if params is None:
        return {k: v for k, v in value.items() if k != "params"}
    if isinstance(params, dict) and None in params.values():
        return {**value, "params": {k: v for k, v in params.items() if v is not None}}
    return value


def shared_ids(values: list[Any]) -> list[Any]:
    """Ids that more than one request among ``values`` (and their batches) carries."""
    ids = [
        m["id"]
        for v in values
        for m in (v if isinstance(v, list) else [v])
        if isinstance(m, dict) and "method" in m and valid_id(m.get("id"))
    ]
    return [i for n, i in enumerate(ids) if any(same_id(i, j) for j in ids[:n])]


def cancelled_ids(values: list[Any]) -> list[Any]:
    """Request ids named by well-formed ``notifications/cancelled`` among ``values``."""
    found = []
    for value in values:
        for member in value if isinstance(value, list) else [value]:
            if (
                isinstance(member, dict)
                and member.get("jsonrpc") == "2.0"
                and member.get("method") == "notifications/cancelled"
                and "id" not in member
                and isinstance(member.get("params"), dict)
                and valid_id(member["params"].get("requestId"))
            ):
                found.append(member["params"]["requestId"])
    return found


def needs_answer(expected: list[Expected]) -> bool:
    """True if some answer must come (one that no cancellation can take away)."""
    return any(
        not a.optional
        for item in expected
        for a in (item.answers if isinstance(item, BatchAnswer) else [item])
    )


def waits_on_cancelled(expected: list[Expected]) -> bool:
    """True if a batch holds a call that may have been cancelled: the batch then answers once
    its last call has ended, which may be after the answer to a later message."""
    return any(
        isinstance(item, BatchAnswer) and any(a.optional for a in item.answers) for item in expected
    )


def mark_cancellable(expected: list[Expected], ids: list[Any]) -> None:
    for item in expected:
        for answer in item.answers if isinstance(item, BatchAnswer) else [item]:
            if any(same_id(answer.id, mid) for mid in ids) and answer.code is None:
                answer.optional = True


# ---------------------------------------------------------------------------- responses


def shape_problem(message: Any) -> str | None:
    """Why ``message`` is not a well-formed JSON-RPC response (None if it is one)."""
    if not isinstance(message, dict):
        return "a response is a JSON object"
    if message.get("jsonrpc") != "2.0":
        return '"jsonrpc" must be "2.0"'
    extra = set(message) - {"jsonrpc", "id", "result", "error"}
    if extra:
        return f"unexpected members {sorted(extra)}"
    if ("result" in message) == ("error" in message):
        return "exactly one of result and error (JR-08)"
    null_for_parse_error = (  # JSON-RPC 2.0 §5: nothing could be parsed, so no id
        message.get("id", 0) is None
        and isinstance(message.get("error"), dict)
        and message["error"].get("code") == PARSE_ERROR
    )
    if "id" in message and not valid_id(message["id"]) and not null_for_parse_error:
        return f"id {message['id']!r} is neither a string nor an integer (null: parse errors)"
    if "result" in message:
        return None if isinstance(message["result"], dict) else "a result is an object"
    error = message["error"]
    if not isinstance(error, dict) or set(error) - {"code", "message", "data"}:
        return "an error is an object of code, message and data"
    code = error.get("code")
    if not isinstance(code, int) or isinstance(code, bool):
        return "an error code is an integer"
    if not isinstance(error.get("message"), str):
        return "an error message is a string"
    if code == INTERNAL_ERROR:  # the fuzz target's tools never fail unexpectedly
        return "-32603: the server failed on input it should have refused with a clear error"
    return None


def shape_problems(message: Any) -> list[str]:
    """Shape problems of one answer line: a response, or a non-empty array of them."""
    if isinstance(message, list):
        if not message:
            return ["an empty array is never an answer"]
        return [p for m in message for p in [shape_problem(m)] if p is not None]
    problem = shape_problem(message)
    return [] if problem is None else [problem]


def _take(answers: list[Answer], got: list[Any]) -> list[str]:
    """Match single answers to responses; what is left over or missing is a problem."""
    problems = []
    left = list(got)
    # the most demanding expectations first, so a loose one cannot take a strict one's answer
    for answer in sorted(answers, key=lambda a: (a.code is None, not a.error, a.optional)):
        index = next((i for i, m in enumerate(left) if answer.accepts(m)), None)
        if index is None:
            if not answer.optional:
                problems.append(f"missing: {answer}")
            continue
        left.pop(index)
    problems.extend(f"unexpected answer: {_short(m)}" for m in left)
    return problems


def match(expected: list[Expected], got: list[Any]) -> list[str]:
    """Problems with ``got`` (the decoded answer lines of a case) against ``expected``."""
    singles = [e for e in expected if isinstance(e, Answer)]
    arrays = [m for m in got if isinstance(m, list)]
    problems = _take(singles, [m for m in got if not isinstance(m, list)])
    for batch in (e for e in expected if isinstance(e, BatchAnswer)):
        index = next((i for i, m in enumerate(arrays) if not _take(batch.answers, m)), None)
        if index is not None:
            arrays.pop(index)
        elif not all(a.optional for a in batch.answers):
            problems.append(f"no array answers the batch expecting {batch.answers}")
    problems.extend(f"unexpected array answer: {_short(m)}" for m in arrays)
    return problems


def _short(value: Any) -> str:
    text = orjson.dumps(value).decode()
    return text if len(text) < 300 else text[:300] + "..."
