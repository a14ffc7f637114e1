"""The audit log: one JSON line per ``tools/call``, with secrets kept out.

* Outcomes: ok, error (with the reference id the masked result shows), invalid_arguments,
  unknown_tool, rate_limited, timeout, input_required (2026-07-28) and cancelled, on a
  legacy revision and 2026-07-28, every message checked against the schema.
* Redaction: the tool's own ``sensitive=[...]`` names and names that look like secrets, at
  any depth and in any case; long values cut short; results never logged.
* Over authenticated HTTP (``StaticTokens``): the caller is the subject, and the bearer
  token appears nowhere, neither in the audit file nor in the server's log.
* Files: lines from concurrent calls, threads and two writers on one file are whole lines;
  a stdio subprocess configured with a file writes the same.
* The logger: ``audit=True`` writes to ``toolwire.audit`` (with the entry on the record),
  and a disabled logger costs no description of the call.
"""

from __future__ import annotations

import asyncio
import logging
import re
import threading
from pathlib import Path
from typing import Any

import orjson
import pytest
from pydantic import BaseModel

from toolwire import Context, Server, ServerError
from toolwire.admission.audit import OUTCOMES, AuditLog
from toolwire.admission.limits import RateLimiter
from toolwire.auth import AccessToken

from http_server import serve_http
from mcp_spec import WireChecker
from wire import MODERN, checked_client, modern_meta, raw_server

pytestmark = pytest.mark.timeout(30)

LEGACY = "2025-11-25"
JSON = dict[str, Any]
CONNECTION = re.compile(r"connection:[0-9a-f]{8}")
TIME = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z")
FIELDS = {
    "time",
    "caller",
    "tool",
    "arguments",
    "duration_ms",
    "outcome",
    "error_ref",
    "revision",
    "request_id",
}


class Records(logging.Handler):
    """Audit records as they are written; ``arrived`` is set on each one."""

    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.lines: list[str] = []
        self.entries: list[JSON] = []
        self.arrived = asyncio.Event()

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(record.getMessage())
        self.entries.append(record.audit)  # type: ignore[attr-defined]
        self.arrived.set()

    def parsed(self) -> list[JSON]:
        entries = [orjson.loads(line) for line in self.lines]
        assert entries == self.entries  # the line and the record's entry say the same
        return entries


@pytest.fixture
def records() -> Any:
    logger = logging.getLogger("tests.audit")
    logger.setLevel(logging.INFO)
    logger.propagate = False
    handler = Records()
    logger.addHandler(handler)
    try:
        yield handler
    finally:
        logger.removeHandler(handler)


class Confirm(BaseModel):
    ok: bool


def build(audit: AuditLog, **options: Any) -> Server:
    mcp = Server(
        "audited",
        audit=audit,
        rate_limits=RateLimiter(per_tool={"scarce": "1/hour"}),
        **options,
    )
    started = asyncio.Event()

    @mcp.tool()
    def add(a: int, b: int) -> int:
        """Add two numbers."""
        return a + b

    @mcp.tool()
    def crash() -> str:
        """Fail the way a library fails."""
        raise RuntimeError("could not connect to postgres://admin:hunter2@db")

    @mcp.tool()
    def scarce() -> str:
        """Allowed once an hour."""
        return "granted"

    @mcp.tool(timeout=0.05)
    async def stuck() -> str:
        """Never finishes by itself (its deadline ends it)."""
        await asyncio.Event().wait()
        return "never"

    @mcp.tool()
    async def hold() -> str:
        """Wait until cancelled."""
        started.set()
        await asyncio.Event().wait()
        return "never"

    @mcp.tool()
    async def confirm(ctx: Context) -> str:
        """Ask the user first."""
        answer = await ctx.elicit("Go ahead?", Confirm)
        return answer.action

    @mcp.tool(sensitive=["pin", "Recovery"])
    def unlock(
        door: str, pin: str, recovery: str = "", options: dict[str, Any] | None = None
    ) -> str:
        """Unlock a door."""
        return f"{door} unlocked"

    @mcp.tool()
    def configure(settings: dict[str, Any], note: str = "", items: list[Any] | None = None) -> str:
        """Store settings."""
        return "stored: SECRET-RESULT-PAYLOAD"

    mcp.started = started  # type: ignore[attr-defined]
    return mcp


