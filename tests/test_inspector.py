"""``toolwire dev``'s backend over real HTTP: the server under test is a real subprocess, the
inspector a real ``toolwire dev`` process, and the page's API is driven with httpx.

Each call's JSON-RPC traffic, as the inspector recorded it, is validated against the
negotiated revision's schema, on 2026-07-28 and on a legacy revision. The page itself is
tested in Chromium by tests/test_inspector_browser.py.
"""

from __future__ import annotations

import runpy
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from toolwire import Server
from toolwire.auth import ResourceServer, StaticTokens

from http_server import serve_http
from inspector_process import Inspector, start_inspector
from mcp_spec import WireChecker
from wire import EXAMPLES, MODERN, SERVERS

pytestmark = pytest.mark.timeout(60)

LEGACY = "2025-11-25"
REVISIONS = [MODERN, LEGACY]

SERVER = '''
import asyncio
import os
import sys
from pathlib import Path

from toolwire import Context, Server

mcp = Server("Inspected", instructions="Tools for the inspector's tests.")


@mcp.tool()
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@mcp.tool()
async def slow(ctx: Context) -> str:
    """Report progress until cancelled."""
    ctx.info("slow started")
    step = 0
    while True:
        step += 1
        ctx.report_progress(step, None, f"step {step}")
        await asyncio.sleep(0.02)


@mcp.tool()
def crash() -> str:
    """End the server process."""
    print("about to exit on purpose", file=sys.stderr, flush=True)
    os._exit(3)


@mcp.tool()
async def greet(ctx: Context) -> str:
    """Ask the user's name, then greet them."""
    answer = await ctx.elicit("What is your name?", {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]})
    return f"Hello, {answer.data['name']}" if answer.action == "accept" else f"No name ({answer.action})"


@mcp.tool()
async def haiku(ctx: Context) -> str:
    """Ask the client's model for a haiku."""
    reply = await ctx.sample("Write a haiku about tests")
    return reply.text


@mcp.tool()
def grow() -> str:
    """Add a tool named extra."""
    mcp.add_tool(lambda: "more", name="extra")
    return "grown"
'''


def checked_traffic(call: dict[str, Any], revision: str) -> WireChecker:
    """Validate a call's recorded messages; the client's side strictly too."""
    checker = WireChecker(revision, strict_client=True)
    for entry in call["traffic"]:
        if entry["direction"] == "send":
            checker.client_sent(entry["message"])
        else:
            checker.server_sent(entry["message"])
    return checker


def methods(call: dict[str, Any], direction: str) -> list[str]:
    return [
        entry["message"].get("method", "(response)")
        for entry in call["traffic"]
        if entry["direction"] == direction
    ]


@pytest.fixture
def server_file(tmp_path: Path) -> Path:
    path = tmp_path / "inspected.py"
    path.write_text(SERVER, encoding="utf-8")
    return path


@pytest.mark.parametrize("revision", REVISIONS)
def test_divide_by_zero_shows_the_error_result(revision: str) -> None:
    with start_inspector(EXAMPLES / "calculator.py", "--protocol-version", revision) as inspector:
        state = inspector.ready()
        assert state["server"]["status"] == "ready", state["server"]
        assert state["server"]["protocolVersion"] == revision
        assert state["server"]["name"] == "Calculator"
        assert "divide" in {tool["name"] for tool in state["tools"]}
        call = inspector.finished(inspector.call("divide", {"a": 1, "b": 0}))
        assert call["status"] == "error"
        assert call["result"]["isError"] is True
        assert call["result"]["content"] == [{"type": "text", "text": "Cannot divide by zero"}]
        good = inspector.finished(inspector.call("divide", {"a": 1, "b": 4}))
        assert good["status"] == "ok" and good["result"]["structuredContent"] == {"result": 0.25}
        for recorded in (call, good):
            assert methods(recorded, "send") == ["tools/call"]
            assert methods(recorded, "receive") == ["(response)"]
            assert checked_traffic(recorded, revision).checked == 2
        assert inspector.api("GET", f"/api/calls/{call['id']}").json() == call


