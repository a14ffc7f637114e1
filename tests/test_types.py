"""``toolwire.types``: every definition of every revision's schema, read and written back
unchanged; fields by both spellings; unknown fields refused with the nearest name."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from pydantic import AnyUrl, FileUrl, TypeAdapter, ValidationError

from toolwire import Server, types

from mcp_spec import REVISIONS, examples, load_schema, validate_definition
from wire import checked_client


def _defs(revision: str) -> dict[str, Any]:
    schema = load_schema(revision)
    defs: dict[str, Any] = schema.get("$defs") or schema["definitions"]
    return defs


def _round_trip(name: str, data: Any) -> Any:
    """``data`` read as ``types.<name>`` and written back in its wire shape."""
    target = getattr(types, name)
    if isinstance(target, type) and issubclass(target, types.MCPModel):
        return target.model_validate(data).to_wire()
    adapter: TypeAdapter[Any] = TypeAdapter(target)
    value = adapter.validate_python(data)
    return adapter.dump_python(value, mode="json", by_alias=True, exclude_none=True)


# ------------------------------------------------------------------ every name, every revision


@pytest.mark.parametrize("revision", REVISIONS)
def test_every_definition_has_its_name(revision: str) -> None:
    missing = sorted(name for name in _defs(revision) if not hasattr(types, name))
    assert not missing, f"toolwire.types lacks {revision}'s {missing}"


EXAMPLES = examples()


def test_the_examples_are_there() -> None:
    assert len(EXAMPLES) > 100  # the 2026-07-28 examples, one folder per definition


@pytest.mark.parametrize(
    ("name", "path", "data"), EXAMPLES, ids=[f"{n}/{p.stem}" for n, p, _ in EXAMPLES]
)
def test_each_example_of_the_schema_round_trips(name: str, path: Path, data: Any) -> None:
    assert _round_trip(name, data) == data


def test_the_examples_a_schema_carries_round_trip() -> None:
    """A definition's own ``examples`` (no revision has them yet; a newer copy may)."""
    for revision in REVISIONS:
        for name, schema in _defs(revision).items():
            for data in schema.get("examples", ()):
                assert _round_trip(name, data) == data, (revision, name)


def _sample(revision: str, schema: dict[str, Any], depth: int = 0) -> Any:
    """A value the schema accepts, with every optional property filled down to some depth."""
    defs = _defs(revision)
    if "$ref" in schema:
        return _sample(revision, defs[schema["$ref"].rsplit("/", 1)[1]], depth + 1)
    if "const" in schema:
        return schema["const"]
    if "enum" in schema:
        return schema["enum"][-1]
    if "allOf" in schema:
        merged: dict[str, Any] = {}
        for part in schema["allOf"]:
            merged.update(_sample(revision, part, depth))
        return merged
    if "anyOf" in schema or "oneOf" in schema:
        options = schema.get("anyOf") or schema["oneOf"]
        return _sample(revision, options[depth % len(options)], depth + 1)
    kind = schema.get("type")
    kind = kind[0] if isinstance(kind, list) else kind
    if kind == "string":
        return {
            "uri": "https://example.com/a",
            "uri-template": "file:///{path}",
            "byte": "AAEC",
            "date-time": "2025-01-01T00:00:00Z",
            "email": "a@example.com",
            "date": "2025-01-01",
        }.get(schema.get("format", ""), "text")
    if kind == "integer":
        return schema.get("minimum", 3)
    if kind == "number":
        return schema.get("minimum", 0.5)
    if kind == "boolean":
        return True
    if kind == "array":
        items = schema.get("items")
        return [_sample(revision, items, depth + 1)] if items and depth < 6 else []
    if kind == "object" or "properties" in schema:
        properties = schema.get("properties") or {}
        keys = properties if depth < 5 else schema.get("required", ())
        return {key: _sample(revision, properties[key], depth + 1) for key in keys}
    return {"any": ["json", 1]}


SAMPLES = [(rev, name) for rev in REVISIONS for name in sorted(_defs(rev))]


