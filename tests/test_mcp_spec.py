"""Self-tests for tests/mcp_spec.py: the checker must accept the spec and reject what it forbids."""

from __future__ import annotations

import json
from typing import Any

import orjson
import pytest
from jsonschema import Draft7Validator, Draft202012Validator
from jsonschema.validators import validator_for

import mcp_spec
from mcp_spec import (
    LATEST,
    REVISIONS,
    SpecViolation,
    WireChecker,
    definitions,
    examples,
    load_schema,
    tables,
    validate_definition,
)

pytestmark = pytest.mark.skipif(
    not mcp_spec.spec_available(), reason=f"MCP schemas not found in {mcp_spec.SPEC_DIR}"
)

LEGACY = REVISIONS[:-1]
MODERN_META = {
    "io.modelcontextprotocol/protocolVersion": LATEST,
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": {"name": "test-client", "version": "1.0"},
}
TOOL = {
    "name": "add",
    "description": "Add two integers",
    "inputSchema": {
        "type": "object",
        "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
        "required": ["a", "b"],
    },
}
TEXT = [{"type": "text", "text": "3"}]


def rejects(instance: Any, definition: str, revision: str) -> SpecViolation:
    with pytest.raises(SpecViolation) as info:
        validate_definition(instance, definition, revision)
    return info.value


