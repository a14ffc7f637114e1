"""OpenAPI operations as tools: ``Server.from_openapi(spec, client=...)`` and
``mcp.add_openapi(spec, client=...)`` (docs/tools.md, "OpenAPI as tools").

Each operation of an OpenAPI 3.0 or 3.1 document becomes one tool:

* its name is the ``operationId`` made safe for every LLM API (``A-Za-z0-9_-``, at most 64
  characters; longer ones are cut and end in a hash), else the method and path
  (``get_users_user_id``); ``names={"operationId": "tool_name"}`` overrides; a name taken
  by an earlier operation gets ``_2``, ``_3``... (document order, so always the same);
* its description is the summary and description; its annotations follow the method
  (GET/HEAD read-only and idempotent, PUT/DELETE idempotent, DELETE destructive);
* its input schema holds the path, query, header and cookie parameters and the JSON (or
  form) request body: the body's properties beside the parameters when no name collides,
  else the body whole under ``body``;
* its output schema is the first 2xx JSON response's (wrapped under ``result`` when it is
  no object, as for functions); a 2xx answer is the result (``structuredContent`` and
  text), any other status an ``isError`` result with the status and the (trimmed) body.

Calls go through the ``httpx.AsyncClient`` given, so its base URL, headers (auth),
timeouts and transport apply. The module loads only when used; YAML documents need PyYAML.
"""

from __future__ import annotations

import fnmatch
import gc
import hashlib
import os
import re
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any, Protocol

import orjson

from .._pip import pip_install
from ..errors import RegistrationError
from ..schema.common import generic_dumper, wrap_result
from ..schema.function import FunctionSchema, InvalidArguments
from ..server.components.registry import Registry
from ..tools import Tool
from .openapi_call import Caller, Operation, Param
from .openapi_schema import Resolver, is_object, without_null

if TYPE_CHECKING:
    import httpx

JSON = dict[str, Any]


class ToolHost(Protocol):
    """What :func:`add_openapi` uses of the server (:class:`toolwire.Server`, which loads
    this module on first use)."""

    provider: str | None
    tool_registry: Registry[Tool]


RouteFilter = str | Callable[[str, str, JSON], bool]

METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")
MAX_NAME = 64
_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")
_IGNORED_HEADERS = frozenset({"accept", "content-type", "authorization"})  # OpenAPI says so
_ANNOTATIONS: dict[str, JSON] = {
    "get": {"readOnlyHint": True, "idempotentHint": True},
    "head": {"readOnlyHint": True, "idempotentHint": True},
    "options": {"readOnlyHint": True, "idempotentHint": True},
    "put": {"readOnlyHint": False, "destructiveHint": False, "idempotentHint": True},
    "delete": {"readOnlyHint": False, "destructiveHint": True, "idempotentHint": True},
    "post": {"readOnlyHint": False, "destructiveHint": False, "idempotentHint": False},
    "patch": {"readOnlyHint": False, "destructiveHint": False, "idempotentHint": False},
}


def load_document(spec: Any) -> JSON:
    """The OpenAPI document ``spec``: a dict, JSON or YAML text, a file path or a URL."""
    if isinstance(spec, Mapping):
        document = dict(spec)
    else:
        text = str(os.fspath(spec)) if isinstance(spec, os.PathLike) else spec
        if not isinstance(text, (str, bytes)):
            raise RegistrationError(
                "An OpenAPI document is a dict, a path, a URL or JSON/YAML text, "
                f"not {type(spec).__name__}"
            )
        raw: str | bytes = text
        if isinstance(text, str) and text.startswith(("http://", "https://")):
            import httpx  # optional: httpx (the http extra)

            answer = httpx.get(text, follow_redirects=True, timeout=30)
            answer.raise_for_status()
            raw = answer.content
        elif isinstance(text, str) and "\n" not in text and not text.lstrip().startswith("{"):
            with open(text, "rb") as file:
                raw = file.read()
        document = _parse(raw)
    version = str(document.get("openapi", ""))
    if not version.startswith("3."):
        found = f"swagger {document['swagger']}" if "swagger" in document else repr(version)
        raise RegistrationError(f"Not an OpenAPI 3.0/3.1 document (it says {found})")
    return document


