"""What a resource function returns, as ``resources/read`` contents."""

from __future__ import annotations

import base64
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


def _name_of(uri: str) -> str:
    return uri.split("?", 1)[0].split("#", 1)[0].rsplit("/", 1)[-1]


def _textual_guess(uri: str) -> str:
    guessed = _guess_from_name(_name_of(uri)) if "." in _name_of(uri) else None
    if guessed and (guessed.startswith("text/") or guessed in _TEXTUAL):
        return guessed
    return "text/plain"
