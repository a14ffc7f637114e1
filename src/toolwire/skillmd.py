"""The ``SKILL.md`` of an Agent Skill: its YAML frontmatter (``name``, ``description`` and
the other fields of the Agent Skills format), read the same way by a server that serves
skills and a client that checks what it was served. Sans-IO, no YAML dependency: ``key:
value`` lines with plain or quoted scalars, and one level of indented maps or ``- item``
lists, which is what the format uses; anything else is refused (``ValueError``)."""

from __future__ import annotations

from typing import Any

JSON = dict[str, Any]


def frontmatter(text: str) -> JSON:
    """The YAML frontmatter of a ``SKILL.md``: ``key: value`` lines, with quoted or plain
    scalars, and one level of indented maps or ``- item`` lists (the Agent Skills fields)."""
    lines = text.splitlines()
    if not lines or lines[0].strip() != "---":
        raise ValueError("SKILL.md must start with a '---' frontmatter block")
    try:
        end = next(i for i in range(1, len(lines)) if lines[i].strip() == "---")
    except StopIteration:
        raise ValueError("the frontmatter block has no closing '---'") from None
    found: JSON = {}
    key: str | None = None
    for line in lines[1:end]:
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        if line[0] in " \t":  # inside the last key's map or list
            item = line.strip()
            if key is None:
                raise ValueError(f"indented frontmatter line {line!r}")
            if item.startswith("- "):
                if not isinstance(found.get(key), list):
                    found[key] = []
                found[key].append(_scalar(item[2:]))
            else:
                sub, colon, value = item.partition(":")
                if not colon:
                    raise ValueError(f"cannot read frontmatter line {line!r}")
                if not isinstance(found.get(key), dict):
                    found[key] = {}
                found[key][sub.strip()] = _scalar(value)
            continue
        name, colon, value = line.partition(":")
        if not colon:
            raise ValueError(f"cannot read frontmatter line {line!r}")
        key = name.strip()
        found[key] = _scalar(value) if value.strip() else None
    return {key: value for key, value in found.items() if value is not None}


def _scalar(value: str) -> Any:
    value = value.strip()
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
        return value[1:-1]
    return value
