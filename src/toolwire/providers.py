"""Provider profiles: what each LLM API accepts as a tool's input schema, and exports shaped for it.

A tool publishes one portable JSON Schema (:mod:`toolwire.schema.function`). The model providers accept
different subsets of JSON Schema for function/tool declarations; this module knows each subset,
says why a schema falls outside it, and reshapes a schema to fit when it can. It is pure (no
I/O, no imports beyond the standard library) and is loaded only by what uses it (``Host``'s
exports, ``Server(provider=...)``, ``toolwire lint``).

Public interface (stable)::

    PROVIDERS = ("openai", "gemini", "anthropic")
    problems(schema, provider) -> list[str]   # [] when the provider takes the schema as is
    export(schema, provider) -> dict          # the schema shaped for the provider
    Unexpressible(reasons)                    # ValueError raised by export()
    name_problems(name, provider) -> list[str]
    null_means_absent(arguments, schema) -> dict

``problems`` gives one short sentence per reason, each naming the JSON path (a JSON Pointer
into the schema, ``/`` for the root), why the provider would reject the schema or silently
mangle it *as published*: for ``openai`` that is strict mode (what ``strict: true`` function
tools take). Some problems ``export`` can fix (an optional property becomes a required
nullable one, an unsupported constraint moves into the description, where the model still
reads it, while the server keeps validating it); the others make ``export`` raise
:class:`Unexpressible` with those reasons. ``problems(export(s, p), p) == []``.

The rules, from each provider's current documentation:

``openai`` -- Structured Outputs, "Supported schemas" (platform.openai.com/docs/guides/
structured-outputs#supported-schemas), which strict function calling shares
(platform.openai.com/docs/guides/function-calling#strict-mode): the root is an object, not
``anyOf``; every object has ``additionalProperties: false`` and lists every property in
``required`` (an optional field is a union with ``null``); the types are string, number,
integer, boolean, object, array, enum, ``anyOf`` (not ``oneOf``/``allOf``/``not``/
``if``/``then``/``else``/``prefixItems``/``patternProperties``...); ``$defs`` and ``$ref``
(recursion too) are supported; the type-specific keywords supported are ``pattern`` and
``format`` (``date-time``, ``time``, ``date``, ``duration``, ``email``, ``hostname``,
``ipv4``, ``ipv6``, ``uuid``) for strings, ``multipleOf``, ``minimum``, ``maximum``,
``exclusiveMinimum``, ``exclusiveMaximum`` for numbers, ``minItems``, ``maxItems`` for
arrays; ``default`` is not permitted; at most 5000 properties, 10 levels of nesting and 1000
enum values. The ``openai`` package applies the same shape in
``openai.lib._pydantic.to_strict_json_schema`` (every property required,
``additionalProperties: false``, ``$ref`` with siblings inlined).

``gemini`` -- the ``Schema`` object of function declarations (ai.google.dev/api/caching#Schema,
"a select subset of an OpenAPI 3.0 schema object"; ai.google.dev/gemini-api/docs/
function-calling): the fields ``type`` (one type; ``nullable`` for null), ``format``,
``title``, ``description``, ``nullable``, ``enum`` (strings only), ``maxItems``, ``minItems``,
``properties``, ``required``, ``minProperties``, ``maxProperties``, ``minLength``,
``maxLength``, ``pattern``, ``example``, ``anyOf``, ``propertyOrdering``, ``default``,
``items``, ``minimum``, ``maximum``; no ``$ref``/``$defs`` (definitions are inlined, so a
recursive model cannot be expressed), no ``additionalProperties`` (so a map with free keys
cannot), no ``const``/``oneOf``/``allOf``/``prefixItems``; ``enum`` holds strings; any
``format`` is allowed ("most do not trigger any special functionality"); an ``OBJECT`` needs
properties and an ``ARRAY`` its ``items``; parameter names start with a letter or ``_`` and
hold ``[A-Za-z0-9_]``, 64 at most (cloud.google.com/vertex-ai/docs/reference/rest/v1beta1/
FunctionDeclaration). The ``google-genai`` package's ``types.Schema`` has these fields (and
``additionalProperties``, ``$defs``, ``$ref`` for Vertex AI). The declarations' newer
``parametersJsonSchema`` field takes plain JSON Schema; the export targets ``parameters``,
which every Gemini endpoint and model takes.

``anthropic`` -- tool use ``input_schema`` (docs.anthropic.com/en/docs/agents-and-tools/
tool-use/implement-tool-use and the Messages API reference): a JSON Schema (draft 2020-12)
whose root is ``type: object``, without ``oneOf``/``allOf``/``anyOf`` at the top level, and
whose property keys match ``^[a-zA-Z0-9_.-]{1,64}$``. Everything else of JSON Schema is taken.

Tool names: ``^[a-zA-Z0-9_-]{1,64}$`` for OpenAI and Anthropic; for Gemini a letter or ``_``
first, then ``[a-zA-Z0-9_.:-]``, 64 at most.
"""

