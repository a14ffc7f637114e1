"""FastMCP's ``Context`` methods on :class:`toolwire.Context`: per-session state,
``session_id``, and ``elicit(message, response_type=...)`` with its result classes.

::

    @mcp.tool()
    async def count(ctx: Context) -> int:
        seen = (await ctx.get_state("seen") or 0) + 1
        await ctx.set_state("seen", seen)           # kept for this MCP session
        return seen

    @mcp.tool()
    async def pick(ctx: Context) -> str:
        answer = await ctx.elicit("Which one?", response_type=["red", "blue"])
        if isinstance(answer, AcceptedElicitation):
            return answer.data                      # "red" or "blue"
        return answer.action                        # "decline" or "cancel"

State follows the MCP session: the ``Mcp-Session-Id`` of a legacy HTTP session, else the
connection (stdio, memory). Values are JSON and live a day in the session store (the HTTP
app's shared store when it has one, e.g. Redis, so every worker sees them; this process's
memory otherwise); ``set_state(key, value, serializable=False)`` keeps any object for the
current request only. A 2026-07-28 request over HTTP has no session: state raises a
``ToolError`` naming ``ctx.state`` (kept per authenticated user) as the alternative.

``response_type`` may be ``str``, ``int``, ``float``, ``bool``, a ``Literal`` or an
``Enum`` (asked as one field, ``data`` is the value), a list of choices (``["a", "b"]``;
``[["a", "b"]]`` to pick several), a dict of titled choices (``{"low": {"title": "Low"}}``),
a dataclass, ``TypedDict`` or pydantic model (``data`` is an instance), or ``None`` (a bare
confirmation, ``data`` is ``{}``). The answer is an :class:`AcceptedElicitation`,
:class:`DeclinedElicitation` or :class:`CancelledElicitation`, each also an
:class:`~toolwire.server.inputs.ElicitationResult` (``.action``, ``.data``, ``.content``).
"""

from __future__ import annotations

from typing import Any


class FastMCPContext:
    """The FastMCP methods of :class:`toolwire.Context` (a base class of it)."""

    @property
    def session_id(self) -> str:
        """This MCP session's id (see :mod:`toolwire.server.compat.fastmcp_context`)."""
        from .fastmcp_session import session_id  # lazy: FastMCP's surface, on first use

        ctx: Any = self
        return session_id(ctx._connection, ctx.request)

    @property
    def transport(self) -> str | None:
        """How this request came: ``"stdio"``, ``"streamable-http"``, or None (in memory)."""
        from ...transports.http_trace import current_request  # lazy: only over HTTP

        if current_request.get() is not None:
            return "streamable-http"
        ctx: Any = self
        return getattr(ctx._connection, "transport", None)

    def reset_visibility(self) -> Any:
        """FastMCP's name for :meth:`toolwire.Context.reset_components`: forget this
        session's visibility rules."""
        ctx: Any = self
        return ctx.reset_components()

    async def set_state(self, key: str, value: Any, *, serializable: bool = True) -> None:
        """Keep ``value`` (JSON) under ``key`` for this MCP session (a day);
        ``serializable=False``: any object, for this request only."""
        from .fastmcp_session import set_state  # lazy: FastMCP's surface, on first use

        await set_state(self, key, value, serializable)

    async def get_state(self, key: str) -> Any:
        """The value kept under ``key`` for this session, or None."""
        from .fastmcp_session import get_state  # lazy: FastMCP's surface, on first use

        return await get_state(self, key)

    async def delete_state(self, key: str) -> None:
        """Forget ``key`` for this session."""
        from .fastmcp_session import delete_state  # lazy: FastMCP's surface, on first use

        await delete_state(self, key)
