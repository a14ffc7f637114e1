"""Agent Skills served over MCP: the extension ``io.modelcontextprotocol/skills`` (SEP-2640).

``mcp.add_skills("skills/")`` serves every folder below ``skills/`` that holds a ``SKILL.md``
(YAML frontmatter with at least ``name`` and ``description``; the folder's name must be the
skill's ``name``). Each file of a skill is a resource at ``skill://<path>/<file>`` (read with
``resources/read``; ``SKILL.md`` as ``text/markdown``, named and described by its
frontmatter), and the extension's methods describe the skills without sending them:

* ``skills/list`` (paged) and ``skills/get {uri}``: each skill's ``SKILL.md`` URI, its
  frontmatter as written, and every file with its size and SHA-256 digest, so a host can
  check what it reads;
* ``resources/directory/read {uri}``: the files and folders directly in a skill folder
  (folders as ``inode/directory``).

The files are read once, when the skills are added: what is listed is what is served.
"""

from __future__ import annotations

import contextlib
import hashlib
import mimetypes
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .. import jsonrpc
from ..errors import RegistrationError, RPCError
from ..server.context import Context
from ..server.core import decode_cursor, encode_cursor
from ..server.dispatch.extensions import Extension
from ..skillmd import frontmatter

SKILLS = "io.modelcontextprotocol/skills"
NAME = re.compile(r"(?!.*--)[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?")
MAX_FILES = 512
MAX_BYTES = 16 * 1024 * 1024
TTL_MS = 60_000
PAGE = 50

JSON = dict[str, Any]


@dataclass
class SkillFile:
    uri: str
    data: bytes
    mime_type: str

    def entry(self) -> JSON:
        digest = hashlib.sha256(self.data).hexdigest()
        return {"uri": self.uri, "digest": f"sha256:{digest}", "size": len(self.data)}


@dataclass
class Skill:
    path: str  # skill://<path>
    frontmatter: JSON
    files: list[SkillFile]

    @property
    def uri(self) -> str:
        return f"skill://{self.path}/SKILL.md"

    def entry(self) -> JSON:
        return {
            "uri": self.uri,
            "frontmatter": dict(self.frontmatter),
            "resources": [file.entry() for file in self.files],
        }


def load_skills(folder: Path, authority: str | None = None) -> list[Skill]:
    """Every skill under ``folder`` (a folder with a ``SKILL.md``), checked."""
    if not folder.is_dir():
        raise RegistrationError(f"No skills folder at {folder}")
    skills = []
    for manifest in sorted(folder.rglob("SKILL.md")):
        root = manifest.parent
        relative = root.relative_to(folder).as_posix()
        if relative == ".":
            raise RegistrationError(f"{manifest}: a skill is a folder below {folder}")
        path = f"{authority}/{relative}" if authority else relative
        where = f"skill {relative!r}"
        try:
            meta = frontmatter(manifest.read_text(encoding="utf-8"))
        except ValueError as exc:
            raise RegistrationError(f"{where}: {exc}") from None
        name, description = meta.get("name"), meta.get("description")
        if not isinstance(name, str) or not NAME.fullmatch(name):
            raise RegistrationError(
                f"{where}: name {name!r} must be 1-64 lowercase letters, digits and single hyphens"
            )
        if root.name != name:
            raise RegistrationError(f"{where}: the folder must be named after the skill, {name!r}")
        if not isinstance(description, str) or not description:
            raise RegistrationError(f"{where}: the frontmatter needs a description")
        files = []
        for file in sorted(p for p in root.rglob("*") if p.is_file()):
            inner = file.relative_to(root).as_posix()  # a nested skill's files are listed too
            guessed = (
                "text/markdown" if file.suffix == ".md" else mimetypes.guess_type(file.name)[0]
            )
            files.append(
                SkillFile(f"skill://{path}/{inner}", file.read_bytes(), guessed or "text/plain")
            )
        if len(files) > MAX_FILES or sum(len(f.data) for f in files) > MAX_BYTES:
            raise RegistrationError(f"{where}: more than {MAX_FILES} files or {MAX_BYTES} bytes")
        skills.append(Skill(path, meta, files))
    names = [skill.frontmatter["name"] for skill in skills]
    if len(set(names)) != len(names):
        raise RegistrationError(f"Two skills under {folder} have the same name")
    return skills


