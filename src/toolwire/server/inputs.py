"""Asking the client for input from inside a tool: elicitation, sampling and roots, in both eras.

Legacy sessions (2025-06-18 and later for elicitation) get a server-to-client request and
the tool simply awaits the answer. On 2026-07-28 servers never send requests (JR-39), so a
tool that asks ends its call with an ``InputRequiredResult``; the client answers and calls
again, and toolwire runs the tool again from the top. Each question has a stable key (the
``key=`` the author gave, else ``elicit-1``, ``sample-2``… in the order the tool asks), so on
the re-run the questions already answered return their answers at once and the tool goes on
to the next one — the author writes one code path for both eras. Questions asked at the same
time (``asyncio.gather``) travel in one ``InputRequiredResult``.

An answer in ``inputResponses`` is taken for the question of the same key; when the sealed
state says that key was asked differently (the data changed between rounds), it is stale
and the question is asked again.

Earlier answers travel in ``requestState``, which the client echoes unchanged. It is signed
(HMAC-SHA256) and bound to the tool, its arguments and a short expiry (MP-05, MP-06), so a
client cannot forge answers or replay them against another call.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import os
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import orjson

from .. import jsonrpc
from ..errors import RPCError, ToolError
from ..schema.clean import clean_schema
from ..tools import Tool

JSON = dict[str, Any]

STATE_TTL_S = 600.0

# What a server may ask a client: the capability it needs, from which revision, and the
# refusal when the client did not declare it.
ASKS = {
    "elicitation/create": (
        "elicitation",
        "2025-06-18",
        "The client cannot ask the user for input (no elicitation support)",
    ),
    "sampling/createMessage": (
        "sampling",
        "2024-11-05",
        "The client offers no model to ask (no sampling support)",
    ),
    "roots/list": ("roots", "2024-11-05", "The client shares no roots (no roots support)"),
}


class InputUnavailable(ToolError):
    """The client cannot answer this kind of question (it did not declare the capability).

    On legacy sessions it becomes an ``isError`` result with its text."""


class MissingClientCapability(RPCError, InputUnavailable):
    """2026-07-28: the request needs a capability the client did not declare on it (JR-37).

    Answered as the JSON-RPC error -32021 with ``data.requiredCapabilities`` (HTTP 400). It is
    also an :class:`InputUnavailable`, so a tool that catches that one to do without the
    client's help handles both eras alike."""

    def __init__(self, capability: str, message: str, required: JSON | None = None) -> None:
        RPCError.__init__(
            self,
            jsonrpc.MISSING_CLIENT_CAPABILITY,
            message,
            {"requiredCapabilities": required if required is not None else {capability: {}}},
        )

    @classmethod
    def extension(cls, identifier: str, message: str) -> MissingClientCapability:
        """The client did not declare the extension ``identifier`` (SEP-2133)."""
        return cls("extensions", message, {"extensions": {identifier: {}}})


class InputRequired(BaseException):
    """Ends a modern run: the client must answer ``requests`` and call again.

    ``questions`` maps each key to the fingerprint of what was asked; ``answered`` holds the
    answers the run used (key -> [fingerprint, answer]), sealed for the next round. A
    ``BaseException`` so that a tool's own ``except Exception`` does not swallow it.
    """

    def __init__(
        self, requests: dict[str, JSON], questions: dict[str, str], answered: JSON | None = None
    ) -> None:
        super().__init__("input required")
        self.requests = requests
        self.questions = questions
        self.answered = answered if answered is not None else {}

    def sealed_answers(self) -> JSON:
        """The answers to carry in ``requestState``: those matched to a question asked."""
        return {key: entry for key, entry in self.answered.items() if entry[0] is not None}

    def result(self, signer: StateSigner, key: str, arguments: JSON, caller: str | None) -> JSON:
        """The ``input_required`` result: the client answers and sends the request again
        with ``requestState``, sealed to ``key`` (what was called), its arguments and its
        caller."""
        state = signer.seal(key, arguments, caller, self.sealed_answers(), self.questions)
        return {
            "resultType": "input_required",
            "inputRequests": self.requests,
            "requestState": state,
        }


class InvalidAnswer(BaseException):
    """A modern retry carried an answer that does not fit its question: the request is invalid
    (-32602), not the tool's failure."""


