"""RFC 6570 URI templates, level 1 (``{var}``) plus reserved expansion (``{+var}``) and
FastMCP's path wildcard (``{var*}``): what resource templates need to tell which URIs they
serve and to build them."""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import quote, unquote

_EXPRESSION = re.compile(r"\{([^{}]*)\}")
_VARIABLE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_RESERVED = ":/?#[]@!$&'()*+,;="  # RFC 3986 reserved characters, kept by {+var}


class UriTemplate:
    """An RFC 6570 URI template, level 1 (``{var}``) plus reserved expansion (``{+var}``).

    ``match(uri)`` gives the variables of a URI the template describes (None otherwise);
    ``expand(**values)`` builds a URI. A ``{var}`` matches one non-empty path segment (no
    ``/``, ``?`` or ``#``); a ``{+var}`` matches any non-empty run of characters; a
    ``{var*}`` (FastMCP's spelling of a path) matches one or more segments, ``/`` included.
    """

    def __init__(self, template: str) -> None:
        self.template = template
        self.variables: list[str] = []
        # (literal before, variable, the characters its expansion keeps)
        self._parts: list[tuple[str, str | None, str]] = []
        pattern = []
        position = 0
        for found in _EXPRESSION.finditer(template):
            literal = template[position : found.start()]
            _check_literal(template, literal)
            expression = found.group(1)
            reserved = expression.startswith("+")
            name = expression[1:] if reserved else expression
            path = not reserved and name.endswith("*")
            name = name[:-1] if path else name
            if not _VARIABLE.fullmatch(name):
                raise ValueError(
                    f"URI template {template!r}: unsupported expression {{{expression}}}; "
                    "use {name}, {+name} or {name*} with a Python identifier as the name"
                )
            if name in self.variables:
                raise ValueError(f"URI template {template!r}: variable {name!r} is used twice")
            self.variables.append(name)
            self._parts.append((literal, name, _RESERVED if reserved else "/" if path else ""))
            pattern.append(re.escape(literal))
            if reserved:
                pattern.append(f"(?P<{name}>.+?)")
            elif path:
                pattern.append(f"(?P<{name}>[^?#]+)")
            else:
                pattern.append(f"(?P<{name}>[^/?#]+)")
            position = found.end()
        tail = template[position:]
        _check_literal(template, tail)
        self._parts.append((tail, None, ""))
        pattern.append(re.escape(tail))
        self._regex = re.compile("".join(pattern), re.DOTALL)

    def match(self, uri: str) -> dict[str, str] | None:
        found = self._regex.fullmatch(uri)
        if found is None:
            return None
        return {name: unquote(value) for name, value in found.groupdict().items()}

    def expand(self, **values: Any) -> str:
        out = []
        for literal, name, safe in self._parts:
            out.append(literal)
            if name is not None:
                if name not in values:
                    raise KeyError(f"URI template {self.template!r} needs a value for {name!r}")
                out.append(quote(str(values[name]), safe=safe))
        return "".join(out)

    def __repr__(self) -> str:
        return f"UriTemplate({self.template!r})"


def _check_literal(template: str, literal: str) -> None:
    if "{" in literal or "}" in literal:
        raise ValueError(f"URI template {template!r}: unbalanced braces")


def is_template(uri: str) -> bool:
    """Whether a URI given to ``@mcp.resource`` is a template (it has an expression)."""
    return "{" in uri
