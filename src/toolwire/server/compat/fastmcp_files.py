"""FastMCP's components in files: the standalone ``@tool``, ``@resource(uri)`` and ``@prompt``
decorators, and :class:`FileSystemProvider`, which registers every function so decorated in
the ``.py`` files under a folder.

::

    # components/tools/greeting.py
    from toolwire import tool

    @tool(tags={"greeting"})
    def greet(name: str) -> str:
        return f"Hello, {name}!"

    # server.py
    from toolwire import FileSystemProvider, Server

    mcp = Server("Files", providers=[FileSystemProvider(Path(__file__).parent / "components")])

The decorators only mark a function (it stays the function it was) with what
``mcp.tool(...)``, ``mcp.resource(uri, ...)`` and ``mcp.prompt(...)`` would take; the
provider imports each file once, in path order, and registers the marked functions each file
defines (not those it imports), by name within a file. The folders only organize:
the decorator says what a function is. ``reload=True`` (FastMCP reads the files again on
every request) is accepted; toolwire reads them when the provider is added: restart the
server to see a change.
"""

from __future__ import annotations

import hashlib
import importlib.util
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from ...errors import RegistrationError

F = TypeVar("F", bound=Callable[..., Any])
MARK = "__toolwire_component__"  # (kind, name or uri, options) on a decorated function


def _marker(kind: str, first: Any, options: dict[str, Any]) -> Any:
    if callable(first):  # @tool without parentheses
        setattr(first, MARK, (kind, options.pop("name", None), options))
        return first
    if first is not None and not isinstance(first, str):
        raise TypeError(
            f"@{kind}(...) takes the {kind}'s name as a string, not {type(first).__name__}"
        )

    def mark(fn: F) -> F:
        setattr(fn, MARK, (kind, options.pop("name", first), options))
        return fn

    return mark


def tool(name: Any = None, /, **options: Any) -> Any:
    """Mark a function as a tool for :class:`FileSystemProvider`: ``@tool``, ``@tool()``,
    ``@tool("name", ...)`` with the options of ``mcp.tool``."""
    return _marker("tool", name, options)


def prompt(name: Any = None, /, **options: Any) -> Any:
    """Mark a function as a prompt for :class:`FileSystemProvider` (the options of
    ``mcp.prompt``)."""
    return _marker("prompt", name, options)


def resource(uri: str, /, **options: Any) -> Callable[[F], F]:
    """Mark a function as the resource (or template) at ``uri`` for
    :class:`FileSystemProvider` (the options of ``mcp.resource``)."""
    if not isinstance(uri, str) or callable(uri):
        raise TypeError('@resource needs the URI first: @resource("data://name")')

    def mark(fn: F) -> F:
        setattr(fn, MARK, ("resource", uri, dict(options)))
        return fn

    return mark


class FileSystemProvider:
    """Registers the functions marked with :func:`tool`, :func:`resource` and :func:`prompt`
    in every ``.py`` file under ``root`` (``mcp.add_provider(provider)`` or
    ``Server(..., providers=[provider])``)."""

    toolwire_provider = True

    def __init__(self, root: str | Path, reload: bool = False) -> None:
        self.root = Path(root).resolve()
        if not self.root.is_dir():
            raise RegistrationError(f"FileSystemProvider: no folder at {self.root}")
        self.reload = reload

    def __repr__(self) -> str:
        return f"FileSystemProvider({str(self.root)!r})"

    def apply_to(self, server: Any) -> None:
        for path in sorted(self.root.rglob("*.py")):
            if path.name == "__init__.py" or "__pycache__" in path.parts:
                continue
            for kind, key, options, fn in _marked(path):
                if kind == "tool":
                    server.add_tool(fn, name=key, **options)
                elif kind == "prompt":
                    server.add_prompt(fn, name=key, **options)
                else:
                    server.add_resource(fn, key, **options)


def _marked(path: Path) -> list[tuple[str, Any, dict[str, Any], Any]]:
    """The marked functions ``path`` defines, in order; the file is imported as a module of
    its own."""
    digest = hashlib.sha256(str(path).encode()).hexdigest()[:12]
    name = f"toolwire_files_{digest}_{path.stem}"
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise RegistrationError(f"FileSystemProvider cannot import {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # what pydantic and dataclasses look the module up by
    try:
        spec.loader.exec_module(module)
    except Exception as exc:
        del sys.modules[name]
        raise RegistrationError(f"FileSystemProvider: importing {path} failed: {exc!r}") from exc
    found = []
    for attribute in dir(module):  # by name, as FastMCP lists them
        if attribute.startswith("_"):
            continue
        value = getattr(module, attribute)
        mark = getattr(value, MARK, None)
        if mark is not None and getattr(value, "__module__", None) == name:
            kind, key, options = mark
            found.append((kind, key, dict(options), value))
    return found
