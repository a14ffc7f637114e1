"""Which tool calls may run without asking the user, and an audit trail of every decision.

::

    policy = ApprovalPolicy(trusted={"calc"}, confirm=ask_in_the_terminal)
    decision = await policy.decide("notes", definition, {"query": "draft"})

The rules, per call:

* a tool of a **trusted** server whose annotations say ``readOnlyHint: true`` runs without
  asking;
* otherwise a tool that may be destructive or reach an open world asks the user through
  ``confirm``. Both hints default to true when absent (TL-10), so a tool without annotations
  always asks;
* annotations of **untrusted** servers are ignored: they are only hints, and a server you do
  not trust could claim anything. Every call to an untrusted server asks;
* with no ``confirm`` callback, whatever needs asking is denied.

``confirm(request)`` may be sync or async; only a result of exactly ``True`` approves the call
(anything else, an exception included, denies it). Every decision is logged on the
``toolwire.audit`` logger as one record whose attributes ``server``, ``tool``, ``arguments``,
``decision`` (``"allow"`` or ``"deny"``), ``reason`` and ``asked`` hold the details.
"""

from __future__ import annotations

import copy
import inspect
import logging
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

audit_logger = logging.getLogger("toolwire.audit")

JSON = dict[str, Any]


@dataclass(frozen=True)
class ApprovalRequest:
    """What the user is asked to approve: one call, with the exact arguments it will send."""

    server: str
    tool: str
    title: str
    arguments: JSON
    annotations: JSON = field(default_factory=dict)
    trusted: bool = False


@dataclass(frozen=True)
class Decision:
    """The outcome for one call: ``allowed``, why, and whether the user was asked."""

    allowed: bool
    reason: str
    asked: bool = False


Confirm = Callable[[ApprovalRequest], "bool | Awaitable[bool]"]


def display_title(definition: JSON) -> str:
    """The name to show a person: ``title``, then ``annotations.title``, then ``name`` (TL-09)."""
    annotations = definition.get("annotations") or {}
    for candidate in (definition.get("title"), annotations.get("title"), definition.get("name")):
        if isinstance(candidate, str) and candidate:
            return candidate
    return str(definition.get("name", ""))


class ApprovalPolicy:
    """Decides, per call, whether a tool runs, asking the user through ``confirm`` when needed."""

    def __init__(self, trusted: Iterable[str] = (), confirm: Confirm | None = None) -> None:
        self.trusted = frozenset(trusted)
        self.confirm = confirm

    def needs_confirmation(self, server: str, definition: JSON) -> tuple[bool, str]:
        """Whether a call must be confirmed, and why (without asking anybody)."""
        if server not in self.trusted:
            return True, "untrusted server"
        annotations = definition.get("annotations") or {}
        if annotations.get("readOnlyHint") is True:
            return False, "trusted server, read-only tool"
        if annotations.get("destructiveHint", True) is not False:
            return True, "may be destructive"
        if annotations.get("openWorldHint", True) is not False:
            return True, "open world"
        return False, "trusted server, non-destructive closed-world tool"

    async def decide(self, server: str, definition: JSON, arguments: JSON) -> Decision:
        """Decide one call; the decision is logged for audit."""
        name = str(definition.get("name", ""))
        ask, why = self.needs_confirmation(server, definition)
        if not ask:
            decision = Decision(True, why)
        elif self.confirm is None:
            decision = Decision(False, f"{why}; no confirm callback to ask the user")
        else:
            request = ApprovalRequest(
                server=server,
                tool=name,
                title=display_title(definition),
                arguments=copy.deepcopy(arguments),  # what is shown is what is sent
                annotations=dict(definition.get("annotations") or {}),
                trusted=server in self.trusted,
            )
            try:
                outcome = self.confirm(request)
                if inspect.isawaitable(outcome):
                    outcome = await outcome
            except Exception:
                audit_logger.exception("The confirm callback failed for %s/%s", server, name)
                decision = Decision(False, f"{why}; the confirm callback failed", asked=True)
            else:
                approved = outcome is True
                verdict = "approved by the user" if approved else "denied by the user"
                decision = Decision(approved, f"{why}; {verdict}", asked=True)
        audit(server, name, arguments, decision)
        return decision


def audit(server: str, tool: str, arguments: JSON, decision: Decision) -> None:
    """Log one decision as a structured record on ``toolwire.audit``."""
    verdict = "allow" if decision.allowed else "deny"
    audit_logger.info(
        "tool call %s/%s: %s (%s)",
        server,
        tool,
        verdict,
        decision.reason,
        extra={
            "server": server,
            "tool": tool,
            "arguments": copy.deepcopy(arguments),
            "decision": verdict,
            "reason": decision.reason,
            "asked": decision.asked,
        },
    )
