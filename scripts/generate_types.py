"""Generate ``src/toolwire/types/*.py`` from the official JSON Schemas of every MCP revision.

    python scripts/generate_types.py            # write the modules
    python scripts/generate_types.py --check    # exit 1 if a committed module differs

One model per definition name, the union of what every revision defines: a field is required
only where every revision that has the type requires it; a field whose type differs between
revisions accepts each. Nested objects the SDKs name (capabilities, completion arguments, the
request params older revisions wrote inline) become models of those names; other nested
objects stay ``dict[str, Any]``. The output is formatted with ruff; a test in
``tests/test_types_names.py`` regenerates and compares, so the committed modules never drift
from the schemas.
"""

from __future__ import annotations

import json
import keyword
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
SPEC = ROOT / "tests" / "spec"
OUT = ROOT / "src" / "toolwire" / "types"
REVISIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28")

# The tables sit beside this script (run as a script or loaded by the tests).
sys.path.insert(0, str(Path(__file__).resolve().parent))
from types_tables import AREAS, DEFAULTS, FIXED_ALIASES, INLINE, OBJECT_AS  # noqa: E402

RESERVED = {"copy", "dict", "json", "schema", "validate", "construct", "fields", "from_orm"}


def snake(wire: str) -> str:
    name = "meta" if wire == "_meta" else re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", wire).lower()
    name = re.sub(r"[^a-z0-9_]", "_", name)
    if keyword.iskeyword(name) or name in RESERVED or name.startswith("model_"):
        name += "_"
    return name


class Model:
    def __init__(self, name: str) -> None:
        self.name = name
        self.variants: list[tuple[str, dict[str, Any]]] = []  # (revision, object schema)
        self.description = ""

    def add(self, revision: str, schema: dict[str, Any]) -> None:
        self.variants.append((revision, schema))
        if schema.get("description"):
            self.description = schema["description"]