@pytest.mark.parametrize("revision", REVISIONS)
def test_progress_logs_and_cancel(server_file: Path, revision: str) -> None:
    with start_inspector(server_file, "--protocol-version", revision) as inspector:
        inspector.ready()
        call_id = inspector.call("slow", {})
        _, running = inspector.wait_for(
            lambda event, data: (
                event == "call"
                and data["id"] == call_id
                and data["progress"] is not None
                and data["progress"]["progress"] >= 3
            )
        )
        assert running["status"] == "running"
        assert running["progress"]["message"].startswith("step ")
        assert [log["data"] for log in running["logs"]] == ["slow started"]
        assert running["logs"][0]["level"] == "info" and running["logs"][0]["call"] == call_id
        answer = inspector.api("POST", f"/api/calls/{call_id}/cancel")
        assert answer.status_code == 200, answer.text
        call = inspector.finished(call_id)
        assert call["status"] == "cancelled" and call["result"] is None
        assert "Cancelled" in call["failure"]
        sent = [entry["message"] for entry in call["traffic"] if entry["direction"] == "send"]
        assert [message["method"] for message in sent] == ["tools/call", "notifications/cancelled"]
        assert sent[1]["params"]["requestId"] == sent[0]["id"]  # CN-11
        checked_traffic(call, revision)
        again = inspector.api("POST", f"/api/calls/{call_id}/cancel")
        assert again.status_code == 409
        after = inspector.finished(inspector.call("add", {"a": 2, "b": 3}))
        assert after["result"]["structuredContent"] == {"result": 5}


@pytest.mark.parametrize("revision", REVISIONS)
def test_tool_list_changes_reach_the_page(server_file: Path, revision: str) -> None:
    with start_inspector(server_file, "--protocol-version", revision) as inspector:
        inspector.ready()
        assert inspector.finished(inspector.call("grow", {}))["status"] == "ok"
        _, state = inspector.wait_for(
            lambda event, data: (
                event == "state" and "extra" in {tool["name"] for tool in data["tools"]}
            )
        )
        assert state["server"]["generation"] == 1  # no restart: the list changed live


def answer_question(inspector: Inspector, kind: str, body: dict[str, Any]) -> dict[str, Any]:
    """Wait for the open question of ``kind``, answer it, and return it."""
    _, question = inspector.wait_for(
        lambda event, data: (
            event == "question"
            and data.get("status") == "open"
            and data["kind"] == kind
            and not any(
                e == "question" and d["id"] == data["id"] and d["status"] == "closed"
                for e, d in inspector.seen
            )
        )
    )
    answered = inspector.api("POST", f"/api/questions/{question['id']}/answer", body)
    assert answered.status_code == 200, answered.text
    return question  # type: ignore[no-any-return]


@pytest.mark.parametrize("revision", REVISIONS)
def test_the_person_at_the_page_answers_the_servers_questions(
    server_file: Path, revision: str
) -> None:
    with start_inspector(server_file, "--protocol-version", revision) as inspector:
        inspector.ready()
        call_id = inspector.call("greet", {})
        question = answer_question(
            inspector, "elicitation", {"action": "accept", "content": {"name": "Ada"}}
        )
        assert question["call"] == call_id
        assert question["params"]["message"] == "What is your name?"
        assert question["params"]["requestedSchema"]["required"] == ["name"]
        greeted = inspector.finished(call_id)
        assert greeted["status"] == "ok", greeted
        assert greeted["result"]["content"][0]["text"] == "Hello, Ada"
        checked_traffic(greeted, revision)

        declined = inspector.call("greet", {})
        answer_question(inspector, "elicitation", {"action": "decline"})
        result = inspector.finished(declined)["result"]
        assert result["content"][0]["text"] == "No name (decline)"

        sampled = inspector.call("haiku", {})
        question = answer_question(
            inspector, "sampling", {"action": "accept", "text": "Green bar at last"}
        )
        assert question["params"]["messages"][0]["content"]["text"] == "Write a haiku about tests"
        haiku = inspector.finished(sampled)
        assert haiku["result"]["content"][0]["text"] == "Green bar at last"
        checked_traffic(haiku, revision)

        refused = inspector.call("haiku", {})
        answer_question(inspector, "sampling", {"action": "decline"})
        outcome = inspector.finished(refused)
        if revision == MODERN:  # an input response cannot be an error: the client gives up
            assert outcome["status"] == "failed" and "declined" in outcome["failure"]
        else:  # the server gets the error and the tool's call fails with it
            assert outcome["status"] == "error" and outcome["result"]["isError"] is True


