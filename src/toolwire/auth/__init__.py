"""Authorization for HTTP servers: toolwire as an OAuth 2.1 resource server.

``Server(name, auth=ResourceServer(...))`` protects the server's HTTP endpoint: see
:mod:`toolwire.auth.resource`. Verifiers turn a bearer token into an :class:`AccessToken`:
:class:`StaticTokens` (pre-shared tokens), :class:`JWTVerifier` (JWT access tokens and the
authorization server's JWKS) and :class:`IntrospectionVerifier` (RFC 7662). :class:`DPoPVerifier` adds DPoP-bound tokens
(RFC 9449). The last two
need the ``auth`` extra (PyJWT, httpx), imported only when they are made.

Only the token model is loaded with ``toolwire`` (every server checks per-tool scopes);
the rest is loaded on first use, so a server without authorization pays nothing for it.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

from .tokens import AccessToken, covers, missing

if TYPE_CHECKING:
    from .dpop import DPoPVerifier
    from .introspection import IntrospectionVerifier
    from .jwt_verifier import JWTVerifier
    from .resource import AuthFailure, ResourceServer
    from .verifiers import InvalidToken, StaticTokens, TokenVerifier, VerifierUnavailable

_LAZY = {
    "AuthFailure": ".resource",
    "DPoPVerifier": ".dpop",
    "IntrospectionVerifier": ".introspection",
    "InvalidToken": ".verifiers",
    "JWTVerifier": ".jwt_verifier",
    "ResourceServer": ".resource",
    "StaticTokens": ".verifiers",
    "TokenVerifier": ".verifiers",
    "VerifierUnavailable": ".verifiers",
}

__all__ = [
    "AccessToken",
    "AuthFailure",
    "DPoPVerifier",
    "IntrospectionVerifier",
    "InvalidToken",
    "JWTVerifier",
    "ResourceServer",
    "StaticTokens",
    "TokenVerifier",
    "VerifierUnavailable",
    "covers",
    "missing",
]


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(module, __name__), name)
    globals()[name] = value
    return value
