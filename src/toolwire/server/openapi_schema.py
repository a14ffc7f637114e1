"""OpenAPI schemas as portable JSON Schemas (for :mod:`toolwire.server.openapi`).

An OpenAPI 3.0 schema object is close to JSON Schema but not quite (``nullable``,
``example``, ``discriminator``...); a 3.1 one is JSON Schema 2020-12. Either becomes the
portable profile's shape: ``$ref``\\ s into the document inlined, a recursive reference cut
where it recurs (an open schema whose description says so), no ``title`` keys, OpenAPI-only
keywords left out, 3.0's ``nullable`` as a ``null`` type.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import unquote

JSON = dict[str, Any]

# OpenAPI keywords that are no JSON Schema (or only noise for a model): left out.
_DROPPED = frozenset(
    {"title", "example", "examples", "xml", "externalDocs", "discriminator", "nullable", "$id"}
)
_SCHEMA_LISTS = ("allOf", "anyOf", "oneOf", "prefixItems")
_SCHEMA_MAPS = ("properties", "patternProperties", "$defs", "definitions", "dependentSchemas")
_SCHEMA_ONES = (
    "items",
    "additionalProperties",
    "not",
    "if",
    "then",
    "else",
    "contains",
    "propertyNames",
    "unevaluatedProperties",
    "unevaluatedItems",
    "additionalItems",
)


class Resolver:
    """Resolves ``$ref``\\ s against one document and converts schemas, with a cache of
    the components that resolve without a cut (most of them), so that thousands of
    operations sharing them cost one conversion each."""

    def __init__(self, document: JSON) -> None:
        self.document = document
        self._done: dict[str, Any] = {}
        self._active: list[str] = []
        self._cut = 0  # cuts made while converting (a result holding one is not cached)

    def target(self, ref: str) -> Any:
        """The object a local ``$ref`` (``#/components/...``) points at."""
        if not ref.startswith("#"):
            raise ValueError(f"Only references within the document are supported, not {ref!r}")
        node: Any = self.document
        for part in ref[1:].split("/")[1:] if ref != "#" else []:
            key = unquote(part).replace("~1", "/").replace("~0", "~")
            if isinstance(node, list):
                node = node[int(key)]
            elif isinstance(node, dict) and key in node:
                node = node[key]
            else:
                raise ValueError(f"The reference {ref!r} points at nothing in the document")
        return node

    def deref(self, obj: Any) -> Any:
        """A parameter, request body or response object with its own ``$ref`` followed."""
        seen = 0
        while isinstance(obj, dict) and "$ref" in obj and seen < 32:
            obj = self.target(obj["$ref"])
            seen += 1
        return obj

    def schema(self, schema: Any) -> Any:
        """``schema`` (an OpenAPI schema object) as a portable JSON Schema."""
        if isinstance(schema, bool):
            return schema
        if not isinstance(schema, dict):
            return {}
        ref = schema.get("$ref")
        if isinstance(ref, str):
            siblings = {k: v for k, v in schema.items() if k != "$ref"}
            resolved = self._ref(ref)
            if siblings:  # 3.1 allows keywords beside $ref: they refine the target
                extra = self._convert(siblings)
                if isinstance(resolved, dict):
                    return {**resolved, **extra}
                return extra
            return resolved
        return self._convert(schema)

    def _ref(self, ref: str) -> Any:
        done = self._done.get(ref)
        if done is not None:
            return done
        name = ref.rsplit("/", 1)[-1]
        if ref in self._active:  # recursion: cut here
            self._cut += 1
            return {"type": "object", "description": f"A {name} (recursive: same shape as above)"}
        self._active.append(ref)
        cuts = self._cut
        try:
            converted = self.schema(self.target(ref))
        finally:
            self._active.pop()
        if self._cut == cuts:
            self._done[ref] = converted
        return converted

    def _convert(self, schema: JSON) -> JSON:
        out: JSON = {}
        for key, value in schema.items():
            if key in _DROPPED or key.startswith("x-"):
                continue
            if key in _SCHEMA_ONES:
                out[key] = self.schema(value)
            elif key in _SCHEMA_LISTS and isinstance(value, list):
                out[key] = [self.schema(item) for item in value]
            elif key in _SCHEMA_MAPS and isinstance(value, dict):
                if key == "definitions":
                    continue
                out[key] = {name: self.schema(item) for name, item in value.items()}
            else:
                out[key] = value
        if schema.get("nullable") is True:  # OpenAPI 3.0
            kind = out.get("type")
            if isinstance(kind, str):
                out["type"] = [kind, "null"]
            elif "enum" in out and None not in out["enum"]:
                out["enum"] = [*out["enum"], None]
        if "enum" in out and "const" not in out and len(out) == 1 and not out["enum"]:
            del out["enum"]
        return simplify(out)


def simplify(schema: JSON) -> JSON:
    """``anyOf: [X, {"type": "null"}]`` (pydantic's and FastAPI's ``Optional``) kept as
    it is only when X is not a plain schema; otherwise X with ``null`` added to its type."""
    options = schema.get("anyOf")
    if not isinstance(options, list) or len(options) != 2:
        return schema
    nulls = [o for o in options if o == {"type": "null"}]
    others = [o for o in options if o != {"type": "null"}]
    if len(nulls) != 1 or len(others) != 1 or not isinstance(others[0], dict):
        return schema
    other = others[0]
    kind = other.get("type")
    if not isinstance(kind, str):
        return schema
    rest = {k: v for k, v in schema.items() if k != "anyOf"}
    merged = {**other, "type": [kind, "null"], **rest}
    if isinstance(merged.get("enum"), list) and None not in merged["enum"]:
        merged["enum"] = [*merged["enum"], None]
    return merged


def without_null(schema: Any) -> Any:
    """An optional argument's schema without its ``null`` alternative (the portable way: a
    null argument is taken as absent) and without a ``null`` default."""
    if not isinstance(schema, dict):
        return schema
    out = dict(schema)
    kind = out.get("type")
    if isinstance(kind, list) and "null" in kind and len(kind) == 2:
        out["type"] = next(k for k in kind if k != "null")
        if isinstance(out.get("enum"), list):
            out["enum"] = [v for v in out["enum"] if v is not None]
    if "default" in out and out["default"] is None:
        del out["default"]
    return out


def is_object(schema: Any) -> bool:
    """Whether ``schema`` describes JSON objects only (no wrapping needed for a result)."""
    if not isinstance(schema, dict):
        return False
    kind = schema.get("type")
    if kind == "object":
        return True
    return kind is None and "properties" in schema and "anyOf" not in schema
