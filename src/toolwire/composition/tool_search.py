"""Tool search, for catalogues too large to show a model at once.

``mcp.enable_tool_search()``: ``tools/list`` shows two tools instead of the catalogue
(plus any named in ``always_visible``):

* ``search_tools(query, limit=5)`` returns the definitions (name, title, description,
  input schema, annotations) of the tools that match best, ranked by BM25 over each tool's
  name (split at ``_``, ``-``, ``.`` and camelCase, counted twice), title, description,
  argument names and descriptions, and tags. Only tools the caller may use are searched.
* ``call_tool(name, arguments)`` calls one of them, with the caller's context (progress,
  logs, elicitation) and the server's checks (visibility, scopes, auth, argument
  validation); its result is the tool's own, ``structuredContent`` included.

Why a search tool and a call tool rather than adding the found tools to the session's list:
every client handles two ordinary tools, in every revision; a list that grows during a
session needs a client that acts on ``notifications/tools/list_changed`` mid-conversation
(many re-read the list only between turns, some never), and 2026-07-28 requests belong to
no session at all. The catalogue's tools stay callable by name too (``tools/call`` with
their own name), for a client that knows them.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable, Iterable
from typing import Any

from ..content import text_result
from ..errors import RegistrationError
from ..server.context import Context
from ..tools import JSON, RunSync, Tool
from .transforms import ForwardedTool

_WORD = re.compile(r"[a-z0-9]+")
_CAMEL = re.compile(r"([a-z0-9])([A-Z])")
_K1, _B = 1.2, 0.75
_DEFINITION_KEYS = ("name", "title", "description", "inputSchema", "outputSchema", "annotations")


def tokens(text: str) -> list[str]:
    """Lowercase words of ``text`` (camelCase and snake_case split), plurals folded."""
    words = _WORD.findall(_CAMEL.sub(r"\1 \2", text).lower())
    return [w[:-1] if len(w) > 3 and w.endswith("s") and not w.endswith("ss") else w for w in words]


def _document(tool: Tool) -> list[str]:
    words = tokens(tool.name) * 2
    if tool.title:
        words += tokens(tool.title)
    if tool.description:
        words += tokens(tool.description)
    properties = tool.schema.input_schema.get("properties")
    if isinstance(properties, dict):
        for name, prop in properties.items():
            words += tokens(name)
            if isinstance(prop, dict) and isinstance(prop.get("description"), str):
                words += tokens(prop["description"])
    for tag in tool.tags:
        words += tokens(tag)
    return words


class SearchIndex:
    """BM25 over the tools' words, built once per change of the tool list."""

    def __init__(self, tools: Iterable[Tool]) -> None:
        self.tools: list[Tool] = []
        self.lengths: list[int] = []
        self.postings: dict[str, list[tuple[int, int]]] = {}
        for tool in tools:
            index = len(self.tools)
            self.tools.append(tool)
            counts = Counter(_document(tool))
            self.lengths.append(sum(counts.values()))
            for word, count in counts.items():
                self.postings.setdefault(word, []).append((index, count))
        total = len(self.tools)
        self.average = (sum(self.lengths) / total) if total else 0.0
        self.idf = {
            word: math.log(1 + (total - len(found) + 0.5) / (len(found) + 0.5))
            for word, found in self.postings.items()
        }

    def search(self, query: str, allowed: Callable[[Tool], bool], limit: int) -> list[Tool]:
        scores: dict[int, float] = {}
        for word in set(tokens(query)):
            idf = self.idf.get(word)
            if idf is None:
                continue
            for index, count in self.postings[word]:
                norm = _K1 * (1 - _B + _B * self.lengths[index] / (self.average or 1))
                scores[index] = scores.get(index, 0.0) + idf * count * (_K1 + 1) / (count + norm)
        wanted = query.strip()
        for index, tool in enumerate(self.tools):  # the exact name first
            if tool.name == wanted:
                scores[index] = scores.get(index, 0.0) + 1e6
                break
        ranked = sorted(scores, key=lambda i: (-scores[i], i))
        found: list[Tool] = []
        for index in ranked:
            tool = self.tools[index]
            if allowed(tool):
                found.append(tool)
                if len(found) == limit:
                    break
        return found