# ---------------------------------------------------------------- outcomes


@pytest.mark.parametrize("revision", [LEGACY, MODERN])
async def test_each_call_is_one_line_with_its_outcome(revision: str, records: Records) -> None:
    mcp = build(AuditLog(logging.getLogger("tests.audit")))
    async with checked_client(mcp, revision) as client:
        assert (await client.call_tool("add", {"a": 1, "b": 2})).text == "3"
        crashed = await client.call_tool("crash")
        invalid = await client.call_tool("add", {"a": "one"})
        with pytest.raises(ServerError, match="Unknown tool"):
            await client.call_tool("ad", {"a": 1})
        assert (await client.call_tool("scarce")).text == "granted"
        assert (await client.call_tool("scarce")).is_error
        assert "timed out" in (await client.call_tool("stuck")).text

    entries = records.parsed()
    assert [(e["tool"], e["outcome"]) for e in entries] == [
        ("add", "ok"),
        ("crash", "error"),
        ("add", "invalid_arguments"),
        ("ad", "unknown_tool"),
        ("scarce", "ok"),
        ("scarce", "rate_limited"),
        ("stuck", "timeout"),
    ]
    assert {e["outcome"] for e in entries} <= set(OUTCOMES)
    reference = re.search(r"reference ([0-9a-f]{8})", crashed.text)
    assert reference is not None and entries[1]["error_ref"] == reference.group(1)
    assert invalid.is_error and entries[2]["error_ref"] is None
    assert entries[5]["limit"] == "tool" and "limit" not in entries[4]
    callers = {e["caller"] for e in entries}
    assert len(callers) == 1 and CONNECTION.fullmatch(callers.pop())
    for entry in entries:
        assert set(entry) >= FIELDS
        assert TIME.fullmatch(entry["time"]), entry["time"]
        assert entry["revision"] == revision
        assert isinstance(entry["duration_ms"], float) and entry["duration_ms"] >= 0
    assert entries[0]["arguments"] == {"a": 1, "b": 2}
    assert entries[6]["duration_ms"] >= 50  # the deadline it ran into
    assert len({e["request_id"] for e in entries}) == len(entries)
    assert "hunter2" not in "\n".join(records.lines)


async def test_a_modern_call_that_needs_input_is_logged_as_such(records: Records) -> None:
    mcp = build(AuditLog(logging.getLogger("tests.audit")))
    async with checked_client(
        mcp,
        MODERN,
        elicitation_handler=lambda params: {"action": "accept", "content": {"ok": True}},
    ) as client:
        assert (await client.call_tool("confirm")).text == "accept"
    assert [e["outcome"] for e in records.parsed()] == ["input_required", "ok"]


