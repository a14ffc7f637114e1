"""``key=value`` words on the command line -> tool arguments, typed by the tool's inputSchema.

A shell gives only strings; the schema says what each one should become: integers, numbers
and booleans are converted, objects and arrays are read as JSON, and anything declared (or
left) a string stays the exact text typed.
"""

from __future__ import annotations

import json
from typing import Any

JSON = dict[str, Any]
TRUE = ("true", "yes", "on", "1")
FALSE = ("false", "no", "off", "0")


class ArgumentError(Exception):
    """A value on the command line does not fit the tool; the message names it."""


def parse_arguments(pairs: list[str], schema: JSON, base: JSON | None = None) -> JSON:
    """``["a=1", "name=x"]`` typed by ``schema["properties"]``; added to ``base`` (``--args``)."""
    properties = schema.get("properties") or {}
    arguments = dict(base or {})
    for pair in pairs:
        key, sep, text = pair.partition("=")
        if not sep or not key:
            raise ArgumentError(f"expected key=value, got {pair!r}")
        arguments[key] = convert(key, text, properties.get(key) or {})
    return arguments


def parse_json_object(text: str) -> JSON:
    """``--args``: a JSON object, or a clear error."""
    try:
        value = json.loads(text)
    except json.JSONDecodeError as error:
        raise ArgumentError(f"--args is not valid JSON: {error}") from None
    if not isinstance(value, dict):
        raise ArgumentError("--args must be a JSON object, e.g. '{\"a\": 1}'")
    return value


def _types(schema: JSON) -> set[str]:
    declared = schema.get("type")
    types = set(declared) if isinstance(declared, list) else {declared} if declared else set()
    for key in ("anyOf", "oneOf"):
        for option in schema.get(key) or []:
            if isinstance(option, dict):
                types |= _types(option)
    if not types and "enum" in schema:
        types = {_json_type(value) for value in schema["enum"]}
    return types


def _json_type(value: Any) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    return "string" if isinstance(value, str) else "null"


def convert(key: str, text: str, schema: JSON) -> Any:
    """One value: the first reading the schema allows; strings stay strings."""
    types = _types(schema)
    if not types or types == {"string"}:
        return text
    if "null" in types and text == "null":
        return None
    if "boolean" in types and text.lower() in TRUE + FALSE:
        return text.lower() in TRUE
    if "integer" in types or "number" in types:
        try:
            number = json.loads(text)
        except json.JSONDecodeError:
            number = None
        if isinstance(number, int) and not isinstance(number, bool):
            return number
        if isinstance(number, float) and "number" in types:
            return number
    if types & {"object", "array"}:
        try:
            value = json.loads(text)
        except json.JSONDecodeError as error:
            if "string" not in types:
                raise ArgumentError(f"{key}: not valid JSON ({error})") from None
        else:
            if isinstance(value, (dict, list)):
                return value
    if "string" in types:
        return text
    expected = " or ".join(sorted(types - {"null"})) or "null"
    raise ArgumentError(f"{key}: expected {expected}, got {text!r}")
