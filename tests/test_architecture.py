"""The layering of DESIGN.md, the import budget, and the static checks.

Inside each package the modules depend one way too, and so do the package's top-level parts:
nothing imports, directly or through others, what imports it back. Every import counts, at
the top of a module, under ``if TYPE_CHECKING:`` or inside a function (docs/architecture.md
gives the order of ``server/``).

Layers (dependencies point downwards only; client and server never import each other):

    5  toolwire (package), lowlevel, testing, cli, inspector, proxy, middleware, and the
       feature packages built on the server: composition, extensions, admission
    4  server/   client/
    3  transports/  telemetry/
    2  tools, resources, prompts, components, functions, content, schema, providers, lint,
       types, auth, safety
    1  protocol/
    0  jsonrpc, errors, _pip
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src" / "toolwire"
ROOT = SRC.parents[1]

LAYERS = {
    "errors": 0,
    "jsonrpc": 0,
    "_pip": 0,
    "protocol": 1,
    "tools": 2,
    "functions": 2,
    "resources": 2,
    "prompts": 2,
    "completion": 2,
    "components": 2,
    "content": 2,
    "schema": 2,
    "providers": 2,
    "_compat": 2,
    "skillmd": 2,
    "lint": 2,
    "types": 2,
    "auth": 2,
    "safety": 2,
    "transports": 3,
    "telemetry": 3,
    "server": 4,
    "client": 4,
    "lowlevel": 5,
    "testing": 5,
    "cli": 5,
    "proxy": 5,
    "composition": 5,
    "extensions": 5,
    "admission": 5,
    "middleware": 5,
    "inspector": 5,
    "__init__": 5,
    "__main__": 5,
}
HTTP_MODULES = ("starlette", "uvicorn", "httpx", "httpcore", "h11", "anyio", "sse_starlette")


def _top(module: Path) -> str:
    parts = module.relative_to(SRC).with_suffix("").parts
    return parts[0]


def _imports(path: Path) -> list[tuple[int, str]]:
    """(line, first component inside toolwire) of every toolwire import in ``path``, a module
    named in a string to ``importlib.import_module`` included."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = path.relative_to(SRC).parent.parts if path.is_relative_to(SRC) else ()
    found = []
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and getattr(node.func, "attr", getattr(node.func, "id", None)) == "import_module"
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and str(node.args[0].value).startswith("toolwire.")
        ):
            found.append((node.lineno, str(node.args[0].value).split(".")[1]))
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = (
                    list(package[: len(package) - (node.level - 1)])
                    if node.level > 1
                    else list(package)
                )
                target = [*base, *(node.module.split(".") if node.module else [])]
                if not target:  # "from . import x" at the top level
                    target = [alias.name for alias in node.names][:1]
            elif node.module and node.module.split(".")[0] == "toolwire":
                target = node.module.split(".")[1:] or [alias.name for alias in node.names][:1]
            else:
                continue
            found.append((node.lineno, target[0]))
        elif isinstance(node, ast.Import):
            for alias in node.names:
                parts = alias.name.split(".")
                if parts[0] == "toolwire" and len(parts) > 1:
                    found.append((node.lineno, parts[1]))
    return found


def test_every_module_has_a_layer() -> None:
    unknown = {_top(p) for p in SRC.rglob("*.py")} - set(LAYERS)
    assert not unknown, f"add these to LAYERS in this test and to DESIGN's picture: {unknown}"


def test_dependencies_point_downwards() -> None:
    violations = []
    for path in SRC.rglob("*.py"):
        own = _top(path)
        for line, target in _imports(path):
            if target == own or target not in LAYERS:
                continue
            sideways = {own, target} == {"server", "client"}
            if LAYERS[target] > LAYERS[own] or sideways:
                violations.append(f"{path.relative_to(SRC)}:{line} imports toolwire.{target}")
    assert not violations, "\n".join(violations)


def test_every_function_the_server_reaches_by_name_exists() -> None:
    """Server's methods reach the feature packages (above it) through
    toolwire.server.features: each name wired in toolwire/__init__.py imports and is a
    function of a feature package, and a name never wired says so."""
    from toolwire.server import features

    assert features._wired, "toolwire/__init__.py wires nothing"
    for name, target in features._wired.items():
        function = features.feature(name)
        assert callable(function), target
        package = target.partition(":")[0].split(".")[1]
        assert LAYERS[package] > LAYERS["server"], f"{name}: {target} is no feature package's"
    with pytest.raises(RuntimeError, match="No feature is wired as 'nothing'"):
        features.feature("nothing")


def test_the_checker_catches_an_upward_import(tmp_path: Path) -> None:
    bad = SRC / "jsonrpc.py"
    assert "server" not in {t for _, t in _imports(bad)}
    fake = tmp_path / "x.py"
    fake.write_text("from toolwire.server import Server\n")
    assert _imports_of(fake) == ["server"]
    named = tmp_path / "named.py"
    named.write_text(
        "import importlib\ndef f():\n    return importlib.import_module('toolwire.proxy')\n"
    )
    assert _imports(named) == [(3, "proxy")]


