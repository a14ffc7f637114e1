"""The developer's functions, as tools, prompts and resources all need them: whether they are
async, their names, docstrings and signatures, which parameters are injected, and how their
exceptions become messages (shown when the function's own code raised an expected error,
masked when it came from a library).
"""

from __future__ import annotations

import functools
import inspect
import sys
import typing
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ._schema_common import EMPTY, UNIONS

# Exceptions that tool authors raise on purpose to tell the model what went wrong. Their
# message is shown when the tool's own code raised them; from inside a library it is masked.
EXPECTED_ERRORS: tuple[type[BaseException], ...] = (
    ValueError,
    TypeError,
    LookupError,
    ArithmeticError,
    PermissionError,
    FileNotFoundError,
    FileExistsError,
    IsADirectoryError,
    NotADirectoryError,
    NotImplementedError,
    TimeoutError,
)


def unwrap(fn: Callable[..., Any]) -> Callable[..., Any]:
    while isinstance(fn, functools.partial):
        fn = fn.func
    return fn


def is_async(fn: Callable[..., Any]) -> bool:
    target = unwrap(fn)
    if inspect.iscoroutinefunction(target):
        return True
    call = getattr(target, "__call__", None)  # noqa: B004 - callable objects
    return (
        not inspect.isfunction(target)
        and not inspect.ismethod(target)
        and (inspect.iscoroutinefunction(call))
    )


def describe(fn: Callable[..., Any]) -> tuple[str, str | None, Any]:
    """(name, docstring, underlying function) of a function, method, partial or callable."""
    obj: Any = fn
    while isinstance(obj, functools.partial):
        obj = obj.func
    if inspect.ismethod(obj):
        obj = obj.__func__
    if inspect.isfunction(obj) or inspect.isbuiltin(obj) or isinstance(obj, type):
        return getattr(obj, "__name__", "tool"), obj.__doc__, inspect.unwrap(obj)
    call = type(obj).__call__
    doc = type(obj).__doc__ or getattr(call, "__doc__", None)
    return type(obj).__name__, doc, inspect.unwrap(call)


def signature_of(fn: Callable[..., Any], func: Any, name: str) -> inspect.Signature:
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
            ret = EMPTY  # an unresolvable return annotation only costs the output schema
    return sig.replace(parameters=params, return_annotation=ret)


def injected_type(ann: Any, inject: tuple[type, ...]) -> type | None:
    """The injectable class ``ann`` names (also through Annotated, Optional, generics)."""
    origin = typing.get_origin(ann)
    if origin is typing.Annotated:
        return injected_type(typing.get_args(ann)[0], inject)
    if origin in UNIONS:
        for arg in typing.get_args(ann):
            found = injected_type(arg, inject)
            if found is not None:
                return found
        return None
    if isinstance(origin, type):
        ann = origin
    if isinstance(ann, type) and issubclass(ann, inject):
        return ann
    return None


def error_message(exc: BaseException) -> str:
    # str(KeyError("No such user")) is "'No such user'": show what the author wrote.
    if isinstance(exc, KeyError) and len(exc.args) == 1 and isinstance(exc.args[0], str):
        return exc.args[0] or type(exc).__name__
    return str(exc) or type(exc).__name__


_LIBRARY_DIRS = frozenset({"site-packages", "dist-packages"})


@functools.lru_cache(maxsize=1)
def _library_roots() -> tuple[str, ...]:
    import sysconfig

    roots = {str(Path(__file__).resolve().parent)}
    for scheme_paths in (
        sysconfig.get_paths(),
        sysconfig.get_paths(vars={"base": sys.base_prefix}),
    ):
        for key in ("stdlib", "platstdlib", "purelib", "platlib"):
            if key in scheme_paths:
                roots.add(str(Path(scheme_paths[key]).resolve()))
    return tuple(roots)


def raised_by(exc: BaseException, tool_source: str | None) -> bool:
    """True if the innermost Python frame of ``exc`` is the tool's own code, not a library's."""
    tb = exc.__traceback__
    if tb is None:
        return False
    while tb.tb_next is not None:
        tb = tb.tb_next
    filename = tb.tb_frame.f_code.co_filename
    if filename == tool_source:
        return True
    if filename.startswith("<"):
        return False
    resolved = Path(filename).resolve()
    if _LIBRARY_DIRS.intersection(resolved.parts):  # any installed package, wherever it lives
        return False
    return not str(resolved).startswith(_library_roots())
