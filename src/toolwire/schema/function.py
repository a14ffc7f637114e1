"""Python signatures -> MCP tool JSON Schemas, argument validation and result dumping.

:func:`function_schema` turns a tool function into a :class:`FunctionSchema`: the description
(from the docstring), the ``inputSchema`` and ``outputSchema`` and the means to validate a
``tools/call``'s arguments and to dump a return value as JSON-able data.

Two paths give the same result:

* the **fast path** (:mod:`toolwire.schema.fast`) covers the common case -- every parameter an
  ``int``/``float``/``str``/``bool`` (optionally ``X | None``) with a plain default, and a
  primitive (or no) return type. It writes the schema by hand and never imports pydantic; its
  validator is a ``pydantic_core.SchemaValidator`` built from a hand-written core schema on
  first use.
* everything else goes through pydantic (:mod:`toolwire.schema.pydantic_path`, imported lazily
  like pydantic itself): an arguments model built with ``create_model`` and a ``TypeAdapter``
  for the return type.

This module inspects the signature, picks the path for the parameters and for the return
type, and bundles the result; the exceptions live in :mod:`toolwire.schema.common` so both
paths can raise them, and are exported from here.

The default ``"portable"`` profile cleans pydantic's schema (see :mod:`toolwire.schema.clean`);
``profile="pydantic"`` keeps it verbatim.
"""

from __future__ import annotations

import inspect
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import partial
from typing import Any, Literal

from ..functions.docstrings import parse_docstring
from ..functions.inspection import Dependency, describe, injected_as, signature_of
from .common import (
    EMPTY,
    Dumper,
    InvalidArguments,
    OutputMismatch,
    Validator,
    generic_dumper,
)
from .fast import FAST_RETURNS, fast_input_schema, fast_output, fast_validator
from .fast import fast_fields as _fast_fields

__all__ = ["FunctionSchema", "InvalidArguments", "OutputMismatch", "function_schema"]


@dataclass(eq=False)
class FunctionSchema:
    """Everything a tool definition needs to know about its function's signature."""

    description: str | None
    input_schema: dict[str, Any]
    output_schema: dict[str, Any] | None
    wraps_result: bool
    # Parameters filled in by the server: the Context class, or a Dependency (Depends).
    injected: dict[str, Any]
    _make_validator: Callable[[], Validator] = field(repr=False)
    _make_dumper: Callable[[], Dumper] = field(repr=False)
    # The result's text is the value's str() (an ordinary annotated class, as the SDK sends it).
    text_of_str: bool = False
    # The input schema is the author's own (input_schema=), not made from the signature.
    given_input: bool = False
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


# unknown_arguments= -> what the validators do with names that are no parameter
UNKNOWN_ARGUMENTS = {"reject": "forbid", "ignore": "lenient", "ignore-all": "ignore"}


def function_schema(
    fn: Callable[..., Any],
    *,
    inject: tuple[type, ...] = (),
    profile: Literal["portable", "pydantic"] = "portable",
    structured_output: bool | None = None,
    input_schema: dict[str, Any] | None = None,
    unknown_arguments: Literal["reject", "ignore", "ignore-all"] = "reject",
    provided: Mapping[Any, Dependency] | None = None,
) -> FunctionSchema:
    """Build the schemas, validator and dumper of the tool function ``fn``.

    ``fn`` may be a function, an ``async def``, a bound method, a ``functools.partial`` or a
    callable object. Parameters annotated with (a subclass of) one of ``inject``, dependencies
    (``Depends(...)`` in ``Annotated`` or as the default) and parameters of a type
    ``provided`` maps to a dependency are left out of the schema and listed in
    ``FunctionSchema.injected``. ``structured_output=False`` turns
    the output schema off; ``True`` requires one (``TypeError`` if the return type has none).
    Annotations that cannot be turned into a schema raise ``TypeError``. ``input_schema``
    is the author's own JSON Schema 2020-12 for the arguments (:mod:`toolwire.schema.given`),
    published verbatim instead of one derived from the parameters.
    ``unknown_arguments``: a call's argument names that are no parameter are an error
    (``"reject"``), dropped unless close to a parameter's name (``"ignore"``: that one is
    still an error, a likely typo) or all dropped (``"ignore-all"``); names that start with
    ``_`` are dropped under each. A function with ``**kwargs`` receives them, and an
    ``input_schema`` decides by its own ``additionalProperties``.
    """
    if unknown_arguments not in UNKNOWN_ARGUMENTS:
        raise ValueError(
            "unknown_arguments must be 'reject', 'ignore' (unknown names dropped, a near "
            "miss of a parameter's name refused) or 'ignore-all' (all dropped), not "
            f"{unknown_arguments!r}"
        )
    return _function_schema(
        fn,
        inject,
        profile,
        structured_output,
        allow_fast=True,
        given=input_schema,
        unknown_arguments=unknown_arguments,
        provided=provided,
    )