def _parse(raw: str | bytes) -> JSON:
    try:
        parsed = orjson.loads(raw)
    except orjson.JSONDecodeError:
        try:
            import yaml  # type: ignore[import-untyped]  # optional: PyYAML, for a YAML document
        except ImportError:
            raise RegistrationError(
                f"This OpenAPI document is not JSON; reading YAML needs PyYAML: {pip_install('PyYAML')}"
            ) from None
        parsed = yaml.safe_load(raw)
    if not isinstance(parsed, dict):
        raise RegistrationError("An OpenAPI document must be an object at its root")
    return parsed


def operations(document: JSON, resolver: Resolver) -> list[Operation]:
    """The operations of ``document``, in document order."""
    found = []
    for path, item in (document.get("paths") or {}).items():
        item = resolver.deref(item)
        if not isinstance(item, dict):
            continue
        for method in METHODS:
            spec = item.get(method)
            if isinstance(spec, dict):
                found.append(Operation(method, path, spec, shared=item.get("parameters") or []))
    return found


def matches(rule: RouteFilter, op: Operation) -> bool:
    """``"tag:NAME"``, ``"METHOD /path/glob"``, ``"/path/glob"``, ``"METHOD"``, or a
    function of (method, path, operation) returning a bool."""
    if callable(rule):
        return bool(rule(op.method.upper(), op.path, op.spec))
    rule = rule.strip()
    if rule.startswith("tag:"):
        return rule[4:] in (op.spec.get("tags") or ())
    method, _, pattern = rule.partition(" ") if not rule.startswith("/") else ("*", "", rule)
    if not pattern:
        pattern = "*"
    methods = {m.strip().lower() for m in method.split(",")}
    if not methods <= {*METHODS, "*"}:
        raise RegistrationError(
            f"Route filter {rule!r}: use 'tag:NAME', 'METHOD /path/pattern', '/path/pattern' "
            "or 'METHOD' (GET, POST, ..., or * for any)"
        )
    if "*" not in methods and op.method not in methods:
        return False
    return fnmatch.fnmatchcase(op.path, pattern.strip())


def safe_name(text: str) -> str:
    """``text`` as a tool name every LLM API takes (``^[A-Za-z0-9_-]{1,64}$``)."""
    name = _UNSAFE.sub("_", text) or "_"
    if len(name) > MAX_NAME:
        digest = hashlib.sha256(text.encode()).hexdigest()[:8]
        name = f"{name[: MAX_NAME - 9]}_{digest}"
    return name


def _derived_name(op: Operation) -> str:
    operation_id = op.spec.get("operationId")
    if isinstance(operation_id, str) and operation_id:
        return safe_name(operation_id)
    words = re.sub(r"[^A-Za-z0-9]+", "_", f"{op.method}_{op.path}").strip("_")
    return safe_name(words)


def assign_names(ops: list[Operation], names: Mapping[str, str], taken: Iterable[str]) -> None:
    """Each operation's tool name: ``names`` first (keyed by operationId or "METHOD /path"),
    then the derived names, a repeated one numbered in document order."""
    used = set(taken)
    chosen: dict[int, str] = {}
    for index, op in enumerate(ops):
        key = op.spec.get("operationId")
        given = names.get(key) if isinstance(key, str) else None
        given = given or names.get(f"{op.method.upper()} {op.path}")
        if given is not None:
            if given in used:
                raise RegistrationError(f"The tool name {given!r} is given twice")
            used.add(given)
            chosen[index] = given
    for index, op in enumerate(ops):
        name = chosen.get(index)
        if name is None:
            base = name = _derived_name(op)
            number = 1
            while name in used:
                number += 1
                suffix = f"_{number}"
                name = base[: MAX_NAME - len(suffix)] + suffix
            used.add(name)
        op.name = name


def describe(op: Operation) -> str | None:
    summary = (op.spec.get("summary") or "").strip()
    text = (op.spec.get("description") or "").strip()
    if summary and text and not text.startswith(summary):
        return f"{summary}\n\n{text}"
    return text or summary or None


def _json_media(content: Any) -> tuple[str, JSON] | None:
    if not isinstance(content, dict):
        return None
    for media, body in content.items():
        kind = media.split(";")[0].strip().lower()
        if kind == "application/json" or kind.endswith("+json"):
            return media, body if isinstance(body, dict) else {}
    return None


