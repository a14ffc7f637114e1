"""Turning a bearer token into an :class:`AccessToken`: the verifier contract, and
:class:`StaticTokens` for services whose callers hold pre-shared tokens.

A verifier answers one question, "who does this token speak for, and with which
scopes?", and raises :class:`InvalidToken` when the answer is "nobody" (bad signature,
expired, meant for another server...). When it cannot answer at all because something it
depends on is down (a JWKS endpoint, an introspection endpoint), it raises
:class:`VerifierUnavailable`: the token may be fine, so the caller is told to retry (503)
rather than to throw its token away and authorize again (401).

The token itself is never logged, never kept as a dictionary key (caches key on a hash)
and never handed on: an :class:`AccessToken` does not hold it (AU-21).
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import time
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Protocol
from urllib.parse import urlsplit, urlunsplit

from ..errors import ToolwireError
from .tokens import AccessToken

__all__ = [
    "InvalidToken",
    "StaticTokens",
    "TokenVerifier",
    "VerifierUnavailable",
    "canonical_url",
    "scopes_of",
]


class InvalidToken(ToolwireError):
    """The token does not authorize anything here; ``description`` says why, for the
    ``error_description`` of the challenge (never the token itself)."""

    def __init__(self, description: str = "The access token is invalid") -> None:
        super().__init__(description)
        self.description = description


class VerifierUnavailable(ToolwireError):
    """The token could not be checked because a service the verifier needs failed."""


class TokenVerifier(Protocol):
    """What a :class:`~toolwire.auth.ResourceServer` needs: a token in, a caller out."""

    async def verify(self, token: str) -> AccessToken: ...


def token_digest(token: str) -> bytes:
    """The key under which a token may be remembered: its SHA-256, never the token."""
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).digest()


def canonical_url(url: str) -> str:
    """``url`` as AU-16 compares resources: scheme and host in lower case, no default port,
    no fragment, no trailing slash, so ``HTTPS://API.example.com:443/mcp/`` is the same
    resource as ``https://api.example.com/mcp``. A value that is no URL (an audience such
    as ``"api"``) is only stripped of spaces."""
    parts = urlsplit(url.strip())
    if not parts.scheme or not parts.netloc:
        return url.strip()
    scheme = parts.scheme.lower()
    host = (parts.hostname or "").lower()
    if ":" in host:
        host = f"[{host}]"
    port = parts.port
    netloc = host if port in (None, {"http": 80, "https": 443}.get(scheme)) else f"{host}:{port}"
    return urlunsplit((scheme, netloc, parts.path.rstrip("/"), parts.query, ""))


def scopes_of(claims: Mapping[str, Any]) -> frozenset[str]:
    """Granted scopes from ``scope`` (space separated, RFC 9068 / RFC 7662) or ``scp``
    (a list, as some authorization servers send it)."""
    scope = claims.get("scope")
    if isinstance(scope, str):
        return frozenset(scope.split())
    scp = claims.get("scp")
    if isinstance(scp, str):
        return frozenset(scp.split())
    if isinstance(scp, (list, tuple)):
        return frozenset(s for s in scp if isinstance(s, str))
    return frozenset()


def audiences_of(claims: Mapping[str, Any]) -> tuple[str, ...]:
    aud = claims.get("aud")
    if isinstance(aud, str):
        return (aud,)
    if isinstance(aud, (list, tuple)):
        return tuple(a for a in aud if isinstance(a, str))
    return ()


def check_audience(claims: Mapping[str, Any], expected: Sequence[str]) -> tuple[str, ...]:
    """The token's audiences, if one of them is this server (AU-19); else InvalidToken."""
    audiences = audiences_of(claims)
    wanted = {canonical_url(a) for a in expected}
    if not any(canonical_url(a) in wanted for a in audiences):
        raise InvalidToken("The access token was not issued for this resource")
    return audiences


def access_token_from_claims(claims: Mapping[str, Any]) -> AccessToken:
    """An :class:`AccessToken` from JWT or introspection claims."""
    client = claims.get("client_id") or claims.get("azp")
    exp = claims.get("exp")
    subject = claims.get("sub")
    issuer = claims.get("iss")
    return AccessToken(
        subject=subject if isinstance(subject, str) else None,
        client_id=client if isinstance(client, str) else None,
        scopes=scopes_of(claims),
        expires_at=int(exp)
        if isinstance(exp, (int, float)) and not isinstance(exp, bool)
        else None,
        issuer=issuer if isinstance(issuer, str) else None,
        audience=audiences_of(claims),
        claims=dict(claims),
    )


class StaticTokens:
    """Pre-shared bearer tokens: ``StaticTokens({"s3cret": AccessToken(subject="alice",
    scopes=frozenset({"mcp"}))})``, or a list of scopes as the value.

    For services whose callers are configured by hand (no authorization server to run).
    A token given only scopes is told apart from the others by its position
    (``static-token-1``, ...), so legacy sessions stay bound to the token that opened them.
    Lookups compare SHA-256 digests in constant time, against every known token.
    """

    def __init__(self, tokens: Mapping[str, AccessToken | Iterable[str]]) -> None:
        self._tokens: list[tuple[bytes, AccessToken]] = []
        for number, (token, value) in enumerate(tokens.items(), 1):
            if not token:
                raise ValueError("An empty string cannot be a token")
            if isinstance(value, AccessToken):
                caller = value
            elif isinstance(value, str):
                raise TypeError("Give the scopes as a list, not one string")
            else:
                caller = AccessToken(subject=f"static-token-{number}", scopes=frozenset(value))
            self._tokens.append((token_digest(token), caller))

    async def verify(self, token: str) -> AccessToken:
        digest = token_digest(token)
        found: AccessToken | None = None
        for known, caller in self._tokens:  # no early exit: the time says nothing
            if hmac.compare_digest(known, digest):
                found = caller
        if found is None:
            raise InvalidToken("Unknown access token")
        if found.expires_at is not None and found.expires_at <= time.time():
            raise InvalidToken("The access token expired")
        return found


class LoopClients:
    """One ``httpx.AsyncClient`` per event loop, made on first use.

    A client's connection pool belongs to the loop that opened it; a verifier shared by
    servers running on different loops (tests, several apps in one process) gets one each.
    httpx is imported here, lazily: ``import toolwire`` stays free of the HTTP stack.
    """

    def __init__(self, timeout: float) -> None:
        self.timeout = timeout
        self._clients: dict[asyncio.AbstractEventLoop, Any] = {}

    def get(self) -> Any:
        import httpx  # optional: httpx (the http extra)

        loop = asyncio.get_running_loop()
        for old in [old for old in self._clients if old.is_closed()]:
            del self._clients[old]
        client = self._clients.get(loop)
        if client is None:
            client = self._clients[loop] = httpx.AsyncClient(
                timeout=self.timeout, follow_redirects=False
            )
        return client

    async def aclose(self) -> None:
        loop = asyncio.get_running_loop()
        client = self._clients.pop(loop, None)
        if client is not None:
            await client.aclose()
