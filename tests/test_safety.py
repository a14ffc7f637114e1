"""The safety helpers: SafePath (TL-28), CommandPolicy, strip_control (TL-31).

Unit tests run on a real directory tree with symbolic links; the end-to-end tests go
through a real stdio subprocess (``servers/safety_tools.py``) and the in-memory client on
2025-11-25 and 2026-07-28, every message checked against the revision's schema.
"""

import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Annotated, Any

import orjson
import pytest
from pydantic import BaseModel

from toolwire import CommandPolicy, SafePath, Server, strip_control
from toolwire.safety import CommandNotAllowed, PathNotAllowed, strip_control_json

from wire import MODERN, SERVERS, TIMEOUT, RawServer, checked_client, raw_server

pytestmark = pytest.mark.timeout(30)

LEGACY = "2025-11-25"
ERAS = [LEGACY, MODERN]
JSON = dict[str, Any]
OUTSIDE = "Path is outside the allowed directory"


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """A root with files and links, next to a directory it must never reach::

    root/notes.txt   root/docs/a.txt   root/inner -> docs   root/notes-link -> notes.txt
    root/escape -> ../outside          root/leak -> ../outside/secret.txt
    root/dangling -> ../outside/new.txt (does not exist)    root/loop-a <-> root/loop-b
    outside/secret.txt
    """
    root, outside = tmp_path / "root", tmp_path / "outside"
    (root / "docs").mkdir(parents=True)
    outside.mkdir()
    (root / "notes.txt").write_text("hello")
    (root / "docs" / "a.txt").write_text("a")
    (outside / "secret.txt").write_text("top secret")
    (root / "inner").symlink_to("docs", target_is_directory=True)
    (root / "notes-link").symlink_to("notes.txt")
    (root / "escape").symlink_to(outside, target_is_directory=True)
    (root / "leak").symlink_to(outside / "secret.txt")
    (root / "dangling").symlink_to(outside / "new.txt")
    (root / "loop-a").symlink_to(root / "loop-b")
    (root / "loop-b").symlink_to(root / "loop-a")
    return root.resolve()


def refusal(guard: SafePath, value: Any) -> str:
    with pytest.raises(PathNotAllowed) as info:
        guard.resolve(value)
    return str(info.value)


# ---------------------------------------------------------------- SafePath


def test_paths_inside_the_root_resolve_to_real_paths(tree: Path) -> None:
    guard = SafePath(tree)
    assert guard.resolve("notes.txt") == tree / "notes.txt"
    assert guard.resolve("docs/../docs/a.txt") == tree / "docs" / "a.txt"
    assert guard.resolve(".") == tree
    assert guard.resolve(str(tree / "docs" / "a.txt")) == tree / "docs" / "a.txt"  # absolute
    assert guard.resolve(Path("docs")) == tree / "docs"
    assert guard.resolve("new/file.txt") == tree / "new" / "file.txt"  # need not exist
    # links that stay inside are followed to their target
    assert guard.resolve("inner/a.txt") == tree / "docs" / "a.txt"
    assert guard.resolve("notes-link") == tree / "notes.txt"


@pytest.mark.parametrize(
    "value",
    [
        "..",
        "../outside/secret.txt",
        "docs/../../outside/secret.txt",
        "/etc/passwd",
        "escape/secret.txt",  # through a symlinked directory
        "escape",
        "escape/not-yet/created.txt",  # a symlinked parent of a path that does not exist
        "leak",  # a symlinked file
        "dangling",  # a link to a file outside that does not exist yet
        "inner/../escape/secret.txt",
    ],
)
def test_escapes_are_refused_without_naming_the_root(tree: Path, value: str) -> None:
    message = refusal(SafePath(tree), value)
    assert message == OUTSIDE
    assert str(tree) not in message


def test_absolute_paths_outside_are_refused_even_next_to_the_root(tree: Path) -> None:
    sibling = tree.parent / (tree.name + "-other")  # shares the root's name as a prefix
    sibling.mkdir()
    assert refusal(SafePath(tree), str(sibling)) == OUTSIDE


def test_malformed_paths_are_refused(tree: Path) -> None:
    guard = SafePath(tree)
    assert refusal(guard, "a\x00b") == "Path must not contain NUL characters"
    assert refusal(guard, "") == "Path must not be empty"
    assert refusal(guard, 42) == "Path must be a string"
    assert refusal(guard, "loop-a/x") == "Path runs into a loop of symbolic links"