from __future__ import annotations

import copy
import json
import re
from typing import Any

__all__ = ["PROVIDERS", "Unexpressible", "export", "name_problems", "null_means_absent", "problems"]

PROVIDERS = ("openai", "gemini", "anthropic")

JSON = dict[str, Any]


class Unexpressible(ValueError):
    """A tool's input schema cannot be expressed for a provider; ``reasons`` says why."""

    def __init__(self, reasons: list[str]) -> None:
        super().__init__("; ".join(reasons))
        self.reasons = reasons


def problems(schema: JSON, provider: str) -> list[str]:
    """Why ``provider`` would reject or mangle ``schema`` as published; ``[]`` if it takes it."""
    shaper = _shaper(provider)
    shaper.run(schema)
    return shaper.problems + shaper.fatal


def export(schema: JSON, provider: str) -> JSON:
    """``schema`` shaped for ``provider``; :class:`Unexpressible` when it cannot be."""
    shaper = _shaper(provider)
    out = shaper.run(schema)
    if shaper.fatal:
        raise Unexpressible(shaper.fatal)
    return out


_NAME = {
    "openai": re.compile(r"[a-zA-Z0-9_-]{1,64}"),
    "anthropic": re.compile(r"[a-zA-Z0-9_-]{1,64}"),
    "gemini": re.compile(r"[a-zA-Z_][a-zA-Z0-9_.:-]{0,63}"),
}


def name_problems(name: str, provider: str) -> list[str]:
    """Why ``provider`` would refuse ``name`` as a function/tool name (``[]`` if it takes it)."""
    _shaper(provider)
    if _NAME[provider].fullmatch(name):
        return []
    return [f"tool name {name!r} does not match {provider}'s pattern {_NAME[provider].pattern}"]


def null_means_absent(arguments: dict[str, Any], schema: JSON) -> dict[str, Any]:
    """``arguments`` without the ``null`` values of properties that ``schema`` marks optional.

    A strict export makes every optional property required and nullable, so a model sends
    ``null`` for the ones it leaves out; dropping them gives the server what it expects (the
    default applies). Nested objects are handled too; a ``null`` is kept where ``schema``
    requires the property or accepts ``null`` for it.
    """
    out: dict[str, Any] = _drop_nulls(arguments, schema, schema.get("$defs") or {}, 0)
    return out


def _drop_nulls(value: Any, schema: Any, defs: JSON, depth: int) -> Any:
    if not isinstance(schema, dict) or depth > 32:
        return value
    ref = schema.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/"):
        return _drop_nulls(value, defs.get(ref[8:]), defs, depth + 1)
    if isinstance(value, dict):
        props = schema.get("properties")
        if not isinstance(props, dict):
            return value
        required = set(schema.get("required") or ())
        out = {}
        for key, item in value.items():
            absent = item is None and key in props and key not in required
            if absent and not _takes_null(props[key], defs):
                continue
            out[key] = _drop_nulls(item, props.get(key), defs, depth + 1)
        return out
    if isinstance(value, list) and isinstance(schema.get("items"), dict):
        return [_drop_nulls(item, schema["items"], defs, depth + 1) for item in value]
    return value


def _takes_null(schema: Any, defs: JSON) -> bool:
    """``schema`` itself accepts ``null`` (then a ``null`` is a value, not an absence)."""
    if not isinstance(schema, dict):
        return schema is True
    if not schema or "null" in _types(schema) or None in (schema.get("enum") or ()):
        return True
    ref = schema.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/") and ref[8:] in defs:
        return _takes_null(defs[ref[8:]], defs)
    return any(_takes_null(s, defs) for s in schema.get("anyOf") or schema.get("oneOf") or ())


