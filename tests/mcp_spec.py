"""Validate MCP messages against the official JSON Schema of each protocol revision.

The schemas travel with the repository as test data: ``tests/spec/<revision>/schema.json``
and the 2026-07-28 example messages in ``tests/spec/2026-07-28/examples`` (where they come
from: ``tests/spec/SOURCE.md``). The ``TOOLWIRE_SPEC_DIR`` environment variable names another
folder of the same layout.

Definition names a tools server deals with, per revision
--------------------------------------------------------
(L = 2024-11-05, 2025-03-26, 2025-06-18; N = 2025-11-25; M = 2026-07-28)

* Dialect: L are draft-07 (``definitions``); N and M are 2020-12 (``$defs``).
* Error response: ``JSONRPCError`` (L, ``id`` required, error object inline) ->
  ``JSONRPCErrorResponse`` (N, M, ``id`` optional, never ``null``; error object = ``Error``).
  The checker takes JSON-RPC's ``"id": null`` on a parse error (-32700) as the id-less form.
  M adds per-code definitions: ``ParseError``, ``InvalidRequestError``, ``MethodNotFoundError``,
  ``InvalidParamsError``, ``InternalError`` (shape of the ``error`` member) and
  ``HeaderMismatchError`` (-32020), ``MissingRequiredClientCapabilityError`` (-32021),
  ``UnsupportedProtocolVersionError`` (-32022) (shape of the whole response). N has
  ``URLElicitationRequiredError`` (-32042, whole response).
* Success response: ``JSONRPCResponse`` (L) -> ``JSONRPCResultResponse`` (N, M); in N and M
  ``JSONRPCResponse`` is the union of result and error responses. M adds one
  ``<Stem>ResultResponse`` per client request (``CallToolResultResponse``, ...).
* Requests: in L a request definition (``CallToolRequest``) is only ``{method, params}``; the
  envelope is ``JSONRPCRequest``. In N and M it is the whole message (``jsonrpc``, ``id``) and the
  params have their own ``<Stem>RequestParams`` definition.
* Handshake and liveness: ``InitializeRequest``/``InitializeResult``/``InitializedNotification``,
  ``PingRequest``, ``SetLevelRequest`` (L, N) -> gone in M, replaced by ``DiscoverRequest``/
  ``DiscoverResult`` and the per-request ``RequestMetaObject`` (``_meta`` with
  ``io.modelcontextprotocol/protocolVersion`` and ``.../clientCapabilities`` required).
* Tools: ``Tool``, ``ListToolsRequest``/``ListToolsResult``, ``CallToolRequest``/``CallToolResult``,
  ``ToolListChangedNotification`` in every revision; ``ToolAnnotations`` since 2025-03-26;
  content items inline (2024-11-05: text|image|resource; 2025-03-26 adds audio) ->
  ``ContentBlock`` (2025-06-18+, adds ``ResourceLink``); ``Annotated`` (2024-11-05) ->
  ``Annotations``; ``ToolExecution``/``CreateTaskResult`` (N only); ``InputRequiredResult``,
  ``CacheableResult`` (M only).
* Notifications: ``ProgressNotification``, ``CancelledNotification``,
  ``LoggingMessageNotification`` everywhere; M adds ``SubscriptionsAcknowledgedNotification``
  and drops ``InitializedNotification`` and ``RootsListChangedNotification``.
"""

from __future__ import annotations

import base64
import binascii
import functools
import json
import os
import re
from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn

import orjson
from jsonschema import FormatChecker
from jsonschema.exceptions import ValidationError, best_match
from jsonschema.protocols import Validator
from jsonschema.validators import validator_for
from referencing import Registry, Resource

__all__ = [
    "BUNDLED_SPEC_DIR",
    "LATEST",
    "REVISIONS",
    "SPEC_DIR",
    "MethodTables",
    "SpecViolation",
    "WireChecker",
    "definitions",
    "examples",
    "load_schema",
    "spec_available",
    "tables",
    "validate_definition",
]

REVISIONS: tuple[str, ...] = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28")
LATEST: str = "2026-07-28"

BUNDLED_SPEC_DIR: Path = Path(__file__).resolve().parent / "spec"
SPEC_DIR: Path = Path(os.environ.get("TOOLWIRE_SPEC_DIR") or BUNDLED_SPEC_DIR)