class ToolSearch:
    """The search and call tools of one server, and its search index."""

    def __init__(
        self,
        server: Any,
        *,
        max_results: int = 5,
        always_visible: Iterable[str] = (),
        search_name: str = "search_tools",
        call_name: str = "call_tool",
    ) -> None:
        if max_results < 1:
            raise RegistrationError("enable_tool_search: max_results must be at least 1")
        self.server = server
        self.max_results = max_results
        self.search_name, self.call_name = search_name, call_name
        self.listed = {search_name, call_name, *always_visible}
        self._index: SearchIndex | None = None
        self.user_visibility = server.visibility

    def visible(self, tool: Tool, request: Any) -> bool:
        """A listing shows only the search tools; calls reach every tool."""
        if request.method == "tools/list" and tool.name not in self.listed:
            return False
        user = self.user_visibility
        return user is None or bool(user(tool, request))

    def changed(self, kind: str) -> None:
        if kind == "tools":
            self._index = None

    def index(self) -> SearchIndex:
        if self._index is None:
            own = {self.search_name, self.call_name}
            self._index = SearchIndex(t for t in self.server.tools if t.name not in own)
        return self._index

    def search(self, query: str, limit: int | None, context: Context) -> JSON:
        limit = min(max(1, limit or self.max_results), self.max_results * 4)
        request = context.request
        found = self.index().search(
            query, lambda tool: self.server.serves_tool(tool.name, request), limit
        )
        definitions = [
            {k: tool.definition[k] for k in _DEFINITION_KEYS if k in tool.definition}
            for tool in found
        ]
        return {"tools": definitions}

    async def call(
        self,
        arguments: JSON,
        context: Any,
        run_sync: RunSync,
        mask_errors: bool,
        timeout: float | None,
        on_timeout: Callable[[], None] | None,
    ) -> JSON:
        name = arguments.get("name")
        given = arguments.get("arguments", {})
        if not isinstance(name, str) or not isinstance(given, dict):
            return text_result(
                f"Invalid arguments for tool '{self.call_name}': give name (a string) and "
                "arguments (an object)",
                is_error=True,
            )
        server = self.server
        tool: Tool | None = server.get_tool(name)
        if (
            tool is None
            or name in (self.search_name, self.call_name)
            or not server.serves_tool(name, context.request)
        ):
            return text_result(
                f"Unknown tool '{name}': find tools with {self.search_name} first", is_error=True
            )
        return await tool.run(
            given,
            context,
            run_sync,
            mask_errors=mask_errors,
            timeout=timeout,
            on_timeout=on_timeout,
        )


def enable_tool_search(
    server: Any,
    *,
    max_results: int = 5,
    always_visible: Iterable[str] = (),
    search_name: str = "search_tools",
    call_name: str = "call_tool",
) -> ToolSearch:
    """Install tool search on ``server`` (see the module's documentation)."""
    if getattr(server, "_tool_search", None) is not None:
        raise RegistrationError("Tool search is already enabled on this server")
    search = ToolSearch(
        server,
        max_results=max_results,
        always_visible=always_visible,
        search_name=search_name,
        call_name=call_name,
    )

    def search_tools(query: str, ctx: Context, limit: int | None = None) -> JSON:
        return search.search(query, limit, ctx)

    server.add_tool(
        search_tools,
        name=search_name,
        description=(
            "Search the available tools by what they do. Returns the definitions (name, "
            f"description, input schema) of the best matches; call one with {call_name}."
        ),
        annotations={"readOnlyHint": True, "openWorldHint": False},
        output_schema={
            "type": "object",
            "properties": {"tools": {"type": "array", "items": {"type": "object"}}},
            "required": ["tools"],
        },
        blocking=False,
    )
    server.add_tool(
        ForwardedTool(
            search.call,
            name=call_name,
            description=(
                f"Call a tool found with {search_name}: its name, and its arguments as its "
                "input schema describes them."
            ),
            input_schema={
                "type": "object",
                "properties": {
                    "name": {"type": "string", "description": "The tool's name"},
                    "arguments": {
                        "type": "object",
                        "description": "The tool's arguments",
                        "additionalProperties": True,
                    },
                },
                "required": ["name"],
            },
            needs_context=True,
        )
    )
    server.visibility = search.visible
    server._tool_search = search
    server.list_listeners = [*server.list_listeners, search.changed]
    server.tool_registry.touch()
    return search
