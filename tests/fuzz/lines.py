"""Hypothesis strategies for the bytes a client writes: one *line* per message.

A line is a message of tests/fuzz/strategies.py serialized, a batch, valid JSON of the wrong
shape, JSON that is almost right (truncated, trailing garbage, a stray byte, a byte-order
mark, numbers JSON does not have), invalid UTF-8, random bytes, nesting from shallow to
deeper than any parser allows, a message just under or just over the size limit, or a blank
line, or a call and its cancellation. Huge payloads are built by repetition from a few drawn values, so a 64 KiB line costs
Hypothesis no more than a short one.
"""

from __future__ import annotations

import functools
from typing import Any

import orjson
from hypothesis import strategies as st

from .strategies import (
    JSON,
    TOOLS,
    client_responses,
    json_values,
    messages,
    modern_meta,
    not_objects,
    request_ids,
    right_arguments,
)


def _dumps(value: Any) -> bytes:
    return orjson.dumps(value)


@functools.cache
def well_formed(era: str) -> st.SearchStrategy[bytes]:
    return messages(era).map(_dumps)


@functools.cache
def batches(era: str) -> st.SearchStrategy[bytes]:
    return st.lists(messages(era) | client_responses() | json_values, max_size=4).map(_dumps)


@functools.cache
def wrong_shapes() -> st.SearchStrategy[bytes]:
    """Valid JSON that is not a message: numbers, strings, null, arrays, empty objects."""
    return not_objects.map(_dumps) | st.just(b"{}")


@functools.cache
@st.composite
def almost_json(draw: st.DrawFn, era: str) -> bytes:
    """A real message with one syntax error: cut short, garbage after it, a stray byte, ..."""
    data = draw(well_formed(era))
    kind = draw(st.integers(min_value=0, max_value=6))
    cut = draw(st.integers(min_value=0, max_value=len(data)))
    if kind == 0:
        return data[:cut]
    if kind == 1:
        return data + draw(st.sampled_from([b"}", b",", b" x", b"{}", b"\x00", b"]"]))
    if kind == 2:
        return data[:cut] + draw(st.binary(min_size=1, max_size=2)) + data[cut:]
    if kind == 3:
        return b"\xef\xbb\xbf" + data  # a byte-order mark
    if kind == 4:
        return data[:-1] + b",}" if data.endswith(b"}") else data + b","
    if kind == 5:
        return data.replace(b'"', b"'", draw(st.integers(min_value=1, max_value=4)))
    number = draw(
        st.sampled_from([b"NaN", b"Infinity", b"1e400", b"-0", b"0x10", b"01", b"1e-400"])
    )
    return b'{"jsonrpc":"2.0","id":' + number + b',"method":"ping"}'


@functools.cache
@st.composite
def invalid_utf8(draw: st.DrawFn, era: str) -> bytes:
    """A real message with bytes that are not UTF-8 inside a string."""
    bad = draw(
        st.sampled_from(
            [b"\xff", b"\xc0\x80", b"\xed\xa0\x80", b"\xe2\x82", b"\x80", b"\xf5\x80\x80\x80"]
        )
    )
    data = draw(well_formed(era))
    at = data.find(b'"method":"') + len(b'"method":"')
    return data[:at] + bad + data[at:] if at >= len(b'"method":"') else data + bad


