"""How many cases each fuzz test runs, in how much time, and what the run reports.

``TOOLWIRE_FUZZ_CASES`` (default 500) is the total number of cases over all the fuzz tests,
shared out by :data:`SHARES`; ``TOOLWIRE_FUZZ_SECONDS`` (default 120) is the time box for
all of them together, shared out the same way. A test that runs out of time stops sending
cases and fails, since it ran fewer than asked. Each test has a seed of its own, so a run is
reproducible; ``TOOLWIRE_FUZZ_SEED`` (an integer) changes them all for a different sequence.

Every run is recorded in :data:`RUNS`; ``tests/fuzz/conftest.py`` prints them at the end of
the pytest output.
"""

from __future__ import annotations

import hashlib
import os
import time
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, Phase, seed, settings

SHARES = {
    "stdio 2025-11-25": 0.2,
    "stdio 2025-03-26": 0.2,
    "stdio 2026-07-28": 0.2,
    "http legacy": 0.2,
    "http 2026-07-28": 0.2,
}
TOTAL_CASES = int(os.environ.get("TOOLWIRE_FUZZ_CASES", "500"))
TOTAL_SECONDS = float(os.environ.get("TOOLWIRE_FUZZ_SECONDS", "120"))
RSS_GROWTH_BOUND = 50 * 1024 * 1024  # bytes the server may grow by over a whole run
ANSWER_TIMEOUT = 10.0  # seconds without an expected answer: a hang
MAX_HANGS = 2


def cases_for(entry: str) -> int:
    return max(20, round(TOTAL_CASES * SHARES[entry]))


def seconds_for(entry: str) -> float:
    return TOTAL_SECONDS * SHARES[entry]


def timeout_for(entry: str) -> float:
    """pytest-timeout for one fuzz test: its time box plus room for start-up and a report."""
    return seconds_for(entry) + 60.0


@dataclass
class FuzzRun:
    """What one fuzz test did."""

    entry: str
    requested: int
    seconds: float
    cases: int = 0
    messages: int = 0  # lines (stdio) or requests (HTTP) sent, probes included
    answers: int = 0  # responses checked
    crashes: int = 0
    hangs: int = 0
    out_of_time: int = 0  # cases not sent because the time box ran out
    rss_start: int = 0
    rss_end: int = 0
    elapsed: float = 0.0
    _distinct: set[bytes] = field(default_factory=set)
    _started: float = field(default_factory=time.monotonic)

    @property
    def distinct(self) -> int:
        return len(self._distinct)

    def timed_out(self) -> bool:
        return time.monotonic() - self._started > self.seconds

    def count(self, case: bytes) -> None:
        self.cases += 1
        self._distinct.add(hashlib.blake2b(case, digest_size=16).digest())

    def finish(self) -> None:
        if not self.elapsed:
            self.elapsed = time.monotonic() - self._started

    def summary(self) -> str:
        growth = (self.rss_end - self.rss_start) / 1024 / 1024
        return (
            f"fuzz {self.entry}: {self.cases} cases ({self.distinct} distinct, "
            f"{self.messages} messages, {self.answers} answers checked) in {self.elapsed:.1f} s; "
            f"crashes {self.crashes}, hangs {self.hangs}; server RSS "
            f"{self.rss_start / 1024 / 1024:.1f} -> {self.rss_end / 1024 / 1024:.1f} MB "
            f"({growth:+.1f} MB)"
        )


RUNS: list[FuzzRun] = []


def start_run(entry: str) -> FuzzRun:
    run = FuzzRun(entry, cases_for(entry), seconds_for(entry))
    RUNS.append(run)
    return run


def fuzz_settings(entry: str) -> Callable[[Any], Any]:
    """Hypothesis settings for one fuzz test: its number of cases, no deadline, no example
    database, and a seed of its own (the same on every run unless ``TOOLWIRE_FUZZ_SEED``)."""
    configured = settings(
        max_examples=cases_for(entry),
        deadline=None,
        database=None,
        suppress_health_check=list(HealthCheck),
        phases=(Phase.explicit, Phase.generate, Phase.shrink),
        print_blob=False,
    )
    chosen = zlib.crc32(entry.encode()) ^ int(os.environ.get("TOOLWIRE_FUZZ_SEED", "0"))
    return lambda test: seed(chosen)(configured(test))


def stop_after_hangs(run: FuzzRun) -> None:
    """Each hang costs ``ANSWER_TIMEOUT``; once Hypothesis has seen a few, it gets to shrink the
    failure it found (reported first) without waiting on the server any more."""
    if run.hangs >= MAX_HANGS:
        raise AssertionError(f"{run.entry}: not sent, after {run.hangs} hangs (see above)")


def rss_bytes(pid: int) -> int:
    """Resident set size of process ``pid`` (Linux)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise RuntimeError(f"no VmRSS for process {pid}")


def check_run(run: FuzzRun) -> None:
    """What every fuzz test asserts once its cases ran."""
    assert run.crashes == 0 and run.hangs == 0, run.summary()
    assert run.cases >= run.requested, (
        f"{run.entry}: only {run.cases} of {run.requested} cases ran; the time box of "
        f"{run.seconds:.0f} s ran out ({run.out_of_time} cases not sent)"
    )
    growth = run.rss_end - run.rss_start
    assert growth < RSS_GROWTH_BOUND, (
        f"server memory grew by {growth / 1024 / 1024:.1f} MB: {run.summary()}"
    )
