"""What both paths of :mod:`toolwire.schema.function` share: its exceptions, aliases and small helpers.

The fast path (:mod:`toolwire.schema.fast`) and the pydantic path
(:mod:`toolwire.schema.pydantic_path`) both raise :class:`InvalidArguments` and
:class:`OutputMismatch`, report pydantic-core errors the same way and fall back to the same
dumper; keeping those here lets :mod:`toolwire.schema.function` import both paths without a cycle.
Nothing here imports pydantic at module level.
"""

from __future__ import annotations

import typing
from collections.abc import Callable
from typing import Any

from ..functions.inspection import EMPTY, UNIONS

__all__ = [
    "EMPTY",
    "MAX_MESSAGE",
    "NONE_TYPE",
    "UNIONS",
    "Dumper",
    "InvalidArguments",
    "OutputMismatch",
    "Validator",
    "error_list",
    "generic_dumper",
    "is_string_param",
    "no_output_schema",
    "string_param",
    "unknown_checked",
    "wrap_result",
]

Validator = Callable[[dict[str, Any]], dict[str, Any]]
Dumper = Callable[[Any], Any]

NONE_TYPE = type(None)
_JSON_SCALARS = frozenset({int, float, str, bool, NONE_TYPE})
MAX_MESSAGE = 300  # characters of a validation message passed on to the model


class InvalidArguments(Exception):
    """The arguments of a ``tools/call`` do not fit the tool's input schema.

    ``errors`` holds one ``(field path, message)`` pair per problem, e.g.
    ``("items.0.name", "Field required")``; the path is empty for the arguments as a whole.
    """

    __module__ = "toolwire.schema.function"  # its public home, shown in tracebacks and reprs

    def __init__(self, errors: list[tuple[str, str]]) -> None:
        super().__init__(errors)
        self.errors = errors

    def __str__(self) -> str:
        return "; ".join(f"{path}: {msg}" if path else msg for path, msg in self.errors)


class OutputMismatch(ValueError):
    """A tool returned a value that does not fit its declared return type (its output schema)."""

    __module__ = "toolwire.schema.function"


def error_list(exc: Any) -> list[tuple[str, str]]:
    """(field path, message) pairs of a pydantic-core ``ValidationError``."""
    out: list[tuple[str, str]] = []
    for err in exc.errors(include_url=False, include_context=False, include_input=False):
        path = ".".join(str(part) for part in err["loc"])
        msg = str(err["msg"])
        if len(msg) > MAX_MESSAGE:
            msg = msg[: MAX_MESSAGE - 3] + "..."
        out.append((path, msg))
    return out


EXTRA = "Extra inputs are not permitted"  # pydantic-core's words for an unknown name
CLOSE = 0.6  # how alike an unknown name and a parameter's are for "did you mean" (difflib)


def unknown_checked(
    validate: Callable[[dict[str, Any]], dict[str, Any]], known: frozenset[str], unknown: str
) -> Callable[[dict[str, Any]], dict[str, Any]]:
    """``validate`` (which raises :class:`InvalidArguments`) with the argument names that are
    not in ``known`` refused (``unknown="forbid"``), refused when close to a parameter's name
    and dropped otherwise (``"lenient"``), passed on (``"allow"``, for a function with
    ``**kwargs``) or left to ``validate`` (``"ignore"``: it drops them). Under ``"forbid"``
    and ``"lenient"`` a name that starts with ``_`` (``_meta``, which some clients put among
    the arguments) is never an argument: it is dropped, unless it is close to the name of a
    parameter that starts with ``_`` too.

    A valid call pays one set operation (``known.issuperset``), cheaper than pydantic-core's
    own ``extra_behavior="forbid"``, which tracks the keys it used; only a call with unknown
    names takes the slow way, where their errors follow the others, as pydantic-core's do."""
    if unknown == "ignore":
        return validate
    superset = known.issuperset
    allow = unknown == "allow"
    lenient = unknown == "lenient"

    def refused(key: str) -> bool:
        underscore = key[:1] == "_"
        if not underscore and not lenient:
            return True
        import difflib  # lazy: only for a 'did you mean'

        # a `_` name is refused only as a typo of a `_` parameter (`meta` takes no `_meta`)
        names = [name for name in known if name[:1] == "_"] if underscore else list(known)
        return bool(difflib.get_close_matches(key, names, n=1, cutoff=CLOSE))

    def slow(arguments: dict[str, Any]) -> dict[str, Any]:
        if not isinstance(arguments, dict):  # validate says what is wrong with it
            return validate(arguments)
        extra = {key: value for key, value in arguments.items() if key not in known}
        errors = [] if allow else [(str(key), EXTRA) for key in extra if refused(str(key))]
        try:
            values = validate(arguments)
        except InvalidArguments as exc:
            exc.errors += errors
            raise
        if errors:
            raise InvalidArguments(errors)
        return {**values, **extra} if allow else values

    def run(arguments: dict[str, Any]) -> dict[str, Any]:
        try:
            if superset(arguments):
                return validate(arguments)
        except TypeError:  # not even iterable
            pass
        return slow(arguments)

    return run


def no_output_schema(name: str, ret: Any) -> typing.NoReturn:
    shown = "no return annotation" if ret is EMPTY else f"return type {ret!r}"
    raise TypeError(
        f"tool {name!r}: structured_output=True needs a return type with a JSON schema, "
        f"but it has {shown}"
    )


def wrap_result(schema: dict[str, Any]) -> dict[str, Any]:
    """An object schema with ``schema`` as its one ``result`` property (``$defs`` stay on top)."""
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


def generic_dumper() -> Dumper:
    """A dumper for undeclared return types: scalars as they are, anything else via
    pydantic-core, and a value JSON has no form for as its ``str()`` (as the official SDK
    and FastMCP send it)."""

    def dump(value: Any) -> Any:
        if type(value) in _JSON_SCALARS:
            return value
        # lazy: pydantic, off the import path until a schema needs it
        from pydantic_core import to_jsonable_python

        return to_jsonable_python(value, by_alias=True, fallback=str)

    return dump


def is_string_param(obj: Any) -> bool:
    """A marker that validates a string parameter itself (``toolwire.SafePath``): it gives a
    pydantic-core schema (``core_schema()``) and its note for the description (``describe``)."""
    return getattr(type(obj), "__toolwire_string_param__", False) is True


def string_param(ann: Any) -> Any:
    """The string-parameter marker in ``ann`` (also inside ``Optional``), or None."""
    origin = typing.get_origin(ann)
    if origin is typing.Annotated:
        return next((m for m in ann.__metadata__ if is_string_param(m)), None)
    if origin in UNIONS:
        return next((m for m in map(string_param, typing.get_args(ann)) if m is not None), None)
    return None