# --- shared walking ---------------------------------------------------------------------------


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


_ANNOTATIONS = _words(
    "$schema $id $comment examples deprecated readOnly writeOnly contentMediaType "
    "contentEncoding $anchor $dynamicAnchor"
)
# Keywords a provider may lack but whose loss leaves the value's shape intact: they move into
# the description as a hint (the server still validates them).
_CONSTRAINTS = _words(
    "minLength maxLength pattern format minimum maximum exclusiveMinimum "
    "exclusiveMaximum multipleOf minItems maxItems uniqueItems minProperties "
    "maxProperties default const enum example minContains maxContains"
)
_STRUCTURAL = _words(
    "allOf oneOf not if then else prefixItems contains patternProperties "
    "propertyNames dependentSchemas dependentRequired unevaluatedProperties "
    "unevaluatedItems additionalItems dependencies $dynamicRef"
)


def _where(path: str) -> str:
    return f"at {path or '/'}"


def _hint(node: JSON, key: str, value: Any) -> None:
    """Note ``key: value`` for the description (see :func:`_with_hints`)."""
    node.setdefault("\0hints", []).append(f"{key}: {json.dumps(value, default=str)}")


def _with_hints(out: JSON, description: Any) -> JSON:
    """``out`` with its description (last) followed by the noted hints."""
    hints = out.pop("\0hints", [])
    out.pop("description", None)
    text = description if isinstance(description, str) else ""
    if hints:
        note = f"({'; '.join(hints)})"
        text = f"{text} {note}" if text else note
    if text:
        out["description"] = text
    return out


def _shaper(provider: str) -> _Shaper:
    if provider == "openai":
        return _OpenAI()
    if provider == "gemini":
        return _Gemini()
    if provider == "anthropic":
        return _Anthropic()
    raise ValueError(f"unknown provider {provider!r}: use one of {', '.join(PROVIDERS)}")


class _Shaper:
    name = ""

    def __init__(self) -> None:
        self.problems: list[str] = []
        self.fatal: list[str] = []
        self.defs: JSON = {}

    def problem(self, path: str, text: str) -> None:
        msg = f"{_where(path)}: {text}"
        if msg not in self.problems:
            self.problems.append(msg)

    def cannot(self, path: str, text: str) -> None:
        msg = f"{_where(path)}: {text}"
        if msg not in self.fatal:
            self.fatal.append(msg)

    def run(self, schema: JSON) -> JSON:
        if not isinstance(schema, dict):
            self.cannot("", "the input schema is not a JSON object")
            return {}
        self.defs = dict(schema.get("$defs") or schema.get("definitions") or {})
        out = self.root(copy.deepcopy(schema))
        return out

    def root(self, schema: JSON) -> JSON:
        raise NotImplementedError


def _types(node: JSON) -> list[str]:
    t = node.get("type")
    if isinstance(t, str):
        return [t]
    if isinstance(t, list):
        return [x for x in t if isinstance(x, str)]
    return []


def _is_null(node: Any) -> bool:
    return isinstance(node, dict) and _types(node) == ["null"] and len(node) == 1


# --- anthropic --------------------------------------------------------------------------------

_ANTHROPIC_KEY = re.compile(r"[a-zA-Z0-9_.-]{1,64}")


class _Anthropic(_Shaper):
    name = "anthropic"

    def root(self, schema: JSON) -> JSON:
        if schema.get("type") != "object":
            self.cannot("", "Anthropic needs an input_schema whose root is 'type': 'object'")
        for key in ("oneOf", "allOf", "anyOf"):
            if key in schema:
                self.cannot("", f"Anthropic refuses {key!r} at the top level of input_schema")
        props = schema.get("properties")
        for key in props if isinstance(props, dict) else ():
            if not _ANTHROPIC_KEY.fullmatch(key):
                self.cannot(
                    f"/properties/{key}",
                    f"property key {key!r} does not match Anthropic's ^[a-zA-Z0-9_.-]{{1,64}}$",
                )
        return schema


# --- openai (strict mode) ---------------------------------------------------------------------

_OPENAI_FORMATS = frozenset(
    {"date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"}
)
_OPENAI_KEYS = _words(
    "type description title enum const anyOf $ref $defs definitions properties "
    "required additionalProperties items pattern format multipleOf minimum maximum "
    "exclusiveMinimum exclusiveMaximum minItems maxItems"
)
_OPENAI_TYPES = frozenset({"string", "number", "integer", "boolean", "object", "array", "null"})


