"""``toolwire migrate``, run as the real command (the ``toolwire`` script of this environment):
files written in each incumbent's style (the official SDK's 1.x ``FastMCP`` and 2.x
``MCPServer``, its low-level server, FastMCP 2/3, client code) have their imports rewritten and
nothing else; the migrated decorator servers answer ``tools/call`` from the official SDK's
client over stdio, every message checked against the negotiated revision's schema.
``--check``, ``--diff``, a second run, layouts and encodings, and what has no counterpart.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import anyio
import pytest
from mcp import Client as OfficialClient

from interop.tapped_stdio import tapped_stdio

from mcp_spec import WireChecker

pytestmark = pytest.mark.timeout(60)

ROOT = Path(__file__).resolve().parents[1]
TOOLWIRE = Path(sys.executable).parent / "toolwire"
DOC = "docs/migrating.md"


def migrate(*args: str | Path, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(TOOLWIRE), "migrate", *map(str, args)],
        capture_output=True,
        text=True,
        timeout=30,
        cwd=cwd,
    )


SDK1 = '''"""A server written for mcp 1.x."""

from mcp.server.fastmcp import Context, FastMCP  # the decorator server
from mcp.server.fastmcp.utilities.types import Image
from pydantic import BaseModel

mcp = FastMCP("Shapes")


class Area(BaseModel):
    shape: str
    area: float


@mcp.tool()
async def square(side: float, ctx: Context) -> Area:
    """Area of a square."""
    await ctx.info(f"square of {side}")
    return Area(shape="square", area=side * side)


@mcp.tool()
def dot() -> Image:
    """A one-pixel image."""
    return Image(data=b"\\x89PNG", format="png")


if __name__ == "__main__":
    mcp.run()
'''
SDK1_AFTER = SDK1.replace(
    "from mcp.server.fastmcp import Context, FastMCP  #",
    "from toolwire import Context, Server as FastMCP  #",
).replace("from mcp.server.fastmcp.utilities.types import Image", "from toolwire import Image")

SDK2 = '''from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError

app = MCPServer(name="Shapes")


@app.tool()
def square(side: float, ctx: Context) -> float:
    """Area of a square."""
    if side < 0:
        raise ToolError("a side is not negative")
    return side * side


if __name__ == "__main__":
    app.run()
'''
SDK2_AFTER = SDK2.replace(
    "from mcp.server.mcpserver import Context, MCPServer",
    "from toolwire import Context, Server as MCPServer",
).replace("from mcp.server.mcpserver.exceptions import ToolError", "from toolwire import ToolError")

FASTMCP = '''from fastmcp import Context, FastMCP
from fastmcp.exceptions import ToolError

mcp = FastMCP("Shapes")


@mcp.tool
def square(side: float) -> float:
    """Area of a square."""
    if side < 0:
        raise ToolError("a side is not negative")
    return side * side


if __name__ == "__main__":
    mcp.run()
'''
FASTMCP_AFTER = FASTMCP.replace(
    "from fastmcp import Context, FastMCP", "from toolwire import Context, FastMCP"
).replace("from fastmcp.exceptions import ToolError", "from toolwire import ToolError")

SERVERS = {
    "sdk1": (SDK1, SDK1_AFTER),
    "sdk2": (SDK2, SDK2_AFTER),
    "fastmcp": (FASTMCP, FASTMCP_AFTER),
}


@pytest.mark.parametrize("style", sorted(SERVERS))
@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_a_migrated_decorator_server_answers_the_official_client(
    style: str, mode: str, tmp_path: Path
) -> None:
    before, after = SERVERS[style]
    server = tmp_path / "server.py"
    server.write_text(before, encoding="utf-8")
    done = migrate(server)
    assert done.returncode == 0, done.stderr
    assert done.stdout == f"{server}: rewrote 2 imports\n"
    assert server.read_text(encoding="utf-8") == after

    checker = WireChecker()
    with anyio.fail_after(45):
        async with OfficialClient(tapped_stdio([str(server)], checker), mode=mode) as client:
            expected = "2025-11-25" if mode == "legacy" else "2026-07-28"
            assert client.protocol_version == expected
            names = [tool.name for tool in (await client.list_tools()).tools]
            assert "square" in names
            result = await client.call_tool("square", {"side": 3})
            assert not result.is_error, result
            if style == "sdk1":
                assert result.structured_content == {"shape": "square", "area": 9.0}
                image = await client.call_tool("dot", {})
                assert image.content[0].type == "image"
            else:
                assert result.structured_content == {"result": 9.0}
                refused = await client.call_tool("square", {"side": -1})
                assert refused.is_error
                assert refused.content[0].text == "a side is not negative"
    checker.close()
    assert checker.checked > 4


def test_a_second_run_changes_nothing_and_check_passes(tmp_path: Path) -> None:
    server = tmp_path / "server.py"
    server.write_text(SDK1, encoding="utf-8")
    assert migrate("--check", server).returncode == 1
    assert server.read_text(encoding="utf-8") == SDK1  # --check writes nothing
    assert migrate(server).returncode == 0
    migrated = server.read_bytes()
    again = migrate(server)
    assert again.returncode == 0 and again.stdout == ""
    assert "0 of 1 files changed" in again.stderr
    assert server.read_bytes() == migrated
    checked = migrate("--check", server)
    assert checked.returncode == 0 and checked.stdout == "", checked.stdout


def test_check_names_each_file_that_would_change(tmp_path: Path) -> None:
    (tmp_path / "one.py").write_text(SDK2, encoding="utf-8")
    (tmp_path / "two.py").write_text("import os\n", encoding="utf-8")
    checked = migrate("--check", tmp_path)
    assert checked.returncode == 1
    assert checked.stdout == f"{tmp_path / 'one.py'}: would rewrite 2 imports\n"
    assert "1 of 2 files would change" in checked.stderr


def test_diff_prints_a_unified_diff_and_writes_nothing(tmp_path: Path) -> None:
    server = tmp_path / "server.py"
    source = SDK2 + "from mcp.client.stdio import stdio_client\n"
    server.write_text(source, encoding="utf-8")
    shown = migrate("--diff", "server.py", cwd=tmp_path)
    assert shown.returncode == 0, shown.stderr
    assert server.read_text(encoding="utf-8") == source
    assert shown.stdout.splitlines()[:5] == [
        "--- server.py",
        "+++ server.py",
        "@@ -1,5 +1,5 @@",
        "-from mcp.server.mcpserver import Context, MCPServer",
        "-from mcp.server.mcpserver.exceptions import ToolError",
    ]
    assert "+from toolwire import Context, Server as MCPServer" in shown.stdout.splitlines()
    # the diff applies: patch gives the file migrate would write
    applied = subprocess.run(
        ["patch", "-p0", "-s"], input=shown.stdout, cwd=tmp_path, text=True, timeout=30
    )
    assert applied.returncode == 0
    assert server.read_text(encoding="utf-8") == SDK2_AFTER + (
        "from mcp.client.stdio import stdio_client\n"
    )
    # what has no counterpart goes to stderr, so stdout is the diff alone
    assert "server.py:17: stdio_client: toolwire.Client([" in shown.stderr
    assert ": stdio_client: " not in shown.stdout


LOW_LEVEL = """import mcp.server.stdio
import mcp.types as types
from mcp.server.lowlevel import NotificationOptions, Server
from mcp.server.models import InitializationOptions

