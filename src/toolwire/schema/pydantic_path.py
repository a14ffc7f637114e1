"""The pydantic path of :mod:`toolwire.schema.function`, for every signature the fast path cannot take.

The parameters become an arguments model built with ``create_model``, the return type a
``TypeAdapter``. pydantic is imported inside the functions, never at module level, so that
importing :mod:`toolwire.schema.function` (and with it this module) stays cheap: the cost is paid by the
first tool that needs it. The ``"portable"`` profile cleans the schemas pydantic writes (see
:mod:`toolwire.schema.clean`).
"""

from __future__ import annotations

import typing
from collections.abc import Callable
from functools import partial
from types import UnionType
from typing import Any

import orjson

from .._compat import pydantic_ready
from ..functions.docstrings import Docstring
from .clean import clean_schema, expand_root_ref
from .common import (
    EMPTY,
    MAX_MESSAGE,
    NONE_TYPE,
    Dumper,
    InvalidArguments,
    OutputMismatch,
    Validator,
    error_list,
    generic_dumper,
    no_output_schema,
    string_param,
    unknown_checked,
    wrap_result,
)

__all__ = ["pydantic_input", "pydantic_output"]


def _refuse_unknown_type(name: str, params: list[tuple[str, Any, Any]]) -> None:
    """Name the parameter whose type is no JSON value: likely a dependency left undeclared."""
    # lazy: pydantic, off the import path until a schema needs it
    from pydantic import PydanticUserError, TypeAdapter

    for pname, ann, _ in params:
        try:
            TypeAdapter(pydantic_ready(ann))
        except PydanticUserError:
            shown = getattr(ann, "__name__", None) or repr(ann)
            raise TypeError(
                f"tool {name!r}: cannot build an input schema: parameter {pname!r} has the "
                f"type {shown}, which no JSON argument can give; if the server should fill "
                f"it in, annotate it Annotated[{shown}, Depends(provider)] or call "
                f"mcp.provide({shown}, provider) before registering the tool "
                '(docs/runtime.md, "Dependencies")'
            ) from None
        except Exception:
            continue


def pydantic_input(
    name: str,
    func: Any,
    params: list[tuple[str, Any, Any]],
    doc: Docstring,
    portable: bool,
    unknown: str = "forbid",
) -> tuple[dict[str, Any], Callable[[], Validator]]:
    """(input schema, validator factory) of ``(name, annotation, default)`` parameters.

    ``unknown``: what becomes of argument names that are no parameter (``"forbid"``,
    ``"ignore"``, or ``"allow"`` for a function with ``**kwargs``), see
    :func:`toolwire.schema.common.unknown_checked`. It is checked there, not by the model:
    a model's ``extra`` setting would reach the TypedDicts among the parameters too."""
    # lazy: pydantic, off the import path until a schema needs it
    from pydantic import BaseModel, ConfigDict, Field, PydanticUserError, create_model

    fields: dict[str, Any] = {}
    renamed: dict[str, str] = {}  # model field name -> parameter name
    markers: dict[str, Any] = {}  # parameter name -> its string-parameter marker (SafePath)
    taken = {p[0] for p in params}
    for index, (pname, ann, default) in enumerate(params):
        annotation = Any if ann is EMPTY else pydantic_ready(ann)
        value = ... if default is EMPTY else default
        described, aliased = _field_info_has(annotation, value)
        extra: dict[str, Any] = {}
        marker = string_param(annotation)
        if marker is not None:
            markers[pname] = marker
            if default is not EMPTY:
                extra["validate_default"] = True
        if not described:  # Annotated[str, "what it is"] (FastMCP's way), else the docstring
            text = _annotated_text(ann) or doc.params.get(pname)
            if text:
                extra["description"] = text
        fname = pname
        if pname.startswith("_") or hasattr(BaseModel, pname):
            fname = f"arg{index}"
            while fname in taken:
                fname += "_"
            taken.add(fname)
            renamed[fname] = pname
            if not aliased:
                extra["alias"] = pname
        if extra:
            annotation = typing.Annotated[annotation, Field(**extra)]
        fields[fname] = (annotation, value)
    config = ConfigDict(protected_namespaces=(), arbitrary_types_allowed=False)
    try:
        model: type[BaseModel] = create_model(
            f"{name}Arguments",
            __config__=config,
            __module__=getattr(func, "__module__", None) or "toolwire.schema.function",
            **fields,
        )
        schema = model.model_json_schema()
        known = frozenset(schema.get("properties") or ())  # the names a call may use
    except (PydanticUserError, NameError, TypeError) as exc:
        if getattr(exc, "code", None) == "schema-for-unknown-type":
            _refuse_unknown_type(name, params)
        raise TypeError(
            f"tool {name!r}: cannot build an input schema from its parameters: {exc}"
        ) from None
    if portable:
        schema = clean_schema(schema, for_input=True)
        if not schema.get("properties") and "$defs" not in schema:
            schema = {"type": "object", "properties": {}}
    for pname, marker in markers.items():  # the note survives a description of the author's
        prop = schema.get("properties", {}).get(pname)
        if isinstance(prop, dict):
            prop["description"] = marker.describe(prop.get("description"))
    return schema, partial(_model_validator, model, renamed, known, unknown)


