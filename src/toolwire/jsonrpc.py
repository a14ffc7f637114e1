"""JSON-RPC 2.0 codec for MCP: bytes in, dicts out, and back. No I/O.

Messages stay plain dicts on the hot path; only their envelope is checked here.
Encoding is compact, single-line UTF-8 (orjson never emits a raw newline), so one
message is one line on stdio whatever the locale.

Encoding never raises. orjson encodes almost every message; only when it refuses one does
a slower path clean a copy (see :func:`dumps`): a lone surrogate (what Python makes of a
file name that is not UTF-8, ``os.listdir()`` gives ``'caf\\udce9.txt'``) becomes U+FFFD
(``'caf\ufffd.txt'``), an integer past 64 bits is written as it is, anything else that is
not JSON is *lossy*. A response whose result is lossy is answered with an internal error
instead (:func:`result_bytes`); a notification or request is sent with the lossy parts
replaced by their ``str()``. So every request gets exactly one answer, whatever a handler
returns.
"""

from __future__ import annotations

import json
import logging
import math
from collections.abc import Callable
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
# toolwire's own, outside the ranges JSON-RPC and MCP reserve (JR-31): a bound on what one
# client may hold (calls waiting, streams, sessions) was reached; retry later (HTTP 429/503).
SERVER_BUSY = -31429

Kind = Literal["request", "notification", "response"]

_loads = orjson.loads
_dumps = orjson.dumps
_EncodeError = orjson.JSONEncodeError

logger = logging.getLogger("toolwire")

MAX_DEPTH = 200  # nesting kept by the cleaning path; deeper parts are lossy


def loads(data: bytes | bytearray | memoryview | str) -> Any:
    """Decode one JSON text; malformed JSON raises ``RPCError(PARSE_ERROR)``."""
    try:
        return _loads(data)
    except orjson.JSONDecodeError:
        raise RPCError(PARSE_ERROR, "Parse error: the message is not valid JSON") from None


def dumps(message: Any, default: Callable[[Any], Any] | None = None) -> bytes:
    """Encode ``message`` as compact UTF-8 JSON without a trailing newline; never raises.

    ``default`` converts objects JSON has no type for (as orjson's ``default``). What cannot
    be encoded is cleaned (see the module's docstring); lossy changes are logged.
    """
    try:
        return _dumps(message, default)
    except _EncodeError:
        data, lossy = encode_clean(message, default)
        if lossy:
            logger.warning("An outgoing message held data JSON cannot carry: %s", lossy)
        return data


def encode_clean(message: Any, default: Callable[[Any], Any] | None = None) -> tuple[bytes, str]:
    """The slow path: ``message`` cleaned and encoded, and what was lost ('' if nothing).

    Lone surrogates become U+FFFD (not a loss: the text could not be sent otherwise) and
    integers past 64 bits are written by the standard library; a non-finite float becomes
    ``null`` as orjson writes it. Objects JSON has no type for (after ``default``), non-string
    keys, cycles and nesting past ``MAX_DEPTH`` are lossy: replaced by their ``str()``.
    """
    lost: list[str] = []
    clean = _clean(message, default, 0, set(), lost)
    try:
        data = _dumps(clean)
    except _EncodeError:  # an integer orjson cannot write, or orjson's own depth limit
        data = json.dumps(clean, ensure_ascii=False, separators=(",", ":")).encode()
    return data, "; ".join(dict.fromkeys(lost))


def _text(value: str) -> str:
    try:
        value.encode()
    except UnicodeEncodeError:  # surrogates: a pair is joined, a lone one becomes U+FFFD
        return value.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    return value


def _clean(
    value: Any,
    default: Callable[[Any], Any] | None,
    depth: int,
    path: set[int],
    lost: list[str],
) -> Any:
    kind = type(value)
    if kind is str:
        return _text(value)
    if value is None or kind is bool:
        return value
    if kind is int:
        if -(2**63) <= value < 2**64:
            return value
        try:  # past 64 bits the standard library writes it, up to Python's digit limit
            str(value)
        except ValueError:
            lost.append("an integer too long to write")
            return f"<int of {value.bit_length()} bits>"
        return value
    if kind is float:
        return value if math.isfinite(value) else None
    if depth >= MAX_DEPTH:
        lost.append(f"nesting deeper than {MAX_DEPTH}")
        return _text(str(type(value).__name__))
    if isinstance(value, (dict, list, tuple)):
        if id(value) in path:
            lost.append("a container that holds itself")
            return "<cycle>"
        path.add(id(value))
        try:
            if isinstance(value, dict):
                cleaned: dict[str, Any] = {}
                for key, item in value.items():
                    if not isinstance(key, str):
                        lost.append(f"a {type(key).__name__} key")
                        key = str(key)
                    cleaned[_text(key)] = _clean(item, default, depth + 1, path, lost)
                return cleaned
            return [_clean(item, default, depth + 1, path, lost) for item in value]
        finally:
            path.discard(id(value))
    if isinstance(value, str):  # a str subclass
        return _text(str.__str__(value))
    if isinstance(value, (int, float)):  # subclasses (bool and IntEnum included)
        return _clean(int(value) if isinstance(value, int) else float(value), None, 0, path, lost)
    try:  # a type orjson knows (dataclass, datetime, UUID, enum ...), or default's answer
        return _loads(_dumps(value, default))
    except _EncodeError:
        pass
    if default is not None:
        try:
            converted = default(value)
        except Exception:
            pass
        else:
            if converted is not value:
                return _clean(converted, None, depth + 1, path, lost)
    lost.append(f"a {type(value).__name__} object")
    try:
        return _text(str(value))
    except Exception:
        return f"<{type(value).__name__}>"


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
    """A result response; never raises. A result that cannot be encoded without loss is
    answered with an internal error (the details go to the server log)."""
    message = {"jsonrpc": "2.0", "id": mid, "result": result}
    try:
        return _dumps(message)
    except _EncodeError:
        data, lossy = encode_clean(message)
    if not lossy:
        return data
    logger.error("A result for request %r cannot be sent as JSON: %s", mid, lossy)
    return error_bytes(
        mid, RPCError(INTERNAL_ERROR, "Internal error: the result cannot be encoded as JSON")
    )


def result_fragment_bytes(mid: str | int, fragment: bytes) -> bytes:
    """A result response around a result serialized beforehand (a cached list page)."""
    return b'{"jsonrpc":"2.0","id":' + dumps(mid) + b',"result":' + fragment + b"}"


def error_bytes(mid: str | int | None, error: RPCError) -> bytes:
    """An error response; without the request's id, ``"id": null`` for a parse error (as
    JSON-RPC 2.0 requires: the message could not be read at all), else the id left out
    (JR-09). Never raises (an error's message may quote anything)."""
    if mid is None:
        if error.code == PARSE_ERROR:
            return dumps({"jsonrpc": "2.0", "id": None, "error": error.to_error()})
        return dumps({"jsonrpc": "2.0", "error": error.to_error()})
    return dumps({"jsonrpc": "2.0", "id": mid, "error": error.to_error()})


def notification_bytes(method: str, params: dict[str, Any] | None = None) -> bytes:
    """A notification; never raises."""
    if params is None:
        return dumps({"jsonrpc": "2.0", "method": method})
    return dumps({"jsonrpc": "2.0", "method": method, "params": params})


def request_bytes(mid: str | int, method: str, params: dict[str, Any] | None = None) -> bytes:
    """A request (server to client, or client to server); never raises."""
    if params is None:
        return dumps({"jsonrpc": "2.0", "id": mid, "method": method})
    return dumps({"jsonrpc": "2.0", "id": mid, "method": method, "params": params})
