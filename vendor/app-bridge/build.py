"""Rebuild the inspector's MCP Apps host bridge from the npm packages pinned beside this file.

    python vendor/app-bridge/build.py            # writes src/toolwire/inspector/static/app-bridge.js.gz
    python vendor/app-bridge/build.py --check    # exits 1 if the committed bundle differs

Needs node and npm. ``npm ci`` installs the exact packages of package-lock.json into a
working folder (a temporary one unless ``--workdir`` names one, which is then reused while
the lock file is unchanged); esbuild bundles entry.js into one self-contained ES module; a
header naming the packages, their versions and their licence texts is put in front; the
result is written gzip-compressed. ``--check`` compares the decompressed text, so the zlib
build or Python version that compressed it does not matter.
"""

from __future__ import annotations

import argparse
import gzip
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
OUTPUT = ROOT / "src" / "toolwire" / "inspector" / "static" / "app-bridge.js.gz"
RECIPE = ("package.json", "package-lock.json", "entry.js", "jitless.js")
ESBUILD_ARGS = (
    "entry.js",
    "--bundle",
    "--format=esm",
    "--platform=browser",
    "--minify",
    "--charset=ascii",
    "--legal-comments=none",
    "--log-level=warning",
    "--metafile=meta.json",
    "--outfile=bundle.js",
)
LICENCE_NAMES = ("LICENSE", "LICENSE.md", "LICENSE.txt", "LICENCE", "license")


def _run(argv: list[str], cwd: Path, timeout: float) -> None:
    done = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, timeout=timeout)
    if done.returncode != 0:
        sys.exit(f"{' '.join(argv)} failed ({done.returncode}):\n{done.stdout}{done.stderr}")


def _install(work: Path) -> None:
    """Copy the recipe into ``work`` and ``npm ci`` there, unless that lock is installed."""
    npm = shutil.which("npm")
    if npm is None or shutil.which("node") is None:
        sys.exit("node and npm are needed to rebuild the app bridge (apt-get install nodejs npm)")
    work.mkdir(parents=True, exist_ok=True)
    lock = (HERE / "package-lock.json").read_bytes()
    stamp = work / "node_modules" / ".toolwire-lock"
    installed = stamp.exists() and stamp.read_bytes() == lock
    for name in RECIPE:
        shutil.copyfile(HERE / name, work / name)
    if not installed:
        _run([npm, "ci", "--ignore-scripts", "--no-audit", "--no-fund"], work, timeout=300)
        stamp.write_bytes(lock)


def _package_of(path: str) -> str | None:
    """``node_modules/@scope/name/dist/x.js`` -> ``@scope/name``."""
    if "node_modules/" not in path:
        return None
    parts = path.rsplit("node_modules/", 1)[1].split("/")
    return "/".join(parts[:2]) if parts[0].startswith("@") else parts[0]


def _bundled_packages(work: Path) -> list[str]:
    """The npm packages with code in the bundle (from esbuild's metafile), sorted."""
    meta = json.loads((work / "meta.json").read_text(encoding="utf-8"))
    names = set()
    for output in meta["outputs"].values():
        for path, used in output["inputs"].items():
            name = _package_of(path)
            if name is not None and used["bytesInOutput"] > 0:
                names.add(name)
    return sorted(names)


def _version(work: Path, name: str) -> str:
    info = json.loads((work / "node_modules" / name / "package.json").read_text(encoding="utf-8"))
    return str(info["version"])


def _licence(folder: Path) -> str:
    for name in LICENCE_NAMES:
        if (folder / name).is_file():
            return (folder / name).read_text(encoding="utf-8").strip()
    sys.exit(f"no licence file in {folder.name}; add it to the header by hand")


def _header(work: Path, packages: list[str]) -> str:
    """The comment in front of the bundle: what it is, the versions and the licence texts."""
    versions: list[str] = []
    texts: dict[str, list[str]] = {}  # licence text -> the packages carrying it
    for name in packages:
        folder = work / "node_modules" / name
        versions.append(f" *   {name} {_version(work, name)}")
        texts.setdefault(_licence(folder), []).append(name)
    lines = [
        "/*!",
        " * MCP Apps host bridge (AppBridge of @modelcontextprotocol/ext-apps) for the toolwire",
        " * inspector: one self-contained ES module, zod configured jitless (no eval).",
        f" * Bundled by esbuild {_version(work, 'esbuild')} from these npm packages:",
        *versions,
        " * Rebuild with: python vendor/app-bridge/build.py",
        " *",
        " * Licences of the bundled packages:",
    ]
    for text, names in texts.items():
        lines += [" *", f" * --- {', '.join(names)} ---", *text.splitlines()]
    # No line may close the comment early; only the last one closes it.
    body = "\n".join(line.replace("*/", "* /").rstrip() for line in lines)
    return body + "\n */\n"


def build(work: Path) -> bytes:
    """The bundle's JavaScript text (header included), built in ``work``."""
    _install(work)
    esbuild = work / "node_modules" / ".bin" / "esbuild"
    _run([str(esbuild), *ESBUILD_ARGS], work, timeout=120)
    header = _header(work, _bundled_packages(work))
    return header.encode("utf-8") + (work / "bundle.js").read_bytes()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare with the committed file")
    parser.add_argument("--workdir", type=Path, help="reusable install folder (default: temp)")
    args = parser.parse_args(argv)
    if args.workdir is not None:
        script = build(args.workdir.resolve())
    else:
        with tempfile.TemporaryDirectory(prefix="toolwire-app-bridge-") as temp:
            script = build(Path(temp))
    where = OUTPUT.relative_to(ROOT)
    if args.check:
        committed = gzip.decompress(OUTPUT.read_bytes()) if OUTPUT.exists() else b""
        if committed != script:
            print(
                f"{where} is not what vendor/app-bridge builds "
                f"({len(committed)} bytes committed, {len(script)} built); "
                "rebuild with: python vendor/app-bridge/build.py",
                file=sys.stderr,
            )
            return 1
        print(f"{where} is up to date ({len(script)} bytes)")
        return 0
    OUTPUT.write_bytes(gzip.compress(script, compresslevel=9, mtime=0))
    print(f"wrote {where}: {len(script)} bytes, {OUTPUT.stat().st_size} gzipped")
    return 0


if __name__ == "__main__":
    sys.exit(main())