@pytest.mark.parametrize("revision", REVISIONS)
def test_bad_answers_are_refused_and_the_question_stays_open(
    server_file: Path, revision: str
) -> None:
    with start_inspector(server_file, "--protocol-version", revision) as inspector:
        inspector.ready()
        call_id = inspector.call("greet", {})
        _, question = inspector.wait_for(
            lambda event, data: event == "question" and data.get("status") == "open"
        )
        path = f"/api/questions/{question['id']}/answer"
        assert inspector.api("POST", path, {"action": "maybe"}).status_code == 400
        assert inspector.api("POST", path, {"action": "accept", "content": [1]}).status_code == 400
        assert (
            inspector.api("POST", "/api/questions/999/answer", {"action": "cancel"}).status_code
            == 404
        )
        assert inspector.state()["questions"][0]["id"] == question["id"]
        assert inspector.api("POST", f"/api/calls/{call_id}/cancel").status_code == 200
        assert inspector.finished(call_id)["status"] == "cancelled"
        _, closed = inspector.wait_for(
            lambda event, data: event == "question" and data.get("status") == "closed"
        )
        assert closed["id"] == question["id"]
        assert inspector.state()["questions"] == []


def test_a_crashed_server_is_reported_and_reloads(server_file: Path) -> None:
    with start_inspector(server_file) as inspector:
        inspector.ready()
        call = inspector.finished(inspector.call("crash", {}))
        assert call["status"] == "failed" and "exited" in call["failure"]
        _, state = inspector.wait_for(
            lambda event, data: event == "state" and data["server"]["status"] == "failed"
        )
        assert "about to exit on purpose" in state["server"]["error"]
        refused = inspector.api("POST", "/api/calls", {"tool": "add", "arguments": {}})
        assert refused.status_code == 409
        assert inspector.api("POST", "/api/reload").status_code == 202
        assert inspector.ready(generation=2)["server"]["status"] == "ready"
        assert inspector.finished(inspector.call("add", {"a": 1, "b": 1}))["status"] == "ok"


def test_edits_restart_the_server_and_a_broken_file_shows_why(server_file: Path) -> None:
    with start_inspector(server_file.name, cwd=server_file.parent) as inspector:
        assert inspector.ready()["server"]["generation"] == 1
        server_file.write_text(
            SERVER + '\n\n@mcp.tool()\ndef added() -> str:\n    return "new"\n', encoding="utf-8"
        )
        state = inspector.ready(generation=2)
        assert state["server"]["status"] == "ready"
        assert "added" in {tool["name"] for tool in state["tools"]}
        server_file.write_text(SERVER + "\ndef broken(:\n", encoding="utf-8")
        state = inspector.ready(generation=3)
        assert state["server"]["status"] == "failed"
        assert "SyntaxError" in state["server"]["error"] or "syntax" in state["server"]["error"]
        assert "inspected.py" in state["server"]["error"]
        server_file.write_text(SERVER, encoding="utf-8")
        state = inspector.ready(generation=4)
        assert state["server"]["status"] == "ready" and state["server"]["error"] is None


def test_unknown_tools_and_bad_arguments(server_file: Path) -> None:
    with start_inspector(server_file) as inspector:
        inspector.ready()
        unknown = inspector.finished(inspector.call("ad", {}))
        assert unknown["status"] == "failed" and "add" in unknown["failure"]  # did you mean
        invalid = inspector.finished(inspector.call("add", {"a": "x"}))
        assert invalid["status"] == "error"  # the server's isError naming the fields
        text = invalid["result"]["content"][0]["text"]
        assert "a" in text and "b" in text
        assert inspector.api("POST", "/api/history/clear").status_code == 200
        assert inspector.state()["calls"] == []


@pytest.fixture(scope="module")
def calculator_inspector() -> Any:
    with start_inspector(EXAMPLES / "calculator.py") as inspector:
        inspector.ready()
        yield inspector


def test_the_page_and_its_headers(calculator_inspector: Inspector) -> None:
    import httpx

    page = httpx.get(calculator_inspector.url, timeout=10)
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    assert "default-src 'self'" in page.headers["content-security-policy"]
    assert page.headers["x-frame-options"] == "DENY"
    for asset in ("/static/inspector.js", "/static/inspector.css"):
        answer = httpx.get(calculator_inspector.base + asset, timeout=10)
        assert answer.status_code == 200 and answer.content
    for bad in ("/static/../app.py", "/static/%2e%2e/app.py", "/app.py", "/static/nope.js"):
        assert httpx.get(calculator_inspector.base + bad, timeout=10).status_code == 404


