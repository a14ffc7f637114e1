"""Run by the interpreter of the provider SDKs' virtualenv (tests/interop/peers.py):
check tool schemas with the providers' own packages, offline.

stdin: {"cases": [{"id", "provider", "kind": "export" | "published", "name", "description",
"schema"}], "parts": [gemini functionResponse parts]}; stdout: {"cases": {id: null or why the
SDK refuses it}, "parts": [null or why]}.

* openai: the ``openai`` package's strict-schema pass
  (``openai.lib._pydantic._ensure_strict_json_schema``, what ``to_strict_json_schema`` and
  ``pydantic_function_tool`` apply) must leave the schema unchanged: a schema it would still
  rewrite is not what strict mode takes.
* gemini: ``google.genai.types.FunctionDeclaration`` must take the declaration (its ``Schema``
  forbids every field Gemini's Schema lacks); an export must also use none of the fields the
  SDK's model keeps for Vertex AI alone (``additionalProperties``, ``$defs``, ``$ref``).
"""

from __future__ import annotations

import copy
import json
import sys
from typing import Any


def _openai(schema: dict[str, Any]) -> str | None:
    from openai.lib._pydantic import _ensure_strict_json_schema

    work = copy.deepcopy(schema)
    try:
        strict = _ensure_strict_json_schema(work, path=(), root=work)
    except Exception as exc:
        return f"{type(exc).__name__}: {exc}"[:300]
    if strict != schema:
        return "the openai package's strict pass still rewrites it"
    return None


def _vertex_only(schema: Any, path: str = "") -> str | None:
    if not isinstance(schema, dict):
        return None
    for key in ("additional_properties", "defs", "ref"):
        if schema.get(key) is not None:
            return f"{path or '/'} uses {key!r}, a field of Vertex AI's Schema only"
    for key in ("items",):
        found = _vertex_only(schema.get(key), f"{path}/{key}")
        if found:
            return found
    for key, sub in (schema.get("properties") or {}).items():
        found = _vertex_only(sub, f"{path}/properties/{key}")
        if found:
            return found
    for i, sub in enumerate(schema.get("any_of") or ()):
        found = _vertex_only(sub, f"{path}/anyOf/{i}")
        if found:
            return found
    return None


def _gemini(case: dict[str, Any]) -> str | None:
    from google.genai import types

    declaration: dict[str, Any] = {"name": case["name"], "description": case["description"]}
    schema = case["schema"]
    if case["kind"] == "published" or schema.get("properties"):
        declaration["parameters"] = schema
    try:
        checked = types.FunctionDeclaration.model_validate(declaration)
    except Exception as exc:
        return f"{type(exc).__name__}: {exc}"[:300]
    if checked.parameters is None:
        return None
    return _vertex_only(checked.parameters.model_dump(exclude_none=True))


def _part(part: dict[str, Any]) -> str | None:
    from google.genai import types

    try:
        checked = types.Part.model_validate(part)
    except Exception as exc:
        return f"{type(exc).__name__}: {exc}"[:300]
    return None if checked.function_response is not None else "not a function response"


def main() -> None:
    job = json.load(sys.stdin)
    cases = {}
    for case in job.get("cases", ()):
        check = _openai(case["schema"]) if case["provider"] == "openai" else _gemini(case)
        cases[case["id"]] = check
    json.dump({"cases": cases, "parts": [_part(p) for p in job.get("parts", ())]}, sys.stdout)


if __name__ == "__main__":
    main()
