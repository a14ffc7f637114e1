"""Era shaping without an event loop: each revision sees only what it defines.

DESIGN "Era shaping in one place": handlers produce one internal (newest) shape and
``toolwire.protocol.shaping`` cuts it down per revision. Every shaped object here is also
validated against the official JSON Schema of its revision (``tests/mcp_spec.py``).
"""

from __future__ import annotations

import copy
from typing import Any

import orjson
import pytest

from toolwire.protocol import shaping
from toolwire.protocol.revisions import (
    FEATURES,
    LATEST,
    LATEST_LEGACY,
    LEGACY_REVISIONS,
    META_SERVER_INFO,
    MODERN_REVISIONS,
    REVISIONS,
    SUPPORTED_NEWEST_FIRST,
    negotiate_legacy,
)

import mcp_spec
from mcp_spec import SpecViolation, definitions, load_schema, tables, validate_definition

pytestmark = pytest.mark.skipif(
    not mcp_spec.spec_available(), reason=f"MCP schemas not found in {mcp_spec.SPEC_DIR}"
)

V2024, V2025_03, V2025_06, V2025_11, V2026 = REVISIONS

INPUT_SCHEMA = {
    "type": "object",
    "properties": {"n": {"type": "integer"}},
    "required": ["n"],
}
OUTPUT_SCHEMA = {
    "type": "object",
    "properties": {"square": {"type": "integer"}},
    "required": ["square"],
}
ICONS = [{"src": "https://example.com/i.png", "mimeType": "image/png", "sizes": ["48x48"]}]
ANNOTATIONS = {"title": "Squarer", "readOnlyHint": True, "idempotentHint": True}

# The internal (newest) shape of a tool with every optional field.
FULL_TOOL: dict[str, Any] = {
    "name": "square",
    "title": "Square",
    "description": "Square a number.",
    "inputSchema": INPUT_SCHEMA,
    "outputSchema": OUTPUT_SCHEMA,
    "annotations": ANNOTATIONS,
    "icons": ICONS,
    "_meta": {"com.example/owner": "tests"},
}
BARE_TOOL = {"name": "square", "description": "Square a number.", "inputSchema": INPUT_SCHEMA}

EXPECTED_TOOL: dict[str, dict[str, Any]] = {
    V2024: BARE_TOOL,
    V2025_03: {**BARE_TOOL, "annotations": ANNOTATIONS},
    V2025_06: {
        **BARE_TOOL,
        "title": "Square",
        "outputSchema": OUTPUT_SCHEMA,
        "annotations": ANNOTATIONS,
        "_meta": {"com.example/owner": "tests"},
    },
    V2025_11: FULL_TOOL,
    V2026: FULL_TOOL,
}

