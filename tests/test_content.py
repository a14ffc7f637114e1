"""Every kind of return value (the table at the top of toolwire/content.py) as it reaches a
client, on 2025-06-18 and 2026-07-28, through the in-memory schema-checked client."""

from __future__ import annotations

import base64
import dataclasses
import subprocess
import sys
import typing
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator
from pydantic import BaseModel, Field
from typing_extensions import TypedDict

from toolwire import Audio, File, Image, Server, types
from toolwire.content import to_result

from wire import checked_client

LEGACY = "2025-06-18"
MODERN = "2026-07-28"
BOTH = [LEGACY, MODERN]
PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 8
JPEG = b"\xff\xd8\xff\xe0" + b"\x00" * 8
WAV = b"RIFF\x24\x00\x00\x00WAVEfmt " + b"\x00" * 8
MP3 = b"ID3\x04\x00" + b"\x00" * 8


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def text(value: str) -> dict[str, Any]:
    return {"type": "text", "text": value}


def envelope(revision: str, body: dict[str, Any]) -> dict[str, Any]:
    """The exact result a client of ``revision`` receives for ``body``."""
    if revision < MODERN:
        return body
    server_info = {"name": "content", "version": "0.1.0"}
    meta = {**body.get("_meta", {}), "io.modelcontextprotocol/serverInfo": server_info}
    return {**body, "resultType": "complete", "_meta": meta}


class Point(BaseModel):
    x: int
    y: int
    label: str = "origin"


@dataclasses.dataclass
class Reading:
    sensor: str
    celsius: float


class Forecast(TypedDict):
    city: str
    high: int


def build_server() -> Server:
    mcp = Server("content", version="0.1.0")

    @mcp.tool()
    def greeting() -> str:
        return "hello"

    @mcp.tool()
    def untyped_greeting():  # type: ignore[no-untyped-def]
        return "hello"

    @mcp.tool()
    def nothing() -> None:
        return None

    @mcp.tool()
    def untyped_nothing():  # type: ignore[no-untyped-def]
        return None

    @mcp.tool()
    def count() -> int:
        return 3

    @mcp.tool()
    def ratio() -> float:
        return 0.5

    @mcp.tool()
    def flag() -> bool:
        return False

    @mcp.tool()
    def untyped_count():  # type: ignore[no-untyped-def]
        return 3

    @mcp.tool()
    def numbers() -> list[int]:
        return [1, 2, 3]

    @mcp.tool()
    def untyped_numbers():  # type: ignore[no-untyped-def]
        return [1, 2, 3]

    @mcp.tool()
    def mapping() -> dict[str, int]:
        return {"a": 1, "b": 2}

    @mcp.tool()
    def untyped_mapping():  # type: ignore[no-untyped-def]
        return {"a": 1, "b": 2}

    @mcp.tool()
    def point() -> Point:
        return Point(x=1, y=2)

    @mcp.tool()
    def untyped_point():  # type: ignore[no-untyped-def]
        return Point(x=1, y=2)

    @mcp.tool()
    def reading() -> Reading:
        return Reading("s1", 21.5)

    @mcp.tool()
    def forecast() -> Forecast:
        return {"city": "Oslo", "high": 12}

    @mcp.tool()
    def maybe_point(present: bool = True) -> Point | None:
        return Point(x=0, y=0) if present else None

    @mcp.tool()
    def image() -> Image:
        return Image(data=PNG, format="png")

    @mcp.tool()
    def audio() -> Audio:
        return Audio(data=WAV, format="wav")

    @mcp.tool()
    def file() -> File:
        return File(data=b"a,b\n1,2\n", format="csv", name="table.csv")

    @mcp.tool()
    def text_block():  # type: ignore[no-untyped-def]
        return types.TextContent(type="text", text="from a block")

    @mcp.tool()
    def image_block():  # type: ignore[no-untyped-def]
        return types.ImageContent(type="image", data=b64(PNG), mimeType="image/png")

    @mcp.tool()
    def link():  # type: ignore[no-untyped-def]
        return types.ResourceLink(uri="file:///tmp/report.pdf", name="report.pdf", title="Report")

    @mcp.tool()
    def embedded():  # type: ignore[no-untyped-def]
        return types.EmbeddedResource(
            type="resource",
            resource=types.TextResourceContents(uri="memo://1", mimeType="text/plain", text="hi"),
        )

    @mcp.tool()
    def mixed():  # type: ignore[no-untyped-def]
        return [
            "Here is the chart:",
            Image(data=PNG, format="png"),
            types.TextContent(type="text", text="and a note"),
            {"rows": 2},
            7,
        ]

    @mcp.tool()
    def whole_result():  # type: ignore[no-untyped-def]
        return types.CallToolResult(
            content=[types.TextContent(type="text", text="custom")],
            structuredContent={"custom": True},
            _meta={"example.com/trace": "t1"},
        )

    @mcp.tool()
    def whole_error():  # type: ignore[no-untyped-def]
        return types.CallToolResult(content=[types.TextContent(text="went wrong")], isError=True)

    @mcp.tool(structured_output=True)
    def structured_text() -> str:
        return "as data"

    @mcp.tool(structured_output=False)
    def unstructured_point() -> Point:
        return Point(x=1, y=2)

    return mcp


