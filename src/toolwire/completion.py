"""Completion of argument values (``completion/complete``): running one completer.

A completer is ``fn(value)`` or ``fn(value, arguments)`` -- ``arguments`` being the values
answered earlier (``context.arguments``) -- sync or async, and returns a list of suggestions
or an object (or dict) with ``values`` and optionally ``total`` and ``hasMore``. Prompt
arguments and resource-template variables share this.
"""

from __future__ import annotations

import inspect
import logging
import os
from collections.abc import Awaitable, Callable, Iterable, Mapping
from typing import Any

from . import jsonrpc
from .errors import RPCError, ToolError
from .functions.inspection import error_message, is_async

logger = logging.getLogger("toolwire")

JSON = dict[str, Any]
RunSync = Callable[[Callable[..., Any], dict[str, Any]], Awaitable[Any]]

MAX_COMPLETIONS = 100  # CompleteResult.completion.values holds at most 100 items


def prefix_completer(choices: tuple[str, ...]) -> Callable[[str], list[str]]:
    def complete(value: str) -> list[str]:
        lowered = value.lower()
        return [choice for choice in choices if choice.lower().startswith(lowered)]

    return complete


def _wants_context(completer: Callable[..., Any]) -> bool:
    """A completer written ``fn(value, arguments)`` gets the earlier answers too."""
    try:
        parameters = inspect.signature(completer).parameters.values()
    except (TypeError, ValueError):
        return False
    positional = 0
    for param in parameters:
        if param.kind is param.VAR_POSITIONAL:
            return True
        if param.kind in (param.POSITIONAL_ONLY, param.POSITIONAL_OR_KEYWORD):
            positional += 1
    return positional >= 2


async def run_completer(
    completer: Callable[..., Any],
    value: str,
    context: dict[str, str],
    run_sync: RunSync,
    *,
    label: str,
    mask_errors: bool,
) -> JSON:
    """Ask one completer for suggestions and return ``CompleteResult.completion``.

    A completer returns a list of strings, or an object (or dict) with ``values`` and
    optionally ``total`` and ``hasMore`` (``has_more``); sync completers run on a worker
    thread, async ones are awaited. At most 100 values go out; ``hasMore`` says when some
    were cut.
    """
    args: tuple[Any, ...] = (value, dict(context)) if _wants_context(completer) else (value,)
    try:
        if is_async(completer):
            found = await completer(*args)
        else:
            found = await run_sync(_call_positional, {"fn": completer, "args": args})
    except (Exception, SystemExit, KeyboardInterrupt) as exc:
        if isinstance(exc, RPCError):
            raise
        if isinstance(exc, ToolError):
            raise RPCError(jsonrpc.INTERNAL_ERROR, error_message(exc)) from None
        reference = os.urandom(4).hex()
        logger.error("Completion of %s failed (reference %s)", label, reference, exc_info=exc)
        text = (
            f"{type(exc).__name__}: {exc} (reference {reference})"
            if not mask_errors
            else f"Completion of {label} failed with an internal error (reference {reference})"
        )
        raise RPCError(jsonrpc.INTERNAL_ERROR, text) from None
    return completion_result(found)


def _call_positional(fn: Callable[..., Any], args: tuple[Any, ...]) -> Any:
    return fn(*args)


def completion_result(found: Any) -> JSON:
    """``{"values": [...≤100], "total"?, "hasMore"?}`` for what a completer returned."""
    total: Any = None
    has_more: Any = None
    if found is None:
        values: Iterable[Any] = ()
    elif isinstance(found, Mapping):
        values = found.get("values") or ()
        total = found.get("total")
        has_more = found.get("hasMore", found.get("has_more"))
    elif hasattr(found, "values") and not callable(found.values):
        values = found.values or ()
        total = getattr(found, "total", None)
        has_more = getattr(found, "hasMore", getattr(found, "has_more", None))
    elif isinstance(found, str):
        values = (found,)
    else:
        values = found
    suggestions = [v if isinstance(v, str) else str(v) for v in values]
    completion: JSON = {"values": suggestions[:MAX_COMPLETIONS]}
    cut = len(suggestions) > MAX_COMPLETIONS
    if isinstance(total, int) and not isinstance(total, bool):
        completion["total"] = total
    elif cut:
        completion["total"] = len(suggestions)
    if cut or has_more is not None:
        completion["hasMore"] = bool(cut or has_more)
    return completion
