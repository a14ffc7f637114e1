"""Workarounds for older Pythons: annotations made ready for pydantic, and cancellations
that are never lost."""

from __future__ import annotations

import asyncio
import functools
import sys
import types
import typing
from collections.abc import Awaitable, Collection
from typing import Any, TypeVar

_T = TypeVar("_T")

_TYPEDDICT_SHIM = sys.version_info < (3, 12)
_KEY_MARKERS = {"Required", "NotRequired"}


def pydantic_ready(annotation: Any) -> Any:
    """``annotation`` with each ``typing.TypedDict`` swapped for a ``typing_extensions`` twin.

    Before Python 3.12 pydantic refuses ``typing.TypedDict`` (it needs the newer class), yet
    tutorials use the plain one; the twin has the same keys, types, docstring and name.
    Generic containers, unions and ``Annotated`` are rebuilt around swapped arguments.
    """
    return _convert(annotation) if _TYPEDDICT_SHIM else annotation


def _convert(annotation: Any) -> Any:
    if isinstance(annotation, type) and typing.is_typeddict(annotation):
        return _twin(annotation) if type(annotation).__module__ == "typing" else annotation
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if origin is None or not args:
        return annotation
    if origin is typing.Annotated:
        inner = _convert(args[0])
        if inner is args[0]:
            return annotation
        params = (inner, *args[1:])
        return typing.Annotated[params]
    if origin is typing.Literal:
        return annotation
    converted = tuple(_convert(arg) for arg in args)
    if all(new is old for new, old in zip(converted, args, strict=True)):
        return annotation
    if origin is typing.Union or origin is types.UnionType:
        return typing.Union[converted]  # noqa: UP007 - built from a tuple
    copy_with = getattr(annotation, "copy_with", None)
    return copy_with(converted) if copy_with is not None else origin[converted]


@functools.cache
def _twin(typed_dict: type) -> Any:
    import typing_extensions  # lazy: typing_extensions (with pydantic), only before Python 3.12

    fields = {}
    hints = typing.get_type_hints(typed_dict, include_extras=True)
    for key, value in hints.items():
        while getattr(typing.get_origin(value), "_name", None) in _KEY_MARKERS:
            value = typing.get_args(value)[0]
        marker = (
            typing_extensions.Required
            if key in typed_dict.__required_keys__  # type: ignore[attr-defined]
            else typing_extensions.NotRequired
        )
        fields[key] = marker[_convert(value)]
    twin: Any = typing_extensions.TypedDict(typed_dict.__name__, fields)  # type: ignore[misc]
    twin.__doc__ = typed_dict.__doc__
    twin.__module__ = typed_dict.__module__
    twin.__qualname__ = typed_dict.__qualname__
    return twin


async def within(awaitable: Awaitable[_T], seconds: float) -> _T:
    """``await awaitable``, or :class:`asyncio.TimeoutError` after ``seconds``.

    The wait is a timer on the calling task, not a task of its own: before Python 3.12,
    ``asyncio.wait_for`` drops a cancellation of its caller that arrives as the awaited call
    ends, and a loop stopped by ``cancel()`` then runs on. (Python 3.10 has only
    ``wait_for``.)
    """
    if sys.version_info >= (3, 11):
        async with asyncio.timeout(seconds):
            return await awaitable
    return await asyncio.wait_for(awaitable, seconds)


AGAIN_S = 0.1  # how often a task that ran on after its cancel is cancelled again


async def cancelled(tasks: Collection[asyncio.Task[Any]]) -> None:
    """Cancel ``tasks`` and wait until each has ended (their errors are not raised).

    A task that runs on after its cancel is cancelled again: before Python 3.12 a library's
    own ``asyncio.wait_for`` may swallow the cancellation (redis-py's does, when a write to
    Redis ends as the cancel arrives), and a loop cancelled once would run for ever.
    """
    pending = set(tasks)
    while pending:
        for task in pending:
            task.cancel()
        _done, pending = await asyncio.wait(pending, timeout=AGAIN_S)
    await asyncio.gather(*tasks, return_exceptions=True)