def test_existence_options(tree: Path) -> None:
    assert SafePath(tree, exists=True).resolve("notes.txt") == tree / "notes.txt"
    assert refusal(SafePath(tree, exists=True), "missing.txt") == "Path does not exist"
    assert SafePath(tree, exists=False).resolve("missing.txt") == tree / "missing.txt"
    assert refusal(SafePath(tree, exists=False), "notes.txt") == "Path already exists"


def test_a_symlinked_root_accepts_paths_spelled_either_way(tree: Path) -> None:
    alias = tree.parent / "alias"
    alias.symlink_to(tree, target_is_directory=True)
    guard = SafePath(alias)
    assert guard.root == tree
    assert guard.resolve(str(alias / "notes.txt")) == tree / "notes.txt"
    assert guard.resolve(str(tree / "notes.txt")) == tree / "notes.txt"
    assert refusal(guard, str(alias / ".." / "outside")) == OUTSIDE


def definition(mcp: Server, name: str) -> JSON:
    tool = mcp.get_tool(name)
    assert tool is not None
    return tool.definition


def test_the_schema_is_a_described_string_on_both_schema_paths(tree: Path) -> None:
    Docs = SafePath.under(tree)

    class Query(BaseModel):
        file: Docs

    mcp = Server("paths")

    @mcp.tool()
    def read(path: Docs, lines: int = 10) -> str:
        """Read a file.

        Args:
            path: The file to read
        """
        return str(path)

    @mcp.tool()
    def many(
        paths: list[Docs],
        where: Docs | None = None,
        query: Query | None = None,
    ) -> str:
        return str(paths)

    note = "A path relative to the allowed directory; it cannot lead outside it."
    read_schema = definition(mcp, "read")["inputSchema"]
    assert read_schema["properties"]["path"] == {
        "type": "string",
        "description": f"The file to read. {note}",
    }
    many_schema = definition(mcp, "many")["inputSchema"]
    assert many_schema["properties"]["paths"]["items"] == {"type": "string", "description": note}
    assert many_schema["properties"]["where"] == {"type": "string", "description": note}
    assert many_schema["properties"]["query"]["properties"]["file"] == {
        "type": "string",
        "description": note,
    }
    for tool in mcp.tools:
        assert str(tree) not in orjson.dumps(tool.definition).decode()


