"""DPoP-bound access tokens (RFC 9449) on the resource server side.

``ResourceServer(..., dpop=DPoPVerifier())`` accepts ``Authorization: DPoP <token>`` with
one proof in the ``DPoP`` header, besides bearer tokens (``DPoPVerifier(required=True)``:
DPoP only). A request passes when (RFC 9449 §4.3, §7.1):

* there is exactly one proof, a JWS whose header has ``typ`` ``dpop+jwt``, an asymmetric
  ``alg`` of :attr:`DPoPVerifier.algorithms` and the public ``jwk`` (no private member)
  that verifies its signature;
* its ``htm`` is the request's method and its ``htu`` the endpoint's URL (the resource
  URL or the URL the request was sent to; scheme and host case, default ports and a
  trailing slash do not matter; a query or fragment is refused);
* its ``iat`` is at most ``max_age`` seconds old (and at most ``clock_skew`` ahead);
* its ``ath`` is the hash of the access token presented;
* its ``jti`` was not seen within that window (the replay cache lives in the HTTP app's
  session store: this process by default, every worker with ``RedisStore``);
* the token's ``cnf.jkt`` (from the JWT or the introspection answer) is the RFC 7638
  thumbprint of the proof's key;
* with ``nonce=True``, its ``nonce`` is one this server issued (the ``DPoP-Nonce`` header
  of a ``use_dpop_nonce`` answer). Nonces rotate every ``nonce_lifetime`` seconds (the
  previous one stays good) and are an HMAC of a secret kept in the session store, so every
  worker accepts every other's.

A token bound to a key (``cnf.jkt``) presented as a bearer token is refused, DPoP
configured or not. Refusals are 401 with ``WWW-Authenticate: DPoP error="invalid_dpop_proof",
algs="..."`` (or ``error="use_dpop_nonce"`` with a ``DPoP-Nonce`` header); no proof or
token ever reaches a log line or an error text.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import os
import time
from collections.abc import Iterable, Sequence
from typing import Any
from urllib.parse import urlsplit

ASYMMETRIC = ("ES256", "ES384", "ES512", "PS256", "PS384", "PS512", "RS256", "RS384", "RS512")
DEFAULT_ALGORITHMS = (*ASYMMETRIC, "EdDSA")
_DEFAULT_PORTS = {"http": 80, "https": 443}


class DPoPFailure(Exception):
    """A refused proof: ``error`` (``invalid_dpop_proof``, ``use_dpop_nonce``) and a
    ``description`` safe to send back; ``nonce`` for a nonce challenge."""

    def __init__(self, error: str, description: str, nonce: str | None = None) -> None:
        super().__init__(description)
        self.error = error
        self.description = description
        self.nonce = nonce


def b64url(data: bytes) -> str:
    """Base64url without padding (JOSE)."""
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def jwk_thumbprint(jwk: dict[str, Any]) -> str:
    """The RFC 7638 SHA-256 thumbprint of a public JWK (what ``cnf.jkt`` holds)."""
    members = {"EC": ("crv", "kty", "x", "y"), "RSA": ("e", "kty", "n"), "OKP": ("crv", "kty", "x")}
    names = members.get(str(jwk.get("kty")))
    if names is None or not all(isinstance(jwk.get(name), str) for name in names):
        raise ValueError("not a public EC, RSA or OKP key")
    canonical = json.dumps({n: jwk[n] for n in names}, separators=(",", ":"), sort_keys=True)
    return b64url(hashlib.sha256(canonical.encode()).digest())


def normalized_url(url: str) -> tuple[str, str, int | None, str] | None:
    """A URL as ``htu`` compares: scheme, host, port (default ports dropped), path
    without a trailing slash; None when it is no absolute http(s) URL."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return None
    scheme = parts.scheme.lower()
    if scheme not in _DEFAULT_PORTS or not parts.hostname:
        return None
    if port == _DEFAULT_PORTS[scheme]:
        port = None
    return scheme, parts.hostname.lower(), port, parts.path.rstrip("/") or "/"