@pytest.mark.parametrize(("revision", "name"), SAMPLES, ids=[f"{r}-{n}" for r, n in SAMPLES])
def test_a_full_value_of_each_definition_round_trips(revision: str, name: str) -> None:
    """What each revision defines, every optional field filled, reads and writes back equal:
    one model accepts every revision's shape of its type."""
    data = _sample(revision, _defs(revision)[name])
    validate_definition(data, name, revision)  # the sample is one the schema accepts
    assert _round_trip(name, data) == data


def test_the_sampler_fills_optional_fields() -> None:
    data = _sample("2025-06-18", _defs("2025-06-18")["Tool"])
    assert {"name", "description", "inputSchema", "outputSchema", "annotations"} <= set(data)
    assert "title" in data["annotations"]


# ------------------------------------------------------------------ two spellings, one wire


def test_snake_case_and_wire_names_are_both_accepted_and_dumped_by_wire_name() -> None:
    icon = types.Icon(src="https://example.com/i.png", mime_type="image/png")
    assert icon.to_wire() == {"src": "https://example.com/i.png", "mimeType": "image/png"}
    assert icon.mime_type == icon.mimeType == "image/png"
    same = types.Icon(src="https://example.com/i.png", mimeType="image/png")
    assert same == icon

    result = types.CallToolResult(
        content=[types.TextContent(text="ok", meta={"k": 1})],
        structured_content={"a": 1},
        is_error=False,
    )
    wire = result.to_wire()
    assert wire == {
        "content": [{"type": "text", "text": "ok", "_meta": {"k": 1}}],
        "structuredContent": {"a": 1},
        "isError": False,
    }
    assert result.structuredContent == result.structured_content == {"a": 1}
    assert result.model_dump(by_alias=True, exclude_none=True) == wire
    assert types.CallToolResult.model_validate(wire) == result


def test_attributes_are_written_by_both_names() -> None:
    result = types.CallToolResult()
    result.isError = True
    assert result.is_error is True
    result.structured_content = {"x": 1}
    assert result.to_wire() == {"content": [], "isError": True, "structuredContent": {"x": 1}}


def test_every_field_reads_by_both_names() -> None:
    for name in types.__all__:
        model = getattr(types, name)
        if not (isinstance(model, type) and issubclass(model, types.MCPModel)):
            continue
        for field, info in model.model_fields.items():
            wire = info.alias or field
            assert model.__toolwire_names__[wire] == field, (name, wire)
            assert model.__toolwire_names__[field] == field, (name, field)
            assert field == field.lower() and not field.startswith("_"), (name, field)


def test_sdk_2_style_code_keeps_its_data() -> None:
    """The issue's cases: these were dropped or sent as an invalid key."""
    result = types.CallToolResult(
        content=[types.TextContent(type="text", text="22.5 C")],
        structured_content={"temperature": 22.5},
    )
    assert result.to_wire()["structuredContent"] == {"temperature": 22.5}
    tool = types.Tool(
        name="weather",
        input_schema={"type": "object"},
        output_schema={"type": "object"},
        icons=[types.Icon(src="https://example.com/w.svg", mime_type="image/svg+xml")],
    )
    assert tool.to_wire() == {
        "name": "weather",
        "inputSchema": {"type": "object"},
        "outputSchema": {"type": "object"},
        "icons": [{"src": "https://example.com/w.svg", "mimeType": "image/svg+xml"}],
    }


def test_url_objects_of_sdk_1_code_stand_for_their_text() -> None:
    resource = types.Resource(uri=FileUrl("file:///notes/a.txt"), name="a")
    assert resource.uri == "file:///notes/a.txt"
    assert resource.to_wire() == {"uri": "file:///notes/a.txt", "name": "a"}
    link = types.ResourceLink(uri=AnyUrl("https://example.com/a"), name="a")
    assert link.to_wire()["uri"] == "https://example.com/a"


# ------------------------------------------------------------------ strict


