"""HTTP requests a broken or hostile client might send to a Streamable HTTP endpoint, and what
the answer to each must look like.

A case is a verb, a path, headers and a body (any line of tests/fuzz/strategies.py). Headers
are mostly what a real client sends, mirrored from the body as 2026-07-28 asks (HT-29,
base64-encoded where a value is not safe ASCII, HT-32), each one sometimes missing or wrong:
``Content-Type``, ``Accept``, ``MCP-Protocol-Version``, ``Mcp-Session-Id`` (a live session,
an unknown one, or none), ``Mcp-Method``, ``Mcp-Name``, ``Origin`` and ``Last-Event-ID``.

:func:`expected_statuses` says which statuses the answer may have, from the transport rules
in the order an endpoint must apply them: the path (404), a foreign ``Origin`` (403, HT-03), an
unknown verb (405), a body that is not JSON by its ``Content-Type`` (415), too large (413), not
JSON at all (400, -32700), an ``Accept`` it cannot satisfy (406). Past those, the JSON-RPC
rules of tests/fuzz/oracle.py decide what the body must hold. Never a 5xx.
"""

from __future__ import annotations

import base64
import functools
from dataclasses import dataclass
from typing import Any

from hypothesis import strategies as st

from . import oracle
from .lines import lines
from .strategies import MODERN

LEGACY_REVISIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
VERSION_META = "io.modelcontextprotocol/protocolVersion"
BOTH = "application/json, text/event-stream"
SESSIONS = ("2025-11-25", "2025-03-26")  # the live sessions a case may name
NAMED = ("tools/call", "resources/read", "prompts/get")  # methods that carry Mcp-Name
LOOPBACK_ORIGINS = ("http://127.0.0.1", "http://localhost:3000", "http://[::1]:8080")
FOREIGN_ORIGINS = ("https://evil.example", "null", "http://127.0.0.1.evil.example")


@dataclass(frozen=True)
class HttpCase:
    verb: str
    path: str
    headers: tuple[tuple[str, str], ...]
    session: str  # a revision in SESSIONS (its live session), "unknown" or "none"
    body: bytes

    def header(self, name: str) -> str | None:
        return next((v for k, v in self.headers if k.lower() == name), None)


