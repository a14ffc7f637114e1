"""The README's test command in a clone with nothing beside it.

The schemas the wire-level tests validate against travel with the repository
(``tests/spec``, source in ``tests/spec/SOURCE.md``): a copy of the repository's files in an
otherwise empty temporary folder (no ``../shared``, no ``TOOLWIRE_SPEC_DIR``) runs the
schema-validated wire tests from its own files, and none of them is skipped. The copy's own
``src`` and ``tests`` come first on the path, so nothing of this checkout is used but the
installed test dependencies.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import mcp_spec

ROOT = Path(__file__).resolve().parents[1]
SPEC = ROOT / "tests" / "spec"
# Schema-validated wire tests that read the schemas and the spec's examples; a few seconds each.
WIRE_TESTS = ["tests/test_mcp_spec.py", "tests/test_golden.py", "tests/test_elicitation.py"]


def _git_object(kind: str, body: bytes) -> bytes:
    return hashlib.sha1(f"{kind} {len(body)}\0".encode() + body).digest()


def git_blob(path: Path) -> str:
    """``git hash-object`` of a file."""
    return _git_object("blob", path.read_bytes()).hex()


def git_tree(folder: Path) -> str:
    """The git tree id of a folder of plain files and folders (``git write-tree``)."""
    entries = []
    for child in folder.iterdir():
        if child.is_dir():
            entries.append(
                (child.name + "/", b"40000 ", child.name, bytes.fromhex(git_tree(child)))
            )
        else:
            entries.append(
                (child.name, b"100644 ", child.name, _git_object("blob", child.read_bytes()))
            )
    body = b"".join(mode + name.encode() + b"\0" + sha for _, mode, name, sha in sorted(entries))
    return _git_object("tree", body).hex()


def test_the_spec_copy_is_byte_for_byte_the_commit_source_names() -> None:
    """Every id in SOURCE.md's table is the id of the file (or folder) beside it."""
    table = dict(
        re.findall(
            r"^\| (\S+)(?: \(tree\))? \| ([0-9a-f]{40}) \|$", (SPEC / "SOURCE.md").read_text(), re.M
        )
    )
    expected = {f"{rev}/schema.json" for rev in mcp_spec.REVISIONS} | {
        f"{mcp_spec.LATEST}/examples"
    }
    assert set(table) == expected
    for name, wanted in table.items():
        path = SPEC / name
        assert (git_tree(path) if path.is_dir() else git_blob(path)) == wanted, name


def test_git_tree_ids_are_computed_as_git_does(tmp_path: Path) -> None:
    """The check above can fail: an id computed here is the one git gives (when git is here)."""
    git = shutil.which("git")
    if git is None:
        pytest.skip("git is not installed; install it with: apt-get install git")
    folder = tmp_path / "examples"
    shutil.copytree(
        SPEC / mcp_spec.LATEST / "examples" / "CallToolResult", folder / "CallToolResult"
    )
    (folder / "b.json").write_text("{}\n")
    subprocess.run([git, "init", "-q", str(tmp_path)], check=True, timeout=30)
    subprocess.run([git, "-C", str(tmp_path), "add", "-A"], check=True, timeout=30)
    tree = subprocess.run(
        [git, "-C", str(tmp_path), "write-tree"],
        check=True,
        timeout=30,
        capture_output=True,
        text=True,
    ).stdout.strip()
    listed = subprocess.run(
        [git, "-C", str(tmp_path), "rev-parse", f"{tree}:examples"],
        check=True,
        timeout=30,
        capture_output=True,
        text=True,
    ).stdout.strip()
    assert git_tree(folder) == listed
    (folder / "b.json").write_text("[]\n")
    assert git_tree(folder) != listed


def test_the_readme_test_section_needs_nothing_beside_the_checkout() -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split("## Run the tests", 1)[1].split("\n## ", 1)[0]
    assert "../shared" not in section and "TOOLWIRE_SPEC_DIR" not in section
    assert "tests/spec" in section


def repository_files() -> list[str]:
    """The files a commit of this working tree holds (tracked, and new ones not ignored)."""
    git = shutil.which("git")
    if git is None or not (ROOT / ".git").exists():
        pytest.skip("not a git checkout (git ls-files names the repository's files)")
    listed = subprocess.run(
        [git, "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        check=True,
        timeout=60,
        capture_output=True,
    ).stdout
    return [name for name in listed.decode().split("\0") if name and (ROOT / name).is_file()]


@pytest.mark.timeout(120)
def test_the_wire_tests_find_their_schemas_in_a_clone_with_nothing_beside_it(
    tmp_path: Path,
) -> None:
    clone = tmp_path / "toolwire"
    for name in repository_files():
        (clone / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, clone / name)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["toolwire"]  # no ../shared
    env = {k: v for k, v in os.environ.items() if k not in ("TOOLWIRE_SPEC_DIR", "PYTHONPATH")}
    env["PYTHONPATH"] = os.pathsep.join([str(clone / "src"), str(clone / "tests")])

    where = subprocess.run(
        [
            sys.executable,
            "-c",
            "import mcp_spec, toolwire; print(mcp_spec.SPEC_DIR); print(toolwire.__file__)",
        ],
        cwd=clone,
        env=env,
        check=True,
        timeout=60,
        capture_output=True,
        text=True,
    ).stdout.split("\n")
    assert Path(where[0]) == clone / "tests" / "spec"
    assert Path(where[1]).is_relative_to(clone / "src")

    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-rs", "-p", "no:cacheprovider", *WIRE_TESTS],
        cwd=clone,
        env=env,
        timeout=110,
        capture_output=True,
        text=True,
    )
    tail = run.stdout[-3000:] + run.stderr[-2000:]
    assert run.returncode == 0, tail
    summary = run.stdout.strip().splitlines()[-1]
    assert re.search(r"\d+ passed", summary) and "skipped" not in summary, tail
