"""Finding the server in a user's file: ``FILE`` or ``FILE:OBJECT``.

The file is imported under its own module name (its stem; never ``__main__``), so a
sibling module's ``from server import mcp`` gets this very server, and its
``if __name__ == "__main__": mcp.run()`` block stays asleep and the CLI decides how to serve.
A bare ``mcp.run()`` at the end of the file (no such guard) does not serve either: the
import ends there, and the command gets that server (:mod:`toolwire.server.launch`).
What the file prints while it loads goes to stderr (:mod:`.user_output`). What goes wrong
while importing it is turned into one readable line (a syntax error with its file and line,
a missing package with the ``pip install`` that fixes it) instead of a traceback.
"""

from __future__ import annotations

import importlib.util
import keyword
import sys
import traceback
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

from ..server.core import ServerCore
from ..server.launch import split_target, taken
from .packages import missing_module_message
from .user_output import to_stderr

MODULE_NAME = "toolwire_user_server"  # when the stem is no module name, or one taken


class LoadError(Exception):
    """The file could not give a server; the message says why and what to do."""


@dataclass
class RunCall:
    """The file called ``server.run(transport, **options)`` (at ``where``) as it loaded."""

    server: ServerCore
    transport: str
    options: dict[str, Any]
    where: str = ""


@dataclass
class Loaded:
    """The server a command uses, and the file's own ``run()`` call if it made one."""

    server: ServerCore
    run_call: RunCall | None = None


class _RunCalled(BaseException):
    """Raised in place of serving; a BaseException, so the file's ``except Exception`` lets
    it through and the import ends at the ``run()`` call."""

    def __init__(self, call: RunCall) -> None:
        super().__init__(call)
        self.call = call


def _take_run(server: Any, transport: str, options: dict[str, Any]) -> None:
    raise _RunCalled(RunCall(server, transport, dict(options)))


def load_server(target: str) -> ServerCore:
    """The server named by ``target``: the only one in the file, or ``FILE:OBJECT``'s."""
    return load(target).server


def load(target: str) -> Loaded:
    """The server named by ``target`` (the one whose ``run()`` the file calls, unless
    ``:OBJECT`` names another; of several, the one named ``mcp``, ``server`` or ``app``),
    and that call."""
    path, name = split_target(target)
    module, call = import_file(path)
    found = _servers(module)
    if name is not None:
        value = getattr(module, name, None)
        if isinstance(value, ServerCore):
            return Loaded(value, call if call is not None and call.server is value else None)
        what = "is not a toolwire server" if hasattr(module, name) else "does not exist"
        raise LoadError(f"{path}: {name!r} {what}; servers in the file: {_names(found)}")
    if call is not None:
        return Loaded(call.server, call)
    if not found:
        raise LoadError(
            f"{path}: no toolwire server found; create one at module level, "
            'e.g. mcp = Server("name"), or name it with FILE:OBJECT'
        )
    if len(found) > 1:
        for conventional in ("mcp", "server", "app"):  # the names the SDK's and FastMCP's
            if conventional in found:  # command lines look for, in their order
                return Loaded(found[conventional])
        first = next(iter(found))
        raise LoadError(
            f"{path}: several servers found ({_names(found)}); pick one with {path}:{first}"
        )
    return Loaded(next(iter(found.values())))


def import_file(path: Path) -> tuple[ModuleType, RunCall | None]:
    """Run the file as a module with its directory importable (as ``python FILE`` would);
    the module, and the ``run()`` call that ended the import if the file made one."""
    if not path.is_file():
        raise LoadError(f"{path}: no such file")
    path = path.resolve()
    name = _module_name(path)
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise LoadError(f"{path}: not a Python file")
    module = importlib.util.module_from_spec(spec)
    folder = str(path.parent)
    if folder not in sys.path:
        sys.path.insert(0, folder)
    sys.modules[name] = module  # dataclasses and pydantic look the module up by name
    sys.argv = [str(path)]  # the file sees no arguments of the command, as under python FILE
    try:
        with to_stderr(), taken(_take_run):
            spec.loader.exec_module(module)
    except _RunCalled as called:
        called.call.where = _where(path, called)
        return module, called.call
    except SyntaxError as error:
        sys.modules.pop(name, None)
        raise LoadError(_syntax_message(error)) from None
    except ImportError as error:
        sys.modules.pop(name, None)
        raise LoadError(_import_message(path, error)) from None
    except Exception as error:
        sys.modules.pop(name, None)
        raise LoadError(_failure_message(path, error)) from None
    return module, None


def _module_name(path: Path) -> str:
    """The file's stem, unless that names no module or one already imported."""
    stem = path.stem
    if stem.isidentifier() and not keyword.iskeyword(stem) and stem not in sys.modules:
        return stem
    return MODULE_NAME


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
        return f"{path}: {missing_module_message(error.name)}"
    return f"{path}: import failed: {error}"


def _failure_message(path: Path, error: Exception) -> str:
    """The error and the innermost line of the user's file that led to it."""
    return f"{_where(path, error)}: {type(error).__name__} while loading: {error}"


def _where(path: Path, error: BaseException) -> str:
    """``FILE:LINE`` of the innermost line of the user's file in the error's traceback."""
    frames = [f for f in traceback.extract_tb(error.__traceback__) if f.filename == str(path)]
    return f"{path}:{frames[-1].lineno}" if frames else str(path)