def header_value(value: Any) -> str | None:
    """A body value as a client mirrors it into a header (HT-32): safe ASCII as is, other
    strings base64-encoded, integers and booleans as text; None when there is nothing to send."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if not isinstance(value, str):
        return None
    if value and value.isascii() and value.isprintable() and value == value.strip():
        return value
    return "=?base64?" + base64.b64encode(value.encode("utf-8", "replace")).decode() + "?="


header_text = st.text(
    alphabet=st.characters(min_codepoint=0x21, max_codepoint=0x7E), min_size=1, max_size=24
)


def _usually(value: Any, others: st.SearchStrategy[Any], times: int = 6) -> st.SearchStrategy[Any]:
    return st.one_of(*[st.just(value)] * times, others)


@functools.cache
@st.composite
def http_cases(draw: st.DrawFn, era: str, limit: int) -> HttpCase:
    body = draw(lines(era, limit))
    ok, value = oracle.decode(body) if len(body) <= limit else (False, None)
    message = value if ok and isinstance(value, dict) else {}
    params = message.get("params") if isinstance(message.get("params"), dict) else {}
    verb = draw(_usually("POST", st.sampled_from(["GET", "DELETE", "PUT", "PATCH"]), 12))
    path = draw(_usually("/mcp", st.sampled_from(["/mcp/", "/", "/mcp/x", "/MCP"]), 12))
    headers: dict[str, str | None] = {}
    headers["Content-Type"] = draw(
        _usually(
            "application/json",
            st.sampled_from(
                ["application/json; charset=utf-8", "Application/JSON", "text/plain", "", None]
            )
            | header_text,
        )
    )
    headers["Accept"] = draw(
        _usually(
            BOTH,
            st.sampled_from(
                ["application/json", "text/event-stream", "*/*", "text/html", "application/*", None]
            )
            | header_text,
        )
    )
    claimed = MODERN if era == "modern" else draw(st.sampled_from([None, *SESSIONS]))
    headers["MCP-Protocol-Version"] = draw(
        _usually(claimed, st.sampled_from([None, *LEGACY_REVISIONS, MODERN]) | header_text, 4)
    )
    session = draw(
        _usually("none", st.sampled_from([*SESSIONS, "unknown"]))
        if era == "modern"
        else _usually("2025-11-25", st.sampled_from(["2025-03-26", "unknown", "none"]), 3)
    )
    method = message.get("method")
    headers["Mcp-Method"] = draw(_usually(header_value(method), st.none() | header_text, 4))
    if method in NAMED or draw(st.integers(min_value=0, max_value=9)) == 0:
        name = params.get("name", params.get("uri"))
        headers["Mcp-Name"] = draw(_usually(header_value(name), st.none() | header_text, 4))
    headers["Origin"] = draw(
        _usually(None, st.sampled_from([*LOOPBACK_ORIGINS, *FOREIGN_ORIGINS]), 8)
    )
    if verb == "GET":
        headers["Last-Event-ID"] = draw(_usually(None, header_text, 3))
    present = tuple((k, v) for k, v in headers.items() if v is not None)
    return HttpCase(verb, path, present, session, body)


# ---------------------------------------------------------------------------- expectations


def claims_modern(case: HttpCase, value: Any) -> bool:
    """A 2026-07-28 POST: its header or its ``_meta`` names a revision after the legacy ones."""
    if not isinstance(value, dict) or value.get("method") == "initialize":
        return False
    if case.header("mcp-protocol-version") == MODERN:
        return True
    params = value.get("params")
    meta = params.get("_meta") if isinstance(params, dict) else None
    return (
        isinstance(meta, dict)
        and VERSION_META in meta
        and meta[VERSION_META] not in LEGACY_REVISIONS
    )


def _acceptable(accept: str | None) -> bool | None:
    """True if ``Accept`` allows JSON or SSE, False if it rules both out, None if unclear."""
    if (
        not accept
        or "*/*" in accept
        or "application/json" in accept
        or "text/event-stream" in accept
    ):
        return True
    return None if "application/*" in accept or "text/*" in accept else False


@dataclass
class Expectation:
    statuses: frozenset[int]
    parse_error: bool = False  # the body must be a -32700 error with "id": null
    answers: list[oracle.Expected] | None = None  # JSON-RPC answers, when the POST gets that far


def expected(case: HttpCase, limit: int) -> Expectation:
    if (case.path.rstrip("/") or "/") != "/mcp":
        return Expectation(frozenset({404}))
    origin = case.header("origin")
    if origin is not None and origin not in LOOPBACK_ORIGINS:
        return Expectation(frozenset({403}))
    if case.verb == "GET":
        return Expectation(frozenset({200, 400, 404, 405, 406, 409}))
    if case.verb == "DELETE":
        return Expectation(frozenset({200, 400, 404, 405}))
    if case.verb != "POST":
        return Expectation(frozenset({405}))
    content_type = (case.header("content-type") or "").split(";")[0].strip().lower()
    if content_type != "application/json":
        return Expectation(frozenset({415}))
    if len(case.body) > limit:
        return Expectation(frozenset({413}))
    ok, value = oracle.decode(case.body)
    if not ok:
        return Expectation(frozenset({400}), parse_error=True)
    acceptable = _acceptable(case.header("accept"))
    if acceptable is False:
        return Expectation(frozenset({406}))
    statuses = {200, 202, 400, 404} | ({406} if acceptable is None else set())
    answers = oracle.expected_for_value(value, batches=True)
    oracle.mark_cancellable(answers, oracle.cancelled_ids([value]))
    return Expectation(frozenset(statuses), answers=answers)
