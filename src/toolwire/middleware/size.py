"""A cap on the size of tool results: text truncated with a marker, or a clear error."""

from __future__ import annotations

import copy
from collections.abc import Awaitable, Callable
from typing import Any, Literal

import orjson

from ._tools import Definitions

JSON = dict[str, Any]
MARKER = "\n[… truncated by the server: {shown} of {total} characters shown]"
SHORT_MARKER = "…"
ROUNDS = 64  # shrinking steps tried on structuredContent before giving up


def _size(value: Any) -> int:
    return len(orjson.dumps(value))


class ResultSizeCap:
    """Keep every ``tools/call`` result within ``max_bytes`` of JSON.

    ``mode="truncate"`` (the default) cuts text content blocks, each ending with a marker
    saying how much was shown. ``structuredContent`` that does not fit is shrunk (trailing
    array items dropped, long strings cut) and kept only if it still matches the tool's
    ``outputSchema``; when it cannot be made both small and valid, or when blocks that
    cannot be cut (images, audio, resources) are too large, the answer is an ``isError``
    result saying the result was too large. ``mode="error"`` always answers that way.
    The size is that of the result as the tool made it: the few bytes a revision adds
    afterwards (``resultType``, ``_meta``) are not counted.
    """

    def __init__(self, max_bytes: int, *, mode: Literal["truncate", "error"] = "truncate") -> None:
        if max_bytes < 256:
            raise ValueError("max_bytes must be at least 256 (room for an explanation)")
        if mode not in ("truncate", "error"):
            raise ValueError('mode is "truncate" or "error"')
        self.max_bytes = max_bytes
        self.mode = mode
        self._definitions = Definitions()
        self._validators: dict[int, tuple[JSON, Callable[[Any], Any]]] = {}

    async def __call__(self, call: Any, call_next: Callable[[Any], Awaitable[JSON]]) -> JSON:
        result = await call_next(call)
        name = call.tool_name
        if name is None or not isinstance(result, dict) or "content" not in result:
            return result
        size = _size(result)
        if size <= self.max_bytes:
            return result
        if self.mode == "truncate":
            cut = self._truncate(call, name, result)
            if cut is not None:
                return cut
        return self._too_large(name, size)

    def _too_large(self, name: str, size: int) -> JSON:
        text = (
            f"The result of tool {name!r} was {size} bytes, over this server's limit of "
            f"{self.max_bytes} bytes. Ask for less: narrower arguments, a smaller page."
        )
        return {"content": [{"type": "text", "text": text}], "isError": True}

    # ------------------------------------------------------------ truncation

    def _truncate(self, call: Any, name: str, result: JSON) -> JSON | None:
        cut = dict(result)
        cut["content"] = [dict(b) if isinstance(b, dict) else b for b in result["content"]]
        texts = [
            b for b in cut["content"] if isinstance(b, dict) and isinstance(b.get("text"), str)
        ]
        originals = [b["text"] for b in texts]
        for block in texts:
            block["text"] = ""
        structured = cut.get("structuredContent")
        if structured is not None:
            # What the rest takes, with room for the text blocks' markers.
            rest = _size(cut) - _size(structured) + len(texts) * (len(MARKER) + 24)
            budget = self.max_bytes - rest
            if _size(structured) > budget:
                smaller = _shrink(copy.deepcopy(structured), budget)
                if smaller is None or not self._valid(call, name, smaller):
                    return None
                cut["structuredContent"] = smaller
        room = self.max_bytes - _size(cut)
        total = sum(len(t.encode()) for t in originals)
        if room < len(texts) * (len(MARKER) + 24):
            return None
        share = max(room - len(texts) * (len(MARKER) + 24), 0)
        for _ in range(8):
            for block, text in zip(texts, originals, strict=True):
                allowed = share * len(text.encode()) // total if total else 0
                block["text"] = _cut(text, allowed)
            excess = _size(cut) - self.max_bytes
            if excess <= 0:
                return cut
            share = max(share - excess - 16, 0)
        return None

    def _valid(self, call: Any, name: str, structured: Any) -> bool:
        definition = self._definitions.find(call, name)
        schema = definition.get("outputSchema") if definition is not None else None
        if not isinstance(schema, dict):
            return True
        known = self._validators.get(id(schema))
        if known is None or known[0] is not schema:
            import fastjsonschema  # lazy: fastjsonschema, off the import path until a schema is checked

            try:
                check = fastjsonschema.compile(schema)
            except Exception:  # a schema that cannot be checked here: do not guess
                return False
            known = self._validators[id(schema)] = (schema, check)
        try:
            known[1](structured)
        except Exception:
            return False
        return True


def _cut(text: str, allowed: int) -> str:
    """``text`` within ``allowed`` UTF-8 bytes (whole characters), with the marker."""
    data = text.encode()
    if len(data) <= allowed:
        return text
    kept = data[:allowed].decode("utf-8", errors="ignore")
    return kept + MARKER.format(shown=len(kept), total=len(text))


def _shrink(value: Any, budget: int) -> Any:
    """``value`` made to fit ``budget`` bytes of JSON by dropping trailing array items and
    cutting long strings, largest first; None if it cannot be done."""
    for _ in range(ROUNDS):
        size = _size(value)
        if size <= budget:
            return value
        found = _largest(value, None, None)
        if found is None:
            return None
        parent, key, node = found
        if isinstance(node, list):
            smaller: Any = node[: len(node) // 2]
        else:
            smaller = node[: len(node) // 2] + SHORT_MARKER
        if parent is None:
            value = smaller
        else:
            parent[key] = smaller
    return value if _size(value) <= budget else None


def _largest(value: Any, parent: Any, key: Any) -> tuple[Any, Any, Any] | None:
    """The largest non-empty array or long string inside ``value`` (itself included)."""
    best: tuple[int, tuple[Any, Any, Any]] | None = None

    def visit(node: Any, parent: Any, key: Any) -> None:
        nonlocal best
        if (isinstance(node, list) and node) or (isinstance(node, str) and len(node) > 16):
            size = _size(node)
            if best is None or size > best[0]:
                best = (size, (parent, key, node))
        if isinstance(node, dict):
            for k, v in node.items():
                visit(v, node, k)
        elif isinstance(node, list):
            for i, v in enumerate(node):
                visit(v, node, i)

    visit(value, parent, key)
    return best[1] if best is not None else None
