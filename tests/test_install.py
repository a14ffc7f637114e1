"""``toolwire install``, run as real subprocesses with HOME and the config folders in tmp_path.

Each host's file is compared with a golden file in ``tests/data/install/<host>.json`` (the
interpreter, the examples folder and URLs replaced by placeholders): a local entry with
environment variables and a URL entry with a header, added to a file that already has
another server and other settings. Set ``TOOLWIRE_UPDATE_GOLDEN=1`` to rewrite them.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from http_server import serve_http
from mcp_spec import WireChecker
from wire import EXAMPLES

pytestmark = pytest.mark.timeout(60)

GOLDEN = Path(__file__).resolve().parent / "data" / "install"
CALCULATOR = EXAMPLES / "calculator.py"
FILES = EXAMPLES / "files.py"
TIMEOUT = 30.0
URL = "http://127.0.0.1:8000/mcp"
HOSTS = ("claude-desktop", "claude-code", "cursor", "vscode", "windsurf", "gemini-cli")


def app_config(home: Path) -> Path:
    if sys.platform == "darwin":
        return home / "Library" / "Application Support"
    if sys.platform == "win32":
        return home / "AppData" / "Roaming"
    return home / ".config"


def config_file(host: str, home: Path, project: bool = False) -> Path:
    work = home / "work"
    return {
        "claude-desktop": app_config(home) / "Claude" / "claude_desktop_config.json",
        "claude-code": work / ".mcp.json",
        "cursor": (work if project else home) / ".cursor" / "mcp.json",
        "vscode": work / ".vscode" / "mcp.json"
        if project
        else app_config(home) / "Code" / "User" / "mcp.json",
        "windsurf": home / ".codeium" / "windsurf" / "mcp_config.json",
        "gemini-cli": (work if project else home) / ".gemini" / "settings.json",
    }[host]


def toolwire(*args: str, home: Path) -> Any:
    env = dict(os.environ)
    env.update(
        HOME=str(home),
        USERPROFILE=str(home),
        XDG_CONFIG_HOME=str(app_config(home)),
        APPDATA=str(app_config(home)),
    )
    (home / "work").mkdir(parents=True, exist_ok=True)
    return subprocess.run(
        [sys.executable, "-m", "toolwire", "install", *args],
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        cwd=home / "work",
        env=env,
    )


def placeholders(text: str, *urls: str) -> Any:
    for url in urls:
        text = text.replace(url, "<url>")
    text = text.replace(json.dumps(sys.executable)[1:-1], "<python>")
    return json.loads(text.replace(json.dumps(str(EXAMPLES))[1:-1], "<examples>"))


def check_golden(name: str, value: Any) -> None:
    path = GOLDEN / f"{name}.json"
    if os.environ.get("TOOLWIRE_UPDATE_GOLDEN"):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(value, indent=2) + "\n", encoding="utf-8")
    assert value == json.loads(path.read_text(encoding="utf-8")), f"differs from {path}"


def no_traceback(result: Any) -> None:
    assert "Traceback" not in result.stderr, result.stderr


# ------------------------------------------------------------------ golden files per host


@pytest.mark.parametrize("host", HOSTS)
def test_each_host_gets_its_documented_file_and_shape(tmp_path: Path, host: str) -> None:
    home = tmp_path / "home"
    path = config_file(host, home)
    path.parent.mkdir(parents=True)
    key = "servers" if host == "vscode" else "mcpServers"
    before = {"theme": "dark", key: {"other": {"command": "other-server"}}}
    path.write_text(json.dumps(before), encoding="utf-8")
    env_file = tmp_path / ".env"
    env_file.write_text(
        "# the calculator's settings\nexport API_KEY='s3cret'\nREGION=eu # a comment\n\n",
        encoding="utf-8",
    )

    local = toolwire(
        str(CALCULATOR), "--client", host, "--env-file", str(env_file), "--env", "DEBUG=1",
        home=home,
    )  # fmt: skip
    assert local.returncode == 0, local.stderr
    no_traceback(local)
    assert local.stderr == ""  # nothing to warn about
    report = local.stdout
    assert f"added 'Calculator' to {path}" in report
    assert "environment: API_KEY, REGION, DEBUG" in report
    assert f'undo: delete "Calculator" under "{key}" in that file' in report
    assert f"restore the previous file {path}.bak" in report
    assert json.loads(path.with_name(path.name + ".bak").read_text(encoding="utf-8")) == before

    remote = toolwire(
        str(CALCULATOR), "--client", host, "--url", URL, "--name", "calc-http",
        "--header", "Authorization: Bearer t0ken", home=home,
    )  # fmt: skip
    if host == "claude-desktop":  # remote servers are connectors there, not file entries
        assert remote.returncode == 2 and "Settings > Connectors" in remote.stderr
        no_traceback(remote)
    else:
        assert remote.returncode == 0, remote.stderr
        assert f"connects to: {URL}" in remote.stdout
    check_golden(host, placeholders(path.read_text(encoding="utf-8"), URL))
    leftovers = {p.name for p in path.parent.iterdir()} - {path.name, path.name + ".bak"}
    assert not leftovers  # no temporary file left beside the configuration


def test_json_prints_the_entry_and_writes_nothing(tmp_path: Path) -> None:
    home = tmp_path / "home"
    result = toolwire(str(CALCULATOR), "--json", "--env", "DEBUG=1", home=home)
    assert result.returncode == 0, result.stderr
    check_golden("json", placeholders(result.stdout))
    shaped = toolwire(str(CALCULATOR), "--json", "--client", "gemini-cli", "--url", URL, home=home)
    assert json.loads(shaped.stdout) == {"Calculator": {"httpUrl": URL}}
    assert [p for p in home.rglob("*") if p.is_file()] == []


# ------------------------------------------------------------------ where, and what it says


def test_project_files_and_the_report_says_which(tmp_path: Path) -> None:
    home = tmp_path / "home"
    for host in ("cursor", "vscode", "gemini-cli"):
        result = toolwire(str(CALCULATOR), "--client", host, "--project", home=home)
        assert result.returncode == 0, result.stderr
        path = config_file(host, home, project=True)
        assert f"added 'Calculator' to {path} (this project's file)" in result.stdout
        assert path.is_file() and not config_file(host, home).exists()
    # Claude Code's only file is the project's; the report gives the user-wide command too.
    code = toolwire(str(CALCULATOR), "--client", "claude-code", home=home)
    assert f"{home / 'work' / '.mcp.json'} (this project's file)" in code.stdout
    assert 'claude mcp add-json --scope user Calculator \'{"type": "stdio"' in code.stdout
    refused = toolwire(str(CALCULATOR), "--client", "windsurf", "--project", home=home)
    assert refused.returncode == 2 and "no project file" in refused.stderr
    user = toolwire(str(CALCULATOR), "--client", "vscode", home=home)
    assert f"to {config_file('vscode', home)} (user-wide)" in user.stdout


def test_same_name_needs_force_and_a_rerun_changes_nothing(tmp_path: Path) -> None:
    home = tmp_path / "home"
    path = config_file("cursor", home)
    assert toolwire(str(CALCULATOR), "--client", "cursor", home=home).returncode == 0
    again = toolwire(str(CALCULATOR), "--client", "cursor", home=home)
    assert again.returncode == 0 and f"'Calculator' is already in {path}" in again.stdout
    assert not path.with_name("mcp.json.bak").exists()  # nothing was rewritten
    other = tmp_path / "calc2.py"
    other.write_text('from toolwire import Server\nmcp = Server("Calculator")\n', "utf-8")
    refused = toolwire(str(other), "--client", "cursor", home=home)
    assert refused.returncode == 2 and "--force" in refused.stderr
    forced = toolwire(str(other), "--client", "cursor", "--force", home=home)
    assert forced.returncode == 0 and "replaced 'Calculator'" in forced.stdout
    entry = json.loads(path.read_text(encoding="utf-8"))["mcpServers"]["Calculator"]
    assert entry["args"][-1] == str(other.resolve())


def test_config_option_and_a_broken_file(tmp_path: Path) -> None:
    home = tmp_path / "home"
    path = tmp_path / "new" / "mcp.json"
    result = toolwire(
        f"{CALCULATOR}:mcp", "--client", "cursor", "--config", str(path), "--name", "calc",
        home=home,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith(f"Cursor: added 'calc' to {path}\n")
    config = json.loads(path.read_text(encoding="utf-8"))
    assert config["mcpServers"]["calc"]["args"][-1] == f"{CALCULATOR.resolve()}:mcp"
    broken = tmp_path / "broken.json"
    broken.write_text('{\n  "mcpServers": {,\n}\n', encoding="utf-8")
    result = toolwire(str(CALCULATOR), "--client", "cursor", "--config", str(broken), home=home)
    assert result.returncode == 2
    assert f"{broken}:2:" in result.stderr and "not valid JSON" in result.stderr
    assert broken.read_text(encoding="utf-8") == '{\n  "mcpServers": {,\n}\n'
    no_traceback(result)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ((), "install needs --client"),
        (("--client", "cursor", "--env", "NO-EQUALS"), "write it as KEY=VALUE"),
        (("--client", "cursor", "--env-file", "missing.env"), "--env-file missing.env"),
        (("--client", "cursor", "--header", "X: y"), "--header is for a URL entry"),
        (("--client", "cursor", "--url", URL, "--env", "A=1"), "a URL server is already running"),
        (("--client", "cursor", "--url", "ftp://x"), "an http:// or https:// URL"),
        (("--json", "--force"), "--json writes nothing"),
    ],
)
def test_usage_errors_are_one_line(tmp_path: Path, args: tuple[str, ...], message: str) -> None:
    result = toolwire(str(CALCULATOR), *args, home=tmp_path / "home")
    assert result.returncode == 2
    assert message in result.stderr and len(result.stderr.splitlines()) == 1, result.stderr
    assert [p for p in (tmp_path / "home").rglob("*") if p.is_file()] == []


# ------------------------------------------------------------------ servers that cannot work


def test_a_server_whose_tools_all_need_scopes_is_installed_with_a_warning(tmp_path: Path) -> None:
    home = tmp_path / "home"
    result = toolwire(str(FILES), "--client", "cursor", home=home)
    assert result.returncode == 0, result.stderr
    assert result.stderr.startswith("toolwire: warning: the host will list 0 tools: all 4 tools")
    assert "files:read, files:write" in result.stderr and "--url URL" in result.stderr
    assert "added 'Files'" in result.stdout
    # As the URL it is served at, it can work: no warning.
    remote = toolwire(str(FILES), "--client", "cursor", "--url", URL, "--force", home=home)
    assert remote.returncode == 0 and remote.stderr == "", remote.stderr
    entry = json.loads(config_file("cursor", home).read_text(encoding="utf-8"))
    assert entry["mcpServers"]["Files"] == {"url": URL}


def test_some_tools_hidden_says_which(tmp_path: Path) -> None:
    server = tmp_path / "mixed.py"
    server.write_text(
        "import contextlib, pathlib\nfrom toolwire import Server\n"
        "@contextlib.asynccontextmanager\nasync def life(server):\n"
        f"    pathlib.Path({str(tmp_path / 'started')!r}).touch()\n    yield\n"
        "mcp = Server('Mixed', lifespan=life)\n"
        "@mcp.tool()\ndef open_tool() -> str:\n    return 'x'\n"
        "@mcp.tool(scopes=['admin'])\ndef admin_tool() -> str:\n    return 'y'\n",
        encoding="utf-8",
    )
    result = toolwire(str(server), "--json", home=tmp_path / "home")
    assert result.returncode == 0, result.stderr
    assert "the host will list 1 of 2 tools: admin_tool need scopes (admin)" in result.stderr
    assert not (tmp_path / "started").exists()  # checked without starting the server


class Recorded:
    """A toolwire server whose HTTP app feeds every message to a WireChecker."""

    def __init__(self, server: Any) -> None:
        self.server, self.checker = server, WireChecker()

    def http_app(self, path: str, **options: Any) -> Any:
        app = self.server.http_app(path, **options)
        checker = self.checker

        async def recorded(scope: Any, receive: Any, send: Any) -> None:
            if scope["type"] != "http":
                return await app(scope, receive, send)
            body, answer, kind = bytearray(), bytearray(), [""]

            async def receive_body() -> Any:
                message = await receive()
                body.extend(message.get("body", b""))
                if not message.get("more_body") and body:
                    checker.client_sent(bytes(body))
                return message

            async def send_body(message: Any) -> None:
                if message["type"] == "http.response.start":
                    headers = dict(message.get("headers", []))
                    ok = message["status"] < 300  # a 401 answers with no JSON-RPC message
                    kind[0] = headers.get(b"content-type", b"").decode() if ok else ""
                elif message["type"] == "http.response.body":
                    answer.extend(message.get("body", b""))
                    if not message.get("more_body"):
                        record(kind[0], bytes(answer))
                await send(message)

            await app(scope, receive_body, send_body)

        def record(kind: str, data: bytes) -> None:
            if kind.startswith("application/json") and data:
                checker.server_sent(data)
            elif kind.startswith("text/event-stream"):
                for line in data.decode().splitlines():
                    if line.startswith("data:") and line[5:].strip():
                        checker.server_sent(line[5:].strip())

        return recorded


@contextlib.contextmanager
def served(server: Any) -> Iterator[tuple[str, WireChecker]]:
    recorded = Recorded(server)
    with serve_http(recorded) as url:
        yield url, recorded.checker


def served_calculator() -> Any:
    from toolwire.cli.loading import load_server

    return served(load_server(str(CALCULATOR)))


def test_a_url_target_is_probed_for_its_name_over_real_http(tmp_path: Path) -> None:
    home = tmp_path / "home"
    with served_calculator() as (url, checker):
        result = toolwire(url, "--client", "vscode", home=home)
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    assert checker.checked > 0  # the probe's messages, each valid for its revision
    checker.close()
    assert f"VS Code: added 'Calculator' to {config_file('vscode', home)}" in result.stdout
    config = json.loads(config_file("vscode", home).read_text(encoding="utf-8"))
    assert config == {"servers": {"Calculator": {"type": "http", "url": url}}}


def test_a_url_that_does_not_answer_needs_a_name_and_warns(tmp_path: Path) -> None:
    home = tmp_path / "home"
    dead = "http://127.0.0.1:9/mcp"  # the discard port: nothing listens there
    unnamed = toolwire(dead, "--client", "windsurf", home=home)
    assert unnamed.returncode == 2 and "give --name NAME" in unnamed.stderr
    assert f"warning: could not reach {dead}" in unnamed.stderr
    named = toolwire(dead, "--client", "windsurf", "--name", "later", home=home)
    assert named.returncode == 0 and "start it before the host connects" in named.stderr
    config = json.loads(config_file("windsurf", home).read_text(encoding="utf-8"))
    assert config == {"mcpServers": {"later": {"serverUrl": dead}}}
    no_traceback(named)


def test_a_url_that_asks_for_a_token_says_so_and_takes_a_header(tmp_path: Path) -> None:
    from toolwire import Server
    from toolwire.auth import ResourceServer, StaticTokens

    auth = ResourceServer("http://127.0.0.1/mcp", [], StaticTokens({"tok": ["files:read"]}))
    home = tmp_path / "home"
    with served(Server("Guarded", auth=auth)) as (url, checker):
        refused = toolwire(url, "--client", "claude-code", home=home)
        accepted = toolwire(
            url, "--client", "claude-code", "--header", "Authorization: Bearer tok", home=home
        )
    assert refused.returncode == 2
    assert f"warning: {url} asks for authorization (HTTP 401)" in refused.stderr
    assert "--header 'Authorization: Bearer TOKEN'" in refused.stderr
    assert accepted.returncode == 0 and accepted.stderr == "", accepted.stderr
    assert checker.checked > 0
    checker.close()
    assert "headers: Authorization (stored in that file)" in accepted.stdout
    assert "Bearer tok" not in accepted.stdout  # names, never values
    assert '"headers": {"Authorization": "<Authorization>"}}\' (with the values' in accepted.stdout
    config = json.loads((home / "work" / ".mcp.json").read_text(encoding="utf-8"))
    assert config["mcpServers"]["Guarded"] == {
        "type": "http",
        "url": url,
        "headers": {"Authorization": "Bearer tok"},
    }
