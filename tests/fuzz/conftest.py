"""Print what the fuzz tests ran at the end of the pytest output, whatever the verbosity."""

from __future__ import annotations

from typing import Any

from .harness import RUNS


def pytest_terminal_summary(terminalreporter: Any) -> None:
    if not RUNS:
        return
    terminalreporter.section("fuzz")
    for run in RUNS:
        terminalreporter.write_line(run.summary())
    cases = sum(run.cases for run in RUNS)
    distinct = sum(run.distinct for run in RUNS)
    crashes = sum(run.crashes for run in RUNS)
    hangs = sum(run.hangs for run in RUNS)
    seconds = sum(run.elapsed for run in RUNS)
    terminalreporter.write_line(
        f"fuzz total: {cases} cases ({distinct} distinct) on {len(RUNS)} entry points "
        f"in {seconds:.1f} s; crashes {crashes}, hangs {hangs}"
    )