def request(id_: int | str, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
    msg: dict[str, Any] = {"jsonrpc": "2.0", "id": id_, "method": method}
    if params is not None:
        msg["params"] = params
    return msg


def modern(id_: int | str, method: str, **params: Any) -> dict[str, Any]:
    return request(id_, method, {"_meta": MODERN_META, **params})


def result(id_: int | str, body: dict[str, Any]) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": id_, "result": body}


def error(id_: Any, code: int, message: str = "boom", **extra: Any) -> dict[str, Any]:
    msg: dict[str, Any] = {"jsonrpc": "2.0", "error": {"code": code, "message": message, **extra}}
    if id_ is not ...:
        msg["id"] = id_
    return msg


def line(msg: Any) -> bytes:
    return orjson.dumps(msg) + b"\n"


def legacy_handshake(checker: WireChecker, version: str) -> None:
    checker.client_sent(
        request(
            0,
            "initialize",
            {
                "protocolVersion": version,
                "capabilities": {},
                "clientInfo": {"name": "test-client", "version": "1.0"},
            },
        )
    )
    checker.server_sent(
        line(
            result(
                0,
                {
                    "protocolVersion": version,
                    "capabilities": {"tools": {"listChanged": False}},
                    "serverInfo": {"name": "toolwire", "version": "0.1.0"},
                },
            )
        )
    )
    checker.client_sent({"jsonrpc": "2.0", "method": "notifications/initialized"})


# ---------------------------------------------------------------------------- schemas


@pytest.mark.parametrize("revision", REVISIONS)
def test_dialect_matches_declared_schema(revision: str) -> None:
    schema = load_schema(revision)
    expected = Draft7Validator if revision < "2025-11-25" else Draft202012Validator
    assert validator_for(schema) is expected
    assert ("$defs" in schema) is (expected is Draft202012Validator)


def test_revision_constants() -> None:
    assert tuple(sorted(REVISIONS)) == REVISIONS
    assert len(REVISIONS) == 5
    assert LATEST == REVISIONS[-1] == "2026-07-28"


# Every folder of 2026-07-28/examples is currently named after a definition of that schema,
# so nothing is skipped; a folder without a matching definition would be skipped here.
EXAMPLES = examples()


def test_examples_are_present() -> None:
    assert len(EXAMPLES) >= 100
    assert examples("CallToolResult")
    assert all(name == "CallToolResult" for name, _, _ in examples("CallToolResult"))


@pytest.mark.parametrize(
    ("type_name", "instance"),
    [pytest.param(name, inst, id=f"{name}/{path.stem}") for name, path, inst in EXAMPLES],
)
def test_spec_example_validates(type_name: str, instance: Any) -> None:
    if type_name not in definitions(LATEST):
        pytest.skip(f"no definition named {type_name} in {LATEST}")
    validate_definition(instance, type_name, LATEST)


# ---------------------------------------------------------------------------- method tables


@pytest.mark.parametrize("revision", REVISIONS)
def test_every_request_method_has_a_specific_result_type(revision: str) -> None:
    t = tables(revision)
    assert t.requests, "no request definitions found"
    for method in t.requests:
        assert t.results[method] in definitions(revision), method
    assert t.results["tools/list"] == "ListToolsResult"
    assert t.results["tools/call"] == "CallToolResult"
    assert t.requests["tools/call"] == "CallToolRequest"
    assert t.notifications["notifications/progress"] == "ProgressNotification"
    assert t.notifications["notifications/cancelled"] == "CancelledNotification"


def test_result_tables_cover_the_methods_we_use() -> None:
    legacy = tables("2025-11-25")
    assert legacy.results["initialize"] == "InitializeResult"
    assert legacy.results["ping"] == "EmptyResult"
    assert legacy.results["logging/setLevel"] == "EmptyResult"
    assert legacy.results["sampling/createMessage"] == "CreateMessageResult"
    assert legacy.results["elicitation/create"] == "ElicitResult"
    assert legacy.results["roots/list"] == "ListRootsResult"
    assert {"ping", "sampling/createMessage", "roots/list"} <= legacy.server_requests
    latest = tables(LATEST)
    assert latest.results["server/discover"] == "DiscoverResult"
    assert latest.results["subscriptions/listen"] == "SubscriptionsListenResult"
    assert latest.results["completion/complete"] == "CompleteResult"
    assert latest.results["resources/templates/list"] == "ListResourceTemplatesResult"
    assert latest.results["prompts/get"] == "GetPromptResult"
    assert latest.input_required_methods == {"tools/call", "prompts/get", "resources/read"}
    assert not latest.server_requests  # servers never send requests in 2026-07-28
    assert "initialize" not in latest.requests and "ping" not in latest.requests
    assert latest.error_codes[-32022] == ("UnsupportedProtocolVersionError", True)
    assert latest.error_codes[-32602] == ("InvalidParamsError", False)


def test_modern_flag_and_envelopes() -> None:
    assert [tables(r).modern for r in REVISIONS] == [False, False, False, False, True]
    assert tables("2025-06-18").error_envelope == "JSONRPCError"
    assert tables("2025-06-18").error_id_required
    assert tables("2025-11-25").error_envelope == "JSONRPCErrorResponse"
    assert not tables("2025-11-25").error_id_required
    assert [tables(r).batches for r in REVISIONS] == [False, True, False, False, False]


# ---------------------------------------------------------------------------- bad messages


@pytest.mark.parametrize("revision", REVISIONS)
def test_list_tools_result_without_tools_is_rejected(revision: str) -> None:
    body: dict[str, Any] = {"nextCursor": "x"}
    if revision == LATEST:
        body |= {"resultType": "complete", "ttlMs": 0, "cacheScope": "public"}
    exc = rejects(body, "ListToolsResult", revision)
    assert "'tools' is a required property" in str(exc)
    assert exc.revision == revision and exc.definition == "ListToolsResult"


@pytest.mark.parametrize("revision", LEGACY)
def test_legacy_schemas_are_open_but_typed(revision: str) -> None:
    # No definition in any revision sets additionalProperties: false, so fields from newer
    # revisions (structuredContent, resultType, title) pass the older schemas ...
    validate_definition(
        {"content": TEXT, "structuredContent": {"sum": 3}, "resultType": "complete"},
        "CallToolResult",
        revision,
    )
    validate_definition({**TOOL, "title": "Add"}, "Tool", revision)
    # ... but types and required fields are enforced.
    rejects({"content": "3"}, "CallToolResult", revision)
    rejects({"content": TEXT, "isError": "yes"}, "CallToolResult", revision)
    rejects({"isError": False}, "CallToolResult", revision)
    rejects({"name": "add"}, "Tool", revision)
    rejects({**TOOL, "inputSchema": {"type": "array"}}, "Tool", revision)
    # property schemas must be objects: a boolean subschema (`"x": true`) is rejected up to
    # 2025-11-25, while 2026-07-28 accepts any 2020-12 schema with root type object
    boolean_property = {**TOOL, "inputSchema": {"type": "object", "properties": {"x": True}}}
    rejects(boolean_property, "Tool", revision)
    validate_definition(boolean_property, "Tool", LATEST)
    rejects({"content": [{"type": "text"}]}, "CallToolResult", revision)


def test_structured_content_must_be_an_object_until_2026() -> None:
    for revision in ("2025-06-18", "2025-11-25"):
        exc = rejects({"content": TEXT, "structuredContent": [1, 2]}, "CallToolResult", revision)
        assert exc.path == "$.structuredContent"
    validate_definition(
        {"content": TEXT, "structuredContent": [1, 2], "resultType": "complete"},
        "CallToolResult",
        LATEST,
    )


def test_audio_content_is_unknown_in_2024_11_05() -> None:
    audio = {"type": "audio", "data": "AAAA", "mimeType": "audio/wav"}
    rejects({"content": [audio]}, "CallToolResult", "2024-11-05")
    validate_definition({"content": [audio]}, "CallToolResult", "2025-03-26")


def test_base64_format_is_checked() -> None:
    image = {"type": "image", "data": "not base64!", "mimeType": "image/png"}
    exc = rejects(image, "ImageContent", "2025-06-18")
    assert exc.path == "$.data"
    validate_definition({**image, "data": "iVBORw0KGgo="}, "ImageContent", "2025-06-18")


def test_error_response_id_rules() -> None:
    # JSON-RPC's "id": null is never valid: RequestId is string|integer (REQUIREMENTS 5.6).
    null_id = error(None, -32700, "Parse error")
    for revision in REVISIONS:
        definition = tables(revision).error_envelope
        rejects(null_id, definition, revision)
    # 2025-11-25 made the id optional; earlier revisions require it.
    no_id = error(..., -32700, "Parse error")
    validate_definition(no_id, "JSONRPCErrorResponse", "2025-11-25")
    validate_definition(no_id, "JSONRPCErrorResponse", LATEST)
    rejects(no_id, "JSONRPCError", "2025-06-18")
    rejects(error(1, -32600.5), "JSONRPCErrorResponse", "2025-11-25")
    rejects({"jsonrpc": "2.0", "id": 1, "error": {"code": -32600}}, "JSONRPCErrorResponse", LATEST)


def test_2026_results_need_result_type_and_cache_hints() -> None:
    assert "resultType" in load_schema(LATEST)["$defs"]["Result"]["required"]
    rejects({"content": TEXT}, "CallToolResult", LATEST)
    rejects({}, "EmptyResult", LATEST)
    listing = {"resultType": "complete", "tools": [TOOL], "ttlMs": 0, "cacheScope": "public"}
    validate_definition(listing, "ListToolsResult", LATEST)
    for missing in ("ttlMs", "cacheScope", "resultType"):
        rejects({k: v for k, v in listing.items() if k != missing}, "ListToolsResult", LATEST)
    rejects({**listing, "ttlMs": -1}, "ListToolsResult", LATEST)
    rejects({**listing, "ttlMs": 1.5}, "ListToolsResult", LATEST)
    rejects({**listing, "cacheScope": "shared"}, "ListToolsResult", LATEST)


def test_2026_requests_need_protocol_version_and_capabilities() -> None:
    validate_definition(modern(1, "tools/call", name="add"), "CallToolRequest", LATEST)
    for key in (
        "io.modelcontextprotocol/protocolVersion",
        "io.modelcontextprotocol/clientCapabilities",
    ):
        meta = {k: v for k, v in MODERN_META.items() if k != key}
        msg = request(1, "tools/call", {"_meta": meta, "name": "add"})
        exc = rejects(msg, "CallToolRequest", LATEST)
        assert exc.path.startswith("$.params") and "_meta" in exc.path
    rejects(request(1, "tools/list"), "ListToolsRequest", LATEST)
    validate_definition(request(1, "tools/list"), "ListToolsRequest", "2025-11-25")


def test_2026_specific_errors() -> None:
    bare = error(1, -32022, "Unsupported protocol version")
    rejects(bare, "UnsupportedProtocolVersionError", LATEST)
    validate_definition(
        error(1, -32022, "Unsupported", data={"supported": [LATEST], "requested": "1999-01-01"}),
        "UnsupportedProtocolVersionError",
        LATEST,
    )
    rejects({"code": -32601, "message": "x"}, "InvalidParamsError", LATEST)


def test_violation_message_names_revision_definition_and_path() -> None:
    big = {"content": [{"type": "text", "text": "x" * 5000, "annotations": {"priority": 7}}]}
    exc = rejects(big, "CallToolResult", "2025-06-18")
    text = str(exc)
    assert "2025-06-18" in text and "CallToolResult" in text
    assert "$.content[0]" in text
    assert "offending message" in text and len(text) < 2000


def test_unknown_definition_or_revision() -> None:
    with pytest.raises(ValueError, match="not defined"):
        validate_definition({}, "DiscoverResult", "2025-11-25")
    with pytest.raises(ValueError, match="unknown MCP revision"):
        validate_definition({}, "Tool", "2099-01-01")


# ---------------------------------------------------------------------------- wire checker


def test_legacy_exchange_learns_revision_and_picks_result_types() -> None:
    checker = WireChecker()
    legacy_handshake(checker, "2025-06-18")
    assert checker.revision == "2025-06-18"
    checker.client_sent(request(1, "tools/list", {}))
    checker.server_sent(line(result(1, {"tools": [TOOL]})))
    checker.client_sent(request(2, "tools/call", {"name": "add", "arguments": {"a": 1, "b": 2}}))
    checker.server_sent(line(result(2, {"content": TEXT, "structuredContent": {"sum": 3}})))
    checker.client_sent(request("p", "ping"))
    checker.server_sent(line(result("p", {})))
    assert checker.checked == 9
    assert checker.client_issues == []

    # The same bodies sent to the other method fail against that method's result type.
    checker.client_sent(request(3, "tools/call", {"name": "add", "arguments": {}}))
    with pytest.raises(SpecViolation, match="CallToolResult") as info:
        checker.server_sent(result(3, {"tools": [TOOL]}))
    assert info.value.path == "$.result"
    checker.client_sent(request(4, "tools/list"))
    with pytest.raises(SpecViolation, match="ListToolsResult"):
        checker.server_sent(result(4, {"content": TEXT}))


def test_legacy_messages_before_the_handshake_result_are_validated_later() -> None:
    checker = WireChecker()
    checker.client_sent(
        request(7, "initialize", {"protocolVersion": "2024-11-05", "capabilities": {}})
    )
    checker.server_sent({"jsonrpc": "2.0", "method": "notifications/message", "params": {}})
    assert checker.revision is None and checker.checked == 0
    with pytest.raises(SpecViolation, match="LoggingMessageNotification"):
        checker.server_sent(
            result(
                7,
                {
                    "protocolVersion": "2024-11-05",
                    "capabilities": {},
                    "serverInfo": {"name": "s", "version": "1"},
                },
            )
        )


def test_initialize_result_versions() -> None:
    checker = WireChecker()
    checker.client_sent(request(1, "initialize", {"protocolVersion": "2025-11-25"}))
    with pytest.raises(SpecViolation, match="not one of"):
        checker.server_sent(
            result(1, {"protocolVersion": "2030-01-01", "capabilities": {}, "serverInfo": {}})
        )
    pinned = WireChecker("2025-03-26")
    pinned.client_sent(request(1, "initialize", {"protocolVersion": "2025-03-26"}))
    with pytest.raises(SpecViolation, match="negotiates"):
        pinned.server_sent(
            result(
                1,
                {
                    "protocolVersion": "2025-06-18",
                    "capabilities": {},
                    "serverInfo": {"name": "s", "version": "1"},
                },
            )
        )
    # InitializeResult requires serverInfo in every legacy revision
    checker = WireChecker()
    checker.client_sent(
        request(
            1,
            "initialize",
            {
                "protocolVersion": "2025-11-25",
                "capabilities": {},
                "clientInfo": {"name": "c", "version": "1"},
            },
        )
    )
    with pytest.raises(SpecViolation, match="serverInfo"):
        checker.server_sent(result(1, {"protocolVersion": "2025-11-25", "capabilities": {}}))


def test_modern_exchange() -> None:
    checker = WireChecker()
    checker.client_sent(modern("d", "server/discover"))
    assert checker.revision == LATEST
    checker.server_sent(
        line(
            result(
                "d",
                {
                    "resultType": "complete",
                    "supportedVersions": [LATEST, "2025-11-25"],
                    "capabilities": {"tools": {}},
                    "ttlMs": 60000,
                    "cacheScope": "public",
                    "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "t", "version": "1"}},
                },
            )
        )
    )
    checker.client_sent(modern(1, "tools/list"))
    checker.server_sent(
        result(1, {"resultType": "complete", "tools": [TOOL], "ttlMs": 0, "cacheScope": "public"})
    )
    checker.client_sent(modern(2, "tools/call", name="add", arguments={"a": 1}))
    checker.server_sent(
        {
            "jsonrpc": "2.0",
            "method": "notifications/progress",
            "params": {"progressToken": 1, "progress": 0.5},
        }
    )
    checker.server_sent(result(2, {"resultType": "input_required", "requestState": "opaque"}))
    checker.client_sent(modern(3, "tools/call", name="add", arguments={"a": 1, "b": 2}))
    checker.server_sent(
        result(3, {"resultType": "complete", "content": TEXT, "structuredContent": 3})
    )
    assert checker.checked == 9

    checker.client_sent(modern(4, "tools/list"))
    with pytest.raises(SpecViolation, match="ttlMs"):
        checker.server_sent(result(4, {"resultType": "complete", "tools": []}))
    checker.client_sent(modern(5, "tools/list"))
    with pytest.raises(SpecViolation, match="input_required"):
        checker.server_sent(result(5, {"resultType": "input_required", "requestState": "x"}))
    checker.client_sent(modern(6, "tools/call", name="add"))
    with pytest.raises(SpecViolation, match="inputRequests or requestState"):
        checker.server_sent(result(6, {"resultType": "input_required"}))
    checker.client_sent(modern(7, "tools/call", name="add"))
    with pytest.raises(SpecViolation, match="resultType"):
        checker.server_sent(result(7, {"resultType": "done", "content": TEXT}))
    checker.client_sent(modern(8, "tools/call", name="add"))
    with pytest.raises(SpecViolation, match="resultType"):
        checker.server_sent(result(8, {"content": TEXT}))


def test_dual_era_fallback_from_discover_to_initialize() -> None:
    checker = WireChecker()
    checker.client_sent(modern("probe", "server/discover"))
    assert checker.revision == LATEST
    checker.server_sent(error("probe", -32601, "Method not found"))
    legacy_handshake(checker, "2025-11-25")
    assert checker.revision == "2025-11-25"
    checker.client_sent(request(1, "tools/list"))
    checker.server_sent(result(1, {"tools": [TOOL]}))
    assert checker.checked == 7


def test_modern_server_must_not_send_requests_or_retired_errors() -> None:
    checker = WireChecker(LATEST)
    with pytest.raises(SpecViolation, match="never send JSON-RPC requests"):
        checker.server_sent(request(1, "roots/list", {}))
    with pytest.raises(SpecViolation, match="retired"):
        checker.server_sent(error(2, -32002, "Resource not found"))
    with pytest.raises(SpecViolation, match="reserved range"):
        checker.server_sent(error(3, -32050))
    with pytest.raises(SpecViolation, match="UnsupportedProtocolVersionError"):
        checker.server_sent(error(4, -32022, "Unsupported protocol version"))
    checker.server_sent(error(5, -32601, "Method not found"))
    checker.server_sent(error(..., -32700, "Parse error"))


def test_error_response_with_null_id_is_rejected_but_for_a_parse_error() -> None:
    checker = WireChecker("2025-11-25")
    with pytest.raises(SpecViolation, match="None is not of type") as info:
        checker.server_sent(line(error(None, -32600, "Invalid request")))
    assert info.value.path == "$.id"
    checker.server_sent(line(error(..., -32700, "Parse error")))
    # JSON-RPC 2.0's "id": null for a message that could not be parsed is the id-less form.
    checker.server_sent(line(error(None, -32700, "Parse error")))
    # Legacy schemas require an id; an unreadable request has none to echo, so omitting it is
    # tolerated there for parse / invalid-request errors only, and null for parse errors only.
    legacy = WireChecker("2025-06-18")
    legacy.server_sent(error(..., -32700, "Parse error"))
    legacy.server_sent(error(None, -32700, "Parse error"))
    with pytest.raises(SpecViolation):
        legacy.server_sent(error(None, -32600, "Invalid request"))
    with pytest.raises(SpecViolation):
        legacy.server_sent(error(..., -32603, "Internal error"))


def test_garbage_from_the_client_is_tolerated_but_must_get_an_error() -> None:
    checker = WireChecker("2025-11-25")
    checker.client_sent(b"{not json\n")
    checker.client_sent(request(1, "no/such/method", {}))
    checker.client_sent(request(2, "tools/call", {"arguments": {}}))  # no name
    assert len(checker.client_issues) == 3
    checker.server_sent(error(..., -32700, "Parse error"))
    checker.server_sent(error(1, -32601, "Method not found"))
    checker.client_sent(request(3, "no/such/method", {}))
    with pytest.raises(SpecViolation, match="must answer with an error"):
        checker.server_sent(result(3, {}))
    with pytest.raises(SpecViolation, match="must answer with an error"):
        checker.server_sent(result(2, {"content": TEXT}))

    strict = WireChecker("2025-11-25", strict_client=True)
    with pytest.raises(SpecViolation, match="unknown request method"):
        strict.client_sent(request(1, "no/such/method", {}))


def test_notifications_are_checked_per_method_and_direction() -> None:
    checker = WireChecker("2025-11-25", strict_client=True)
    checker.client_sent({"jsonrpc": "2.0", "method": "notifications/initialized"})
    checker.server_sent(
        {
            "jsonrpc": "2.0",
            "method": "notifications/message",
            "params": {"level": "info", "data": "hello"},
        }
    )
    with pytest.raises(SpecViolation, match="LoggingMessageNotification"):
        checker.server_sent(
            {"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "loud"}}
        )
    with pytest.raises(SpecViolation, match="ProgressNotification"):
        checker.server_sent(
            {"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progress": 1}}
        )
    with pytest.raises(SpecViolation, match="not a notification the server may send"):
        checker.server_sent({"jsonrpc": "2.0", "method": "notifications/initialized"})
    with pytest.raises(SpecViolation, match="unknown notification"):
        checker.server_sent({"jsonrpc": "2.0", "method": "notifications/whatever"})
    with pytest.raises(SpecViolation, match="JSONRPCNotification"):
        checker.server_sent({"method": "notifications/tools/list_changed"})
    assert checker.checked == 2


def test_server_requests_and_client_results_in_legacy() -> None:
    checker = WireChecker("2025-06-18", strict_client=True)
    checker.server_sent(request(1, "roots/list"))
    checker.client_sent(result(1, {"roots": [{"uri": "file:///tmp", "name": "tmp"}]}))
    checker.server_sent(
        request(
            2,
            "elicitation/create",
            {"message": "Name?", "requestedSchema": {"type": "object", "properties": {}}},
        )
    )
    with pytest.raises(SpecViolation, match="ElicitResult"):
        checker.client_sent(result(2, {"action": "maybe"}))
    with pytest.raises(SpecViolation, match="not a request the server may send"):
        checker.server_sent(request(3, "tools/list"))


def test_framing_of_bytes_messages() -> None:
    checker = WireChecker("2025-11-25")
    msg = result(1, {"content": TEXT})
    checker.server_sent(orjson.dumps(msg))
    checker.server_sent(orjson.dumps(msg) + b"\n")
    checker.server_sent(orjson.dumps({"jsonrpc": "2.0", "id": 1, "result": {"text": "a b\nc"}}))
    with pytest.raises(SpecViolation, match="embedded newline"):
        checker.server_sent(json.dumps(msg, indent=2).encode())
    with pytest.raises(SpecViolation, match="embedded newline"):
        checker.server_sent(orjson.dumps(msg) + b"\n\n")
    with pytest.raises(SpecViolation, match="not compact"):
        checker.server_sent(json.dumps(msg).encode())
    with pytest.raises(SpecViolation, match="UTF-8"):
        checker.server_sent(orjson.dumps(msg).replace(b"3", b"\xff"))
    with pytest.raises(SpecViolation, match="invalid JSON"):
        checker.server_sent(b'{"jsonrpc":"2.0",')
    with pytest.raises(SpecViolation, match="a JSON-RPC message is a JSON object"):
        checker.server_sent(b'"hello"')
    # the same pretty-printed line from the client is only recorded (or raised when strict)
    checker.client_sent(json.dumps(msg, indent=2).encode())
    assert checker.client_issues and "embedded newline" in checker.client_issues[0]
    with pytest.raises(SpecViolation, match="embedded newline"):
        WireChecker(LATEST, strict_client=True).client_sent(json.dumps(msg, indent=2))


def test_batches_only_in_2025_03_26() -> None:
    batch = [request(1, "ping"), request(2, "tools/list")]
    WireChecker("2025-03-26", strict_client=True).client_sent(batch)
    with pytest.raises(SpecViolation, match="batches"):
        WireChecker("2025-06-18", strict_client=True).client_sent(batch)


def test_duplicate_pending_id_and_both_result_and_error() -> None:
    checker = WireChecker("2025-11-25", strict_client=True)
    checker.client_sent(request(1, "ping"))
    with pytest.raises(SpecViolation, match="reused"):
        checker.client_sent(request(1, "ping"))
    with pytest.raises(SpecViolation, match="exactly one of"):
        checker.server_sent({**result(1, {}), "error": {"code": -1, "message": "x"}})


def test_close_reports_unvalidated_server_messages() -> None:
    checker = WireChecker()
    checker.server_sent(result(1, {}))
    with pytest.raises(SpecViolation, match="never validated"):
        checker.close()
    WireChecker("2025-11-25").close()


def test_validation_checks_every_message() -> None:
    checker = WireChecker(LATEST)
    body = {"resultType": "complete", "content": TEXT * 5, "structuredContent": {"sum": 3}}
    for i in range(1000):
        checker.client_sent(modern(i, "tools/call", name="add", arguments={"a": i, "b": 1}))
        checker.server_sent(line(result(i, body)))
    assert checker.checked == 2000