@pytest.fixture(scope="module")
def mcp() -> Server:
    return build_server()


POINT_JSON = '{"x":1,"y":2,"label":"origin"}'
POINT_DATA = {"x": 1, "y": 2, "label": "origin"}

# tool -> the result body (without the modern envelope) on 2025-06-18 and later
EXPECTED: dict[str, dict[str, Any]] = {
    "greeting": {"content": [text("hello")], "structuredContent": {"result": "hello"}},
    "untyped_greeting": {"content": [text("hello")]},
    "nothing": {"content": []},
    "untyped_nothing": {"content": []},
    "count": {"content": [text("3")], "structuredContent": {"result": 3}},
    "ratio": {"content": [text("0.5")], "structuredContent": {"result": 0.5}},
    "flag": {"content": [text("false")], "structuredContent": {"result": False}},
    "untyped_count": {"content": [text("3")]},
    # a list: one block per item, as the official SDK gives it (FastMCP: one JSON text)
    "numbers": {
        "content": [text("1"), text("2"), text("3")],
        "structuredContent": {"result": [1, 2, 3]},
    },
    "untyped_numbers": {"content": [text("1"), text("2"), text("3")]},
    "mapping": {"content": [text('{"a":1,"b":2}')], "structuredContent": {"a": 1, "b": 2}},
    "untyped_mapping": {"content": [text('{"a":1,"b":2}')], "structuredContent": {"a": 1, "b": 2}},
    "point": {"content": [text(POINT_JSON)], "structuredContent": POINT_DATA},
    "untyped_point": {"content": [text(POINT_JSON)], "structuredContent": POINT_DATA},
    "reading": {
        "content": [text('{"sensor":"s1","celsius":21.5}')],
        "structuredContent": {"sensor": "s1", "celsius": 21.5},
    },
    "forecast": {
        "content": [text('{"city":"Oslo","high":12}')],
        "structuredContent": {"city": "Oslo", "high": 12},
    },
    "maybe_point": {
        "content": [text('{"x":0,"y":0,"label":"origin"}')],
        "structuredContent": {"result": {"x": 0, "y": 0, "label": "origin"}},
    },
    "image": {"content": [{"type": "image", "data": b64(PNG), "mimeType": "image/png"}]},
    "audio": {"content": [{"type": "audio", "data": b64(WAV), "mimeType": "audio/wav"}]},
    "file": {
        "content": [
            {
                "type": "resource",
                "resource": {
                    "uri": "file:///table.csv",
                    "mimeType": "text/csv",
                    "text": "a,b\n1,2\n",
                },
            }
        ]
    },
    "text_block": {"content": [text("from a block")]},
    "image_block": {"content": [{"type": "image", "data": b64(PNG), "mimeType": "image/png"}]},
    "link": {
        "content": [
            {
                "type": "resource_link",
                "uri": "file:///tmp/report.pdf",
                "name": "report.pdf",
                "title": "Report",
            }
        ]
    },
    "embedded": {
        "content": [
            {
                "type": "resource",
                "resource": {"uri": "memo://1", "mimeType": "text/plain", "text": "hi"},
            }
        ]
    },
    "mixed": {
        "content": [
            text("Here is the chart:"),
            {"type": "image", "data": b64(PNG), "mimeType": "image/png"},
            text("and a note"),
            text('{"rows":2}'),
            text("7"),
        ]
    },
    "whole_result": {
        "content": [text("custom")],
        "structuredContent": {"custom": True},
        "_meta": {"example.com/trace": "t1"},
    },
    "whole_error": {"content": [text("went wrong")], "isError": True},
    "structured_text": {"content": [text("as data")], "structuredContent": {"result": "as data"}},
    "unstructured_point": {"content": [text(POINT_JSON)]},
}


