"""Agent Skills from MCP servers, on the client side: the extension
``io.modelcontextprotocol/skills`` (SEP-2640) as a host uses it.

``await client.list_skills()`` lists what a server offers without reading any of it (a host
loads a skill only when it is needed). ``await client.load_skill(entry)`` reads the skill's
``SKILL.md`` and checks it against its entry before anything uses it: the size, the SHA-256
digest, and the frontmatter field by field. Any difference raises :class:`SkillMismatch`
and nothing of the skill is read further. ``await skill.read("references/FORMS.md")`` reads
one of the skill's own files lazily, checked the same way; a file the entry does not list is
refused.
"""

from __future__ import annotations

import base64
import hashlib
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..errors import ClientError
from ..skillmd import frontmatter

SKILLS = "io.modelcontextprotocol/skills"

JSON = dict[str, Any]


class SkillMismatch(ClientError):
    """What the server served is not what its skill entry says (size, digest or
    frontmatter): the skill must not be used."""


@dataclass
class LoadedSkill:
    """A skill whose ``SKILL.md`` was read and checked: ``text`` and its ``frontmatter``."""

    entry: JSON
    text: str
    frontmatter: JSON
    _client: Any

    @property
    def name(self) -> str:
        return str(self.frontmatter.get("name"))

    async def read(self, path: str) -> bytes:
        """The skill's file at ``path`` (relative to the skill's folder), checked against
        the entry; a file the entry does not list is refused."""
        root = str(self.entry["uri"]).rsplit("/", 1)[0]
        return await _read_checked(self._client, self.entry, f"{root}/{path}")


class ClientSkills:
    """The skills methods of :class:`~toolwire.Client`."""

    if TYPE_CHECKING:  # provided by Client

        @property
        def server_extensions(self) -> JSON: ...

        async def request(
            self, method: str, params: JSON | None = None, *, timeout: float | None = None
        ) -> JSON: ...

    async def list_skills(self) -> list[JSON]:
        """Every skill the server offers (``skills/list``, all pages), none of it read."""
        if SKILLS not in self.server_extensions:
            raise ClientError("The server does not offer skills (no Skills extension)")
        skills: list[JSON] = []
        params: JSON = {}
        while True:
            result = await self.request("skills/list", params)
            page = result.get("skills")
            if not isinstance(page, list) or not all(isinstance(s, dict) for s in page):
                raise ClientError("skills/list answered without a list of skills")
            skills.extend(page)
            cursor = result.get("nextCursor")
            if not isinstance(cursor, str):
                return skills
            params = {"cursor": cursor}

    async def load_skill(self, skill: JSON | str) -> LoadedSkill:
        """Read and check a skill: an entry of :meth:`list_skills`, or a skill's name."""
        entry = skill if isinstance(skill, dict) else await self._entry_named(skill)
        uri = entry.get("uri")
        if not isinstance(uri, str) or not isinstance(entry.get("frontmatter"), dict):
            raise ClientError("A skill entry needs a uri and a frontmatter object")
        data = await _read_checked(self, entry, uri)
        try:
            text = data.decode("utf-8")
            found = frontmatter(text)
        except (UnicodeDecodeError, ValueError) as exc:
            raise SkillMismatch(f"{uri}: the SKILL.md cannot be read: {exc}") from None
        if found != entry["frontmatter"]:
            differing = sorted(
                key
                for key in {*found, *entry["frontmatter"]}
                if found.get(key) != entry["frontmatter"].get(key)
            )
            raise SkillMismatch(
                f"{uri}: the frontmatter differs from the skill's entry ({', '.join(differing)})"
            )
        return LoadedSkill(entry, text, found, self)

    async def _entry_named(self, name: str) -> JSON:
        for entry in await self.list_skills():
            if (
                isinstance(entry.get("frontmatter"), dict)
                and entry["frontmatter"].get("name") == name
            ):
                return entry
        raise ClientError(f"The server offers no skill named {name!r}")


async def _read_checked(client: Any, entry: JSON, uri: str) -> bytes:
    """The bytes at ``uri``, once they match the size and digest the entry lists for it."""
    listed = entry.get("resources")
    files = (
        {r.get("uri"): r for r in listed if isinstance(r, dict)} if isinstance(listed, list) else {}
    )
    expected = files.get(uri)
    if expected is None and listed != "dynamic":
        raise SkillMismatch(f"{uri} is not one of the skill's files")
    result = await client.request("resources/read", {"uri": uri})
    contents = result.get("contents")
    if not isinstance(contents, list) or not contents or not isinstance(contents[0], dict):
        raise ClientError(f"resources/read {uri} answered without contents")
    content = contents[0]
    data: bytes
    if isinstance(content.get("text"), str):
        data = content["text"].encode("utf-8")
    elif isinstance(content.get("blob"), str):
        data = base64.b64decode(content["blob"])
    else:
        raise ClientError(f"resources/read {uri} answered with neither text nor a blob")
    if expected is not None:
        if expected.get("size") != len(data):
            raise SkillMismatch(
                f"{uri}: {len(data)} bytes served, the skill's entry says {expected.get('size')}"
            )
        digest = "sha256:" + hashlib.sha256(data).hexdigest()
        if expected.get("digest") != digest:
            raise SkillMismatch(f"{uri}: the content does not match the entry's digest")
    return data