def _module_graph(folder: Path, deep: bool = True) -> dict[str, set[str]]:
    """Each module of ``folder`` and of its subpackages, named by its dotted path inside
    ``folder`` (a subpackage's ``__init__`` by the subpackage's name, the folder's own as
    ``__init__``), with the modules of the same tree it imports, however: at the top, under
    TYPE_CHECKING, inside functions, ``from . import x`` (a module, or a name of the package's
    ``__init__``) and ``from toolwire.<package>.x import ...``. ``deep=False``: the folder's
    own modules only."""
    part = folder.name
    files: dict[str, tuple[Path, list[str]]] = {}
    for path in folder.rglob("*.py") if deep else folder.glob("*.py"):
        inside = list(path.relative_to(folder).with_suffix("").parts)
        if inside[-1] == "__init__":
            inside.pop()
            files[".".join(inside) or "__init__"] = (path, [part, *inside])
        else:
            files[".".join(inside)] = (path, [part, *inside[:-1]])

    def node(module: list[str]) -> str | None:
        if module[:1] != [part]:
            return None
        name = ".".join(module[1:]) or "__init__"
        return name if name in files else None

    graph = {}
    for name, (path, package) in files.items():
        found = set()
        for statement in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(statement, ast.ImportFrom):
                if statement.level:
                    base = package[: len(package) - statement.level + 1]
                    module = (
                        [*base, *(statement.module or "").split(".")] if statement.module else base
                    )
                elif (statement.module or "").startswith("toolwire."):
                    module = (statement.module or "").split(".")[1:]
                else:
                    continue
                names = [node([*module, alias.name]) for alias in statement.names]
                found.update(n for n in names if n)
                if not all(names):  # a name the module defines: the module itself
                    found.add(node(module) or "")
            elif isinstance(statement, ast.Import):
                for alias in statement.names:
                    parts = alias.name.split(".")
                    if parts[0] == "toolwire":
                        found.add(node(parts[1:]) or "")
        graph[name] = found - {name, ""}
    return graph


def _cycles(folder: Path, deep: bool = True) -> list[list[str]]:
    """The import cycles among the modules of ``folder`` and its subpackages (each a strongly
    connected set)."""
    return _strongly_connected({m: sorted(t) for m, t in _module_graph(folder, deep).items()})