server = Server("example")


@server.list_tools()
async def handle_list_tools() -> list[types.Tool]:
    return []


async def run() -> None:
    async with mcp.server.stdio.stdio_server() as (read_stream, write_stream):
        await server.run(
            read_stream,
            write_stream,
            InitializationOptions(
                server_name="example",
                server_version="0.1.0",
                capabilities=server.get_capabilities(NotificationOptions(), {}),
            ),
        )
"""


def test_a_low_level_server_gets_toolwire_lowlevel_with_its_dotted_stdio(
    tmp_path: Path,
) -> None:
    server = tmp_path / "lowlevel.py"
    server.write_text(LOW_LEVEL, encoding="utf-8")
    done = migrate(server)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [f"{server}: rewrote 4 imports and 1 use"]
    text = server.read_text(encoding="utf-8")
    assert text.startswith(
        "import toolwire.lowlevel.stdio\n"
        "import toolwire.types as types\n"
        "from toolwire.lowlevel import NotificationOptions, Server\n"
        "from toolwire.lowlevel import InitializationOptions\n"
    )
    # the rest is the same but for the dotted use of the plain import
    assert text.split("server = Server")[1] == LOW_LEVEL.split("server = Server")[1].replace(
        "mcp.server.stdio.stdio_server()", "toolwire.lowlevel.stdio.stdio_server()"
    )
    compile(text, str(server), "exec")


CLIENT = """import asyncio