def check_structured(tool: dict[str, Any], result: dict[str, Any]) -> None:
    """TL-22: structured content conforms to the published outputSchema."""
    schema = tool.get("outputSchema")
    if schema is None or result.get("isError"):
        return
    assert "structuredContent" in result, f"{tool['name']} declares an outputSchema"
    Draft202012Validator.check_schema(schema)
    Draft202012Validator(schema).validate(result["structuredContent"])


@pytest.mark.parametrize("revision", BOTH)
async def test_every_return_kind(mcp: Server, revision: str) -> None:
    async with checked_client(mcp, revision) as client:
        tools = {t["name"]: t for t in await client.list_tools()}
        assert set(EXPECTED) <= set(tools)
        for name, body in EXPECTED.items():
            result = await client.call_tool(name)
            assert result.raw == envelope(revision, body), name
            check_structured(tools[name], result.raw)


async def test_output_schemas_are_published_for_typed_data_only(mcp: Server) -> None:
    async with checked_client(mcp, LEGACY) as client:
        tools = {t["name"]: t for t in await client.list_tools()}
    with_schema = {name for name, tool in tools.items() if "outputSchema" in tool}
    assert with_schema == {
        "greeting",
        "count",
        "ratio",
        "flag",
        "numbers",
        "mapping",
        "point",
        "reading",
        "forecast",
        "maybe_point",
        "structured_text",
    }
    assert tools["point"]["outputSchema"] == {
        "type": "object",
        "properties": {
            "x": {"type": "integer"},
            "y": {"type": "integer"},
            "label": {"type": "string", "default": "origin"},
        },
        "required": ["x", "y"],
    }
    assert tools["greeting"]["outputSchema"] == {
        "type": "object",
        "properties": {"result": {"type": "string"}},
        "required": ["result"],
    }
    assert tools["count"]["outputSchema"] == {
        "type": "object",
        "properties": {"result": {"type": "integer"}},
        "required": ["result"],
    }
    assert tools["forecast"]["outputSchema"] == {
        "type": "object",
        "properties": {"city": {"type": "string"}, "high": {"type": "integer"}},
        "required": ["city", "high"],
    }


async def test_none_where_an_optional_model_is_declared(mcp: Server) -> None:
    async with checked_client(mcp, MODERN) as client:
        [tool] = [t for t in await client.list_tools() if t["name"] == "maybe_point"]
        result = await client.call_tool("maybe_point", {"present": False})
    assert result.raw == envelope(MODERN, {"content": [], "structuredContent": {"result": None}})
    check_structured(tool, result.raw)


async def test_a_legacy_2024_client_sees_no_structured_content_and_no_audio(mcp: Server) -> None:
    async with checked_client(mcp, "2024-11-05") as client:
        tools = {t["name"]: t for t in await client.list_tools()}
        assert not any("outputSchema" in t for t in tools.values())
        for name in ("count", "point", "untyped_mapping", "whole_result", "structured_text"):
            result = await client.call_tool(name)
            assert "structuredContent" not in result.raw, name
            assert result.raw["content"] == EXPECTED[name]["content"]
        assert (await client.call_tool("whole_result")).raw == {"content": [text("custom")]}
        audio = await client.call_tool("audio")
        assert audio.raw == {"content": [text("[audio content (audio/wav)]")]}
        link = await client.call_tool("link")
        assert link.raw == {"content": [text("Resource: Report <file:///tmp/report.pdf>")]}