@pytest.mark.parametrize("revision", [LEGACY, MODERN])
async def test_a_cancelled_call_is_logged_as_cancelled(revision: str, records: Records) -> None:
    mcp = build(AuditLog(logging.getLogger("tests.audit")))
    checker = WireChecker(revision)
    sent: list[bytes] = []

    def send(data: bytes) -> None:
        checker.server_sent(data)
        sent.append(data)

    def feed(message: JSON) -> None:
        checker.client_sent(message)
        connection.feed(orjson.dumps(message))

    await mcp.start()
    connection = mcp.connect(send)
    try:
        params: JSON = {"name": "hold", "arguments": {}}
        if revision == MODERN:
            params["_meta"] = modern_meta()
        else:
            feed(
                {
                    "jsonrpc": "2.0",
                    "id": 0,
                    "method": "initialize",
                    "params": {
                        "protocolVersion": revision,
                        "capabilities": {},
                        "clientInfo": {"name": "tests", "version": "0"},
                    },
                }
            )
            feed({"jsonrpc": "2.0", "method": "notifications/initialized"})
        feed({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": params})
        await asyncio.wait_for(mcp.started.wait(), 5)  # type: ignore[attr-defined]
        feed({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 7}})
        await asyncio.wait_for(records.arrived.wait(), 5)
    finally:
        connection.close()
        await mcp.stop()
    [entry] = records.parsed()
    assert (entry["tool"], entry["outcome"], entry["request_id"]) == ("hold", "cancelled", 7)
    assert all(orjson.loads(data).get("id") != 7 for data in sent)  # no answer (CN-04)


# ---------------------------------------------------------------- what never gets in


async def test_sensitive_arguments_are_redacted_at_any_depth(records: Records) -> None:
    audit = AuditLog(logging.getLogger("tests.audit"), redact=["Note"], max_value_chars=40)
    mcp = build(audit)
    settings = {
        "API-Key": "SECRET-api-key",
        "db_password": "SECRET-db-password",
        "nested": {"Authorization": "Bearer SECRET-nested", "accessToken": "SECRET-camel"},
        "cookies": [{"Cookie": "SECRET-cookie", "name": "session cookie"}],
        "max_tokens": 512,
        "region": "eu-west-1",
        "long": "x" * 100,
    }
    async with checked_client(mcp, MODERN) as client:
        await client.call_tool(
            "unlock",
            {"door": "front", "pin": "SECRET-4711", "recovery": "SECRET-r", "options": {"PIN": 1}},
        )
        await client.call_tool("configure", {"settings": settings, "note": "SECRET-note"})
        await client.call_tool("configure", {"settings": {}, "items": list(range(120))})

    unlock, configure, many = records.parsed()
    assert unlock["arguments"] == {
        "door": "front",
        "pin": "[redacted]",
        "recovery": "[redacted]",  # named "Recovery" by the tool: case does not matter
        "options": {"PIN": "[redacted]"},  # the tool's names count at any depth
    }
    assert configure["arguments"] == {
        "settings": {
            "API-Key": "[redacted]",
            "db_password": "[redacted]",
            "nested": {"Authorization": "[redacted]", "accessToken": "[redacted]"},
            "cookies": [{"Cookie": "[redacted]", "name": "session cookie"}],
            "max_tokens": 512,  # not a secret for looking like "token"
            "region": "eu-west-1",
            "long": "x" * 40 + "... (100 chars)",
        },
        "note": "[redacted]",  # the log's own redact= names
    }
    assert many["arguments"]["items"] == [*range(50), "... 70 more"]
    text = "\n".join(records.lines)
    assert "SECRET" not in text  # neither argument values nor the result payload


async def test_no_token_reaches_the_audit_over_authenticated_http(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """The caller is the verified subject; the bearer token is in no line and no log record."""
    auth_module = pytest.importorskip("toolwire.auth")
    resource_server = getattr(auth_module, "ResourceServer", None)
    static_tokens = getattr(auth_module, "StaticTokens", None)
    if resource_server is None or static_tokens is None:
        pytest.skip("toolwire.auth has no ResourceServer/StaticTokens")
    token = "tok-0123456789-very-secret-bearer"
    auth = resource_server(
        "http://127.0.0.1/mcp",
        ["http://127.0.0.1/issuer"],
        static_tokens({token: AccessToken(subject="alice", client_id="cli-1")}),
    )
    path = tmp_path / "audit.jsonl"
    mcp = build(AuditLog(file=path), auth=auth)
    caplog.set_level(logging.DEBUG)
    with serve_http(mcp) as url:
        for revision in (LEGACY, MODERN):
            headers = {"Authorization": f"Bearer {token}"}
            async with checked_client(url, revision, headers=headers) as client:
                assert (await client.call_tool("add", {"a": 2, "b": 2})).text == "4"
                assert (await client.call_tool("crash")).is_error
                await client.call_tool("configure", {"settings": {"token": token}})
    data = path.read_bytes()
    entries = [orjson.loads(line) for line in data.splitlines()]
    assert [(e["caller"], e["tool"], e["revision"]) for e in entries] == [
        ("alice", tool, revision)
        for revision in (LEGACY, MODERN)
        for tool in ("add", "crash", "configure")
    ]
    assert token.encode() not in data and b"Bearer" not in data
    assert b"SECRET-RESULT-PAYLOAD" not in data
    assert token not in caplog.text


# ---------------------------------------------------------------- files


async def test_concurrent_calls_give_whole_lines_in_the_file(tmp_path: Path) -> None:
    path = tmp_path / "audit.jsonl"
    mcp = build(AuditLog(file=path, max_value_chars=5000))
    async with checked_client(mcp, MODERN) as client:
        results = await asyncio.gather(
            *(
                client.call_tool("configure", {"settings": {"n": n}, "note": "y" * 3000})
                for n in range(100)
            )
        )
    assert all(result.text.startswith("stored") for result in results)
    entries = [orjson.loads(line) for line in path.read_bytes().splitlines()]
    assert sorted(e["arguments"]["settings"]["n"] for e in entries) == list(range(100))
    assert path.stat().st_mode & 0o777 == 0o600


def test_threads_and_two_writers_never_interleave_lines(tmp_path: Path) -> None:
    path = tmp_path / "shared.jsonl"
    writers = [AuditLog(file=path), AuditLog(file=path)]  # like two worker processes
    big = "z" * 20_000  # far beyond a pipe's atomic size

    def write(writer: AuditLog, thread: int) -> None:
        for number in range(100):
            writer.write({"thread": thread, "number": number, "padding": big})

    threads = [threading.Thread(target=write, args=(writers[n % 2], n)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(20)
    for writer in writers:
        writer.close()
    entries = [orjson.loads(line) for line in path.read_bytes().splitlines()]
    assert len(entries) == 800
    assert {(e["thread"], e["number"]) for e in entries} == {
        (t, n) for t in range(8) for n in range(100)
    }


async def test_a_stdio_server_writes_its_audit_file(tmp_path: Path) -> None:
    path = tmp_path / "stdio-audit.jsonl"
    env = {"AUDIT_FILE": str(path), "TOOLWIRE_RATE_LIMIT_TOOL": "search=1/minute"}
    async with raw_server("rate_limited.py", revision=LEGACY, env=env) as server:
        await server.initialize(LEGACY)
        for _ in range(2):
            await server.request("tools/call", {"name": "search", "arguments": {"query": "q"}})
        await server.request(
            "tools/call", {"name": "unlock", "arguments": {"door": "d", "pin": "SECRET-1"}}
        )
        code, _out, err = await server.close()
    assert code == 0, err
    entries = [orjson.loads(line) for line in path.read_bytes().splitlines()]
    assert [(e["tool"], e["outcome"]) for e in entries] == [
        ("search", "ok"),
        ("search", "rate_limited"),
        ("unlock", "ok"),
    ]
    assert entries[2]["arguments"] == {"door": "d", "pin": "[redacted]"}
    assert [e["request_id"] for e in entries] == [2, 3, 4]


# ---------------------------------------------------------------- the logger


async def test_audit_true_writes_to_the_toolwire_audit_logger(
    caplog: pytest.LogCaptureFixture,
) -> None:
    mcp = build(True)  # type: ignore[arg-type]
    assert mcp.audit is not None and mcp.audit.logger is logging.getLogger("toolwire.audit")
    caplog.set_level(logging.WARNING, logger="toolwire.audit")
    assert not mcp.audit.enabled
    async with checked_client(mcp, MODERN) as client:
        await client.call_tool("add", {"a": 1, "b": 1})
        assert not [r for r in caplog.records if r.name == "toolwire.audit"]
        caplog.set_level(logging.INFO, logger="toolwire.audit")
        await client.call_tool("add", {"a": 2, "b": 2})
    [record] = [r for r in caplog.records if r.name == "toolwire.audit"]
    assert record.levelno == logging.INFO
    assert orjson.loads(record.getMessage()) == record.audit  # type: ignore[attr-defined]
    assert record.audit["arguments"] == {"a": 2, "b": 2}  # type: ignore[attr-defined]
