"""Opaque access tokens checked by asking the authorization server (RFC 7662).

Each token the server has not seen lately is POSTed to the introspection endpoint
(``token=...``, with this resource server's client credentials as HTTP Basic auth). Only
``"active": true`` answers count; ``exp`` and, when configured, ``aud`` and ``iss`` are
checked here too, so a lenient endpoint cannot widen what the token may do.

Positive answers are remembered for ``cache_seconds`` (never past the token's ``exp``),
keyed by the token's SHA-256, so a burst of requests with one token costs one round trip.
Negative answers are not remembered: a token that becomes valid is honoured at once.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from typing import Any

from .tokens import AccessToken
from .verifiers import (
    InvalidToken,
    LoopClients,
    VerifierUnavailable,
    access_token_from_claims,
    check_audience,
    token_digest,
)

logger = logging.getLogger("toolwire.auth")

MAX_CACHED = 10_000


class IntrospectionVerifier:
    """Verify tokens with an RFC 7662 introspection endpoint at ``url``.

    ``client_id``/``client_secret`` authenticate this server to the endpoint (Basic);
    ``audience`` (this server's canonical resource URL) is required in the answer's
    ``aud`` when given (AU-19); ``issuer`` likewise for ``iss``. Without ``audience`` the
    authorization server alone vouches that the token is meant for this server.
    """

    def __init__(
        self,
        url: str,
        *,
        client_id: str | None = None,
        client_secret: str | None = None,
        audience: str | Sequence[str] | None = None,
        issuer: str | None = None,
        cache_seconds: float = 30.0,
        leeway: float = 30.0,
        timeout: float = 5.0,
    ) -> None:
        if (client_id is None) != (client_secret is None):
            raise ValueError("Give both client_id and client_secret, or neither")
        self.url = url
        self.client_id = client_id
        self.client_secret = client_secret
        self.audiences = (audience,) if isinstance(audience, str) else tuple(audience or ())
        self.issuer = issuer
        self.cache_seconds = cache_seconds
        self.leeway = leeway
        self._cache: dict[bytes, tuple[float, AccessToken]] = {}
        self._http = LoopClients(timeout)

    async def verify(self, token: str) -> AccessToken:
        key = token_digest(token)
        now = time.monotonic()
        cached = self._cache.get(key)
        if cached is not None:
            until, caller = cached
            if now < until and not _expired(caller, 0):
                return caller
            del self._cache[key]
        answer = await self._introspect(token)
        if answer.get("active") is not True:
            raise InvalidToken("The access token is not active")
        caller = access_token_from_claims(answer)
        if _expired(caller, self.leeway):
            raise InvalidToken("The access token expired")
        if self.issuer is not None and caller.issuer != self.issuer:
            raise InvalidToken("The access token was issued by another authorization server")
        if self.audiences:
            check_audience(answer, self.audiences)
        if self.cache_seconds > 0:
            until = now + self.cache_seconds
            if caller.expires_at is not None:
                until = min(until, now + caller.expires_at - time.time())
            self._remember(key, until, caller)
        return caller

    async def _introspect(self, token: str) -> dict[str, Any]:
        auth = None
        if self.client_id is not None and self.client_secret is not None:
            auth = (self.client_id, self.client_secret)
        try:
            response = await self._http.get().post(
                self.url,
                data={"token": token, "token_type_hint": "access_token"},
                headers={"accept": "application/json"},
                auth=auth,
            )
        except Exception as exc:
            logger.warning("Token introspection at %s failed: %s", self.url, type(exc).__name__)
            raise VerifierUnavailable("The token introspection endpoint is unreachable") from None
        if response.status_code != 200:
            logger.warning(
                "Token introspection at %s answered HTTP %d", self.url, response.status_code
            )
            raise VerifierUnavailable("The token introspection endpoint failed")
        try:
            answer = response.json()
        except ValueError:
            answer = None
        if not isinstance(answer, dict):
            logger.warning("Token introspection at %s answered something not JSON", self.url)
            raise VerifierUnavailable("The token introspection endpoint answered garbage")
        return answer

    def _remember(self, key: bytes, until: float, caller: AccessToken) -> None:
        if len(self._cache) >= MAX_CACHED:
            now = time.monotonic()
            for old in [k for k, (t, _) in self._cache.items() if t <= now]:
                del self._cache[old]
            while len(self._cache) >= MAX_CACHED:  # still full: drop the oldest entries
                del self._cache[next(iter(self._cache))]
        self._cache[key] = (until, caller)

    async def aclose(self) -> None:
        """Close the HTTP client used for introspection on this event loop."""
        await self._http.aclose()


def _expired(caller: AccessToken, leeway: float) -> bool:
    return caller.expires_at is not None and caller.expires_at + leeway <= time.time()