@pytest.mark.parametrize(
    ("build", "field", "nearest"),
    [
        (lambda: types.Icon(src="a", mime_typ="image/png"), "mime_typ", "mimeType"),
        (lambda: types.Icon(src="a", mimetype="image/png"), "mimetype", "mimeType"),
        (lambda: types.CallToolResult(structuredContents={}), "structuredContents", None),
        (lambda: types.CallToolResult(is_eror=True), "is_eror", "isError"),
        (lambda: types.Tool(name="t", inputschema={}), "inputschema", "inputSchema"),
        (lambda: types.TextContent(text="a", metadata={}), "metadata", "_meta"),
    ],
)
def test_an_unknown_field_is_refused_naming_it_and_the_nearest(
    build: Any, field: str, nearest: str | None
) -> None:
    with pytest.raises(ValidationError) as caught:
        build()
    message = str(caught.value)
    assert f"has no field {field!r}" in message
    if nearest is not None:
        assert f"did you mean {nearest!r}?" in message
    assert "its fields are" in message


def test_the_nearest_name_is_found_for_a_structured_content_typo() -> None:
    with pytest.raises(ValidationError, match=r"did you mean 'structuredContent'\?"):
        types.CallToolResult(structured_contnt={})


def test_an_unknown_field_inside_is_refused_too() -> None:
    with pytest.raises(ValidationError, match=r"Icon has no field 'mime'"):
        types.Tool(name="t", icons=[{"src": "a", "mime": "image/png"}])
    with pytest.raises(ValidationError, match=r"TextContent has no field 'txt'"):
        types.CallToolResult.model_validate({"content": [{"type": "text", "txt": "a"}]})


def test_setting_an_unknown_attribute_is_refused() -> None:
    icon = types.Icon(src="a")
    with pytest.raises(AttributeError, match=r"did you mean 'mimeType'\?"):
        icon.mime_typ = "image/png"  # type: ignore[attr-defined]
    assert icon.to_wire() == {"src": "a"}


def test_an_object_the_schema_leaves_open_takes_any_field() -> None:
    result = types.Result(custom={"a": 1})
    assert result.to_wire() == {"custom": {"a": 1}}


# ------------------------------------------------------------------ what a peer sent


def test_from_wire_keeps_fields_of_a_newer_revision() -> None:
    """Reading a peer's message does not break on a field a newer revision adds, and
    writing it back (to forward it) keeps that field."""
    received = {
        "name": "t",
        "inputSchema": {"type": "object"},
        "icons": [{"src": "a", "mimeType": "image/png", "density": 2}],
        "futureField": {"x": 1},
    }
    tool = types.Tool.from_wire(received)
    assert tool.name == "t"
    assert tool.model_extra == {"futureField": {"x": 1}}
    assert tool.to_wire() == received
    with pytest.raises(ValidationError, match="has no field 'futureField'"):
        types.Tool.model_validate(received)


def test_from_wire_still_checks_the_known_fields() -> None:
    with pytest.raises(ValidationError):
        types.Tool.from_wire({"inputSchema": {}})  # no name


# ------------------------------------------------------------------ on the wire


@pytest.mark.timeout(30)
@pytest.mark.parametrize("revision", ["2025-11-25", "2026-07-28"])
async def test_a_server_sends_what_snake_case_models_hold(revision: str) -> None:
    mcp = Server("types")

    @mcp.tool(icons=[types.Icon(src="https://example.com/w.png", mime_type="image/png")])
    def weather() -> types.CallToolResult:
        return types.CallToolResult(
            content=[types.TextContent(text="22.5")], structured_content={"t": 22.5}
        )

    async with checked_client(mcp, revision) as client:
        (tool,) = await client.list_tools()
        result = await client.call_tool("weather")
    assert tool["icons"] == [{"src": "https://example.com/w.png", "mimeType": "image/png"}]
    assert result.raw["structuredContent"] == {"t": 22.5}
    assert result.raw["content"] == [{"type": "text", "text": "22.5"}]