def input_schema(op: Operation, resolver: Resolver) -> JSON:
    """One input schema for the operation's parameters and body; fills ``op.params``."""
    properties: JSON = {}
    required: list[str] = []
    nulls: set[str] = set()
    declared: dict[tuple[str, str], JSON] = {}
    for raw in [*op.shared, *(op.spec.get("parameters") or ())]:
        param = resolver.deref(raw)
        if isinstance(param, dict) and "name" in param and "in" in param:
            declared[(param["in"], param["name"])] = param  # the operation's own wins
    for (location, original), param in declared.items():
        if location == "header" and original.lower() in _IGNORED_HEADERS:
            continue
        schema = resolver.schema(param.get("schema", {}))
        if "schema" not in param:
            media = _json_media(param.get("content"))
            schema = resolver.schema(media[1].get("schema", {})) if media else {}
        prop = _UNSAFE.sub("_", original)
        if prop in properties:
            prop = f"{prop}_{location}"
        if param.get("description"):
            schema = {**schema, "description": param["description"]}
        needed = bool(param.get("required")) or location == "path"
        if needed:
            required.append(prop)
        else:
            stripped = without_null(schema)
            if stripped != schema:
                nulls.add(prop)
            schema = stripped
        properties[prop] = schema
        default_style = "simple" if location in ("path", "header") else "form"
        style = str(param.get("style") or default_style)
        op.params[prop] = Param(
            location, original, style, bool(param.get("explode", style == "form"))
        )
    body = resolver.deref(op.spec.get("requestBody"))
    if isinstance(body, dict):
        _add_body(op, body, resolver, properties, required, nulls)
    op.nulls_absent = frozenset(nulls)
    result: JSON = {"type": "object", "properties": properties}
    if required:
        result["required"] = required
    return result


def _add_body(
    op: Operation,
    body: JSON,
    resolver: Resolver,
    properties: JSON,
    required: list[str],
    nulls: set[str],
) -> None:
    content = body.get("content") or {}
    media = _json_media(content)
    if media is None:
        form = next((m for m in content if m.startswith("application/x-www-form")), None)
        media = (form, content[form] or {}) if form else None
    if media is None:
        if not content:
            return
        kind = next(iter(content))  # any other media type: the body as text
        media = (kind, {"schema": {"type": "string"}})
    op.media, spec = media
    schema = resolver.schema(spec.get("schema", {}))
    needed = op.body_required = bool(body.get("required"))
    props = schema.get("properties") if is_object(schema) else None
    if (
        isinstance(props, dict)
        and props
        and not set(props) & set(properties)
        and not any(k in schema for k in ("allOf", "anyOf", "oneOf", "patternProperties"))
    ):
        inner = set(schema.get("required") or ())
        for name, sub in props.items():
            if needed and name in inner:
                required.append(name)
                properties[name] = sub
            else:
                stripped = without_null(sub)
                if stripped != sub:
                    nulls.add(name)
                properties[name] = stripped
            op.params[name] = Param("body", name)
        op.merged_body = True
        return
    name = "body" if "body" not in properties else "request_body"
    if body.get("description"):
        schema = {**schema, "description": body["description"]}
    properties[name] = schema
    if needed:
        required.append(name)
    op.params[name] = Param("", name)


def output_schema(op: Operation, resolver: Resolver) -> JSON | None:
    """The first 2xx JSON response's schema, or None."""
    responses = op.spec.get("responses") or {}
    codes = sorted(str(c) for c in responses if str(c).startswith("2") and str(c)[1:].isdigit())
    codes += [c for c in responses if str(c).upper() == "2XX"]
    for code in codes:
        answer = resolver.deref(responses[code])
        media = _json_media(answer.get("content") if isinstance(answer, dict) else None)
        if media is not None and "schema" in media[1]:
            schema = resolver.schema(media[1]["schema"])
            # an empty schema (FastAPI's for an untyped answer) says nothing: none
            return schema if isinstance(schema, dict) and schema else None
        if isinstance(answer, dict) and answer.get("content"):
            return None  # the success answer is no JSON: a text result
    return None


