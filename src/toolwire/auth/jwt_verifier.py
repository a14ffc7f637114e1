"""JWT access tokens (RFC 9068) checked locally against the authorization server's keys.

The keys come from a fixed ``public_key`` or from the server's JWKS document, fetched on
first use, kept for ``jwks_cache_seconds``, and fetched again when a token names a key id
(``kid``) not seen yet: that is how a key rotation reaches us. A flood of tokens with
made-up key ids cannot turn into a flood of JWKS requests: a fetch happens at most once
every ``jwks_refresh_interval`` seconds, whatever happens.

Only asymmetric algorithms are accepted. ``none`` and the HMAC family are refused when
the verifier is made, so a token signed with the public key as an HMAC secret (the
classic algorithm confusion) never verifies.

PyJWT (and httpx, for the JWKS) are imported when the verifier is made: install the
``auth`` extra.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Mapping, Sequence
from typing import Any

from .._pip import extra_install
from .tokens import AccessToken
from .verifiers import (
    InvalidToken,
    LoopClients,
    VerifierUnavailable,
    access_token_from_claims,
    check_audience,
)

logger = logging.getLogger("toolwire.auth")

ASYMMETRIC = frozenset(
    {"RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"}
)
KEY_TYPES = {"RSA": ("RS", "PS"), "EC": ("ES",), "OKP": ("EdDSA",)}

Keys = dict[str | None, list[tuple[Any, str | None, str]]]  # kid -> (key, alg, kty)


class JWTVerifier:
    """Verify JWT access tokens: signature, ``exp``/``nbf``/``iat`` (with ``leeway``
    seconds of clock skew), ``iss`` equal to ``issuer``, and ``aud`` naming ``audience``
    (this server's canonical resource URL, AU-19).

    Scopes come from ``scope`` or ``scp``, the subject from ``sub``, the client from
    ``client_id`` or ``azp``.
    """

    def __init__(
        self,
        *,
        issuer: str | Sequence[str],
        audience: str | Sequence[str],
        jwks_url: str | None = None,
        public_key: Any = None,
        algorithms: Sequence[str] = ("RS256", "ES256", "PS256", "EdDSA"),
        leeway: float = 30,
        jwks_cache_seconds: float = 3600.0,
        jwks_refresh_interval: float = 30.0,
        timeout: float = 5.0,
    ) -> None:
        try:
            import jwt  # optional: pyjwt[crypto] (the auth extra)
        except ImportError:
            raise RuntimeError(
                f"JWTVerifier needs the auth extra: {extra_install('auth')}"
            ) from None
        if (jwks_url is None) == (public_key is None):
            raise ValueError("Give exactly one of jwks_url and public_key")
        refused = [alg for alg in algorithms if alg not in ASYMMETRIC]
        if refused or not algorithms:
            raise ValueError(
                f"Only asymmetric signature algorithms are accepted, not {refused or 'none'}"
            )
        self._jwt = jwt
        self.issuers = (issuer,) if isinstance(issuer, str) else tuple(issuer)
        self.audiences = (audience,) if isinstance(audience, str) else tuple(audience)
        if not self.issuers or not self.audiences:
            raise ValueError("issuer and audience are required")
        self.jwks_url = jwks_url
        self.algorithms = tuple(algorithms)
        self.leeway = leeway
        self.jwks_cache_seconds = jwks_cache_seconds
        self.jwks_refresh_interval = jwks_refresh_interval
        self.jwks_fetches = 0  # how many times the JWKS was requested (for monitoring)
        self._keys: Keys = {}
        if public_key is not None:
            self._keys = {None: [self._static_key(public_key)]}
        self._fetched_at: float | None = None
        self._attempted_at: float | None = None
        self._fetching: asyncio.Future[None] | None = None
        self._http = LoopClients(timeout)

    def _static_key(self, key: Any) -> tuple[Any, str | None, str]:
        if isinstance(key, Mapping):  # a JWK
            jwk = self._jwt.PyJWK(dict(key))
            return jwk.key, key.get("alg"), str(key.get("kty", ""))
        if isinstance(key, str):
            key = key.encode()
        if isinstance(key, bytes):
            # optional: pyjwt[crypto] (the auth extra)
            from cryptography.hazmat.primitives.serialization import load_pem_public_key

            key = load_pem_public_key(key)
        return key, None, _kty_of(key)

    # ------------------------------------------------------------------ verifying

    async def verify(self, token: str) -> AccessToken:
        jwt = self._jwt
        try:
            header = jwt.get_unverified_header(token)
        except jwt.PyJWTError:
            raise InvalidToken("The access token is not a well-formed JWT") from None
        alg = header.get("alg")
        if alg not in self.algorithms:
            raise InvalidToken("The access token's signature algorithm is not accepted")
        kid = header.get("kid")
        if kid is not None and not isinstance(kid, str):
            raise InvalidToken("The access token names an invalid key id")
        candidates = await self._candidates(kid)
        claims = self._decode(token, alg, candidates)
        issuer = claims.get("iss")
        if issuer not in self.issuers:
            raise InvalidToken("The access token was issued by another authorization server")
        check_audience(claims, self.audiences)
        return access_token_from_claims(claims)

    def _decode(
        self, token: str, alg: str, candidates: list[tuple[Any, str | None, str]]
    ) -> dict[str, Any]:
        jwt = self._jwt
        usable = [
            key
            for key, key_alg, kty in candidates
            if (key_alg is None or key_alg == alg)
            and any(alg.startswith(p) for p in KEY_TYPES.get(kty, ()))
        ]
        if not usable:
            raise InvalidToken("No key of the authorization server matches the access token")
        options = {"require": ["exp", "iss", "aud"], "verify_aud": False, "verify_iss": False}
        failure = "The access token's signature is invalid"
        for key in usable:
            try:
                claims: dict[str, Any] = jwt.decode(
                    token, key, algorithms=[alg], options=options, leeway=self.leeway
                )
                return claims
            except jwt.ExpiredSignatureError:
                raise InvalidToken("The access token expired") from None
            except jwt.ImmatureSignatureError:
                raise InvalidToken("The access token is not valid yet") from None
            except jwt.InvalidSignatureError:
                continue  # another key with the same kid (or none) may have signed it
            except jwt.MissingRequiredClaimError as exc:
                raise InvalidToken(f"The access token has no {exc.claim!r} claim") from None
            except (jwt.PyJWTError, TypeError, ValueError):
                failure = "The access token is invalid"
        raise InvalidToken(failure)

    # ------------------------------------------------------------------ keys

    async def _candidates(self, kid: str | None) -> list[tuple[Any, str | None, str]]:
        """The keys that may have signed a token naming ``kid``."""
        if self.jwks_url is None:
            return self._keys[None]
        now = time.monotonic()
        fresh = self._fetched_at is not None and now - self._fetched_at < self.jwks_cache_seconds
        if not (fresh and self._knows(kid)):
            may_fetch = (
                self._attempted_at is None or now - self._attempted_at >= self.jwks_refresh_interval
            )
            if may_fetch or (self._fetching is not None and not self._fetching.done()):
                try:
                    await self._refresh()
                except VerifierUnavailable:
                    if not self._knows(kid):  # a stale key still beats no answer at all
                        raise
            elif self._fetched_at is None:
                raise VerifierUnavailable("The authorization server's keys could not be fetched")
        if kid is None:
            return [entry for entries in self._keys.values() for entry in entries]
        found = self._keys.get(kid) or self._keys.get(None)  # keys without a kid fit any
        if not found:
            raise InvalidToken("The access token was signed with an unknown key")
        return found

    def _knows(self, kid: str | None) -> bool:
        return bool(self._keys) if kid is None else kid in self._keys

    async def _refresh(self) -> None:
        """Fetch the JWKS once, however many requests are waiting for it."""
        loop = asyncio.get_running_loop()
        fetching = self._fetching
        if fetching is None or fetching.done() or fetching.get_loop() is not loop:
            fetching = self._fetching = asyncio.ensure_future(self._fetch())
        await asyncio.shield(fetching)

    async def _fetch(self) -> None:
        self._attempted_at = time.monotonic()
        self.jwks_fetches += 1
        try:
            response = await self._http.get().get(
                self.jwks_url, headers={"accept": "application/json"}
            )
            response.raise_for_status()
            document = response.json()
        except Exception as exc:  # any failure: the keys are unavailable, not the token bad
            logger.warning("Could not fetch the JWKS from %s: %s", self.jwks_url, exc)
            raise VerifierUnavailable(
                "The authorization server's keys could not be fetched"
            ) from None
        keys = self._parse(document)
        if not keys:
            logger.warning("The JWKS at %s holds no usable signing key", self.jwks_url)
            raise VerifierUnavailable("The authorization server published no usable key")
        self._keys = keys
        self._fetched_at = time.monotonic()

    def _parse(self, document: Any) -> Keys:
        keys: Keys = {}
        entries = document.get("keys") if isinstance(document, dict) else None
        for entry in entries if isinstance(entries, list) else ():
            if not isinstance(entry, dict) or entry.get("use", "sig") != "sig":
                continue
            try:
                key = self._jwt.PyJWK(entry).key
            except Exception:  # a key type or curve this installation cannot use
                continue
            kid = entry.get("kid")
            alg = entry.get("alg")
            keys.setdefault(kid if isinstance(kid, str) else None, []).append(
                (key, alg if isinstance(alg, str) else None, str(entry.get("kty", "")))
            )
        return keys

    async def aclose(self) -> None:
        """Close the HTTP client used for the JWKS on this event loop."""
        await self._http.aclose()


def _kty_of(key: Any) -> str:
    # optional: pyjwt[crypto] (the auth extra)
    from cryptography.hazmat.primitives.asymmetric import ec, ed448, ed25519, rsa

    if isinstance(key, (rsa.RSAPublicKey, rsa.RSAPrivateKey)):
        return "RSA"
    if isinstance(key, (ec.EllipticCurvePublicKey, ec.EllipticCurvePrivateKey)):
        return "EC"
    if isinstance(key, (ed25519.Ed25519PublicKey, ed448.Ed448PublicKey)):
        return "OKP"
    raise TypeError(f"Unsupported public key type {type(key).__name__}")
