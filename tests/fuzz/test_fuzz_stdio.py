"""Property: whatever a client writes to a stdio server, it gets well-formed answers, exactly
the ones JSON-RPC calls for (tests/fuzz/oracle.py), and the server keeps answering.

One real server subprocess (tests/servers/fuzz_target.py) per revision serves a whole run:
a legacy session at 2025-11-25, one at 2025-03-26 (the revision with batches), and a
connection that never initializes and speaks 2026-07-28. Each Hypothesis example writes one
to four lines (tests/fuzz/strategies.py) and then a probe, a ``tools/call`` of ``add`` with an
id no generated case uses. The fuzz target's tools answer within one pass of the event loop,
so when the probe's answer arrives, every answer the case will ever get has arrived before
it: no sleeps. The probe's own result is checked too, so each case also shows that the
server still works. Every line the server writes is validated against the JSON Schema of the
revision the connection speaks (tests/mcp_spec.py). A case that contains an ``initialize``
may switch the session's revision: the harness initializes again afterwards.

Memory: the server's RSS after the run may exceed its RSS at the start by less than
``RSS_GROWTH_BOUND``.
"""

from __future__ import annotations

import contextlib
import os
import select
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import given

from . import oracle
from .harness import (
    ANSWER_TIMEOUT,
    FuzzRun,
    check_run,
    fuzz_settings,
    rss_bytes,
    start_run,
    stop_after_hangs,
    timeout_for,
)
from .lines import stdio_cases
from .strategies import MODERN, SENTINEL
from mcp_spec import PROTOCOL_VERSION_META, SpecViolation, WireChecker
from wire import SERVERS, modern_meta

LIMIT = 64 * 1024  # max_message_bytes of the target: small, so oversized lines are cheap
BATCHES = "2025-03-26"
LATEST_LEGACY = "2025-11-25"


def legacy_ping(value: Any) -> bool:
    """A ``ping`` that does not claim 2026-07-28 in its ``_meta``: legacy traffic, which a
    connection that never initialized still answers (PI-01), so a legacy schema judges it."""
    if not (
        isinstance(value, dict)
        and value.get("method") == "ping"
        and oracle.valid_id(value.get("id"))
    ):
        return False
    params = value.get("params")
    meta = params.get("_meta") if isinstance(params, dict) else None
    return not (isinstance(meta, dict) and meta.get(PROTOCOL_VERSION_META) is not None)


class Side:
    """Which checker judges a message of a case.

    The session's checker, as a rule. Answers to legacy pings in a 2026-07-28 case: a legacy
    checker. Messages with an id that two requests of the case share (JR-05 forbids it, so
    their answers cannot be told apart): a checker that knows no request of the case, so it
    judges them as JSON-RPC responses of the revision, not as the result of one method; or
    none, if one of those requests is a legacy ping in a 2026-07-28 case (which revision
    would judge the answers?); the oracle still checks their shape."""

    def __init__(self, main: WireChecker, values: list[Any], modern: bool = False) -> None:
        self.main = main
        self.legacy = WireChecker(LATEST_LEGACY)
        self.shared = oracle.shared_ids(values)
        self.pings = [v["id"] for v in values if modern and legacy_ping(v)]
        mixed = any(oracle.same_id(p, s) for p in self.pings for s in self.shared)
        self.blind = None if mixed else WireChecker(main.revision)

    def checker_for(self, message: Any) -> WireChecker | None:
        if not self.pings and not self.shared:
            return self.main
        members = message if isinstance(message, list) else [message]
        ids = [m.get("id", oracle.ABSENT) for m in members if isinstance(m, dict)]
        if any(oracle.same_id(i, s) for i in ids for s in self.shared):
            return self.blind
        if isinstance(message, dict) and any(oracle.same_id(ids[0], p) for p in self.pings):
            return self.legacy
        return self.main


class ServerGone(AssertionError):
    """The server died or stopped answering."""


