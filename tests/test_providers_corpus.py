"""The corpus of tool schemas (tests/schema_corpus.py, the tools of examples/ and of the
reference server ``server-everything``) against the provider profiles, checked offline by the
providers' own SDK packages where they carry a validator (``google-genai``'s ``Schema``/
``FunctionDeclaration`` models, the ``openai`` package's strict-schema pass) and by the
documented rules (toolwire.providers; JSON Schema 2020-12 for Anthropic) where they do not.

Every export passes, or the tool is reported as unexpressible with its reasons; a published
schema that an SDK refuses is one ``problems`` flags. The second test publishes the same
signatures with the official SDK (``MCPServer``) and FastMCP and counts, per provider, the
tools each framework publishes in a form the provider takes as is; docs/tools.md shows that
table ("Provider profiles").
"""

from __future__ import annotations

import asyncio
import importlib.util
import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

import schema_corpus
from interop import peers
from toolwire import Server
from toolwire.client import CallResult
from toolwire.client.host.exports import to_gemini_content
from toolwire.providers import PROVIDERS, Unexpressible, export, problems

from wire import EXAMPLES, checked_client

HERE = Path(__file__).parent
DOCS = HERE.parent / "docs" / "tools.md"
SDK_TIMEOUT = 300
# The first run installs the providers' SDKs, FastMCP and server-everything (minutes at most).
pytestmark = [
    pytest.mark.timeout(900),
    pytest.mark.peers("npm-everything", "provider-sdks", "fastmcp-tasks"),
]

Entry = tuple[str, str, str, dict[str, Any]]  # (source, tool name, description, input schema)


def signature_schemas() -> dict[str, dict[str, Any]]:
    """toolwire's published input schema of each corpus signature (portable profile)."""
    server = Server("corpus")
    for fn in schema_corpus.SIGNATURES:
        server.add_tool(fn)
    return {tool.name: tool.definition["inputSchema"] for tool in server.tools}


def toolwire_corpus() -> list[Entry]:
    entries: list[Entry] = [
        ("signature", name, "A corpus tool.", schema)
        for name, schema in signature_schemas().items()
    ]
    server = Server("hand-written")
    for name, schema in schema_corpus.HAND_WRITTEN.items():
        server.add_tool(schema_corpus.hand_written_function, name=name, input_schema=schema)
    entries += [
        ("input_schema", t.name, t.description or "", t.definition["inputSchema"])
        for t in server.tools
    ]
    for path in sorted(EXAMPLES.glob("*.py")):
        spec = importlib.util.spec_from_file_location(f"corpus_example_{path.stem}", path)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        for value in vars(module).values():
            if isinstance(value, Server):
                entries += [
                    (
                        f"examples/{path.name}",
                        t.name,
                        t.description or "",
                        t.definition["inputSchema"],
                    )
                    for t in value.tools
                ]
    return entries


async def _everything_tools(command: list[str]) -> list[dict[str, Any]]:
    async with checked_client(command) as client:
        return await client.list_tools()


@pytest.fixture(scope="module")
def corpus() -> list[Entry]:
    node, folder = peers.everything()
    command = [node, str(folder / "dist" / "index.js"), "stdio"]
    tools = asyncio.run(asyncio.wait_for(_everything_tools(command), 60))
    everything = [
        ("server-everything", t["name"], t.get("description", ""), t["inputSchema"]) for t in tools
    ]
    assert len(everything) >= 10
    return toolwire_corpus() + everything