PROTOCOL_VERSION_META = "io.modelcontextprotocol/protocolVersion"

_BASE_URI = "urn:toolwire-mcp-spec:"
_EXCERPT = 600

# Methods whose result has no definition of its own (the naming rule <Stem>Request ->
# <Stem>Result covers every other method of every revision).
_EMPTY_RESULT_METHODS = frozenset(
    {"ping", "logging/setLevel", "resources/subscribe", "resources/unsubscribe"}
)
# Direction unions in the schemas: not message types of their own.
_UNION_NAMES = frozenset(
    {"ClientRequest", "ServerRequest", "ClientNotification", "ServerNotification"}
)
# 2026-07-28 (basic/index.mdx): do not emit these retired codes any more.
_RETIRED_MODERN_CODES = frozenset({-32002, -32042})
# Legacy schemas require an error response `id`; JSON-RPC has no id to echo for these.
_UNREADABLE_REQUEST_CODES = frozenset({-32700, -32600})
_PARSE_ERROR = -32700


class SpecViolation(AssertionError):
    """A message that does not conform to the MCP schema of the revision in use."""

    def __init__(
        self,
        reason: str,
        *,
        revision: str | None = None,
        definition: str | None = None,
        path: str = "$",
        message: Any = None,
    ) -> None:
        self.reason = reason
        self.revision = revision
        self.definition = definition
        self.path = path
        self.offending = message
        text = (
            f"MCP {revision or '(revision unknown)'}: {definition or 'message'} at {path}: {reason}"
        )
        if message is not None:
            text += f"\n  offending message: {_excerpt(message)}"
        super().__init__(text)


def _excerpt(message: Any) -> str:
    if isinstance(message, bytes):
        text = message.decode("utf-8", "backslashreplace")
    elif isinstance(message, str):
        text = message
    else:
        try:
            text = json.dumps(message, ensure_ascii=False, default=repr, separators=(",", ":"))
        except (TypeError, ValueError):
            text = repr(message)
    return text if len(text) <= _EXCERPT else text[:_EXCERPT] + f"... ({len(text)} chars)"


# ---------------------------------------------------------------------------- schemas


def spec_available() -> bool:
    """True if every revision's schema.json is present."""
    return all((SPEC_DIR / rev / "schema.json").is_file() for rev in REVISIONS)


@functools.lru_cache(maxsize=8)
def load_schema(revision: str) -> dict[str, Any]:
    """The parsed schema.json of `revision`."""
    if revision not in REVISIONS:
        raise ValueError(f"unknown MCP revision {revision!r}; known: {', '.join(REVISIONS)}")
    path = SPEC_DIR / revision / "schema.json"
    if not path.is_file():
        raise FileNotFoundError(
            f"{path} not found (TOOLWIRE_SPEC_DIR={os.environ.get('TOOLWIRE_SPEC_DIR')!r}; "
            "unset it to use the schemas in tests/spec)"
        )
    schema: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return schema


def _defs_key(revision: str) -> str:
    return "$defs" if "$defs" in load_schema(revision) else "definitions"


def _defs(revision: str) -> dict[str, Any]:
    defs: dict[str, Any] = load_schema(revision)[_defs_key(revision)]
    return defs


def definitions(revision: str) -> frozenset[str]:
    """Names of all definitions of `revision`."""
    return frozenset(_defs(revision))


# Formats used by the schemas: "uri", "uri-template", "byte". jsonschema's own "uri" checker
# depends on optional packages, so these are checked here, the same way everywhere.
_FORMATS = FormatChecker(formats=())
_URI = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*:[^\s]*\Z")


@_FORMATS.checks("uri")
def _is_uri(value: object) -> bool:
    return not isinstance(value, str) or _URI.match(value) is not None


@_FORMATS.checks("byte", raises=(binascii.Error, ValueError))
def _is_base64(value: object) -> bool:
    if isinstance(value, str):
        base64.b64decode(value, validate=True)
    return True


@functools.lru_cache(maxsize=8)
def _registry(revision: str) -> Registry[Any]:
    root = load_schema(revision)
    return Registry().with_resource(_BASE_URI + revision, Resource.from_contents(root))


