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
import secrets
from collections.abc import Callable, Generator, Iterable
from typing import TYPE_CHECKING, Any, TypeVar

from ..auth.tokens import AccessToken
from ..errors import ToolError
from ..protocol.revisions import Features
from .compat.fastmcp_context import FastMCPContext
from .inputs import (
    ASKS,
    ElicitationResult,
    InputRequired,
    InputUnavailable,
    InvalidAnswer,
    MissingClientCapability,
    Root,
    SamplingResult,
    elicitation_result,
    fingerprint,
    renders_apps,
    requested_schema,
    response_model,
    roots_result,
    sampling_params,
    sampling_result,
)
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


_FASTMCP: Any = object()  # elicit()'s schema/response_type left out (None: FastMCP's "no fields")


class _Sent:
    """Already done; awaiting it is allowed (and instant), so async tools may ``await``."""

    __slots__ = ()

    def __await__(self) -> Generator[Any, None, None]:
        return
        yield  # a generator that finishes at once


_SENT = _Sent()


class Context(FastMCPContext):
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
        self.client_capabilities: dict[str, Any] = request.capabilities or {}
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
        return renders_apps(self.client_capabilities)

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

        relays = declared(self.client_capabilities)
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

    # ------------------------------------------------------------ questions for the client

    async def elicit(
        self,
        message: str,
        schema: Any = _FASTMCP,
        *,
        key: str | None = None,
        response_type: Any = _FASTMCP,
        response_title: str | None = None,
        response_description: str | None = None,
    ) -> ElicitationResult:
        """Ask the user: ``result.action`` is accept, decline or cancel; ``result.data`` the answer.

        ``schema`` is a pydantic model class with primitive fields (or a JSON schema dict).
        FastMCP's ``response_type=`` (``str``, ``int``, ``bool``, a list of choices, a
        dataclass, ``None``...) answers with its result classes, ``AcceptedElicitation``
        and the like (:mod:`toolwire.server.compat.fastmcp_context`).
        ``key`` names the question in a 2026-07-28 ``InputRequiredResult`` (default
        ``elicit-N``). A client that cannot ask its user raises
        :class:`~toolwire.server.inputs.InputUnavailable` (a ``ToolError``; on 2026-07-28
        the -32021 error, see :class:`~toolwire.server.inputs.MissingClientCapability`).

        On 2026-07-28 the call ends here and the tool runs again from the top once the
        client has the answer, so do side effects after the questions, not before.
        """
        self._require(*ASKS["elicitation/create"])
        read: Callable[..., ElicitationResult] = elicitation_result
        if response_type is _FASTMCP and (
            isinstance(schema, dict) or hasattr(schema, "model_json_schema")
        ):
            wanted, model = requested_schema(schema)  # the SDK's: a model class or a schema
        else:  # FastMCP's response_type (toolwire.server.compat.fastmcp_elicit)
            from .compat.fastmcp_elicit import form, result  # lazy: FastMCP's surface, on first use

            asked = schema if response_type is _FASTMCP else response_type
            wanted, model = form(
                None if asked is _FASTMCP else asked, response_title, response_description
            )
            read = result
        answer = await self._ask(
            "elicit", "elicitation/create", {"message": message, "requestedSchema": wanted}, key
        )
        return self._understood(read, answer, model)

    async def elicit_url(
        self,
        message: str,
        url: str,
        elicitation_id: str | None = None,
        *,
        key: str | None = None,
    ) -> ElicitationResult:
        """Ask the user to go to ``url`` (a sign-in, a payment, anything the server must not
        see pass through the client); ``result.action`` says whether they agreed. The client
        shows the message and the URL, and opens it only if the person agrees.

        Needs a client that declared URL elicitation (``elicitation: {"url": {}}``, since
        2025-11-25); other clients get what :meth:`elicit` gives them. ``url`` must be an
        absolute http(s) URL. ``elicitation_id`` names it on 2025-11-25 (the official SDK's
        argument; a random one by default).
        """
        if not url.lower().startswith(("https://", "http://")):
            raise ValueError(f"elicit_url needs an http(s) URL, not {url[:100]!r}")
        self._require(
            "elicitation",
            "2025-11-25",
            "The client cannot send the user to a URL (no URL elicitation support)",
            mode="url",
        )
        params: dict[str, Any] = {"mode": "url", "message": message, "url": url}
        if not self._features.modern:  # 2025-11-25 names each URL elicitation
            params["elicitationId"] = elicitation_id or secrets.token_urlsafe(12)
        answer = await self._ask("elicit", "elicitation/create", params, key)
        return self._understood(elicitation_result, answer, None)

    async def start_task(self) -> None:
        """From here on, run this call as a task (a tool registered with ``task=...,
        questions_first=True``): the client is answered with the task now, and polls it
        while the tool goes on; questions asked before this were input_required rounds of
        the call. For a client that did not declare Tasks the call simply goes on."""
        tasks = getattr(self._connection.server, "tasks", None)
        starter = tasks.starters.get(self.request) if tasks is not None else None
        if starter is not None and self._task is None:
            starter(self)
            await asyncio.sleep(0)  # the answer with the task goes out before the tool goes on

    async def sample(
        self,
        messages: Any,
        *,
        max_tokens: int = 1000,
        system_prompt: str | None = None,
        temperature: float | None = None,
        model_preferences: dict[str, Any] | None = None,
        stop_sequences: list[str] | None = None,
        tools: list[Any] | None = None,
        tool_choice: str | None = None,
        key: str | None = None,
    ) -> SamplingResult:
        """Ask the client's model: ``messages`` is a prompt string or a list of sampling
        messages; ``key`` names the question (default ``sample-N``).

        ``tools`` (functions, or tool definitions as dicts) are tools the model may call,
        and ``tool_choice`` is ``"auto"``, ``"required"`` or ``"none"`` (since 2025-11-25,
        for clients that declared ``sampling.tools``): ``result.tool_calls`` are the calls
        the model asked for; run them and ask again with their results.
        """
        self._require(*ASKS["sampling/createMessage"])
        if tools is not None or tool_choice is not None:
            self._require(
                "sampling",
                "2025-11-25",
                "The client's model cannot use tools (no sampling.tools support)",
                mode="tools",
            )
        params = sampling_params(
            messages,
            max_tokens=max_tokens,
            system_prompt=system_prompt,
            temperature=temperature,
            model_preferences=model_preferences,
            stop_sequences=stop_sequences,
            tools=tools,
            tool_choice=tool_choice,
        )
        answer = await self._ask("sample", "sampling/createMessage", params, key)
        return self._understood(sampling_result, answer)

    async def list_roots(self, *, key: str | None = None) -> list[Root]:
        """The client's roots (``Root.uri``, ``Root.name``): the directories or files it
        lets this server work on; ``key`` names the question (default ``roots-N``)."""
        self._require(*ASKS["roots/list"])
        answer = await self._ask("roots", "roots/list", {}, key)
        return self._understood(roots_result, answer)

    def _require(
        self, capability: str, minimum: str, message: str, *, mode: str | None = None
    ) -> None:
        declared = self.client_capabilities.get(capability)
        if (
            self.protocol_version >= minimum
            and declared is not None
            and (mode is None or (isinstance(declared, dict) and mode in declared))
        ):
            return
        if self._features.modern:  # a request that needs it is refused as a whole (JR-37)
            required: dict[str, Any] | None = {capability: {mode: {}}} if mode else None
            raise MissingClientCapability(capability, message, required)
        raise InputUnavailable(message)

    async def _ask(self, kind: str, method: str, params: dict[str, Any], key: str | None) -> Any:
        self._asked += 1
        if key is None:
            key = f"{kind}-{self._asked}"
        elif not isinstance(key, str) or not key:
            raise TypeError("A question's key must be a non-empty string")
        if key in self._keys:
            raise ValueError(f"The question key {key!r} is used twice in one call")
        self._keys.add(key)
        if self._task is not None:
            return await self._task.ask(key, method, params)
        if not self._features.modern:
            return await self._connection.request(method, params, related=self.request_id)
        asked = fingerprint(method, params)
        earlier = self._answers.get(key)
        if earlier is not None and earlier[0] in (asked, None):  # answered: the tool re-runs
            self._answers[key] = [asked, earlier[1]]
            return earlier[1]
        # Not asked yet, or asked differently (the data changed between rounds): ask now,
        # together with the questions asked at the same time (asyncio.gather), which get
        # here before this one resumes.
        self._questions[key] = {"method": method, "params": params}
        self._fingerprints[key] = asked
        await asyncio.sleep(0)
        raise InputRequired(self._questions, self._fingerprints, self._answers)

    @property
    def input_responses(self) -> dict[str, Any] | None:
        """The client's answers to the questions this tool asked by returning an
        ``InputRequiredResult`` (FastMCP's way to ask), by key, as ``toolwire.types``
        results (``ElicitResult``, ``CreateMessageResult``, ``ListRootsResult``); None
        until there are answers."""
        if not self._answers:
            return None
        return {key: response_model(entry[1]) for key, entry in self._answers.items()}

    async def _answer(self, requests: dict[str, Any]) -> None:
        """Get the answers to ``requests`` (an ``InputRequiredResult``'s, by key) as
        ``ctx.elicit`` gets its own: from the client on a legacy session, through the task
        in a task; on 2026-07-28 the call ends with those not answered yet."""
        self._asked, self._keys = 0, set()  # the tool runs again from the top
        for key, asked in requests.items():
            method, params = asked.get("method"), asked.get("params") or {}
            if method not in ASKS:
                raise ToolError(
                    f"A tool cannot ask the client {method!r}: ask for one of {', '.join(ASKS)}"
                )
            self._require(*ASKS[method])
            answered = fingerprint(method, params)
            if self._task is not None:
                self._answers[key] = [answered, await self._task.ask(key, method, params)]
            elif not self._features.modern:
                answer = await self._connection.request(method, params, related=self.request_id)
                self._answers[key] = [answered, answer]
            else:  # asked now unless answered (and asked the same way) in an earlier round
                earlier = self._answers.get(key)
                if earlier is None or earlier[0] not in (answered, None):
                    self._questions[key] = {"method": method, "params": params}
                    self._fingerprints[key] = answered
        if self._questions:
            raise InputRequired(self._questions, self._fingerprints, self._answers)

    def _understood(self, read: Callable[..., T], *answer: Any) -> T:
        try:
            return read(*answer)
        except ToolError as exc:
            if self._features.modern:  # the retry itself is malformed (MP-09)
                raise InvalidAnswer(str(exc)) from None
            raise
