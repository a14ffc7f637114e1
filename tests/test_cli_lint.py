"""``toolwire lint``, run as a real subprocess (``python -m toolwire lint ...``).

Every example lints clean (this is the CI check that keeps them so); ``servers/lint_bad.py``
plants one problem per rule and each is reported exactly once; several targets are linted as
one host's servers (names clashing across them); targets are files, a URL served by a real
uvicorn and ``--command`` subprocesses; the pytest helper of ``toolwire.testing`` sees the
same findings.
"""

from __future__ import annotations

import json
import os
import runpy
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from toolwire._pip import extra_install

from http_server import serve_http
from mcp_spec import WireChecker
from wire import EXAMPLES, MODERN, SERVERS

pytestmark = pytest.mark.timeout(60)

TIMEOUT = 30.0
BAD = SERVERS / "lint_bad.py"
RAW = SERVERS / "lint_raw.py"
RAW_COMMAND = f"{sys.executable} {RAW}"
NOT_SERVERS = {"host_chat.py"}  # a host (it starts servers), not a server
LEGACY = "2025-11-25"  # the revision where an array outputSchema root is refused


def toolwire(*args: str, cwd: Path | None = None) -> Any:
    return subprocess.run(
        [sys.executable, "-m", "toolwire", "lint", *args],
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        cwd=cwd,
        env={**os.environ, "NO_COLOR": "1"},
    )


def report(*args: str, cwd: Path | None = None) -> tuple[int, dict[str, Any]]:
    result = toolwire(*args, "--json", cwd=cwd)
    assert result.returncode in (0, 1), result.stderr
    return result.returncode, json.loads(result.stdout)


def pairs(document: dict[str, Any]) -> set[tuple[str, str]]:
    return {(finding["rule"], finding["name"]) for finding in document["findings"]}


def planted() -> set[tuple[str, str]]:
    return set(runpy.run_path(str(BAD))["PLANTED"])


# ------------------------------------------------------------------ the examples


def example_servers() -> list[Path]:
    return sorted(path for path in EXAMPLES.glob("*.py") if path.name not in NOT_SERVERS)


