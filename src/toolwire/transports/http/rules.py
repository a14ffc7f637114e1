r"""What MCP says about an HTTP request: its era, its mirrored headers, its status codes.

No I/O: header dicts and decoded messages in, answers (or ``Rejection``\s) out.
"""

from __future__ import annotations

import base64
from collections.abc import Callable
from typing import Any

import orjson

from ... import jsonrpc
from ...errors import RPCError
from ...protocol.header_params import NAMED_METHODS
from ...protocol.revisions import (
    LEGACY_REVISIONS,
    META_PROTOCOL_VERSION,
    MODERN_REVISIONS,
    is_modern_initialize,
)
from .guard import Rejection

JSON = dict[str, Any]

# The Tasks extension (SEP-2663) asks clients to route its methods by ``Mcp-Name: taskId``,
# but unlike the core named methods it does not make a missing header an error: a request
# without one is served (clients built on the Python SDK send none); a different id is not.
NAME_MAY_BE_MISSING = frozenset({"tasks/get", "tasks/update", "tasks/cancel"})

BAD_REQUEST_CODES = {
    jsonrpc.PARSE_ERROR,
    jsonrpc.INVALID_REQUEST,
    jsonrpc.INVALID_PARAMS,
    jsonrpc.HEADER_MISMATCH,
    jsonrpc.MISSING_CLIENT_CAPABILITY,
    jsonrpc.UNSUPPORTED_PROTOCOL_VERSION,
}


def accepts(accept: str) -> tuple[bool, bool]:
    if not accept or "*/*" in accept:
        return True, True
    return "application/json" in accept, "text/event-stream" in accept


def is_modern(message: Any, headers: dict[str, str]) -> bool:
    """A 2026-07-28 POST: its header or its ``_meta`` names a revision after the legacy ones
    (an unknown one is then answered -32022, a missing ``_meta`` -32602). A stray
    ``Mcp-Session-Id`` does not make it legacy (HT-37). An ``initialize`` is legacy unless
    it is no handshake but a 2026-07-28 request (:func:`is_modern_initialize`)."""
    if not isinstance(message, dict):
        return False
    if message.get("method") == "initialize":  # legacy, but for a 2026-07-28 one (404)
        return is_modern_initialize(message.get("params"))
    if headers.get("mcp-protocol-version") in MODERN_REVISIONS:
        return True
    params = message.get("params")
    meta = params.get("_meta") if isinstance(params, dict) else None
    if not isinstance(meta, dict) or META_PROTOCOL_VERSION not in meta:
        return False
    return meta[META_PROTOCOL_VERSION] not in LEGACY_REVISIONS


def check_mirrored_headers(
    message: JSON, headers: dict[str, str], header_params: Callable[[str], dict[str, str]]
) -> None:
    """2026-07-28 headers must say what the body says (HT-29, HT-30, HT-34)."""
    params = message.get("params")
    if not isinstance(params, dict):
        params = {}
    meta = params.get("_meta")
    version = meta.get(META_PROTOCOL_VERSION) if isinstance(meta, dict) else None
    method = message.get("method")
    problems = []
    if version is not None and headers.get("mcp-protocol-version") != version:
        problems.append("MCP-Protocol-Version")  # (no version in the body: -32602 below)
    if not _same_value(headers.get("mcp-method"), method):
        problems.append("Mcp-Method")
    named_by = NAMED_METHODS.get(method) if isinstance(method, str) else None
    name = headers.get("mcp-name")
    if (
        named_by is not None
        and not (name is None and method in NAME_MAY_BE_MISSING)
        and not _same_value(name, params.get(named_by))
    ):
        problems.append("Mcp-Name")
    if message.get("method") == "tools/call" and isinstance(params.get("name"), str):
        arguments = params.get("arguments")
        if not isinstance(arguments, dict):
            arguments = {}
        for param, header in header_params(params["name"]).items():
            sent = headers.get(f"mcp-param-{header.lower()}")
            if not _same_value(sent, arguments.get(param)):
                problems.append(f"Mcp-Param-{header}")
    if problems:
        error = RPCError(
            jsonrpc.HEADER_MISMATCH,
            f"Header mismatch: {', '.join(problems)} missing or not matching the body",
        )
        # the id of a request, never of a response (HT-09: rejected, with no id)
        mid = jsonrpc.request_id(message) if "method" in message else None
        raise Rejection.rpc(400, error, mid)
    if version is None and "method" in message and "id" in message:
        # The header alone does not make a request 2026-07-28 (nor a legacy one: it has no
        # session), so it is not served, not even a ping: its _meta must name the revision.
        error = RPCError(
            jsonrpc.INVALID_PARAMS,
            f"Invalid params: _meta[{META_PROTOCOL_VERSION!r}] is required",
        )
        raise Rejection.rpc(400, error, jsonrpc.request_id(message))


def _same_value(header: str | None, value: Any) -> bool:
    """A mirrored header against its argument: absent for null/absent, else the same value
    (base64 ``=?base64?...?=`` decoded, integers compared as numbers, booleans as true/false)."""
    if value is None:
        return header is None
    if header is None:
        return False
    if header.startswith("=?base64?") and header.endswith("?="):
        try:
            # strict: a character outside the alphabet or bad padding is a mismatch (HT-34)
            header = base64.b64decode(header[9:-2], validate=True).decode()
        except (ValueError, UnicodeDecodeError):
            return False
    if isinstance(value, bool):
        return header == ("true" if value else "false")
    if isinstance(value, int):
        try:
            return int(header) == value
        except ValueError:
            return False
    return header == str(value)


def kind_of(message: Any) -> str:
    """A request is answered on its own stream, keyed by its id: so only with an id that can
    be one (anything else is answered as an invalid message)."""
    if isinstance(message, list):
        return "batch"
    if (
        isinstance(message, dict)
        and "method" in message
        and jsonrpc.request_id(message) is not None
    ):
        return "request"
    return "other"


def status_of(data: bytes, *, legacy: bool = False) -> int:
    """The HTTP status of an answer. ``legacy``: to a request a legacy session accepted,
    200 whatever the JSON-RPC error (as the official SDKs answer), but 429 for a caller over
    its bound; else the statuses 2026-07-28 prescribes (-32601 404, bad requests 400)."""
    if b'"error"' not in data[:64] and b'"error":' not in data:
        return 200
    error = orjson.loads(data).get("error")
    if not isinstance(error, dict):
        return 200
    code = error.get("code")
    if code == jsonrpc.SERVER_BUSY:
        return 429
    if legacy:
        return 200
    if code == jsonrpc.METHOD_NOT_FOUND:
        return 404
    return 400 if code in BAD_REQUEST_CODES else 200