async def test_2025_03_26_has_audio_but_no_resource_links(mcp: Server) -> None:
    async with checked_client(mcp, "2025-03-26") as client:
        assert (await client.call_tool("audio")).raw == EXPECTED["audio"]
        link = await client.call_tool("link")
        assert link.raw == {"content": [text("Resource: Report <file:///tmp/report.pdf>")]}


# ---------------------------------------------------------------- media from paths and bytes


@pytest.mark.parametrize(
    ("filename", "kind", "mime"),
    [
        ("chart.png", Image, "image/png"),
        ("photo.JPG", Image, "image/jpeg"),
        ("photo.jpeg", Image, "image/jpeg"),
        ("anim.gif", Image, "image/gif"),
        ("note.wav", Audio, "audio/wav"),
        ("song.mp3", Audio, "audio/mpeg"),
    ],
)
async def test_media_from_a_path(tmp_path: Path, filename: str, kind: type, mime: str) -> None:
    path = tmp_path / filename
    path.write_bytes(PNG)
    mcp = Server("content", version="0.1.0")

    @mcp.tool()
    def media(as_string: bool = False):  # type: ignore[no-untyped-def]
        return kind(path=str(path) if as_string else path)

    block = {"type": kind.__name__.lower(), "data": b64(PNG), "mimeType": mime}
    for revision in BOTH:
        async with checked_client(mcp, revision) as client:
            for as_string in (False, True):
                result = await client.call_tool("media", {"as_string": as_string})
                assert result.raw == envelope(revision, {"content": [block]})


@pytest.mark.parametrize(
    ("kind", "data", "mime"),
    [
        (Image, PNG, "image/png"),
        (Image, JPEG, "image/jpeg"),
        (Image, b"GIF89a" + b"\x00" * 6, "image/gif"),
        (Image, b"RIFF\x00\x00\x00\x00WEBPVP8 ", "image/webp"),
        (Image, b"no signature at all", "image/png"),  # the official SDK's default
        (Audio, WAV, "audio/wav"),
        (Audio, MP3, "audio/mpeg"),
        (Audio, b"OggS\x00\x02", "audio/ogg"),
        (Audio, b"fLaC\x00\x00", "audio/flac"),
        (Audio, b"\x00\x01\x02", "audio/wav"),
        (File, b"%PDF-1.7\n", "application/pdf"),
        (File, b"\x00\x01\x02", "application/octet-stream"),
    ],
)
def test_mime_type_guessed_from_bytes(kind: type, data: bytes, mime: str) -> None:
    assert kind(data=data).mime_type == mime


@pytest.mark.parametrize(
    ("kind", "fmt", "mime"),
    [
        (Image, "png", "image/png"),
        (Image, "PNG", "image/png"),
        (Image, "jpg", "image/jpeg"),
        (Image, "jpeg", "image/jpeg"),
        (Image, "svg", "image/svg+xml"),
        (Image, "image/avif", "image/avif"),
        (Audio, "wav", "audio/wav"),
        (Audio, "mp3", "audio/mpeg"),
        (Audio, "ogg", "audio/ogg"),
        (File, "json", "application/json"),
        (File, "txt", "text/plain"),
        (File, "pdf", "application/pdf"),
    ],
)
def test_mime_type_from_format(kind: type, fmt: str, mime: str) -> None:
    assert kind(data=b"\x00", format=fmt).mime_type == mime


@pytest.mark.parametrize(
    ("kind", "name", "mime"),
    [
        (Image, "photo.jpg", "image/jpeg"),
        (Audio, "song.mp3", "audio/mpeg"),
        (File, "notes.txt", "text/plain"),
        # an image or audio file whose name says another kind, or nothing: as the SDK says
        (Image, "notes.txt", "application/octet-stream"),
        (Audio, "notes.txt", "application/octet-stream"),
        (Image, "no_suffix", "application/octet-stream"),
    ],
)
def test_mime_type_from_the_file_name(kind: type, name: str, mime: str) -> None:
    assert kind(path=name).mime_type == mime


