"""Property: whatever a client sends to the Streamable HTTP endpoint, the answer has a status
the transport rules allow (tests/fuzz/http_cases.py), never a 5xx, never a hang; a JSON body
is well-formed JSON-RPC holding the answers JSON-RPC calls for (tests/fuzz/oracle.py); and the
server still serves a real call afterwards.

One real server process (tests/servers/fuzz_target.py --http: uvicorn on 127.0.0.1 serving
``mcp.http_app()``) serves both runs: legacy cases, which mostly name one of two live sessions
(2025-11-25, and 2025-03-26, the revision with batches), and 2026-07-28 cases, stateless
POSTs with their headers mirrored from the body. After each case a probe, a ``tools/call``
of ``add`` in a session no case can name (legacy) or as a stateless POST (modern), must
return the right sum. Every request has a timeout. Every message the server sends (JSON
bodies, SSE events) is validated against the JSON Schema of the revision the request speaks.

Memory: the server's RSS after a run may exceed its RSS at the start by less than
``RSS_GROWTH_BOUND``.
"""

from __future__ import annotations

import select
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
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
from .http_cases import BOTH, SESSIONS, HttpCase, claims_modern, expected, http_cases
from .strategies import MODERN, SENTINEL
from mcp_spec import SpecViolation, WireChecker
from wire import SERVERS, modern_meta

LIMIT = 256 * 1024  # max_body_bytes of the target: small, so oversized bodies are cheap
LATEST_LEGACY = "2025-11-25"
UNKNOWN_SESSION = "no-such-session"


class ServerGone(AssertionError):
    """The server died or stopped answering."""


