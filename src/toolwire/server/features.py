"""How the core reaches a feature package without naming it.

The feature packages (:mod:`toolwire.composition`: mounting, tool transforms, tool search,
OpenAPI) are built on the core; the core never imports them. Where a convenience method of
:class:`~toolwire.server.Server` hands its work to one (``mcp.mount(...)``,
``Server.from_openapi(...)``), it asks for the function by the name it was wired under;
the package (``toolwire/__init__.py``) wires each name to its ``module:function``, and the
module is imported on first use, so ``import toolwire`` stays light.
"""

from __future__ import annotations

import importlib
from typing import Any

_wired: dict[str, str] = {}
_found: dict[str, Any] = {}  # the functions imported so far


def wire(**targets: str) -> None:
    """``name="package.module:function"`` for each function the core's methods hand work to."""
    _wired.update(targets)
    for name in targets:
        _found.pop(name, None)


def feature(name: str) -> Any:
    """The function wired as ``name``, its module imported on first use."""
    found = _found.get(name)
    if found is None:
        try:
            target = _wired[name]
        except KeyError:
            raise RuntimeError(f"No feature is wired as {name!r} (toolwire/__init__.py)") from None
        module, _, function = target.partition(":")
        found = _found[name] = getattr(importlib.import_module(module), function)
    return found