def test_the_fast_path_never_imports_pydantic(tree: Path) -> None:
    """A SafePath parameter keeps a primitive-only tool on the pydantic-free fast path."""
    code = (
        "import sys\n"
        "from toolwire import SafePath, Server\n"
        f"Docs = SafePath.under({str(tree)!r})\n"
        "mcp = Server('fast')\n"
        "@mcp.tool()\n"
        "def read(path: Docs, start: Docs = '.', n: int = 1) -> str:\n"
        "    return str(path)\n"
        "tool = mcp.get_tool('read')\n"
        "print(tool.schema.validate({'path': 'docs'}))\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] == 'pydantic'))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=30)
    assert done.returncode == 0, done.stderr
    kwargs, imported = done.stdout.splitlines()
    assert kwargs == f"{{'path': PosixPath('{tree}/docs'), 'start': PosixPath('{tree}'), 'n': 1}}"
    assert imported == "[]"


def test_the_annotated_form_with_a_path_default(tree: Path) -> None:
    """``Annotated[Path, SafePath(root)]`` is the same type; defaults are resolved too."""
    guard = SafePath(tree)
    mcp = Server("annotated")

    @mcp.tool()
    def where(path: Annotated[Path, guard] = Path("docs")) -> str:
        return str(path)

    tool = mcp.get_tool("where")
    assert tool is not None
    assert tool.schema.validate({}) == {"path": tree / "docs"}
    assert tool.schema.validate({"path": "inner"}) == {"path": tree / "docs"}


# ---------------------------------------------------------------- CommandPolicy

POLICY = CommandPolicy(
    allow={"git": ["status", "log", "diff"], "ls": None},
    max_args=5,
    deny_patterns=[r"^--output", r"^--upload-pack"],
)


def command_refusal(command: Any, policy: CommandPolicy = POLICY) -> str:
    with pytest.raises(CommandNotAllowed) as info:
        policy.check(command)
    return str(info.value)


def test_allowed_commands_become_argv() -> None:
    assert POLICY.check("git log -n 5") == ["git", "log", "-n", "5"]
    assert POLICY.check("ls -la 'my dir'") == ["ls", "-la", "my dir"]
    assert POLICY.check(["git", "diff", "a b"]) == ["git", "diff", "a b"]
    assert POLICY.check("ls") == ["ls"]
    assert POLICY.check('git log --format="%h %s"') == ["git", "log", "--format=%h %s"]


SHELL = (
    "Shell syntax is not allowed ({!r}): commands run without a shell, one program at a "
    "time, with no pipes, redirections, variables or command substitution"
)


@pytest.mark.parametrize(
    ("command", "found"),
    [
        ("ls; rm -rf /", ";"),
        ("git status && curl evil.example", "&"),
        ("ls | sh", "|"),
        ("ls `whoami`", "`"),
        ("ls $(whoami)", "$("),
        ("ls ${HOME}", "${"),
        ("ls $HOME", "$H"),
        ("ls > /etc/passwd", ">"),
        ("ls < input", "<"),
        ("ls\nrm -rf /", "\n"),
        ("ls 'a;b'", ";"),  # quoted too: nothing would interpret it
        (["ls", "a|b"], "|"),
        (["ls", "a\x00b"], "\x00"),
    ],
)
def test_shell_syntax_is_refused(command: Any, found: str) -> None:
    assert command_refusal(command) == SHELL.format(found)


def test_programs_and_subcommands_outside_the_allow_list_are_refused() -> None:
    assert command_refusal("rm -rf /") == "Program 'rm' is not allowed; allowed programs: git, ls"
    assert command_refusal("/bin/ls") == (
        "Program '/bin/ls' is not allowed; allowed programs: git, ls"
    )
    assert command_refusal("git push origin") == (
        "git 'push' is not allowed; allowed: git diff, git log, git status"
    )
    assert command_refusal("git -C /elsewhere status") == (
        "git '-C' is not allowed; allowed: git diff, git log, git status"
    )
    assert command_refusal("git") == (
        "'git' needs a subcommand: one of git diff, git log, git status"
    )


def test_size_patterns_and_parsing_are_checked() -> None:
    assert command_refusal("ls a b c d e f") == "Too many arguments (6); the limit is 5"
    assert (
        command_refusal("git diff --output=/tmp/x") == "Argument '--output=/tmp/x' is not allowed"
    )
    assert command_refusal("ls 'open") == "Cannot parse the command: No closing quotation"
    assert command_refusal("   ") == "The command is empty"
    assert command_refusal(["ls", 3]) == "A command is a string or a list of strings"
    assert command_refusal(None) == "A command is a string or a list of strings"
    long = CommandPolicy(allow={"ls": None}, max_length=10)
    assert command_refusal("ls " + "a" * 20, long) == (
        "The command is 23 characters long; the limit is 10"
    )


def test_policy_configuration_errors() -> None:
    with pytest.raises(ValueError, match="at least one allowed program"):
        CommandPolicy(allow={})
    with pytest.raises(ValueError, match="empty list of subcommands"):
        CommandPolicy(allow={"git": []})
    assert CommandPolicy(allow={"git": "status"}).check("git status") == ["git", "status"]


def test_a_checked_argv_runs_without_a_shell(tmp_path: Path) -> None:
    (tmp_path / "my file.txt").write_text("")
    (tmp_path / "other.txt").write_text("")
    argv = CommandPolicy(allow={"ls": None}).check("ls -1 'my file.txt'")
    done = subprocess.run(argv, shell=False, cwd=tmp_path, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "my file.txt\n"


# ---------------------------------------------------------------- strip_control


@pytest.mark.parametrize(
    ("text", "clean"),
    [
        ("plain text\nwith\ttabs\r\n", "plain text\nwith\ttabs\r\n"),
        ("\x1b[1;31mred\x1b[0m", "red"),  # SGR colours
        ("up\x1b[2Aclear\x1b[2J", "upclear"),  # cursor and screen
        ("a\x1b]0;window title\x07b", "ab"),  # OSC title, BEL-terminated
        ("\x1b]8;;https://evil.example\x1b\\click\x1b]8;;\x1b\\", "click"),  # hyperlink
        ("\x1bPq#0;2;0;0;0\x1b\\after", "after"),  # DCS (sixel)
        ("\x1b_apc\x1b\\ \x1b^pm\x1b\\ \x1bXsos\x1b\\", "  "),
        ("x\x9b31my \x9d0;t\x9cz", "xy z"),  # 8-bit CSI and OSC
        ("\x1bc\x1b(B\x1b7saved\x1b8", "saved"),  # two-character escapes
        ("bell\x07 bs\x08 del\x7f nul\x00 c1\x85", "bell bs del nul c1"),
        ("unfinished \x1b]0;title", "unfinished 0;title"),  # inert once ESC ] is gone
        ("lone escape\x1b", "lone escape"),
        ("h\u00e9llo \u4e16\u754c \U0001f600", "h\u00e9llo \u4e16\u754c \U0001f600"),
    ],
)
def test_strip_control(text: str, clean: str) -> None:
    assert strip_control(text) == clean


def test_strip_control_leaves_clean_text_alone_and_stays_linear() -> None:
    text = "nothing to do here"
    assert strip_control(text) is text
    hostile = "\x9d" + "A" * 200_000 + "\x1b]" * 100_000 + "\x1b[" + "1" * 200_000
    assert strip_control(hostile) == "A" * 200_000 + "1" * 200_000


def test_strip_control_json_cleans_every_string() -> None:
    data = {"\x1b[1mkey": ["\x1b[31mred", 1, None, {"n": "\x07x"}], "ok": True}
    assert strip_control_json(data) == {"key": ["red", 1, None, {"n": "x"}], "ok": True}


# ---------------------------------------------------------------- end to end: stdio


@pytest.fixture
async def stdio(
    tree: Path, request: pytest.FixtureRequest
) -> AsyncIterator[tuple[RawServer, bool]]:
    revision: str = request.param
    async with raw_server(SERVERS / "safety_tools.py", str(tree), revision=revision) as server:
        if revision != MODERN:
            await server.initialize(revision)
        yield server, revision == MODERN


async def call(stdio: tuple[RawServer, bool], name: str, arguments: JSON) -> JSON:
    server, modern = stdio
    params = {"name": name, "arguments": arguments}
    response = await server.request("tools/call", params, modern=modern)
    assert "result" in response, response
    result: JSON = response["result"]
    return result


def error_text(result: JSON) -> str:
    assert result.get("isError") is True, result
    assert [block["type"] for block in result["content"]] == ["text"], result
    return str(result["content"][0]["text"])


async def assert_serving(stdio: tuple[RawServer, bool]) -> None:
    result = await call(stdio, "echo", {"text": "still here"})
    assert result["content"] == [{"type": "text", "text": "still here"}] and not result.get(
        "isError"
    )


@pytest.mark.parametrize("stdio", ERAS, indirect=True)
async def test_safe_paths_over_stdio(stdio: tuple[RawServer, bool], tree: Path) -> None:
    server, modern = stdio
    listing = await server.request("tools/list", {}, modern=modern)
    read = next(t for t in listing["result"]["tools"] if t["name"] == "read")
    assert read["inputSchema"]["properties"]["path"] == {
        "type": "string",
        "description": "The file to read. A path relative to the allowed directory; it cannot "
        "lead outside it.",
    }
    assert str(tree) not in orjson.dumps(listing).decode()
    assert (await call(stdio, "read", {"path": "notes.txt"}))["content"][0]["text"] == "hello"
    absolute = await call(stdio, "read", {"path": str(tree / "inner" / "a.txt")})
    assert absolute["content"][0]["text"] == "a"
    refusals = {
        "../outside/secret.txt": OUTSIDE,
        "escape/secret.txt": OUTSIDE,
        "leak": OUTSIDE,
        "/etc/passwd": OUTSIDE,
        "a\x00b": "Path must not contain NUL characters",
    }
    for value, reason in refusals.items():
        text = error_text(await call(stdio, "read", {"path": value}))
        assert text == f"Invalid arguments for tool 'read': path: {reason}"
        await assert_serving(stdio)
    text = error_text(await call(stdio, "create", {"path": "notes.txt", "text": "x"}))
    assert text == "Invalid arguments for tool 'create': path: Path already exists"
    created = await call(stdio, "create", {"path": "docs/new.txt", "text": "fresh"})
    assert created["content"][0]["text"] == "created new.txt"
    assert (tree / "docs" / "new.txt").read_text() == "fresh"
    assert not (tree.parent / "outside" / "new.txt").exists()


@pytest.mark.parametrize("stdio", ERAS, indirect=True)
async def test_command_policy_over_stdio(stdio: tuple[RawServer, bool], tree: Path) -> None:
    listed = await call(stdio, "run", {"command": "ls -1 docs"})
    assert listed["content"] == [{"type": "text", "text": "a.txt\n"}], listed
    cases = {
        "ls; cat /etc/passwd": SHELL.format(";"),
        "ls $(cat /etc/passwd)": SHELL.format("$("),
        "cat notes.txt": "Program 'cat' is not allowed; allowed programs: ls",
        "ls a b c d e f g h i": "Too many arguments (9); the limit is 8",
    }
    for command, reason in cases.items():
        assert error_text(await call(stdio, "run", {"command": command})) == reason
        await assert_serving(stdio)


@pytest.mark.parametrize("stdio", ERAS, indirect=True)
async def test_a_tool_option_strips_control_sequences_over_stdio(
    stdio: tuple[RawServer, bool],
) -> None:
    result = await call(stdio, "banner", {"text": "\x1b[5mhi\x07"})
    assert result["structuredContent"] == {"banner": "hi"}
    assert result["content"] == [{"type": "text", "text": '{"banner":"hi"}'}]
    # the server's default leaves other tools alone
    raw = await call(stdio, "echo", {"text": "\x1b[31mred"})
    assert raw["content"][0]["text"] == "\x1b[31mred"


# ---------------------------------------------------------------- end to end: in memory


class Report(BaseModel):
    title: str
    lines: list[str]


def noisy_server(**options: Any) -> Server:
    mcp = Server("noisy", **options)

    @mcp.tool()
    def text() -> str:
        """Terminal output with colours and a title change."""
        return "\x1b]0;pwned\x07\x1b[32mok\x1b[0m\n\tdone\x08"

    @mcp.tool()
    def report() -> Report:
        """A structured result with escape sequences in its strings."""
        return Report(title="\x1b[1mbuild\x1b[0m", lines=["\x1b[31mfailed\x1b[0m", "\x9b2Jx"])

    @mcp.tool()
    def data() -> dict[str, Any]:
        """Unstructured-by-type data: a dict, keys with escapes too."""
        return {"\x1b[4mkey": "\x1b[7mvalue"}

    @mcp.tool()
    def fail() -> str:
        """Fail with control characters in the message."""
        raise ValueError("bad \x1b[31minput\x1b[0m")

    @mcp.tool(strip_control_sequences=False)
    def raw() -> str:
        """Opted out of the server's default."""
        return "\x1b[31mred"

    return mcp


@pytest.mark.parametrize("revision", ERAS)
async def test_the_server_option_strips_every_result_string(revision: str) -> None:
    async with checked_client(
        noisy_server(strip_control_sequences=True), revision, timeout=TIMEOUT
    ) as client:
        text = await client.call_tool("text")
        assert text.content == [{"type": "text", "text": "ok\n\tdone"}]
        report = await client.call_tool("report")
        assert report.structured == {"title": "build", "lines": ["failed", "x"]}
        assert orjson.loads(report.content[0]["text"]) == report.structured
        assert "\\u001b" not in report.content[0]["text"]  # not even JSON-escaped
        data = await client.call_tool("data")
        assert data.structured == {"key": "value"}
        failed = await client.call_tool("fail")
        assert failed.is_error and failed.content[0]["text"] == "bad input"
        raw = await client.call_tool("raw")
        assert raw.content[0]["text"] == "\x1b[31mred"


@pytest.mark.parametrize("revision", ERAS)
async def test_results_are_untouched_by_default(revision: str) -> None:
    async with checked_client(noisy_server(), revision, timeout=TIMEOUT) as client:
        text = await client.call_tool("text")
        assert text.content[0]["text"] == "\x1b]0;pwned\x07\x1b[32mok\x1b[0m\n\tdone\x08"
        report = await client.call_tool("report")
        assert report.structured is not None and report.structured["title"] == "\x1b[1mbuild\x1b[0m"
