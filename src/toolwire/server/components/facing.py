"""``Server(provider=...)``: a server known to face one LLM provider publishes each tool's
input schema as that provider takes it (:func:`toolwire.providers.export`) and treats a
``null`` for an optional argument as absent, as strict exports make models send them.

A tool the provider cannot take (its schema cannot be expressed, or its name does not fit)
is refused at registration with the reasons. Argument validation is otherwise unchanged: the
arguments are checked against the tool's own (portable) schema.
"""

from __future__ import annotations

from ...errors import RegistrationError
from ...tools import Tool

__all__ = ["check_provider", "face"]


def check_provider(provider: str | None) -> str | None:
    """``provider`` if it is one of :data:`toolwire.providers.PROVIDERS` (or None)."""
    if provider is None:
        return None
    # lazy: the providers' schema rules, only for a tool checked or exported for one
    from ...providers import PROVIDERS

    if provider not in PROVIDERS:
        raise ValueError(
            f"provider must be one of {', '.join(PROVIDERS)} or None, not {provider!r}"
        )
    return provider


def face(tool: Tool, provider: str) -> None:
    """Publish ``tool``'s input schema shaped for ``provider``; RegistrationError if it can't."""
    # lazy: the providers' schema rules, only for a tool checked or exported for one
    from ...providers import Unexpressible, export, name_problems

    published = tool.schema.input_schema
    reasons = name_problems(tool.name, provider)
    try:
        shaped = export(published, provider)
    except Unexpressible as exc:
        reasons = [*reasons, *exc.reasons]
    if reasons:
        raise RegistrationError(
            f"Tool {tool.name!r} cannot be expressed for {provider}: {'; '.join(reasons)}"
        )
    tool.definition = {**tool.definition, "inputSchema": shaped}
    tool.nulls_from = published
