"""The audit log: one JSON line per ``tools/call``, for who-called-what questions later.

::

    mcp = Server("files", audit=True)                          # the "toolwire.audit" logger
    mcp = Server("files", audit=AuditLog(file="audit.jsonl"))  # lines appended to a file

A line says when (``time``, UTC ISO 8601, when the call arrived), who (``caller``: the
authenticated subject or client id, else ``connection:<short id>``), what (``tool``,
``arguments``), how long (``duration_ms``) and how it ended (``outcome``, one of
:data:`OUTCOMES`), plus ``error_ref`` (the reference id of a masked internal error, to
find its traceback in the server log), ``revision``, ``request_id`` and, for a refused
call, which ``limit`` refused it.

What never gets in: access tokens and HTTP headers (the audit sees only the verified
identity), result payloads, and the values of sensitive arguments. An argument is
sensitive when its name (at any depth, case-insensitively) is one of the tool's own
``sensitive=[...]`` names or ``redact=`` names, or looks like a secret: ``password``,
``secret``, ``token``, ``api_key``, ``authorization``, ``cookie`` and the like
(``db_password`` and ``access-token`` too, ``max_tokens`` not). Long strings, lists and
dicts are cut short so one call cannot flood the log.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Iterable
from datetime import datetime, timezone
from typing import Any

import orjson

JSON = dict[str, Any]

OUTCOMES = (
    "ok",
    "error",
    "invalid_arguments",
    "rate_limited",
    "unknown_tool",
    "cancelled",
    "timeout",
    "input_required",
)
REDACTED = "[redacted]"

# Names compared without case, "_" or "-": "API-Key", "api_key" and "apiKey" are one name.
SECRET_NAMES = frozenset(
    {
        "auth",
        "authorization",
        "bearer",
        "cookie",
        "credential",
        "credentials",
        "jwt",
        "otp",
        "passphrase",
        "passwd",
        "password",
        "pwd",
        "secret",
        "session",
        "sessionid",
        "setcookie",
        "token",
    }
)
SECRET_SUFFIXES = (
    "apikey",
    "cookie",
    "credentials",
    "passphrase",
    "passwd",
    "password",
    "privatekey",
    "secret",
    "token",
)


def _normal(name: str) -> str:
    return name.lower().replace("_", "").replace("-", "")


def looks_secret(name: str) -> bool:
    """Whether an argument name is one that usually holds a secret."""
    normal = _normal(name)
    return normal in SECRET_NAMES or normal.endswith(SECRET_SUFFIXES)


def utc_iso(timestamp: float) -> str:
    """``2026-07-28T09:15:02.123Z``"""
    moment = datetime.fromtimestamp(timestamp, timezone.utc)
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


class AuditLog:
    """Where audit lines go: a ``logger`` (a name or a Logger) and/or a ``file``.

    With neither, the ``"toolwire.audit"`` logger at INFO (configure logging to keep its
    records; each record also carries the entry as ``record.audit``). A ``file`` is opened
    once in append mode (created ``0600``) and each line is written whole with a single
    ``write``, so lines from concurrent calls, threads or worker processes never interleave.
    """

    def __init__(
        self,
        logger: str | logging.Logger | None = None,
        *,
        file: str | os.PathLike[str] | None = None,
        level: int = logging.INFO,
        redact: Iterable[str] = (),
        max_value_chars: int = 256,
        max_items: int = 50,
        max_depth: int = 6,
    ) -> None:
        if logger is None and file is None:
            logger = "toolwire.audit"
        self.logger = logging.getLogger(logger) if isinstance(logger, str) else logger
        self.level = level
        self.path = None if file is None else os.fspath(file)
        self.names = frozenset(name.lower() for name in redact)
        self.max_value_chars = max_value_chars
        self.max_items = max_items
        self.max_depth = max_depth
        self._fd: int | None = None
        self._lock = threading.Lock()

    @property
    def enabled(self) -> bool:
        """Whether a line would go anywhere (else the call is not even described)."""
        return self.path is not None or (
            self.logger is not None and self.logger.isEnabledFor(self.level)
        )

    # ------------------------------------------------------------ describing a call

    def entry(
        self,
        *,
        caller: str,
        tool: str | None,
        arguments: Any,
        sensitive: Iterable[str] = (),
        revision: str,
        request_id: str | int,
    ) -> JSON:
        """A call as it arrived; :meth:`finish` adds how it ended and writes it."""
        hidden = self.names | {name.lower() for name in sensitive}
        return {
            "time": None,
            "caller": caller,
            "tool": tool,
            "arguments": self.redacted({} if arguments is None else arguments, hidden, 0),
            "duration_ms": None,
            "outcome": None,
            "error_ref": None,
            "revision": revision,
            "request_id": request_id,
        }

    def finish(
        self,
        entry: JSON,
        started: float,
        outcome: str,
        error_ref: str | None = None,
        limit: str | None = None,
    ) -> None:
        """Complete ``entry`` (``started`` is a ``perf_counter`` reading) and write it."""
        elapsed = time.perf_counter() - started
        entry["time"] = utc_iso(time.time() - elapsed)
        entry["duration_ms"] = round(elapsed * 1000, 3)
        entry["outcome"] = outcome
        entry["error_ref"] = error_ref
        if limit is not None:
            entry["limit"] = limit
        self.write(entry)

    def redacted(self, value: Any, hidden: frozenset[str], depth: int) -> Any:
        """``value`` with sensitive values replaced and long ones cut short."""
        if isinstance(value, str):
            return self._short(value)
        if isinstance(value, dict):
            kept: JSON = {}
            for count, (key, item) in enumerate(value.items()):
                if count == self.max_items:
                    kept["..."] = f"{len(value) - count} more"
                    break
                name = self._short(str(key))
                if name.lower() in hidden or looks_secret(name):
                    kept[name] = REDACTED
                elif depth >= self.max_depth and isinstance(item, (dict, list)):
                    kept[name] = "[...]"
                else:
                    kept[name] = self.redacted(item, hidden, depth + 1)
            return kept
        if isinstance(value, list):
            if depth >= self.max_depth:
                return "[...]"
            items = [self.redacted(item, hidden, depth + 1) for item in value[: self.max_items]]
            if len(value) > self.max_items:
                items.append(f"... {len(value) - self.max_items} more")
            return items
        if value is None or isinstance(value, (bool, int, float)):
            return value
        return self._short(repr(value))

    def _short(self, text: str) -> str:
        limit = self.max_value_chars
        return text if len(text) <= limit else f"{text[:limit]}... ({len(text)} chars)"

    # ------------------------------------------------------------ writing

    def write(self, entry: JSON) -> None:
        """Write one line (never raises: an audit failure must not fail the call)."""
        try:
            line = orjson.dumps(entry, option=orjson.OPT_APPEND_NEWLINE | orjson.OPT_NON_STR_KEYS)
            if self.path is not None:
                self._append(line)
            logger = self.logger
            if logger is not None and logger.isEnabledFor(self.level):
                logger.log(self.level, line[:-1].decode(), extra={"audit": entry})
        except Exception:
            logging.getLogger("toolwire").exception("Could not write an audit line")

    def _append(self, line: bytes) -> None:
        with self._lock:
            if self._fd is None:
                assert self.path is not None
                self._fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
            view = memoryview(line)
            while view:  # a regular file takes it in one write; a short write is finished
                view = view[os.write(self._fd, view) :]

    def close(self) -> None:
        """Close the file (the next line opens it again)."""
        with self._lock:
            fd, self._fd = self._fd, None
        if fd is not None:
            os.close(fd)