class HttpTarget:
    """The fuzz target as a real uvicorn process, and the sessions the cases use."""

    def __init__(self, log: Path) -> None:
        self.log = log
        self.process: subprocess.Popen[bytes] | None = None
        self.client = httpx.Client(timeout=ANSWER_TIMEOUT)
        self.url = ""
        self.sessions: dict[str, str] = {}  # revision -> session id the cases may name
        self.probe_session = ""  # a session no case can name
        self.probes = 0
        self.broken = True
        try:
            self.ensure_running()
        except BaseException:
            self.stop()  # a server that started but could not be set up is not left behind
            self.client.close()
            raise

    # ------------------------------------------------------------ process

    def ensure_running(self) -> None:
        if not self.broken:
            return
        self.stop()
        with self.log.open("ab") as log:
            self.process = subprocess.Popen(
                [
                    sys.executable,
                    str(SERVERS / "fuzz_target.py"),
                    "--http",
                    "--max-body",
                    str(LIMIT),
                ],
                stdin=subprocess.PIPE,  # the server exits when it closes: when this process ends
                stdout=subprocess.PIPE,
                stderr=log,
            )
        assert self.process.stdout is not None
        ready = select.select([self.process.stdout], [], [], 30.0)[0]
        line = self.process.stdout.readline() if ready else b""
        assert line.startswith(b"port "), (
            f"the server did not start: {line!r}\n{self.stderr_tail()}"
        )
        self.url = f"http://127.0.0.1:{int(line.split()[1])}/mcp"
        self.broken = False
        self.sessions = {revision: self.open_session(revision) for revision in SESSIONS}
        self.probe_session = self.open_session(LATEST_LEGACY)

    def stop(self) -> None:
        process, self.process = self.process, None
        if process is None:
            return
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        for pipe in (process.stdin, process.stdout):
            if pipe is not None:
                pipe.close()

    def rss(self) -> int:
        assert self.process is not None
        return rss_bytes(self.process.pid)

    def stderr_tail(self) -> str:
        return self.log.read_bytes()[-2000:].decode("utf-8", "replace")

    # ------------------------------------------------------------ well-behaved requests

    def post(self, message: dict[str, Any], headers: dict[str, str]) -> httpx.Response:
        headers = {"Content-Type": "application/json", "Accept": BOTH, **headers}
        return self.client.post(self.url, content=orjson.dumps(message), headers=headers)

    def open_session(self, revision: str) -> str:
        checker = WireChecker(revision)
        request = {
            "jsonrpc": "2.0",
            "id": f"{SENTINEL}init",
            "method": "initialize",
            "params": {
                "protocolVersion": revision,
                "capabilities": {},
                "clientInfo": {"name": "fuzz", "version": "0"},
            },
        }
        checker.client_sent(request)
        response = self.post(request, {})
        checker.server_sent(response.content)
        assert response.status_code == 200, response.text
        session = response.headers["mcp-session-id"]
        note = {"jsonrpc": "2.0", "method": "notifications/initialized"}
        headers = {"Mcp-Session-Id": session, "MCP-Protocol-Version": revision}
        assert self.post(note, headers).status_code == 202
        return session

    def probe(self, modern: bool) -> None:
        """A real call: the server still serves one, with the right answer."""
        self.probes += 1
        params: dict[str, Any] = {"name": "add", "arguments": {"a": self.probes, "b": 1}}
        headers = {"MCP-Protocol-Version": LATEST_LEGACY, "Mcp-Session-Id": self.probe_session}
        if modern:
            params["_meta"] = modern_meta()
            headers = {
                "MCP-Protocol-Version": MODERN,
                "Mcp-Method": "tools/call",
                "Mcp-Name": "add",
            }
        request = {"jsonrpc": "2.0", "id": f"{SENTINEL}{self.probes}", "method": "tools/call"}
        request["params"] = params
        checker = WireChecker(MODERN if modern else LATEST_LEGACY)
        checker.client_sent(request)
        response = self.post(request, headers)
        checker.server_sent(response.content)
        result = response.json().get("result") if response.status_code == 200 else None
        assert result is not None, f"the probe got HTTP {response.status_code}: {response.text}"
        assert result["content"][0]["text"] == str(self.probes + 1), result

    # ------------------------------------------------------------ fuzz cases

    def session_id(self, case: HttpCase) -> str | None:
        if case.session in self.sessions:
            return self.sessions[case.session]
        return UNKNOWN_SESSION if case.session == "unknown" else None

    def send(self, case: HttpCase) -> tuple[int, str, bytes, list[bytes]]:
        """Send ``case``; (status, content type, body, SSE data payloads)."""
        headers = dict(case.headers)
        session = self.session_id(case)
        if session is not None:
            headers["Mcp-Session-Id"] = session
        url = self.url.removesuffix("/mcp") + case.path
        with self.client.stream(case.verb, url, headers=headers, content=case.body) as response:
            kind = response.headers.get("content-type", "")
            if not kind.startswith("text/event-stream"):
                return response.status_code, kind, response.read(), []
            if case.verb == "GET":  # the session's stream: it stays open, by design
                return response.status_code, kind, b"", []
            return response.status_code, kind, b"", list(_sse_data(response.iter_lines()))

    def run_case(self, run: FuzzRun, case: HttpCase) -> None:
        run.messages += 2
        try:
            status, kind, body, events = self.send(case)
        except httpx.TimeoutException:
            self.broken = True
            raise ServerGone(f"no answer within {ANSWER_TIMEOUT} s\n{self.stderr_tail()}") from None
        except httpx.TransportError as exc:
            self.broken = True
            raise ServerGone(f"{exc!r}\n{self.stderr_tail()}") from None
        try:
            check_answer(case, status, kind, body, events, self.checker(case), run)
            if case.verb == "DELETE" and status == 200 and case.session in self.sessions:
                self.sessions[case.session] = self.open_session(case.session)
            self.probe(modern=run.cases % 2 == 0)
        except (AssertionError, SpecViolation, httpx.HTTPError) as exc:
            if self.process is None or self.process.poll() is not None:
                self.broken = True
                raise ServerGone(f"the server died\n{self.stderr_tail()}") from None
            raise AssertionError(f"{exc}\ncase: {_short_case(case)}") from None

    def checker(self, case: HttpCase) -> WireChecker | None:
        """The checker for the revision ``case`` speaks (None: an initialize, learned from
        its answer)."""
        ok, value = oracle.decode(case.body)
        if ok and claims_modern(case, value):
            return WireChecker(MODERN)
        if ok and isinstance(value, dict) and value.get("method") == "initialize":
            return None
        return WireChecker(case.session if case.session in SESSIONS else LATEST_LEGACY)


def _sse_data(lines: Iterator[str]) -> Iterator[bytes]:
    """The ``data`` of each SSE event until a JSON-RPC response (which ends the request)."""
    data: list[str] = []
    for line in lines:
        if line:
            if line.startswith("data:"):
                data.append(line[5:].removeprefix(" "))
            continue
        payload = "\n".join(data).encode()
        data = []
        if not payload.strip():
            continue  # a priming event (HT-11)
        yield payload
        ok, message = oracle.decode(payload)
        if ok and isinstance(message, dict) and ("result" in message or "error" in message):
            return


def _short_case(case: HttpCase) -> str:
    return f"{case.verb} {case.path} {dict(case.headers)} session={case.session} body={case.body[:1500]!r}"


