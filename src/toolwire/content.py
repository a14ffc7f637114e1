"""Turning what a tool returns into an MCP ``tools/call`` result.

=====================================  =================================================
tool returns                           result
=====================================  =================================================
``str``                                one text block
``None``                               no content
``Image`` / ``Audio`` / ``File``       an image, audio or embedded-resource block
a content block (``types.*Content``,   that block; a list mixing them with strings gives
``ResourceLink``, ``EmbeddedResource``)  one block per item
``types.CallToolResult``               passed through as it is
``types.InputRequiredResult``          its questions are asked, then the tool runs again
                                       and reads the answers in ``ctx.input_responses``
``ToolResult(content=...,              FastMCP's: the content (converted as above), the
structured_content=..., meta=...)``    ``structuredContent`` and ``_meta`` as given
anything else (numbers, lists, dicts,  the JSON as text, plus ``structuredContent`` when
models, dataclasses, TypedDicts)       the tool has an output schema or the value is an object;
                                       a list or tuple on :class:`toolwire.Server`: one block
                                       per item, as the official SDK gives it (its text, or
                                       its JSON), with ``structuredContent`` as above
=====================================  =================================================

A tool declared with ``structured_output=False`` never gets ``structuredContent``.
JSON has no NaN nor Infinity: a result whose data holds a non-finite float (``float("nan")``
where the output schema says ``number``, or inside any list or dict, with or without an
output schema) is refused with :class:`NonFiniteNumber`, which the tool turns into an
``isError`` result naming it; it is never sent as ``null``. A lone surrogate in a string
(a file name that is not UTF-8) is sent as U+FFFD, in the text and ``structuredContent``
alike (see :mod:`toolwire.jsonrpc`). The MIME
type of ``Image``/``Audio``/``File`` comes from ``format``, else the file name
(``application/octet-stream`` for an image or audio file whose name says another kind, as
the official SDK says), else the data's signature (PNG, JPEG, GIF, WebP, WAV, MP3, Ogg,
FLAC, PDF), else ``image/png`` / ``audio/wav`` / ``application/octet-stream`` (the official
SDK's defaults).
"""

from __future__ import annotations

import base64
import math
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

import orjson

from . import jsonrpc

if TYPE_CHECKING:
    from .schema.function import FunctionSchema

JSON = dict[str, Any]


# `format="jpg"` means image/jpeg: the subtypes whose name differs from the usual extension.
_FORMAT_ALIASES = {"jpg": "jpeg", "svg": "svg+xml", "tif": "tiff", "mp3": "mpeg", "m4a": "mp4"}
# Names some systems' MIME tables use for types with a registered name.
_MIME_ALIASES = {
    "audio/x-wav": "audio/wav",
    "audio/wave": "audio/wav",
    "audio/x-flac": "audio/flac",
}
# Signatures of common formats, for bytes that come without a name or a format.
_MAGIC = (
    (b"\x89PNG\r\n\x1a\n", "image/png"),
    (b"\xff\xd8\xff", "image/jpeg"),
    (b"GIF87a", "image/gif"),
    (b"GIF89a", "image/gif"),
    (b"ID3", "audio/mpeg"),
    (b"OggS", "audio/ogg"),
    (b"fLaC", "audio/flac"),
    (b"%PDF-", "application/pdf"),
)
_RIFF = {b"WEBP": "image/webp", b"WAVE": "audio/wav"}


def _guess_from_name(name: str) -> str | None:
    import mimetypes  # lazy: only when a MIME type has to be guessed

    guessed = mimetypes.guess_type(name)[0]
    return _MIME_ALIASES.get(guessed, guessed) if guessed else None


def _sniff(data: bytes) -> str | None:
    if data[:4] == b"RIFF":
        return _RIFF.get(data[8:12])
    for magic, mime in _MAGIC:
        if data.startswith(magic):
            return mime
    if data[:2] in (b"\xff\xfb", b"\xff\xf3", b"\xff\xf2"):  # an MPEG audio frame
        return "audio/mpeg"
    return None


