"""The Host's model-facing names (see :mod:`toolwire.protocol.naming`, shared with mounted
servers' prefixes)."""

from __future__ import annotations

from ...protocol.naming import HASH_LENGTH, MAX_NAME, NAME_PATTERN, assign_names, prefixed_name

__all__ = ["HASH_LENGTH", "MAX_NAME", "NAME_PATTERN", "assign_names", "prefixed_name"]
