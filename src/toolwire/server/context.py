"""What a tool sees of the request that called it.

Declare a parameter annotated ``Context`` and toolwire passes it in (it never appears
in the tool's schema)::

    @mcp.tool()
    async def crunch(n: int, ctx: Context) -> int:
        await ctx.info("starting")
        await ctx.report_progress(0.5, total=1.0, message="half way")
        answer = await ctx.elicit("Go on?", Confirm)
        roots = await ctx.list_roots()
        ...

Progress and log messages are sent the moment they are called, so sync tools (on worker
threads) call them without ``await``: ``ctx.report_progress(3, total=10)``.
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
from collections.abc import Callable, Generator, Iterable
from typing import TYPE_CHECKING, Any, TypeVar

from ..auth.tokens import AccessToken
from ..errors import ToolError
from ..functions.inspection import Injected
from ..protocol.revisions import Features
from .compat.fastmcp_context import FastMCPContext
from .inputs import (
    renders_apps,
)
from .questions import ClientQuestions
from .request import LOG_LEVELS as LOG_LEVELS
from .request import LOG_RANK as LOG_RANK
from .request import Connection, Request, Rule

if TYPE_CHECKING:
    from ..transports.http_trace import HttpRequest
    from .compat.sdk_session import RequestContext, ServerSession
    from .state import CallerState

logger = logging.getLogger("toolwire")
T = TypeVar("T")


_current: contextvars.ContextVar[Context | None] = contextvars.ContextVar(
    "toolwire_context", default=None
)


def current_context() -> Context | None:
    """The context of the tool call running in this task or thread, if any."""
    return _current.get()


class _Sent:
    """Already done; awaiting it is allowed (and instant), so async tools may ``await``."""

    __slots__ = ()

    def __await__(self) -> Generator[Any, None, None]:
        return
        yield  # a generator that finishes at once


_SENT = _Sent()


class Context(ClientQuestions, FastMCPContext, Injected):
    """The calling request: its id, the client, the revision, and ways to talk back."""

    def __class_getitem__(cls, item: Any) -> type[Context]:
        # ``ctx: Context[AppContext]`` (the official SDK's way to type the lifespan
        # context) names the same injected parameter as ``ctx: Context``.
        return cls

    def __init__(
        self, connection: Connection, request: Request, answers: dict[str, Any] | None = None
    ) -> None:
        meta = request.meta or {}
        self._connection = connection
        self._features: Features = request.features
        self.request = request
        self.request_id = request.id
        self.protocol_version = request.features.revision
        self.client_info: dict[str, Any] = request.client_info or {}
        self._client_capabilities: dict[str, Any] = request.capabilities or {}
        self.progress_token: str | int | None = meta.get("progressToken")
        self.log_level = request.log_level
        self.meta: dict[str, Any] = meta
        self._cancelled = False
        self._answers: dict[str, Any] = answers if answers is not None else {}
        self._asked = 0
        self._keys: set[str] = set()  # the questions asked in this run, by key
        self._questions: dict[str, Any] = {}  # unanswered ones (2026-07-28)
        self._fingerprints: dict[str, str] = {}
        self._last_progress: float | None = None
        self._finished = False
        self._loop = asyncio.get_running_loop()
        # In a task (toolwire.extensions.tasks): questions wait in the task for tasks/update,
        # progress becomes its status message, and nothing is sent for the request, which
        # was answered with the task.
        self._task: Any = None

    @property
    def server(self) -> Any:
        """The server handling this request."""
        return self._connection.server

    @property
    def lifespan_context(self) -> Any:
        """What the server's ``lifespan`` yielded (a database, a client…), or None."""
        return self._connection.server.lifespan_context

    @property
    def cancelled(self) -> bool:
        """True once the client cancelled the call or it timed out (sync tools poll this)."""
        return self._cancelled or self.request.cancelled

    @property
    def client_renders_apps(self) -> bool:
        """The client shows MCP Apps views (it declared the extension
        ``io.modelcontextprotocol/ui`` with the app type): a tool with ``app=`` may then keep
        its text short, and should give the whole answer as text otherwise
        (docs/extensions.md, "MCP Apps")."""
        return renders_apps(self._client_capabilities)

    @property
    def access_token(self) -> AccessToken | None:
        """The caller's verified access token (subject, client, scopes, claims) when the
        server authenticates its HTTP callers, else None. It never holds the raw bearer
        token: a tool cannot forward it to another service (AU-21)."""
        identity = self.request.identity
        return identity if isinstance(identity, AccessToken) else None

    @property
    def http(self) -> HttpRequest | None:
        """The HTTP request that carried this call (headers, client address, method, path,
        URL, verified token: :class:`~toolwire.transports.http_trace.HttpRequest`); None on
        stdio and in memory. A legacy call keeps the POST that brought it."""
        from ..transports.http_trace import current_request  # lazy: only over HTTP

        return current_request.get()

    @property
    def state(self) -> CallerState:
        """The caller's key/value state (``await ctx.state.get(key)``, ``set``, ``delete``),
        kept in the session store: see :mod:`toolwire.server.state`."""
        from .state import CallerState  # lazy: per-session state, on first use

        return CallerState(self._connection.server, self._connection, self.request)

    @property
    def client_capabilities(self) -> dict[str, Any]:
        """What the client declared it can do; its fields read as attributes too
        (``ctx.client_capabilities.sampling``: None when not declared), as the official
        SDK's model reads."""
        # lazy: the official SDK's surface, on first use
        from .compat.sdk_session import Fields

        return Fields(self._client_capabilities)

    @property
    def mcp_server(self) -> Any:
        """The server running this call (the official SDK's name for :attr:`server`)."""
        return self._connection.server

    # The official SDK's announcements: each change is announced on the event loop's next
    # turn, which these wait for, so that the notification goes out before the call's answer.

    async def notify_tools_changed(self) -> None:
        """Tell the clients that the tool list changed (``server.tools_changed()``)."""
        self._connection.server.tools_changed()
        await asyncio.sleep(0)

    async def notify_prompts_changed(self) -> None:
        """Tell the clients that the prompt list changed."""
        self._connection.server.list_changed("prompts")
        await asyncio.sleep(0)

    async def notify_resources_changed(self) -> None:
        """Tell the clients that the resource list changed."""
        self._connection.server.list_changed("resources")
        await asyncio.sleep(0)

    async def notify_resource_updated(self, uri: Any) -> None:
        """Tell the clients that follow ``uri`` that it changed."""
        updated = getattr(self._connection.server, "resource_updated", None)
        if updated is not None:
            updated(str(uri))
        await asyncio.sleep(0)

    @property
    def session(self) -> ServerSession:
        """The official SDK's ``ctx.session`` (``create_message``, ``send_log_message``,
        ``send_resource_updated``, ...): :mod:`toolwire.server.compat.sdk_session`."""
        # lazy: the official SDK's surface, on first use
        from .compat.sdk_session import ServerSession

        return ServerSession(self)

    @property
    def request_context(self) -> RequestContext:
        """The official SDK's ``ctx.request_context``: ``request_id``, ``meta``, ``session``,
        ``lifespan_context``, ``request`` (:mod:`toolwire.server.compat.sdk_session`)."""
        # lazy: the official SDK's surface, on first use
        from .compat.sdk_session import RequestContext

        return RequestContext(self)

    async def close_sse_stream(self) -> None:
        """The official SDK's name for :meth:`close_sse_connection`, awaited."""
        self.close_sse_connection()

    def close_sse_connection(self, retry_ms: int | None = None) -> bool:
        """End the HTTP connection that carries this call's SSE stream, while the call and
        its stream go on: the client reconnects with ``Last-Event-ID`` (after ``retry_ms``,
        default: the app's ``retry_ms``) and receives what follows, the answer included
        (SEP-1699 polling; frees the connection during a long call).

        True if a connection was ended, or if the client relays the let-go: a toolwire
        proxy in front of this server (over stdio, say) is told, and lets go of its own
        client's stream at once (:mod:`toolwire.protocol.let_go`). Else a no-op (False)
        where there is no stream to resume: stdio, memory, a JSON answer, 2026-07-28
        (closing its stream cancels the call), legacy sessions before 2025-11-25, a
        stateless app. Call it without ``await``, from sync tools too.
        """
        hang_up = self._connection.close_sse
        if self._finished:
            return False
        from ..protocol.let_go import declared  # lazy: only for a tool that lets its caller go

        relays = declared(self._client_capabilities)
        if hang_up is None and not relays:
            return False
        try:
            running: asyncio.AbstractEventLoop | None = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is self._loop:
            return self._let_go(hang_up, relays, retry_ms)

        async def on_loop() -> bool:
            return self._let_go(hang_up, relays, retry_ms)

        return asyncio.run_coroutine_threadsafe(on_loop(), self._loop).result()

    def _let_go(
        self,
        hang_up: Callable[[str | int, int | None], bool] | None,
        relays: bool,
        retry_ms: int | None,
    ) -> bool:
        if hang_up is not None and hang_up(self.request_id, retry_ms):
            return True
        if not relays or self._finished or self.request.cancelled or self._task is not None:
            return False
        if self._features.modern and self.log_level is None:  # no log message then (LG-07)
            return False
        # lazy: only for a tool that lets its caller go
        from ..protocol.let_go import METHOD, notice

        self._connection.notify(METHOD, notice(self.request_id, retry_ms), related=self.request_id)
        return True

    # ------------------------------------------------------------ this session's components

    def enable_components(
        self,
        names: str | Iterable[str] = (),
        *,
        tags: str | Iterable[str] = (),
        kinds: str | Iterable[str] | None = None,
    ) -> _Sent:
        """Show, for this session alone, the components named in ``names`` (tool and prompt
        names, resource URIs, template URI templates) or carrying one of ``tags``, of
        ``kinds`` (``"tools"``, ``"resources"``, ``"prompts"``; all by default), even those
        disabled server-wide; the session is told of each list that changed. Legacy
        sessions and stdio connections: a 2026-07-28 request over HTTP belongs to no
        session, and it raises a ``ToolError`` (:mod:`toolwire.server.components.visibility`). Call
        it with or without ``await``."""
        from .components.visibility import rule  # lazy: per-session visibility, on first use

        return self._session_rule(rule(True, names, tags, kinds))

    def disable_components(
        self,
        names: str | Iterable[str] = (),
        *,
        tags: str | Iterable[str] = (),
        kinds: str | Iterable[str] | None = None,
    ) -> _Sent:
        """Hide, for this session alone, the components named in ``names`` or carrying
        one of ``tags`` (as :meth:`enable_components`): they leave its listings and become
        unknown to it."""
        from .components.visibility import rule  # lazy: per-session visibility, on first use

        return self._session_rule(rule(False, names, tags, kinds))

    def reset_components(self) -> _Sent:
        """Forget this session's rules: it sees what every session sees."""
        return self._session_rule(None)

    def _session_rule(self, rule: Rule | None) -> _Sent:
        # loaded on first use: few servers change what one session sees
        # lazy: per-session visibility, on first use
        from .components.visibility import change, refuse_stateless

        refuse_stateless(self.request)
        self._in_loop(change, self._connection, self.request, rule)
        return _SENT

    # ------------------------------------------------------------ lifecycle (toolwire's side)

    def _finish(self) -> None:
        self._finished = True

    def _cancel(self) -> None:
        """The call was cancelled or timed out; a sync tool can see it in ``cancelled``."""
        self._cancelled = True
        self._finished = True

    # ------------------------------------------------------------ notifications

    def _in_loop(self, fn: Callable[..., Any], *args: Any) -> None:
        """Call ``fn`` on the event loop, from it or from a sync tool's worker thread."""
        try:
            running: asyncio.AbstractEventLoop | None = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is self._loop:
            fn(*args)
        else:
            self._loop.call_soon_threadsafe(fn, *args)

    def _notify(self, method: str, params: dict[str, Any]) -> None:
        self._in_loop(self._send_notification, method, params)

    def _send_notification(self, method: str, params: dict[str, Any]) -> None:
        if self._finished or self.request.cancelled:  # nothing after cancellation (CN-12)
            return
        if self._task is not None:  # a task's call was answered with the task
            return
        self._connection.notify(method, params, related=self.request_id)

    def report_progress(
        self, progress: float, total: float | None = None, message: str | None = None
    ) -> _Sent:
        """Send ``notifications/progress`` if the client asked for progress (it sent a token).

        Values must increase; one that does not is dropped (PR-03). Nothing is sent once
        the call has answered (PR-06). In a task, progress is the task's status message.
        """
        if self._task is not None and not self._finished:
            self._in_loop(self._task.progress, progress, total, message)
            return _SENT
        if self.progress_token is None or self._finished:
            return _SENT
        if self._last_progress is not None and progress <= self._last_progress:
            logger.debug("progress %r dropped: not above %r", progress, self._last_progress)
            return _SENT
        self._last_progress = progress
        params: dict[str, Any] = {"progressToken": self.progress_token, "progress": progress}
        if total is not None:
            params["total"] = total
        if message is not None and self._features.audio:  # message exists since 2025-03-26
            params["message"] = message
        self._notify("notifications/progress", params)
        return _SENT

    def log(self, level: str, message: Any, *, logger_name: str | None = None) -> _Sent:
        """Send ``notifications/message`` if the client's log level lets ``level`` through.

        Legacy clients choose the level with ``logging/setLevel``; one that chose none gets
        the server's ``client_log_level`` (every level by default, as the official SDK
        sends them; ``Server(client_log_level=None)``: none). 2026-07-28 clients choose per
        request in ``_meta``; a request that chose none gets no log messages.
        """
        if level not in LOG_RANK:
            raise ValueError(f"Unknown log level {level!r}; use one of {', '.join(LOG_LEVELS)}")
        chosen = self.log_level
        if chosen is None and not self._features.modern:
            chosen = getattr(self._connection.server, "client_log_level", "debug")
        if chosen is None or LOG_RANK[level] < LOG_RANK[chosen]:
            return _SENT
        params: dict[str, Any] = {"level": level, "data": message}
        if logger_name:
            params["logger"] = logger_name
        self._notify("notifications/message", params)
        return _SENT

    def debug(self, message: Any) -> _Sent:
        return self.log("debug", message)

    def info(self, message: Any) -> _Sent:
        return self.log("info", message)

    def notice(self, message: Any) -> _Sent:
        return self.log("notice", message)

    def warning(self, message: Any) -> _Sent:
        return self.log("warning", message)

    def error(self, message: Any) -> _Sent:
        return self.log("error", message)

    def critical(self, message: Any) -> _Sent:
        return self.log("critical", message)

    # ------------------------------------------------------------ resources

    async def read_resource(self, uri: str) -> list[dict[str, Any]]:
        """Read one of this server's resources: a list of contents dicts (``uri``,
        ``mimeType`` and ``text`` or base64 ``blob``), as ``resources/read`` gives them.

        Raises :class:`~toolwire.resources.ResourceNotFound` (a ``ToolError``) for a URI
        nothing serves, and a ``ToolError`` saying why a read failed.
        """
        reader = getattr(self._connection.server, "read_resource", None)
        if reader is None:
            raise ToolError(f"Resource not found: {uri} (this server has no resources)")
        return await reader(uri, self)  # type: ignore[no-any-return]