class StdioTarget:
    """The fuzz target as a real subprocess, written to and read from line by line."""

    def __init__(self, revision: str | None, log: Path) -> None:
        self.revision = revision  # None: never initialized, every request is 2026-07-28
        self.log = log
        self.buffer = bytearray()
        self.probes = 0
        self.broken = True
        self.process: subprocess.Popen[bytes] | None = None
        self.handshake: tuple[dict[str, Any], bytes] | None = None
        try:
            self.ensure_running()
        except BaseException:
            self.stop()  # a server that started but could not be set up is not left behind
            raise

    # ------------------------------------------------------------ process

    def ensure_running(self) -> None:
        """(Re)start the server after a failed case, so each example starts from a sane one."""
        if not self.broken:
            return
        self.stop()
        with self.log.open("ab") as log:
            self.process = subprocess.Popen(
                [sys.executable, str(SERVERS / "fuzz_target.py"), "--max-bytes", str(LIMIT)],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=log,
            )
        assert self.process.stdin is not None
        os.set_blocking(self.process.stdin.fileno(), False)
        self.buffer.clear()
        self.broken = False
        if self.revision is not None:
            self.initialize()

    def stop(self) -> int | None:
        """Close the server's input and wait for it to exit; its exit code."""
        process, self.process = self.process, None
        if process is None:
            return None
        assert process.stdin is not None and process.stdout is not None
        with contextlib.suppress(BrokenPipeError):
            process.stdin.close()
        try:
            code = process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            code = process.wait()
        process.stdout.close()
        return code

    def rss(self) -> int:
        assert self.process is not None
        return rss_bytes(self.process.pid)

    def stderr_tail(self) -> str:
        return self.log.read_bytes()[-2000:].decode("utf-8", "replace")

    # ------------------------------------------------------------ bytes

    def write(self, data: bytes) -> None:
        assert self.process is not None and self.process.stdin is not None
        fd = self.process.stdin.fileno()
        view = memoryview(data)
        deadline = time.monotonic() + ANSWER_TIMEOUT
        while view:
            if not select.select([], [fd], [], max(0.0, deadline - time.monotonic()))[1]:
                self.broken = True
                raise ServerGone(f"the server stopped reading its input\n{self.stderr_tail()}")
            try:
                view = view[os.write(fd, view) :]
            except BrokenPipeError:
                self.broken = True
                raise ServerGone(f"the server closed its input\n{self.stderr_tail()}") from None

    def read_line(self) -> bytes:
        assert self.process is not None and self.process.stdout is not None
        fd = self.process.stdout.fileno()
        deadline = time.monotonic() + ANSWER_TIMEOUT
        while (end := self.buffer.find(b"\n")) < 0:
            if not select.select([fd], [], [], max(0.0, deadline - time.monotonic()))[0]:
                self.broken = True
                raise ServerGone(f"no answer within {ANSWER_TIMEOUT} s\n{self.stderr_tail()}")
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                self.broken = True
                raise ServerGone(f"the server closed its output\n{self.stderr_tail()}")
            self.buffer += chunk
        line = bytes(self.buffer[:end])
        del self.buffer[: end + 1]
        return line

    # ------------------------------------------------------------ protocol

    def initialize(self) -> None:
        """The handshake of the session's revision (again, after a case re-initialized)."""
        request = {
            "jsonrpc": "2.0",
            "id": f"{SENTINEL}init",
            "method": "initialize",
            "params": {
                "protocolVersion": self.revision,
                "capabilities": {},
                "clientInfo": {"name": "fuzz", "version": "0"},
            },
        }
        initialized = {"jsonrpc": "2.0", "method": "notifications/initialized"}
        self.write(orjson.dumps(request) + b"\n" + orjson.dumps(initialized) + b"\n")
        line = self.read_line()
        assert orjson.loads(line)["result"]["protocolVersion"] == self.revision, line
        self.handshake = (request, line)

    def checker(self) -> WireChecker:
        """A checker for the session as it stands; a re-initialize in a case moves it along."""
        if self.revision is None:
            return WireChecker(MODERN)
        checker = WireChecker()
        assert self.handshake is not None
        request, answer = self.handshake
        checker.client_sent(request)
        checker.server_sent(answer)
        return checker

    def probe(self) -> dict[str, Any]:
        self.probes += 1
        params: dict[str, Any] = {"name": "add", "arguments": {"a": self.probes, "b": 1}}
        if self.revision is None:
            params["_meta"] = modern_meta()
        return {
            "jsonrpc": "2.0",
            "id": f"{SENTINEL}{self.probes}",
            "method": "tools/call",
            "params": params,
        }

    def check_probe(self, probe: dict[str, Any], answer: Any) -> None:
        expected = str(probe["params"]["arguments"]["a"] + 1)
        result = answer.get("result") if isinstance(answer, dict) else None
        assert result is not None and result["content"][0]["text"] == expected, (
            f"the probe {probe} got {answer}"
        )

    def roundtrip(self, data: bytes, run: FuzzRun, side: Side) -> list[Any]:
        """Write ``data`` and a probe; the answers that came before the probe's, each one
        validated by the checker ``side`` picks for it."""
        probe = self.probe()
        side.main.client_sent(probe)
        self.write(data + orjson.dumps(probe) + b"\n")
        got = []
        while True:
            line = self.read_line()
            ok, message = oracle.decode(line)
            assert ok, f"the server wrote a line that is not JSON: {line[:300]!r}"
            owner = side.checker_for(message)
            if owner is not None:
                owner.server_sent(line)
            if isinstance(message, dict) and "method" in message:
                assert "id" not in message, f"the server sent a request: {line!r}"
                continue  # a notification (already validated by the checker)
            problems = oracle.shape_problems(message)
            assert not problems, f"malformed answer {line[:300]!r}: {problems}"
            run.answers += 1
            if isinstance(message, dict) and message.get("id") == probe["id"]:
                self.check_probe(probe, message)
                return got
            got.append(message)

    def run_case(self, run: FuzzRun, lines: list[bytes]) -> None:
        data = b"\n".join(lines) + b"\n"
        physical = data.split(b"\n")[:-1]
        decoded = [
            value
            for line in physical
            if len(line) <= LIMIT
            for ok, value in [oracle.decode(line)]
            if ok
        ]
        batches = self.revision == BATCHES
        reinitializes = any(
            isinstance(value, dict) and value.get("method") == "initialize" for value in decoded
        )
        # a re-initialize in the case may change whether batches are allowed after it
        options = [batches, not batches] if reinitializes else [batches]
        alternatives = [
            [e for line in physical for e in oracle.expected_for_line(line, limit=LIMIT, batches=b)]
            for b in options
        ]
        for expected in alternatives:
            oracle.mark_cancellable(expected, oracle.cancelled_ids(decoded))
        side = Side(self.checker(), decoded, modern=self.revision is None)
        for line in physical:
            if line.strip() and len(line) <= LIMIT:
                ok, value = oracle.decode(line)
                owner = side.checker_for(value) if ok else side.main
                if owner is side.main or owner is side.legacy:  # noted, not raised if garbage
                    owner.client_sent(
                        oracle.as_sent(value) if isinstance(value, (dict, list)) else line
                    )
        run.messages += len(physical) + 1
        try:
            got = self.roundtrip(data, run, side)
            if any(oracle.waits_on_cancelled(expected) for expected in alternatives):
                got += self.roundtrip(b"", run, side)  # one more probe: the batch answered
            verdicts = [oracle.match(expected, got) for expected in alternatives]
            problems = min(verdicts, key=len)
            assert not problems, f"{problems}\nanswers: {got}"
            if reinitializes:
                self.initialize()
        except ServerGone:
            raise
        except (AssertionError, SpecViolation) as exc:
            self.broken = True  # unread answers may be left: start over for the next example
            raise AssertionError(f"{exc}\ncase: {data[:2000]!r}") from None


