"""Where tokens are kept, at its path before :mod:`toolwire.client.oauth` (kept for the
imports written against it)."""

from .oauth.storage import MemoryStorage, Registration, Tokens, TokenStorage

__all__ = ["MemoryStorage", "Registration", "TokenStorage", "Tokens"]
