"""The health probes' path before :mod:`toolwire.transports.http` (kept for the imports
written against it)."""

from .http.health import Health

__all__ = ["Health"]
