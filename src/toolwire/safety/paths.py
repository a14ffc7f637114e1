"""``SafePath``: a tool parameter that names a file inside one directory, and nothing else.

::

    from toolwire import SafePath, Server

    Docs = SafePath.under("/srv/docs")

    @mcp.tool()
    def read(path: Docs) -> str:
        \"\"\"Read a document.\"\"\"
        return path.read_text()

The client sends a string; the tool receives the resolved :class:`pathlib.Path`. A relative
path is taken relative to the root, an absolute one must lie inside it. The path is resolved
the way the operating system will follow it (``..``, and every symbolic link, including
symlinked parent directories), and refused unless the result is the root or below it.
``SafePath.under(root, exists=True)`` also requires the path to exist (``False``: not to
exist). Refusals are ``isError`` results naming the parameter, e.g. ``path: Path is outside
the allowed directory``; neither they nor the tool's schema reveal where the root is.

``SafePath.under`` returns ``Annotated[Path, SafePath(root)]``: the annotation can be used
directly too, inside ``Optional``, ``list[...]`` or a pydantic model's fields.

The check and the tool's use of the path are two steps: a local user who can swap a
directory inside the tree for a symbolic link between them can still redirect the tool.
Confine the tree's write access (or open files with ``O_NOFOLLOW``) where that matters.
"""

from __future__ import annotations

import errno
import os
from pathlib import Path
from typing import Annotated, Any

from ..errors import ToolError

__all__ = ["PathNotAllowed", "SafePath"]

DESCRIPTION = "A path relative to the allowed directory; it cannot lead outside it."


class PathNotAllowed(ToolError):
    """A path a :class:`SafePath` refuses; as a tool's exception its text reaches the model."""


class SafePath:
    """Confine a path parameter to the directory ``root`` (see the module docs).

    ``root`` is resolved once, when the annotation is made; it need not exist yet.
    """

    # schema/function.py: a string parameter whose validation this object performs.
    __toolwire_string_param__ = True

    def __init__(self, root: str | os.PathLike[str], *, exists: bool | None = None) -> None:
        self.root = Path(os.path.realpath(root))
        self.exists = exists
        self._root = str(self.root)
        self._prefix = self._root if self._root.endswith(os.sep) else self._root + os.sep

    @classmethod
    def under(cls, root: str | os.PathLike[str], *, exists: bool | None = None) -> Any:
        """The parameter type ``Annotated[Path, SafePath(root, exists=exists)]``."""
        return Annotated[Path, cls(root, exists=exists)]

    def __repr__(self) -> str:
        extra = "" if self.exists is None else f", exists={self.exists}"
        return f"SafePath({self._root!r}{extra})"

    def resolve(self, value: str | os.PathLike[str]) -> Path:
        """The real path ``value`` names inside the root; :class:`PathNotAllowed` otherwise."""
        if isinstance(value, os.PathLike):
            value = os.fspath(value)
        if not isinstance(value, str):
            raise PathNotAllowed("Path must be a string")
        if not value:
            raise PathNotAllowed("Path must not be empty")
        if "\x00" in value:
            raise PathNotAllowed("Path must not contain NUL characters")
        candidate = os.path.join(self._root, value)  # an absolute value replaces the root
        try:
            real = os.path.realpath(candidate, strict=True)
            found = True
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                raise PathNotAllowed("Path runs into a loop of symbolic links") from None
            real = os.path.realpath(candidate)  # (part of) it does not exist yet
            found = False
        if real != self._root and not real.startswith(self._prefix):
            raise PathNotAllowed("Path is outside the allowed directory")
        if self.exists is True and not found:
            raise PathNotAllowed("Path does not exist")
        if self.exists is False and (found or os.path.lexists(real)):
            raise PathNotAllowed("Path already exists")
        return Path(real)

    def describe(self, description: str | None) -> str:
        """A parameter's description with the note that it is a path under the root."""
        if not description or description == DESCRIPTION:
            return DESCRIPTION
        if description.endswith(DESCRIPTION):
            return description
        separator = " " if description.rstrip().endswith((".", "!", "?")) else ". "
        return f"{description.rstrip()}{separator}{DESCRIPTION}"

    # ---------------------------------------------------------------- validation hooks

    def _validate(self, value: Any) -> Path:
        # lazy: pydantic, off the import path until a schema needs it
        from pydantic_core import PydanticCustomError

        try:
            return self.resolve(value)
        except PathNotAllowed as exc:
            raise PydanticCustomError("path_not_allowed", str(exc)) from None

    def core_schema(self) -> Any:
        """The pydantic-core schema that validates the parameter (pydantic itself not needed)."""
        # lazy: pydantic, off the import path until a schema needs it
        from pydantic_core import core_schema as cs

        return cs.no_info_plain_validator_function(
            self._validate,
            json_schema_input_schema=cs.str_schema(),
            serialization=cs.to_string_ser_schema(),
        )

    def __get_pydantic_core_schema__(self, source: Any, handler: Any) -> Any:
        return self.core_schema()

    def __get_pydantic_json_schema__(self, schema: Any, handler: Any) -> dict[str, Any]:
        return {"type": "string", "description": DESCRIPTION}
