"""``toolwire migrate``'s rewriting: the ``mcp`` and ``fastmcp`` imports of one Python source
turned into toolwire's, as :mod:`toolwire.cli.migrate.table` says, and nothing else touched.

Only import statements change, each in place (``ast`` gives their positions): comments,
formatting and line endings elsewhere stay byte for byte. A ``from`` import whose names all
move to one toolwire module keeps its own layout (parentheses, comments, trailing comma); one
whose names go to several modules, or stay where they were, becomes one statement per module
(the comments inside it go on lines of their own above).
A name toolwire has no counterpart for stays imported from where it was and is reported with
the reason. A plain ``import mcp.server.stdio`` binds ``mcp``, and the file names what it uses
through dotted chains (``mcp.server.stdio.stdio_server()``): when every such chain of that root
has a counterpart, the chains are rewritten with the imports (``toolwire.lowlevel.stdio.
stdio_server()``) and the import names the toolwire modules they need; otherwise each chain is
reported and nothing of that root changes. Relative imports are never touched.
"""

from __future__ import annotations

import ast
import importlib
import re
from dataclasses import dataclass, field
from types import ModuleType

from .table import ROWS

DOC = "docs/migrating.md"
ROOTS = ("mcp", "fastmcp", "mcp_types", "fastmcp_tasks")
WIDTH = 99  # a generated statement longer than this is wrapped in parentheses
_FROM = re.compile(r"from(?:\s|\\)+([A-Za-z_]\w*(?:(?:\s|\\)*\.(?:\s|\\)*[A-Za-z_]\w*)*)")
_LINE_END = re.compile(r"\r\n|\r|\n")


@dataclass(frozen=True)
class Finding:
    """A use toolwire has no counterpart for, or one no import rewrite can move."""

    line: int
    name: str
    reason: str
    section: str

    def text(self, path: str) -> str:
        return f"{path}:{self.line}: {self.name}: {self.reason} ({DOC}#{self.section})"


@dataclass
class Migration:
    """The new text of one source, with what was rewritten and what was left."""

    text: str
    rewritten: int = 0  # import statements changed
    uses: int = 0  # dotted uses of a plain import changed with it
    findings: list[Finding] = field(default_factory=list)


@dataclass(frozen=True)
class _Move:
    module: str  # the toolwire module
    name: str  # the name there ("*": every name)
    section: str


def _incumbent(module: str) -> bool:
    return module.split(".", 1)[0] in ROOTS


class Targets:
    """What toolwire offers, looked up when ``migrate`` runs: a target module is imported
    and the name searched for, so a name added later is found without changing the table."""

    def __init__(self) -> None:
        self._rows = {(row[0], row[1]): row for row in ROWS}
        self._modules: dict[str, ModuleType | None] = {}

    def row(self, module: str, name: str) -> tuple[str, str, str, str, str, str] | None:
        return self._rows.get((module, name)) or self._rows.get((module, "*"))

    def known(self, module: str) -> bool:
        return (module, "*") in self._rows or any(key[0] == module for key in self._rows)

    def renames(self, module: str) -> bool:
        """Whether some name of ``module`` moves elsewhere than its ``*`` row says."""
        star = self._rows.get((module, "*"))
        return any(
            key[0] == module and key[1] != "*" and (star is None or row[2:4] != (star[2], ""))
            for key, row in self._rows.items()
        )

    def load(self, module: str) -> ModuleType | None:
        if module not in self._modules:
            try:
                self._modules[module] = importlib.import_module(module)
            except Exception:  # not there (yet): every use of it is reported
                self._modules[module] = None
        return self._modules[module]

    def has(self, module: str, name: str, listed: bool) -> bool:
        """``module`` offers ``name``: in its ``__all__``, or one of toolwire's own classes
        and functions there; for a name the table lists itself, any attribute or submodule."""
        found = self.load(module)
        if found is None:
            return False
        if name in getattr(found, "__all__", ()):
            return True
        if hasattr(found, name):
            value = getattr(found, name)
            if listed:
                return True
            # one of toolwire's own (a class, a function), not a submodule or an import
            own = str(getattr(value, "__module__", "")).split(".")[0] == "toolwire"
            return own and not isinstance(value, ModuleType)
        return listed and self.load(f"{module}.{name}") is not None

    def move(self, module: str, name: str) -> _Move | str:
        """Where ``name`` imported from ``module`` goes, or why it stays."""
        row = self.row(module, name)
        if row is None:
            return f"{module}.{name} has no counterpart in toolwire; the import is kept"
        _, listed, target, target_name, section, note = row
        if not target:
            return note
        wanted = target_name or name
        if name == "*":
            if self.load(target) is None:
                return f"toolwire has no module {target}; the import is kept"
            return _Move(target, "*", section)
        if not self.has(target, wanted, listed != "*"):
            return f"{target} has no {wanted}; the import from {module} is kept"
        return _Move(target, wanted, section)

    def section(self, module: str, name: str) -> str:
        row = self.row(module, name)
        if row is not None:
            return row[4]
        if module.startswith(("mcp.client", "fastmcp.client")):
            return "clients"
        if module.startswith("fastmcp"):
            return "from-the-standalone-fastmcp-package"
        return "from-the-official-mcp-sdk"


