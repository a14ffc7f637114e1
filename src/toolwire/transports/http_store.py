"""The stores' path before :mod:`toolwire.transports.store` (kept for the imports written
against it)."""

from .store.stores import *  # noqa: F403
from .store.stores import __all__ as __all__