@pytest.mark.parametrize(
    ("headers", "status"),
    [
        ({"X-Toolwire-Token": ""}, 403),
        ({"X-Toolwire-Token": "wrong"}, 403),
        ({"Host": "attacker.example:80"}, 403),  # DNS rebinding
        ({"Origin": "http://attacker.example"}, 403),  # another site's page
        ({"Content-Type": "text/plain"}, 415),  # no simple cross-site form posts
    ],
)
def test_requests_not_from_the_page_are_refused(
    calculator_inspector: Inspector, headers: dict[str, str], status: int
) -> None:
    answer = calculator_inspector.api(
        "POST", "/api/calls", {"tool": "add", "arguments": {"a": 1, "b": 2}}, **headers
    )
    assert answer.status_code == status, answer.text
    assert "error" in answer.json()


@pytest.mark.parametrize(
    ("body", "status"),
    [
        ([1, 2], 400),
        ({"arguments": {}}, 400),
        ({"tool": "add", "arguments": [1]}, 400),
    ],
)
def test_bad_bodies_get_clear_errors(
    calculator_inspector: Inspector, body: Any, status: int
) -> None:
    answer = calculator_inspector.api("POST", "/api/calls", body)
    assert answer.status_code == status and answer.json()["error"]


@pytest.mark.parametrize(
    ("path", "body"),
    [
        ("/api/resources/read", {"uri": 1}),
        ("/api/resources/read", ["docs://x"]),
        ("/api/prompts/get", {"name": "p", "arguments": {"n": 1}}),
        ("/api/prompts/get", {"arguments": {}}),
        ("/api/complete", {"ref": "p", "argument": {}}),
    ],
)
def test_bad_exchanges_get_clear_errors(
    calculator_inspector: Inspector, path: str, body: Any
) -> None:
    answer = calculator_inspector.api("POST", path, body)
    assert answer.status_code == 400 and answer.json()["error"]


def test_an_exchange_the_server_refuses_is_an_error_answer(
    calculator_inspector: Inspector,
) -> None:
    answer = calculator_inspector.api("POST", "/api/resources/read", {"uri": "config://none"})
    assert answer.status_code == 200
    body = answer.json()
    assert "-32601" in body["error"]  # the calculator offers no resources
    assert [entry["direction"] for entry in body["traffic"]] == ["send", "receive"]
    checker = WireChecker(MODERN, strict_client=True)
    checker.client_sent(body["traffic"][0]["message"])
    checker.server_sent(body["traffic"][1]["message"])


def raw_http(inspector: Inspector, data: bytes) -> bytes:
    host, port = inspector.base.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=10) as sock:
        sock.sendall(data)
        sock.shutdown(socket.SHUT_WR)
        chunks = []
        while chunk := sock.recv(65536):
            chunks.append(chunk)
    return b"".join(chunks)


@pytest.mark.parametrize(
    ("request_bytes", "status"),
    [
        (b"NONSENSE\r\n\r\n", b"400"),
        (b"GET / HTTP/1.1\r\n" + b"X: " + b"y" * 20000 + b"\r\n\r\n", b"400"),
        (b"POST /api/calls HTTP/1.1\r\nContent-Length: 99999999\r\n\r\n", b"413"),
        (b"POST /api/calls HTTP/1.1\r\nContent-Length: -5\r\n\r\n", b"400"),
        (b"POST /api/calls HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n", b"400"),
    ],
)
def test_malformed_http_is_refused_and_the_inspector_goes_on(
    calculator_inspector: Inspector, request_bytes: bytes, status: bytes
) -> None:
    answer = raw_http(calculator_inspector, request_bytes)
    assert answer.split(b" ")[1] == status, answer[:200]
    assert calculator_inspector.state()["server"]["status"] == "ready"


@pytest.mark.parametrize("revision", REVISIONS)
def test_any_server_started_by_a_command(revision: str) -> None:
    """Not only toolwire: here the official SDK's server, over stdio."""
    command = f"{sys.executable} {SERVERS / 'sdk_primitives.py'}"
    with start_inspector(None, "--command", command, "--protocol-version", revision) as inspector:
        state = inspector.ready()
        assert state["server"]["status"] == "ready", state["server"]
        assert (state["server"]["kind"], state["server"]["file"]) == ("command", command)
        assert state["server"]["name"] == "sdk-primitives"
        assert "config://app" in {resource["uri"] for resource in state["resources"]}
        read = inspector.api("POST", "/api/resources/read", {"uri": "config://app"}).json()
        assert read["result"]["contents"][0]["text"] == "debug = true"
        checked_traffic(read, revision)
        touched = inspector.finished(inspector.call("touch", {"uri": "config://app"}))
        assert touched["status"] == "ok"