@functools.lru_cache(maxsize=1024)
def _validator(revision: str, definition: str) -> Validator:
    if definition not in _defs(revision):
        raise ValueError(f"{definition!r} is not defined in the {revision} schema")
    root = load_schema(revision)
    cls = validator_for(root)  # draft-07 or 2020-12, from the file's own $schema
    ref = {"$ref": f"{_BASE_URI}{revision}#/{_defs_key(revision)}/{definition}"}
    validator: Validator = cls(ref, registry=_registry(revision), format_checker=_FORMATS)
    return validator


def _shorten(text: str, limit: int = 300) -> str:
    return text if len(text) <= limit else text[:limit] + "..."


def _join_path(prefix: str, error: ValidationError) -> str:
    return prefix + error.json_path[1:]


def _check(
    instance: Any,
    definition: str,
    revision: str,
    *,
    path: str = "$",
    message: Any = None,
) -> None:
    errors = list(_validator(revision, definition).iter_errors(instance))
    if not errors:
        return
    error = best_match(errors)
    others = [e for e in errors if e is not error]
    reason = _shorten(error.message)
    if others:
        reason += "; also: " + "; ".join(
            f"{_join_path(path, e)}: {_shorten(e.message)}" for e in others[:3]
        )
        if len(others) > 3:
            reason += f" (+{len(others) - 3} more)"
    raise SpecViolation(
        reason,
        revision=revision,
        definition=definition,
        path=_join_path(path, error),
        message=instance if message is None else message,
    )


def validate_definition(instance: Any, definition: str, revision: str) -> None:
    """Validate `instance` against the named definition of `revision`; raise SpecViolation."""
    _check(instance, definition, revision)


# ---------------------------------------------------------------------------- method tables


@dataclass(frozen=True)
class MethodTables:
    """What the schema of one revision says about methods, derived from the schema itself."""

    revision: str
    requests: dict[str, str]  # method -> request definition
    notifications: dict[str, str]  # method -> notification definition
    results: dict[str, str]  # request method -> result definition
    client_requests: frozenset[str]
    server_requests: frozenset[str]
    client_notifications: frozenset[str]
    server_notifications: frozenset[str]
    input_required_methods: frozenset[str]  # may answer with InputRequiredResult (2026)
    error_codes: dict[int, tuple[str, bool]]  # code -> (definition, covers the whole response)
    result_envelope: str
    error_envelope: str
    error_id_required: bool
    modern: bool  # stateless revision: no initialize, resultType on every result
    batches: bool


def _const_method(schema: dict[str, Any]) -> str | None:
    method = schema.get("properties", {}).get("method", {})
    const = method.get("const") if isinstance(method, dict) else None
    return const if isinstance(const, str) else None


def _ref_name(ref: str) -> str:
    return ref.rsplit("/", 1)[-1]


def _union_methods(defs: dict[str, Any], union: str) -> frozenset[str]:
    schema = defs.get(union)
    if schema is None:
        return frozenset()
    members = schema.get("anyOf")
    if members is None:  # a one-member union is inlined (2026-07-28 ClientNotification)
        const = _const_method(schema)
        return frozenset({const} if const else ())
    out = set()
    for member in members:
        const = _const_method(defs[_ref_name(member["$ref"])])
        if const:
            out.add(const)
    return frozenset(out)


def _error_code(schema: dict[str, Any]) -> tuple[int, bool] | None:
    props = schema.get("properties", {})
    code = props.get("code", {}).get("const")
    if isinstance(code, int):
        return code, False
    for part in props.get("error", {}).get("allOf", []):
        code = part.get("properties", {}).get("code", {}).get("const")
        if isinstance(code, int):
            return code, True
    return None