@functools.cache
@st.composite
def deep(draw: st.DrawFn, era: str) -> bytes:
    """Nesting from shallow to deeper than orjson's limit of 1024, in arguments, params or alone."""
    depth = draw(
        st.integers(min_value=1, max_value=1100) | st.sampled_from([254, 255, 1023, 1024, 1025])
    )
    opener, closer = draw(st.sampled_from([(b"[", b"]"), (b'{"a":', b"}")]))
    value = opener * depth + b"1" + closer * depth
    where = draw(st.integers(min_value=0, max_value=5))
    meta = b',"_meta":' + _dumps(draw(modern_meta())) if era == "modern" else b""
    if where == 0:
        tool = draw(st.sampled_from(["mirror", "count", "add", "echo"]))
        key = {"mirror": b"value", "count": b"items", "add": b"a", "echo": b"text"}[tool]
        return (
            b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"'
            + tool.encode()
            + b'","arguments":{"'
            + key
            + b'":'
            + value
            + b"}"
            + meta
            + b"}}"
        )
    if where == 1:
        return (
            b'{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"x":' + value + meta + b"}}"
        )
    if where == 2:
        return b'{"jsonrpc":"2.0","id":' + value + b',"method":"ping"}'
    if where == 3:
        method = b"logging/setLevel" if era == "legacy" else b"tools/list"
        return (
            b'{"jsonrpc":"2.0","id":3,"method":"'
            + method
            + b'","params":{"level":'
            + value
            + b',"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",'
            + b'"io.modelcontextprotocol/clientCapabilities":{},'
            + b'"io.modelcontextprotocol/logLevel":'
            + value
            + b"}}}"
        )
    if where == 4:
        return b'{"jsonrpc":"2.0","id":4,"method":' + value + b',"params":' + value + b"}"
    return value


@functools.cache
@st.composite
def huge(draw: st.DrawFn, era: str, limit: int) -> bytes:
    """A message just under or just over ``limit`` bytes (a big string argument or junk)."""
    over = draw(st.booleans())
    size = (
        limit + draw(st.integers(min_value=1, max_value=4096))
        if over
        else draw(st.integers(min_value=limit // 2, max_value=limit - 512))
    )
    if draw(st.booleans()):
        return (draw(st.binary(min_size=1, max_size=8)) * size)[:size].replace(b"\n", b" ")
    tool, key = draw(st.sampled_from([("echo", "text"), ("mirror", "value"), ("refuse", "reason")]))
    params: JSON = {"name": tool, "arguments": {key: ""}}
    if era == "modern":
        params["_meta"] = draw(modern_meta())
    message = {
        "jsonrpc": "2.0",
        "id": draw(request_ids()),
        "method": "tools/call",
        "params": params,
    }
    shell = len(_dumps(message))
    unit = draw(st.sampled_from(["a", "€", '"', "\\"]))
    per = len(_dumps(unit)) - 2  # bytes one unit takes inside a JSON string
    params["arguments"][key] = unit * max(0, (size - shell) // per)
    return _dumps(message)


@functools.cache
@st.composite
def cancelled_calls(draw: st.DrawFn, era: str) -> bytes:
    """A call, maybe other messages, then the call's cancellation: on lines of their own, or
    all in one batch (CN-04: the call may go unanswered, the others may not)."""
    mid = draw(request_ids())
    params: JSON = {"name": draw(st.sampled_from(TOOLS))}
    params["arguments"] = draw(right_arguments(params["name"]))
    if era == "modern":
        params["_meta"] = draw(modern_meta())
    call = {"jsonrpc": "2.0", "id": mid, "method": "tools/call", "params": params}
    cancel = {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": mid}}
    sequence = [call, *draw(st.lists(messages(era), max_size=2)), cancel]
    if draw(st.booleans()):
        return _dumps(sequence)
    return b"\n".join(_dumps(message) for message in sequence)


@functools.cache
def blank() -> st.SearchStrategy[bytes]:
    return st.sampled_from([b"", b" ", b"\t", b"\r", b" \r", b"\x0b", b"\x0c"])


@functools.cache
def lines(era: str, limit: int, *, batch_weight: int = 1) -> st.SearchStrategy[bytes]:
    """One line a client might write (the harness adds the newline)."""
    return st.one_of(
        *[well_formed(era)] * 6,
        *[batches(era)] * batch_weight,
        wrong_shapes(),
        almost_json(era),
        invalid_utf8(era),
        st.binary(max_size=64),
        deep(era),
        huge(era, limit),
        blank(),
        client_responses().map(_dumps),
        cancelled_calls(era),
    )


@functools.cache
def stdio_cases(era: str, limit: int, *, batch_weight: int = 1) -> st.SearchStrategy[list[bytes]]:
    """What one fuzz case writes to a stdio server: one to four lines."""
    return st.lists(lines(era, limit, batch_weight=batch_weight), min_size=1, max_size=4)
