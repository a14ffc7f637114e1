"""Python signatures -> MCP tool JSON Schemas, argument validation and result dumping.

:func:`function_schema` turns a tool function into a :class:`FunctionSchema`: the description
(from the docstring), the ``inputSchema`` and ``outputSchema`` and the means to validate a
``tools/call``'s arguments and to dump a return value as JSON-able data.

Two paths give the same result:

* the **fast path** covers the common case -- every parameter an ``int``/``float``/``str``/
  ``bool`` (optionally ``X | None``) with a plain default, and a primitive (or no) return type.
  It writes the schema by hand and never imports pydantic; its validator is a
  ``pydantic_core.SchemaValidator`` built from a hand-written core schema on first use.
* everything else goes through pydantic (imported lazily): an arguments model built with
  ``create_model`` and a ``TypeAdapter`` for the return type.

The default ``"portable"`` profile cleans pydantic's schema (see :mod:`toolwire._schema_clean`);
``profile="pydantic"`` keeps it verbatim.
"""

from __future__ import annotations

import inspect
import math
import types
import typing
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from typing import Any, Literal

from ._compat import pydantic_ready
from ._schema_clean import clean_schema, expand_root_ref
from .docstrings import Docstring, parse_docstring

__all__ = ["FunctionSchema", "InvalidArguments", "function_schema"]

Validator = Callable[[dict[str, Any]], dict[str, Any]]
Dumper = Callable[[Any], Any]

_EMPTY = inspect.Parameter.empty
_NONE_TYPE = type(None)
_PRIMITIVES: dict[type, str] = {str: "string", int: "integer", float: "number", bool: "boolean"}
_UNIONS: tuple[Any, ...] = (typing.Union, types.UnionType)
_PLAIN_DEFAULTS = frozenset({int, float, str, bool, _NONE_TYPE})
_JSON_SCALARS = frozenset({int, float, str, bool, _NONE_TYPE})
_FAST_RETURNS: tuple[Any, ...] = (str, int, float, bool, _NONE_TYPE)
_MAX_MESSAGE = 300


class InvalidArguments(Exception):
    """The arguments of a ``tools/call`` do not fit the tool's input schema.

    ``errors`` holds one ``(field path, message)`` pair per problem, e.g.
    ``("items.0.name", "Field required")``; the path is empty for the arguments as a whole.
    """

    def __init__(self, errors: list[tuple[str, str]]) -> None:
        super().__init__(errors)
        self.errors = errors

    def __str__(self) -> str:
        return "; ".join(f"{path}: {msg}" if path else msg for path, msg in self.errors)


class OutputMismatch(ValueError):
    """A tool returned a value that does not fit its declared return type (its output schema)."""


@dataclass(eq=False)
class FunctionSchema:
    """Everything a tool definition needs to know about its function's signature."""

    description: str | None
    input_schema: dict[str, Any]
    output_schema: dict[str, Any] | None
    wraps_result: bool
    injected: dict[str, type]
    _make_validator: Callable[[], Validator] = field(repr=False)
    _make_dumper: Callable[[], Dumper] = field(repr=False)
    _validator: Validator | None = field(default=None, init=False, repr=False)
    _dumper: Dumper | None = field(default=None, init=False, repr=False)

    def validate(self, arguments: dict[str, Any]) -> dict[str, Any]:
        """Check ``arguments`` and return the keyword arguments for the call (no injected ones).

        Raises :class:`InvalidArguments` naming every bad or missing field.
        """
        validator = self._validator
        if validator is None:
            validator = self._validator = self._make_validator()
        return validator(arguments if arguments is not None else {})

    def dump_output(self, value: Any) -> Any:
        """JSON-able form of a return value (not wrapped in ``{"result": ...}``)."""
        dumper = self._dumper
        if dumper is None:
            dumper = self._dumper = self._make_dumper()
        return dumper(value)


