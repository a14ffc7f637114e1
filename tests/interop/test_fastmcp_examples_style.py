"""What FastMCP's published examples use beyond ``servers/fastmcp3_style.py`` runs the same
on toolwire after ``toolwire migrate``.

``servers/fastmcp_examples_style.py`` serves the components of the files in
``servers/fastmcp_components/`` (``FileSystemProvider``) and the skill folders of
``servers/fastmcp_skills/`` (``SkillsDirectoryProvider``), mounts a server with ``namespace=``, reads
``ctx.transport`` and ``ctx.session_id``, keeps per-session state, and shows tools to one
session (``ctx.enable_components(tags=...)``, ``ctx.reset_visibility()``). It runs over
stdio on FastMCP itself (the pinned peer of tests/interop/peers.py, which speaks the legacy
revisions) and, as a copy ``toolwire migrate`` rewrote, on toolwire; the official client
(``mcp.Client``) must see the same. On 2026-07-28 (the official client's "auto" mode) a stdio
connection has one client, so it is the scope of the session's id, state and visibility,
as a legacy session is: checked on toolwire alone. Every message toolwire sends is checked
against the schema of the negotiated revision.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import IO, Any

import anyio
import pytest
from mcp import Client

from interop import peers
from interop.test_lowlevel_sdk_styles import outcome, stdio
from interop.test_lowlevel_sdk_styles import stderr as stderr  # the fixture

from mcp_spec import WireChecker

pytestmark = [pytest.mark.timeout(180), pytest.mark.peers("fastmcp")]

SERVERS = Path(__file__).resolve().parent.parent / "servers"
SCRIPT = "fastmcp_examples_style.py"
COMPONENTS = "fastmcp_components"
SKILLS = "fastmcp_skills"
TIMEOUT = 90.0


async def names(client: Client) -> list[str]:
    """The tools listed now: on 2026-07-28 the client caches a listing for its ``ttlMs``,
    and a change of one connection's visibility reaches only its ``subscriptions/listen``
    streams, so the listing is fetched again."""
    return sorted(tool.name for tool in (await client.list_tools(cache_mode="refresh")).tools)


async def said(client: Client, name: str, arguments: dict[str, Any]) -> Any:
    """The text a call answered, or "refused" (each framework words its refusals)."""
    done = await outcome(client.call_tool(name, arguments))
    if "error" in done or done.get("isError"):
        return "refused"
    structured = done.get("structuredContent")
    if isinstance(structured, dict) and list(structured) != ["result"]:  # FastMCP's -> str
        return structured
    return done["content"][0]["text"]


async def exercise(client: Client) -> dict[str, Any]:
    seen: dict[str, Any] = {"protocol": client.protocol_version}
    seen["tools"] = await names(client)
    seen["forecast"] = await said(client, "weather_forecast", {"city": "Oslo"})
    seen["shout"] = await said(client, "shout-text", {"text": "hi"})
    seen["whisper"] = await said(client, "whisper", {"text": "HI"})
    resources = (await client.list_resources()).resources
    seen["resources"] = sorted((str(r.uri), r.description, r.mime_type) for r in resources)
    seen["skill marks"] = sorted(
        (str(r.uri), sorted((r.meta or {}).get("fastmcp", {}).get("skill", {}).items()))
        for r in resources
        if str(r.uri).startswith("skill://")
    )
    templates = (await client.list_resource_templates()).resource_templates
    seen["templates"] = sorted((t.uri_template, t.name, t.description) for t in templates)
    for uri in SKILL_READS:
        read = await outcome(client.read_resource(uri))
        contents = read.get("contents", ())
        seen[uri] = [(item.get("text"), item.get("mimeType")) for item in contents] or "refused"
    # a supporting file's MIME type: the template's (application/octet-stream) on toolwire and
    # FastMCP 4, text/plain for a text file on FastMCP 3
    seen["skill://greeting/docs/words.md"] = [text for text, _ in seen[SKILL_READS[2]]]
    for uri in ("config://app", "config://env/dev"):
        read = await outcome(client.read_resource(uri))
        seen[uri] = [(item["text"], item["mimeType"]) for item in read["contents"]]
    prompts = (await client.list_prompts()).prompts
    seen["prompts"] = [
        (p.name, p.description, [a.name for a in p.arguments or ()]) for p in prompts
    ]
    got = await outcome(client.get_prompt("explain-concept", {"topic": "MCP"}))
    seen["explained"] = got["messages"][0]["content"]["text"]
    read = await outcome(client.read_resource("weather://weather/today"))
    seen["today"] = read["contents"][0]["text"]
    seen["session"] = await said(client, "session_info", {})
    seen["recall before"] = await said(client, "recall", {"key": "city"})
    seen["remember"] = await said(client, "remember", {"key": "city", "value": "Oslo"})
    seen["recall after"] = await said(client, "recall", {"key": "city"})
    seen["quote hidden"] = await said(client, "quote", {"symbol": "ACME"})
    seen["activate"] = await said(client, "activate_finance", {})
    seen["tools activated"] = await names(client)
    seen["quote shown"] = await said(client, "quote", {"symbol": "ACME"})
    seen["deactivate"] = await said(client, "deactivate_all", {})
    seen["tools deactivated"] = await names(client)
    seen["quote hidden again"] = await said(client, "quote", {"symbol": "ACME"})
    return seen


async def drive(command: list[str], stderr: IO[str], mode: str, checked: bool) -> dict[str, Any]:
    checker = WireChecker() if checked else None
    with anyio.fail_after(TIMEOUT):
        async with Client(stdio(command, stderr, checker), mode=mode) as client:
            seen = await exercise(client)
    if checker is not None:
        checker.close()
        assert checker.checked > 15, checker.checked
    return seen


def migrated(folder: Path) -> Path:
    """A copy of the server whose imports ``toolwire migrate`` rewrote."""
    copy = folder / SCRIPT
    shutil.copy(SERVERS / SCRIPT, copy)
    shutil.copytree(SERVERS / COMPONENTS, folder / COMPONENTS)
    shutil.copytree(SERVERS / SKILLS, folder / SKILLS)
    done = subprocess.run(
        [sys.executable, "-m", "toolwire", "migrate", str(folder)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    for path in [copy, *(folder / COMPONENTS).rglob("*.py")]:
        assert "fastmcp" not in "".join(
            line for line in path.read_text(encoding="utf-8").splitlines() if "import" in line
        ), path
    return copy


SKILL_READS = [
    "skill://greeting/SKILL.md",
    "skill://greeting/_manifest",
    "skill://greeting/docs/words.md",
    "skill://plain/SKILL.md",
    "skill://greeting/missing.md",
    "skill://greeting/../plain/SKILL.md",
]
EVERYONE = [
    "activate_finance",
    "deactivate_all",
    "recall",
    "remember",
    "session_info",
    "shout-text",
    "whisper",
]


def check_seen(seen: dict[str, Any]) -> None:
    """What every side must give, so that an equal failure is no pass."""
    assert seen["tools"] == sorted([*EVERYONE, "weather_forecast"])
    assert seen["forecast"] == "Sunny in Oslo"
    assert seen["shout"] == "HI" and seen["whisper"] == "hi"
    assert seen["resources"] == [
        ("config://app", "The app's configuration.", "application/json"),
        ("skill://greeting/SKILL.md", "Greet people in their language", "text/markdown"),
        ("skill://greeting/_manifest", "File listing for greeting", "application/json"),
        ("skill://plain/SKILL.md", "Plain skill", "text/markdown"),
        ("skill://plain/_manifest", "File listing for plain", "application/json"),
        ("weather://weather/today", "Today's weather.", "text/plain"),
    ]
    assert seen["skill marks"] == [
        (f"skill://{name}/{file}", [("is_manifest", file == "_manifest"), ("name", name)])
        for name in ("greeting", "plain")
        for file in ("SKILL.md", "_manifest")
    ]
    assert seen["templates"] == [
        ("config://env/{env}", "env_config", "One environment's configuration."),
        ("skill://greeting/{path*}", "greeting_files", "Access files within greeting"),
        ("skill://plain/{path*}", "plain_files", "Access files within plain"),
    ]
    skill = (SERVERS / SKILLS / "greeting" / "SKILL.md").read_text(encoding="utf-8")
    assert seen["skill://greeting/SKILL.md"] == [(skill, "text/markdown")]
    (manifest, kind), *_ = seen["skill://greeting/_manifest"]
    assert kind == "application/json"
    assert [entry["path"] for entry in json.loads(manifest)["files"]] == [
        "SKILL.md",
        "docs/words.md",
    ]
    assert seen["skill://greeting/docs/words.md"] == ["# Words\n\nhello, hallo, hola\n"]
    assert seen["skill://greeting/missing.md"] == "refused"
    assert seen["skill://greeting/../plain/SKILL.md"] == "refused"
    assert seen["config://app"] == [('{"name": "demo"}', "application/json")]
    assert seen["config://env/dev"] == [("settings of dev", "text/plain")]
    assert seen["prompts"] == [("explain-concept", "Explain a concept.", ["topic", "audience"])]
    assert seen["explained"] == "Explain MCP to a developer."
    assert seen["today"] == "sunny"
    assert seen["session"] == {"transport": "stdio", "session": "yes"}
    assert seen["recall before"] == "city is None (another session)"
    assert seen["remember"] == "kept city"
    assert seen["recall after"] == "city is Oslo (same session)"
    assert seen["quote hidden"] == "refused"
    assert seen["activate"] == "finance activated"
    assert seen["tools activated"] == sorted([*seen["tools"], "quote"])
    assert seen["quote shown"] == "ACME at 150.25"
    assert seen["deactivate"] == "all deactivated"
    assert seen["tools deactivated"] == seen["tools"]
    assert seen["quote hidden again"] == "refused"


async def test_fastmcp_examples_style_server_runs_the_same_on_toolwire(
    tmp_path: Path, stderr: IO[str]
) -> None:
    fastmcp_python = peers.fastmcp()
    command = [fastmcp_python, str(SERVERS / SCRIPT)]
    expected = await drive(command, stderr, "legacy", checked=False)
    check_seen(expected)
    seen = await drive([sys.executable, str(migrated(tmp_path))], stderr, "legacy", checked=True)
    assert seen == expected


async def test_on_2026_07_28_a_stdio_connection_is_the_session(
    tmp_path: Path, stderr: IO[str]
) -> None:
    """The official client's "auto" mode speaks 2026-07-28 to toolwire: over stdio the
    session's id, state and visibility follow the connection, as FastMCP's do."""
    seen = await drive([sys.executable, str(migrated(tmp_path))], stderr, "auto", checked=True)
    assert seen.pop("protocol") == "2026-07-28"
    check_seen(seen)