class _Media:
    """Binary content from a path or bytes; the MIME type is guessed from the name if not given."""

    __toolwire_content__ = True
    _kind = "application"
    _default_mime = "application/octet-stream"

    def __init__(
        self,
        path: str | Path | None = None,
        data: bytes | None = None,
        format: str | None = None,
        *,
        mime_type: str | None = None,
    ) -> None:
        if (path is None) == (data is None):
            raise ValueError(f"{type(self).__name__} needs exactly one of path or data")
        self.path = Path(path) if path is not None else None
        self.data = data
        self.mime_type = mime_type or self._guess_mime(format)

    def _guess_mime(self, format: str | None) -> str:
        """From ``format``, else the file name, else the data's signature, else a default."""
        if format:
            if "/" in format:
                return format
            format = format.lower().lstrip(".")
            if self._kind == "application":
                return _guess_from_name(f"file.{format}") or f"application/{format}"
            return f"{self._kind}/{_FORMAT_ALIASES.get(format, format)}"
        if self.path is not None:
            guessed = _guess_from_name(self.path.name)
            if self._kind == "application" or (guessed or "").startswith(f"{self._kind}/"):
                return guessed or self._default_mime
            # an Image or Audio file whose name says another kind: as the official SDK says
            return "application/octet-stream"
        if self.data is not None:
            sniffed = _sniff(self.data)
            if sniffed:
                return sniffed
        return self._default_mime

    def read(self) -> bytes:
        if self.data is not None:
            return self.data
        assert self.path is not None
        return self.path.read_bytes()

    def base64(self) -> str:
        return base64.b64encode(self.read()).decode("ascii")

    def to_block(self) -> JSON:
        raise NotImplementedError


class Image(_Media):
    """An image for the model: ``return Image(path="chart.png")`` or ``Image(data=png, format="png")``."""

    _kind = "image"
    _default_mime = "image/png"

    def to_block(self) -> JSON:
        return {"type": "image", "data": self.base64(), "mimeType": self.mime_type}

    def to_image_content(self) -> Any:
        """This image as a ``toolwire.types.ImageContent`` (the official SDK's method), to
        put in a prompt message or a ``CallToolResult``."""
        from .types import ImageContent  # lazy: the full MCP types, only for the SDK-style API

        return ImageContent.model_validate(self.to_block())


class Audio(_Media):
    """A sound clip: ``return Audio(path="note.wav")``."""

    _kind = "audio"
    _default_mime = "audio/wav"

    def to_block(self) -> JSON:
        return {"type": "audio", "data": self.base64(), "mimeType": self.mime_type}

    def to_audio_content(self) -> Any:
        """This clip as a ``toolwire.types.AudioContent`` (the official SDK's method)."""
        from .types import AudioContent  # lazy: the full MCP types, only for the SDK-style API

        return AudioContent.model_validate(self.to_block())


class File(_Media):
    """A file, sent as an embedded resource (text when its MIME type is textual, else base64)."""

    def __init__(
        self,
        path: str | Path | None = None,
        data: bytes | None = None,
        format: str | None = None,
        *,
        mime_type: str | None = None,
        name: str | None = None,
    ) -> None:
        super().__init__(path, data, format, mime_type=mime_type)
        self.name = name or (self.path.name if self.path is not None else "file")

    def to_block(self) -> JSON:
        if self.path is not None:
            uri = self.path.resolve().as_uri()
        else:
            uri = f"file:///{quote(self.name)}"
        resource: JSON = {"uri": uri, "mimeType": self.mime_type}
        raw = self.read()
        if self.mime_type.startswith("text/") or self.mime_type in _TEXTUAL:
            try:
                resource["text"] = raw.decode("utf-8")
            except UnicodeDecodeError:
                resource["blob"] = base64.b64encode(raw).decode("ascii")
        else:
            resource["blob"] = base64.b64encode(raw).decode("ascii")
        return {"type": "resource", "resource": resource}


_TEXTUAL = {"application/json", "application/xml", "application/yaml", "application/x-yaml"}
_BLOCK_TYPES = {"text", "image", "audio", "resource_link", "resource"}


def _types_module() -> Any:
    # toolwire.types imports pydantic; only look at it if the user did.
    return sys.modules.get("toolwire.types")


def is_content(value: Any) -> bool:
    """Whether ``value`` is a content object (a media helper or a ``types`` content block)."""
    if isinstance(value, _Media):
        return True
    types = _types_module()
    return (
        types is not None
        and isinstance(value, types.MCPModel)
        and getattr(value, "type", None) in _BLOCK_TYPES
    )


def content_block(value: Any) -> JSON | None:
    """The wire block for a content object, or None if ``value`` is not one."""
    if isinstance(value, _Media):
        return value.to_block()
    if is_content(value):
        return value.to_wire()  # type: ignore[no-any-return]
    return None


