"""The documentation site stays true: every Python snippet in docs/*.md runs, and MkDocs builds.

Snippet convention:

* Every fenced block marked ``python`` in ``docs/*.md`` is executed. The blocks of one page run
  in order in one namespace (a later block may use what an earlier one defined), with
  ``__name__`` set to ``"docs_<page>"`` (so ``if __name__ == "__main__": mcp.run()`` does not serve),
  in a temporary working directory.
* A block immediately preceded by the line ``<!-- skip -->`` is not executed but must still
  compile (top-level ``await`` allowed): for ``async with`` at top level, servers that would bind sockets or need Redis.
* A block immediately preceded by ``<!-- pytest beside FILE ... -->`` is a test file: it is
  written to an empty folder with each FILE (a path in the repository) copied beside it, and
  ``pytest`` runs there with no configuration; every test in it must pass.
* Blocks in other languages (sh, json, nginx, yaml...) are not executed.

Snippets that demonstrate calls run them through the in-memory client and assert the
results, so a page that no longer describes the code fails here.
"""

from __future__ import annotations

import argparse
import ast
import re
import shutil
import subprocess
import sys
import types
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
PAGES = sorted(path.name for path in DOCS.glob("*.md"))
SKIP_MARK = "<!-- skip -->"
PYTEST_MARK = re.compile(r"^<!-- pytest beside (?P<files>[^>]+?) -->$")
FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>```+|~~~+)\s*(?P<lang>[\w+-]*)")


@dataclass
class Snippet:
    line: int  # 1-based line of the opening fence
    language: str
    code: str
    skip: bool
    beside: tuple[str, ...] = ()  # a test file, run with pytest beside these files


def snippets(text: str) -> list[Snippet]:
    """The fenced blocks of a Markdown page, with the indentation of their fence removed."""
    lines = text.splitlines()
    found: list[Snippet] = []
    index = 0
    while index < len(lines):
        match = FENCE.match(lines[index])
        if match is None:
            index += 1
            continue
        indent, fence, language = match["indent"], match["fence"], match["lang"].lower()
        previous = lines[index - 1].strip() if index > 0 else ""
        body: list[str] = []
        end = index + 1
        while end < len(lines) and not lines[end].strip().startswith(fence):
            line = lines[end]
            body.append(line[len(indent) :] if line.startswith(indent) else line.lstrip())
            end += 1
        if end == len(lines):
            raise AssertionError(f"line {index + 1}: unclosed code fence")
        pytest_mark = PYTEST_MARK.match(previous)
        beside = tuple(pytest_mark["files"].split()) if pytest_mark else ()
        code = "\n".join(body) + "\n"
        found.append(Snippet(index + 1, language, code, previous == SKIP_MARK, beside))
        index = end + 1
    return found


def test_fence_parser_reads_indented_and_skipped_blocks() -> None:
    page = "Intro\n\n<!-- skip -->\n```python\nx = 1\n```\n\n  ```python\n  y = 2\n  ```\n```sh\nls\n```\n"
    found = snippets(page)
    assert [(s.language, s.skip, s.code) for s in found] == [
        ("python", True, "x = 1\n"),
        ("python", False, "y = 2\n"),
        ("sh", False, "ls\n"),
    ]


def test_every_page_has_been_found() -> None:
    assert {"index.md", "tools.md", "results.md", "errors.md", "runtime.md"} <= set(PAGES)


@pytest.mark.parametrize("page", PAGES)
def test_page_snippets_run(page: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    # A real module, so dataclasses and type hints can find the snippets' globals.
    module = types.ModuleType(f"docs_{page.removesuffix('.md').replace('-', '_')}")
    monkeypatch.setitem(sys.modules, module.__name__, module)
    namespace = module.__dict__
    for snippet in snippets((DOCS / page).read_text(encoding="utf-8")):
        if snippet.language not in ("python", "py"):
            continue
        where = f"docs/{page}, block at line {snippet.line}"
        if snippet.beside:
            compile(snippet.code, where, "exec")  # run by test_pytest_snippets_pass
        elif snippet.skip:  # top-level await / async with is allowed in a skipped block
            compile(snippet.code, where, "exec", flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)
        else:
            exec(compile(snippet.code, where, "exec"), namespace)


PYTEST_SNIPPETS = [
    pytest.param(snippet, id=f"{page}:{snippet.line}")
    for page in PAGES
    for snippet in snippets((DOCS / page).read_text(encoding="utf-8"))
    if snippet.beside
]


def test_the_testing_page_has_pytest_snippets() -> None:
    assert {param.id.split(":")[0] for param in PYTEST_SNIPPETS} >= {"testing.md"}


@pytest.mark.parametrize("snippet", PYTEST_SNIPPETS)
def test_pytest_snippets_pass(snippet: Snippet, tmp_path: Path) -> None:
    """A user's folder: the test file and the files it sits beside, nothing else (no ini, no
    conftest); the plugin comes from the installed package's entry point."""
    for name in snippet.beside:
        shutil.copy(ROOT / name, tmp_path / Path(name).name)
    (tmp_path / "test_from_docs.py").write_text(snippet.code, encoding="utf-8")
    ran = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "--timeout=120"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=180,
    )
    tests = len(re.findall(r"^(?:async )?def test_", snippet.code, re.MULTILINE))
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert re.search(rf"^{tests} passed in ", ran.stdout, re.MULTILINE), ran.stdout


def test_the_cli_reference_is_the_parser() -> None:
    from toolwire.cli import _parser
    from toolwire.cli.reference import markdown

    page = (DOCS / "cli.md").read_text(encoding="utf-8")
    assert page == markdown(), "regenerate it: python -m toolwire.cli.reference > docs/cli.md"
    subcommands = next(a for a in _parser()._actions if isinstance(a, argparse._SubParsersAction))
    for name, command in subcommands.choices.items():
        assert f"## `toolwire {name}`" in page
        assert command.description, f"toolwire {name} has no description"
        for action in command._actions:
            for option in action.option_strings:
                assert f"`{option}" in page or option in ("-h", "--help")


def test_mkdocs_builds_strictly(tmp_path: Path) -> None:
    pytest.importorskip("mkdocs")
    built = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert built.returncode == 0, built.stderr
    assert (tmp_path / "site" / "index.html").is_file()
    assert (tmp_path / "site" / "tools" / "index.html").is_file()