def _validator(schema: JSON, nulls: frozenset[str]) -> Callable[[JSON], JSON]:
    """Arguments checked against the input schema (with ``jsonschema`` when installed; the
    API checks them anyway), unknown names refused, a null optional argument dropped."""
    known = set(schema.get("properties") or ())
    required = schema.get("required") or ()
    check: Callable[[JSON], JSON] | None = None
    try:
        from jsonschema import Draft202012Validator  # type: ignore[import-untyped]  # optional: jsonschema (the jsonschema extra)

        from ..schema.given import _validator as given  # lazy: only for a schema given by hand

        strict = {**schema, "additionalProperties": False}
        check = given(Draft202012Validator(strict), known, True)
    except ImportError:  # pragma: no cover - depends on the environment
        pass

    def validate(arguments: JSON) -> JSON:
        if nulls:
            arguments = {k: v for k, v in arguments.items() if v is not None or k not in nulls}
        if check is not None:
            return check(arguments)
        problems = [(k, "Field required") for k in required if k not in arguments]
        problems += [(k, "Extra inputs are not permitted") for k in arguments if k not in known]
        if problems:
            raise InvalidArguments(problems)
        return dict(arguments)

    return validate


def build_tool(op: Operation, resolver: Resolver, client: httpx.AsyncClient, tags: bool) -> Tool:

    schema = input_schema(op, resolver)
    output = output_schema(op, resolver)
    wraps = output is not None and not is_object(output)
    op.wraps = wraps
    caller = Caller(op, client, output is not None)
    annotations = {**_ANNOTATIONS.get(op.method, {}), "openWorldHint": True}
    tool = Tool(
        caller,
        name=op.name,
        description=describe(op),
        annotations=annotations,
        tags=[t for t in op.spec.get("tags") or () if isinstance(t, str)] if tags else (),
        output_schema=False,
        split_lists=False,  # an array the API answers is one JSON document
    )
    nulls = op.nulls_absent
    tool.schema = FunctionSchema(
        description=tool.description,
        input_schema=schema,
        output_schema=(wrap_result(output) if wraps else output) if output is not None else None,
        wraps_result=wraps,
        injected={},
        _make_validator=lambda: _validator(schema, nulls),
        _make_dumper=generic_dumper,
    )
    tool.structured = True  # an object answer is structuredContent, declared or not
    tool.definition = tool._definition()
    return tool


def add_openapi(
    server: ToolHost,
    spec: Any,
    client: httpx.AsyncClient | None = None,
    *,
    include: Iterable[RouteFilter] | None = None,
    exclude: Iterable[RouteFilter] = (),
    names: Mapping[str, str] | None = None,
    tags: bool = True,
) -> list[str]:
    """Register a tool on ``server`` for each operation of ``spec`` kept by the filters;
    returns the tools' names (see the module's documentation)."""
    document = load_document(spec)
    if client is None:
        client = _default_client(document)
    resolver = Resolver(document)
    kept = [
        op
        for op in operations(document, resolver)
        if (include is None or any(matches(rule, op) for rule in include))
        and not any(matches(rule, op) for rule in exclude)
    ]
    assign_names(kept, names or {}, server.tool_registry.items)
    built = []
    # thousands of small objects and nothing to free: the collector would only rescan them
    collecting = gc.isenabled()
    gc.disable()
    try:
        for op in kept:
            try:
                built.append(build_tool(op, resolver, client, tags))
            except (ValueError, KeyError, TypeError, RegistrationError) as exc:
                where = f"{op.method.upper()} {op.path}"
                raise RegistrationError(
                    f"OpenAPI operation {where}: {exc} (leave it out with exclude=[{where!r}])"
                ) from exc
    finally:
        if collecting:
            gc.enable()
    if server.provider is not None:
        # lazy: provider checks, only for a server that names providers
        from ..server.components.facing import face

        for tool in built:
            face(tool, server.provider)
    for tool in built:
        server.tool_registry.items[tool.name] = tool
    if built:
        server.tool_registry.touch()
    return [tool.name for tool in built]


def _default_client(document: JSON) -> httpx.AsyncClient:
    import httpx  # optional: httpx (the http extra)

    servers = document.get("servers") or []
    url = servers[0].get("url") if servers and isinstance(servers[0], dict) else None
    if not isinstance(url, str) or not url.startswith(("http://", "https://")):
        raise RegistrationError(
            "Give client=httpx.AsyncClient(base_url=...): the document names no absolute server URL"
        )
    return httpx.AsyncClient(base_url=url)
