"""The server's questions, answered by the person at the page: ``elicitation/create`` (fill
in a form, or decline) and ``sampling/createMessage`` (type the reply a model would give).

A question waits until the page answers it or its call ends. On 2026-07-28 the same
questions arrive as input requests inside a call's result; toolwire's client turns them into
the same handler calls, so the page sees one kind of question in both eras.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..errors import RPCError
from .calls import now_ms

JSON = dict[str, Any]
ELICITATION_ACTIONS = ("accept", "decline", "cancel")
USER_REJECTED = -1  # the code the spec's examples give a refused sampling request


@dataclass
class Question:
    id: int
    kind: str  # "elicitation" or "sampling"
    params: JSON
    call: int | None  # the call that asked, when known
    asked_at: float = field(default_factory=now_ms)
    answer: asyncio.Future[JSON] = field(
        default_factory=lambda: asyncio.get_running_loop().create_future()
    )

    def as_json(self) -> JSON:
        return {
            "id": self.id,
            "kind": self.kind,
            "params": self.params,
            "call": self.call,
            "askedAt": self.asked_at,
        }


class Questions:
    """The open questions; ``emit("question", ...)`` tells the page of each change."""

    def __init__(self, emit: Callable[[str, Any], None]) -> None:
        self.emit = emit
        self.open: dict[int, Question] = {}
        self._ids = itertools.count(1)

    async def ask(self, kind: str, params: JSON, call: int | None) -> JSON:
        """Wait for the page's answer: the result to send back to the server."""
        question = Question(next(self._ids), kind, params, call)
        self.open[question.id] = question
        self.emit("question", {**question.as_json(), "status": "open"})
        try:
            return await question.answer
        finally:
            self.open.pop(question.id, None)
            self.emit("question", {"id": question.id, "status": "closed"})

    def answer(self, question_id: int, body: JSON) -> str | None:
        """Answer an open question with the page's ``body``; a reason when it is refused.
        KeyError if no such question is open."""
        question = self.open[question_id]
        if question.answer.done():
            return "that question was already answered"
        answer = (_elicitation if question.kind == "elicitation" else _sampling)(body)
        if isinstance(answer, str):
            return answer
        if isinstance(answer, RPCError):
            question.answer.set_exception(answer)
        else:
            question.answer.set_result(answer)
        return None

    def drop_for(self, call: int) -> None:
        """The call ended: its questions need no answer."""
        for question in list(self.open.values()):
            if question.call == call and not question.answer.done():
                question.answer.cancel()

    def drop_all(self) -> None:
        """The server went away: nobody waits for these answers any more."""
        for question in list(self.open.values()):
            if not question.answer.done():
                question.answer.cancel()


def _elicitation(body: JSON) -> JSON | str:
    action = body.get("action")
    if action not in ELICITATION_ACTIONS:
        return f"action must be one of {', '.join(ELICITATION_ACTIONS)}"
    if action != "accept" or "content" not in body:  # a URL-mode answer has no content
        return {"action": action}
    content = body["content"]
    if not isinstance(content, dict):
        return "content must be an object"
    return {"action": "accept", "content": content}


def _sampling(body: JSON) -> JSON | RPCError | str:
    action = body.get("action")
    if action == "decline":
        return RPCError(USER_REJECTED, "The person at the inspector declined to answer")
    text = body.get("text")
    if action != "accept" or not isinstance(text, str):
        return 'send {"action": "accept", "text": "..."} or {"action": "decline"}'
    return {
        "role": "assistant",
        "content": {"type": "text", "text": text},
        "model": "a person at the toolwire inspector",
        "stopReason": "endTurn",
    }