@pytest.mark.parametrize("revision", REVISIONS)
def test_a_server_at_a_url(revision: str) -> None:
    server = runpy.run_path(str(EXAMPLES / "calculator.py"))["mcp"]
    with (
        serve_http(server) as url,
        start_inspector(url, "--protocol-version", revision) as inspector,
    ):
        state = inspector.ready()
        assert state["server"]["status"] == "ready", state["server"]
        assert (state["server"]["kind"], state["server"]["file"]) == ("url", url)
        call = inspector.finished(inspector.call("divide", {"a": 1, "b": 0}))
        assert call["status"] == "error" and call["result"]["isError"] is True
        checked_traffic(call, revision)


def test_a_protected_server_at_a_url_takes_headers() -> None:
    locked = Server(
        "Locked", auth=ResourceServer("http://127.0.0.1/mcp", [], StaticTokens({"t0k3n": ["mcp"]}))
    )

    @locked.tool()
    def secret() -> str:
        """Only for callers with a token."""
        return "opened"

    with serve_http(locked) as url:
        with start_inspector(url, status="failed") as refused:
            server = refused.ready()["server"]
            assert server["status"] == "failed"
            assert server["error"] == (
                f"{url} answered HTTP 401 Unauthorized: it serves only callers with a token."
            )
            assert server["auth"] == {
                "status": 401,
                "command": f"toolwire dev {url} --header 'Authorization: Bearer TOKEN'",
            }
            callback = refused.api("GET", "/oauth/callback?code=c&state=s")
            assert callback.status_code == 404  # no sign-in is waiting
        with start_inspector(
            url, "--header", "Authorization: Bearer n0p3", status="failed"
        ) as wrong:
            server = wrong.ready()["server"]
            assert "refused the token it was given (HTTP 401 Unauthorized)" in server["error"]
        with start_inspector(url, "--header", "Authorization: Bearer t0k3n") as inspector:
            assert inspector.ready()["server"]["status"] == "ready"
            call = inspector.finished(inspector.call("secret", {}))
            assert call["result"]["content"][0]["text"] == "opened"
            checked_traffic(call, MODERN)


def test_a_token_without_the_scope_is_explained() -> None:
    verifier = StaticTokens({"reader": ["files:read"]})
    strict = Server(
        "Strict",
        auth=ResourceServer("http://127.0.0.1/mcp", [], verifier, required_scopes=["files:admin"]),
    )
    with (
        serve_http(strict) as url,
        start_inspector(url, "--header", "Authorization: Bearer reader", status="failed") as dev,
    ):
        server = dev.ready()["server"]
        assert server["auth"]["status"] == 403
        assert server["error"].startswith(
            f"{url} refused the token (HTTP 403 Forbidden): it lacks a permission the server "
            "needs (scope: files:admin)"
        )


@pytest.mark.parametrize(
    "arguments",
    [
        ["--no-browser"],
        ["x.py", "--command", "python x.py", "--no-browser"],
        ["--command", "python x.py", "--header", "A: b"],
        ["http://127.0.0.1:9/mcp", "--header", "no colon"],
    ],
)
def test_dev_usage_errors_are_one_line(arguments: list[str]) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "toolwire", "dev", *arguments],
        capture_output=True,
        text=True,
        timeout=20,
    )
    assert done.returncode == 2 and "toolwire:" in done.stderr and "Traceback" not in done.stderr


def test_a_missing_file_is_a_usage_error(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "toolwire", "dev", str(tmp_path / "nope.py"), "--no-browser"],
        capture_output=True,
        text=True,
        timeout=20,
    )
    assert done.returncode == 2
    assert "nope.py" in done.stderr and "Traceback" not in done.stderr


def test_ctrl_c_stops_the_inspector_and_its_server(server_file: Path) -> None:
    with start_inspector(server_file) as inspector:
        inspector.ready()
        children = Path(f"/proc/{inspector.process.pid}/task/{inspector.process.pid}/children")
        server_pids = children.read_text().split() if children.exists() else []
    assert inspector.process.returncode == 0
    for pid in server_pids:
        assert not Path(f"/proc/{pid}").exists() or "Z" in _proc_state(pid)


def _proc_state(pid: str) -> str:
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0]
    except OSError:
        return "Z"