TEXT = {"type": "text", "text": '{"square":9}'}
LINK = {
    "type": "resource_link",
    "uri": "file:///data/report.txt",
    "name": "report.txt",
    "title": "The Report",
    "mimeType": "text/plain",
}
AUDIO = {"type": "audio", "data": "UklGRg==", "mimeType": "audio/wav"}
IMAGE = {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"}
LINK_AS_TEXT = {"type": "text", "text": "Resource: The Report <file:///data/report.txt>"}
AUDIO_AS_TEXT = {"type": "text", "text": "[audio content (audio/wav)]"}
FULL_RESULT: dict[str, Any] = {
    "content": [TEXT, LINK, AUDIO],
    "structuredContent": {"square": 9},
}
EXPECTED_RESULT: dict[str, dict[str, Any]] = {
    V2024: {"content": [TEXT, LINK_AS_TEXT, AUDIO_AS_TEXT]},
    V2025_03: {"content": [TEXT, LINK_AS_TEXT, AUDIO]},
    V2025_06: FULL_RESULT,
    V2025_11: FULL_RESULT,
    V2026: FULL_RESULT,
}


def modern_result(result: dict[str, Any], revision: str) -> dict[str, Any]:
    """What the session adds to every result before it goes out (resultType, serverInfo)."""
    info = {"name": "s", "version": "1"}
    return shaping.complete(copy.deepcopy(result), FEATURES[revision], info)


def valid(instance: Any, definition: str, revision: str) -> bool:
    try:
        validate_definition(instance, definition, revision)
    except SpecViolation:
        return False
    return True


# ---------------------------------------------------------------------------- revisions


def test_revision_constants_match_the_spec_folder() -> None:
    """Revision strings order as dates; the newest is the modern 2026-07-28 (§1)."""
    assert list(REVISIONS) == sorted(REVISIONS)
    assert tuple(mcp_spec.REVISIONS) == REVISIONS
    assert LATEST == mcp_spec.LATEST == "2026-07-28"
    assert LATEST_LEGACY == "2025-11-25"
    assert MODERN_REVISIONS == (LATEST,)
    assert LEGACY_REVISIONS + MODERN_REVISIONS == REVISIONS
    assert tuple(reversed(REVISIONS)) == SUPPORTED_NEWEST_FIRST
    assert set(FEATURES) == set(REVISIONS)
    for revision in REVISIONS:
        assert tables(revision).modern is (revision in MODERN_REVISIONS)


@pytest.mark.parametrize("revision", REVISIONS)
def test_features_agree_with_the_official_schema(revision: str) -> None:
    """Each Features flag is what the revision's schema.json defines (changelogs, §2)."""
    features = FEATURES[revision]
    defs = load_schema(revision).get("$defs") or load_schema(revision)["definitions"]
    tool_props = defs["Tool"]["properties"]
    annotations = defs.get("Annotations", {}).get("properties", {})
    assert features.revision == revision
    assert features.modern is tables(revision).modern
    assert features.batches is tables(revision).batches
    assert features.audio is ("AudioContent" in definitions(revision))
    assert features.tool_annotations is ("ToolAnnotations" in definitions(revision))
    assert features.resource_links is ("ResourceLink" in definitions(revision))
    assert features.titles is ("title" in tool_props)
    assert features.structured is ("outputSchema" in tool_props)
    assert features.meta is ("_meta" in tool_props)
    assert features.icons is ("icons" in tool_props)
    assert features.last_modified is ("lastModified" in annotations)
    if features.structured:
        array_tool = {**BARE_TOOL, "outputSchema": {"type": "array"}}
        array_result = {"content": [], "structuredContent": [1, 2]}
        if features.modern:
            array_result["resultType"] = "complete"
        assert valid(array_tool, "Tool", revision) is features.any_structured
        assert valid(array_result, "CallToolResult", revision) is features.any_structured
    else:
        assert not features.any_structured


@pytest.mark.parametrize("revision", LEGACY_REVISIONS)
def test_negotiate_legacy_echoes_a_supported_revision(revision: str) -> None:
    """LC-08: a supported requested version is echoed."""
    assert negotiate_legacy(revision) == revision


@pytest.mark.parametrize(
    "requested",
    ["2099-01-01", "1.0", "2024-10-07", "2026-07-28", "", None, 20241105, ["2025-06-18"]],
)
def test_negotiate_legacy_answers_anything_else_with_the_latest_legacy(requested: Any) -> None:
    """LC-08: an unknown version is answered with the server's latest (legacy) one, not an error.

    ``initialize`` is the legacy handshake, so even the modern revision gets 2025-11-25 there.
    """
    assert negotiate_legacy(requested) == LATEST_LEGACY


# ---------------------------------------------------------------------------- tools


@pytest.mark.parametrize("revision", REVISIONS)
def test_tool_definition_per_revision(revision: str) -> None:
    """TL-05: title/outputSchema/_meta since 2025-06-18, annotations since 2025-03-26, icons since 2025-11-25."""
    original = copy.deepcopy(FULL_TOOL)
    shaped = shaping.tool(FULL_TOOL, FEATURES[revision])
    assert shaped == EXPECTED_TOOL[revision]
    assert next(iter(shaped)) == "name"
    assert original == FULL_TOOL  # the shared definition is never mutated
    validate_definition(shaped, "Tool", revision)


@pytest.mark.parametrize("revision", REVISIONS)
def test_minimal_tool_is_the_same_everywhere(revision: str) -> None:
    minimal = {"name": "noop", "inputSchema": {"type": "object", "additionalProperties": False}}
    assert shaping.tool(minimal, FEATURES[revision]) == minimal
    validate_definition(minimal, "Tool", revision)


@pytest.mark.parametrize("revision", REVISIONS[1:])
def test_tool_annotations_keep_only_defined_hints(revision: str) -> None:
    definition = {**BARE_TOOL, "annotations": {"destructiveHint": False, "x-internal": 1}}
    shaped = shaping.tool(definition, FEATURES[revision])
    assert shaped["annotations"] == {"destructiveHint": False}


@pytest.mark.parametrize("revision", REVISIONS)
def test_non_object_output_schema_only_from_2026(revision: str) -> None:
    """TL-08: before 2026-07-28 an outputSchema root must be ``type: object``; drop it there."""
    array_schema = {"type": "array", "items": {"type": "string"}}
    shaped = shaping.tool({**BARE_TOOL, "outputSchema": array_schema}, FEATURES[revision])
    if revision == V2026:
        assert shaped["outputSchema"] == array_schema
    else:
        assert "outputSchema" not in shaped
    validate_definition(shaped, "Tool", revision)


# ---------------------------------------------------------------------------- content and results


@pytest.mark.parametrize("revision", REVISIONS)
def test_call_result_per_revision(revision: str) -> None:
    """Structured content from 2025-06-18; resource_link from 2025-06-18; audio from 2025-03-26.

    Blocks a revision lacks become text saying what they were, so nothing is silently lost.
    """
    original = copy.deepcopy(FULL_RESULT)
    shaped = shaping.call_result(FULL_RESULT, FEATURES[revision])
    assert shaped == EXPECTED_RESULT[revision]
    assert original == FULL_RESULT
    validate_definition(modern_result(shaped, revision), "CallToolResult", revision)


@pytest.mark.parametrize("revision", REVISIONS)
def test_content_kinds_every_revision_knows_pass_unchanged(revision: str) -> None:
    embedded = {"type": "resource", "resource": {"uri": "file:///a.txt", "text": "hi"}}
    result = {"content": [TEXT, IMAGE, embedded]}
    assert shaping.call_result(result, FEATURES[revision]) == result
    validate_definition(modern_result(result, revision), "CallToolResult", revision)


@pytest.mark.parametrize("revision", LEGACY_REVISIONS[:2])
def test_resource_link_without_title_names_the_resource(revision: str) -> None:
    link = {"type": "resource_link", "uri": "https://example.com/a.csv", "name": "a.csv"}
    assert shaping.content_block(link, FEATURES[revision]) == {
        "type": "text",
        "text": "Resource: a.csv <https://example.com/a.csv>",
    }


@pytest.mark.parametrize("revision", REVISIONS)
def test_block_meta_only_from_2025_06_18(revision: str) -> None:
    """``_meta`` on content blocks and on embedded resource contents is new in 2025-06-18."""
    text = {"type": "text", "text": "x", "_meta": {"com.example/k": 1}}
    embedded = {
        "type": "resource",
        "resource": {"uri": "file:///a.txt", "text": "hi", "_meta": {"com.example/k": 2}},
        "_meta": {"com.example/k": 3},
    }
    shaped = shaping.call_result({"content": [text, embedded]}, FEATURES[revision])
    if FEATURES[revision].meta:
        assert shaped["content"] == [text, embedded]
    else:
        assert shaped["content"] == [
            {"type": "text", "text": "x"},
            {"type": "resource", "resource": {"uri": "file:///a.txt", "text": "hi"}},
        ]
    validate_definition(modern_result(shaped, revision), "CallToolResult", revision)


@pytest.mark.parametrize("revision", REVISIONS)
def test_annotation_last_modified_only_from_2025_06_18(revision: str) -> None:
    both = {
        "type": "text",
        "text": "a",
        "annotations": {"priority": 0.5, "lastModified": "2025-01-01T00:00:00Z"},
    }
    only = {
        "type": "image",
        **{k: IMAGE[k] for k in ("data", "mimeType")},
        "annotations": {"lastModified": "2025-01-01T00:00:00Z"},
    }
    shaped = shaping.call_result({"content": [both, only]}, FEATURES[revision])
    if revision >= V2025_06:
        assert shaped["content"] == [both, only]
    else:
        assert shaped["content"] == [
            {"type": "text", "text": "a", "annotations": {"priority": 0.5}},
            {"type": "image", "data": IMAGE["data"], "mimeType": "image/png"},
        ]
    validate_definition(modern_result(shaped, revision), "CallToolResult", revision)


@pytest.mark.parametrize("revision", REVISIONS[2:])
def test_resource_link_icons_only_from_2025_11_25(revision: str) -> None:
    link = {**LINK, "icons": ICONS}
    shaped = shaping.call_result({"content": [link]}, FEATURES[revision])
    assert shaped["content"] == [link if revision >= V2025_11 else LINK]


@pytest.mark.parametrize("revision", REVISIONS)
def test_non_object_structured_content_only_from_2026(revision: str) -> None:
    """TL-20: structuredContent is an object until 2026-07-28 (any JSON value there)."""
    result = {"content": [{"type": "text", "text": "[1,2]"}], "structuredContent": [1, 2]}
    shaped = shaping.call_result(result, FEATURES[revision])
    if revision == V2026:
        assert shaped == result
    else:
        assert shaped == {"content": [{"type": "text", "text": "[1,2]"}]}
    validate_definition(modern_result(shaped, revision), "CallToolResult", revision)


@pytest.mark.parametrize("revision", REVISIONS)
def test_structured_only_result_still_reaches_older_clients(revision: str) -> None:
    """TL-21: a client that cannot see structuredContent gets the JSON as a text block."""
    result = {"content": [], "structuredContent": {"square": 9}}
    shaped = shaping.call_result(result, FEATURES[revision])
    if FEATURES[revision].structured:
        assert shaped == result
    else:
        assert shaped == {"content": [{"type": "text", "text": '{"square":9}'}]}
    validate_definition(modern_result(shaped, revision), "CallToolResult", revision)


@pytest.mark.parametrize("revision", REVISIONS)
def test_is_error_is_sent_only_when_true(revision: str) -> None:
    """TL-24: tool failures are results with ``isError: true``; false is the default, left out."""
    failed = shaping.call_result({"content": [TEXT], "isError": True}, FEATURES[revision])
    fine = shaping.call_result({"content": [TEXT], "isError": False}, FEATURES[revision])
    assert failed == {"content": [TEXT], "isError": True}
    assert fine == {"content": [TEXT]}
    validate_definition(modern_result(failed, revision), "CallToolResult", revision)


@pytest.mark.parametrize("revision", REVISIONS)
def test_result_meta_from_2025_06_18(revision: str) -> None:
    shaped = shaping.call_result({"content": [], "_meta": {"com.example/t": 1}}, FEATURES[revision])
    assert ("_meta" in shaped) is (revision >= V2025_06)


# ---------------------------------------------------------------------------- implementation info


@pytest.mark.parametrize("revision", REVISIONS)
def test_implementation_per_revision(revision: str) -> None:
    """BaseMetadata.title since 2025-06-18; description/icons/websiteUrl since 2025-11-25 (SEP-973)."""
    info = {
        "name": "srv",
        "version": "1.0",
        "title": "Server",
        "description": "Does things",
        "websiteUrl": "https://example.com",
        "icons": ICONS,
    }
    shaped = shaping.implementation(info, FEATURES[revision])
    expected: dict[str, Any] = {"name": "srv", "version": "1.0"}
    if revision >= V2025_06:
        expected["title"] = "Server"
    if revision >= V2025_11:
        expected.update(description="Does things", websiteUrl="https://example.com", icons=ICONS)
    assert shaped == expected
    validate_definition(shaped, "Implementation", revision)


# ---------------------------------------------------------------------------- modern markers


@pytest.mark.parametrize("revision", LEGACY_REVISIONS)
def test_legacy_results_are_not_marked(revision: str) -> None:
    result = {"tools": []}
    assert shaping.complete(result, FEATURES[revision], {"name": "s", "version": "1"}) is result
    assert result == {"tools": []}
    assert shaping.cacheable(result, FEATURES[revision], 1000, "public") == {"tools": []}


def test_modern_results_carry_result_type_and_server_info() -> None:
    """JR-29 (resultType on every result) and serverInfo in each result's ``_meta`` (LC-21)."""
    info = {"name": "s", "version": "1"}
    result = shaping.complete({"content": []}, FEATURES[V2026], info)
    assert result == {"content": [], "resultType": "complete", "_meta": {META_SERVER_INFO: info}}
    kept = shaping.complete({"content": [], "_meta": {"com.example/k": 1}}, FEATURES[V2026], info)
    assert kept["_meta"] == {"com.example/k": 1, META_SERVER_INFO: info}
    validate_definition(result, "CallToolResult", V2026)


def test_modern_list_results_carry_caching_hints() -> None:
    """TL-36 / MP-12: ``ttlMs`` and ``cacheScope`` on tools/list results."""
    page = shaping.cacheable(
        {"tools": [shaping.tool(FULL_TOOL, FEATURES[V2026])]}, FEATURES[V2026], 5000, "public"
    )
    assert page["ttlMs"] == 5000
    assert page["cacheScope"] == "public"
    validate_definition(modern_result(page, V2026), "ListToolsResult", V2026)
    without = {"tools": [], "resultType": "complete"}
    assert not valid(without, "ListToolsResult", V2026)  # the schema requires them


def test_result_fragment_is_compact_json() -> None:
    result = {"tools": [FULL_TOOL], "nextCursor": "abc"}
    fragment = shaping.result_fragment(result)
    assert isinstance(fragment, bytes)
    assert b"\n" not in fragment
    assert orjson.loads(fragment) == result
