"""Docstring parsing: a tool's description and its parameters' descriptions.

Three styles are understood, and may even be mixed in one docstring:

* Google: ``Args:`` (or ``Arguments:``, ``Parameters:``...) with ``name: text`` or
  ``name (type): text`` entries, continuation lines indented; ``Returns:``, ``Raises:``...
* NumPy: a section title underlined with dashes (``Parameters`` / ``----------``), entries
  ``name : type`` with the description indented below.
* reST / Sphinx fields: ``:param name: text``, ``:param int name: text``, ``:type name:``,
  ``:returns: text``, ``:raises ValueError: text``.

The description keeps the summary and body but drops the parameter, return, raise and example
sections. Admonitions (``Note:``, ``Warning:``...) are usage guidance, so they stay in it.

This runs once per tool at registration: a docstring without any section costs one
precompiled regular-expression search.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from inspect import cleandoc

__all__ = ["Docstring", "parse_docstring"]


@dataclass(frozen=True)
class Docstring:
    """The parts of a docstring a tool definition uses."""

    description: str | None
    params: dict[str, str] = field(default_factory=dict)
    returns: str | None = None


_PARAMS = "params"
_RETURNS = "returns"
_YIELDS = "yields"
_SKIP = "skip"

_SECTIONS: dict[str, str] = {
    "args": _PARAMS,
    "arguments": _PARAMS,
    "parameters": _PARAMS,
    "params": _PARAMS,
    "keyword args": _PARAMS,
    "keyword arguments": _PARAMS,
    "keyword parameters": _PARAMS,
    "kwargs": _PARAMS,
    "other parameters": _PARAMS,
    "returns": _RETURNS,
    "return": _RETURNS,
    "yields": _YIELDS,
    "yield": _YIELDS,
    "raises": _SKIP,
    "raise": _SKIP,
    "exceptions": _SKIP,
    "except": _SKIP,
    "warns": _SKIP,
    "receives": _SKIP,
    "receive": _SKIP,
    "examples": _SKIP,
    "example": _SKIP,
    "attributes": _SKIP,
    "methods": _SKIP,
    "see also": _SKIP,
    "references": _SKIP,
    "todo": _SKIP,
}

_REST_FIELDS: dict[str, str] = {
    "param": _PARAMS,
    "parameter": _PARAMS,
    "arg": _PARAMS,
    "argument": _PARAMS,
    "key": _PARAMS,
    "keyword": _PARAMS,
    "returns": _RETURNS,
    "return": _RETURNS,
    "yields": _YIELDS,
    "yield": _YIELDS,
    "type": _SKIP,
    "rtype": _SKIP,
    "ytype": _SKIP,
    "raises": _SKIP,
    "raise": _SKIP,
    "except": _SKIP,
    "exception": _SKIP,
}

_names = "|".join(sorted((re.escape(k).replace(r"\ ", " ") for k in _SECTIONS), key=len)[::-1])
# Cheap pre-check: could this docstring contain any section at all?
_HINT = re.compile(
    rf"^[ \t]*(?:(?:{_names})[ \t]*:|(?:{_names})[ \t]*$|:(?:{'|'.join(_REST_FIELDS)})\b)",
    re.IGNORECASE | re.MULTILINE,
)
# Google section header, with optional inline text ("Returns: the sum").
_GOOGLE_HEADER = re.compile(rf"^({_names})[ \t]*:[ \t]*(.*)$", re.IGNORECASE)
# Google entry: "name: text", "name (type): text", "*args: text".
_GOOGLE_ENTRY = re.compile(r"^\*{0,2}([A-Za-z_]\w*)\s*(?:\((.*?)\))?\s*:(?:\s+(.*)|\s*$)")
# NumPy entry: "name : type", "name", "x, y : int".
_NUMPY_ENTRY = re.compile(r"^(\*{0,2}[A-Za-z_]\w*(?:\s*,\s*\*{0,2}[A-Za-z_]\w*)*)\s*(?::.*)?$")
# reST field: ":param int name: text", ":returns: text", ":raises ValueError:".
_REST_FIELD = re.compile(r"^:([A-Za-z]+)(?:\s+([^:]*?))?\s*:(?:\s+(.*)|\s*$)")
# A type in front of a Google "Returns:" text ("int: the sum").
_RETURN_TYPE = re.compile(
    r"^[A-Za-z_][\w.]*(?:\[[^\]]*\])?(?:\s*\|\s*[A-Za-z_][\w.]*(?:\[[^\]]*\])?)*\s*:\s+"
)

_EMPTY = Docstring(None, {}, None)


def parse_docstring(doc: str | None) -> Docstring:
    """Split ``doc`` into its description, parameter descriptions and return description."""
    if not doc:
        return _EMPTY
    text = doc.strip() if "\n" not in doc else cleandoc(doc)
    if not text or text.isspace():
        return _EMPTY
    if _HINT.search(text) is None:
        return Docstring(text, {}, None)
    return _Parser(text.splitlines()).run()


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def _join(parts: list[str]) -> str:
    return " ".join(p for p in (s.strip() for s in parts) if p)


def _is_underline(line: str) -> bool:
    s = line.strip()
    return len(s) >= 3 and (s.count("-") == len(s) or s.count("=") == len(s))


class _Parser:
    def __init__(self, lines: list[str]) -> None:
        self.lines = lines
        self.description: list[str] = []
        self.params: dict[str, str] = {}
        self.returns: str | None = None
        self.yields: str | None = None

    def run(self) -> Docstring:
        lines = self.lines
        n = len(lines)
        i = 0
        while i < n:
            line = lines[i]
            stripped = line.strip()
            if stripped:
                j = self._section(i, stripped)
                if j:
                    i = j
                    continue
            self.description.append(line)
            i += 1
        # The text is cleandoc'ed already: only blank edges and doubled blank lines remain.
        desc = "\n".join(_squeeze(self.description)).strip() or None
        returns = self.returns if self.returns is not None else self.yields
        return Docstring(desc, self.params, returns or None)

    def _section(self, i: int, stripped: str) -> int:
        """Consume the section starting at line ``i``; return the next line index, or 0."""
        lines = self.lines
        n = len(lines)
        indent = _indent(lines[i])
        # NumPy: a title underlined with dashes.
        if i + 1 < n and _is_underline(lines[i + 1]):
            kind = _SECTIONS.get(stripped.lower())
            if kind is None:
                return 0
            j = i + 2
            while j < n and not (
                j + 1 < n
                and lines[j].strip()
                and _is_underline(lines[j + 1])
                and _indent(lines[j]) <= indent
            ):
                j += 1
            self._numpy(kind, lines[i + 2 : j])
            return j
        if stripped[0] == ":":
            m = _REST_FIELD.match(stripped)
            if m is None or (kind := _REST_FIELDS.get(m.group(1).lower())) is None:
                return 0
            j = i + 1
            while j < n and lines[j].strip() and _indent(lines[j]) > indent:
                j += 1
            text = _join([m.group(3) or "", *lines[i + 1 : j]])
            if kind == _PARAMS and m.group(2):
                name = m.group(2).split()[-1].lstrip("*")
                if text:
                    self.params[name] = text
            elif kind == _RETURNS:
                self.returns = text
            elif kind == _YIELDS:
                self.yields = text
            return j
        m = _GOOGLE_HEADER.match(stripped)
        if m is None:
            return 0
        kind = _SECTIONS[m.group(1).lower()]
        inline = m.group(2)
        j = i + 1
        while j < n and (not lines[j].strip() or _indent(lines[j]) > indent):
            j += 1
        body = lines[i + 1 : j]
        if not any(s.strip() for s in body) and not (inline and kind in (_RETURNS, _YIELDS)):
            return 0  # "Example:" followed by plain prose is not a section
        if inline and kind not in (_RETURNS, _YIELDS):
            return 0  # "Note: ..." style prose, not a section header
        self._google(kind, inline, body)
        return j

    def _google(self, kind: str, inline: str, body: list[str]) -> None:
        if kind == _PARAMS:
            last = ""
            for first, rest in _entries(body):
                m = _GOOGLE_ENTRY.match(first)
                if m is None:  # an unindented continuation line
                    if last:
                        self.params[last] = _join([self.params[last], first, *rest])
                    continue
                last = m.group(1)
                self.params[last] = _join([m.group(3) or "", *rest])
            for name in [k for k, v in self.params.items() if not v]:
                del self.params[name]
        elif kind in (_RETURNS, _YIELDS):
            text = _join([inline, *body])
            if not inline:
                text = _RETURN_TYPE.sub("", text, count=1)
            if kind == _RETURNS:
                self.returns = text
            else:
                self.yields = text

    def _numpy(self, kind: str, body: list[str]) -> None:
        if kind == _PARAMS:
            for first, rest in _entries(body):
                m = _NUMPY_ENTRY.match(first)
                text = _join(rest)
                if m is None or not text:
                    continue
                for name in m.group(1).split(","):
                    self.params[name.strip().lstrip("*")] = text
        elif kind in (_RETURNS, _YIELDS):
            entries = _entries(body)
            if not entries:
                return
            first, rest = entries[0]
            text = _join(rest) or first
            if kind == _RETURNS:
                self.returns = text
            else:
                self.yields = text


def _entries(body: list[str]) -> list[tuple[str, list[str]]]:
    """Group a section body into entries: (first line, continuation lines)."""
    base = -1
    out: list[tuple[str, list[str]]] = []
    for line in body:
        s = line.strip()
        if not s:
            continue
        ind = _indent(line)
        if base < 0:
            base = ind
        if ind <= base or not out:
            out.append((s, []))
        else:
            out[-1][1].append(s)
    return out


def _squeeze(lines: list[str]) -> list[str]:
    """Drop runs of blank lines left behind by removed sections."""
    out: list[str] = []
    for line in lines:
        if not line.strip() and (not out or not out[-1].strip()):
            continue
        out.append(line)
    return out
