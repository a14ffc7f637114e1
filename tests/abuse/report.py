"""What the fault-and-abuse probes measured, printed at the end of the pytest output.

Every probe attacks a real server (a stdio subprocess, uvicorn on 127.0.0.1, workers sharing
a real redis-server) and records one row: the server's resident memory before and after the
attack, what the attacking client saw, and how an ordinary client fared meanwhile.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

PROBES: list[Probe] = []


@dataclass
class Probe:
    name: str
    rss_before_mib: float | None  # the server's resident memory before the attack
    rss_after_mib: float | None  # ... and once it is over
    client_saw: str  # what the attacker (or the victim of a fault) was answered
    others: str = ""  # how an ordinary client was served meanwhile (latency, errors)

    def row(self) -> str:
        def mib(value: float | None) -> str:
            return "-" if value is None else f"{value:.1f}"

        return (
            f"| {self.name} | {mib(self.rss_before_mib)} | {mib(self.rss_after_mib)} "
            f"| {self.client_saw} | {self.others or '-'} |"
        )


def record(
    name: str,
    client_saw: str,
    *,
    rss_before_mib: float | None = None,
    rss_after_mib: float | None = None,
    others: str = "",
) -> None:
    """Keep one probe's figures for the summary table."""
    PROBES.append(Probe(name, rss_before_mib, rss_after_mib, client_saw, others))


def rss_mib(pid: int) -> float:
    """The resident memory of process ``pid`` in MiB (Linux ``/proc``)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise LookupError(f"no VmRSS for process {pid}")


def table() -> list[str]:
    lines = [
        "| probe | RSS before (MiB) | RSS after (MiB) | client saw | other clients meanwhile |",
        "|---|---|---|---|---|",
    ]
    lines.extend(probe.row() for probe in PROBES)
    return lines