def _annotated_text(annotation: Any) -> str | None:
    """The plain string in ``Annotated`` metadata, which FastMCP takes as the description."""
    if typing.get_origin(annotation) is not typing.Annotated:
        return None
    return next((item for item in annotation.__metadata__ if isinstance(item, str)), None)


def _field_info_has(annotation: Any, default: Any) -> tuple[bool, bool]:
    """Whether a FieldInfo (default or Annotated metadata) sets a description / an alias."""
    # lazy: pydantic, off the import path until a schema needs it
    from pydantic.fields import FieldInfo

    infos = [default] if isinstance(default, FieldInfo) else []
    if typing.get_origin(annotation) is typing.Annotated:
        infos += [m for m in typing.get_args(annotation)[1:] if isinstance(m, FieldInfo)]
    described = any(i.description is not None for i in infos)
    aliased = any(i.alias is not None or i.validation_alias is not None for i in infos)
    return described, aliased


def _model_validator(
    model: Any, renamed: dict[str, str], known: frozenset[str], unknown: str
) -> Validator:
    # lazy: pydantic, off the import path until a schema needs it
    from pydantic_core import ValidationError

    validate = model.__pydantic_validator__.validate_python

    def run(arguments: dict[str, Any]) -> dict[str, Any]:
        try:
            instance = validate(arguments)
        except ValidationError as exc:
            fixed = _decode_json_strings(arguments, exc)
            if fixed is None:
                raise InvalidArguments(error_list(exc)) from None
            try:
                instance = validate(fixed)
            except ValidationError as exc2:
                raise InvalidArguments(error_list(exc2)) from None
        values: dict[str, Any] = instance.__dict__
        if renamed:
            return {renamed.get(k, k): v for k, v in values.items()}
        return dict(values)

    return unknown_checked(run, known, unknown)


def _decode_json_strings(arguments: Any, exc: Any) -> dict[str, Any] | None:
    """Arguments with JSON-encoded arrays/objects decoded where a string was rejected."""
    if not isinstance(arguments, dict):
        return None

    fixed: dict[str, Any] | None = None
    for err in exc.errors(include_url=False, include_context=False, include_input=False):
        loc = err["loc"]
        if not loc:
            continue
        key = loc[0]
        value = arguments.get(key)
        if not isinstance(value, str) or value.lstrip()[:1] not in ("[", "{"):
            continue
        try:
            decoded = orjson.loads(value)
        except orjson.JSONDecodeError:
            continue
        if isinstance(decoded, (list, dict)):
            if fixed is None:
                fixed = dict(arguments)
            fixed[key] = decoded
    return fixed


def pydantic_output(
    ret: Any, structured_output: bool | None, name: str, portable: bool
) -> tuple[dict[str, Any] | None, bool, Callable[[], Dumper], bool]:
    """(output schema, wraps result, dumper factory, whether the text is the value's
    ``str()``) of any return type. The text is the value's ``str()`` for an ordinary class
    with annotated attributes, as the official SDK writes it; otherwise the JSON data."""
    ret = _without_input_required(ret)
    declared = _declared_result_schema(ret)
    if declared is not None:  # Annotated[CallToolResult, Model]: the tool makes its result
        # lazy: pydantic, off the import path until a schema needs it
        from pydantic import TypeAdapter

        schema = TypeAdapter(pydantic_ready(declared)).json_schema(mode="serialization")
        schema = clean_schema(schema, for_input=False) if portable else expand_root_ref(schema)
        return schema, False, generic_dumper, False
    if (
        ret is EMPTY
        or ret is None
        or ret is NONE_TYPE
        or ret is Any
        or ret is object  # like Any: it may be content blocks
        or _is_content(ret)
        or _is_untyped_sequence(ret)
    ):
        if structured_output:
            no_output_schema(name, ret)
        return None, False, generic_dumper, False
    # lazy: pydantic, off the import path until a schema needs it
    from pydantic import PydanticUserError, TypeAdapter

    text_of_str = False
    try:
        adapter: Any = TypeAdapter(pydantic_ready(ret))
        schema = adapter.json_schema(mode="serialization")
    except (PydanticUserError, NameError, TypeError):
        plain = _plain_class_model(ret)
        if plain is None:
            if structured_output:
                no_output_schema(name, ret)
            return None, False, generic_dumper, False
        adapter = TypeAdapter(plain)
        schema = adapter.json_schema(mode="serialization")
        text_of_str = True
    schema = clean_schema(schema, for_input=False) if portable else expand_root_ref(schema)
    wraps = schema.get("type") != "object"
    if wraps:
        schema = wrap_result(schema)
    return schema, wraps, partial(_adapter_dumper, adapter), text_of_str