def function_schema(
    fn: Callable[..., Any],
    *,
    inject: tuple[type, ...] = (),
    profile: Literal["portable", "pydantic"] = "portable",
    structured_output: bool | None = None,
) -> FunctionSchema:
    """Build the schemas, validator and dumper of the tool function ``fn``.

    ``fn`` may be a function, an ``async def``, a bound method, a ``functools.partial`` or a
    callable object. Parameters annotated with (a subclass of) one of ``inject`` are left out
    of the schema and listed in ``FunctionSchema.injected``. ``structured_output=False`` turns
    the output schema off; ``True`` requires one (``TypeError`` if the return type has none).
    Annotations that cannot be turned into a schema raise ``TypeError``.
    """
    return _function_schema(fn, inject, profile, structured_output, allow_fast=True)


def _function_schema(
    fn: Callable[..., Any],
    inject: tuple[type, ...],
    profile: str,
    structured_output: bool | None,
    *,
    allow_fast: bool,
) -> FunctionSchema:
    if profile not in ("portable", "pydantic"):
        raise ValueError(f"unknown schema profile {profile!r}: use 'portable' or 'pydantic'")
    portable = profile == "portable"
    name, doc_text, func = _describe(fn)
    sig = _signature(fn, func, name)
    doc = parse_docstring(doc_text)

    params: list[tuple[str, Any, Any]] = []
    injected: dict[str, type] = {}
    for p in sig.parameters.values():
        if p.kind is p.VAR_POSITIONAL or p.kind is p.VAR_KEYWORD:
            continue
        inj = _injected_type(p.annotation, inject) if inject else None
        if inj is not None:
            injected[p.name] = inj
            continue
        if p.kind is p.POSITIONAL_ONLY:
            raise TypeError(
                f"tool {name!r}: positional-only parameter {p.name!r} cannot be passed by name"
            )
        params.append((p.name, p.annotation, p.default))
    ret = sig.return_annotation

    hints: dict[str, Any] | None = None
    fast = _fast_fields(params) if allow_fast and portable else None
    if fast is not None:
        input_schema = _fast_input_schema(fast, doc)
        make_validator: Callable[[], Validator] = partial(_fast_validator, fast)
    else:
        hints = _type_hints(func)
        params = [(n, hints.get(n, a), d) for n, a, d in params]
        input_schema, make_validator = _pydantic_input(name, func, params, doc, portable)

    if structured_output is False:
        output: tuple[dict[str, Any] | None, bool, Callable[[], Dumper]] = (
            None,
            False,
            _generic_dumper,
        )
    elif allow_fast and (ret is _EMPTY or ret is None or ret is Any or ret in _FAST_RETURNS):
        output = _fast_output(ret, structured_output, name)
    else:
        if hints is None:
            hints = _type_hints(func)
        output = _pydantic_output(hints.get("return", ret), structured_output, name, portable)
    output_schema, wraps, make_dumper = output
    return FunctionSchema(
        description=doc.description,
        input_schema=input_schema,
        output_schema=output_schema,
        wraps_result=wraps,
        injected=injected,
        _make_validator=make_validator,
        _make_dumper=make_dumper,
    )


# -- signature inspection -----------------------------------------------------------------


def _describe(fn: Callable[..., Any]) -> tuple[str, str | None, Any]:
    """(name, docstring, underlying function) of a function, method, partial or callable."""
    obj: Any = fn
    while isinstance(obj, partial):
        obj = obj.func
    if inspect.ismethod(obj):
        obj = obj.__func__
    if inspect.isfunction(obj) or inspect.isbuiltin(obj) or isinstance(obj, type):
        return getattr(obj, "__name__", "tool"), obj.__doc__, inspect.unwrap(obj)
    call = type(obj).__call__
    doc = type(obj).__doc__ or getattr(call, "__doc__", None)
    return type(obj).__name__, doc, inspect.unwrap(call)