def fingerprint(method: str, params: JSON) -> str:
    """What a question asked, so an answer is only reused for the very same question. A URL
    elicitation is the same question with another ``url`` and ``elicitationId``: a tool that
    runs again from the top makes a fresh id (as the official SDK's examples do) and must
    still find its answer."""
    if method == "elicitation/create" and params.get("mode") == "url":
        params = {k: v for k, v in params.items() if k not in ("url", "elicitationId")}
    return hashlib.sha256(orjson.dumps([method, params], option=orjson.OPT_SORT_KEYS)).hexdigest()[
        :32
    ]


@dataclass
class ElicitationResult:
    """The user's answer: ``action`` is ``"accept"``, ``"decline"`` or ``"cancel"``.

    On accept, ``data`` is the answer as the requested model (or the raw dict for a
    dict schema) and ``content`` the raw answer.
    """

    action: str
    data: Any = None
    content: JSON | None = None


@dataclass
class Root:
    """One of the client's roots: a ``file://`` URI and an optional name."""

    uri: str
    name: str | None = None
    meta: JSON | None = None


def roots_result(answer: Any) -> list[Root]:
    if not isinstance(answer, dict) or not isinstance(answer.get("roots"), list):
        raise ToolError("The client's list of roots was not understood")
    roots = []
    for item in answer["roots"]:
        if not isinstance(item, dict) or not isinstance(item.get("uri"), str):
            raise ToolError("The client's list of roots was not understood")
        name = item.get("name")
        meta = item.get("_meta")
        roots.append(
            Root(
                uri=item["uri"],
                name=name if isinstance(name, str) else None,
                meta=meta if isinstance(meta, dict) else None,
            )
        )
    return roots


@dataclass
class SamplingResult:
    """What the client's model answered to ``ctx.sample``."""

    content: JSON | list[JSON]
    model: str | None = None
    stop_reason: str | None = None
    role: str = "assistant"
    raw: JSON = field(default_factory=dict)

    @property
    def blocks(self) -> list[JSON]:
        """The content as a list of blocks (a model that used tools answers with several)."""
        return self.content if isinstance(self.content, list) else [self.content]

    @property
    def text(self) -> str:
        return "".join(str(b.get("text", "")) for b in self.blocks if b.get("type") == "text")

    @property
    def tool_calls(self) -> list[JSON]:
        """The ``tool_use`` blocks: each has ``id``, ``name`` and ``input``."""
        return [block for block in self.blocks if block.get("type") == "tool_use"]


def requested_schema(schema: Any) -> tuple[JSON, Any]:
    """The flat object schema to send for ``schema`` (a pydantic model class or a dict),
    with pydantic's titles, which a client shows as the form's labels (as the official SDK
    and FastMCP send them)."""
    if isinstance(schema, dict):
        return schema, None
    if not (isinstance(schema, type) and hasattr(schema, "model_json_schema")):
        raise TypeError("ctx.elicit needs a pydantic model class or a JSON schema dict")
    cleaned = clean_schema(schema.model_json_schema(), for_input=True, keep_titles=True)
    properties = cleaned.get("properties", {})
    for name, prop in properties.items():
        if not _primitive(prop):
            raise TypeError(
                f"Elicitation fields must be strings, numbers, booleans or enums; {name!r} is not"
            )
    result: JSON = {"type": "object", "properties": properties}
    if cleaned.get("required"):
        result["required"] = cleaned["required"]
    if cleaned.get("title"):
        result["title"] = cleaned["title"]
    return result, schema


def _primitive(prop: JSON) -> bool:
    if "enum" in prop or "oneOf" in prop:
        return True
    kind = prop.get("type")
    if kind == "array":  # a multi-select enum
        items = prop.get("items", {})
        return "enum" in items or "anyOf" in items
    return kind in ("string", "number", "integer", "boolean")


def elicitation_result(answer: Any, model: Any) -> ElicitationResult:
    if not isinstance(answer, dict) or answer.get("action") not in ("accept", "decline", "cancel"):
        raise ToolError("The client's answer to the question was not understood")
    action = answer["action"]
    content = answer.get("content") if action == "accept" else None
    data: Any = content
    if action == "accept" and model is not None:
        try:
            data = model.model_validate(content or {})
        except ValueError as exc:
            raise ToolError(f"The answer does not fit the requested form: {exc}") from None
    return ElicitationResult(action=action, data=data, content=content)