from mcp import ClientSession, StdioServerParameters, types
from mcp.client.stdio import stdio_client
from mcp.client import Client
from fastmcp import Client as FastMCPClient
from mcp.server.auth.provider import TokenVerifier
from mcp.client import Implementation


async def main() -> None:
    params = StdioServerParameters(command="python", args=["server.py"])
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
"""


def test_client_code_is_rewritten_where_toolwire_has_a_counterpart(tmp_path: Path) -> None:
    client = tmp_path / "client.py"
    client.write_text(CLIENT, encoding="utf-8")
    done = migrate(client)
    assert done.returncode == 0, done.stderr
    assert client.read_text(encoding="utf-8") == CLIENT.replace(
        "from mcp import ClientSession, StdioServerParameters, types\n",
        "from mcp import ClientSession, StdioServerParameters\nfrom toolwire import types\n",
    ).replace("from mcp.client import Client\n", "from toolwire import Client\n").replace(
        "from fastmcp import Client as FastMCPClient\n",
        "from toolwire import Client as FastMCPClient\n",
    )
    found = done.stdout.splitlines()[1:]
    assert found == [
        f"{client}:3: ClientSession: toolwire.Client(target) is the session: it connects, "
        f"negotiates the revision and offers list_tools()/call_tool() ({DOC}#clients)",
        f'{client}:3: StdioServerParameters: toolwire.Client(["python", "server.py"]) starts '
        f"the command and speaks stdio ({DOC}#clients)",
        f'{client}:4: stdio_client: toolwire.Client(["python", "server.py"]) starts the '
        f"command and speaks stdio ({DOC}#clients)",
        f"{client}:7: TokenVerifier: toolwire takes the SDK's AuthSettings(...) with "
        "token_verifier= and calls the verifier as the SDK does: keep this import, or use "
        f"toolwire.auth (ResourceServer, JWTVerifier) ({DOC}#the-sdks-server-options)",
        f"{client}:8: Implementation: mcp.client.Implementation has no counterpart in "
        f"toolwire; the import is kept ({DOC}#clients)",
    ]


LAYOUT = (
    "# -*- coding: latin-1 -*-\r\n"
    '"""Caf\xe9."""\r\n'
    "from typing import TYPE_CHECKING\r\n"
    "from . import helpers  # relative: untouched\r\n"
    "from mcp.types import (\r\n"
    "    Tool,  # a tool\r\n"
    "    TextContent as Text,\r\n"
    ")\r\n"
    "import mcp.types as mt, os\r\n"
    "\r\n"
    "try:\r\n"
    "    from mcp.server.fastmcp import FastMCP\r\n"
    "except ImportError:  # an older SDK\r\n"
    "    from fastmcp import FastMCP\r\n"
    "\r\n"
    "if TYPE_CHECKING:\r\n"
    "    from mcp.server.fastmcp import Context\r\n"
    "\r\n"
    "x = 1; from mcp import types, ClientSession\r\n"
    "\r\n"
    "\r\n"
    "def later():\r\n"
    "    from mcp.server.mcpserver import MCPServer as Made\r\n"
    "    return Made, x  # \xe9\r\n"
)
LAYOUT_AFTER = (
    LAYOUT.replace("from mcp.types import (", "from toolwire.types import (")
    .replace("import mcp.types as mt, os", "import toolwire.types as mt, os")
    .replace(
        "    from mcp.server.fastmcp import FastMCP\r",
        "    from toolwire import Server as FastMCP\r",
    )
    .replace("    from fastmcp import FastMCP\r", "    from toolwire import FastMCP\r")
    .replace("from mcp.server.fastmcp import Context", "from toolwire import Context")
    .replace(
        "x = 1; from mcp import types, ClientSession",
        "x = 1; from toolwire import types; from mcp import ClientSession",
    )
    .replace(
        "from mcp.server.mcpserver import MCPServer as Made", "from toolwire import Server as Made"
    )
)


def test_only_imports_change_whatever_the_layout_encoding_and_line_endings(tmp_path: Path) -> None:
    source = tmp_path / "layout.py"
    source.write_bytes(LAYOUT.encode("latin-1"))
    done = migrate(source)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[0] == f"{source}: rewrote 7 imports"
    assert source.read_bytes() == LAYOUT_AFTER.encode("latin-1")
    compile(source.read_bytes(), str(source), "exec")


def test_a_plain_import_is_rewritten_with_its_uses_and_a_server_named_mcp_is_not(
    tmp_path: Path,
) -> None:
    plain = tmp_path / "plain.py"
    plain.write_text(
        "import mcp\nimport fastmcp\n\n\nserver = fastmcp.FastMCP('x')\ntool = mcp.types.Tool\n",
        encoding="utf-8",
    )
    kept = tmp_path / "kept.py"  # one use without a counterpart: nothing of `mcp` changes
    kept_text = (
        "import mcp.types\nimport mcp.shared._httpx_utils\n\n"
        "client = mcp.shared._httpx_utils.create_mcp_http_client\ntool = mcp.types.Tool\n"
    )
    kept.write_text(kept_text, encoding="utf-8")
    named = tmp_path / "named.py"
    named.write_text(
        "import mcp.types\nfrom mcp.server.fastmcp import FastMCP\n\nmcp = FastMCP('x')\n"
        "\n\n@mcp.tool()\ndef f() -> int:\n    return 1\n",
        encoding="utf-8",
    )
    done = migrate(plain, kept, named)
    assert done.returncode == 0, done.stderr
    assert f"{plain}: rewrote 2 imports and 2 uses" in done.stdout.splitlines()
    assert plain.read_text(encoding="utf-8") == (
        "import toolwire.types\nimport toolwire\n\n\nserver = toolwire.FastMCP('x')\n"
        "tool = toolwire.types.Tool\n"
    )
    found = [line for line in done.stdout.splitlines() if ": rewrote " not in line]
    assert found == [
        f"{kept}:4: mcp.shared._httpx_utils.create_mcp_http_client: used through a plain "
        "import of mcp.shared._httpx_utils; mcp.shared._httpx_utils has no counterpart in "
        f"toolwire ({DOC}#from-the-official-mcp-sdk)",
        f"{kept}:5: mcp.types.Tool: used through a plain import of mcp.types; its root has a "
        f"use that stays ({DOC}#the-low-level-server)",
    ]
    assert kept.read_text(encoding="utf-8") == kept_text
    assert named.read_text(encoding="utf-8").startswith(
        "import mcp.types\nfrom toolwire import Server as FastMCP\n"
    )
    loaded = subprocess.run(
        [sys.executable, str(plain)], capture_output=True, text=True, timeout=30
    )
    assert loaded.returncode == 0, loaded.stderr


def test_a_folder_is_walked_for_python_files_past_environments_and_hidden_folders(
    tmp_path: Path,
) -> None:
    for folder in ("pkg/sub", ".venv/lib", ".git", "node_modules/x", "env2"):
        (tmp_path / folder).mkdir(parents=True)
    (tmp_path / "env2" / "pyvenv.cfg").write_text("home = /usr\n", encoding="utf-8")
    wanted = [tmp_path / "pkg" / "a.py", tmp_path / "pkg" / "sub" / "b.py"]
    left = [
        tmp_path / ".venv" / "lib" / "c.py",
        tmp_path / ".git" / "d.py",
        tmp_path / "node_modules" / "x" / "e.py",
        tmp_path / "env2" / "f.py",
        tmp_path / "pkg" / "notes.txt",
    ]
    for path in wanted + left:
        path.write_text(FASTMCP, encoding="utf-8")
    done = migrate(tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [f"{path}: rewrote 2 imports" for path in wanted]
    assert all(path.read_text(encoding="utf-8") == FASTMCP_AFTER for path in wanted)
    assert all(path.read_text(encoding="utf-8") == FASTMCP for path in left)


def test_bad_paths_and_files_that_do_not_parse_exit_2_after_the_rest(tmp_path: Path) -> None:
    (tmp_path / "broken.py").write_text("from mcp import (\n", encoding="utf-8")
    (tmp_path / "good.py").write_text(SDK2, encoding="utf-8")
    done = migrate(tmp_path, tmp_path / "missing.py")
    assert done.returncode == 2
    assert (tmp_path / "good.py").read_text(encoding="utf-8") == SDK2_AFTER
    assert f"toolwire migrate: {tmp_path / 'broken.py'}: cannot migrate: " in done.stderr
    assert f"toolwire migrate: {tmp_path / 'missing.py'}: no such file or folder" in done.stderr
    assert "Traceback" not in done.stderr
    usage = migrate()
    assert usage.returncode == 2 and "PATH" in usage.stderr


def test_the_import_table_of_the_docs_is_written_from_the_source() -> None:
    from toolwire.cli.migrate.doc import TITLES, page

    text = (ROOT / DOC).read_text(encoding="utf-8")
    assert text == page(text), "regenerate it: python -m toolwire.cli.migrate.doc docs/migrating.md"
    headings = {  # as MkDocs writes their anchors
        re.sub(r"[^a-z0-9 -]", "", line.lstrip("#").strip().lower()).replace(" ", "-")
        for line in text.splitlines()
        if line.startswith("#")
    }
    assert set(TITLES) <= headings  # every link of a report reaches a heading
    assert "one-command-toolwire-migrate" in headings


def test_the_table_moves_only_incumbent_modules_to_toolwire_modules() -> None:
    from toolwire.cli.migrate.doc import TITLES
    from toolwire.cli.migrate.rewrite import ROOTS
    from toolwire.cli.migrate.table import ROWS

    assert len({(row[0], row[1]) for row in ROWS}) == len(ROWS)
    for row in ROWS:
        module, name, target, target_name, section, note = row
        assert module.split(".")[0] in ROOTS, module
        assert section in TITLES
        home = target.split(".")[0]
        assert (home == "toolwire" or home in sys.stdlib_module_names) != bool(note), row
        assert name != "*" or not target_name
    assert json.dumps(ROWS)  # plain data


def test_fastmcp_4s_packages_and_names_are_moved(tmp_path: Path) -> None:
    """FastMCP 4 keeps the protocol's models in ``mcp_types`` and tasks in ``fastmcp_tasks``."""
    server = tmp_path / "server.py"
    server.write_text(
        "import mcp_types\n"
        "from fastmcp import FastMCP\n"
        "from fastmcp.server import create_proxy\n"
        "from fastmcp.utilities.tasks import TaskConfig\n"
        "from fastmcp_tasks import TasksExtension\n\n"
        "mcp = FastMCP('x')\n"
        "mcp.add_extension(TasksExtension())\n"
        "upstream = create_proxy('http://127.0.0.1:9/mcp', name='up')\n"
        "done = mcp_types.TextContent(type='text', text='ok')\n"
        "print(TaskConfig(poll_interval=1).poll_ms, upstream.name, done.text)\n",
        encoding="utf-8",
    )
    done = migrate(server)
    assert done.returncode == 0, done.stderr
    assert done.stdout == f"{server}: rewrote 5 imports and 1 use\n"
    assert server.read_text(encoding="utf-8").splitlines()[:5] == [
        "import toolwire.types",
        "from toolwire import FastMCP",
        "from toolwire.proxy import proxy as create_proxy",
        "from toolwire import TaskConfig",
        "from toolwire import TasksExtension",
    ]
    ran = subprocess.run([sys.executable, str(server)], capture_output=True, text=True, timeout=30)
    assert (ran.returncode, ran.stdout) == (0, "1000 up ok\n"), ran.stderr


def test_the_incumbents_get_logger_becomes_the_standard_librarys(tmp_path: Path) -> None:
    # what mcp's and FastMCP's get_logger wrap; kept as it was, the import fails on toolwire
    server = tmp_path / "server.py"
    server.write_text(
        "from mcp.server.fastmcp.utilities.logging import get_logger\n"
        "from fastmcp.utilities.logging import get_logger as fastmcp_logger\n"
        "log = get_logger(__name__)\n",
        encoding="utf-8",
    )
    done = migrate(server)
    assert done.returncode == 0 and "no counterpart" not in done.stdout, done.stdout
    assert server.read_text(encoding="utf-8") == (
        "from logging import getLogger as get_logger\n"
        "from logging import getLogger as fastmcp_logger\n"
        "log = get_logger(__name__)\n"
    )
