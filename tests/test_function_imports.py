"""An import inside a function says why it is there (docs/architecture.md, "Imports").

Such an import keeps something off ``import toolwire``, and its line (or a comment line just
above it) says which of two reasons holds:

- ``# optional: ...``: a package toolwire does not require (an extra, or the user's own);
- ``# lazy: ...``: a required package, the standard library or a part of toolwire, kept off
  the import path until the feature that needs it is used.

An import that ``import toolwire`` loads anyway belongs at the top of its module.
"""

from __future__ import annotations

import ast
import contextlib
import importlib.util
import json
import re
import subprocess
import sys
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src" / "toolwire"
# what pyproject.toml requires, by import name: never an "optional" import
REQUIRED = {"pydantic", "pydantic_core", "orjson", "fastjsonschema", "typing_extensions"}
MARK = re.compile(r"#.*?\b(lazy|optional): \S")


def _module_name(path: Path, root: Path) -> tuple[str, list[str]]:
    """The dotted name of the module at ``path`` and the parts of its package."""
    parts = list(path.relative_to(root.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
        return ".".join(parts), parts
    return ".".join(parts), parts[:-1]


def _targets(node: ast.Import | ast.ImportFrom, package: list[str], root: Path) -> list[str]:
    """The modules an import statement loads: the module itself, and each imported name
    that is a module of toolwire or of the standard library."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    base = package[: len(package) - node.level + 1] if node.level else []
    module = ".".join([*base, *([node.module] if node.module else [])])
    found = [module]
    for alias in node.names:
        file = root.parent.joinpath(*module.split("."), alias.name)
        if file.with_suffix(".py").exists() or (file / "__init__.py").exists():
            found.append(f"{module}.{alias.name}")
        elif module.split(".")[0] in sys.stdlib_module_names:
            with contextlib.suppress(ImportError):
                if importlib.util.find_spec(f"{module}.{alias.name}"):
                    found.append(f"{module}.{alias.name}")
    return found


def imports_inside_functions(path: Path, root: Path = SRC) -> list[tuple[int, list[str], str]]:
    """(line, modules it loads, its mark or "") of each import inside a function."""
    source = path.read_text(encoding="utf-8")
    lines = source.splitlines()
    _, package = _module_name(path, root)
    found = []

    def visit(node: ast.AST, inside: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if inside and isinstance(child, (ast.Import, ast.ImportFrom)):
                above = lines[child.lineno - 2].strip() if child.lineno > 1 else ""
                text = "\n".join(lines[child.lineno - 1 : child.end_lineno])
                if above.startswith("#"):  # the mark on a line of its own, just above
                    text = f"{above}\n{text}"
                mark = MARK.search(text)
                found.append(
                    (child.lineno, _targets(child, package, root), mark.group(1) if mark else "")
                )
            visit(child, inside or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)))

    visit(ast.parse(source), False)
    return found


def problems_of(path: Path, root: Path = SRC) -> list[str]:
    """What is wrong with the marks of ``path``'s imports inside functions."""
    problems = []
    for line, targets, mark in imports_inside_functions(path, root):
        where = f"{path.relative_to(root.parent)}:{line}"
        top = targets[0].split(".")[0]
        optional = top not in REQUIRED and top not in sys.stdlib_module_names and top != root.name
        if not mark:
            problems.append(
                f"{where}: say why it is inside a function ('# lazy: ...' or "
                "'# optional: ...'), or import it at the top"
            )
        elif mark == "optional" and not optional:
            problems.append(f"{where}: {top} is always installed: mark it '# lazy: ...'")
        elif mark == "lazy" and optional:
            problems.append(f"{where}: {top} is not a requirement: mark it '# optional: ...'")
    return problems


def test_every_import_inside_a_function_says_why() -> None:
    problems = [problem for path in sorted(SRC.rglob("*.py")) for problem in problems_of(path)]
    assert not problems, "\n".join(problems)


def test_what_import_toolwire_loads_anyway_is_imported_at_the_top() -> None:
    loaded = set(
        json.loads(
            subprocess.run(
                [
                    sys.executable,
                    "-c",
                    "import json, sys, toolwire; print(json.dumps([*sys.modules]))",
                ],
                capture_output=True,
                text=True,
                timeout=60,
                check=True,
            ).stdout
        )
    )
    needless = [
        f"{path.relative_to(SRC.parent)}:{line}: {', '.join(targets)}"
        for path in sorted(SRC.rglob("*.py"))
        if _module_name(path, SRC)[0] in loaded
        for line, targets, _ in imports_inside_functions(path)
        if all(target in loaded for target in targets)
    ]
    assert not needless, "loaded by `import toolwire` anyway, import at the top:\n" + "\n".join(
        needless
    )


def test_the_check_finds_an_unmarked_or_mismarked_import(tmp_path: Path) -> None:
    package = tmp_path / "toolwire"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "part.py").write_text("")
    (package / "mod.py").write_text(
        "import os\n"
        "def f():\n"
        "    import difflib\n"
        "    import httpx  # lazy: the HTTP stack\n"
        "    import json  # optional: json\n"
        "    from . import part  # lazy: on first use\n"
        "    from pydantic import (  # lazy: pydantic\n"
        "        TypeAdapter,\n"
        "    )\n"
        "    import yaml  # type: ignore[import-untyped]  # optional: PyYAML\n"
        "    # lazy: only for a 'did you mean'\n"
        "    import difflib as close\n"
        "    from importlib import metadata  # lazy: only for a hint\n"
    )
    problems = problems_of(package / "mod.py", package)
    assert [problem.split(":")[1] for problem in problems] == ["3", "4", "5"]
    found = [targets for _, targets, _ in imports_inside_functions(package / "mod.py", package)]
    assert found[3] == ["toolwire", "toolwire.part"]
    assert found[7] == ["importlib", "importlib.metadata"]
