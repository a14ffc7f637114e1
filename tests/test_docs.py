"""The documentation site stays true: every Python snippet in docs/*.md runs, and MkDocs builds.

Snippet convention:

* Every fenced block marked ``python`` in ``docs/*.md`` is executed. The blocks of one page run
  in order in one namespace (a later block may use what an earlier one defined), with
  ``__name__`` set to ``"docs_<page>"`` (so ``if __name__ == "__main__": mcp.run()`` does not serve),
  in a temporary working directory.
* A block immediately preceded by the line ``<!-- skip -->`` is not executed but must still
  compile (top-level ``await`` allowed): for ``async with`` at top level, servers that would bind sockets or need Redis.
* Blocks in other languages (sh, json, nginx, yaml...) are not executed.

Snippets that demonstrate calls run them through the in-memory client and assert the
results, so a page that no longer describes the code fails here.
"""

from __future__ import annotations

import ast
import re
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
FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>```+|~~~+)\s*(?P<lang>[\w+-]*)")


@dataclass
class Snippet:
    line: int  # 1-based line of the opening fence
    language: str
    code: str
    skip: bool


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
        found.append(Snippet(index + 1, language, "\n".join(body) + "\n", previous == SKIP_MARK))
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
        if snippet.skip:  # top-level await / async with is allowed in a skipped block
            compile(snippet.code, where, "exec", flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)
        else:
            exec(compile(snippet.code, where, "exec"), namespace)


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