class _OpenAI(_Shaper):
    name = "openai"

    def __init__(self) -> None:
        super().__init__()
        self.properties = 0
        self.enum_values = 0

    def root(self, schema: JSON) -> JSON:
        if "anyOf" in schema or schema.get("type") != "object":
            self.cannot("", "strict mode needs the root to be an object, not a union")
        defs_key = "$defs" if "$defs" in schema else "definitions"
        defs = schema.pop(defs_key, None)
        out: JSON = self.node(schema, "", 0)
        if isinstance(defs, dict):
            out[defs_key] = {k: self.node(v, f"/{defs_key}/{k}", 1) for k, v in defs.items()}
        if self.properties > 5000:
            self.cannot("", f"{self.properties} properties: strict mode takes 5000 at most")
        if self.enum_values > 1000:
            self.cannot("", f"{self.enum_values} enum values: strict mode takes 1000 at most")
        return out

    def node(self, node: Any, path: str, depth: int) -> Any:
        if node is True or node == {}:
            self.cannot(path, "accepts any value: strict mode needs a type")
            return node
        if not isinstance(node, dict):
            self.cannot(path, "is not a schema object")
            return node
        if depth > 10:
            self.cannot(path, "nested deeper than the 10 levels strict mode takes")
            return node
        ref = node.get("$ref")
        if isinstance(ref, str) and len(node) > 1:
            target = self._resolve(ref)
            if target is not None:  # $ref with siblings: inlined, as the openai package does
                siblings = {k: v for k, v in node.items() if k != "$ref"}
                node = {**copy.deepcopy(target), **siblings}
        all_of = node.get("allOf")
        if isinstance(all_of, list) and len(all_of) == 1 and isinstance(all_of[0], dict):
            node = {**{k: v for k, v in node.items() if k != "allOf"}, **all_of[0]}
        if "oneOf" in node and "anyOf" not in node:
            self.problem(path, "'oneOf' is not supported in strict mode (exported as 'anyOf')")
            node["anyOf"] = node.pop("oneOf")
        out: JSON = {}
        for key, value in node.items():
            if key in _ANNOTATIONS:
                continue
            if key in _STRUCTURAL:
                self.cannot(path, f"{key!r} is not supported in strict mode")
            elif key == "format" and value not in _OPENAI_FORMATS:
                self.problem(path, f"format {value!r} is not supported in strict mode")
                _hint(out, key, value)
            elif key not in _OPENAI_KEYS:
                self.problem(path, f"{key!r} is not permitted in strict mode")
                if key in _CONSTRAINTS:
                    _hint(out, key, value)
            else:
                out[key] = value
        _with_hints(out, node.get("description"))
        for t in _types(out):
            if t not in _OPENAI_TYPES:
                self.cannot(path, f"type {t!r} is not supported in strict mode")
        if "enum" in out and isinstance(out["enum"], list):
            self.enum_values += len(out["enum"])
        if "type" not in out and not any(k in out for k in ("anyOf", "$ref", "enum", "const")):
            self.cannot(path, "has no type: strict mode needs one")
        if isinstance(out.get("anyOf"), list):
            out["anyOf"] = [
                self.node(s, f"{path}/anyOf/{i}", depth + 1) for i, s in enumerate(out["anyOf"])
            ]
        if "array" in _types(out):
            if isinstance(out.get("items"), dict):
                out["items"] = self.node(out["items"], f"{path}/items", depth + 1)
            else:
                self.cannot(path, "an array without 'items' is not supported in strict mode")
        if "object" in _types(out):
            self.object(out, path, depth)
        return out

    def object(self, out: JSON, path: str, depth: int) -> None:
        props = out.get("properties")
        props = props if isinstance(props, dict) else {}
        extra = out.get("additionalProperties")
        if extra not in (None, False, True) or (extra is True and not props):
            self.cannot(path, "a map with free keys (dict) cannot be expressed in strict mode")
        elif extra is not False:
            self.problem(path, "strict mode needs 'additionalProperties': false")
        out["additionalProperties"] = False
        required = list(out.get("required") or [])
        if "required" not in out:
            self.problem(path, "strict mode needs 'required' listing every property")
        new_props = {}
        for key, sub in props.items():
            self.properties += 1
            sub_path = f"{path}/properties/{key}"
            shaped = self.node(sub, sub_path, depth + 1)
            if key not in required:
                self.problem(sub_path, "optional: strict mode needs every property required")
                shaped = _nullable(shaped)
            new_props[key] = shaped
        out["properties"] = new_props
        out["required"] = list(new_props)
        if set(required) - set(new_props):
            self.cannot(path, "'required' names a property it does not define")
        desc = out.pop("description", None)
        out.pop("additionalProperties")
        out["additionalProperties"] = False
        if desc is not None:
            out["description"] = desc

    def _resolve(self, ref: str) -> Any:
        for prefix in ("#/$defs/", "#/definitions/"):
            if ref.startswith(prefix):
                return self.defs.get(ref[len(prefix) :])
        return None