def _signature(fn: Callable[..., Any], func: Any, name: str) -> inspect.Signature:
    try:
        return inspect.signature(fn, eval_str=True)
    except (NameError, SyntaxError, TypeError, AttributeError):
        pass
    sig = inspect.signature(fn)
    namespace = getattr(func, "__globals__", {})
    params = []
    for p in sig.parameters.values():
        if isinstance(p.annotation, str):
            try:
                p = p.replace(annotation=eval(p.annotation, namespace))
            except Exception as exc:
                raise TypeError(
                    f"tool {name!r}: cannot resolve the annotation {p.annotation!r} of "
                    f"parameter {p.name!r}: {exc}"
                ) from None
        params.append(p)
    ret = sig.return_annotation
    if isinstance(ret, str):
        try:
            ret = eval(ret, namespace)
        except Exception:
            ret = _EMPTY  # an unresolvable return annotation only costs the output schema
    return sig.replace(parameters=params, return_annotation=ret)


def _type_hints(func: Any) -> dict[str, Any]:
    """Fully resolved hints (nested forward references too); empty if they cannot be had."""
    if not inspect.isfunction(func):
        return {}
    try:
        return typing.get_type_hints(func, include_extras=True)
    except Exception:
        return {}


def _injected_type(ann: Any, inject: tuple[type, ...]) -> type | None:
    """The injectable class ``ann`` names (also through Annotated, Optional, generics)."""
    origin = typing.get_origin(ann)
    if origin is typing.Annotated:
        return _injected_type(typing.get_args(ann)[0], inject)
    if origin in _UNIONS:
        for arg in typing.get_args(ann):
            found = _injected_type(arg, inject)
            if found is not None:
                return found
        return None
    if isinstance(origin, type):
        ann = origin
    if isinstance(ann, type) and issubclass(ann, inject):
        return ann
    return None


# -- fast path: primitives only, no pydantic --------------------------------------------------

# name, JSON type, nullable, default (or _EMPTY), the validating marker of a string
# parameter such as SafePath (or None)
_FastField = tuple[str, str, bool, Any, Any]


def _fast_fields(params: list[tuple[str, Any, Any]]) -> list[_FastField] | None:
    out: list[_FastField] = []
    for name, ann, default in params:
        nullable = False
        found = _fast_type(ann)
        if found is None:
            if typing.get_origin(ann) not in _UNIONS:
                return None
            args = typing.get_args(ann)
            if len(args) != 2 or _NONE_TYPE not in args:
                return None
            found = _fast_type(args[1] if args[0] is _NONE_TYPE else args[0])
            if found is None:
                return None
            nullable = True
        if default is not _EMPTY:
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
        if len(metadata) == 1 and _is_string_param(metadata[0]):
            return "string", metadata[0]
    return None


def _is_string_param(obj: Any) -> bool:
    """A marker that validates a string parameter itself (``toolwire.SafePath``): it gives a
    pydantic-core schema (``core_schema()``) and its note for the description (``describe``)."""
    return getattr(type(obj), "__toolwire_string_param__", False) is True


def _string_param(ann: Any) -> Any:
    """The string-parameter marker in ``ann`` (also inside ``Optional``), or None."""
    origin = typing.get_origin(ann)
    if origin is typing.Annotated:
        return next((m for m in ann.__metadata__ if _is_string_param(m)), None)
    if origin in _UNIONS:
        return next((m for m in map(_string_param, typing.get_args(ann)) if m is not None), None)
    return None


def _fast_input_schema(fields: list[_FastField], doc: Docstring) -> dict[str, Any]:
    if not fields:
        return {"type": "object", "additionalProperties": False}
    properties: dict[str, Any] = {}
    required: list[str] = []
    for name, json_type, _, default, marker in fields:
        prop: dict[str, Any] = {"type": json_type}
        description = doc.params.get(name)
        if marker is not None:
            description = marker.describe(description)
        if description:
            prop["description"] = description
        if default is _EMPTY:
            required.append(name)
        elif default is not None:
            prop["default"] = default
        properties[name] = prop
    schema: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        schema["required"] = required
    return schema