def run_sdk_checks(job: dict[str, Any]) -> dict[str, Any]:
    """The verdicts of tests/interop/provider_sdk_check.py, run by the SDKs' interpreter."""
    done = subprocess.run(
        [peers.provider_sdks(), str(HERE / "interop" / "provider_sdk_check.py")],
        input=json.dumps(job),
        capture_output=True,
        text=True,
        timeout=SDK_TIMEOUT,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    verdicts: dict[str, Any] = json.loads(done.stdout)
    return verdicts


def sdk_cases(key: str, name: str, description: str, schema: dict[str, Any]) -> Iterator[Any]:
    """The SDK checks of one published schema (and of its exports that exist)."""
    for provider in ("openai", "gemini"):
        base = {"provider": provider, "name": name, "description": description}
        yield {**base, "id": f"{key}|{provider}|published", "kind": "published", "schema": schema}
        try:
            shaped = export(schema, provider)
        except Unexpressible:
            continue
        yield {**base, "id": f"{key}|{provider}|export", "kind": "export", "schema": shaped}


def test_every_export_of_the_corpus_passes_or_is_reported(corpus: list[Entry]) -> None:
    assert len(corpus) >= 60
    assert len({(source, name) for source, name, _, _ in corpus}) == len(corpus)
    table: dict[str, dict[str, int]] = {p: {"as is": 0, "export": 0, "no": 0} for p in PROVIDERS}
    reported: list[str] = []
    cases: list[dict[str, Any]] = []
    for source, name, description, schema in corpus:
        key = f"{source}:{name}"
        for provider in PROVIDERS:
            found = problems(schema, provider)
            try:
                shaped = export(schema, provider)
            except Unexpressible as exc:
                assert exc.reasons and set(exc.reasons) <= set(found), (key, provider)
                table[provider]["no"] += 1
                reported.append(f"{provider:9} {key}: {exc.reasons[0]}")
                continue
            assert problems(shaped, provider) == [], (key, provider, shaped)
            assert shaped["type"] == "object", (key, provider)
            table[provider]["as is" if not found else "export"] += 1
            if provider == "anthropic":
                Draft202012Validator.check_schema(shaped)
        cases += sdk_cases(key, name, description, schema)
    parts = [
        to_gemini_content(CallResult([{"type": "text", "text": "hi"}]), "echo", "call-1"),
        to_gemini_content(CallResult([], structured={"sum": 5}), "get_sum"),
        to_gemini_content(CallResult([{"type": "text", "text": "bad"}], is_error=True), "f"),
    ]
    verdicts = run_sdk_checks({"cases": cases, "parts": parts})
    assert verdicts["parts"] == [None, None, None]
    refused_exports = {k: v for k, v in verdicts["cases"].items() if k.endswith("|export") and v}
    assert refused_exports == {}
    unpredicted = {
        case_id: why
        for case_id, why in verdicts["cases"].items()
        if case_id.endswith("|published") and why and not _flagged(corpus, case_id)
    }
    assert unpredicted == {}
    print(f"\n{len(corpus)} tools; per provider: as published / after export / unexpressible")
    for provider, counts in table.items():
        print(f"  {provider:9} {counts['as is']:3} {counts['export']:3} {counts['no']:3}")
    print("unexpressible:\n  " + "\n  ".join(reported))


def _flagged(corpus: list[Entry], case_id: str) -> bool:
    key, provider, _ = case_id.split("|")
    for source, name, _, schema in corpus:
        if f"{source}:{name}" == key:
            return bool(problems(schema, provider))
    raise AssertionError(f"no corpus entry {key}")


# ---------------------------------------------------------------- the frameworks compared


def framework_schemas() -> dict[str, dict[str, Any]]:
    """{framework: {tool: published input schema or {"error": ...}}}, toolwire's included."""
    done = subprocess.run(
        [peers.fastmcp_tasks(), str(HERE / "interop" / "framework_schemas.py")],
        capture_output=True,
        text=True,
        timeout=SDK_TIMEOUT,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    others: dict[str, dict[str, Any]] = json.loads(done.stdout)
    return {"toolwire": signature_schemas(), **others}


def comparison_table(schemas: dict[str, dict[str, Any]]) -> str:
    total = len(schema_corpus.SIGNATURES)
    head = "| framework | registered | " + " | ".join(PROVIDERS) + " |"
    rows = [head, "|" + " --- |" * (2 + len(PROVIDERS))]
    for framework, tools in schemas.items():
        published = {n: s for n, s in tools.items() if "error" not in s}
        cells = [
            f"{sum(not problems(s, p) for s in published.values())}/{total}" for p in PROVIDERS
        ]
        rows.append(f"| {framework} | {len(published)}/{total} | " + " | ".join(cells) + " |")
    shaped = signature_schemas()
    cells = []
    for provider in PROVIDERS:
        fits = 0
        for schema in shaped.values():
            try:
                export(schema, provider)
            except Unexpressible:
                continue
            fits += 1
        cells.append(f"{fits}/{total}")
    rows.append(f"| toolwire, exported | {len(shaped)}/{total} | " + " | ".join(cells) + " |")
    return "\n".join(rows)


def test_the_frameworks_compared_per_provider() -> None:
    schemas = framework_schemas()
    assert set(schemas) == {"toolwire", "mcp (MCPServer)", "FastMCP"}
    cases = [
        case
        for framework, tools in schemas.items()
        for name, schema in tools.items()
        if "error" not in schema
        for case in sdk_cases(f"{framework}:{name}", name, "A corpus tool.", schema)
        if case["kind"] == "published"
    ]
    verdicts = run_sdk_checks({"cases": cases})["cases"]
    for case in cases:  # what an SDK refuses, problems() flags
        if verdicts[case["id"]]:
            framework, name = case["id"].split("|")[0].split(":", 1)
            assert problems(schemas[framework][name], case["provider"]), case["id"]
    table = comparison_table(schemas)
    print("\n" + table)
    assert table in DOCS.read_text(), "update docs/tools.md, 'Provider profiles', with:\n" + table


def test_gemini_function_responses_carry_output_or_error() -> None:
    structured = CallResult([{"type": "text", "text": "{}"}], structured={"sum": 5})
    assert to_gemini_content(structured, "get_sum", "c1") == {
        "functionResponse": {"id": "c1", "name": "get_sum", "response": {"output": {"sum": 5}}}
    }
    failed = CallResult([{"type": "text", "text": "no"}], is_error=True)
    assert to_gemini_content(failed, "f") == {
        "functionResponse": {"name": "f", "response": {"error": "no"}}
    }
    assert sys.version_info >= (3, 10)
