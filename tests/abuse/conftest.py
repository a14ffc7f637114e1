"""Print the fault-and-abuse probes' figures at the end of the pytest output."""

from __future__ import annotations

from typing import Any

from .report import PROBES, table


def pytest_terminal_summary(terminalreporter: Any) -> None:
    if not PROBES:
        return
    terminalreporter.section("fault and abuse probes")
    for line in table():
        terminalreporter.write_line(line)