class _LocalMarks:
    """Once-only marks and secrets of this process (the HTTP app passes its own store)."""

    def __init__(self) -> None:
        self.marks: dict[str, float] = {}
        self.secret = os.urandom(32)

    async def claim(self, key: str, ttl_s: float) -> bool:
        now = time.monotonic()
        if len(self.marks) > 10_000:
            self.marks = {k: until for k, until in self.marks.items() if until > now}
        if self.marks.get(key, 0.0) > now:
            return False
        self.marks[key] = now + ttl_s
        return True

    async def shared_secret(self, name: str) -> bytes:
        return self.secret


class DPoPVerifier:
    """How a :class:`~toolwire.auth.ResourceServer` checks DPoP proofs (see the module doc).

    ``algorithms``: the proof algorithms accepted (asymmetric ones only); ``required``:
    refuse bearer tokens; ``max_age``/``clock_skew``: how old (or early) a proof's ``iat``
    may be, in seconds, which is also how long a ``jti`` is remembered; ``nonce``: ask for
    server nonces, valid ``nonce_lifetime`` seconds (and one period more).
    """

    def __init__(
        self,
        *,
        algorithms: Iterable[str] = DEFAULT_ALGORITHMS,
        required: bool = False,
        max_age: float = 120.0,
        clock_skew: float = 10.0,
        nonce: bool = False,
        nonce_lifetime: float = 300.0,
    ) -> None:
        self.algorithms = tuple(algorithms)
        bad = [a for a in self.algorithms if a not in DEFAULT_ALGORITHMS]
        if bad or not self.algorithms:
            raise ValueError(
                f"DPoP proofs use asymmetric algorithms ({', '.join(DEFAULT_ALGORITHMS)}), "
                f"not {bad or 'none'}"
            )
        self.required = required
        self.max_age = max_age
        self.clock_skew = clock_skew
        self.nonce = nonce
        self.nonce_lifetime = nonce_lifetime
        self._fallback_store: Any = None

    def metadata(self) -> dict[str, Any]:
        """What RFC 9728 §2 lets protected resource metadata say about DPoP."""
        return {
            "dpop_signing_alg_values_supported": list(self.algorithms),
            "dpop_bound_access_tokens_required": self.required,
        }

    def challenge(self, error: str | None = None, description: str | None = None) -> str:
        """The parameters of a ``DPoP`` challenge (without the scheme)."""
        params = []
        if error:
            params.append(f'error="{error}"')
        params.append(f'algs="{" ".join(self.algorithms)}"')
        if description:
            params.append(f'error_description="{description}"')
        return ", ".join(params)

    # ------------------------------------------------------------ nonces

    def _store(self, store: Any) -> Any:
        if store is not None:
            return store
        if self._fallback_store is None:  # used outside an HTTP app: this process alone
            self._fallback_store = _LocalMarks()
        return self._fallback_store

    async def _nonce_for(self, store: Any, period: int) -> str:
        secret = await store.shared_secret("dpop-nonce")
        mac = hmac.new(secret, str(period).encode(), hashlib.sha256).digest()
        return f"{period}.{b64url(mac[:18])}"

    async def fresh_nonce(self, store: Any = None) -> str:
        """The nonce to hand out now."""
        period = int(time.time() // self.nonce_lifetime)
        return await self._nonce_for(self._store(store), period)

    async def _nonce_ok(self, store: Any, nonce: Any) -> bool:
        if not isinstance(nonce, str) or "." not in nonce:
            return False
        head = nonce.split(".", 1)[0]
        if not head.isdigit():
            return False
        period, now = int(head), int(time.time() // self.nonce_lifetime)
        if period not in (now, now - 1):
            return False
        return hmac.compare_digest(nonce, await self._nonce_for(store, period))

    # ------------------------------------------------------------ proofs

    async def check(
        self,
        proofs: Sequence[str],
        method: str,
        urls: Iterable[str],
        access_token: str,
        jkt: Any,
        store: Any = None,
    ) -> None:
        """Check the proofs sent with a request for ``access_token`` bound to ``jkt``;
        :class:`DPoPFailure` when they do not pass."""
        import jwt  # optional: pyjwt[crypto] (the auth extra)

        invalid = "invalid_dpop_proof"
        if len(proofs) != 1 or not proofs[0]:
            raise DPoPFailure(invalid, "Exactly one DPoP proof is required")
        proof = proofs[0].strip()
        try:
            header = jwt.get_unverified_header(proof)
        except jwt.PyJWTError:
            raise DPoPFailure(invalid, "The DPoP proof is not a JWS") from None
        if header.get("typ") != "dpop+jwt":
            raise DPoPFailure(invalid, "The DPoP proof's typ is not dpop+jwt")
        alg = header.get("alg")
        if alg not in self.algorithms:
            raise DPoPFailure(invalid, "The DPoP proof's algorithm is not accepted")
        jwk = header.get("jwk")
        private = ("d", "p", "q", "dp", "dq", "qi", "oth", "k")
        if not isinstance(jwk, dict) or any(name in jwk for name in private):
            raise DPoPFailure(invalid, "The DPoP proof's jwk is not a public key")
        try:
            key = jwt.PyJWK(jwk, algorithm=alg)
            claims = jwt.decode(
                proof,
                key.key,
                algorithms=[alg],
                options={"verify_aud": False, "verify_exp": False, "verify_iat": False},
            )
            thumbprint = jwk_thumbprint(jwk)
        except (jwt.PyJWTError, ValueError, TypeError):
            raise DPoPFailure(invalid, "The DPoP proof's signature does not verify") from None
        if not isinstance(jkt, str) or not hmac.compare_digest(jkt, thumbprint):
            raise DPoPFailure(invalid, "The DPoP proof is not signed by the key of the token")
        jti = claims.get("jti")
        if not isinstance(jti, str) or not jti or len(jti) > 256:
            raise DPoPFailure(invalid, "The DPoP proof has no jti")
        if claims.get("htm") != method.upper():
            raise DPoPFailure(invalid, "The DPoP proof's htm is not the request method")
        htu = claims.get("htu")
        if not isinstance(htu, str) or "?" in htu or "#" in htu:
            raise DPoPFailure(invalid, "The DPoP proof's htu is not the request URL")
        wanted = {normalized_url(url) for url in urls}
        if normalized_url(htu) not in wanted - {None}:
            raise DPoPFailure(invalid, "The DPoP proof's htu is not the request URL")
        iat = claims.get("iat")
        now = time.time()
        if (
            not isinstance(iat, (int, float))
            or isinstance(iat, bool)
            or not now - self.max_age <= iat <= now + self.clock_skew
        ):
            raise DPoPFailure(invalid, "The DPoP proof's iat is outside the accepted window")
        ath = hashlib.sha256(access_token.encode("ascii")).digest()
        if not isinstance(claims.get("ath"), str) or not hmac.compare_digest(
            claims["ath"], b64url(ath)
        ):
            raise DPoPFailure(invalid, "The DPoP proof's ath is not the hash of the token")
        store = self._store(store)
        if self.nonce and not await self._nonce_ok(store, claims.get("nonce")):
            nonce = await self.fresh_nonce(store)
            raise DPoPFailure("use_dpop_nonce", "A DPoP nonce is required", nonce)
        seen = hashlib.sha256(f"{thumbprint}:{jti}".encode()).hexdigest()[:40]
        if not await store.claim(f"dpop-jti:{seen}", self.max_age + self.clock_skew):
            raise DPoPFailure(invalid, "The DPoP proof was used before")