def _nullable(node: JSON) -> JSON:
    """``node`` that also accepts ``null`` (a type list when it can, else ``anyOf``)."""
    types = _types(node)
    if "null" in types or any(_is_null(s) for s in node.get("anyOf") or ()):
        return node
    if isinstance(node.get("type"), str) and not {"enum", "const", "anyOf", "$ref"} & set(node):
        return {**node, "type": [node["type"], "null"]}
    if isinstance(node.get("anyOf"), list):
        return {**node, "anyOf": [*node["anyOf"], {"type": "null"}]}
    inner = {k: v for k, v in node.items() if k != "description"}
    out: JSON = {"anyOf": [inner, {"type": "null"}]}
    if "description" in node:
        out["description"] = node["description"]
    return out


# --- gemini -----------------------------------------------------------------------------------

_GEMINI_KEYS = _words(
    "type format title description nullable enum maxItems minItems properties "
    "required minProperties maxProperties minLength maxLength pattern example anyOf "
    "propertyOrdering default items minimum maximum"
)
_JSON_TYPES = {bool: "boolean", int: "integer", float: "number"}
_GEMINI_TYPES = frozenset({"string", "number", "integer", "boolean", "object", "array"})
_GEMINI_PARAM = re.compile(r"[a-zA-Z_][a-zA-Z0-9_]{0,63}")


