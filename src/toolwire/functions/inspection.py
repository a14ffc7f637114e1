"""The developer's functions, as tools, prompts and resources all need them: whether they are
async, their names, docstrings and signatures, which parameters are injected (the call's
``Context``, and dependencies: :func:`Depends`), and how their exceptions become messages
(shown when the function's own code raised an expected error, masked when it came from a
library).
"""

from __future__ import annotations

import asyncio
import dis
import functools
import inspect
import sys
import types
import typing
from collections.abc import Callable, Mapping
from pathlib import Path
from types import TracebackType
from typing import Any, Literal

EMPTY = inspect.Parameter.empty
UNIONS: tuple[Any, ...] = (typing.Union, types.UnionType)  # X | None and Optional[X]

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


def signature_of(
    fn: Callable[..., Any], func: Any, name: str, kind: str | None = "tool"
) -> inspect.Signature:
    """The signature of ``fn``, annotations evaluated; ``TypeError`` (naming the ``kind``
    and ``name``) for one that cannot be."""
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
                hint = ""
                if "Depends(" in p.annotation:  # a provider defined inside a function
                    hint = (
                        " (with `from __future__ import annotations` an annotation is "
                        "evaluated later, where only module-level names exist: define the "
                        f"provider at module level, or write `{p.name}: T = Depends(...)`)"
                    )
                where = f"{kind} {name!r}: " if kind else ""
                raise TypeError(
                    f"{where}cannot resolve the annotation {p.annotation!r} of "
                    f"parameter {p.name!r}: {exc}{hint}"
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


class Injected:
    """A base of the classes the server fills in for a parameter annotated with one
    (:class:`toolwire.Context`), so that a component built on its own
    (``Tool.from_function(fn)``) knows them as the server's registration does."""

    __slots__ = ()


SCOPES = ("request", "lifespan")


class Dependency:
    """A parameter the server fills in with what ``provider`` gives (made by :func:`Depends`
    or by ``Server.provide``); resolved by :mod:`toolwire.functions.dependencies`."""

    __slots__ = ("provider", "scope")

    def __init__(self, provider: Callable[..., Any], scope: str) -> None:
        self.provider = provider
        self.scope = scope

    def __repr__(self) -> str:
        name = getattr(unwrap(self.provider), "__name__", repr(self.provider))
        return f"Depends({name}, scope={self.scope!r})"


def Depends(
    provider: Callable[..., Any], *, scope: Literal["request", "lifespan"] = "request"
) -> Any:
    """A parameter the server fills in: ``pool: Annotated[Pool, Depends(get_pool)]`` (or
    ``pool: Pool = Depends(get_pool)``). Never part of the input schema.

    ``provider`` is a function, async function, generator or async generator (the code after
    its ``yield`` cleans up), or a class; its own parameters are dependencies too (``Context``,
    other ``Depends``, types given to ``Server.provide``) or keep their defaults.
    ``scope="request"``: called once per call (shared by everything in that call), cleaned up
    when the function returns or raises, or the call is cancelled. ``scope="lifespan"``:
    called on first use and shared by every call until the server stops, when it is cleaned
    up. See docs/runtime.md, "Dependencies".
    """
    if not callable(provider):
        raise TypeError(f"Depends() needs a function or class, got {type(provider).__name__}")
    if scope not in SCOPES:
        raise ValueError(f'scope must be "request" or "lifespan", not {scope!r}')
    return Dependency(provider, scope)


def injected_as(
    ann: Any,
    default: Any,
    inject: tuple[type, ...],
    provided: Mapping[Any, Dependency] | None = None,
) -> Any:
    """What fills a parameter in rather than an argument: its :class:`Dependency` (in
    ``Annotated`` metadata, or as the default, or the one ``provided`` for its type), the
    injectable class of ``inject`` it names, or None (an argument)."""
    if type(ann) is type:  # a plain class (int, str, a dataclass): no Annotated, no generics
        if isinstance(default, Dependency):
            return default
        if inject and issubclass(ann, inject):
            return ann
        return provided.get(ann) if provided else None
    if typing.get_origin(ann) is typing.Annotated:
        for extra in ann.__metadata__:
            if isinstance(extra, Dependency):
                return extra
    if isinstance(default, Dependency):
        return default
    if inject:
        found = injected_type(ann, inject)
        if found is not None:
            return found
    if provided:
        if typing.get_origin(ann) is typing.Annotated:
            ann = typing.get_args(ann)[0]
        try:
            return provided.get(ann)
        except TypeError:  # an unhashable annotation names no provided type
            return None
    return None


def error_message(exc: BaseException) -> str:
    # str(KeyError("No such user")) is "'No such user'": show what the author wrote.
    if isinstance(exc, KeyError) and len(exc.args) == 1 and isinstance(exc.args[0], str):
        return exc.args[0] or type(exc).__name__
    return str(exc) or type(exc).__name__


_LIBRARY_DIRS = frozenset({"site-packages", "dist-packages"})


@functools.lru_cache(maxsize=1)
def _library_roots() -> tuple[str, ...]:
    import sysconfig  # lazy: only to tell the user's frames from a library's

    roots = {str(Path(__file__).resolve().parents[1])}  # the toolwire package
    for scheme_paths in (
        sysconfig.get_paths(),
        sysconfig.get_paths(vars={"base": sys.base_prefix}),
    ):
        for key in ("stdlib", "platstdlib", "purelib", "platlib"):
            if key in scheme_paths:
                roots.add(str(Path(scheme_paths[key]).resolve()))
    return tuple(roots)


def raised_by(exc: BaseException, tool_source: str | None) -> bool:
    """True if the author's own code raised ``exc`` with a ``raise`` statement.

    The innermost Python frame must be the tool's own code (not a library's, the standard
    library's or toolwire's), and the instruction it stopped at a ``raise``. An exception
    that a builtin or an operation raised in the tool's own frame (``int(secret)``,
    ``open(path)``, ``mapping[key]``, ``1 / 0``) stopped at a call or an operator instead:
    its message was written by Python, about values the tool handled, so it is masked.
    """
    tb = _innermost(exc, tool_source)
    if tb is None:
        return False
    code = tb.tb_frame.f_code.co_code
    lasti = tb.tb_lasti  # a byte offset into co_code on every supported Python (3.10+)
    return 0 <= lasti < len(code) and code[lasti] in _raise_opcodes()


def own_code(exc: BaseException, tool_source: str | None) -> bool:
    """True if the innermost Python frame of ``exc`` is the author's code, not a library's
    (whatever raised it there: a ``raise`` statement or a builtin)."""
    return _innermost(exc, tool_source) is not None


def _innermost(exc: BaseException, tool_source: str | None) -> TracebackType | None:
    """The innermost traceback entry of ``exc`` if it is in the author's code, else None."""
    tb = exc.__traceback__
    if tb is None:
        return None
    while tb.tb_next is not None:
        tb = tb.tb_next
    filename = tb.tb_frame.f_code.co_filename
    if filename == tool_source:
        return tb
    if filename.startswith("<"):
        return None
    resolved = Path(filename).resolve()
    if _LIBRARY_DIRS.intersection(resolved.parts):  # any installed package, wherever it lives
        return None
    return None if str(resolved).startswith(_library_roots()) else tb


@functools.lru_cache(maxsize=1)
def _raise_opcodes() -> frozenset[int]:
    """The opcodes of a ``raise`` statement: ``RAISE_VARARGS`` (``raise X``, and a bare
    ``raise`` on 3.10) and ``RERAISE``; the same names on Python 3.10 to 3.13."""

    return frozenset(dis.opmap[name] for name in ("RAISE_VARARGS", "RERAISE") if name in dis.opmap)


def cancelled_from_outside() -> bool:
    """Whether the running task was cancelled (``Task.cancel()``: the client, a deadline, a
    closing connection), as opposed to code raising ``CancelledError`` on its own. Python
    3.10 cannot tell: cancelled."""
    cancelling = getattr(asyncio.current_task(), "cancelling", None)
    return cancelling is None or cancelling() > 0