def test_an_explicit_mime_type_wins_and_exactly_one_source_is_needed(tmp_path: Path) -> None:
    assert Image(data=PNG, mime_type="image/x-custom").mime_type == "image/x-custom"
    with pytest.raises(ValueError, match="exactly one"):
        Image()
    with pytest.raises(ValueError, match="exactly one"):
        Image(path=tmp_path / "a.png", data=PNG)


async def test_files_become_embedded_resources(tmp_path: Path) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text("first line\nsecond line\n", encoding="utf-8")
    data = tmp_path / "data.json"
    data.write_text('{"a": 1}', encoding="utf-8")
    blob = tmp_path / "archive.bin"
    blob.write_bytes(b"\x00\xffbinary")
    spaced = "my report.pdf"
    mcp = Server("content", version="0.1.0")

    @mcp.tool()
    def attach(which: str) -> File:
        if which == "bytes":
            return File(data=b"%PDF-1.4", name=spaced)
        return File(path=tmp_path / which)

    async with checked_client(mcp, LEGACY) as client:
        result = await client.call_tool("attach", {"which": "notes.txt"})
        assert result.raw == {
            "content": [
                {
                    "type": "resource",
                    "resource": {
                        "uri": notes.resolve().as_uri(),
                        "mimeType": "text/plain",
                        "text": "first line\nsecond line\n",
                    },
                }
            ]
        }
        result = await client.call_tool("attach", {"which": "data.json"})
        assert result.content[0]["resource"] == {
            "uri": data.resolve().as_uri(),
            "mimeType": "application/json",
            "text": '{"a": 1}',
        }
        result = await client.call_tool("attach", {"which": "archive.bin"})
        assert result.content[0]["resource"] == {
            "uri": blob.resolve().as_uri(),
            "mimeType": "application/octet-stream",
            "blob": b64(b"\x00\xffbinary"),
        }
        result = await client.call_tool("attach", {"which": "bytes"})
        assert result.content[0]["resource"] == {
            "uri": "file:///my%20report.pdf",
            "mimeType": "application/pdf",
            "blob": b64(b"%PDF-1.4"),
        }


async def test_a_missing_file_is_an_error_result(tmp_path: Path) -> None:
    mcp = Server("content", version="0.1.0")
    missing = tmp_path / "gone.png"

    @mcp.tool()
    def picture() -> Image:
        return Image(path=missing)

    async with checked_client(mcp, LEGACY) as client:
        result = await client.call_tool("picture")
    assert result.is_error
    assert str(tmp_path) not in result.text


# ---------------------------------------------------------------- return value vs declared type


@pytest.mark.parametrize("revision", BOTH)
async def test_a_return_value_that_does_not_fit_the_declared_type_is_an_error(
    revision: str,
) -> None:
    mcp = Server("content", version="0.1.0")

    @mcp.tool()
    def count() -> int:
        return "abc"  # type: ignore[return-value]

    @mcp.tool()
    def numbers() -> list[int]:
        return ["one"]  # type: ignore[list-item]

    @mcp.tool()
    def point() -> Point:
        return {"x": "left"}  # type: ignore[return-value]

    @mcp.tool()
    def nothing_there() -> Point:
        return None  # type: ignore[return-value]

    @mcp.tool()
    def boolean_as_int() -> int:
        return True

    async with checked_client(mcp, revision) as client:
        for name in ("count", "numbers", "point", "nothing_there", "boolean_as_int"):
            result = await client.call_tool(name)
            assert result.is_error, name
            assert result.structured is None, name
            assert result.text.startswith(
                f"Tool '{name}' returned a result that does not match its output schema"
            ), result.text