def _declared_result_schema(ret: Any) -> Any:
    """``Model`` of ``Annotated[CallToolResult, Model]`` (the official SDK's way to publish
    an output schema for a tool that builds its own result), else None."""
    if typing.get_origin(ret) is not typing.Annotated:
        return None
    inner, *extras = typing.get_args(ret)
    if not (
        isinstance(inner, type)
        and getattr(inner, "__toolwire_mcp_type__", False) is True
        and inner.__name__ == "CallToolResult"
    ):
        return None
    return next((extra for extra in extras if isinstance(extra, type)), None)


def _plain_class_model(ret: Any) -> Any:
    """A model of an ordinary class with annotated attributes (neither a model nor a
    dataclass), read from an instance's attributes, as the official SDK serializes it;
    None for any other type."""
    if not isinstance(ret, type) or ret.__module__ == "builtins":
        return None
    try:
        hints = typing.get_type_hints(ret)
    except Exception:
        return None
    fields: dict[str, Any] = {}
    for field, hint in hints.items():
        if field.startswith("_") or typing.get_origin(hint) is typing.ClassVar:
            continue
        default = ret.__dict__.get(field, EMPTY)
        fields[field] = hint if default is EMPTY else (hint, default)
    if not fields:
        return None
    # lazy: pydantic, off the import path until a schema needs it
    from pydantic import ConfigDict, create_model

    try:
        return create_model(
            ret.__name__,
            __config__=ConfigDict(from_attributes=True),
            **fields,
        )
    except Exception:  # a field of a type pydantic cannot take either
        return None


def _adapter_dumper(adapter: Any) -> Dumper:
    """Check a return value against the declared type (TL-22), then dump it as JSON data."""
    # lazy: pydantic, off the import path until a schema needs it
    from pydantic_core import PydanticSerializationError, ValidationError, to_jsonable_python

    validate = adapter.validate_python
    dump_python = adapter.dump_python

    def dump(value: Any) -> Any:
        try:
            value = validate(value)
        except ValidationError as exc:
            raise OutputMismatch(str(exc)[:MAX_MESSAGE]) from None
        try:
            return dump_python(value, mode="json", by_alias=True, warnings=False)
        except PydanticSerializationError:  # a value JSON has no form for: its str()
            return to_jsonable_python(value, by_alias=True, fallback=str)

    return dump


def _without_input_required(ret: Any) -> Any:
    """``ret`` without the ``InputRequiredResult`` arms of its union: a tool's questions are
    no data, so the other arms alone give the output schema (as the official SDK and FastMCP
    derive it); ``None`` when no other arm is left."""
    if typing.get_origin(ret) not in (typing.Union, UnionType):
        return ret
    # lazy: the protocol types, only for a union return annotation
    from ..types import InputRequiredResult

    arms = typing.get_args(ret)
    data = tuple(
        a for a in arms if not (isinstance(a, type) and issubclass(a, InputRequiredResult))
    )
    if len(data) == len(arms):
        return ret
    return typing.Union[data] if data else None  # noqa: UP007  # a runtime tuple of arms


def _is_untyped_sequence(ann: Any) -> bool:
    """A bare ``list``/``tuple`` (or of ``Any`` or ``object``): it may hold content blocks,
    so no schema is promised."""
    if ann in (list, tuple):
        return True
    return typing.get_origin(ann) in (list, tuple) and all(
        arg is Any or arg is object or arg is Ellipsis for arg in typing.get_args(ann)
    )


def _is_content(ann: Any) -> bool:
    """Whether ``ann`` is, or contains, a content/result class (media helpers, ``toolwire.types``)."""
    if isinstance(ann, type) and (
        getattr(ann, "__toolwire_content__", False) is True
        or getattr(ann, "__toolwire_mcp_type__", False) is True
    ):
        return True
    origin = typing.get_origin(ann)
    if isinstance(origin, type) and getattr(origin, "__toolwire_content__", False) is True:
        return True
    return any(_is_content(arg) for arg in typing.get_args(ann) if not isinstance(arg, (str, int)))
