"""Turn a pydantic JSON Schema into the portable shape MCP clients handle best.

* ``title`` keywords are dropped (only the keyword: a property *named* ``title`` stays);
* ``$ref`` to a non-recursive definition is replaced by the definition itself; recursive
  definitions stay in ``$defs`` and are referenced;
* a root ``$ref`` is expanded one level, so the root always has its ``type``;
* for input schemas only: ``anyOf [X, null]`` becomes ``X`` (the validator still accepts
  ``null``), ``"default": null`` is dropped and ``const`` becomes a one-value ``enum``.
  Output schemas keep their nullability: a client checks results against them.

Keys come out in a stable, readable order: ``type`` first, then the other keywords, then
``description`` and ``default``.
"""

from __future__ import annotations

from typing import Any

__all__ = ["clean_schema", "expand_root_ref", "order_keys"]

_DEFS_PREFIX = "#/$defs/"
_SCHEMA_MAPS = frozenset({"properties", "patternProperties", "dependentSchemas"})
_SCHEMA_LISTS = frozenset({"anyOf", "allOf", "oneOf", "prefixItems"})
_SCHEMA_ONE = frozenset(
    {
        "items",
        "additionalProperties",
        "not",
        "contains",
        "propertyNames",
        "if",
        "then",
        "else",
        "unevaluatedItems",
        "unevaluatedProperties",
        "additionalItems",
        "contentSchema",
    }
)
_RANK = {"type": 0, "description": 2, "default": 3, "$defs": 4}
_NULL = {"type": "null"}


def order_keys(schema: dict[str, Any]) -> dict[str, Any]:
    """``type`` first; ``description``, ``default`` and ``$defs`` last; the rest as they were."""
    return dict(sorted(schema.items(), key=lambda kv: _RANK.get(kv[0], 1)))


def clean_schema(
    schema: dict[str, Any], *, for_input: bool, keep_titles: bool = False
) -> dict[str, Any]:
    """Return the portable form of ``schema`` (which is left untouched); ``keep_titles``
    keeps the ``title`` keys (an elicitation form's labels)."""
    defs: dict[str, Any] = schema.get("$defs") or {}
    cleaner = _Cleaner(defs, _recursive(defs), for_input, keep_titles)
    root = {k: v for k, v in schema.items() if k != "$defs"}
    out: dict[str, Any] = cleaner.clean(root)
    ref = out.get("$ref")
    if isinstance(ref, str) and ref.startswith(_DEFS_PREFIX) and ref[len(_DEFS_PREFIX) :] in defs:
        siblings = {k: v for k, v in out.items() if k != "$ref"}
        target: dict[str, Any] = cleaner.clean(defs[ref[len(_DEFS_PREFIX) :]])
        out = order_keys({**target, **siblings})
    kept = cleaner.kept_defs()
    if kept:
        out["$defs"] = kept
    return out


def expand_root_ref(schema: dict[str, Any]) -> dict[str, Any]:
    """Expand a root ``{"$ref": ..., "$defs": ...}`` one level (definitions stay as they are)."""
    ref = schema.get("$ref")
    defs = schema.get("$defs") or {}
    if not (isinstance(ref, str) and ref.startswith(_DEFS_PREFIX)):
        return schema
    target = defs.get(ref[len(_DEFS_PREFIX) :])
    if not isinstance(target, dict):
        return schema
    out = {**target, **{k: v for k, v in schema.items() if k not in ("$ref", "$defs")}}
    out["$defs"] = defs
    return out


class _Cleaner:
    def __init__(
        self, defs: dict[str, Any], recursive: set[str], for_input: bool, keep_titles: bool
    ) -> None:
        self.defs = defs
        self.recursive = recursive
        self.for_input = for_input
        self.dropped = ("discriminator",) if keep_titles else ("title", "discriminator")
        self.used: set[str] = set()

    def kept_defs(self) -> dict[str, Any]:
        """The cleaned recursive definitions still referenced, in their original order."""
        done: dict[str, Any] = {}
        while True:
            todo = [n for n in self.used if n not in done]
            if not todo:
                break
            for name in todo:
                done[name] = self.clean(self.defs[name])
        return {n: done[n] for n in self.defs if n in done}

    def clean(self, node: Any) -> Any:
        if not isinstance(node, dict):
            return node
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith(_DEFS_PREFIX):
            name = ref[len(_DEFS_PREFIX) :]
            if name in self.defs:
                if name in self.recursive:
                    self.used.add(name)
                else:
                    siblings = self.clean({k: v for k, v in node.items() if k != "$ref"})
                    return order_keys({**self.clean(self.defs[name]), **siblings})
        out: dict[str, Any] = {}
        for key, value in node.items():
            if key in self.dropped:
                # discriminator is OpenAPI, not JSON Schema; its mapping may point at
                # definitions that were inlined.
                continue
            if key in _SCHEMA_MAPS and isinstance(value, dict):
                out[key] = {n: self.clean(v) for n, v in value.items()}
            elif key in _SCHEMA_LISTS and isinstance(value, list):
                out[key] = [self.clean(v) for v in value]
            elif key in _SCHEMA_ONE:
                out[key] = (
                    [self.clean(v) for v in value] if isinstance(value, list) else self.clean(value)
                )
            else:
                out[key] = value
        all_of = out.get("allOf")
        if isinstance(all_of, list) and len(all_of) == 1 and isinstance(all_of[0], dict):
            rest = {k: v for k, v in out.items() if k != "allOf"}
            out = {**all_of[0], **rest}
        if self.for_input:
            out = _loosen(out)
        return order_keys(out)


def _loosen(out: dict[str, Any]) -> dict[str, Any]:
    """Input-only simplifications: drop null from unions, ``default: null``; const -> enum."""
    any_of = out.get("anyOf")
    if isinstance(any_of, list):
        rest = [s for s in any_of if s != _NULL]
        if len(rest) < len(any_of):
            if len(rest) == 1 and isinstance(rest[0], dict):
                siblings = {k: v for k, v in out.items() if k != "anyOf"}
                out = {**rest[0], **siblings}
            elif rest:
                out["anyOf"] = rest
    types = out.get("type")
    if isinstance(types, list) and "null" in types:
        kept = [t for t in types if t != "null"]
        if kept:
            out["type"] = kept[0] if len(kept) == 1 else kept
    if "default" in out and out["default"] is None:
        del out["default"]
    if "const" in out and "enum" not in out:
        out["enum"] = [out.pop("const")]
    return out


def _recursive(defs: dict[str, Any]) -> set[str]:
    """Names of definitions that can reach themselves through ``$ref``."""
    if not defs:
        return set()
    graph = {name: _refs(schema, set()) for name, schema in defs.items()}
    out: set[str] = set()
    for start in graph:
        seen: set[str] = set()
        stack = list(graph[start])
        while stack:
            name = stack.pop()
            if name == start:
                out.add(start)
                break
            if name in seen or name not in graph:
                continue
            seen.add(name)
            stack.extend(graph[name])
    return out


def _refs(node: Any, acc: set[str]) -> set[str]:
    if isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith(_DEFS_PREFIX):
            acc.add(ref[len(_DEFS_PREFIX) :])
        for value in node.values():
            if isinstance(value, (dict, list)):
                _refs(value, acc)
    elif isinstance(node, list):
        for value in node:
            _refs(value, acc)
    return acc