def _function_schema(
    fn: Callable[..., Any],
    inject: tuple[type, ...],
    profile: str,
    structured_output: bool | None,
    *,
    allow_fast: bool,
    given: dict[str, Any] | None = None,
    unknown_arguments: str = "reject",
    provided: Mapping[Any, Dependency] | None = None,
) -> FunctionSchema:
    if profile not in ("portable", "pydantic"):
        raise ValueError(f"unknown schema profile {profile!r}: use 'portable' or 'pydantic'")
    portable = profile == "portable"
    name, doc_text, func = describe(fn)
    sig = signature_of(fn, func, name)
    doc = parse_docstring(doc_text)

    params: list[tuple[str, Any, Any]] = []
    injected: dict[str, Any] = {}
    takes_any = False  # a **kwargs parameter
    for p in sig.parameters.values():
        if p.kind is p.VAR_POSITIONAL or p.kind is p.VAR_KEYWORD:
            takes_any = takes_any or p.kind is p.VAR_KEYWORD
            continue
        inj = injected_as(p.annotation, p.default, inject, provided)
        if inj is not None:
            injected[p.name] = inj
            continue
        if p.kind is p.POSITIONAL_ONLY:
            raise TypeError(
                f"tool {name!r}: positional-only parameter {p.name!r} cannot be passed by name"
            )
        params.append((p.name, p.annotation, p.default))
    ret = sig.return_annotation
    # What becomes of argument names that are no parameter (pydantic-core's extra behaviour)
    extra = "allow" if takes_any else UNKNOWN_ARGUMENTS[unknown_arguments]

    hints: dict[str, Any] | None = None
    fast = _fast_fields(params) if allow_fast and portable and given is None else None
    make_validator: Callable[[], Validator]
    if given is not None:
        from .given import given_input  # lazy: only for a schema given by hand

        input_schema, make_validator = given_input(name, given, params, takes_any)
    elif fast is not None:
        input_schema = fast_input_schema(fast, doc)
        make_validator = partial(fast_validator, fast, extra)
    else:
        # lazy: the pydantic path, only for a type the fast path does not take
        from .pydantic_path import pydantic_input

        hints = _type_hints(func)
        params = [(n, hints.get(n, a), d) for n, a, d in params]
        input_schema, make_validator = pydantic_input(name, func, params, doc, portable, extra)

    if structured_output is False:
        output: tuple[dict[str, Any] | None, bool, Callable[[], Dumper], bool] = (
            None,
            False,
            generic_dumper,
            False,
        )
    elif allow_fast and (ret is EMPTY or ret is None or ret is Any or ret in FAST_RETURNS):
        output = fast_output(ret, structured_output, name)
    else:
        # lazy: the pydantic path, only for a type the fast path does not take
        from .pydantic_path import pydantic_output

        if hints is None:
            hints = _type_hints(func)
        output = pydantic_output(hints.get("return", ret), structured_output, name, portable)
    output_schema, wraps, make_dumper, text_of_str = output
    return FunctionSchema(
        description=doc.description,
        input_schema=input_schema,
        output_schema=output_schema,
        wraps_result=wraps,
        injected=injected,
        _make_validator=make_validator,
        _make_dumper=make_dumper,
        text_of_str=text_of_str,
        given_input=given is not None,
    )


# -- signature inspection -----------------------------------------------------------------


def _type_hints(func: Any) -> dict[str, Any]:
    """Fully resolved hints (nested forward references too); empty if they cannot be had."""
    if not inspect.isfunction(func):
        return {}
    try:
        return typing.get_type_hints(func, include_extras=True)
    except Exception:
        return {}
