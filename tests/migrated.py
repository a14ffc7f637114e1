"""Incumbent-style files as a user switching gets them: a copy whose imports the real
``toolwire migrate`` command rewrote, with nothing it could not move."""

from __future__ import annotations

import difflib
import re
import subprocess
import sys
from pathlib import Path

IMPORT = re.compile(r"\s*(import|from) ")


def migrated(source: Path, folder: Path) -> Path:
    """``folder/<name>``: ``source`` after ``toolwire migrate``, which must have rewritten it
    and reported nothing; only import lines (and dotted uses of a plain import) differ."""
    copy = folder / source.name
    copy.write_bytes(source.read_bytes())
    done = subprocess.run(
        [sys.executable, "-m", "toolwire", "migrate", str(copy)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    (said,) = done.stdout.splitlines()  # what it rewrote, and nothing left behind
    assert said.startswith(f"{copy}: rewrote "), done.stdout
    before = source.read_text(encoding="utf-8").splitlines()
    after = copy.read_text(encoding="utf-8").splitlines()
    for line in difflib.ndiff(before, after):
        if line.startswith("- "):
            assert IMPORT.match(line[2:]) or "mcp." in line or "mcp_types." in line, line
        elif line.startswith("+ "):
            assert IMPORT.match(line[2:]) or "toolwire." in line, line
    return copy