ENTRIES = ["2025-11-25", BATCHES, MODERN]


@pytest.mark.parametrize(
    "revision",
    [
        pytest.param(rev, marks=pytest.mark.timeout(timeout_for(f"stdio {rev}")), id=rev)
        for rev in ENTRIES
    ],
)
def test_fuzz_stdio(revision: str, tmp_path: Path) -> None:
    run = start_run(f"stdio {revision}")
    target = StdioTarget(None if revision == MODERN else revision, tmp_path / "server.log")
    era = "modern" if revision == MODERN else "legacy"
    try:
        target.roundtrip(b"", run, Side(target.checker(), []))  # warm up before measuring
        run.rss_start = target.rss()

        @fuzz_settings(run.entry)
        @given(stdio_cases(era, LIMIT, batch_weight=4 if revision == BATCHES else 1))
        def fuzz(lines: list[bytes]) -> None:
            if run.timed_out():
                run.out_of_time += 1
                return
            stop_after_hangs(run)
            target.ensure_running()
            run.count(b"\n".join(lines))
            try:
                target.run_case(run, lines)
            except ServerGone as gone:
                if "no answer" in str(gone):
                    run.hangs += 1
                else:
                    run.crashes += 1
                raise

        fuzz()
        target.roundtrip(b"", run, Side(target.checker(), []))  # still answering at the end
        run.rss_end = target.rss()
        assert target.stop() == 0, target.stderr_tail()  # a clean exit when stdin closes
    finally:
        target.stop()
        run.finish()
    check_run(run)