def _fast_validator(fields: list[_FastField]) -> Validator:
    from pydantic_core import SchemaValidator, ValidationError
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
        if default is _EMPTY:
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
            raise InvalidArguments(_error_list(exc)) from None

    return run


def _fast_output(
    ret: Any, structured_output: bool | None, name: str
) -> tuple[dict[str, Any] | None, bool, Callable[[], Dumper]]:
    json_type = _PRIMITIVES.get(ret) if type(ret) is type else None
    if json_type is None or (ret is str and not structured_output):
        if structured_output:
            _no_output_schema(name, ret)
        return None, False, _generic_dumper
    return _wrap({"type": json_type}), True, partial(_scalar_dumper, ret)


def _scalar_dumper(ret: type) -> Dumper:
    """Pass a declared ``int``/``float``/``bool``/``str`` return value, refuse anything else."""
    accepted: tuple[type, ...] = (int, float) if ret is float else (ret,)

    def dump(value: Any) -> Any:
        if isinstance(value, accepted) and (ret is bool or not isinstance(value, bool)):
            return value
        raise OutputMismatch(f"expected {ret.__name__}, got {type(value).__name__}")

    return dump


def _no_output_schema(name: str, ret: Any) -> typing.NoReturn:
    shown = "no return annotation" if ret is _EMPTY else f"return type {ret!r}"
    raise TypeError(
        f"tool {name!r}: structured_output=True needs a return type with a JSON schema, "
        f"but it has {shown}"
    )


def _wrap(schema: dict[str, Any]) -> dict[str, Any]:
    inner = dict(schema)
    defs = inner.pop("$defs", None)
    out: dict[str, Any] = {
        "type": "object",
        "properties": {"result": inner},
        "required": ["result"],
    }
    if defs:
        out["$defs"] = defs
    return out


def _generic_dumper() -> Dumper:
    def dump(value: Any) -> Any:
        if type(value) in _JSON_SCALARS:
            return value
        from pydantic_core import to_jsonable_python

        return to_jsonable_python(value, by_alias=True)

    return dump


# -- pydantic path ----------------------------------------------------------------------------


def _pydantic_input(
    name: str,
    func: Any,
    params: list[tuple[str, Any, Any]],
    doc: Docstring,
    portable: bool,
) -> tuple[dict[str, Any], Callable[[], Validator]]:
    from pydantic import BaseModel, ConfigDict, Field, PydanticUserError, create_model

    fields: dict[str, Any] = {}
    renamed: dict[str, str] = {}  # model field name -> parameter name
    markers: dict[str, Any] = {}  # parameter name -> its string-parameter marker (SafePath)
    taken = {p[0] for p in params}
    for index, (pname, ann, default) in enumerate(params):
        annotation = Any if ann is _EMPTY else pydantic_ready(ann)
        value = ... if default is _EMPTY else default
        described, aliased = _field_info_has(annotation, value)
        extra: dict[str, Any] = {}
        marker = _string_param(annotation)
        if marker is not None:
            markers[pname] = marker
            if default is not _EMPTY:
                extra["validate_default"] = True
        if not described and doc.params.get(pname):
            extra["description"] = doc.params[pname]
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
            __module__=getattr(func, "__module__", None) or __name__,
            **fields,
        )
        schema = model.model_json_schema()
    except (PydanticUserError, NameError, TypeError) as exc:
        raise TypeError(
            f"tool {name!r}: cannot build an input schema from its parameters: {exc}"
        ) from None
    if portable:
        schema = clean_schema(schema, for_input=True)
        if not schema.get("properties") and "$defs" not in schema:
            schema = {"type": "object", "additionalProperties": False}
    for pname, marker in markers.items():  # the note survives a description of the author's
        prop = schema.get("properties", {}).get(pname)
        if isinstance(prop, dict):
            prop["description"] = marker.describe(prop.get("description"))
    return schema, partial(_model_validator, model, renamed)


