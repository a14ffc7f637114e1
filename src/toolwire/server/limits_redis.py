"""Where ``RedisBuckets`` was: it is :class:`toolwire.admission.RedisBuckets` now, and this
path keeps working (reached by name, :mod:`.features`)."""

from __future__ import annotations

from typing import Any

from .features import feature


def __getattr__(name: str) -> Any:
    if name == "RedisBuckets":
        return feature(name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