class Generator:
    def __init__(self) -> None:
        self.defs: dict[str, dict[str, dict[str, Any]]] = {}  # rev -> name -> schema
        for rev in REVISIONS:
            data = json.loads((SPEC / rev / "schema.json").read_text(encoding="utf-8"))
            self.defs[rev] = data.get("$defs") or data["definitions"]
        self.models: dict[str, Model] = {}
        self.aliases: dict[str, list[str]] = {}  # name -> type expressions, by revision
        self.alias_docs: dict[str, str] = {}
        self.revisions: dict[str, list[str]] = {}

    # ------------------------------------------------------------------ collecting
    def collect(self) -> None:
        unions = {
            name
            for rev in REVISIONS
            for name, schema in self.defs[rev].items()
            if self.flatten(rev, schema) is None
        }
        twins: dict[tuple[str, str], str] = {}
        for rev in REVISIONS:
            for name, schema in self.defs[rev].items():
                self.revisions.setdefault(name, []).append(rev)
                flat = self.flatten(rev, schema)
                if flat is None:
                    continue
                twin = self.twin(rev, name, flat) if name in unions else None
                if twin:  # a union of one member, written out: the member it is
                    twins[rev, name] = twin
                elif name in unions and name in OBJECT_AS:  # one shape the union has later
                    twins[rev, name] = OBJECT_AS[name]
                    self.model(OBJECT_AS[name]).add(rev, flat)
                else:
                    self.model(name).add(rev, flat)
        for rev in REVISIONS:
            for name, schema in self.defs[rev].items():
                if name in self.models or name in FIXED_ALIASES:
                    continue
                expr = twins.get((rev, name)) or self.type_of(rev, schema, name)
                found = self.aliases.setdefault(name, [])
                if expr not in found:
                    found.append(expr)
                if schema.get("description"):
                    self.alias_docs[name] = schema["description"]
        for rev in REVISIONS:
            for name, schema in self.defs[rev].items():
                self.walk_inline(rev, name, schema)

    def twin(self, rev: str, name: str, schema: dict[str, Any]) -> str | None:
        """Another definition of ``rev`` with the same shape as ``schema``, if any."""

        def shape(value: dict[str, Any]) -> dict[str, Any]:
            return {k: v for k, v in value.items() if k != "description"}

        for other, candidate in self.defs[rev].items():
            if other != name and shape(candidate) == shape(schema):
                return other
        return None

    def model(self, name: str) -> Model:
        return self.models.setdefault(name, Model(name))

    def flatten(self, rev: str, schema: dict[str, Any]) -> dict[str, Any] | None:
        """The object schema of a definition (``allOf`` merged), or None if not an object."""
        if "allOf" in schema:
            merged: dict[str, Any] = {"type": "object", "properties": {}, "required": []}
            for part in schema["allOf"]:
                part = self.resolve(rev, part)
                merged["properties"].update(part.get("properties", {}))
                merged["required"] += part.get("required", [])
            merged["description"] = schema.get("description", "")
            return merged
        if schema.get("type") == "object" and "properties" in schema:
            return schema
        return None

    def resolve(self, rev: str, schema: dict[str, Any]) -> dict[str, Any]:
        while "$ref" in schema:
            schema = self.defs[rev][schema["$ref"].rsplit("/", 1)[1]]
        return schema

    def walk_inline(self, rev: str, path: str, schema: dict[str, Any]) -> None:
        if not isinstance(schema, dict):
            return
        named = self.inline_name(path)
        if named and schema.get("type") == "object":
            self.model(named).add(rev, schema)
        for key, prop in (schema.get("properties") or {}).items():
            self.walk_inline(rev, f"{path}.{key}", prop)
        for i, part in enumerate(schema.get("allOf") or ()):
            self.walk_inline(rev, f"{path}.allOf{i}", part)

    # ------------------------------------------------------------------ types
    def inline_name(self, path: str) -> str | None:
        """The model a nested object at ``path`` is, if it has one."""
        if path in INLINE:
            return INLINE[path]
        parent, _, key = path.rpartition(".")
        if (
            key == "params"
            and "." not in parent
            and any(f"{parent}Params" in defs for defs in self.defs.values())
        ):
            return f"{parent}Params"
        return None

    def type_of(self, rev: str, schema: dict[str, Any], path: str) -> str:
        named = self.inline_name(path)
        if named and schema.get("type") == "object":
            return named
        if "$ref" in schema:
            return str(schema["$ref"].rsplit("/", 1)[1])
        if "const" in schema:
            return f"Literal[{schema['const']!r}]"
        if "enum" in schema:
            return f"Literal[{', '.join(repr(v) for v in schema['enum'])}]"
        if "anyOf" in schema or "oneOf" in schema:
            parts = [self.type_of(rev, s, path) for s in schema.get("anyOf") or schema["oneOf"]]
            return union(parts)
        if "allOf" in schema:
            refs = [s for s in schema["allOf"] if "$ref" in s]
            return self.type_of(rev, refs[0], path) if refs else "Any"
        kind = schema.get("type")
        if isinstance(kind, list):
            return union([self.type_of(rev, {**schema, "type": k}, path) for k in kind])
        if kind == "string":
            return "str"
        if kind == "integer":
            return "int"
        if kind == "number":
            return "float"
        if kind == "boolean":
            return "bool"
        if kind == "null":
            return "None"
        if kind == "array":
            items = schema.get("items")
            return f"list[{self.type_of(rev, items, path + '[]') if items else 'Any'}]"
        if kind == "object":
            extra = schema.get("additionalProperties")
            if isinstance(extra, dict) and extra and "properties" not in schema:
                return f"dict[str, {self.type_of(rev, extra, path + '{}')}]"
            return "dict[str, Any]"
        return "Any"

    def fields(self, model: Model) -> list[tuple[str, str, str, str]]:
        """(python name, wire name, type, default or '') of each field of ``model``."""
        order: list[str] = []
        types: dict[str, list[str]] = {}
        required: dict[str, int] = {}
        for rev, schema in model.variants:
            for wire, prop in schema.get("properties", {}).items():
                if wire not in types:
                    order.append(wire)
                    types[wire] = []
                expr = (
                    "dict[str, Any]"
                    if wire == "_meta"
                    else self.type_of(rev, prop, f"{self.path_of(model, rev, schema)}.{wire}")
                )
                if expr not in types[wire]:
                    types[wire].append(expr)
                if wire in schema.get("required", ()):
                    required[wire] = required.get(wire, 0) + 1
        out = []
        for wire in order:
            expr = self.simplify(union(types[wire]))
            default = DEFAULTS.get((model.name, wire), "")
            if not default:
                if required.get(wire, 0) == len(model.variants):
                    const = re.fullmatch(r"Literal\[([^,\]]+)\]", expr)
                    default = const.group(1) if const else ""
                else:
                    expr = expr if expr == "Any" else f"{expr} | None"
                    default = "None"
            out.append((snake(wire), wire, expr, default))
        return out

    def members(self, name: str) -> set[str]:
        """The types an alias stands for, through other aliases."""
        found = set()
        for part in split_union(union(self.aliases.get(name, []))):
            found |= {part} | self.members(part) if part in self.aliases else {part}
        return found

    def simplify(self, expr: str) -> str:
        """``expr`` without the types an alias in the same union already covers."""
        parts = split_union(expr)
        parts = [f"list[{self.simplify(p[5:-1])}]" if p.startswith("list[") else p for p in parts]
        covered = set().union(*(self.members(p) for p in parts if p in self.aliases))
        return " | ".join(p for p in parts if p not in covered)

    def path_of(self, model: Model, rev: str, schema: dict[str, Any]) -> str:
        """The path inline objects below ``schema`` are named by."""
        paths = dict(INLINE)
        paths[model.name.removesuffix("Params") + ".params"] = model.name
        for path, name in paths.items():
            if name == model.name and path.split(".")[0] in self.defs[rev]:
                node: Any = self.defs[rev][path.split(".")[0]]
                for key in path.split(".")[1:]:
                    if key.startswith("allOf"):
                        node = node.get("allOf", [{}] * 9)[int(key[5:])]
                    else:
                        node = (node.get("properties") or {}).get(key, {})
                if node is schema:
                    return path
        return model.name

    # ------------------------------------------------------------------ output
    def references(self, name: str) -> set[str]:
        text = " ".join(
            [e for _, _, e, _ in self.fields(self.models[name])]
            if name in self.models
            else self.aliases.get(name, [])
        )
        known = set(self.models) | set(self.aliases) | set(FIXED_ALIASES)
        return {w for w in re.findall(r"[A-Za-z_]\w*", text) if w in known and w != name}

    def place(self) -> dict[str, list[str]]:
        names = sorted(set(self.models) | set(self.aliases) | set(FIXED_ALIASES))
        index = {}
        for name in names:
            if name.endswith("Response") or name.endswith("Error"):  # messages and errors
                index[name] = len(AREAS) - 1
                continue
            if "Capabilit" in name:
                index[name] = [a for a, _, _ in AREAS].index("capabilities")
                continue
            for i, (_, _, pattern) in enumerate(AREAS):
                if re.match(pattern, name):
                    index[name] = i
                    break
        moved = True
        while moved:  # a definition an earlier module needs moves there
            moved = False
            for name in names:
                for ref in self.references(name):
                    if index[ref] > index[name]:
                        index[ref] = index[name]
                        moved = True
        out: dict[str, list[str]] = {area: [] for area, _, _ in AREAS}
        for name in names:
            out[AREAS[index[name]][0]].append(name)
        return out

    def render(self) -> dict[str, str]:
        self.collect()
        placed = self.place()
        where = {name: area for area, names in placed.items() for name in names}
        files = {}
        for area, doc, _ in AREAS:
            names = placed[area]
            imports: dict[str, set[str]] = {}
            for name in names:
                for ref in self.references(name):
                    if where[ref] != area:
                        imports.setdefault(where[ref], set()).add(ref)
            lines = [
                f'"""{doc}',
                "",
                f"Generated by scripts/generate_types.py from the MCP schemas of "
                f"{REVISIONS[0]} to {REVISIONS[-1]}; do not edit.",
                '"""',
                "",
                "from typing import Any, Literal",
                "",
                "from pydantic import Field",
                "",
                "from ._base import MCPModel",
            ]
            if any(
                d.startswith("Field(default_factory=_no_arguments") for d in self.defaults(names)
            ):
                lines[-1] = "from ._base import MCPModel, _no_arguments"
            for module in [a for a, _, _ in AREAS if a in imports]:
                refs = sorted(imports[module])
                joined = ", ".join(refs)
                if len(f"from .{module} import ({joined})") <= 100:
                    lines.append(f"from .{module} import {joined}")
                else:
                    lines.append(f"from .{module} import (")
                    lines += [f"    {r}," for r in refs]
                    lines.append(")")
            # Annotations are evaluated as the classes are made (quicker to import than
            # strings): each definition comes after the ones it uses; a reference to one
            # still to come (a cycle) is written as a string, resolved on first use.
            body: list[str] = []
            local = set(names)
            done: set[str] = set()
            for name in topo(names, lambda n, local=local: self.references(n) & local):
                later = (self.references(name) & local) - done
                if name in self.models:
                    body += ["", "", *self.render_model(self.models[name], later | {name})]
                else:
                    if later:
                        raise ValueError(f"alias {name} uses {later} before they are defined")
                    body += ["", *self.render_alias(name)]
                done.add(name)
            defined = sorted(names)
            body += ["", "__all__ = [", *[f"    {n!r}," for n in defined], "]"]
            text = "\n".join(lines + body) + "\n"
            uses = set(re.findall(r"\b(Any|Literal|Field)\b", "\n".join(body)))
            for word, line in (("Field", "from pydantic import Field\n\n"),):
                if word not in uses:
                    text = text.replace(line, "", 1)
            typing = [w for w in ("Any", "Literal") if w in uses]
            text = text.replace(
                "from typing import Any, Literal\n",
                f"from typing import {', '.join(typing)}\n" if typing else "",
                1,
            )
            files[f"{area}.py"] = formatted(text, f"{area}.py")
        return files

    def defaults(self, names: list[str]) -> list[str]:
        return [d for n in names if n in self.models for *_, d in self.fields(self.models[n])]

    def render_model(self, model: Model, later: set[str]) -> list[str]:
        revs = sorted({rev for rev, _ in model.variants})
        lines = [f"class {model.name}(MCPModel):"]
        lines += docstring(model.description, revs, "    ")
        if any(s.get("additionalProperties") not in (None, False) for _, s in model.variants):
            lines.append("    __toolwire_open__ = True")
        lines.append("")
        for py, wire, expr, default in self.fields(model):
            if set(re.findall(r"\w+", expr)) & later:
                expr = f'"{expr}"'
            if default.startswith("Field("):
                value = f" = {default}"
            elif py != wire:
                value = f" = Field({'default=' + default + ', ' if default else ''}alias={wire!r})"
            else:
                value = f" = {default}" if default else ""
            line = f"    {py}: {expr}{value}"
            if len(line) > 100:
                line = f"    {py}: (\n        {expr}\n    ){value}"
            lines.append(line)
        if lines[-1] == "":
            lines.pop()
        return lines

    def render_alias(self, name: str) -> list[str]:
        expr = FIXED_ALIASES.get(name) or union(self.aliases[name])
        line = f"{name} = {expr}"
        if len(line) > 100:
            parts = expr.split(" | ")
            line = (
                f"{name} = (\n"
                + "\n".join(f"    {'| ' if i else ''}{p}" for i, p in enumerate(parts))
                + "\n)"
            )
        doc = first_paragraph(self.alias_docs.get(name, ""))
        revs = self.revisions.get(name, [])
        note = f"{doc} ({span(revs)})" if doc else f"({span(revs)})"
        return [line, *docstring_lines(note, "")]


