"""The pydantic-free path of :mod:`toolwire.schema.function`, for tools with primitive signatures.

Most tools take a few ``int``/``float``/``str``/``bool`` parameters (optionally ``X | None``)
with plain defaults and return a primitive or nothing. For them the schema is written by hand,
so registering such a tool never imports pydantic: a server made only of them starts as fast as
a bare loop. Their validator is a ``pydantic_core.SchemaValidator`` built from a hand-written
core schema on the first call, and their return values are checked without any import.
"""

from __future__ import annotations

import math
import typing
from collections.abc import Callable
from functools import partial
from typing import Any

from ..functions.docstrings import Docstring
from .common import (
    EMPTY,
    NONE_TYPE,
    UNIONS,
    Dumper,
    InvalidArguments,
    OutputMismatch,
    Validator,
    error_list,
    generic_dumper,
    is_string_param,
    no_output_schema,
    unknown_checked,
    wrap_result,
)

__all__ = [
    "FAST_RETURNS",
    "FastField",
    "fast_fields",
    "fast_input_schema",
    "fast_output",
    "fast_validator",
]

_PRIMITIVES: dict[type, str] = {str: "string", int: "integer", float: "number", bool: "boolean"}
_PLAIN_DEFAULTS = frozenset({int, float, str, bool, NONE_TYPE})
FAST_RETURNS: tuple[Any, ...] = (str, int, float, bool, NONE_TYPE)

# name, JSON type, nullable, default (or EMPTY), the validating marker of a string
# parameter such as SafePath (or None)
FastField = tuple[str, str, bool, Any, Any]


def fast_fields(params: list[tuple[str, Any, Any]]) -> list[FastField] | None:
    """The fast-path description of ``(name, annotation, default)`` parameters, or None when
    any of them needs pydantic."""
    out: list[FastField] = []
    for name, ann, default in params:
        nullable = False
        found = _fast_type(ann)
        if found is None:
            if typing.get_origin(ann) not in UNIONS:
                return None
            args = typing.get_args(ann)
            if len(args) != 2 or NONE_TYPE not in args:
                return None
            found = _fast_type(args[1] if args[0] is NONE_TYPE else args[0])
            if found is None:
                return None
            nullable = True
        if default is not EMPTY:
            if type(default) not in _PLAIN_DEFAULTS:
                return None
            if type(default) is float and not math.isfinite(default):
                return None
        out.append((name, found[0], nullable, default, found[1]))
    return out


def _fast_type(ann: Any) -> tuple[str, Any] | None:
    """(JSON type, marker) of a primitive or a marked string parameter, else None."""
    if type(ann) is type:
        json_type = _PRIMITIVES.get(ann)
        return None if json_type is None else (json_type, None)
    if typing.get_origin(ann) is typing.Annotated:
        metadata = ann.__metadata__
        if len(metadata) == 1 and is_string_param(metadata[0]):
            return "string", metadata[0]
    return None


def fast_input_schema(fields: list[FastField], doc: Docstring) -> dict[str, Any]:
    if not fields:  # as the official SDK and FastMCP publish it
        return {"type": "object", "properties": {}}
    properties: dict[str, Any] = {}
    required: list[str] = []
    for name, json_type, _, default, marker in fields:
        prop: dict[str, Any] = {"type": json_type}
        description = doc.params.get(name)
        if marker is not None:
            description = marker.describe(description)
        if description:
            prop["description"] = description
        if default is EMPTY:
            required.append(name)
        elif default is not None:
            prop["default"] = default
        properties[name] = prop
    schema: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        schema["required"] = required
    return schema


def fast_validator(fields: list[FastField], extra: str = "forbid") -> Validator:
    """The validator of ``fields``; ``extra`` is what becomes of argument names that are no
    parameter: ``"forbid"`` (an error each), ``"ignore"`` (dropped) or ``"allow"`` (passed on,
    for a function with ``**kwargs``), see :func:`toolwire.schema.common.unknown_checked`."""
    # lazy: pydantic, off the import path until a schema needs it
    from pydantic_core import SchemaValidator, ValidationError

    # lazy: pydantic, off the import path until a schema needs it
    from pydantic_core import core_schema as cs

    makers: dict[str, Callable[[], Any]] = {
        "string": cs.str_schema,
        "integer": cs.int_schema,
        "number": cs.float_schema,
        "boolean": cs.bool_schema,
    }
    typed: dict[str, Any] = {}
    for name, json_type, nullable, default, marker in fields:
        schema = makers[json_type]() if marker is None else marker.core_schema()
        if nullable:
            schema = cs.nullable_schema(schema)
        if default is EMPTY:
            typed[name] = cs.typed_dict_field(schema, required=True)
        else:  # a marker's default is validated too: a SafePath default becomes a Path
            typed[name] = cs.typed_dict_field(
                cs.with_default_schema(
                    schema, default=default, validate_default=marker is not None
                ),
                required=False,
            )
    validate = SchemaValidator(cs.typed_dict_schema(typed)).validate_python

    def run(arguments: dict[str, Any]) -> dict[str, Any]:
        try:
            return validate(arguments)  # type: ignore[no-any-return]
        except ValidationError as exc:
            raise InvalidArguments(error_list(exc)) from None

    if extra == "ignore":
        return run
    known = frozenset(field[0] for field in fields)
    slow = unknown_checked(run, known, extra)
    if all(field[3] is EMPTY for field in fields):
        # every parameter required: a call that passes validation names them all, so it
        # names another one exactly when it has more arguments than parameters
        count = len(known)

        def counted(arguments: dict[str, Any]) -> dict[str, Any]:
            try:
                if len(arguments) <= count:
                    return validate(arguments)  # type: ignore[no-any-return]
            except (ValidationError, TypeError):  # the slow way names unknown names too
                pass
            return slow(arguments)

        return counted
    superset = known.issuperset

    def checked(arguments: dict[str, Any]) -> dict[str, Any]:
        # one set operation, no further call frame
        try:
            if superset(arguments):
                return validate(arguments)  # type: ignore[no-any-return]
        except ValidationError as exc:
            raise InvalidArguments(error_list(exc)) from None
        except TypeError:  # not even iterable: the slow way says what is wrong
            pass
        return slow(arguments)

    return checked


def fast_output(
    ret: Any, structured_output: bool | None, name: str
) -> tuple[dict[str, Any] | None, bool, Callable[[], Dumper], bool]:
    """(output schema, wraps result, dumper factory, text of ``str()``) of a primitive or
    missing return type."""
    json_type = _PRIMITIVES.get(ret) if type(ret) is type else None
    if json_type is None:
        if structured_output:
            no_output_schema(name, ret)
        return None, False, generic_dumper, False
    return wrap_result({"type": json_type}), True, partial(_scalar_dumper, ret), False


def _scalar_dumper(ret: type) -> Dumper:
    """Pass a declared ``int``/``float``/``bool``/``str`` return value, refuse anything else."""
    accepted: tuple[type, ...] = (int, float) if ret is float else (ret,)

    def dump(value: Any) -> Any:
        if isinstance(value, accepted) and (ret is bool or not isinstance(value, bool)):
            return value
        raise OutputMismatch(f"expected {ret.__name__}, got {type(value).__name__}")

    return dump
