"""FastMCP's components in files: the standalone ``@tool``/``@resource``/``@prompt`` and
``FileSystemProvider`` (toolwire.server.compat.fastmcp_files). The FastMCP comparison is
tests/interop/test_fastmcp_examples_style.py; here, what toolwire refuses and how."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolwire import FileSystemProvider, RegistrationError, Server, resource, tool

from wire import MODERN, checked_client

pytestmark = pytest.mark.timeout(30)

TOOLS = '''
from toolwire import tool
from toolwire import prompt

@tool
def b_second(x: int) -> int:
    """Doubles."""
    return 2 * x

@tool("a-first", tags={"t"})
def first() -> str:
    return "first"

@prompt
def hello(name: str) -> str:
    return f"Hello {name}"
'''


def test_the_decorators_only_mark_the_function() -> None:
    def f() -> str:
        return "f"

    assert tool(f) is f and tool()(f) is f and resource("data://f")(f) is f
    with pytest.raises(TypeError, match="URI first"):
        resource(f)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="name as a string"):
        tool(3)


async def test_files_under_the_root_are_served(tmp_path: Path) -> None:
    (tmp_path / "tools").mkdir()
    (tmp_path / "tools" / "some.py").write_text(TOOLS, encoding="utf-8")
    (tmp_path / "tools" / "__init__.py").write_text("raise SystemExit('not read')\n")
    (tmp_path / "data.py").write_text(
        "from toolwire import resource\nfrom tools_some import nothing\n", encoding="utf-8"
    )
    with pytest.raises(RegistrationError, match=r"importing .*data\.py failed"):
        Server("files", providers=[FileSystemProvider(tmp_path)])
    (tmp_path / "data.py").write_text(
        "from toolwire import resource\n\n@resource('data://{key}')\n"
        "def value(key: str) -> str:\n    return key * 2\n",
        encoding="utf-8",
    )
    mcp = Server("files", providers=[FileSystemProvider(tmp_path, reload=True)])
    async with checked_client(mcp, MODERN) as client:
        # in a file, by the functions' names (as FastMCP reads them): b_second < first
        assert [t["name"] for t in await client.list_tools()] == ["b_second", "a-first"]
        assert (await client.call_tool("b_second", {"x": 4})).text == "8"
        assert (await client.read_resource("data://ab")).text == "abab"
        assert [p["name"] for p in await client.list_prompts()] == ["hello"]


def test_what_is_no_provider_is_refused_with_the_alternatives(tmp_path: Path) -> None:
    with pytest.raises(RegistrationError, match="no folder"):
        FileSystemProvider(tmp_path / "missing")
    with pytest.raises(TypeError, match=r"mcp.mount\(server, namespace=...\)"):
        Server("x").add_provider(object())


def skills_folder(root: Path, *names: str) -> None:
    for name in names:
        (root / name / "more").mkdir(parents=True)
        (root / name / "SKILL.md").write_text(f"---\ndescription: {name} in {root.name}\n---\n")
        (root / name / "more" / "data.bin").write_bytes(b"\x00\x01")


async def test_skills_as_resources_and_the_first_root_wins(tmp_path: Path) -> None:
    from toolwire import SkillsDirectoryProvider

    first, second = tmp_path / "first", tmp_path / "second"
    skills_folder(first, "alpha")
    skills_folder(second, "alpha", "beta")
    (second / "not-a-skill").mkdir()
    mcp = Server("skills")
    mcp.add_provider(SkillsDirectoryProvider([first, second], supporting_files="resources"))
    async with checked_client(mcp, MODERN) as client:
        listed = {r["uri"]: r.get("description") for r in await client.list_resources()}
        assert listed == {
            "skill://alpha/SKILL.md": "alpha in first",
            "skill://alpha/_manifest": "File listing for alpha",
            "skill://alpha/more/data.bin": "File from alpha skill",
            "skill://beta/SKILL.md": "beta in second",
            "skill://beta/_manifest": "File listing for beta",
            "skill://beta/more/data.bin": "File from beta skill",
        }
        assert await client.list_resource_templates() == []
        read = await client.read_resource("skill://alpha/more/data.bin")
        assert read.contents[0]["blob"] == "AAE="


def test_a_bad_skills_option_is_refused_with_the_choices(tmp_path: Path) -> None:
    from toolwire import SkillsDirectoryProvider

    with pytest.raises(ValueError, match=r"'template'.*'resources'"):
        SkillsDirectoryProvider(tmp_path, supporting_files="files")  # type: ignore[arg-type]
