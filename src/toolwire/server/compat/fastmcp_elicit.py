"""FastMCP's ``ctx.elicit(message, response_type=...)``: the requested schema of each kind
of ``response_type`` and the result classes (see :mod:`.fastmcp_context`), loaded by the
first question asked that way."""

from __future__ import annotations

import enum
import typing
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ...errors import ToolError
from ...schema.clean import clean_schema
from ..inputs import ElicitationResult


@dataclass
class AcceptedElicitation(ElicitationResult):
    """The user answered: ``data`` holds the answer, as ``response_type`` describes it."""

    action: str = "accept"


@dataclass
class DeclinedElicitation(ElicitationResult):
    """The user said no."""

    action: str = "decline"


@dataclass
class CancelledElicitation(ElicitationResult):
    """The user dismissed the question."""

    action: str = "cancel"


Reader = Callable[[Any], Any]

VALUE = "Value"  # the label of a scalar answer's one field (pydantic's title of ``value``)


def form(
    response_type: Any, title: str | None = None, description: str | None = None
) -> tuple[dict[str, Any], Reader]:
    """The requested schema for ``response_type``, and how to read an accepted answer's
    content into ``data``."""
    if response_type is None:
        if title is not None or description is not None:
            raise TypeError("response_title/response_description need a field to label")
        return {"type": "object", "properties": {}}, lambda content: {}
    if isinstance(response_type, dict):
        value = _titled(response_type, multiple=False)
        return _wrapped(value, title, description), _value(None)
    if isinstance(response_type, list):
        if len(response_type) == 1 and isinstance(response_type[0], (list, dict)):
            inner = response_type[0]
            if isinstance(inner, dict):
                value = _titled(inner, multiple=True)
            else:
                value = {"type": "array", "items": {"type": "string", "enum": _choices(inner)}}
            return _wrapped(value, title, description), _value(None)
        value = {"type": "string", "enum": _choices(response_type)}
        return _wrapped(value, title or VALUE, description), _value(None)
    if _scalar(response_type) or typing.get_origin(response_type) is list:
        adapter = _adapter(response_type)
        value = _schema(adapter)  # an Enum's schema is titled with its class name
        return _wrapped(value, title or value.get("title", VALUE), description), _value(adapter)
    if title is not None or description is not None:
        raise TypeError(
            "response_title/response_description label the one field of a scalar or choice "
            "answer; for a dataclass or model, use Field(title=..., description=...) on its "
            "fields"
        )
    adapter = _adapter(response_type)
    schema = _schema(adapter)
    if schema.get("type") != "object":
        raise TypeError(
            f"ctx.elicit cannot ask for a {response_type!r}: use str, int, float, bool, a "
            "Literal or Enum, a list of choices, a dataclass or a pydantic model"
        )
    properties = schema.get("properties", {})
    for field, prop in properties.items():
        if not (prop.get("type") in ("string", "number", "integer", "boolean") or "enum" in prop):
            raise TypeError(
                f"Elicitation fields are strings, numbers, booleans or choices; {field!r} of "
                f"{getattr(response_type, '__name__', response_type)} is not"
            )
    flat: dict[str, Any] = {"type": "object", "properties": properties}
    if schema.get("required"):
        flat["required"] = schema["required"]
    if schema.get("title"):
        flat["title"] = schema["title"]
    return flat, lambda content: adapter.validate_python(content or {})


def _choices(values: list[Any]) -> list[str]:
    if not values or not all(isinstance(value, str) for value in values):
        raise TypeError('A list of choices is a non-empty list of strings: ["a", "b"]')
    return list(values)


def _titled(choices: dict[str, Any], multiple: bool) -> dict[str, Any]:
    if not choices:
        raise ValueError('A dict of choices names at least one: {"low": {"title": "Low"}}')
    options = [
        {"const": key, "title": (spec or {}).get("title", key) if isinstance(spec, dict) else key}
        for key, spec in choices.items()
    ]
    if multiple:
        return {"type": "array", "items": {"anyOf": options}}
    return {"type": "string", "oneOf": options}


def _scalar(response_type: Any) -> bool:
    return (
        response_type in (bool, int, float, str)
        or typing.get_origin(response_type) is typing.Literal
        or (isinstance(response_type, type) and issubclass(response_type, enum.Enum))
    )


def _adapter(response_type: Any) -> Any:
    from pydantic import TypeAdapter  # lazy: pydantic, off the import path until a schema needs it

    # lazy: pydantic, off the import path until a schema needs it
    from ..._compat import pydantic_ready

    return TypeAdapter(pydantic_ready(response_type))


def _schema(adapter: Any) -> dict[str, Any]:
    """The portable schema, with pydantic's titles: a client shows them as the labels."""
    return dict(clean_schema(adapter.json_schema(), for_input=True, keep_titles=True))


def _wrapped(value: dict[str, Any], title: str | None, description: str | None) -> dict[str, Any]:
    value = dict(value)
    value.pop("title", None)
    if title is not None:
        value["title"] = title
    if description is not None:
        value["description"] = description
    return {"type": "object", "properties": {"value": value}, "required": ["value"]}


def _value(adapter: Any) -> Reader:
    def read(content: Any) -> Any:
        if not isinstance(content, dict) or "value" not in content:
            raise ToolError('The answer does not fit the requested form: no "value"')
        value = content["value"]
        return value if adapter is None else adapter.validate_python(value)

    return read


def result(answer: Any, read: Reader) -> ElicitationResult:
    """The FastMCP-shaped result of an ``elicitation/create`` answer."""
    if not isinstance(answer, dict) or answer.get("action") not in ("accept", "decline", "cancel"):
        raise ToolError("The client's answer to the question was not understood")
    action = answer["action"]
    if action == "decline":
        return DeclinedElicitation()
    if action == "cancel":
        return CancelledElicitation()
    content = answer.get("content")
    try:
        data = read(content)
    except ValueError as exc:
        raise ToolError(f"The answer does not fit the requested form: {exc}") from None
    return AcceptedElicitation(data=data, content=content)