def test_every_example_lints_clean_even_strictly(tmp_path: Path) -> None:
    """The CI check: the examples, together as one host's servers, give no finding at all.
    (In an empty folder: the notes example opens its database in the working directory.)"""
    result = toolwire(*map(str, example_servers()), "--strict", cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.rstrip().endswith("No problems found."), result.stdout
    code, document = report(*map(str, example_servers()), cwd=tmp_path)
    assert code == 0 and document["findings"] == [], document["findings"]
    assert {entry["target"] for entry in document["targets"]} == {
        str(path) for path in example_servers()
    }
    assert sum(entry["tools"] for entry in document["targets"]) > 20


@pytest.mark.parametrize("revision", [LEGACY, MODERN])
async def test_the_examples_lint_clean_with_every_message_checked(
    revision: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same in one process, each example in memory, its traffic checked against the
    schema of the revision (the CLI's is the same client)."""
    from toolwire.testing import lint_servers

    monkeypatch.chdir(tmp_path)  # where the notes example opens its database
    checker = WireChecker(revision, strict_client=True)

    def tap(direction: str, data: bytes) -> None:
        (checker.client_sent if direction == "send" else checker.server_sent)(data)

    servers = [runpy.run_path(str(path))["mcp"] for path in example_servers()]
    findings = await lint_servers(*servers, protocol_version=revision, tap=tap)
    assert findings == []
    assert checker.checked > 2 * len(servers)


def test_the_examples_left_out_are_not_servers() -> None:
    for name in NOT_SERVERS:
        result = toolwire(str(EXAMPLES / name))
        assert result.returncode == 2 and "no toolwire server found" in result.stderr


# ------------------------------------------------------------------ the bad server


def test_each_planted_problem_is_reported_exactly_once() -> None:
    """lint_bad.py (a file) and lint_raw.py (--command: a server without an SDK) together, on
    the legacy revision where an outputSchema root must be an object."""
    code, document = report(str(BAD), "--command", RAW_COMMAND, "--protocol-version", LEGACY)
    assert code == 1
    expected = planted() | {("output-schema-type", "list_output")}
    assert pairs(document) == expected
    triples = Counter((f["rule"], f["name"], f["provider"]) for f in document["findings"])
    assert [triple for triple, count in triples.items() if count > 1] == []
    # each rule is planted (provider-reshaped is the --as-published test's)
    from toolwire.lint import RULES

    assert {rule for rule, _ in expected} == set(RULES) - {"provider-reshaped"}
    by_pair = {(f["rule"], f["name"]): f for f in document["findings"]}
    assert by_pair[("provider-schema", "recursive_tree")]["provider"] == "gemini"
    assert by_pair[("schema-invalid", "negative_length")]["path"] == (
        "inputSchema/properties/code/minLength"
    )
    assert by_pair[("param-description", "bare_prompt")]["kind"] == "prompt"
    assert "get_weather" in by_pair[("near-duplicate-name", "Get-Weather")]["message"]
    assert "130 tools" in by_pair[("too-many-tools", "")]["message"]
    dotted = {f["provider"] for f in document["findings"] if f["rule"] == "provider-tool-name"}
    assert dotted == {"openai", "anthropic"}  # Gemini takes dots in names


def test_json_has_a_stable_shape() -> None:
    code, document = report(str(BAD))
    assert code == 1
    keys = ["targets", "providers", "findings", "errors", "warnings", "schemaCheck"]
    assert list(document) == keys
    assert document["schemaCheck"] == "meta-schema"  # jsonschema is a test dependency
    assert document["targets"] == [
        {
            "target": str(BAD),
            "server": "lint-bad",
            "revision": "2026-07-28",
            "tools": len(runpy.run_path(str(BAD))["TOOLS"]),
            "prompts": 2,
        }
    ]
    assert document["providers"] == ["openai", "gemini", "anthropic"]
    keys = ["rule", "severity", "target", "server", "kind", "name", "path", "message", "provider"]
    for finding in document["findings"]:
        assert list(finding) == keys
        assert finding["severity"] in ("error", "warning")
        assert finding["message"] and "\n" not in finding["message"]
    severities = Counter(finding["severity"] for finding in document["findings"])
    assert (document["errors"], document["warnings"]) == (
        severities["error"],
        severities["warning"],
    )
    # the modern revision allows an array outputSchema: nothing about it there
    assert "output-schema-type" not in {rule for rule, _ in pairs(document)}


def test_the_table_names_each_finding_and_counts_them() -> None:
    result = toolwire(str(BAD))
    assert result.returncode == 1, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].startswith("lint-bad: 129 tools, 2 prompts checked")
    assert lines[2].split()[:3] == ["SEVERITY", "RULE", "WHERE"]
    for rule, name in planted():
        assert any(rule in line and name in line for line in lines), (rule, name)
    assert lines[-1] == "9 error(s), 5 warning(s)"


def test_exit_codes_warnings_pass_unless_strict(tmp_path: Path) -> None:
    warned = tmp_path / "warned.py"
    warned.write_text(
        "from toolwire import Server\n"
        "mcp = Server('warned')\n"
        "@mcp.tool()\n"
        "def echo(text: str) -> str:\n"
        "    return text\n",
        encoding="utf-8",
    )
    result = toolwire(str(warned))
    assert result.returncode == 0, result.stdout
    assert "tool-description" in result.stdout and "param-description" in result.stdout
    assert toolwire(str(warned), "--strict").returncode == 1


def test_providers_can_be_chosen() -> None:
    _, document = report(str(BAD), "--provider", "anthropic")
    assert document["providers"] == ["anthropic"]
    found = pairs(document)
    assert ("provider-schema", "recursive_tree") not in found  # Gemini's problem
    assert ("description-too-long", "long_winded") not in found  # OpenAI's limit
    assert ("too-many-tools", "") not in found
    assert {f["provider"] for f in document["findings"]} == {"", "anthropic"}
    _, both = report(str(BAD), "--provider", "gemini", "--provider", "openai")
    assert both["providers"] == ["gemini", "openai"]
    assert ("provider-schema", "recursive_tree") in pairs(both)


def test_as_published_warns_about_what_profiles_reshape() -> None:
    bmi = str(EXAMPLES / "bmi.py")
    code, document = report(bmi, "--as-published")
    assert code == 0
    assert {(f["rule"], f["provider"]) for f in document["findings"]} == {
        ("provider-reshaped", "openai"),
        ("provider-reshaped", "gemini"),
    }
    assert toolwire(bmi, "--as-published", "--strict").returncode == 1
    assert toolwire(bmi, "--as-published", "--provider", "anthropic", "--strict").returncode == 0


# ------------------------------------------------------------------ several targets


def test_near_duplicate_names_across_servers(tmp_path: Path) -> None:
    for stem, title, name in (("docs", "Docs", "search_docs"), ("wiki", "Wiki", "Search-Docs")):
        (tmp_path / f"{stem}.py").write_text(
            "from toolwire import Server\n"
            f"mcp = Server('{title}')\n"
            f"@mcp.tool(name='{name}')\n"
            "def search(query: str) -> str:\n"
            '    """Search the pages.\n\n    Args:\n        query: Words to look for.\n    """\n'
            "    return query\n",
            encoding="utf-8",
        )
    alone = toolwire("docs.py", "--strict", cwd=tmp_path)
    assert alone.returncode == 0, alone.stdout
    code, document = report(str(tmp_path / "docs.py"), str(tmp_path / "wiki.py"))
    assert code == 0  # a warning
    assert pairs(document) == {("near-duplicate-name", "Search-Docs")}
    finding = document["findings"][0]
    assert finding["server"] == "Wiki" and "'search_docs' of Docs" in finding["message"]
    table = toolwire("docs.py", "wiki.py", "--strict", cwd=tmp_path)
    assert table.returncode == 1
    assert "Wiki: tool Search-Docs" in table.stdout
    # the same name in two servers is reported too
    code, same = report(str(BAD), str(BAD))
    assert ("near-duplicate-name", "filler_000") in pairs(same)


# ------------------------------------------------------------------ URL and --command


def test_a_url_target_over_uvicorn_with_headers() -> None:
    server = runpy.run_path(str(BAD))["server"]
    with serve_http(server) as url:
        code, document = report(url, "--header", "X-Lint: yes")
    assert code == 1
    assert document["targets"][0]["target"] == url
    assert pairs(document) == planted()


def test_a_command_target() -> None:
    code, document = report("--command", f"{sys.executable} {BAD}")
    assert code == 1
    assert document["targets"][0]["server"] == "lint-bad"
    assert pairs(document) == planted()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ([], "give FILE[:OBJECT], a URL, or --command"),
        ([str(BAD), "--header", "A: b"], "--header is for a server given by its URL"),
        (["missing.py"], "missing.py"),
        (["http://127.0.0.1:9/mcp"], "toolwire: http://127.0.0.1:9/mcp: "),
        ([str(BAD), "--provider", "nobody"], "invalid choice: 'nobody'"),
    ],
)
def test_usage_and_connection_problems_exit_2(args: list[str], message: str) -> None:
    result = toolwire(*args)
    assert result.returncode == 2, result.stdout + result.stderr
    assert message in result.stderr
    assert "Traceback" not in result.stderr


