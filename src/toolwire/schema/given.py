"""A tool's own input schema, written by hand (``@mcp.tool(input_schema={...})``).

The schema is published verbatim: every JSON Schema 2020-12 keyword the author wrote
(``$schema``, ``$defs``, ``$ref``, ``allOf``, ``if``/``then``/``else``,
``additionalProperties``...) reaches the client as written (SEP-1613, SEP-2106). It is
checked against the 2020-12 meta-schema when the tool is registered, and each call's
arguments are validated against it before the function runs; the function receives the
arguments as keyword arguments.

Both use the ``jsonschema`` package (``pip install 'toolwire[jsonschema]'``), imported here
only, so only servers with such tools load it.
"""

from __future__ import annotations

import inspect
from typing import Any

from .._pip import extra_install
from .common import MAX_MESSAGE, InvalidArguments, Validator

JSON = dict[str, Any]


def _draft() -> Any:
    try:
        from jsonschema import Draft202012Validator  # type: ignore[import-untyped]  # optional: jsonschema (the jsonschema extra)
    except ImportError:  # pragma: no cover - depends on the environment
        raise TypeError(
            f"input_schema needs the jsonschema package: {extra_install('jsonschema')}"
        ) from None
    return Draft202012Validator


def given_input(
    name: str, schema: Any, params: list[tuple[str, Any, Any]], takes_any: bool
) -> tuple[JSON, Any]:
    """Check ``schema`` and the function's parameters against each other; return the schema
    and a factory of its validator. ``takes_any``: the function has ``**kwargs``.

    Raises ``TypeError`` (a RegistrationError for the tool) when the schema is not a valid
    JSON Schema 2020-12 object schema or does not fit the function."""
    if not isinstance(schema, dict):
        raise TypeError(f"tool {name!r}: input_schema must be a JSON Schema dict")
    draft = _draft()
    from jsonschema.exceptions import SchemaError  # type: ignore[import-untyped]  # optional: jsonschema (the jsonschema extra)

    try:
        draft.check_schema(schema)
    except SchemaError as exc:
        where = "/".join(str(part) for part in exc.absolute_path)
        raise TypeError(
            f"tool {name!r}: input_schema is not a valid JSON Schema 2020-12"
            f"{f' (at {where})' if where else ''}: {_short(exc.message)}"
        ) from None
    if schema.get("type") != "object":
        raise TypeError(f'tool {name!r}: input_schema needs "type": "object" at its root')
    properties = schema.get("properties") or {}
    names = {param for param, _, _ in params}
    for param, _, default in params:
        if default is inspect.Parameter.empty and param not in properties:
            raise TypeError(
                f"tool {name!r}: parameter {param!r} is not a property of input_schema "
                "(give it a default, or add the property)"
            )
    if not takes_any:
        unknown = sorted(set(properties) - names)
        if unknown:
            raise TypeError(
                f"tool {name!r}: input_schema properties {unknown} are no parameters of the "
                "function (add them, or a **kwargs parameter)"
            )

    def make_validator() -> Validator:
        return _validator(draft(schema, format_checker=draft.FORMAT_CHECKER), names, takes_any)

    return schema, make_validator


def _validator(checker: Any, names: set[str], takes_any: bool) -> Validator:
    def validate(arguments: JSON) -> JSON:
        errors = sorted(checker.iter_errors(arguments), key=lambda e: list(e.absolute_path))
        if errors:
            raise InvalidArguments([pair for error in errors for pair in _described(error)])
        if takes_any:
            return dict(arguments)
        return {key: value for key, value in arguments.items() if key in names}

    return validate


def _described(error: Any) -> list[tuple[str, str]]:
    """(field path, message) pairs for one jsonschema error, each naming its field."""
    path = ".".join(str(part) for part in error.absolute_path)
    prefix = f"{path}." if path else ""
    if error.validator == "required" and isinstance(error.instance, dict):
        missing = [key for key in error.validator_value if key not in error.instance]
        return [(prefix + key, "Field required") for key in missing]
    if error.validator == "additionalProperties" and isinstance(error.instance, dict):
        declared = error.schema.get("properties") or {}
        extra = [key for key in error.instance if key not in declared]
        if extra and not error.schema.get("patternProperties"):
            return [(prefix + key, "Extra inputs are not permitted") for key in extra]
    if error.validator in ("anyOf", "oneOf") and error.context:
        options: dict[Any, list[str]] = {}
        for sub in error.context:
            options.setdefault(sub.schema_path[0] if sub.schema_path else None, []).extend(
                f"{field}: {text}" if field else text for field, text in _described(sub)
            )
        if options:
            shown = " | ".join(", ".join(texts) for texts in options.values())
            return [(path, _short(f"Must match one of the alternatives: {shown}"))]
    return [(path, _short(error.message))]


def _short(message: str) -> str:
    return message if len(message) <= MAX_MESSAGE else message[: MAX_MESSAGE - 3] + "..."