def _field_info_has(annotation: Any, default: Any) -> tuple[bool, bool]:
    """Whether a FieldInfo (default or Annotated metadata) sets a description / an alias."""
    from pydantic.fields import FieldInfo

    infos = [default] if isinstance(default, FieldInfo) else []
    if typing.get_origin(annotation) is typing.Annotated:
        infos += [m for m in typing.get_args(annotation)[1:] if isinstance(m, FieldInfo)]
    described = any(i.description is not None for i in infos)
    aliased = any(i.alias is not None or i.validation_alias is not None for i in infos)
    return described, aliased


def _model_validator(model: Any, renamed: dict[str, str]) -> Validator:
    from pydantic_core import ValidationError

    validate = model.__pydantic_validator__.validate_python

    def run(arguments: dict[str, Any]) -> dict[str, Any]:
        try:
            instance = validate(arguments)
        except ValidationError as exc:
            fixed = _decode_json_strings(arguments, exc)
            if fixed is None:
                raise InvalidArguments(_error_list(exc)) from None
            try:
                instance = validate(fixed)
            except ValidationError as exc2:
                raise InvalidArguments(_error_list(exc2)) from None
        values: dict[str, Any] = instance.__dict__
        if renamed:
            return {renamed.get(k, k): v for k, v in values.items()}
        return dict(values)

    return run


def _decode_json_strings(arguments: Any, exc: Any) -> dict[str, Any] | None:
    """Arguments with JSON-encoded arrays/objects decoded where a string was rejected."""
    if not isinstance(arguments, dict):
        return None
    import orjson

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


def _error_list(exc: Any) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    for err in exc.errors(include_url=False, include_context=False, include_input=False):
        path = ".".join(str(part) for part in err["loc"])
        msg = str(err["msg"])
        if len(msg) > _MAX_MESSAGE:
            msg = msg[: _MAX_MESSAGE - 3] + "..."
        out.append((path, msg))
    return out


def _pydantic_output(
    ret: Any, structured_output: bool | None, name: str, portable: bool
) -> tuple[dict[str, Any] | None, bool, Callable[[], Dumper]]:
    if (
        ret is _EMPTY
        or ret is None
        or ret is _NONE_TYPE
        or ret is Any
        or _is_content(ret)
        or _is_untyped_sequence(ret)
    ):
        if structured_output:
            _no_output_schema(name, ret)
        return None, False, _generic_dumper
    if ret is str and not structured_output:
        return None, False, _generic_dumper
    from pydantic import PydanticUserError, TypeAdapter

    try:
        adapter: Any = TypeAdapter(pydantic_ready(ret))
        schema = adapter.json_schema(mode="serialization")
    except (PydanticUserError, NameError, TypeError):
        if structured_output:
            _no_output_schema(name, ret)
        return None, False, _generic_dumper
    schema = clean_schema(schema, for_input=False) if portable else expand_root_ref(schema)
    wraps = schema.get("type") != "object"
    if wraps:
        schema = _wrap(schema)
    return schema, wraps, partial(_adapter_dumper, adapter)


def _adapter_dumper(adapter: Any) -> Dumper:
    """Check a return value against the declared type (TL-22), then dump it as JSON data."""
    from pydantic_core import PydanticSerializationError, ValidationError, to_jsonable_python

    validate = adapter.validate_python
    dump_python = adapter.dump_python

    def dump(value: Any) -> Any:
        try:
            value = validate(value)
        except ValidationError as exc:
            raise OutputMismatch(str(exc)[:_MAX_MESSAGE]) from None
        try:
            return dump_python(value, mode="json", by_alias=True, warnings=False)
        except PydanticSerializationError:
            return to_jsonable_python(value, by_alias=True)

    return dump


def _is_untyped_sequence(ann: Any) -> bool:
    """A bare ``list``/``tuple`` (or of ``Any``): it may hold content blocks, so no schema is promised."""
    if ann in (list, tuple):
        return True
    return typing.get_origin(ann) in (list, tuple) and all(
        arg is Any or arg is Ellipsis for arg in typing.get_args(ann)
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
