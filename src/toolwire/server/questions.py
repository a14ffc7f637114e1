"""A tool's questions for the client: the user (:meth:`~ClientQuestions.elicit`,
:meth:`~ClientQuestions.elicit_url`), the client's model (:meth:`~ClientQuestions.sample`) and
its roots (:meth:`~ClientQuestions.list_roots`).

On a legacy session each question is a request to the client, answered before the tool goes
on; on 2026-07-28 the call ends with an ``InputRequiredResult`` and the tool runs again from
the top with the answers; in a task the question waits in the task. :class:`ClientQuestions`
is a part of :class:`~toolwire.server.context.Context`.
"""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import Callable
from typing import Any, TypeVar

from ..errors import ToolError
from ..protocol.revisions import Features
from .inputs import (
    ASKS,
    TOOL_STATE,
    ElicitationResult,
    InputRequired,
    InputUnavailable,
    InvalidAnswer,
    MissingClientCapability,
    Root,
    SamplingResult,
    elicitation_result,
    fingerprint,
    requested_schema,
    response_model,
    roots_result,
    sampling_params,
    sampling_result,
)
from .request import Connection, Request

T = TypeVar("T")
_FASTMCP: Any = object()  # elicit()'s schema/response_type left out (None: FastMCP's "no fields")


class ClientQuestions:
    """The questions a tool asks the client, by the rules of the session's revision."""

    _connection: Connection
    _features: Features
    request: Request
    request_id: Any
    protocol_version: str
    _client_capabilities: dict[str, Any]
    _answers: dict[str, Any]
    _asked: int
    _keys: set[str]
    _questions: dict[str, Any]
    _fingerprints: dict[str, str]
    _task: Any

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
        declared = self._client_capabilities.get(capability)
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
        answers = {k: response_model(e[1]) for k, e in self._answers.items() if k != TOOL_STATE}
        return answers or None

    @property
    def request_state(self) -> str | None:
        """The ``request_state`` of the ``InputRequiredResult`` this tool returned in the
        round before (the official SDK's ``ctx.request_state``); None in the first."""
        entry = self._answers.get(TOOL_STATE)
        return entry[1] if entry is not None else None

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