class _Source:
    """Positions in a source text: ``ast`` counts columns in UTF-8 bytes."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.starts = [0]
        self.lines: list[str] = []
        position = 0
        for end in _LINE_END.finditer(text):
            self.lines.append(text[position : end.end()])
            position = end.end()
            self.starts.append(position)
        self.lines.append(text[position:])

    def offset(self, line: int, column: int) -> int:
        prefix = self.lines[line - 1].encode("utf-8")[:column]
        return self.starts[line - 1] + len(prefix.decode("utf-8", errors="replace"))

    def span(self, node: ast.AST) -> tuple[int, int]:
        start = self.offset(node.lineno, node.col_offset)  # type: ignore[attr-defined]
        end = self.offset(node.end_lineno, node.end_col_offset)  # type: ignore[attr-defined]
        return start, end

    def newline(self, line: int) -> str:
        found = _LINE_END.search(self.lines[line - 1])
        return found.group() if found else "\n"


def _alias(name: str, wanted: str, asname: str | None) -> str:
    bound = asname or name
    return wanted if wanted == bound else f"{wanted} as {bound}"


def _statement(module: str, names: list[str], indent: str, newline: str) -> str:
    line = f"from {module} import {', '.join(names)}"
    if len(indent) + len(line) <= WIDTH or names == ["*"]:
        return line
    inner = "".join(f"{indent}    {name},{newline}" for name in names)
    return f"from {module} import ({newline}{inner}{indent})"


def migrate(text: str, targets: Targets | None = None) -> Migration:
    """``text`` with its incumbent imports rewritten; raises ``SyntaxError`` when it does not
    parse."""
    targets = targets or Targets()
    tree = ast.parse(text)
    source = _Source(text)
    edits: list[tuple[int, int, str]] = []
    result = Migration(text)
    plain: dict[str, list[ast.alias]] = {}  # names bound by `import mcp...` (no `as`)
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            if _incumbent(node.module):
                found = _from_import(node, source, targets, result.findings)
                edits.extend(found)
                result.rewritten += bool(found)
        elif isinstance(node, ast.Import):
            found = _import(node, source, targets, result.findings, plain)
            edits.extend(found)
            result.rewritten += bool(found)
    assigned = {
        node.id
        for node in ast.walk(tree)
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load)
    }
    plain = {root: aliases for root, aliases in plain.items() if root not in assigned}
    if plain:  # (a root assigned in the file, `mcp = FastMCP(...)`, is the server, not the SDK)
        imports, uses = _attribute_uses(tree, plain, targets, result.findings, source)
        edits.extend(imports + uses)
        result.rewritten += len(imports)
        result.uses += len(uses)
    new = text
    for start, end, replacement in sorted(edits, reverse=True):
        new = new[:start] + replacement + new[end:]
    result.text = new
    result.findings.sort(key=lambda finding: finding.line)
    return result


def _from_import(
    node: ast.ImportFrom, source: _Source, targets: Targets, findings: list[Finding]
) -> list[tuple[int, int, str]]:
    module = node.module or ""
    moves: list[tuple[ast.alias, _Move | None]] = []
    for alias in node.names:
        outcome = targets.move(module, alias.name)
        if isinstance(outcome, str):
            name = module if alias.name == "*" else alias.name
            section = targets.section(module, alias.name)
            findings.append(Finding(alias.lineno, name, outcome, section))
            moves.append((alias, None))
        else:
            moves.append((alias, outcome))
    destinations = {move.module if move else None for _, move in moves}
    if destinations == {None}:
        return []
    start, end = source.span(node)
    segment = source.text[start:end]
    if len(destinations) == 1:  # one toolwire module: edit the names in place
        (target,) = destinations
        named = _FROM.match(segment)
        if named is None:  # pragma: no cover - ast accepted it, so the pattern matches
            return []
        edits = [(start + named.start(1), start + named.end(1), str(target))]
        for alias, move in moves:
            assert move is not None
            if move.name != alias.name:
                begin, finish = source.span(alias)
                edits.append((begin, finish, _alias(alias.name, move.name, alias.asname)))
        return edits
    # several modules: one statement each, in the order the names came
    line_start = source.starts[node.lineno - 1]
    indent = source.text[line_start:start]
    newline = source.newline(node.end_lineno or node.lineno)
    alone = not indent.strip()
    groups: dict[str, list[str]] = {}
    for alias, move in moves:
        if move is None:
            groups.setdefault(module, []).append(_alias(alias.name, alias.name, alias.asname))
        else:
            groups.setdefault(move.module, []).append(_alias(alias.name, move.name, alias.asname))
    comments = re.findall(r"#[^\r\n]*", segment)
    if comments and not alone:  # `x = 1; from mcp import (a,  # ...` : left to the author
        findings.append(
            Finding(
                node.lineno, module, "rewrite this import by hand", targets.section(module, "*")
            )
        )
        return []
    pieces = [_statement(target, names, indent, newline) for target, names in groups.items()]
    joiner = newline + indent if alone else "; "
    text = joiner.join(comments + pieces)
    return [(start, end, text)]


def _import(
    node: ast.Import,
    source: _Source,
    targets: Targets,
    findings: list[Finding],
    plain: dict[str, list[ast.alias]],
) -> list[tuple[int, int, str]]:
    edits = []
    for alias in node.names:
        if not _incumbent(alias.name):
            continue
        if alias.asname is None:  # binds `mcp`: its uses are attribute chains
            plain.setdefault(alias.name.split(".", 1)[0], []).append(alias)
            continue
        move = targets.move(alias.name, "*")
        section = targets.section(alias.name, "*")
        if isinstance(move, str):
            findings.append(Finding(alias.lineno, alias.name, move, section))
        elif targets.renames(alias.name):
            findings.append(
                Finding(
                    alias.lineno,
                    alias.name,
                    f"some names of {alias.name} change in toolwire: import them by name "
                    f"(from {alias.name} import ...), which toolwire migrate rewrites",
                    section,
                )
            )
        else:
            begin, finish = source.span(alias)
            edits.append((begin, finish, f"{move.module} as {alias.asname}"))
    return edits


Edits = list[tuple[int, int, str]]


def _attribute_uses(
    tree: ast.Module,
    plain: dict[str, list[ast.alias]],
    targets: Targets,
    findings: list[Finding],
    source: _Source,
) -> tuple[Edits, Edits]:
    """The edits of each plain ``import mcp...`` and of its dotted uses, where every use of
    its root has a counterpart; each use of another root is reported."""
    inner: set[int] = set()
    chains: dict[str, list[tuple[ast.expr, str, str, _Move | str, int]]] = {}
    for node in ast.walk(tree):
        if not isinstance(node, ast.Attribute) or id(node) in inner:
            continue
        nodes: list[ast.expr] = []
        parts: list[str] = []
        current: ast.expr = node
        while isinstance(current, ast.Attribute):
            nodes.append(current)
            parts.append(current.attr)
            if isinstance(current.value, ast.Attribute):
                inner.add(id(current.value))
            current = current.value
        if not (isinstance(current, ast.Name) and current.id in plain):
            continue
        parts = [current.id, *reversed(parts)]
        for cut in range(len(parts) - 1, 0, -1):
            module = ".".join(parts[:cut])
            if targets.known(module):
                break
        else:
            cut = 1
            module = parts[0]
        name = parts[cut]
        used = nodes[len(nodes) - cut]  # the chain up to the name: `mcp.server.stdio.x`
        move = targets.move(module, name)
        if isinstance(move, str) and cut == 1 and len(parts) > 2:  # a module not in the table
            module, name = ".".join(parts[:-1]), parts[-1]
            move = f"{module} has no counterpart in toolwire"
        chains.setdefault(parts[0], []).append((used, module, name, move, node.lineno))
    imports: Edits = []
    edits: Edits = []
    for root, aliases in plain.items():
        uses = chains.get(root, [])
        if not uses:
            findings.append(
                Finding(
                    aliases[0].lineno,
                    root,
                    f"a plain import of {root} that nothing uses: remove it, or import the "
                    f"names you use from it (from {root} import ...)",
                    targets.section(root, "*"),
                )
            )
            continue
        if any(isinstance(move, str) for *_, move, _ in uses):
            for _, module, name, move, line in uses:
                reason = move if isinstance(move, str) else "its root has a use that stays"
                findings.append(
                    Finding(
                        line,
                        f"{module}.{name}",
                        f"used through a plain import of {module}; {reason}",
                        targets.section(module, name),
                    )
                )
            continue
        needed: dict[int, set[str]] = {id(alias): set() for alias in aliases}
        for used, module, name, move, _ in uses:
            assert isinstance(move, _Move)
            # the import that brought the module in: the longest one it starts with
            owner = max(
                (a for a in aliases if module == a.name or module.startswith(a.name + ".")),
                key=lambda a: len(a.name),
                default=aliases[0],
            )
            needed[id(owner)].add(move.module)
            begin, finish = source.span(used)
            wanted = move.name if move.name != "*" else name
            edits.append((begin, finish, f"{move.module}.{wanted}"))
        for alias in aliases:  # one with no use of its own becomes its module's counterpart
            move = targets.move(alias.name, "*")
            alone = move.module if isinstance(move, _Move) else "toolwire"
            begin, finish = source.span(alias)
            imports.append((begin, finish, ", ".join(sorted(needed[id(alias)]) or [alone])))
    return imports, edits
