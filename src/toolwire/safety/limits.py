"""Limits on the shape of ``tools/call`` arguments, checked before validation (TL-28).

The transport already bounds a message's size (stdio ``max_message_bytes``, HTTP
``max_body_bytes``) and the JSON decoder refuses nesting past 1024 levels. Within those
bounds a client can still send a value nested hundreds of levels deep or a string of tens
of megabytes, which costs recursion and memory in validators and in the tool itself.
:func:`check_arguments` walks the arguments once, without recursion, and stops at the first
value over a limit; the call then never reaches pydantic or the tool.

Depth counts containers: in ``{"a": [[1]]}`` the argument ``a`` is nested 2 levels deep,
a scalar argument 0. Object keys count as strings.
"""

from __future__ import annotations

import sys
from typing import Any

from ..schema.function import InvalidArguments
from .text import strip_control

__all__ = ["MAX_ARGUMENT_DEPTH", "MAX_STRING_LENGTH", "check_arguments"]

MAX_ARGUMENT_DEPTH = 32
MAX_STRING_LENGTH = 1_000_000

_SHOWN_PARTS = 6  # a longer path shows its first and last parts
_SHOWN_KEY = 40  # characters of one key shown in a path


def check_arguments(
    arguments: dict[str, Any],
    max_depth: int | None = MAX_ARGUMENT_DEPTH,
    max_length: int | None = MAX_STRING_LENGTH,
) -> None:
    """Raise :class:`~toolwire.schema.function.InvalidArguments` naming the first field nested deeper
    than ``max_depth`` or holding a string longer than ``max_length`` (None: no limit)."""
    depth_limit = sys.maxsize if max_depth is None else max_depth
    length_limit = sys.maxsize if max_length is None else max_length
    for key, value in arguments.items():
        if len(key) > length_limit:
            raise _too_long((), key, length_limit, "name")
        cls = type(value)
        if cls is str:
            if len(value) > length_limit:
                raise _too_long((key,), value, length_limit, "string")
        elif cls is dict or cls is list:
            _check_nested(value, key, depth_limit, length_limit)


def _check_nested(value: Any, key: str, max_depth: int, max_length: int) -> None:
    stack: list[tuple[Any, tuple[Any, ...]]] = [(value, (key,))]
    while stack:
        node, path = stack.pop()
        if len(path) > max_depth:
            raise InvalidArguments(
                [(_show(path), f"Value is nested deeper than the limit of {max_depth} levels")]
            )
        items = node.items() if type(node) is dict else enumerate(node)
        for name, item in items:
            if type(name) is str and len(name) > max_length:
                raise _too_long(path, name, max_length, "key")
            cls = type(item)
            if cls is str:
                if len(item) > max_length:
                    raise _too_long((*path, name), item, max_length, "string")
            elif cls is dict or cls is list:
                stack.append((item, (*path, name)))


def _too_long(path: tuple[Any, ...], text: str, limit: int, what: str) -> InvalidArguments:
    if what == "string":
        message = f"String of {len(text):,} characters is longer than the limit of {limit:,}"
    else:  # an object key, or the name of an argument
        message = (
            f"{'Argument name' if what == 'name' else 'Key'} {_part(text)!r} of {len(text):,} "
            f"characters is longer than the limit of {limit:,}"
        )
    return InvalidArguments([(_show(path), message)])


def _show(path: tuple[Any, ...]) -> str:
    """A field path as validation errors show it (``items.0.name``), shortened if long."""
    parts = [_part(p) for p in path]
    if len(parts) > _SHOWN_PARTS:  # items.0.0...0.0
        return ".".join(parts[:3]) + "..." + ".".join(parts[-2:])
    return ".".join(parts)


def _part(key: Any) -> str:
    """One path part, safe to show: control characters removed, at most a few words long."""
    text = strip_control(key) if isinstance(key, str) else str(key)
    return text if len(text) <= _SHOWN_KEY else text[: _SHOWN_KEY - 3] + "..."
