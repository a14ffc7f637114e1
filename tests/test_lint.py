"""The pure rules of ``toolwire.lint`` (no server, no event loop): what the CLI tests cannot
reach, such as the schema check without the ``jsonschema`` package."""

from __future__ import annotations

import sys

import pytest

from toolwire.lint import Listing, fold, lint, schema_errors

BAD_SCHEMA = {
    "type": "object",
    "properties": {"a": {"type": "strng"}, "b": {"type": "array", "items": 3}},
    "required": "a",
}


def test_the_meta_schema_check_names_each_bad_spot() -> None:
    found = dict(schema_errors(BAD_SCHEMA))
    assert sorted(found) == ["properties/a/type", "properties/b/items", "required"]
    assert "'strng' is not a JSON Schema type" in found["properties/a/type"]


def test_without_jsonschema_a_structural_check_finds_the_same(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "jsonschema", None)  # import jsonschema fails
    found = dict(schema_errors(BAD_SCHEMA))
    assert sorted(found) == ["properties/a/type", "properties/b/items", "required"]
    assert "'strng' is not a JSON Schema type" in found["properties/a/type"]


def test_near_duplicates_ignore_case_dashes_underscores_and_dots() -> None:
    assert fold("Get-Weather") == fold("get_weather") == fold("get.weather") == "getweather"
    assert fold("get_weather") != fold("get_weathers")


def test_an_unknown_provider_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown provider 'nobody'"):
        lint([Listing("x")], ["nobody"])


def test_a_tool_without_an_input_schema_is_reported() -> None:
    findings = lint([Listing("x", "x", None, [{"name": "t", "description": "d"}])])
    assert [(f.rule, f.path) for f in findings] == [("input-schema-type", "inputSchema")]