def formatted(text: str, name: str) -> str:
    """``text`` as ``ruff`` leaves it (imports sorted, formatted), so the check is exact."""
    for step in (["check", "--fix", "--select", "I,RUF022", "--quiet"], ["format"]):
        text = subprocess.run(
            [sys.executable, "-m", "ruff", *step, "--stdin-filename", str(OUT / name), "-"],
            input=text,
            capture_output=True,
            text=True,
            cwd=ROOT,
            check=True,
        ).stdout
    return text


def union(parts: list[str]) -> str:
    flat: list[str] = []
    for part in parts:
        for piece in split_union(part):
            if piece not in flat:
                flat.append(piece)
    if "Any" in flat:
        return "Any"
    lists = [p for p in flat if p.startswith("list[")]
    if len(lists) > 1:  # one list of every item type
        items = union([p[5:-1] for p in lists])
        at = flat.index(lists[0])
        flat = [p for p in flat if not p.startswith("list[")]
        flat.insert(at, f"list[{items}]")
    literals = [p for p in flat if p.startswith("Literal[")]
    if len(literals) > 1:  # one Literal with every value
        values: list[str] = []
        for lit in literals:
            values += [v for v in split_top(lit[8:-1], ",") if v not in values]
        merged = f"Literal[{', '.join(values)}]"
        at = flat.index(literals[0])
        flat = [p for p in flat if not p.startswith("Literal[")]
        flat.insert(at, merged)
    return " | ".join(flat)