class _Gemini(_Shaper):
    name = "gemini"

    def root(self, schema: JSON) -> JSON:
        if schema.get("type") != "object" or "anyOf" in schema:
            self.cannot("", "Gemini's function parameters must be an object")
        props = schema.get("properties")
        for key in props if isinstance(props, dict) else ():
            if not _GEMINI_PARAM.fullmatch(key):
                self.cannot(
                    f"/properties/{key}",
                    f"parameter name {key!r} does not match Gemini's [a-zA-Z_][a-zA-Z0-9_]{{0,63}}",
                )
        for key in ("$defs", "definitions"):
            if key in schema:
                self.problem("", f"Gemini's Schema has no {key!r}: definitions are inlined")
        body = {k: v for k, v in schema.items() if k not in ("$defs", "definitions")}
        out: JSON = self.node(body, "", (), root=True)
        return out

    def node(self, node: Any, path: str, seen: tuple[str, ...], root: bool = False) -> Any:
        if not isinstance(node, dict) or not node:
            self.cannot(path, "accepts any value: Gemini needs a type")
            return {}
        ref = node.get("$ref")
        if isinstance(ref, str):
            name = ref.rsplit("/", 1)[-1]
            target = self.defs.get(name) if ref.startswith(("#/$defs/", "#/definitions/")) else None
            if target is None:
                self.cannot(path, f"'$ref' {ref!r} cannot be resolved")
                return {}
            if name in seen:
                self.cannot(path, f"recursive definition {name!r} cannot be inlined for Gemini")
                return {}
            self.problem(path, "Gemini's Schema has no '$ref': the definition is inlined")
            siblings = {k: v for k, v in node.items() if k != "$ref"}
            node = {**copy.deepcopy(target), **siblings}
            seen = (*seen, name)
        all_of = node.get("allOf")
        if isinstance(all_of, list) and len(all_of) == 1 and isinstance(all_of[0], dict):
            self.problem(path, "Gemini's Schema has no 'allOf' (its one member is inlined)")
            node = {**{k: v for k, v in node.items() if k != "allOf"}, **all_of[0]}
        if "oneOf" in node and "anyOf" not in node:
            self.problem(path, "Gemini's Schema has no 'oneOf' (exported as 'anyOf')")
            node = {**node, "anyOf": node["oneOf"]}
            del node["oneOf"]
        out: JSON = {}
        nullable = node.get("nullable") is True
        types = _types(node)
        if "null" in types:
            nullable = True
            types = [t for t in types if t != "null"]
            if isinstance(node.get("type"), list) or not types:
                self.problem(path, "Gemini's Schema takes one 'type' (null becomes 'nullable')")
        if len(types) > 1:
            self.problem(path, "Gemini's Schema takes one 'type' (a list becomes 'anyOf')")
            rest = {k: v for k, v in node.items() if k not in ("type", "description")}
            split: JSON = {"anyOf": [{**rest, "type": t} for t in types]}
            if "description" in node:
                split["description"] = node["description"]
            node, types = split, []
        any_of = node.get("anyOf")
        if isinstance(any_of, list):
            members = [s for s in any_of if not _is_null(s)]
            nullable = nullable or len(members) < len(any_of)
            if len(members) == 1 and isinstance(members[0], dict):
                node = {**{k: v for k, v in node.items() if k != "anyOf"}, **members[0]}
                types = [t for t in _types(node) if t != "null"]
            else:
                out["anyOf"] = [
                    self.node(s, f"{path}/anyOf/{i}", seen) for i, s in enumerate(members)
                ]
        if types:
            out["type"] = types[0]
        for key, value in node.items():
            if key in ("type", "anyOf", "nullable", "$ref", "$defs", "definitions"):
                continue
            if key in _ANNOTATIONS:
                self.problem(path, f"Gemini's Schema has no {key!r} (dropped)")
            elif key in _STRUCTURAL:
                self.cannot(path, f"{key!r} cannot be expressed in Gemini's Schema")
            elif key == "additionalProperties":
                self.problem(path, "Gemini's Schema has no 'additionalProperties' (dropped)")
            elif key == "const":
                self.problem(path, "Gemini's Schema has no 'const'")
                if isinstance(value, str):
                    out["enum"] = [value]
                    out.setdefault("type", "string")
                else:
                    _hint(out, key, value)
                    kind = _JSON_TYPES.get(type(value))
                    if kind is not None and not types:
                        out["type"] = kind
            elif key == "enum":
                self.enum(out, node, value, path)
            elif key not in _GEMINI_KEYS:
                self.problem(path, f"Gemini's Schema has no {key!r}")
                if key in _CONSTRAINTS:
                    _hint(out, key, value)
            elif key not in ("properties", "items"):
                out[key] = value
        _with_hints(out, node.get("description"))
        if nullable:
            out["nullable"] = True
        kind = out.get("type")
        if "anyOf" not in out and kind is None:
            self.cannot(path, "has no type: Gemini needs one")
        elif kind is not None and kind not in _GEMINI_TYPES:
            self.cannot(path, f"type {kind!r} is not supported by Gemini")
        if kind == "array":
            if isinstance(node.get("items"), dict):
                out["items"] = self.node(node["items"], f"{path}/items", seen)
            else:
                self.cannot(path, "an array without 'items' is refused by Gemini")
        if kind == "object":
            props = node.get("properties")
            if isinstance(props, dict) and props:
                out["properties"] = {
                    k: self.node(v, f"{path}/properties/{k}", seen) for k, v in props.items()
                }
            elif node.get("additionalProperties") not in (None, False):
                self.cannot(path, "a map with free keys (dict) cannot be expressed for Gemini")
            elif not root:
                self.cannot(path, "an object without properties is refused by Gemini")
        return out

    def enum(self, out: JSON, node: JSON, values: Any, path: str) -> None:
        values = list(values) if isinstance(values, list) else []
        kept = [v for v in values if v is not None]
        if len(kept) < len(values):
            out["nullable"] = True
        if all(isinstance(v, str) for v in kept):
            out["enum"] = kept
            out.setdefault("type", "string")
            return
        self.problem(
            path, "Gemini's 'enum' holds strings only (the values move to the description)"
        )
        kinds = {type(v) for v in kept}
        if "type" not in out and "type" not in node:
            if kinds <= {int}:
                out["type"] = "integer"
            elif kinds <= {int, float}:
                out["type"] = "number"
        _hint(out, "one of", kept)
