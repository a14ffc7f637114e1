"""OpenAPI schemas as portable JSON Schemas (for :mod:`toolwire.composition.openapi`).

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
    """Resolves ``$ref``\\ s against one document and converts schemas.

    A component that can reach itself (directly or through others) is inlined where an
    operation uses it, and cut inside that expansion wherever a component of a cycle
    recurs: the schema stays finite and small, whatever the document's cycles. Each
    component is converted at most twice (at the top, and inside a cycle's expansion)
    however many operations share it.
    """

    def __init__(self, document: JSON) -> None:
        self.document = document
        self._done: dict[tuple[str, bool], Any] = {}
        self._cyclic: set[str] | None = None
        self._inside = 0  # how many cyclic components are being expanded
        self._active: list[str] = []  # the references being expanded

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
        inside = self._inside > 0
        done = self._done.get((ref, inside))
        if done is not None:
            return done
        cyclic = ref in self.cyclic()
        if (cyclic and inside) or ref in self._active:  # a cycle recurs: cut here
            name = ref.rsplit("/", 1)[-1]
            cut = {"type": "object", "description": f"A {name} (recursive: same shape as above)"}
            self._done[(ref, inside)] = cut
            return cut
        self._inside += cyclic
        self._active.append(ref)
        try:
            converted = self.schema(self.target(ref))
        finally:
            self._inside -= cyclic
            self._active.pop()
        self._done[(ref, inside)] = converted
        return converted

    def cyclic(self) -> set[str]:
        """The references that can reach themselves (Tarjan's algorithm, iterative)."""
        if self._cyclic is not None:
            return self._cyclic
        edges: dict[str, list[str]] = {}
        pending = [  # references elsewhere are caught by the expansion's own guard
            f"#/components/{kind}/{name}"
            for kind, group in (self.document.get("components") or {}).items()
            if isinstance(group, dict)
            for name in group
        ]
        while pending:
            ref = pending.pop()
            if ref in edges:
                continue
            try:
                edges[ref] = [r for r in _refs(self.target(ref)) if r.startswith("#")]
            except (ValueError, IndexError, KeyError):
                edges[ref] = []
            pending.extend(r for r in edges[ref] if r not in edges)
        self._cyclic = _cycles(edges)
        return self._cyclic

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


def _refs(node: Any) -> list[str]:
    """Every ``$ref`` string under ``node``."""
    found: list[str] = []
    stack = [node]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            ref = item.get("$ref")
            if isinstance(ref, str):
                found.append(ref)
            stack.extend(v for v in item.values() if isinstance(v, (dict, list)))
        elif isinstance(item, list):
            stack.extend(v for v in item if isinstance(v, (dict, list)))
    return found


def _cycles(edges: dict[str, list[str]]) -> set[str]:
    """The nodes of ``edges`` that lie on a cycle (strongly connected components of two
    or more nodes, or a node pointing at itself)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    cyclic: set[str] = set()
    counter = 0
    for root in edges:
        if root in index:
            continue
        work = [(root, 0)]
        while work:
            node, position = work.pop()
            if position == 0:
                index[node] = low[node] = counter
                counter += 1
                stack.append(node)
                on_stack.add(node)
            targets = edges.get(node, [])
            if position < len(targets):
                work.append((node, position + 1))
                nxt = targets[position]
                if nxt not in index:
                    work.append((nxt, 0))
                elif nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
                continue
            if work:  # back in the caller: pass the low link up
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                members = []
                while True:
                    top = stack.pop()
                    on_stack.discard(top)
                    members.append(top)
                    if top == node:
                        break
                if len(members) > 1 or node in edges.get(node, ()):
                    cyclic.update(members)
    return cyclic
