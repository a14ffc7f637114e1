"""JSON-RPC 2.0 codec for MCP: bytes in, dicts out, and back. No I/O.

Messages stay plain dicts on the hot path; only their envelope is checked here.
Encoding is compact, single-line UTF-8 (orjson never emits a raw newline), so one
message is one line on stdio whatever the locale.
"""

from __future__ import annotations

from typing import Any, Literal

import orjson

from .errors import RPCError

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603
# MCP's own codes (2026-07-28 reserves -32020..-32099).
RESOURCE_NOT_FOUND_LEGACY = -32002
HEADER_MISMATCH = -32020
MISSING_CLIENT_CAPABILITY = -32021
UNSUPPORTED_PROTOCOL_VERSION = -32022
TOO_MANY_CALLS = -31429  # a caller's queue of waiting tool calls is full (toolwire; 429-like)

Kind = Literal["request", "notification", "response"]

_loads = orjson.loads
_dumps = orjson.dumps


def loads(data: bytes | bytearray | memoryview | str) -> Any:
    """Decode one JSON text; malformed JSON raises ``RPCError(PARSE_ERROR)``."""
    try:
        return _loads(data)
    except orjson.JSONDecodeError:
        raise RPCError(PARSE_ERROR, "Parse error: the message is not valid JSON") from None


def dumps(message: Any) -> bytes:
    """Encode one message as compact UTF-8 JSON without a trailing newline."""
    return _dumps(message)


def _valid_id(value: Any) -> bool:
    return (isinstance(value, (str, int))) and not isinstance(value, bool)


def classify(message: Any) -> Kind:
    """Tell what a decoded message is, or raise ``RPCError(INVALID_REQUEST)``.

    MCP is stricter than JSON-RPC: ids are strings or integers, never ``null``.
    Batches are rejected here; the one revision that allowed them (2025-03-26)
    unpacks them before calling this.
    """
    if not isinstance(message, dict):
        raise RPCError(INVALID_REQUEST, "Invalid request: a message must be a JSON object")
    if message.get("jsonrpc") != "2.0":
        raise RPCError(INVALID_REQUEST, 'Invalid request: "jsonrpc" must be "2.0"')
    method = message.get("method")
    if method is not None:
        if not isinstance(method, str):
            raise RPCError(INVALID_REQUEST, 'Invalid request: "method" must be a string')
        params = message.get("params")
        if params is not None and not isinstance(params, dict):
            raise RPCError(INVALID_REQUEST, 'Invalid request: "params" must be an object')
        if "id" not in message:
            return "notification"
        if not _valid_id(message["id"]):
            raise RPCError(INVALID_REQUEST, 'Invalid request: "id" must be a string or an integer')
        return "request"
    if "result" in message or "error" in message:
        if ("result" in message) == ("error" in message):
            raise RPCError(INVALID_REQUEST, "Invalid response: exactly one of result and error")
        return "response"
    raise RPCError(INVALID_REQUEST, 'Invalid request: "method" is missing')


def request_id(message: Any) -> str | int | None:
    """The id of a message if it can be read, for answering an invalid one."""
    if isinstance(message, dict):
        mid = message.get("id")
        if _valid_id(mid):
            return mid
    return None


def result_bytes(mid: str | int, result: Any) -> bytes:
    return _dumps({"jsonrpc": "2.0", "id": mid, "result": result})


def error_bytes(mid: str | int | None, error: RPCError) -> bytes:
    """An error response; the id is left out when the request's id could not be read."""
    if mid is None:
        return _dumps({"jsonrpc": "2.0", "error": error.to_error()})
    return _dumps({"jsonrpc": "2.0", "id": mid, "error": error.to_error()})


def notification_bytes(method: str, params: dict[str, Any] | None = None) -> bytes:
    if params is None:
        return _dumps({"jsonrpc": "2.0", "method": method})
    return _dumps({"jsonrpc": "2.0", "method": method, "params": params})


def request_bytes(mid: str | int, method: str, params: dict[str, Any] | None = None) -> bytes:
    if params is None:
        return _dumps({"jsonrpc": "2.0", "id": mid, "method": method})
    return _dumps({"jsonrpc": "2.0", "id": mid, "method": method, "params": params})
