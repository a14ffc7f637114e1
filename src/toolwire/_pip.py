"""The command that installs one of toolwire's extras into the environment that runs it.

An error about a missing optional part ends with a command the user can paste: it runs pip of
the interpreter actually running (``/path/.venv/bin/python -m pip ...``), so the package lands
where toolwire looks for it, and names toolwire where it came from: the folder of the checkout
it was installed from (PEP 610's ``direct_url.json``; ``-e`` again for an editable install), or
``toolwire`` from a package index.
Only error paths call this; what it needs is imported there, off ``import toolwire``'s path.
"""

from __future__ import annotations

import json
import sys
from urllib.parse import unquote, urlsplit


def pip_install(*requirements: str) -> str:
    """``<this python> -m pip install <requirements>``, each quoted for a POSIX shell."""
    import shlex  # lazy: only to split or quote a command line

    words = [sys.executable, "-m", "pip", "install", *requirements]
    return " ".join(shlex.quote(word) for word in words)


def extra_install(extra: str) -> str:
    """The command that adds ``toolwire[extra]`` to this environment."""
    source, editable = _source()
    return pip_install(*(["-e"] if editable else []), f"{source}[{extra}]")


def _source() -> tuple[str, bool]:
    """Where toolwire was installed from, and whether it was installed editable."""
    from importlib import metadata  # lazy: only for an install hint; it loads many modules

    try:
        recorded = metadata.distribution("toolwire").read_text("direct_url.json")
    except metadata.PackageNotFoundError:  # running from a source tree on sys.path
        recorded = None
    if recorded:
        try:
            origin = json.loads(recorded)
            parts = urlsplit(origin["url"])
            editable = origin.get("dir_info", {}).get("editable", False) is True
        except (ValueError, TypeError, KeyError, AttributeError):
            return "toolwire", False
        if parts.scheme == "file":
            return unquote(parts.path), editable
    return "toolwire", False