@functools.lru_cache(maxsize=8)
def tables(revision: str) -> MethodTables:
    """Method -> definition tables of `revision`, derived from `properties.method.const`."""
    defs = _defs(revision)
    requests: dict[str, str] = {}
    notifications: dict[str, str] = {}
    for name, schema in defs.items():
        method = _const_method(schema)
        if method is None or name in _UNION_NAMES:
            continue
        if name.endswith("Request"):
            table = requests
        elif name.endswith("Notification"):
            table = notifications
        else:
            continue
        if method in table:
            raise RuntimeError(f"{revision}: {method} defined by {table[method]} and {name}")
        table[method] = name

    results: dict[str, str] = {}
    input_required: set[str] = set()
    for method, name in requests.items():
        stem = name.removesuffix("Request")
        if f"{stem}Result" in defs:
            results[method] = f"{stem}Result"
        elif method in _EMPTY_RESULT_METHODS:
            results[method] = "EmptyResult"
        response = defs.get(f"{stem}ResultResponse")
        if response is not None:
            options = response["properties"]["result"].get("anyOf", [])
            if any(_ref_name(o.get("$ref", "")) == "InputRequiredResult" for o in options):
                input_required.add(method)

    error_codes: dict[int, tuple[str, bool]] = {}
    for name, schema in defs.items():
        if name.endswith("Error") and (found := _error_code(schema)) is not None:
            error_codes[found[0]] = (name, found[1])

    result_envelope = (
        "JSONRPCResultResponse" if "JSONRPCResultResponse" in defs else "JSONRPCResponse"
    )
    error_envelope = "JSONRPCErrorResponse" if "JSONRPCErrorResponse" in defs else "JSONRPCError"
    return MethodTables(
        revision=revision,
        requests=requests,
        notifications=notifications,
        results=results,
        client_requests=_union_methods(defs, "ClientRequest"),
        server_requests=_union_methods(defs, "ServerRequest"),
        client_notifications=_union_methods(defs, "ClientNotification"),
        server_notifications=_union_methods(defs, "ServerNotification"),
        input_required_methods=frozenset(input_required),
        error_codes=error_codes,
        result_envelope=result_envelope,
        error_envelope=error_envelope,
        error_id_required="id" in defs[error_envelope].get("required", []),
        modern="initialize" not in requests,
        batches="JSONRPCBatchRequest" in defs,
    )


# ---------------------------------------------------------------------------- examples


def examples(type_name: str | None = None) -> list[tuple[str, Path, Any]]:
    """The spec's example messages (LATEST/examples/<TypeName>/*.json) as (type, path, JSON)."""
    root = SPEC_DIR / LATEST / "examples"
    out: list[tuple[str, Path, Any]] = []
    if not root.is_dir():
        return out
    for folder in sorted(p for p in root.iterdir() if p.is_dir()):
        if type_name is not None and folder.name != type_name:
            continue
        for path in sorted(folder.glob("*.json")):
            out.append((folder.name, path, json.loads(path.read_text(encoding="utf-8"))))
    return out


# ---------------------------------------------------------------------------- framing

# A JSON string literal (unrolled loop: fast on long strings).
_JSON_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
_WHITESPACE = re.compile(r"\s")


def _decode(message: Any) -> Any:
    """Parse one wire message; bytes/str must be one compact line of UTF-8 JSON."""
    if isinstance(message, (dict, list)):
        return message
    if isinstance(message, (bytes, bytearray, memoryview)):
        raw = bytes(message)
        body = raw[:-1] if raw.endswith(b"\n") else raw
        if b"\n" in body or b"\r" in body:
            raise SpecViolation(
                "embedded newline: a stdio message is one line (SI-02)", message=raw
            )
        try:
            text = body.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise SpecViolation(f"not UTF-8 (SI-01): {exc}", message=raw) from None
    elif isinstance(message, str):
        text = message[:-1] if message.endswith("\n") else message
        if "\n" in text or "\r" in text:
            raise SpecViolation(
                "embedded newline: a stdio message is one line (SI-02)", message=message
            )
        try:
            text.encode("utf-8")
        except UnicodeEncodeError as exc:
            raise SpecViolation(f"not encodable as UTF-8 (SI-01): {exc}", message=message) from None
    else:
        raise TypeError(f"expected dict, bytes or str, got {type(message).__name__}")
    if text.startswith("\ufeff"):
        raise SpecViolation("message starts with a byte-order mark", message=text)
    if _WHITESPACE.search(_JSON_STRING.sub('""', text)):
        raise SpecViolation("not compact JSON (whitespace outside strings)", message=text)
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError as exc:
        raise SpecViolation(f"invalid JSON: {exc}", message=text) from None