def serve_skills(
    server: Any, folder: str | os.PathLike[str], authority: str | None = None
) -> list[Skill]:
    """Serve the skills under ``folder`` on ``server`` (``mcp.add_skills``)."""
    skills = load_skills(Path(folder), authority)
    served: set[str] = set()
    for skill in skills:
        for file in skill.files:
            if file.uri in served:  # a nested skill's file, served once
                continue
            served.add(file.uri)
            content: str | bytes = file.data
            if file.mime_type.startswith("text/"):
                with contextlib.suppress(UnicodeDecodeError):
                    content = file.data.decode("utf-8")
            is_manifest = file.uri == skill.uri
            server.add_resource(
                content,
                file.uri,
                name=skill.frontmatter["name"] if is_manifest else file.uri.rsplit("/", 1)[-1],
                description=skill.frontmatter["description"] if is_manifest else None,
                mime_type=file.mime_type,
            )
    server.add_extension(_extension(skills))
    return skills


def _extension(skills: list[Skill]) -> Extension:
    by_uri = {skill.uri: skill for skill in skills}
    folders = _folders(skills)
    extension = Extension(SKILLS, {"directoryRead": True})

    @extension.method("skills/list")
    def list_skills(params: JSON, ctx: Context) -> JSON:
        start = _start(params)
        page = skills[start : start + PAGE]
        result: JSON = {"skills": [skill.entry() for skill in page]}
        if start + PAGE < len(skills):
            result["nextCursor"] = encode_cursor(str(start + PAGE))
        return _cacheable(result)

    @extension.method("skills/get")
    def get_skill(params: JSON, ctx: Context) -> JSON:
        uri = params.get("uri")
        skill = by_uri.get(uri) if isinstance(uri, str) else None
        if skill is None:
            raise RPCError(jsonrpc.INVALID_PARAMS, f"No skill is served at {str(uri)[:200]}")
        return _cacheable({"skill": skill.entry()})

    @extension.method("resources/directory/read")
    def read_directory(params: JSON, ctx: Context) -> JSON:
        uri = params.get("uri")
        children = folders.get(uri.rstrip("/")) if isinstance(uri, str) else None
        if children is None:
            raise RPCError(jsonrpc.INVALID_PARAMS, f"Not a directory: {str(uri)[:200]}")
        start = _start(params)
        result: JSON = {"resources": children[start : start + PAGE]}
        if start + PAGE < len(children):
            result["nextCursor"] = encode_cursor(str(start + PAGE))
        return result

    return extension


def _folders(skills: list[Skill]) -> dict[str, list[JSON]]:
    """Each folder of each skill -> its direct children as resources/list entries."""
    folders: dict[str, dict[str, JSON]] = {}
    for skill in skills:
        root = f"skill://{skill.path}"
        folders.setdefault(root, {})
        for file in skill.files:
            parts = file.uri[len(root) + 1 :].split("/")
            parent = root
            for folder in parts[:-1]:
                child = f"{parent}/{folder}"
                folders.setdefault(parent, {})[child] = {
                    "uri": child,
                    "name": folder,
                    "mimeType": "inode/directory",
                }
                folders.setdefault(child, {})
                parent = child
            folders[parent][file.uri] = {
                "uri": file.uri,
                "name": parts[-1],
                "mimeType": file.mime_type,
                "size": len(file.data),
            }
    return {uri: list(children.values()) for uri, children in folders.items()}


def _start(params: JSON) -> int:
    cursor = params.get("cursor")
    if cursor is None:
        return 0
    if not isinstance(cursor, str):
        raise RPCError(jsonrpc.INVALID_PARAMS, "Invalid cursor")
    position = decode_cursor(cursor)
    if not position.isdigit():
        raise RPCError(jsonrpc.INVALID_PARAMS, "Invalid cursor")
    return int(position)


def _cacheable(result: JSON) -> JSON:
    return {**result, "ttlMs": TTL_MS, "cacheScope": "public"}
