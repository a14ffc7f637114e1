"""A server that cannot be reached, refuses the caller or is missing an optional part, as
one line that says what to do (never a traceback)."""

from __future__ import annotations

import sys

from ..errors import ClientError, Unauthorized
from .packages import EXTRAS, missing_extra_message


def connection_message(error: BaseException, where: str | None) -> str | None:
    """The line for ``error``, or None when it is not a connection failure (a bug: let the
    traceback show)."""
    if isinstance(error, ModuleNotFoundError) and (error.name or "").split(".")[0] in EXTRAS:
        return missing_extra_message((error.name or "").split(".")[0], f"{where}")
    text = str(error).strip() or type(error).__name__
    if isinstance(error, Unauthorized):
        return f"{where}: {text}; give a token with --header 'Authorization: Bearer TOKEN'"
    if isinstance(error, ClientError) and not isinstance(error, TimeoutError):
        return f"{where}: {text}"
    if isinstance(error, (OSError, TimeoutError)) or _is_http_error(error):
        return f"{where}: cannot connect ({type(error).__name__}: {text})"
    return None


def _is_http_error(error: BaseException) -> bool:
    httpx = sys.modules.get("httpx")
    return httpx is not None and isinstance(error, httpx.HTTPError)
