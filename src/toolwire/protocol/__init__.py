"""Protocol knowledge without I/O: revisions, capabilities and era shaping."""

from .revisions import (
    FEATURES,
    LATEST,
    LATEST_LEGACY,
    LEGACY_REVISIONS,
    MODERN_REVISIONS,
    REVISIONS,
    Features,
)

__all__ = [
    "FEATURES",
    "LATEST",
    "LATEST_LEGACY",
    "LEGACY_REVISIONS",
    "MODERN_REVISIONS",
    "REVISIONS",
    "Features",
]
