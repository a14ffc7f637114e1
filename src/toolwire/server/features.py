"""How the core reaches a feature package without naming it.

The feature packages (:mod:`toolwire.composition`: mounting, tool transforms, tool search,
OpenAPI; :mod:`toolwire.extensions`: Tasks, Skills, MCP Apps; :mod:`toolwire.admission`:
rate limits, the audit log) and :mod:`toolwire.proxy` are built on the core; the core never
imports them, by an import statement or by a module's name in a string. Where the
server hands work to one (``mcp.mount(...)``, a task tool's call, ``Server(audit=True)``),
it asks for the function or class by the name it was wired under; the package
(``toolwire/__init__.py``) wires each name to its ``module:attribute``, and the module is
imported on first use, so ``import toolwire`` stays light.
"""

from __future__ import annotations

import importlib
from typing import Any

_wired: dict[str, str] = {}
_found: dict[str, Any] = {}  # the functions imported so far


def wire(**targets: str) -> None:
    """``name="package.module:attribute"`` for each function or class the core hands work to."""
    _wired.update(targets)
    for name in targets:
        _found.pop(name, None)


def feature(name: str) -> Any:
    """What is wired as ``name``, its module imported on first use."""
    found = _found.get(name)
    if found is None:
        try:
            target = _wired[name]
        except KeyError:
            raise RuntimeError(f"No feature is wired as {name!r} (toolwire/__init__.py)") from None
        module, _, function = target.partition(":")
        found = _found[name] = getattr(importlib.import_module(module), function)
    return found
