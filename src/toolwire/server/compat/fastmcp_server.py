"""``toolwire.FastMCP``: what ``toolwire migrate`` writes for FastMCP's ``FastMCP`` class.

::

    from toolwire import FastMCP  # was: from fastmcp import FastMCP

    mcp = FastMCP("Demo")

It is :class:`toolwire.Server` with FastMCP's defaults: every tool without a title is
listed with one made from its name, because some clients drop or hide untitled tools; a
tool returning a list gives one JSON text; an input schema says ``"additionalProperties":
false`` (the names a call may not add); an output schema that wraps a value that is not an
object in ``{"result": ...}`` says so with FastMCP's key, ``x-fastmcp-wrap-result``, and so
does each result (``_meta.fastmcp.wrap_result``), which FastMCP's client reads to hand back
the value itself; and every component is listed with its tags in ``_meta.fastmcp.tags``.
The official SDK's ``FastMCP`` and ``MCPServer`` become :class:`toolwire.Server` itself,
which lists only the titles given and gives a list one content block per item.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any, TypeVar

from ...components import Component
from ...prompts import Prompt
from ...tools import Tool
from ..server import Server

# FastMCP's mark on an output schema that wraps a return value in {"result": ...}.
WRAP_MARK = "x-fastmcp-wrap-result"


class FastMCP(Server):
    """:class:`toolwire.Server` with ``titles_from_names=True`` and ``split_lists=False``
    unless told otherwise."""

    def __init__(
        self,
        *args: Any,
        titles_from_names: bool = True,
        split_lists: bool = False,
        **options: Any,
    ) -> None:
        super().__init__(
            *args, titles_from_names=titles_from_names, split_lists=split_lists, **options
        )

    def add_tool(self, fn: Callable[..., Any], *, name: str | None = None, **options: Any) -> Tool:
        tool = super().add_tool(fn, name=name, **options)  # or fn itself, a Tool built before
        schema = tool.schema
        if (
            not schema.given_input  # the author's own, as it is
            and "additionalProperties" not in schema.input_schema
            and not _takes_any(tool.fn)
        ):
            schema.input_schema = {**schema.input_schema, "additionalProperties": False}
        if schema.wraps_result and schema.output_schema is not None:
            schema.output_schema = {**schema.output_schema, WRAP_MARK: True}
            tool.result_meta = {"fastmcp": {"wrap_result": True}}
        return _tagged(tool)

    def add_prompt(self, fn: Callable[..., Any], **options: Any) -> Prompt:
        prompt = super().add_prompt(fn, **options)
        return prompt if isinstance(fn, Prompt) else _tagged(prompt)

    def add_resource(self, fn: Any, uri: str | None = None, **options: Any) -> Any:
        item = super().add_resource(fn, uri, **options)
        return item if item is fn else _tagged(item)


C = TypeVar("C", bound=Component)


def _tagged(component: C) -> C:
    """``component`` listed with FastMCP's ``_meta.fastmcp.tags`` (sorted), as FastMCP lists
    every component."""
    meta = dict(component.meta or {})
    meta["fastmcp"] = {**meta.get("fastmcp", {}), "tags": sorted(component.tags)}
    component.meta = meta
    component.definition = component._definition()
    return component


def _takes_any(fn: Callable[..., Any]) -> bool:
    """Whether ``fn`` takes ``**kwargs``: its schema stays open."""
    try:
        parameters = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return False
    return any(p.kind is p.VAR_KEYWORD for p in parameters)
