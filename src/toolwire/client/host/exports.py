"""What a host hands each LLM API, and takes back: its tools (:class:`HostTool`) shaped for
the API, and call results in the form the API takes back.

:class:`~toolwire.client.host.host.Host` calls :func:`export_tools` for ``openai_tools()``,
``gemini_tools()`` and ``anthropic_tools()``: each tool's input schema goes through
:func:`toolwire.providers.export`. A tool the provider cannot take (its schema cannot be
expressed, or its name does not fit) is left out of that export, never sent broken: the
reasons land in ``host.export_problems[provider][tool name]`` and in a warning of the
``toolwire.host`` logger naming the tool and the reasons.

:func:`to_openai_content`, :func:`to_anthropic_content` and :func:`to_gemini_content` turn a
call's result into the message, block or part each API takes back.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..client import CallResult

__all__ = [
    "HostTool",
    "export_tools",
    "to_anthropic_content",
    "to_gemini_content",
    "to_openai_content",
]

JSON = dict[str, Any]

logger = logging.getLogger("toolwire.host")


@dataclass(frozen=True)
class HostTool:
    """One tool as the model sees it: ``name``, and where it comes from."""

    name: str
    server: str
    tool: str
    definition: JSON

    @property
    def description(self) -> str:
        description = self.definition.get("description")
        if isinstance(description, str) and description:
            return description
        title = self.definition.get("title") or (self.definition.get("annotations") or {}).get(
            "title"
        )
        return str(title) if title else ""

    @property
    def input_schema(self) -> JSON:
        schema = self.definition.get("inputSchema")
        if not isinstance(schema, dict):
            return {"type": "object", "properties": {}}
        return dict(schema)


def export_tools(
    tools: Iterable[HostTool], provider: str, problems: dict[str, dict[str, list[str]]]
) -> list[tuple[HostTool, JSON]]:
    """(tool, its input schema shaped for ``provider``) for every tool the provider can take.

    ``problems[provider]`` is replaced by {tool name: reasons} for the tools left out.
    """
    # lazy: the providers' schema rules, only for a tool checked or exported for one
    from ...providers import Unexpressible, export, name_problems

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


# ------------------------------------------------------------ results for LLM APIs


def _describe(block: JSON) -> str:
    """Text standing in for a block an API cannot carry."""
    kind = block.get("type")
    if kind == "resource_link":
        label = block.get("title") or block.get("name") or block.get("uri")
        return f"[resource: {label} <{block.get('uri')}>]"
    if kind == "resource":
        resource = block.get("resource") or {}
        if isinstance(resource.get("text"), str):
            return str(resource["text"])
        return f"[resource: {resource.get('uri')} ({resource.get('mimeType', 'binary')})]"
    if kind in ("image", "audio"):
        return f"[{kind}: {block.get('mimeType', 'unknown type')}]"
    return json.dumps(block, ensure_ascii=False)


def _text_of(result: CallResult) -> str:
    parts = [
        block["text"] if block.get("type") == "text" else _describe(block)
        for block in result.content
    ]
    if not parts and result.structured is not None:
        parts.append(json.dumps(result.structured, ensure_ascii=False))
    return "\n".join(parts)


def to_openai_content(result: CallResult, tool_call_id: str | None = None) -> JSON:
    """A Chat Completions tool message: ``{"role": "tool", "tool_call_id", "content": text}``.

    Tool messages carry text only: images and other blocks become short descriptions.
    ``tool_call_id`` is included when given.
    """
    message: JSON = {"role": "tool"}
    if tool_call_id is not None:
        message["tool_call_id"] = tool_call_id
    message["content"] = _text_of(result)
    return message


_ANTHROPIC_IMAGES = {"image/jpeg", "image/png", "image/gif", "image/webp"}


def to_anthropic_content(result: CallResult, tool_use_id: str) -> JSON:
    """A Messages ``tool_result`` block: text and image blocks, and ``is_error``."""
    blocks: list[JSON] = []
    for block in result.content:
        kind = block.get("type")
        if kind == "text":
            blocks.append({"type": "text", "text": block["text"]})
        elif kind == "image" and block.get("mimeType") in _ANTHROPIC_IMAGES:
            source = {"type": "base64", "media_type": block["mimeType"], "data": block["data"]}
            blocks.append({"type": "image", "source": source})
        else:
            blocks.append({"type": "text", "text": _describe(block)})
    if not blocks and result.structured is not None:
        blocks.append({"type": "text", "text": json.dumps(result.structured, ensure_ascii=False)})
    return {
        "type": "tool_result",
        "tool_use_id": tool_use_id,
        "content": blocks,
        "is_error": result.is_error,
    }