# ------------------------------------------------------------------ the pytest helper


def test_assert_lint_clean_passes_on_an_example_and_lists_what_it_finds() -> None:
    from toolwire.testing import assert_lint_clean

    calculator = runpy.run_path(str(EXAMPLES / "calculator.py"))["mcp"]
    assert_lint_clean(calculator)
    assert_lint_clean(str(EXAMPLES / "weather.py"), providers=["openai"])  # over stdio
    bad = runpy.run_path(str(BAD))["server"]
    with pytest.raises(AssertionError) as failed:
        assert_lint_clean(bad)
    text = str(failed.value)
    for rule, name in planted():
        assert rule in text and name in text, (rule, name)
    with pytest.raises(AssertionError, match="tool-description"):
        assert_lint_clean(bad, providers=["anthropic"], allow_warnings=False)


async def test_assert_lint_clean_works_inside_an_async_test() -> None:
    from toolwire.testing import assert_lint_clean, lint_servers

    calculator = runpy.run_path(str(EXAMPLES / "calculator.py"))["mcp"]
    assert_lint_clean(calculator)
    findings = await lint_servers(runpy.run_path(str(BAD))["server"])
    assert {(f.rule, f.name) for f in findings} == planted()


def test_the_rules_table_of_the_docs_is_the_rules() -> None:
    from toolwire.cli.lint_command import rules_table

    page = (EXAMPLES.parent / "docs" / "testing.md").read_text(encoding="utf-8")
    assert rules_table() in page, "paste toolwire.cli.lint_command.rules_table() in the page"


def test_the_provider_choices_are_the_profiles() -> None:
    from toolwire.cli.lint_command import PROVIDERS
    from toolwire.providers import PROVIDERS as PROFILES

    assert PROVIDERS == PROFILES


def test_without_jsonschema_the_check_is_structural_and_says_so() -> None:
    """A base install has no jsonschema: the bad spot is still found, and a line on stderr
    names the extra that adds the meta-schema check."""
    code = (
        "import sys; sys.modules['jsonschema'] = None\n"
        "import importlib.util; find = importlib.util.find_spec\n"
        "importlib.util.find_spec = lambda n, *a: None if n == 'jsonschema' else find(n, *a)\n"
        "from toolwire.cli import main; sys.exit(main(sys.argv[1:]))"
    )
    command = [sys.executable, "-c", code, "lint", str(BAD), "--provider", "gemini"]
    result = subprocess.run(command, capture_output=True, text=True, timeout=TIMEOUT)
    assert result.returncode == 1, result.stderr
    assert "schema-invalid" not in result.stdout  # minLength -1 passes a structural check
    assert extra_install("jsonschema") in result.stderr
    json_result = subprocess.run(
        [*command, "--json"], capture_output=True, text=True, timeout=TIMEOUT
    )
    assert json.loads(json_result.stdout)["schemaCheck"] == "structural"
