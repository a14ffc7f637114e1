"""What a resource function returns, as ``resources/read`` contents."""

from __future__ import annotations

import base64
import dataclasses
import typing
from typing import Any

from ..content import _TEXTUAL, _guess_from_name, _Media, _sniff, to_json_text

JSON = dict[str, Any]


def to_contents(value: Any, uri: str, mime_type: str | None = None) -> list[JSON]:
    """The ``resources/read`` contents for what a resource function returned.

    ==========================================  ===========================================
    returns                                     contents
    ==========================================  ===========================================
    ``str``                                     text (``mime_type``, else a textual type
                                                guessed from the URI, else ``text/plain``)
    ``bytes``                                   base64 blob (``mime_type``, else guessed
                                                from the URI or the data's signature)
    ``File`` / ``Image`` / ``Audio``            text if the type is textual, else blob
    ``types.TextResourceContents`` / ``Blob…``  as given (``uri`` defaults to the URI read)
    a list or tuple of the above                one item per element (several contents)
    anything else (dicts, lists, models,        its JSON as text, ``application/json``
    dataclasses, numbers)
    ==========================================  ===========================================
    """
    if isinstance(value, (list, tuple)) and value and all(_is_single(v) for v in value):
        return [_one(item, uri, mime_type) for item in value]
    return [_one(value, uri, mime_type)]


def _is_single(value: Any) -> bool:
    return isinstance(value, (str, bytes, bytearray, _Media)) or _contents_model(value)


def _contents_model(value: Any) -> bool:
    return (
        hasattr(value, "to_wire")
        and hasattr(value, "uri")
        and (hasattr(value, "text") or hasattr(value, "blob"))
    )


def _one(value: Any, uri: str, mime_type: str | None) -> JSON:
    if isinstance(value, str):
        return {"uri": uri, "mimeType": mime_type or _textual_guess(uri), "text": value}
    if isinstance(value, (bytes, bytearray)):
        data = bytes(value)
        mime = mime_type or _guess_from_name(_name_of(uri)) or _sniff(data)
        return {
            "uri": uri,
            "mimeType": mime or "application/octet-stream",
            "blob": base64.b64encode(data).decode("ascii"),
        }
    if isinstance(value, _Media):
        mime = mime_type or value.mime_type
        raw = value.read()
        if mime.startswith("text/") or mime in _TEXTUAL:
            try:
                return {"uri": uri, "mimeType": mime, "text": raw.decode("utf-8")}
            except UnicodeDecodeError:
                pass
        return {"uri": uri, "mimeType": mime, "blob": base64.b64encode(raw).decode("ascii")}
    if _contents_model(value):
        wire: JSON = value.to_wire()
        wire.setdefault("uri", uri)
        return wire
    return {"uri": uri, "mimeType": mime_type or "application/json", "text": to_json_text(value)}


def listed_type(returns: Any, uri: str, *, template: bool = False) -> str | None:
    """The MIME type every read answers with for a function annotated ``-> returns`` (the
    type a listing names), by the rules of :func:`to_contents`; None when only the value
    read can tell (bytes without a telling name, ``File``, no or a loose annotation).

    ``uri`` is the resource's URI, or a template's: a variable in its last segment leaves
    only what follows the variable (``{name}.md``) to guess from, and ``text/plain`` for
    text when nothing does.
    """
    name = _name_of(uri)
    if template and "{" in name:
        tail = name.rsplit("}", 1)[1]
        name = f"x{tail}" if "." in tail else ""
    returns = _bare(returns)
    origin = typing.get_origin(returns)
    if origin in (list, tuple):  # list[str]: one text each; list[int]: one JSON text
        arguments = [_bare(a) for a in typing.get_args(returns) if a is not Ellipsis]
        if not arguments or any(a != arguments[0] for a in arguments):
            return None
        element = arguments[0]
        if element is str or element in (bytes, bytearray):
            return listed_type(element, uri, template=template)
        return "application/json" if _is_json(element) else None
    if returns in (list, tuple):  # of what: text, bytes and data are listed apart
        return None
    if returns is str:
        return _textual_name(name)
    if returns in (bytes, bytearray):
        return _guess_from_name(name) if "." in name else None
    return "application/json" if _is_json(returns) else None


def value_type(value: str | bytes | bytearray | _Media, uri: str) -> str:
    """The MIME type :func:`to_contents` gives ``value`` (text, bytes or a ``File``)."""
    if isinstance(value, str):
        return _textual_guess(uri)
    if isinstance(value, _Media):
        return value.mime_type
    name = _name_of(uri)
    guessed = _guess_from_name(name) if "." in name else None
    return guessed or _sniff(bytes(value)) or "application/octet-stream"


def _bare(annotation: Any) -> Any:
    """``Annotated[X, ...]`` as ``X``."""
    if typing.get_origin(annotation) is typing.Annotated:
        return typing.get_args(annotation)[0]
    return annotation


def _is_json(returns: Any) -> bool:
    """Values of this type are sent as JSON text (data: not text, bytes or contents)."""
    origin = typing.get_origin(returns) or returns
    if origin in (dict, list, tuple, int, float, bool):
        return True
    if not isinstance(origin, type) or issubclass(origin, (str, bytes, bytearray, _Media)):
        return False
    if hasattr(origin, "to_wire"):  # a contents model (or another protocol object)
        return False
    return (
        hasattr(origin, "model_dump")  # a pydantic model
        or dataclasses.is_dataclass(origin)
        or typing.is_typeddict(origin)
    )


def _name_of(uri: str) -> str:
    return uri.split("?", 1)[0].split("#", 1)[0].rsplit("/", 1)[-1]


def _textual_guess(uri: str) -> str:
    return _textual_name(_name_of(uri))


def _textual_name(name: str) -> str:
    guessed = _guess_from_name(name) if "." in name else None
    if guessed and (guessed.startswith("text/") or guessed in _TEXTUAL):
        return guessed
    return "text/plain"
