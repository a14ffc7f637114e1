"""Access abuse: scopes that are prefixes of URL scopes, tokens that name nobody, floods of
made-up tool names against rate buckets, and secrets in the messages of Python's builtins.

Real components only: uvicorn on 127.0.0.1 with a real ``JWTVerifier`` (tokens signed
here with an EC key), an HTTP server subprocess behind ``StaticTokens``, and a stdio
subprocess for the error messages. Every message the servers send is validated against
the negotiated revision's schema.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import os
import re
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import jwt
import orjson
import pytest
from cryptography.hazmat.primitives.asymmetric import ec

from abuse.report import record, rss_mib
from toolwire import Context, Server
from toolwire.admission.audit import AuditLog
from toolwire.auth import JWTVerifier, ResourceServer, covers
from toolwire.server import RateLimiter

from http_server import serve_http
from mcp_spec import WireChecker
from wire import MODERN, SERVERS, modern_meta, raw_server

pytestmark = pytest.mark.timeout(40)

JSON = dict[str, Any]
LEGACY = "2025-11-25"
BATCHING = "2025-03-26"  # the last revision with JSON-RPC batches
BOTH = "application/json, text/event-stream"
RESOURCE = "http://127.0.0.1/mcp"
ISSUER = "https://auth.example.test"
URL_SCOPE = "https://api.example.com/files.write"
TIMEOUT = 10.0
_ids = itertools.count(1)

# ---------------------------------------------------------------------------- tokens


class Issuer:
    """The signing half of an authorization server: one EC key, tokens on demand."""

    def __init__(self) -> None:
        self.key = ec.generate_private_key(ec.SECP256R1())

    def verifier(self) -> JWTVerifier:
        return JWTVerifier(issuer=ISSUER, audience=RESOURCE, public_key=self.key.public_key())

    def mint(self, **claims: Any) -> str:
        now = int(time.time())
        body = {"iss": ISSUER, "aud": RESOURCE, "iat": now, "exp": now + 300, **claims}
        body = {k: v for k, v in body.items() if v is not None}
        return jwt.encode(body, self.key, algorithm="ES256")


@pytest.fixture(scope="module")
def issuer() -> Issuer:
    return Issuer()


def headers(token: str, session: str | None = None, revision: str = LEGACY) -> dict[str, str]:
    found = {"Accept": BOTH, "Content-Type": "application/json"}
    found["Authorization"] = f"Bearer {token}"
    if session is not None:
        found["Mcp-Session-Id"] = session
        found["MCP-Protocol-Version"] = revision
    return found


def request(method: str, params: JSON | None = None, **meta: Any) -> JSON:
    message: JSON = {"jsonrpc": "2.0", "id": next(_ids), "method": method}
    if params is not None or meta:
        message["params"] = dict(params or {})
    if meta:
        message["params"]["_meta"] = meta
    return message


async def post_modern(http: httpx.AsyncClient, url: str, token: str, message: JSON) -> JSON:
    checker = WireChecker(MODERN)
    message.setdefault("params", {})["_meta"] = modern_meta()
    checker.client_sent(message)
    sent = {**headers(token), "MCP-Protocol-Version": MODERN, "Mcp-Method": message["method"]}
    if message["method"] == "tools/call":
        sent["Mcp-Name"] = message["params"]["name"]
    response = await http.post(url, content=orjson.dumps(message), headers=sent)
    assert response.status_code in (200, 400), response.text  # 400: a JSON-RPC error
    checker.server_sent(response.content)
    return dict(response.json())


class Legacy:
    """A legacy session over raw HTTP, every message checked."""

    def __init__(self, http: httpx.AsyncClient, url: str, revision: str = LEGACY) -> None:
        self.http, self.url, self.revision = http, url, revision
        self.checker = WireChecker(revision)
        self.id: str | None = None

    async def post(self, message: Any, token: str) -> httpx.Response:
        self.checker.client_sent(message)
        response = await self.http.post(
            self.url,
            content=orjson.dumps(message),
            headers=headers(token, self.id, self.revision),
        )
        if response.headers.get("content-type", "").startswith("application/json"):
            self.checker.server_sent(response.content)
        return response

    async def open(self, token: str) -> None:
        params = {
            "protocolVersion": self.revision,
            "capabilities": {},
            "clientInfo": {"name": "abuse", "version": "0"},
        }
        response = await self.post(request("initialize", params), token)
        assert response.status_code == 200, response.text
        self.id = response.headers["mcp-session-id"]
        done = await self.post({"jsonrpc": "2.0", "method": "notifications/initialized"}, token)
        assert done.status_code == 202

    async def call(self, token: str, name: str, arguments: JSON | None = None) -> httpx.Response:
        message = request("tools/call", {"name": name, "arguments": arguments or {}})
        return await self.post(message, token)


# ---------------------------------------------------------------------------- 1: scopes


def test_a_scope_never_covers_a_url_scope_it_is_a_string_prefix_of() -> None:
    assert not covers({"https"}, [URL_SCOPE])
    assert not covers({"https:"}, [URL_SCOPE])
    assert not covers({"https://api.example.com"}, [URL_SCOPE])
    assert not covers({"urn"}, ["urn:example:files:write"])
    assert not covers({"file"}, ["files:write"])  # a whole segment, not a prefix of one
    assert covers({URL_SCOPE}, [URL_SCOPE])
    assert covers({"https"}, [URL_SCOPE], {"https": [URL_SCOPE]})  # said explicitly
    assert covers({"files"}, ["files:write", "files:read:own"])  # the documented rule stays


def scoped_server(issuer: Issuer) -> Server:
    mcp = Server("scoped", auth=ResourceServer(RESOURCE, [ISSUER], issuer.verifier()))
    ran: list[str] = []

    @mcp.tool(scopes=[URL_SCOPE])
    def write_file(path: str) -> str:
        """Write a file (needs the URL scope)."""
        ran.append(path)
        return f"wrote {path}"

    mcp.ran = ran  # type: ignore[attr-defined]
    return mcp


@pytest.mark.parametrize("revision", [LEGACY, MODERN])
async def test_a_scheme_scope_does_not_call_a_tool_guarded_by_a_url_scope(
    issuer: Issuer, revision: str
) -> None:
    mcp = scoped_server(issuer)
    prefix = issuer.mint(sub="mallory", scope="https")
    granted = issuer.mint(sub="alice", scope=URL_SCOPE)
    with serve_http(mcp) as url:
        async with httpx.AsyncClient(timeout=TIMEOUT) as http:
            answers: dict[str, JSON] = {}
            for who, token in (("prefix", prefix), ("granted", granted)):
                call = request("tools/call", {"name": "write_file", "arguments": {"path": who}})
                listing = request("tools/list")
                if revision == MODERN:
                    names = [
                        t["name"]
                        for t in (await post_modern(http, url, token, listing))["result"]["tools"]
                    ]
                    answers[who] = await post_modern(http, url, token, call)
                else:
                    session = Legacy(http, url)
                    await session.open(token)
                    names = [
                        t["name"]
                        for t in (await session.post(listing, token)).json()["result"]["tools"]
                    ]
                    answers[who] = (await session.post(call, token)).json()
                assert ("write_file" in names) == (who == "granted")
    assert answers["prefix"]["error"]["code"] == -32602
    assert "write_file" not in answers["prefix"]["error"]["message"].split("Unknown tool")[0]
    assert answers["granted"]["result"]["content"][0]["text"] == "wrote granted"
    assert mcp.ran == ["granted"]  # type: ignore[attr-defined]
    record(
        f"scope 'https' vs tool needing {URL_SCOPE} ({revision})",
        "-32602 unknown tool; tool ran 0 times for the prefix token, 1 for the granted one",
    )


# ---------------------------------------------------------------------------- 2: identity


def anonymous_server(issuer: Issuer, audit_file: Path) -> Server:
    mcp = Server(
        "anonymous",
        auth=ResourceServer(RESOURCE, [ISSUER], issuer.verifier()),
        rate_limits=RateLimiter(per_caller="2/minute"),
        audit=AuditLog(file=str(audit_file)),
    )

    @mcp.tool()
    def whoami(ctx: Context) -> str:
        """Who is calling."""
        return str(ctx.request.caller)

    return mcp


async def test_tokens_that_name_nobody_share_no_session_bucket_or_caller(
    issuer: Issuer, tmp_path: Path
) -> None:
    """Two tokens of one issuer with neither sub nor client_id: each is its own caller."""
    audit_file = tmp_path / "audit.jsonl"
    first, second = issuer.mint(scope="mcp"), issuer.mint(scope="mcp")
    with serve_http(anonymous_server(issuer, audit_file)) as url:
        async with httpx.AsyncClient(timeout=TIMEOUT) as http:
            session = Legacy(http, url)
            await session.open(first)
            stolen = await session.call(second, "whoami")
            assert stolen.status_code == 404  # SB-03: the session is not the second token's
            own = await session.call(first, "whoami")
            assert own.status_code == 200
            caller_one = own.json()["result"]["content"][0]["text"]
            assert (await session.call(first, "whoami")).status_code == 200
            limited = (await session.call(first, "whoami")).json()["result"]
            assert (
                limited["isError"]
                and "Rate limit exceeded for this caller" in (limited["content"][0]["text"])
            )
            other = Legacy(http, url)
            await other.open(second)
            answer = (await other.call(second, "whoami")).json()["result"]
            assert not answer.get("isError"), answer  # its own bucket, still full
            caller_two = answer["content"][0]["text"]
    assert caller_one.startswith("token:") and caller_two.startswith("token:")
    assert caller_one != caller_two
    assert first not in caller_one and second not in caller_two
    lines = [orjson.loads(line) for line in audit_file.read_text().splitlines()]
    assert {line["caller"] for line in lines} == {caller_one, caller_two}
    assert not any(token in audit_file.read_text() for token in (first, second))
    record(
        "two tokens without sub/client_id, one session id",
        "404 for the other token; separate rate buckets and audit callers (token digests)",
    )


# ---------------------------------------------------------------------------- 3: buckets

FLOOD = 110_000
BATCH = 5_000


@contextlib.asynccontextmanager
async def limits_server() -> AsyncIterator[tuple[asyncio.subprocess.Process, str]]:
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        str(SERVERS / "abuse_access_limits.py"),
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.PIPE,
    )
    try:
        assert process.stderr is not None
        seen: list[bytes] = []
        while True:
            line = await asyncio.wait_for(process.stderr.readline(), TIMEOUT)
            assert line, b"".join(seen).decode()
            seen.append(line)
            found = re.search(rb"Uvicorn running on (http://127\.0\.0\.1:\d+)", line)
            if found:
                break
        drain = asyncio.ensure_future(process.stderr.read())
        yield process, found.group(1).decode() + "/mcp"
    finally:
        if process.returncode is None:
            process.kill()
        await process.wait()
        drain.cancel()


DIGITS = re.compile(rb"[0-9]+(?:[.][0-9]+)?")


def check_batch(session: Legacy, sent: list[JSON], answers: list[JSON]) -> None:
    """Validate one answer of each shape (answers differing only in their id and numbers,
    such as the retry wait, have one shape): 110,000 validations would take minutes."""
    by_id = {message["id"]: message for message in sent}
    shapes: set[bytes] = set()
    for answer in answers:
        shape = DIGITS.sub(b"0", orjson.dumps({**answer, "id": 0}, option=orjson.OPT_SORT_KEYS))
        if shape not in shapes:
            shapes.add(shape)
            session.checker.client_sent(by_id[answer["id"]])
            session.checker.server_sent(answer)


async def test_a_flood_of_made_up_tool_names_does_not_refill_a_callers_bucket() -> None:
    async with limits_server() as (process, url), httpx.AsyncClient(timeout=30.0) as http:
        alice = Legacy(http, url, BATCHING)
        await alice.open("alice-token")
        bob = Legacy(http, url, BATCHING)
        await bob.open("bob-token")
        for _ in range(3):
            ok = (await alice.call("alice-token", "search", {"query": "q"})).json()
            assert not ok["result"].get("isError"), ok
        refused = (await alice.call("alice-token", "search", {"query": "q"})).json()
        assert "Rate limit exceeded for tool 'search'" in refused["result"]["content"][0]["text"]
        rss_before = rss_mib(process.pid)

        latencies: list[float] = []
        errors = 0
        done = asyncio.Event()

        async def bob_meanwhile() -> None:
            nonlocal errors
            while not done.is_set():
                started = time.perf_counter()
                answer = await bob.call("bob-token", "search", {"query": "b"})
                latencies.append(time.perf_counter() - started)
                if answer.status_code != 200:
                    errors += 1

        watcher = asyncio.ensure_future(bob_meanwhile())
        outcomes: dict[str, int] = {}
        try:
            for start in range(0, FLOOD, BATCH):
                batch = [
                    request("tools/call", {"name": f"made-up-{n}", "arguments": {}})
                    for n in range(start, start + BATCH)
                ]
                response = await alice.http.post(
                    url,
                    content=orjson.dumps(batch),
                    headers=headers("alice-token", alice.id, BATCHING),
                )
                assert response.status_code == 200
                answers = response.json()
                assert len(answers) == BATCH
                check_batch(alice, batch, answers)
                for answer in answers:
                    kind = "unknown tool" if "error" in answer else "rate limited"
                    outcomes[kind] = outcomes.get(kind, 0) + 1
        finally:
            done.set()
            await watcher
        rss_after = rss_mib(process.pid)
        still = (await alice.call("alice-token", "search", {"query": "q"})).json()
    # The debt stands: the flood did not hand alice a fresh bucket.
    assert "Rate limit exceeded for tool 'search'" in still["result"]["content"][0]["text"]
    assert outcomes.get("unknown tool", 0) <= 5  # made-up names share one "*" bucket
    assert rss_after - rss_before < 20.0
    assert errors == 0 and latencies
    latencies.sort()
    p50, worst = latencies[len(latencies) // 2], latencies[-1]
    assert worst < 5.0  # bob's refusals come from his own bucket, answered at once
    record(
        f"{FLOOD:,} calls to made-up tool names (HTTP subprocess, batches of {BATCH:,})",
        f"{outcomes}; alice's search still refused afterwards",
        rss_before_mib=rss_before,
        rss_after_mib=rss_after,
        others=f"bob: {len(latencies)} calls, p50 {p50 * 1000:.1f} ms, max {worst * 1000:.0f} ms, "
        f"{errors} errors",
    )


# ---------------------------------------------------------------------------- 4: masking

SECRET = "hunter2-s3cr3t-value"
MASKED = re.compile(r"Tool '(\w+)' failed with an internal error \(reference ([0-9a-f]{8})\)")


def text_of(message: JSON) -> str:
    assert "result" in message, message
    return str(message["result"]["content"][0]["text"])


@pytest.mark.parametrize("revision", [LEGACY, MODERN])
async def test_builtin_errors_in_the_tools_frame_are_masked_raised_ones_are_not(
    revision: str, tmp_path: Path
) -> None:
    root = tmp_path / "private-root"
    root.mkdir()
    env = {**os.environ, "ABUSE_SECRET": SECRET, "ABUSE_ROOT": str(root)}
    async with raw_server(SERVERS / "abuse_access_errors.py", revision=revision, env=env) as server:
        if revision != MODERN:
            await server.initialize(revision)
        meta = modern_meta() if revision == MODERN else {}

        async def call(name: str, arguments: JSON | None = None) -> JSON:
            params: JSON = {"name": name, "arguments": arguments or {}}
            if meta:
                params["_meta"] = meta
            return await server.request("tools/call", params)

        seen: list[str] = []
        for name, arguments in (
            ("port_from_env", {}),
            ("port_from_env_async", {}),
            ("missing_setting", {}),
            ("open_report", {"name": "absent.txt"}),
            ("open_doc", {"path": "absent.md"}),
        ):
            text = text_of(await call(name, arguments))
            found = MASKED.fullmatch(text)
            assert found is not None and found.group(1) == name, text
            seen.append(text)
        for name, arguments, expected in (
            ("divide", {"a": 1, "b": 0}, "Cannot divide by zero"),
            ("divide_async", {"a": 1, "b": 0}, "Cannot divide by zero"),
            ("parse_count", {"text": "x7"}, "invalid literal for int() with base 10: 'x7'"),
            ("refuse", {"reason": "no"}, "Refused: no"),
        ):
            answer = await call(name, arguments)
            assert answer["result"]["isError"] is True
            assert text_of(answer) == expected
        resource = await server.request(
            "resources/read", {"uri": "config://port", **({"_meta": meta} if meta else {})}
        )
        prompt = await server.request(
            "prompts/get", {"name": "port_prompt", **({"_meta": meta} if meta else {})}
        )
        for answer in (resource, prompt):
            assert "error" in answer and "internal error (reference" in answer["error"]["message"]
            seen.append(answer["error"]["message"])
        _code, _out, stderr = await server.close()
    everything = "\n".join(seen)
    assert SECRET not in everything and str(root) not in everything
    assert SECRET.encode() in stderr  # the details are in the server log, by reference
    record(
        f"builtin errors in the tool's frame (stdio, {revision})",
        "int(secret), os.environ[...], open(path), open(SafePath): masked with a reference; "
        "raise ValueError(...) and ToolError verbatim",
    )