def sampling_result(answer: Any) -> SamplingResult:
    content = answer.get("content") if isinstance(answer, dict) else None
    blocks = content if isinstance(content, list) else [content]
    if not blocks or not all(isinstance(block, dict) for block in blocks):
        raise ToolError("The client's sampling answer was not understood")
    return SamplingResult(
        content=answer["content"],
        model=answer.get("model"),
        stop_reason=answer.get("stopReason"),
        role=answer.get("role", "assistant"),
        raw=answer,
    )


def sampling_params(
    messages: Any,
    *,
    max_tokens: int,
    system_prompt: str | None,
    temperature: float | None,
    model_preferences: JSON | None,
    stop_sequences: list[str] | None,
    tools: list[Any] | None = None,
    tool_choice: str | None = None,
) -> JSON:
    if tool_choice not in (None, "auto", "required", "none"):
        raise ValueError(f'tool_choice is "auto", "required" or "none", not {tool_choice!r}')
    if isinstance(messages, str):
        messages = [{"role": "user", "content": {"type": "text", "text": messages}}]
    params: JSON = {
        "messages": [
            m.model_dump(mode="json", exclude_none=True) if hasattr(m, "model_dump") else m
            for m in messages
        ],
        "maxTokens": max_tokens,
    }
    for key, value in (
        ("systemPrompt", system_prompt),
        ("temperature", temperature),
        ("modelPreferences", model_preferences),
        ("stopSequences", stop_sequences),
    ):
        if value is not None:
            params[key] = value
    if tools is not None:
        params["tools"] = [tool if isinstance(tool, dict) else _definition(tool) for tool in tools]
    if tool_choice is not None:
        params["toolChoice"] = {"mode": tool_choice}
    return params


def _definition(fn: Any) -> JSON:
    """A function as the model sees a tool: name, description and input schema."""

    definition = Tool(fn).definition
    return {
        key: definition[key] for key in ("name", "description", "inputSchema") if key in definition
    }


class StateSigner:
    """Signs and checks ``requestState`` tokens with one server secret."""

    def __init__(self, secret: bytes | None = None) -> None:
        self.secret = secret or os.urandom(32)

    def _mac(self, payload: bytes) -> bytes:
        return hmac.new(self.secret, payload, hashlib.sha256).digest()

    def seal(
        self, tool: str, arguments: JSON, caller: str | None, answered: JSON, pending: JSON
    ) -> str:
        """State for the next round: answers so far (key -> [fingerprint, answer]) and the
        fingerprints of the questions now asked, bound to the tool, its arguments, the caller
        and an expiry."""
        payload = orjson.dumps(
            {
                "t": tool,
                "a": _digest(arguments),
                "c": caller,
                "r": answered,
                "p": pending,
                "e": time.time() + STATE_TTL_S,
            }
        )
        return _b64(payload) + "." + _b64(self._mac(payload))

    def open(self, token: Any, tool: str, arguments: JSON, caller: str | None) -> tuple[JSON, JSON]:
        """(answered, pending) sealed in ``token``; -32602 if it was altered, expired or is
        for another call or caller."""
        invalid = RPCError(jsonrpc.INVALID_PARAMS, "Invalid requestState")
        if not isinstance(token, str) or token.count(".") != 1:
            raise invalid
        body, mac = token.split(".")
        try:
            payload, signature = _unb64(body), _unb64(mac)
        except ValueError:
            raise invalid from None
        if not hmac.compare_digest(signature, self._mac(payload)):
            raise invalid
        state = orjson.loads(payload)
        if (
            state["t"] != tool
            or state["a"] != _digest(arguments)
            or state["c"] != caller
            or state["e"] < time.time()
        ):
            raise invalid
        return state["r"], state["p"]

    def answers(self, params: JSON, key: str, arguments: JSON, caller: str | None) -> JSON:
        """The answers a retried request carries (MRTR): the earlier ones sealed in its
        ``requestState`` plus the new ``inputResponses``, each with the fingerprint of the
        question it answers (MP-09), or None when no state says what was asked (the run
        matches it to the question of that key; entries no question uses are ignored)."""
        answered, pending = (
            self.open(params["requestState"], key, arguments, caller)
            if "requestState" in params
            else ({}, {})
        )
        responses = params.get("inputResponses", {})
        if not isinstance(responses, dict):
            raise RPCError(
                jsonrpc.INVALID_PARAMS, 'Invalid params: "inputResponses" must be an object'
            )
        for name, response in responses.items():
            if name == TOOL_STATE:
                continue  # only ever sealed by the server
            if name in pending:
                answered[name] = [pending[name], response]
            elif name not in answered:
                answered[name] = [None, response]
        return answered