def check_answer(
    case: HttpCase,
    status: int,
    kind: str,
    body: bytes,
    events: list[bytes],
    checker: WireChecker | None,
    run: FuzzRun,
) -> None:
    """The answer to ``case`` against what the transport and JSON-RPC rules allow."""
    expectation = expected(case, LIMIT)
    assert status < 500, f"HTTP {status}: {body[:500]!r}"
    assert status in expectation.statuses, (
        f"HTTP {status}, expected one of {sorted(expectation.statuses)}"
    )
    is_json = kind.startswith("application/json")
    messages = events if kind.startswith("text/event-stream") else [body] if is_json else []
    decoded = []
    for data in messages:
        ok, message = oracle.decode(data)
        assert ok, f"a body that is not JSON: {data[:300]!r}"
        problems = oracle.shape_problems(message) if "method" not in message else []
        assert not problems, f"malformed answer {data[:300]!r}: {problems}"
        decoded.append(message)
        run.answers += 1
    validate(case, messages, checker)
    if expectation.parse_error:
        assert is_json and len(decoded) == 1, "a parse error is answered with a JSON-RPC error"
        assert oracle.Answer(None, code=oracle.PARSE_ERROR).accepts(decoded[0]), decoded
    if expectation.answers is None or status not in (200, 202, 400, 404):
        return
    check_jsonrpc(case, status, expectation.answers, [m for m in decoded if "method" not in m])


def validate(case: HttpCase, messages: list[bytes], checker: WireChecker | None) -> None:
    """Every message the server sent, against the schema of the request's revision."""
    ok, value = oracle.decode(case.body)
    learning = checker or WireChecker()
    # answers to requests that share an id cannot be told apart: judged as plain responses
    if ok and isinstance(value, (dict, list)) and not oracle.shared_ids([value]):
        learning.client_sent(oracle.as_sent(value))
    for data in messages:
        learning.server_sent(data)
    if checker is None and learning.revision is None:  # an initialize that got an error
        fallback = WireChecker(LATEST_LEGACY)
        for data in messages:
            fallback.server_sent(data)


def check_jsonrpc(case: HttpCase, status: int, answers: list[Any], got: list[Any]) -> None:
    """A POST the transport let through: its JSON-RPC answers, or a rejection of it as a whole."""
    if status == 202:
        assert not got, f"202 with a body: {got}"
        assert not oracle.needs_answer(answers), (
            f"202 for a message that needs an answer: {answers}"
        )
        return
    assert len(got) == 1, f"HTTP {status} with {len(got)} answers: {got}"
    answer = got[0]
    rejected = isinstance(answer, dict) and "error" in answer and "id" not in answer
    if status != 200:  # a rejection (of the message or of the request as a whole)
        assert isinstance(answer, dict) and "error" in answer, f"HTTP {status} with {answer}"
        mid = answer.get("id", oracle.ABSENT)
        if rejected or any(
            isinstance(a, oracle.Answer) and oracle.same_id(a.id, mid) for a in answers
        ):
            return  # the transport's own checks (headers, HT-30) may come before JSON-RPC's
    elif rejected and not answers:
        raise AssertionError(f"HTTP 200 with an error for a message that needs none: {answer}")
    problems = oracle.match(answers, got)
    assert not problems or rejected, f"{problems}\nanswer: {answer}"
    ok, value = oracle.decode(case.body)
    if ok and claims_modern(case, value) and isinstance(answer, dict) and "error" in answer:
        code = answer["error"]["code"]
        wanted = {-32601: 404, -32020: 400, -32022: 400, -32700: 400, -32600: 400}.get(code)
        assert wanted in (None, status), f"HTTP {status} for error {code} (HT-30, HT-31)"


ERAS = {"http legacy": "legacy", "http 2026-07-28": "modern"}


@pytest.fixture(scope="module")
def target(tmp_path_factory: pytest.TempPathFactory) -> Iterator[HttpTarget]:
    target = HttpTarget(tmp_path_factory.mktemp("fuzz-http") / "server.log")
    try:
        yield target
    finally:
        target.stop()
        target.client.close()


@pytest.mark.parametrize(
    "entry",
    [pytest.param(e, marks=pytest.mark.timeout(timeout_for(e)), id=ERAS[e]) for e in ERAS],
)
def test_fuzz_http(entry: str, target: HttpTarget) -> None:
    run = start_run(entry)
    try:
        target.ensure_running()
        target.probe(modern=True)  # warm up before the first measurement
        run.rss_start = target.rss()

        @fuzz_settings(run.entry)
        @given(http_cases(ERAS[entry], LIMIT))
        def fuzz(case: HttpCase) -> None:
            if run.timed_out():
                run.out_of_time += 1
                return
            stop_after_hangs(run)
            target.ensure_running()
            run.count(
                b"%s %s %r %s\n%s"
                % (
                    case.verb.encode(),
                    case.path.encode(),
                    case.headers,
                    case.session.encode(),
                    case.body,
                )
            )
            try:
                target.run_case(run, case)
            except ServerGone as gone:
                if "no answer" in str(gone):
                    run.hangs += 1
                else:
                    run.crashes += 1
                raise

        fuzz()
        target.probe(modern=False)  # still answering at the end, in both eras
        target.probe(modern=True)
        run.rss_end = target.rss()
    finally:
        run.finish()
    check_run(run)
