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


def wire(**targets: str) -> None:
    """``name="package.module:function"`` for each function the core's methods hand work to."""
    _wired.update(targets)


def feature(name: str) -> Any:
    """The function wired as ``name``, its module imported on first use."""
    try:
        target = _wired[name]
    except KeyError:
        raise RuntimeError(f"No feature is wired as {name!r} (toolwire/__init__.py)") from None
    module, _, function = target.partition(":")
    return getattr(importlib.import_module(module), function)
