"""Authorization for HTTP servers: toolwire as an OAuth 2.1 resource server."""

from .tokens import AccessToken, covers, missing

__all__ = ["AccessToken", "covers", "missing"]