def _digest(arguments: JSON) -> str:
    return hashlib.sha256(orjson.dumps(arguments, option=orjson.OPT_SORT_KEYS)).hexdigest()


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def _unb64(text: str) -> bytes:
    try:
        return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    except (ValueError, TypeError) as exc:
        raise ValueError("bad base64") from exc


# MCP Apps (toolwire.extensions.apps): the extension and the MIME type of its views; whether a
# client renders them decides which tools it sees.
UI = "io.modelcontextprotocol/ui"
MIME_TYPE = "text/html;profile=mcp-app"


def renders_apps(capabilities: JSON | None) -> bool:
    """The client declared that it renders apps (the extension, with the app MIME type)."""
    declared = (capabilities or {}).get("extensions")
    settings = declared.get(UI) if isinstance(declared, dict) else None
    types = settings.get("mimeTypes") if isinstance(settings, dict) else None
    return isinstance(types, list) and MIME_TYPE in types


# A tool that asks by returning an InputRequiredResult (FastMCP's guard pattern) is answered
# and run again until it returns something else: at most this many times in one request,
# and with at most this many answers over the call's rounds (on 2026-07-28 each round is a
# request of its own).
MAX_RETURNED_ROUNDS = 8
MAX_RETURNED_ANSWERS = 16
# The requestState of the InputRequiredResult a tool returned (what the official SDK gives the
# next round as ctx.request_state), kept with the answers under a key no question can have.
TOOL_STATE = "\x00requestState"


async def answer_returned(
    result: JSON, context: Any, again: Callable[[], Awaitable[JSON]], tool: str, kind: str = "Tool"
) -> JSON:
    """``result``, once the questions of every ``InputRequiredResult`` the tool returns are
    answered (:meth:`Context._answer`) and the tool has run again with the answers in
    ``ctx.input_responses``. On 2026-07-28 (outside a task) the questions end the call
    instead, as ``ctx.elicit``'s do, and the client's retry brings the answers."""
    for _ in range(MAX_RETURNED_ROUNDS):
        if result.get("resultType") != "input_required":
            return result
        if context is None:
            return _refused(
                f"{kind} '{tool}' returned an InputRequiredResult but takes no Context, so it "
                "cannot read the answers: add a ctx: Context parameter (ctx.input_responses)"
            )
        state = result.get("requestState")
        if isinstance(state, str):
            context._answers[TOOL_STATE] = ["requestState", state]
        else:
            context._answers.pop(TOOL_STATE, None)
        if len(context._answers) - (TOOL_STATE in context._answers) >= MAX_RETURNED_ANSWERS:
            return _refused(
                f"{kind} '{tool}' asked {MAX_RETURNED_ANSWERS} questions in one call without "
                "finishing: it must return a result once ctx.input_responses holds its answers"
            )
        try:
            await context._answer(result.get("inputRequests") or {})
        except MissingClientCapability:
            raise  # 2026-07-28: the request is refused as a whole (JR-37)
        except ToolError as exc:  # what this client cannot be asked
            return _refused(str(exc))
        result = await again()
    if result.get("resultType") != "input_required":
        return result
    return _refused(
        f"{kind} '{tool}' asked for input {MAX_RETURNED_ROUNDS} times in one call without "
        "finishing: it must return a result once ctx.input_responses holds its answers"
    )


def _refused(text: str) -> JSON:
    return {"content": [{"type": "text", "text": text}], "isError": True}


def response_model(answer: Any) -> Any:
    """A client's answer as the ``toolwire.types`` result it is: ``ElicitResult``,
    ``ListRootsResult`` or ``CreateMessageResult`` (the raw value when it is none of them)."""
    if not isinstance(answer, dict):
        return answer
    from .. import types  # lazy: the full MCP types, only for the SDK-style API

    kind = (
        types.ElicitResult
        if "action" in answer
        else types.ListRootsResult
        if "roots" in answer
        else types.CreateMessageResult
    )
    try:
        return kind.model_validate(answer)
    except Exception:  # an answer toolwire's models do not take: given as it came
        return answer
