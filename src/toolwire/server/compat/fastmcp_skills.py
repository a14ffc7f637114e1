"""FastMCP's ``SkillsDirectoryProvider``: skill folders served as plain resources, in
FastMCP's layout (its ``fastmcp.server.providers.skills``).

::

    mcp.add_provider(SkillsDirectoryProvider(roots=Path(__file__).parent / "skills"))

Each folder directly under a root that holds a ``SKILL.md`` is a skill named after the
folder (the first root that has a name wins). A skill serves:

* ``skill://<name>/SKILL.md`` (``text/markdown``), described by its frontmatter's
  ``description``, else by the first line of its text;
* ``skill://<name>/_manifest`` (``application/json``): ``{"skill": name, "files": [{"path",
  "size", "hash": "sha256:..."}]}``, every file of the folder;
* its other files: with ``supporting_files="template"`` (the default) through the template
  ``skill://<name>/{path*}``, with ``"resources"`` each as a resource of its own. A text file
  (``text/*``) is read as text, any other as bytes; a path leaving the folder is refused.

The main file and the manifest are listed with FastMCP's ``_meta.fastmcp.skill`` (``{"name",
"is_manifest"}``), a file served as a resource of its own with ``{"name"}``. The folders are
read when the provider is added (``reload=True`` is accepted: restart the
server to see a change). toolwire's own :meth:`Server.add_skills <toolwire.Server.add_skills>`
serves the MCP skills extension instead (``skills/list``, ``skills/get``), which FastMCP 4.3
moves to.
"""

from __future__ import annotations

import hashlib
import json
import mimetypes
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal

from ...errors import RegistrationError
from ...resources import ResourceNotFound
from ...skillmd import frontmatter

mimetypes.add_type("text/markdown", ".md")


class SkillsDirectoryProvider:
    """Serves the skill folders under ``roots`` (one path or several, in precedence order)
    as FastMCP does (``mcp.add_provider(provider)``)."""

    toolwire_provider = True

    def __init__(
        self,
        roots: str | Path | Sequence[str | Path],
        reload: bool = False,
        main_file_name: str = "SKILL.md",
        supporting_files: Literal["template", "resources"] = "template",
    ) -> None:
        if supporting_files not in ("template", "resources"):
            raise ValueError(
                f"supporting_files={supporting_files!r}: use 'template' (files read through "
                "skill://<name>/{path*}) or 'resources' (each file listed)"
            )
        paths = [roots] if isinstance(roots, (str, Path)) else list(roots)
        self.roots = [Path(root).resolve() for root in paths]
        self.reload = reload
        self.main_file_name = main_file_name
        self.supporting_files = supporting_files

    def __repr__(self) -> str:
        return f"SkillsDirectoryProvider({[str(root) for root in self.roots]!r})"

    def skills(self) -> list[Path]:
        """The skill folders, by root and then in the directory's own order (as FastMCP
        lists them); a name taken by an earlier root is skipped."""
        found: dict[str, Path] = {}
        for root in self.roots:
            if not root.is_dir():
                continue
            for folder in root.iterdir():
                if (folder / self.main_file_name).is_file() and folder.name not in found:
                    found[folder.name] = folder.resolve()
        return list(found.values())

    def apply_to(self, server: Any) -> None:
        for folder in self.skills():
            self._serve(server, folder)

    def _serve(self, server: Any, folder: Path) -> None:
        name = folder.name
        main = folder / self.main_file_name
        text = main.read_text(encoding="utf-8")
        files = [path for path in sorted(folder.rglob("*")) if _inside(folder, path)]
        manifest = {
            "skill": name,
            "files": [
                {
                    "path": path.relative_to(folder).as_posix(),
                    "size": path.stat().st_size,
                    "hash": "sha256:" + hashlib.sha256(path.read_bytes()).hexdigest(),
                }
                for path in files
            ],
        }
        server.add_resource(
            lambda: main.read_text(encoding="utf-8"),
            f"skill://{name}/{self.main_file_name}",
            name=f"{name}/{self.main_file_name}",
            description=_description(text) or f"Skill: {name}",
            mime_type="text/markdown",
            meta=_skill_meta(name, is_manifest=False),
        )
        listing = json.dumps(manifest, indent=2)
        server.add_resource(
            lambda: listing,
            f"skill://{name}/_manifest",
            name=f"{name}/_manifest",
            description=f"File listing for {name}",
            mime_type="application/json",
            meta=_skill_meta(name, is_manifest=True),
        )
        if self.supporting_files == "resources":
            for path in files:
                relative = path.relative_to(folder).as_posix()
                if relative == self.main_file_name:
                    continue
                server.add_resource(
                    lambda path=path: _read(path),
                    f"skill://{name}/{relative}",
                    name=f"{name}/{relative}",
                    description=f"File from {name} skill",
                    mime_type=mimetypes.guess_type(relative)[0] or "application/octet-stream",
                    meta=_skill_meta(name),
                )
            return

        def supporting_file(path: str) -> str | bytes:
            found = (folder / path).resolve()
            if not found.is_relative_to(folder) or not found.is_file():
                raise ResourceNotFound(f"skill://{name}/{path}")
            return _read(found)

        server.add_resource(
            supporting_file,
            f"skill://{name}/{{path*}}",
            name=f"{name}_files",
            description=f"Access files within {name}",
            mime_type="application/octet-stream",
        )


def _skill_meta(name: str, *, is_manifest: bool | None = None) -> dict[str, Any]:
    """FastMCP's mark on a skill's files (``_meta.fastmcp.skill``): its main file and
    manifest say which they are, another file only its skill."""
    skill: dict[str, Any] = {"name": name}
    if is_manifest is not None:
        skill["is_manifest"] = is_manifest
    return {"fastmcp": {"skill": skill}}


def _inside(folder: Path, path: Path) -> bool:
    """A file of the folder (a link pointing out of it is not)."""
    return path.is_file() and path.resolve().is_relative_to(folder)


def _read(path: Path) -> str | bytes:
    kind = mimetypes.guess_type(path.name)[0]
    data = path.read_bytes()
    return data.decode("utf-8") if kind and kind.startswith("text/") else data


def _description(text: str) -> str:
    """The frontmatter's description, else the first line of the text (a heading's words)."""
    body = text
    if text.lstrip().startswith("---"):
        try:
            described = frontmatter(text).get("description")
        except ValueError as exc:
            raise RegistrationError(f"A SKILL.md has a malformed frontmatter: {exc}") from None
        if isinstance(described, str) and described:
            return described
        body = text.split("---", 2)[-1]
    for line in body.strip().splitlines():
        line = line.strip()
        if line:
            return line.lstrip("#").strip()[:200]
    return ""