def _strongly_connected(graph: dict[str, list[str]]) -> list[list[str]]:
    """The sets of nodes of ``graph`` that reach each other (Tarjan), of two or more."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    cycles = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for target in graph.get(node, ()):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return cycles


def test_no_package_has_an_import_cycle() -> None:
    found = [
        f"{folder.relative_to(SRC.parent)}: {' <-> '.join(cycle)}"
        for folder in sorted({path.parent for path in SRC.rglob("*.py")})
        for cycle in _cycles(folder, deep=folder != SRC)  # the parts: the next test
    ]
    assert not found, "import cycles (type-only and local imports count): " + "; ".join(found)


def test_the_parts_of_the_package_depend_one_way() -> None:
    """No two top-level parts (``server``, ``cli``, ``tools`` ...) import each other, even
    through others or within one layer."""
    graph: dict[str, set[str]] = {}
    for path in SRC.rglob("*.py"):
        own = _top(path)
        graph.setdefault(own, set()).update(t for _, t in _imports(path) if t != own)
    cycles = _strongly_connected({part: sorted(targets) for part, targets in graph.items()})
    assert not cycles, "; ".join(" <-> ".join(cycle) for cycle in cycles)


def test_the_documented_order_of_server_modules_holds() -> None:
    """docs/architecture.md lists every server/ module in an order each one keeps: it
    imports only modules listed before it."""
    page = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    order: list[str] = []
    for row in re.findall(r"^\| \d+ \| ([^|]+) \|", page, re.MULTILINE):
        order += re.findall(r"`([\w.]+)`", row)
    folder = SRC / "server"
    graph = _module_graph(folder)
    modules = {m for m in graph if m != "__init__" and not (folder / m.replace(".", "/")).is_dir()}
    assert sorted(order) == sorted(modules), "list each server/ module once in the page's table"
    late = [
        f"{module} imports {target}"
        for position, module in enumerate(order)
        for target in sorted(graph[module] & modules)
        if target not in order[:position]
    ]
    assert not late, "; ".join(late)


def test_the_documented_layout_names_every_package() -> None:
    """docs/architecture.md's "Layout" block (the one that starts ``src/toolwire/``) names
    every package (a folder with ``__init__.py``, at any depth) as ``name/`` or
    ``parent/name/`` at the start of a line, and every package or module it names exists."""
    page = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    assert "\n## Layout\n" in page, "docs/architecture.md has no '## Layout' section"
    section = page.split("\n## Layout\n", 1)[1].split("\n## ", 1)[0]
    block = re.search(r"^```\nsrc/toolwire/\n(.*?)^```", section, re.MULTILINE | re.DOTALL)
    assert block is not None, "the Layout section has no block starting with src/toolwire/"
    names = []  # an entry: two spaces, then names split by ", ", ended by two spaces or the line
    for line in block.group(1).splitlines():
        entry = re.match(r"  (\S.*?)(?:\s{2,}|$)", line)
        if entry is not None:
            names += [name.strip() for name in entry.group(1).split(",")]
    written = {name.removesuffix("/") for name in names if name.endswith("/")}
    packages = {path.parent.relative_to(SRC).as_posix() for path in SRC.rglob("__init__.py")}
    packages.discard(".")
    modules = [name for name in names if not name.endswith("/")]
    problems = [
        *(f"package {name}/ is not named" for name in sorted(packages - written)),
        *(f"{name}/ is named but is no package" for name in sorted(written - packages)),
        *(
            f"{name} is named but is no module"
            for name in modules
            if not (name.endswith(".py") and (SRC / name).is_file())
        ),
    ]
    assert not problems, "docs/architecture.md, ## Layout: " + "; ".join(problems)


def test_the_cycle_check_counts_type_only_and_local_imports(tmp_path: Path) -> None:
    package = tmp_path / "server"
    package.mkdir()
    (package / "low.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .high import High\n"
    )
    (package / "high.py").write_text("from .low import x\n")
    (package / "side.py").write_text("def f():\n    from toolwire.server.other import y\n")
    (package / "other.py").write_text("from . import side\n")
    (package / "alone.py").write_text("from . import low\n")
    (package / "__init__.py").write_text("def main():\n    from .command import run\n")
    (package / "command.py").write_text("def run():\n    from . import HELP\n")
    (package / "sub").mkdir()
    (package / "sub" / "__init__.py").write_text("")
    (package / "sub" / "deep.py").write_text("from .. import top\n")
    (package / "top.py").write_text("from .sub.deep import d\n")
    (package / "sub" / "plain.py").write_text("from ..alone import a\nfrom . import deep\n")
    assert sorted(_cycles(package)) == [
        ["__init__", "command"],
        ["high", "low"],
        ["other", "side"],
        ["sub.deep", "top"],
    ]


def _imports_of(path: Path) -> list[str]:
    tree = ast.parse(path.read_text())
    return [
        n.module.split(".")[1] for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module
    ]


def _run(code: str) -> str:
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_import_toolwire_is_light() -> None:
    """`import toolwire` loads neither the HTTP stack nor pydantic (kept for first use)."""
    out = _run(
        "import sys, toolwire\n"
        f"print(sorted(m for m in sys.modules if m.split('.')[0] in {(*HTTP_MODULES, 'pydantic')!r}))"
    )
    assert out.strip() == "[]"


def test_a_stdio_server_never_loads_http(tmp_path: Path) -> None:
    """A stdio server that has answered initialize, tools/list and tools/call loads no HTTP library."""
    script = tmp_path / "server.py"
    script.write_text(
        "import sys\n"
        "from toolwire import Server\n"
        "mcp = Server('budget')\n"
        "@mcp.tool()\n"
        "def add(a: int, b: int) -> int:\n"
        "    return a + b\n"
        "@mcp.tool()\n"
        "def loaded(prefixes: list[str]) -> list[str]:\n"
        "    return sorted(m for m in sys.modules if m.split('.')[0] in prefixes)\n"
        "mcp.run()\n"
    )
    requests = [
        b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}',
        b'{"jsonrpc":"2.0","method":"notifications/initialized"}',
        b'{"jsonrpc":"2.0","id":2,"method":"tools/list"}',
        b'{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2}}}',
        b'{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"loaded","arguments":{"prefixes":'
        + str(list(HTTP_MODULES)).replace("'", '"').encode()
        + b"}}}",
    ]
    result = subprocess.run(
        [sys.executable, str(script)],
        input=b"\n".join(requests) + b"\n",
        capture_output=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    import orjson

    answers = {m["id"]: m for m in map(orjson.loads, result.stdout.splitlines())}
    assert answers[3]["result"]["structuredContent"] == {"result": 3}
    assert answers[4]["result"]["structuredContent"] == {"result": []}


@pytest.mark.timeout(300)
def test_ruff_is_clean() -> None:
    for args in (["check"], ["format", "--check"]):
        result = subprocess.run(
            [sys.executable, "-m", "ruff", *args, "src", "tests", "examples", "benchmarks"],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=240,
        )
        assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.timeout(300)
def test_mypy_is_clean() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "mypy"], cwd=ROOT, capture_output=True, text=True, timeout=280
    )
    assert result.returncode == 0, result.stdout + result.stderr