def _id_key(value: Any) -> str | int | None:
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        return None
    return value


# ---------------------------------------------------------------------------- wire checker


@dataclass
class _Request:
    method: str
    message: dict[str, Any]
    valid: bool = False


class WireChecker:
    """Follows one connection; validates every message in both directions against `revision`.

    Request ids are remembered for both directions, so each response is validated against the
    result type of its method; error responses against the JSON-RPC error shape (and the
    code-specific definition where the schema has one); notifications and requests against
    the definition whose ``method`` const matches.

    With ``revision=None`` the revision is learned from the connection: from the
    ``protocolVersion`` of the InitializeResult (legacy), or from the first client request whose
    ``_meta`` carries a modern ``io.modelcontextprotocol/protocolVersion``. Messages seen before
    that are kept and validated as soon as the revision is known.

    Everything the server sends is checked strictly. Client messages that fail (tests send
    garbage on purpose) are recorded in ``client_issues`` instead of raising, unless
    ``strict_client=True``; a server that answers such a request with a *result* instead of an
    error is a violation.

    ``extension_methods`` are the requests and notifications of the protocol extensions in
    use (SEP-2133): the schema does not define them, so they are checked as JSON-RPC
    messages, and their results against the revision's generic ``Result``; a 2026-07-28
    result whose ``resultType`` is one of ``extension_result_types`` (an extension's, such
    as Tasks' ``"task"``) is checked against ``Result`` too.
    """

    def __init__(
        self,
        revision: str | None = None,
        *,
        strict_client: bool = False,
        extension_methods: Collection[str] = (),
        extension_result_types: Collection[str] = (),
    ) -> None:
        if revision is not None and revision not in REVISIONS:
            raise ValueError(f"unknown MCP revision {revision!r}")
        self.revision: str | None = revision
        self.strict_client = strict_client
        self.extension_methods = frozenset(extension_methods)
        self.extension_result_types = frozenset(extension_result_types)
        self.checked = 0
        self.client_issues: list[str] = []
        self._explicit = revision is not None
        # requests awaiting an answer, keyed by id: sent by the client / by the server
        self._from_client: dict[str | int, _Request] = {}
        self._from_server: dict[str | int, _Request] = {}
        self._backlog: list[tuple[str, Any]] = []
        self._initialize_ids: set[str | int] = set()

    # -- public API

    def client_sent(self, message: dict[str, Any] | bytes | str) -> None:
        self._receive("client", message)

    def server_sent(self, message: dict[str, Any] | bytes | str) -> None:
        self._receive("server", message)

    def close(self) -> None:
        """Raise if server messages were never validated because no revision was learned."""
        unchecked = [m for side, m in self._backlog if side == "server"]
        if self.revision is None and unchecked:
            raise SpecViolation(
                f"{len(unchecked)} server message(s) never validated: the protocol revision "
                "was not learned (no InitializeResult, no request _meta protocolVersion)",
                message=unchecked[0],
            )

    # -- plumbing

    def _strict(self, side: str) -> bool:
        return side == "server" or self.strict_client

    def _receive(self, side: str, message: Any) -> None:
        try:
            parsed = _decode(message)
        except SpecViolation as exc:
            if self._strict(side):
                raise
            self.client_issues.append(str(exc))
            return
        if self.revision is None:
            self._learn(side, parsed)
            if self.revision is None:
                self._backlog.append((side, parsed))
                return
            backlog, self._backlog = [*self._backlog, (side, parsed)], []
            for queued_side, queued in backlog:
                self._process_one(queued_side, queued)
            return
        self._process_one(side, parsed)

    def _learn(self, side: str, msg: Any) -> None:
        if not isinstance(msg, dict):
            return
        if side == "client" and isinstance(msg.get("method"), str):
            key = _id_key(msg.get("id"))
            if msg["method"] == "initialize" and key is not None:
                self._initialize_ids.add(key)
            params = msg.get("params")
            meta = params.get("_meta") if isinstance(params, dict) else None
            version = meta.get(PROTOCOL_VERSION_META) if isinstance(meta, dict) else None
            if version in REVISIONS and tables(version).modern:
                self.revision = version
        elif side == "server" and _id_key(msg.get("id")) in self._initialize_ids:
            result = msg.get("result")
            if isinstance(result, dict) and "protocolVersion" in result:
                version = result["protocolVersion"]
                if version not in REVISIONS:
                    raise SpecViolation(
                        f"InitializeResult negotiates protocolVersion {version!r}, "
                        f"not one of {', '.join(REVISIONS)}",
                        definition="InitializeResult",
                        path="$.result.protocolVersion",
                        message=msg,
                    )
                self.revision = version

    def _process_one(self, side: str, msg: Any) -> None:
        try:
            self._process(side, msg)
        except SpecViolation as exc:
            if self._strict(side):
                raise
            self.client_issues.append(str(exc))

    def _fail(
        self, reason: str, msg: Any, definition: str | None = None, path: str = "$"
    ) -> NoReturn:
        raise SpecViolation(
            reason, revision=self.revision, definition=definition, path=path, message=msg
        )

    def _process(self, side: str, msg: Any) -> None:
        assert self.revision is not None
        t = tables(self.revision)
        if isinstance(msg, list):
            if not t.batches:
                self._fail("JSON-RPC batches (arrays) are only allowed in 2025-03-26", msg)
            if not msg:
                self._fail("empty batch", msg)
            for item in msg:
                self._process(side, item)
            return
        if not isinstance(msg, dict):
            self._fail("a JSON-RPC message is a JSON object", msg)
        if "method" in msg:
            if "id" in msg:
                self._request(side, msg, t)
            else:
                self._notification(side, msg, t)
        elif "result" in msg or "error" in msg:
            self._response(side, msg, t)
        else:
            _check(msg, "JSONRPCMessage", self.revision)
            self._fail("neither a request, a notification nor a response", msg)

    def _request(self, side: str, msg: dict[str, Any], t: MethodTables) -> None:
        method = msg["method"]
        pending = self._from_client if side == "client" else self._from_server
        entry = _Request(method if isinstance(method, str) else repr(method), msg)
        key = _id_key(msg.get("id"))
        if key is not None:
            if key in pending:
                self._fail(
                    f"request id {key!r} reused while still unanswered (JR-05)", msg, path="$.id"
                )
            pending[key] = entry
        self._validate_request(side, msg, t)
        entry.valid = True
        self.checked += 1

    def _validate_request(self, side: str, msg: dict[str, Any], t: MethodTables) -> None:
        rev = t.revision
        method = msg["method"]
        _check(msg, "JSONRPCRequest", rev)
        if method in self.extension_methods:
            return
        allowed = t.client_requests if side == "client" else t.server_requests
        if method not in t.requests:
            raise SpecViolation(
                f"unknown request method {method!r}", revision=rev, path="$.method", message=msg
            )
        if method not in allowed:
            if side == "server" and not t.server_requests:
                reason = f"servers never send JSON-RPC requests in {rev} (JR-39); got {method!r}"
            else:
                reason = f"{method!r} is not a request the {side} may send in {rev}"
            raise SpecViolation(reason, revision=rev, path="$.method", message=msg)
        _check(msg, t.requests[method], rev)

    def _notification(self, side: str, msg: dict[str, Any], t: MethodTables) -> None:
        rev = t.revision
        method = msg["method"]
        _check(msg, "JSONRPCNotification", rev)
        if method in self.extension_methods:
            self.checked += 1
            return
        allowed = t.client_notifications if side == "client" else t.server_notifications
        if method not in t.notifications:
            self._fail(f"unknown notification method {method!r}", msg, path="$.method")
        if method not in allowed:
            self._fail(f"{method!r} is not a notification the {side} may send in {rev}", msg)
        _check(msg, t.notifications[method], rev)
        self.checked += 1

    def _response(self, side: str, msg: dict[str, Any], t: MethodTables) -> None:
        if "result" in msg and "error" in msg:
            self._fail("a response has exactly one of result/error (JR-08)", msg)
        pending = self._from_server if side == "client" else self._from_client
        key = _id_key(msg.get("id"))
        request = pending.pop(key, None) if key is not None else None
        if "error" in msg:
            self._error_response(msg, t)
        else:
            self._result_response(side, msg, t, request)
        self.checked += 1

    def _error_response(self, msg: dict[str, Any], t: MethodTables) -> None:
        rev = t.revision
        error = msg.get("error")
        code = error.get("code") if isinstance(error, dict) else None
        envelope = msg
        if msg.get("id", 0) is None and code == _PARSE_ERROR:
            # JSON-RPC 2.0 requires "id": null when the message could not be parsed at all;
            # the MCP schemas type the id string|integer (optional since 2025-11-25), so the
            # envelope is checked as the id-less one it stands for.
            envelope = {key: value for key, value in msg.items() if key != "id"}
        if "id" not in envelope and t.error_id_required and code in _UNREADABLE_REQUEST_CODES:
            # The legacy schemas require `id` even where JSON-RPC has none to echo; the
            # 2025-11-25 rule (omit it, never null) is the only option that can be right.
            envelope = {**envelope, "id": 0}
        _check(envelope, t.error_envelope, rev, message=msg)
        if isinstance(code, int) and code in t.error_codes:
            definition, whole = t.error_codes[code]
            if whole:
                _check(envelope, definition, rev, message=msg)
            else:
                _check(error, definition, rev, path="$.error", message=msg)
        if t.modern and isinstance(code, int):
            if code in _RETIRED_MODERN_CODES:
                self._fail(
                    f"error code {code} is retired in {rev} (JR-31)", msg, path="$.error.code"
                )
            if -32099 <= code <= -32020 and code not in t.error_codes:
                self._fail(
                    f"error code {code} is in the reserved range -32099..-32020 but not "
                    f"defined by {rev} (JR-31)",
                    msg,
                    path="$.error.code",
                )

    def _result_response(
        self, side: str, msg: dict[str, Any], t: MethodTables, request: _Request | None
    ) -> None:
        if request is not None and request.method == "initialize":
            t = self._adopt_initialize(msg, t, request)
        rev = t.revision
        _check(msg, t.result_envelope, rev)
        if request is None:
            return
        if not request.valid:
            self._fail(
                f"{side} answered a malformed or unknown {request.method!r} request with a "
                "result; it must answer with an error",
                msg,
            )
        result = msg["result"]
        method = request.method
        if t.modern:
            kind = result.get("resultType")
            if kind == "input_required":
                if method not in t.input_required_methods:
                    self._fail(
                        f"resultType 'input_required' is not allowed for {method} (MP-02)",
                        msg,
                        path="$.result.resultType",
                    )
                _check(result, "InputRequiredResult", rev, path="$.result", message=msg)
                if "inputRequests" not in result and "requestState" not in result:
                    self._fail(
                        "InputRequiredResult needs inputRequests or requestState (MP-03)",
                        msg,
                        definition="InputRequiredResult",
                        path="$.result",
                    )
                return
            if kind in self.extension_result_types:
                _check(result, "Result", rev, path="$.result", message=msg)
                return
            if kind != "complete":
                self._fail(
                    f"unrecognised resultType {kind!r} (JR-29/JR-30)",
                    msg,
                    path="$.result.resultType",
                )
        definition = t.results.get(method, "Result")
        params = request.message.get("params")
        if isinstance(params, dict) and "task" in params and "CreateTaskResult" in definitions(rev):
            definition = "CreateTaskResult"  # 2025-11-25 task-augmented request
        _check(result, definition, rev, path="$.result", message=msg)

    def _adopt_initialize(
        self, msg: dict[str, Any], t: MethodTables, request: _Request
    ) -> MethodTables:
        result = msg.get("result")
        version = result.get("protocolVersion") if isinstance(result, dict) else None
        if not isinstance(version, str) or version == self.revision:
            return t
        if self._explicit or version not in REVISIONS:
            self._fail(
                f"InitializeResult negotiates {version!r} but the connection is {self.revision}",
                msg,
                definition="InitializeResult",
                path="$.result.protocolVersion",
            )
        # e.g. a modern probe (server/discover) failed and the client fell back to initialize:
        # the initialize request is judged again under the revision it ended up negotiating.
        self.revision = version
        t = tables(version)
        try:
            self._validate_request("client", request.message, t)
        except SpecViolation as exc:
            if self.strict_client:
                raise
            self.client_issues.append(str(exc))
        else:
            request.valid = True
            self.checked += 1
        return t
