"""Python logging into MCP log messages: records made inside a tool call reach the client
that called it (``mcp.forward_logging(...)``)."""

from __future__ import annotations

import logging

from ..context import current_context


def forward_logging(logger: str | logging.Logger, level: int) -> None:
    """Attach a :class:`ClientLogHandler` to ``logger`` (once), lowering its level to ``level``
    if it would drop those records first."""
    target = logger if isinstance(logger, logging.Logger) else logging.getLogger(logger)
    if target.getEffectiveLevel() > level:
        target.setLevel(level)
    if not any(isinstance(h, ClientLogHandler) for h in target.handlers):
        target.addHandler(ClientLogHandler(level))


class ClientLogHandler(logging.Handler):
    """Forwards Python log records from inside tool calls to the calling client.

    Attach it with ``mcp.forward_logging("myapp")``; records logged outside a tool call,
    or below the client's chosen level, go nowhere.
    """

    _LEVELS = (
        (logging.CRITICAL, "critical"),
        (logging.ERROR, "error"),
        (logging.WARNING, "warning"),
        (logging.INFO, "info"),
    )

    def emit(self, record: logging.LogRecord) -> None:
        context = current_context()
        if context is None:
            return
        level = next((name for number, name in self._LEVELS if record.levelno >= number), "debug")
        try:
            context.log(level, self.format(record), logger_name=record.name)
        except Exception:
            self.handleError(record)
