"""A host's tools shaped for each LLM API, and results in the form each API takes back.

:class:`~toolwire.client.host.Host` calls :func:`export_tools` for ``openai_tools()``,
``gemini_tools()`` and ``anthropic_tools()``: each tool's input schema goes through
:func:`toolwire.providers.export`. A tool the provider cannot take (its schema cannot be
expressed, or its name does not fit) is left out of that export, never sent broken: the
reasons land in ``host.export_problems[provider][tool name]`` and in a warning of the
``toolwire.host`` logger naming the tool and the reasons.

:func:`to_gemini_content` turns a call's result into the ``functionResponse`` part the Gemini
API takes back (``to_openai_content`` and ``to_anthropic_content`` live in
:mod:`toolwire.client.host`).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .client import CallResult
    from .host import HostTool

__all__ = ["export_tools", "to_gemini_content"]

JSON = dict[str, Any]

logger = logging.getLogger("toolwire.host")


def export_tools(
    tools: Iterable[HostTool], provider: str, problems: dict[str, dict[str, list[str]]]
) -> list[tuple[HostTool, JSON]]:
    """(tool, its input schema shaped for ``provider``) for every tool the provider can take.

    ``problems[provider]`` is replaced by {tool name: reasons} for the tools left out.
    """
    from ..providers import Unexpressible, export, name_problems

    kept: list[tuple[HostTool, JSON]] = []
    left_out: dict[str, list[str]] = {}
    for tool in tools:
        reasons = name_problems(tool.name, provider)
        try:
            shaped = export(tool.input_schema, provider)
        except Unexpressible as exc:
            reasons = [*reasons, *exc.reasons]
        if reasons:
            left_out[tool.name] = reasons
            logger.warning(
                "The tool %r (server %r) is left out of the %s tools: %s",
                tool.name,
                tool.server,
                provider,
                "; ".join(reasons),
            )
            continue
        kept.append((tool, shaped))
    problems[provider] = left_out
    return kept


def gemini_declaration(tool: HostTool, parameters: JSON) -> JSON:
    """A Gemini ``FunctionDeclaration``: no ``parameters`` for a tool that takes none."""
    declaration: JSON = {"name": tool.name, "description": tool.description}
    if parameters.get("properties"):
        declaration["parameters"] = parameters
    return declaration


def to_gemini_content(result: CallResult, name: str, call_id: str | None = None) -> JSON:
    """A Gemini ``functionResponse`` part for the function call ``name`` (and ``call_id``).

    The response holds ``output`` (the structured result when there is one, else the text)
    or, for an ``isError`` result, ``error`` with the text: the keys the Gemini API reads.
    """
    from .host import _text_of

    if result.is_error:
        response: JSON = {"error": _text_of(result)}
    elif result.structured is not None:
        response = {"output": result.structured}
    else:
        response = {"output": _text_of(result)}
    part: JSON = {"name": name, "response": json.loads(json.dumps(response, default=str))}
    if call_id is not None:
        part = {"id": call_id, **part}
    return {"functionResponse": part}
