"""Finding the server in a user's file: ``FILE`` or ``FILE:OBJECT``.

The file is imported under its own module name (never ``__main__``), so its
``if __name__ == "__main__": mcp.run()`` block stays asleep and the CLI decides how to serve.
What goes wrong while importing it is turned into one readable line (a syntax error with its
file and line, a missing package with the ``pip install`` that fixes it) instead of a traceback.
"""

from __future__ import annotations

import importlib.util
import sys
import traceback
from pathlib import Path
from types import ModuleType

from ..server.core import ServerCore

MODULE_NAME = "toolwire_user_server"


class LoadError(Exception):
    """The file could not give a server; the message says why and what to do."""


def split_target(target: str) -> tuple[Path, str | None]:
    """``FILE[:OBJECT]`` -> (path, object name); a drive letter's colon is not a separator."""
    head, sep, tail = target.rpartition(":")
    if sep and head and tail.isidentifier() and not Path(target).exists():
        return Path(head), tail
    return Path(target), None


def load_server(target: str) -> ServerCore:
    """The server named by ``target``: the only one in the file, or ``FILE:OBJECT``'s."""
    path, name = split_target(target)
    module = import_file(path)
    found = _servers(module)
    if name is not None:
        value = getattr(module, name, None)
        if isinstance(value, ServerCore):
            return value
        what = "is not a toolwire server" if hasattr(module, name) else "does not exist"
        raise LoadError(f"{path}: {name!r} {what}; servers in the file: {_names(found)}")
    if not found:
        raise LoadError(
            f"{path}: no toolwire server found; create one at module level, "
            'e.g. mcp = Server("name"), or name it with FILE:OBJECT'
        )
    if len(found) > 1:
        first = next(iter(found))
        raise LoadError(
            f"{path}: several servers found ({_names(found)}); pick one with {path}:{first}"
        )
    return next(iter(found.values()))


def import_file(path: Path) -> ModuleType:
    """Run the file as a module with its directory importable (as ``python FILE`` would)."""
    if not path.is_file():
        raise LoadError(f"{path}: no such file")
    path = path.resolve()
    spec = importlib.util.spec_from_file_location(MODULE_NAME, path)
    if spec is None or spec.loader is None:
        raise LoadError(f"{path}: not a Python file")
    module = importlib.util.module_from_spec(spec)
    folder = str(path.parent)
    if folder not in sys.path:
        sys.path.insert(0, folder)
    sys.modules[MODULE_NAME] = module  # dataclasses and pydantic look the module up by name
    try:
        spec.loader.exec_module(module)
    except SyntaxError as error:
        sys.modules.pop(MODULE_NAME, None)
        raise LoadError(_syntax_message(error)) from None
    except ImportError as error:
        sys.modules.pop(MODULE_NAME, None)
        raise LoadError(_import_message(path, error)) from None
    except Exception as error:
        sys.modules.pop(MODULE_NAME, None)
        raise LoadError(_failure_message(path, error)) from None
    return module


def _servers(module: ModuleType) -> dict[str, ServerCore]:
    """Module-level servers by their first name (one server bound twice counts once)."""
    found: dict[str, ServerCore] = {}
    for name, value in vars(module).items():
        if isinstance(value, ServerCore) and all(value is not seen for seen in found.values()):
            found[name] = value
    return found


def _names(found: dict[str, ServerCore]) -> str:
    return ", ".join(found) or "none"


def _syntax_message(error: SyntaxError) -> str:
    where = f"{error.filename}:{error.lineno}" if error.lineno else str(error.filename)
    message = f"{where}: syntax error: {error.msg}"
    if error.text:
        message += f"\n    {error.text.strip()}"
    return message


def _import_message(path: Path, error: ImportError) -> str:
    if isinstance(error, ModuleNotFoundError) and error.name:
        package = error.name.split(".")[0]
        return f"{path}: missing dependency {package!r}: pip install {package}"
    return f"{path}: import failed: {error}"


def _failure_message(path: Path, error: Exception) -> str:
    """The error and the innermost line of the user's file that led to it."""
    frames = [f for f in traceback.extract_tb(error.__traceback__) if f.filename == str(path)]
    where = f"{path}:{frames[-1].lineno}" if frames else str(path)
    return f"{where}: {type(error).__name__} while loading: {error}"