async def test_a_value_json_has_no_form_for_is_sent_as_its_str() -> None:
    """As the official SDK and FastMCP send it; a value that cannot be written at all (a
    cycle) is still an error result."""
    mcp = Server("content", version="0.1.0")

    class Opaque:
        def __str__(self) -> str:
            return "an opaque thing"

    @mcp.tool()
    def weird():  # type: ignore[no-untyped-def]
        return Opaque()

    @mcp.tool()
    def inside() -> dict[str, Any]:
        return {"thing": Opaque(), "n": 1}

    @mcp.tool()
    def cycle():  # type: ignore[no-untyped-def]
        loop: list[Any] = []
        loop.append(loop)
        return loop

    async with checked_client(mcp, LEGACY) as client:
        weird_result = await client.call_tool("weird")
        inside_result = await client.call_tool("inside")
        cycle_result = await client.call_tool("cycle")
    assert not weird_result.is_error
    assert weird_result.raw["content"] == [{"type": "text", "text": '"an opaque thing"'}]
    assert inside_result.structured == {"thing": "an opaque thing", "n": 1}
    assert cycle_result.is_error
    assert cycle_result.text.startswith("Tool 'cycle' returned a value that cannot be sent")


async def test_content_block_annotations_publish_no_output_schema() -> None:
    mcp = Server("content", version="0.1.0")

    @mcp.tool()
    def blocks() -> list[types.TextContent]:
        return [types.TextContent(type="text", text="a")]

    @mcp.tool()
    def whole() -> types.CallToolResult:
        return types.CallToolResult(content=[types.TextContent(type="text", text="b")])

    @mcp.tool()
    def one_image() -> types.ImageContent:
        return types.ImageContent(type="image", data=b64(PNG), mimeType="image/png")

    @mcp.tool()
    def either() -> list[types.TextContent | types.ImageContent]:
        return [types.TextContent(type="text", text="c")]

    @mcp.tool()
    def helpers() -> list[str | Image]:
        return ["d", Image(data=PNG)]

    async with checked_client(mcp, LEGACY) as client:
        tools = await client.list_tools()
        assert (await client.call_tool("blocks")).raw == {"content": [text("a")]}
        assert (await client.call_tool("whole")).raw == {"content": [text("b")]}
        assert (await client.call_tool("either")).raw == {"content": [text("c")]}
        assert (await client.call_tool("helpers")).raw == {
            "content": [text("d"), {"type": "image", "data": b64(PNG), "mimeType": "image/png"}]
        }
    assert [t.get("outputSchema") for t in tools] == [None] * 5


class PlainWeather(typing.TypedDict):
    city: str
    celsius: float


@pytest.mark.skipif(sys.version_info >= (3, 12), reason="pydantic accepts typing.TypedDict")
async def test_a_typing_typed_dict_return_has_an_output_schema() -> None:
    """Tutorials use ``typing.TypedDict``, which pydantic refuses before Python 3.12."""
    mcp = Server("content", version="0.1.0")

    @mcp.tool()
    def weather() -> PlainWeather:
        return {"city": "Oslo", "celsius": 4.0}

    async with checked_client(mcp, LEGACY) as client:
        [tool] = await client.list_tools()
    assert tool["outputSchema"] == {
        "type": "object",
        "properties": {"city": {"type": "string"}, "celsius": {"type": "number"}},
        "required": ["city", "celsius"],
    }


# ---------------------------------------------------------------- to_result directly


def test_to_result_without_a_schema() -> None:
    assert to_result("x", None) == {"content": [text("x")]}
    assert to_result(None, None) == {"content": []}
    assert to_result({"a": {1, 2}}, None) == {
        "content": [text('{"a":[1,2]}')],
        "structuredContent": {"a": [1, 2]},
    }
    assert to_result({"a": 1}, None, structured=False) == {"content": [text('{"a":1}')]}
    assert to_result(Point(x=1, y=2), None)["structuredContent"] == POINT_DATA
    assert to_result([Point(x=1, y=2)], None) == {"content": [text(f"[{POINT_JSON}]")]}


def test_models_dump_by_alias() -> None:
    class Aliased(BaseModel):
        full_name: str = Field(alias="fullName")

    assert to_result(Aliased(fullName="Ada"), None)["structuredContent"] == {"fullName": "Ada"}


def test_from_toolwire_import_types_in_a_fresh_interpreter() -> None:
    code = "from toolwire import types; print(types.TextContent(text='ok').text)"
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=30, check=False
    )
    assert done.returncode == 0, done.stderr[-500:]
    assert done.stdout.strip() == "ok"


