"""Lint the tools and prompts of MCP servers: what the spec asks, what model providers accept,
and what trips hosts in practice. Pure: listings (as ``tools/list`` and ``prompts/list`` give
them) in, :class:`Finding` objects out; ``toolwire lint`` and :mod:`toolwire.testing` do the
connecting.

Every rule has an id, a severity and a source (:data:`RULES`, the table in docs/testing.md).
The schema rules of each provider come from :mod:`toolwire.providers` (``problems()``); the
limits on names, descriptions and tool counts that providers document are here, each with
where it is written.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

JSON = dict[str, Any]
ERROR, WARNING = "error", "warning"
MODERN = "2026-07-28"


@dataclass(frozen=True)
class Rule:
    id: str
    severity: str
    checks: str
    source: str


RULES: dict[str, Rule] = {
    rule.id: rule
    for rule in (
        Rule(
            "tool-name",
            ERROR,
            "a tool name is 1-128 characters of A-Z a-z 0-9 _ - .",
            "MCP spec, server/tools (SEP-986)",
        ),
        Rule(
            "duplicate-name",
            ERROR,
            "a server lists one tool (or prompt) name once",
            "MCP spec, server/tools: names are unique within a server",
        ),
        Rule(
            "input-schema-type",
            ERROR,
            'inputSchema is an object schema with "type": "object" at its root',
            "MCP schema: Tool.inputSchema",
        ),
        Rule(
            "output-schema-type",
            ERROR,
            'outputSchema has "type": "object" at its root (revisions before 2026-07-28)',
            "MCP schema 2025-06-18 and 2025-11-25: Tool.outputSchema",
        ),
        Rule(
            "schema-invalid",
            ERROR,
            "inputSchema and outputSchema are valid JSON Schema (2020-12 unless $schema says)",
            "MCP spec, basic: JSON Schema usage (SEP-1613); checked against the meta-schema",
        ),
        Rule(
            "annotation-hints",
            WARNING,
            "readOnlyHint: true is not combined with destructiveHint: true",
            "MCP schema: ToolAnnotations (destructiveHint is meaningful only when "
            "readOnlyHint is false)",
        ),
        Rule(
            "provider-schema",
            ERROR,
            "each chosen provider can take the input schema, reshaped by its profile if need "
            "be (parameter names included)",
            "toolwire.providers: problems() that export() cannot fix",
        ),
        Rule(
            "provider-reshaped",
            WARNING,
            "with --as-published only: each chosen provider takes the input schema unchanged "
            "(hosts that forward schemas without reshaping them)",
            "toolwire.providers: problems() that export() fixes",
        ),
        Rule(
            "provider-tool-name",
            ERROR,
            "each chosen provider accepts the tool's name",
            "toolwire.providers.name_problems: ^[a-zA-Z0-9_-]{1,64}$ for OpenAI and "
            "Anthropic, a letter or _ then [a-zA-Z0-9_.:-] (64 at most) for Gemini",
        ),
        Rule(
            "description-too-long",
            ERROR,
            "a tool description fits the chosen providers' limit",
            "OpenAI: function.description is at most 1024 characters "
            "(error code string_above_max_length)",
        ),
        Rule(
            "too-many-tools",
            ERROR,
            "all the servers' tools together fit in one request of the chosen providers",
            "OpenAI Chat Completions API reference, tools: a max of 128 functions",
        ),
        Rule(
            "tool-description",
            WARNING,
            "every tool has a description (the model chooses tools by it)",
            "MCP spec, server/tools: description is the model's hint",
        ),
        Rule(
            "param-description",
            WARNING,
            "every parameter (and prompt argument) has a description",
            "practice: the model fills arguments from their descriptions",
        ),
        Rule(
            "near-duplicate-name",
            WARNING,
            "no two tools of the servers given differ only by case, '-', '_' or '.'",
            "practice: a host that merges servers sees clashing or confusable names",
        ),
    )
}

SPEC_NAME = re.compile(r"[A-Za-z0-9_.\-]{1,128}")
# Limits providers document beside the schema rules of toolwire.providers.
DESCRIPTION_LIMITS = {"openai": 1024}
TOOL_LIMITS = {"openai": 128}


@dataclass(frozen=True)
class Finding:
    """One problem: ``rule`` (an id of :data:`RULES`), ``severity`` ("error" or "warning"),
    the server (``server``, its name; ``target``, as given), the item (``kind`` "tool",
    "prompt" or "server", and its ``name``), a JSON ``path`` inside the item ("" for the item
    itself), the ``provider`` a provider rule is about ("" for the others) and a one-line
    ``message`` that says what to change."""

    rule: str
    severity: str
    target: str
    server: str
    kind: str
    name: str
    path: str
    message: str
    provider: str = ""

    def as_dict(self) -> JSON:
        return asdict(self)


@dataclass
class Listing:
    """What one server listed: ``target`` as given on the command line, the server's name, the
    revision the listing was made in, and the ``tools/list`` and ``prompts/list`` entries."""

    target: str
    server: str = ""
    revision: str | None = None
    tools: list[JSON] = field(default_factory=list)
    prompts: list[JSON] = field(default_factory=list)


def lint(
    listings: Sequence[Listing],
    providers: Iterable[str] | None = None,
    *,
    as_published: bool = False,
) -> list[Finding]:
    """The findings of every rule over ``listings`` (several servers: one host's view), for
    the ``providers`` given (all of :data:`toolwire.providers.PROVIDERS` by default).
    ``as_published`` adds the ``provider-reshaped`` warnings: what a provider refuses in a
    schema that its profile's export fixes (for hosts that forward schemas unchanged)."""
    chosen = list(known_providers() if providers is None else providers)
    unknown = sorted(set(chosen) - set(known_providers()))
    if unknown:
        raise ValueError(f"unknown provider {unknown[0]!r}: one of {', '.join(known_providers())}")
    findings: list[Finding] = []
    for listing in listings:
        findings += _server(listing, chosen, as_published)
    findings += _near_duplicates(listings)
    findings += _tool_count(listings, chosen)
    return findings


def known_providers() -> tuple[str, ...]:
    """The providers there are profiles for."""
    # lazy: the providers' schema rules, only for a tool checked or exported for one
    from .providers import PROVIDERS

    return tuple(PROVIDERS)


# ---------------------------------------------------------------- one server


class _Out:
    """The findings of one server, each stamped with the server it is about."""

    def __init__(self, listing: Listing) -> None:
        self.listing = listing
        self.found: list[Finding] = []

    def add(
        self, rule: str, kind: str, name: str, path: str, message: str, provider: str = ""
    ) -> None:
        listing, severity = self.listing, RULES[rule].severity
        self.found.append(
            Finding(
                rule, severity, listing.target, listing.server, kind, name, path, message, provider
            )
        )


def _server(listing: Listing, providers: list[str], as_published: bool) -> list[Finding]:
    out = _Out(listing)
    seen: set[str] = set()
    for tool in listing.tools:
        name = str(tool.get("name", ""))
        if name in seen:
            out.add("duplicate-name", "tool", name, "name", "listed twice: rename one of them")
            continue
        seen.add(name)
        _tool(out, tool, name, listing.revision, providers, as_published)
    prompts: set[str] = set()
    for prompt in listing.prompts:
        name = str(prompt.get("name", ""))
        if name in prompts:
            out.add("duplicate-name", "prompt", name, "name", "listed twice: rename one of them")
            continue
        prompts.add(name)
        _prompt(out, prompt, name)
    return out.found


def _tool(
    out: _Out,
    tool: JSON,
    name: str,
    revision: str | None,
    providers: list[str],
    as_published: bool,
) -> None:
    # lazy: the providers' schema rules, only for a tool checked or exported for one
    from .providers import name_problems

    if not SPEC_NAME.fullmatch(name):
        out.add(
            "tool-name",
            "tool",
            name,
            "name",
            f"{name!r} is not 1-128 characters of A-Z a-z 0-9 _ - .: rename it (e.g. "
            f"{_suggest(name)!r})",
        )
    else:
        for provider in providers:
            for reason in name_problems(name, provider):
                out.add(
                    "provider-tool-name",
                    "tool",
                    name,
                    "name",
                    f"{reason}: rename it (e.g. {_suggest(name)[:64]!r})",
                    provider,
                )
    description = tool.get("description")
    if not (isinstance(description, str) and description.strip()):
        out.add(
            "tool-description",
            "tool",
            name,
            "description",
            "no description: say what the tool does and when to use it",
        )
    else:
        for provider in providers:
            limit = DESCRIPTION_LIMITS.get(provider)
            if limit is not None and len(description) > limit:
                out.add(
                    "description-too-long",
                    "tool",
                    name,
                    "description",
                    f"{len(description)} characters, {provider} takes at most {limit}: "
                    "shorten it (details can go in parameter descriptions)",
                    provider,
                )
    input_schema = tool.get("inputSchema")
    input_ok = _object_root(out, name, "inputSchema", input_schema, "input-schema-type")
    if input_ok and isinstance(input_schema, dict):
        _meta_schema(out, name, "inputSchema", input_schema)
        _parameters(out, name, input_schema)
        _provider_schemas(out, name, input_schema, providers, as_published)
    output_schema = tool.get("outputSchema")
    if output_schema is not None:
        legacy = revision is not None and revision < MODERN
        rule = "output-schema-type"
        if not legacy or _object_root(out, name, "outputSchema", output_schema, rule):
            _meta_schema(out, name, "outputSchema", output_schema)
    annotations = tool.get("annotations")
    if (
        isinstance(annotations, dict)
        and annotations.get("readOnlyHint") is True
        and annotations.get("destructiveHint") is True
    ):
        out.add(
            "annotation-hints",
            "tool",
            name,
            "annotations",
            "readOnlyHint is true, so destructiveHint is ignored: drop one of them",
        )


def _object_root(out: _Out, name: str, where: str, schema: Any, rule: str) -> bool:
    if isinstance(schema, dict) and schema.get("type") == "object":
        return True
    got = f"type {schema.get('type')!r}" if isinstance(schema, dict) else type(schema).__name__
    if where == "outputSchema":
        fix = 'wrap the value in an object: {"type": "object", "properties": {"result": ...}}'
        message = f"the root is {got}, which revisions before {MODERN} refuse: {fix}"
    else:
        message = f'the root is {got}: make it {{"type": "object", "properties": {{...}}}}'
    out.add(rule, "tool", name, where, message)
    return False


def _meta_schema(out: _Out, name: str, where: str, schema: Any) -> None:
    for path, message in schema_errors(schema):
        out.add("schema-invalid", "tool", name, _join(where, path), message)


def schema_errors(schema: Any) -> list[tuple[str, str]]:
    """(JSON path, message) of what makes ``schema`` an invalid JSON Schema: checked against
    the meta-schema of its dialect (2020-12 when there is no ``$schema``) with the
    ``jsonschema`` package; without it (``pip install 'toolwire[jsonschema]'``), a structural
    check of the keywords the providers read (``type``, ``properties``, ``required``,
    ``items``)."""
    try:
        from jsonschema import validators  # type: ignore[import-untyped,unused-ignore]  # optional: jsonschema (the jsonschema extra)
    except ImportError:
        return _structural(schema, "")
    from jsonschema.exceptions import best_match  # type: ignore[import-untyped,unused-ignore]  # optional: jsonschema (the jsonschema extra)

    cls = validators.validator_for(schema, default=validators.Draft202012Validator)
    found = set()
    for error in cls(cls.META_SCHEMA).iter_errors(schema):
        path = "/".join(map(str, error.absolute_path))
        if path.rpartition("/")[2] == "type" and isinstance(error.instance, str):
            message = f"{error.instance!r} is not a JSON Schema type ({', '.join(sorted(TYPES))})"
        else:  # inside anyOf: the branch that came closest
            message = _first_line(best_match([error]).message)
        found.add((path, message))
    return sorted(found)


TYPES = {"object", "array", "string", "number", "integer", "boolean", "null"}


def schema_check() -> str:
    """How :func:`schema_errors` checks schemas here: ``"meta-schema"`` (the ``jsonschema``
    package is installed) or ``"structural"``."""
    import importlib.util  # lazy: only to look for an optional package

    try:
        found = importlib.util.find_spec("jsonschema") is not None
    except (ImportError, ValueError):
        found = False
    return "meta-schema" if found else "structural"


def _structural(schema: Any, path: str) -> list[tuple[str, str]]:
    if isinstance(schema, bool):
        return []
    if not isinstance(schema, dict):
        return [(path, f"a schema is an object or a boolean, not {type(schema).__name__}")]
    found = []
    kinds = schema.get("type")
    for kind in kinds if isinstance(kinds, list) else [kinds] if kinds is not None else []:
        if kind not in TYPES:
            message = f"{kind!r} is not a JSON Schema type ({', '.join(sorted(TYPES))})"
            found.append((_join(path, "type"), message))
    required = schema.get("required")
    if required is not None and not (
        isinstance(required, list) and all(isinstance(key, str) for key in required)
    ):
        found.append((_join(path, "required"), "required is an array of property names"))
    properties = schema.get("properties")
    if properties is not None:
        if not isinstance(properties, dict):
            found.append((_join(path, "properties"), "properties is an object of schemas"))
        else:
            for key, sub in properties.items():
                found += _structural(sub, _join(path, f"properties/{key}"))
    items = schema.get("items")
    if items is not None:
        found += _structural(items, _join(path, "items"))
    return found


def _parameters(out: _Out, name: str, schema: JSON) -> None:
    properties = schema.get("properties")
    if not isinstance(properties, dict):
        return
    for key, sub in properties.items():
        if isinstance(sub, dict) and not _described(sub):
            out.add(
                "param-description",
                "tool",
                name,
                f"inputSchema/properties/{key}",
                f"parameter {key!r} has no description: say what value it takes",
            )


def _described(schema: JSON) -> bool:
    """A description of its own, or (for a ``$ref``) the one of what it points to counts."""
    text = schema.get("description")
    return (isinstance(text, str) and bool(text.strip())) or "$ref" in schema


def _provider_schemas(
    out: _Out, name: str, schema: JSON, providers: list[str], as_published: bool
) -> None:
    """One finding per provider: what its export cannot fix (an error), and with
    ``as_published`` what the export fixes (a warning)."""
    # lazy: the providers' schema rules, only for a tool checked or exported for one
    from .providers import Unexpressible, export, problems

    for provider in providers:
        found = problems(schema, provider)
        if not found:
            continue
        try:
            export(schema, provider)
            fatal: list[str] = []
        except Unexpressible as error:
            fatal = list(error.reasons)
        if fatal:
            message = f"{provider} cannot take it: {'; '.join(fatal)}; change the type"
            out.add("provider-schema", "tool", name, _reason_path(fatal[0]), message, provider)
        elif as_published:
            message = (
                f"{provider} does not take it as published: {'; '.join(found)}; a host must reshape it "
                "(toolwire's Host exports do)"
            )
            out.add("provider-reshaped", "tool", name, _reason_path(found[0]), message, provider)


def _reason_path(reason: str) -> str:
    """``inputSchema/...`` from a reason of :mod:`toolwire.providers` ("at /x/y: ...")."""
    match = re.match(r"at (/\S*):", reason)
    return _join("inputSchema", match.group(1).strip("/")) if match else "inputSchema"


def _prompt(out: _Out, prompt: JSON, name: str) -> None:
    seen: set[str] = set()
    for index, argument in enumerate(prompt.get("arguments") or []):
        if not isinstance(argument, dict):
            continue
        key = str(argument.get("name", ""))
        path = f"arguments/{index}"
        if key in seen:
            out.add("duplicate-name", "prompt", name, path, f"argument {key!r} is listed twice")
            continue
        seen.add(key)
        if not _described(argument):
            out.add(
                "param-description",
                "prompt",
                name,
                path,
                f"argument {key!r} has no description: say what value it takes",
            )


# ---------------------------------------------------------------- across servers


def fold(name: str) -> str:
    """The name as a reader confuses it: case, '-', '_' and '.' do not count."""
    return re.sub(r"[-_.]", "", name.lower())


def _near_duplicates(listings: Sequence[Listing]) -> list[Finding]:
    first: dict[str, tuple[Listing, str]] = {}
    found = []
    for listing in listings:
        names: set[str] = set()
        for tool in listing.tools:
            name = str(tool.get("name", ""))
            if name in names:
                continue  # duplicate-name, reported per server
            names.add(name)
            key = fold(name)
            if key not in first:
                first[key] = (listing, name)
                continue
            other, other_name = first[key]
            where = "" if other is listing else f" of {other.server or other.target}"
            what = "the same name" if other_name == name else "a near-duplicate"
            found.append(
                Finding(
                    "near-duplicate-name",
                    WARNING,
                    listing.target,
                    listing.server,
                    "tool",
                    name,
                    "name",
                    f"{what} of {other_name!r}{where}: give the tools distinct names "
                    "(e.g. a prefix per server)",
                )
            )
    return found


def _tool_count(listings: Sequence[Listing], providers: list[str]) -> list[Finding]:
    total = sum(len(listing.tools) for listing in listings)
    found = []
    for provider in providers:
        limit = TOOL_LIMITS.get(provider)
        if limit is not None and total > limit:
            listing = listings[-1]
            found.append(
                Finding(
                    "too-many-tools",
                    ERROR,
                    listing.target if len(listings) == 1 else "",
                    listing.server if len(listings) == 1 else "",
                    "server",
                    "",
                    "",
                    f"{total} tools, {provider} takes at most {limit} per request: "
                    "split them across hosts or let the host pick the relevant ones",
                    provider,
                )
            )
    return found


# ---------------------------------------------------------------- helpers


def _suggest(name: str) -> str:
    cleaned = re.sub(r"[^A-Za-z0-9_\-]+", "_", name).strip("_")
    return cleaned or "tool"


def _join(base: str, path: str) -> str:
    return f"{base}/{path}" if base and path else base or path


def _first_line(text: str) -> str:
    line = text.splitlines()[0] if text else ""
    return line if len(line) <= 160 else line[:157] + "..."


def errors(findings: Iterable[Finding]) -> list[Finding]:
    return [finding for finding in findings if finding.severity == ERROR]
