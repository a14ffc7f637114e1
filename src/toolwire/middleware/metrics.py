"""Counts, errors and durations per tool, kept in memory, without OpenTelemetry."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import Any

from ..errors import RPCError

JSON = dict[str, Any]
BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0)
OTHER = "_other"  # where calls go once ``max_tools`` names are tracked


class _Stats:
    __slots__ = ("buckets", "calls", "cancelled", "count", "errors", "failures", "max", "sum")

    def __init__(self, bounds: int) -> None:
        self.calls = 0
        self.errors = 0  # isError results (the tool said something went wrong)
        self.failures = 0  # JSON-RPC errors (unknown tool, invalid params, internal)
        self.cancelled = 0
        self.count = 0  # calls that ended (and were timed)
        self.sum = 0.0
        self.max = 0.0
        self.buckets = [0] * bounds


class Metrics:
    """A middleware that counts ``tools/call`` requests per tool: calls, ``isError``
    results (``errors``), JSON-RPC errors (``failures``), cancellations, and durations
    (sum, max, histogram). Read it from the app: :meth:`snapshot` (a dict) or
    :meth:`prometheus` (the Prometheus text format, to serve on a ``/metrics`` route).

    For OpenTelemetry metrics and spans use :mod:`toolwire.telemetry` instead; this one
    needs no dependency. ``methods=True`` counts every other request too, by method. At most
    ``max_tools`` names are kept apart (calls to unknown names cannot grow it without
    bound); the rest are counted under ``"_other"``.
    """

    def __init__(
        self,
        *,
        buckets: tuple[float, ...] = BUCKETS,
        methods: bool = False,
        max_tools: int = 1_000,
    ) -> None:
        self.bounds = tuple(sorted(buckets))
        self.methods = methods
        self.max_tools = max_tools
        self.tools: dict[str, _Stats] = {}
        self.other_methods: dict[str, _Stats] = {}
        self.in_flight = 0

    def _stats(self, table: dict[str, _Stats], name: str) -> _Stats:
        stats = table.get(name)
        if stats is None:
            if len(table) >= self.max_tools:
                name = OTHER
                stats = table.get(name)
            if stats is None:
                stats = table[name] = _Stats(len(self.bounds))
        return stats

    async def __call__(self, call: Any, call_next: Callable[[Any], Awaitable[JSON]]) -> JSON:
        name = call.tool_name
        if name is not None:
            table = self.tools
        elif self.methods:
            table, name = self.other_methods, call.method
        else:
            return await call_next(call)
        stats = self._stats(table, name)
        stats.calls += 1
        self.in_flight += 1
        started = time.perf_counter()
        try:
            result = await call_next(call)
        except RPCError:
            stats.failures += 1
            raise
        except asyncio.CancelledError:
            stats.cancelled += 1
            raise
        except Exception:
            stats.failures += 1
            raise
        finally:
            self.in_flight -= 1
            elapsed = time.perf_counter() - started
            stats.count += 1
            stats.sum += elapsed
            stats.max = max(stats.max, elapsed)
            for index, bound in enumerate(self.bounds):
                if elapsed <= bound:
                    stats.buckets[index] += 1
                    break
        if isinstance(result, dict) and result.get("isError"):
            stats.errors += 1
        return result

    def snapshot(self) -> JSON:
        """``{"in_flight": n, "tools": {name: {"calls", "errors", "failures", "cancelled",
        "duration": {"count", "sum", "max", "buckets": {bound: cumulative count}}}}, "methods":
        {...}}`` (seconds)."""

        def one(stats: _Stats) -> JSON:
            cumulative, running = {}, 0
            for bound, count in zip(self.bounds, stats.buckets, strict=True):
                running += count
                cumulative[str(bound)] = running
            cumulative["+Inf"] = stats.count
            return {
                "calls": stats.calls,
                "errors": stats.errors,
                "failures": stats.failures,
                "cancelled": stats.cancelled,
                "duration": {
                    "count": stats.count,
                    "sum": stats.sum,
                    "max": stats.max,
                    "buckets": cumulative,
                },
            }

        return {
            "in_flight": self.in_flight,
            "tools": {name: one(stats) for name, stats in self.tools.items()},
            "methods": {name: one(stats) for name, stats in self.other_methods.items()},
        }

    def prometheus(self, prefix: str = "toolwire") -> str:
        """The metrics in the Prometheus text exposition format (version 0.0.4)."""
        lines = [
            f"# HELP {prefix}_tool_calls_in_flight tools/call requests being handled.",
            f"# TYPE {prefix}_tool_calls_in_flight gauge",
            f"{prefix}_tool_calls_in_flight {self.in_flight}",
        ]
        for kind, label, table in (
            ("tool", "tool", self.tools),
            ("request", "method", self.other_methods),
        ):
            if not table:
                continue
            base = f"{prefix}_{kind}"
            lines += [
                f"# HELP {base}_calls_total Requests handled.",
                f"# TYPE {base}_calls_total counter",
            ]
            lines += [f"{base}_calls_total{_labels(label, n)} {s.calls}" for n, s in table.items()]
            lines += [
                f"# HELP {base}_errors_total Failed requests: kind=result (isError), "
                "protocol (JSON-RPC error), cancelled.",
                f"# TYPE {base}_errors_total counter",
            ]
            for n, s in table.items():
                for what, count in (
                    ("result", s.errors),
                    ("protocol", s.failures),
                    ("cancelled", s.cancelled),
                ):
                    lines.append(f"{base}_errors_total{_labels(label, n, kind=what)} {count}")
            lines += [
                f"# HELP {base}_duration_seconds Time to handle a request.",
                f"# TYPE {base}_duration_seconds histogram",
            ]
            for n, s in table.items():
                running = 0
                for bound, count in zip(self.bounds, s.buckets, strict=True):
                    running += count
                    lines.append(
                        f"{base}_duration_seconds_bucket{_labels(label, n, le=repr(bound))} "
                        f"{running}"
                    )
                lines.append(
                    f"{base}_duration_seconds_bucket{_labels(label, n, le='+Inf')} {s.count}"
                )
                lines.append(f"{base}_duration_seconds_sum{_labels(label, n)} {s.sum!r}")
                lines.append(f"{base}_duration_seconds_count{_labels(label, n)} {s.count}")
        return "\n".join(lines) + "\n"

    def reset(self) -> None:
        """Forget every count (the in-flight gauge stays)."""
        self.tools.clear()
        self.other_methods.clear()


def _escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace("\n", "\\n").replace('"', '\\"')


def _labels(label: str, name: str, **more: str) -> str:
    pairs = [(label, name), *more.items()]
    return "{" + ",".join(f'{key}="{_escape(value)}"' for key, value in pairs) + "}"