@pytest.mark.parametrize("revision", BOTH)
async def test_a_list_is_one_block_per_item_on_server_and_one_json_text_on_fastmcp(
    revision: str,
) -> None:
    """The official SDK's way and FastMCP's, each on the class ``toolwire migrate`` writes
    for it; ``structuredContent`` is the same either way."""
    from toolwire import FastMCP

    def define(mcp: Server) -> None:
        @mcp.tool()
        def cities() -> list[str]:
            return ["London", "Paris"]

        @mcp.tool()
        def rows() -> list[dict[str, int]]:
            return [{"a": 1}, {"b": 2}]

        @mcp.tool()
        def none() -> list[str]:
            return []

        @mcp.tool()
        def mixed():  # type: ignore[no-untyped-def]
            return [["a", "b"], None, 3]

        @mcp.tool(split_lists=False)
        def whole() -> list[str]:
            return ["x", "y"]

    sdk_style, fastmcp_style = Server("sdk"), FastMCP("fastmcp")
    define(sdk_style)
    define(fastmcp_style)
    seen: dict[str, dict[str, Any]] = {}
    for label, mcp in (("sdk", sdk_style), ("fastmcp", fastmcp_style)):
        async with checked_client(mcp, revision) as client:
            for name in ("cities", "rows", "none", "mixed", "whole"):
                result = await client.call_tool(name)
                assert not result.is_error, (label, name)
                seen[f"{label} {name}"] = {
                    "texts": [block["text"] for block in result.raw["content"]],
                    "structured": result.structured,
                }
    assert seen["sdk cities"] == {
        "texts": ["London", "Paris"],
        "structured": {"result": ["London", "Paris"]},
    }
    assert seen["fastmcp cities"] == {
        "texts": ['["London","Paris"]'],
        "structured": {"result": ["London", "Paris"]},
    }
    assert seen["sdk rows"]["texts"] == ['{"a":1}', '{"b":2}']
    assert seen["fastmcp rows"]["texts"] == ['[{"a":1},{"b":2}]']
    assert seen["sdk none"] == seen["fastmcp none"] == {"texts": [], "structured": {"result": []}}
    assert seen["sdk mixed"] == {"texts": ["a", "b", "3"], "structured": None}
    assert seen["fastmcp mixed"] == {"texts": ['[["a","b"],null,3]'], "structured": None}
    assert seen["sdk whole"]["texts"] == seen["fastmcp whole"]["texts"] == ['["x","y"]']


async def test_content_blocks_under_an_output_schema_fail_the_call_saying_why() -> None:
    # a result without structuredContent where the tool publishes an output schema is one the
    # official client refuses: the call fails instead, as FastMCP fails it (a real server's
    # `-> dict` tools returned [TextContent(...)])
    mcp = Server("blocks")

    @mcp.tool()
    def mislabelled(index: str) -> dict:  # type: ignore[type-arg]
        return [types.TextContent(type="text", text=index)]  # type: ignore[return-value]

    @mcp.tool()
    def one_block(index: str) -> dict:  # type: ignore[type-arg]
        return Image(data=PNG, format="png")  # type: ignore[return-value]

    @mcp.tool()
    def labelled(index: str) -> list[types.TextContent]:
        return [types.TextContent(type="text", text=index)]

    @mcp.tool()
    def mixed(index: str) -> list[object]:  # like list[Any]: no output schema is promised
        return [index, types.TextContent(type="text", text="!")]

    async with checked_client(mcp, LEGACY) as client:
        for name in ("mislabelled", "one_block"):
            failed = await client.call_tool(name, {"index": "a"})
            assert failed.is_error and "annotate the tool -> list[TextContent]" in failed.text
        fine = await client.call_tool("labelled", {"index": "a"})
        assert (fine.is_error, fine.text) == (False, "a")
        listed = {tool["name"]: tool for tool in await client.list_tools()}
        assert "outputSchema" not in listed["mixed"] and "outputSchema" in listed["mislabelled"]
        both = await client.call_tool("mixed", {"index": "a"})
        assert [block["text"] for block in both.content] == ["a", "!"]