def text_result(text: str, *, is_error: bool = False) -> JSON:
    result: JSON = {"content": [{"type": "text", "text": text}]}
    if is_error:
        result["isError"] = True
    return result


def _json_default(value: Any) -> Any:
    if hasattr(value, "model_dump"):
        return value.model_dump(mode="json", by_alias=True)
    if isinstance(value, (set, frozenset)):
        return list(value)
    raise TypeError(f"{type(value).__name__} is not JSON serializable")


class NonFiniteNumber(ValueError):
    """A result holds NaN or an infinity, which JSON cannot carry."""


def to_json_text(value: Any) -> str:
    """``value`` as compact JSON text; lone surrogates become U+FFFD, and a value JSON
    cannot carry without loss (an unknown type, a cycle) raises ``TypeError``."""
    try:
        return orjson.dumps(value, default=_json_default).decode()
    except orjson.JSONEncodeError:
        data, lossy = jsonrpc.encode_clean(value, _json_default)
        if lossy:
            raise TypeError(f"not JSON: {lossy}") from None
        return data.decode()


def _non_finite(value: Any, where: str) -> str | None:
    """Where the first non-finite float in JSON data is, or None."""
    if type(value) is float:
        return None if math.isfinite(value) else f"{where} is {value!r}"
    if isinstance(value, dict):
        for key, item in value.items():
            found = _non_finite(item, f"{where}[{key!r}]")
            if found:
                return found
    elif isinstance(value, (list, tuple)):
        for index, item in enumerate(value):
            found = _non_finite(item, f"{where}[{index}]")
            if found:
                return found
    elif isinstance(value, float) and not math.isfinite(value):
        return f"{where} is {float(value)!r}"
    return None


def _check_finite(data: Any, text: str) -> None:
    """Refuse NaN and infinities, which orjson would write as ``null``. Only a text that
    holds ``null`` can come from one, so the walk is skipped on the common path."""
    if "null" in text:
        found = _non_finite(data, "result")
        if found:
            raise NonFiniteNumber(f"{found}, not a finite number (JSON has no NaN or Infinity)")


def _blocks_under_schema() -> JSON:
    """The answer to content blocks from a tool whose return annotation publishes an output
    schema: such a result must carry ``structuredContent`` (clients refuse one without), so
    the call fails, saying why, as FastMCP fails it."""
    return text_result(
        "The tool returned content blocks, but its return annotation publishes an output "
        "schema, whose results must be structured data: return the data, or annotate the "
        "tool -> list[TextContent] (or leave the annotation out)",
        is_error=True,
    )


def to_result(
    value: Any,
    schema: FunctionSchema | None,
    *,
    structured: bool = True,
    clean: Callable[[Any], Any] | None = None,
    split_lists: bool = False,
) -> JSON:
    """The internal (newest-revision) ``CallToolResult`` for a tool's return value.

    ``structured=False`` (a tool declared with ``structured_output=False``) never adds
    ``structuredContent``. ``clean`` rewrites JSON data (e.g. strips control sequences from
    every string); a value's data is cleaned before it is rendered as text, so the text
    block and ``structuredContent`` agree. ``split_lists=True`` gives a list or tuple one
    block per item (nested lists flattened, ``None`` items left out), as the official SDK
    does; otherwise it is one JSON text, as FastMCP does. An empty list gives no block
    either way, as both give it.
    """
    if isinstance(value, str) and (schema is None or schema.output_schema is None):
        return {"content": [{"type": "text", "text": value if clean is None else clean(value)}]}
    if value is None and (schema is None or schema.output_schema is None):
        return {"content": []}
    types = _types_module()
    if types is not None and isinstance(value, (types.CallToolResult, types.InputRequiredResult)):
        wire: JSON = value.to_wire()
        return wire if clean is None else clean(wire)
    if isinstance(value, ToolResult):
        wire = value.to_wire()
        return wire if clean is None else clean(wire)
    block = content_block(value)
    if block is not None:
        if schema is not None and schema.output_schema is not None:
            return _blocks_under_schema()
        return {"content": [block if clean is None else clean(block)]}
    if isinstance(value, (list, tuple)) and any(is_content(item) for item in value):
        if schema is not None and schema.output_schema is not None:
            return _blocks_under_schema()
        blocks = [_mixed_block(item) for item in value]
        return {"content": blocks if clean is None else clean(blocks)}

    if schema is not None:
        data = schema.dump_output(value)
        if clean is not None:
            data = clean(data)
        if schema.output_schema is not None:
            payload = {"result": data} if schema.wraps_result else data
            if data is None:  # no block, as the official SDK and FastMCP send it
                return {"content": [], "structuredContent": payload}
            if isinstance(data, str):
                text = data
            elif schema.text_of_str:
                text = to_json_text(str(value))
            else:
                text = to_json_text(data)
                _check_finite(data, text)
            if isinstance(data, list) and (split_lists or not data):
                return {"content": _item_blocks(data), "structuredContent": payload}
            return {"content": [{"type": "text", "text": text}], "structuredContent": payload}
    else:
        text = to_json_text(value)
        _check_finite(value, text)
        data = orjson.loads(text)
        if clean is not None:
            data = clean(data)
    text = to_json_text(data)
    _check_finite(data, text)
    if isinstance(data, list) and (split_lists or not data):
        return {"content": _item_blocks(data)}
    result: JSON = {"content": [{"type": "text", "text": text}]}
    if structured and isinstance(data, dict):
        result["structuredContent"] = data
    return result