def split_union(expr: str) -> list[str]:
    return split_top(expr, "|")


def split_top(expr: str, sep: str) -> list[str]:
    out, depth, cur = [], 0, ""
    for ch in expr:
        depth += ch in "[("
        depth -= ch in "])"
        if ch == sep and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    out.append(cur.strip())
    return [p for p in out if p]


def topo(names: list[str], deps: Any) -> list[str]:
    done: list[str] = []

    def visit(name: str, seen: tuple[str, ...] = ()) -> None:
        if name in done or name in seen:
            return
        for dep in sorted(deps(name)):
            visit(dep, (*seen, name))
        done.append(name)

    for name in names:
        visit(name)
    return done


def first_paragraph(text: str) -> str:
    text = re.sub(r"\{@link\s+([^}|\s]+)\s*\|?\s*([^}]*)\}", lambda m: m[2] or m[1], text)
    para = text.strip().split("\n\n")[0]
    return " ".join(para.split())


def span(revs: list[str]) -> str:
    if list(revs) == list(REVISIONS):
        return "every revision"
    if revs == list(REVISIONS[REVISIONS.index(revs[0]) :]):
        return f"{revs[0]} on"
    return ", ".join(revs)


def docstring(description: str, revs: list[str], indent: str) -> list[str]:
    doc = first_paragraph(description)
    note = f"{doc}\n\n{indent}Revisions: {span(revs)}." if doc else f"Revisions: {span(revs)}."
    return docstring_lines(note, indent)


