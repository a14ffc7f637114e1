"""``toolwire migrate PATH ...``: rewrite the ``mcp`` and ``fastmcp`` imports of files and
trees to toolwire's (:mod:`toolwire.cli.migrate.rewrite`).

A folder is walked for ``*.py`` files, skipping hidden folders (``.venv``, ``.git``, ...),
virtual environments, ``node_modules``, ``__pycache__``, ``build`` and ``dist``. Each file is
read and written in its own encoding with its own line endings. Exit codes: 0 done (or nothing
to change), 1 with ``--check`` when some file would change, 2 bad usage or a file that cannot
be read or parsed (the others are still migrated).
"""

from __future__ import annotations

import argparse
import difflib
import io
import os
import re
import sys
import tokenize
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..options import HELP

if TYPE_CHECKING:
    from .rewrite import Migration

OK, CHANGES, USAGE = 0, 1, 2
_LINES = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$")
SKIPPED = {"node_modules", "__pycache__", "site-packages", "build", "dist", "venv", "env"}


def add_parser(commands: Any) -> None:
    """Register ``migrate`` on the CLI's subcommands."""

    parser = commands.add_parser(
        "migrate",
        help="rewrite the mcp and fastmcp imports of files or folders to toolwire's",
        description="Rewrite the imports of the official mcp SDK (1.x and 2.x) and of "
        "FastMCP in PATH (a file, or a folder walked for *.py) to toolwire's, as the table "
        "of docs/migrating.md says; only import statements change. A name toolwire has no "
        "counterpart for keeps its import and is listed as FILE:LINE: NAME: REASON (the "
        "docs/migrating.md section), as is each attribute use of a plain 'import mcp' "
        "(mcp.types.Tool). Exit 0 when done, 1 with --check when a file would change, 2 "
        "when a path cannot be read or parsed.",
        formatter_class=HELP,
    )
    parser.add_argument("paths", nargs="+", metavar="PATH", help="a Python file or a folder")
    parser.add_argument(
        "--check",
        action="store_true",
        help="write nothing; exit 1 when a file would change (for CI)",
    )
    parser.add_argument(
        "--diff",
        action="store_true",
        help="write nothing; print the changes as a unified diff (the list of uses without "
        "a counterpart goes to stderr)",
    )


def python_files(path: Path) -> list[Path]:
    """``path`` itself, or the ``*.py`` files under it, in a stable order."""
    if not path.is_dir():
        return [path]
    found: list[Path] = []
    for folder, folders, files in os.walk(path):
        folders[:] = sorted(
            name
            for name in folders
            if not name.startswith(".")
            and name not in SKIPPED
            and not (Path(folder, name) / "pyvenv.cfg").exists()
        )
        found.extend(Path(folder, name) for name in sorted(files) if name.endswith(".py"))
    return found


def command(options: argparse.Namespace) -> int:
    """Migrate every file; returns the exit code."""

    from .rewrite import Targets, migrate  # lazy: only when the command runs, not for --help

    targets = Targets()
    findings_out = sys.stderr if options.diff else sys.stdout
    changed = files = 0
    failed = False
    for given in options.paths:
        path = Path(given)
        if not path.exists():
            print(f"toolwire migrate: {given}: no such file or folder", file=sys.stderr)
            failed = True
            continue
        for file in python_files(path):
            shown = str(file)
            try:
                raw = file.read_bytes()
                encoding, _ = tokenize.detect_encoding(io.BytesIO(raw).readline)
                text = raw.decode(encoding)
                migration = migrate(text, targets)
            except (OSError, UnicodeDecodeError, SyntaxError, ValueError) as error:
                print(f"toolwire migrate: {shown}: cannot migrate: {error}", file=sys.stderr)
                failed = True
                continue
            files += 1
            if migration.text != text:
                changed += 1
                if options.diff:
                    _print_diff(shown, text, migration.text)
                elif options.check:
                    print(f"{shown}: would rewrite {_counted(migration)}")
                else:
                    file.write_bytes(migration.text.encode(encoding))
                    print(f"{shown}: rewrote {_counted(migration)}")
            for finding in migration.findings:
                print(finding.text(shown), file=findings_out)
    verb = "would change" if options.check or options.diff else "changed"
    print(f"toolwire migrate: {changed} of {files} files {verb}", file=sys.stderr)
    if failed:
        return USAGE
    return CHANGES if options.check and changed else OK


def _counted(migration: Migration) -> str:
    """``3 imports`` or ``3 imports and 1 use`` (a dotted use of a plain import)."""
    imports = f"{migration.rewritten} import" + ("" if migration.rewritten == 1 else "s")
    if not migration.uses:
        return imports
    return f"{imports} and {migration.uses} use" + ("" if migration.uses == 1 else "s")


def _print_diff(shown: str, old: str, new: str) -> None:

    lines = difflib.unified_diff(
        _LINES.findall(old),
        _LINES.findall(new),
        fromfile=shown,
        tofile=shown,
    )
    for line in lines:
        sys.stdout.write(line if line.endswith(("\n", "\r")) else line + "\n")