def _item_blocks(items: list[Any]) -> list[JSON]:
    """One block per item of JSON data: a string as its text, anything else as its JSON."""
    blocks: list[JSON] = []
    for item in items:
        if isinstance(item, list):
            blocks += _item_blocks(item)
        elif isinstance(item, str):
            blocks.append({"type": "text", "text": item})
        elif item is not None:
            blocks.append({"type": "text", "text": to_json_text(item)})
    return blocks


def _mixed_block(item: Any) -> JSON:
    if isinstance(item, str):
        return {"type": "text", "text": item}
    block = content_block(item)
    if block is not None:
        return block
    text = to_json_text(item)
    _check_finite(item, text)
    return {"type": "text", "text": text}


class ToolResult:
    """A whole ``tools/call`` result, as FastMCP's ``ToolResult`` builds it::

        return ToolResult(
            content=f"{len(rows)} rows",                 # text, a block, a list of them, data
            structured_content={"rows": rows},           # a dict (or a model / dataclass)
            meta={"elapsed_ms": 12},                     # the result's _meta
        )

    ``content`` becomes blocks as a tool's return value does (a string: one text block;
    ``Image``/content blocks as they are; a list: one block per item; other data: its
    JSON); without ``content``, the JSON of ``structured_content`` is the text. Unlike a
    plain return value, ``structured_content`` is sent as given, not checked against the
    tool's output schema. ``is_error=True`` marks the result as an error.
    """

    __slots__ = ("content", "is_error", "meta", "structured_content")
    __toolwire_content__ = True  # a tool returning it publishes no output schema

    def __init__(
        self,
        content: Any = None,
        structured_content: Any = None,
        meta: JSON | None = None,
        is_error: bool = False,
    ) -> None:
        if content is None and structured_content is None:
            raise ValueError("ToolResult needs content, structured_content or both")
        if structured_content is not None:
            text = to_json_text(structured_content)
            structured_content = orjson.loads(text)
            if not isinstance(structured_content, dict):
                raise ValueError(
                    "structured_content must be an object (a dict, a model, a dataclass), "
                    f"not {type(structured_content).__name__}: wrap it, e.g. "
                    '{"result": value}'
                )
        if meta is not None and not isinstance(meta, dict):
            raise TypeError(f"meta must be a dict, not {type(meta).__name__}")
        self.content = structured_content if content is None else content
        self.structured_content = structured_content
        self.meta = meta
        self.is_error = is_error

    def __repr__(self) -> str:
        return (
            f"ToolResult(content={self.content!r}, structured_content="
            f"{self.structured_content!r}, meta={self.meta!r})"
        )

    def to_wire(self) -> JSON:
        """The internal ``CallToolResult`` dict."""
        content = self.content
        if isinstance(content, str):
            blocks = [{"type": "text", "text": content}]
        elif isinstance(content, (list, tuple)):
            blocks = [_mixed_block(item) for item in content]
        else:
            blocks = [_mixed_block(content)]
        result: JSON = {"content": blocks}
        if self.structured_content is not None:
            result["structuredContent"] = self.structured_content
        if self.meta is not None:
            result["_meta"] = self.meta
        if self.is_error:
            result["isError"] = True
        return result