def docstring_lines(text: str, indent: str) -> list[str]:
    text = text.replace("\\", "\\\\").replace('"""', "'''")
    paragraphs = text.split(f"\n\n{indent}")
    out: list[str] = []
    for p, para in enumerate(paragraphs):
        words = para.split()
        line = indent + ('"""' if p == 0 else "")
        for word in words:
            if len(line) + len(word) + 1 > 96 and line.strip(' "'):
                out.append(line.rstrip())
                line = indent
            line += ("" if line.endswith(('"""', " ")) or line == indent else " ") + word
        out.append(line)
        if p < len(paragraphs) - 1:
            out.append("")
    if len(out[-1]) + 3 <= 100:
        out[-1] += '"""'
    else:
        out.append(f'{indent}"""')
    return out


def index(files: dict[str, str]) -> str:
    """``types/__init__.py`` with the block that re-exports the generated modules rewritten."""
    init = (OUT / "__init__.py").read_text(encoding="utf-8")
    begin, end = "# generated names: begin\n", "# generated names: end\n"
    modules = sorted(["_sdk", *(name[:-3] for name in files)])
    lines = [f"from . import {', '.join(modules)}", "from ._base import MCPModel, dump"]
    lines += [f"from .{module} import *  # noqa: F403" for module in modules]
    lines += ["", '__all__ = ["MCPModel", "dump"]']
    lines += [f"__all__ += {module}.__all__" for module in modules]
    head, rest = init.split(begin)
    return formatted(
        head + begin + "\n".join(lines) + "\n" + end + rest.split(end)[1], "__init__.py"
    )


def main() -> int:
    files = Generator().render()
    files["__init__.py"] = index(files)
    check = "--check" in sys.argv
    stale = []
    for name, text in files.items():
        path = OUT / name
        if path.exists() and path.read_text(encoding="utf-8") == text:
            continue
        stale.append(name)
        if not check:
            path.write_text(text, encoding="utf-8")
    if check and stale:
        print("out of date:", ", ".join(stale), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
