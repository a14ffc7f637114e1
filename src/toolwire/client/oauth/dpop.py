"""DPoP (RFC 9449) for the client: proofs that it holds the key its tokens are bound to.

``OAuth(..., dpop=True)`` makes a :class:`DPoPKey` (a new ES256 key, in memory only) and
sends a DPoP proof with every token request; an authorization server that supports DPoP
(its metadata lists ``dpop_signing_alg_values_supported``) then binds the access token to
the key (``token_type`` ``DPoP``), and every request to the MCP server carries
``Authorization: DPoP <token>`` with a fresh proof in the ``DPoP`` header (the request's
method and URL, and ``ath``, the hash of the token). ``OAuth(dpop=DPoPKey(private_key))``
uses a key of the caller's (EC P-256/384/521, RSA, Ed25519).

A server may ask for a nonce (``use_dpop_nonce`` with a ``DPoP-Nonce`` header): the key
remembers the latest nonce of each server (by origin) and the request is sent once more.
Proofs and tokens are never logged.

Any ``auth=`` object of the HTTP transport can use it: one whose ``header()`` returns a
``DPoP`` value and that has a ``dpop`` attribute holding a :class:`DPoPKey` gets a proof
on each request, and its nonces remembered.
"""

from __future__ import annotations

import hashlib
import secrets
import time
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from ..._pip import extra_install
from ...auth.dpop import b64url, jwk_thumbprint
from ...errors import ClientError
from .discovery import parse_challenges

_CURVES = {"secp256r1": ("ES256", "P-256", 32), "secp384r1": ("ES384", "P-384", 48)}
_CURVES["secp521r1"] = ("ES512", "P-521", 66)


def _uint(value: int, size: int | None = None) -> str:
    size = size or max(1, (value.bit_length() + 7) // 8)
    return b64url(value.to_bytes(size, "big"))


def public_jwk(key: Any) -> tuple[str, dict[str, str]]:
    """The JWS algorithm and the public JWK (RFC 7517) of a private key."""
    # optional: pyjwt[crypto] (the auth extra)
    from cryptography.hazmat.primitives.asymmetric import ec, ed25519, rsa

    if isinstance(key, ec.EllipticCurvePrivateKey):
        alg, crv, size = _CURVES.get(key.curve.name, (None, None, 0))
        if alg is None:
            raise ValueError(f"DPoP does not use the curve {key.curve.name}")
        numbers = key.public_key().public_numbers()
        jwk = {"kty": "EC", "crv": str(crv), "x": _uint(numbers.x, size)}
        jwk["y"] = _uint(numbers.y, size)
        return str(alg), jwk
    if isinstance(key, rsa.RSAPrivateKey):
        rsa_numbers = key.public_key().public_numbers()
        return "RS256", {"kty": "RSA", "n": _uint(rsa_numbers.n), "e": _uint(rsa_numbers.e)}
    if isinstance(key, ed25519.Ed25519PrivateKey):
        # optional: pyjwt[crypto] (the auth extra)
        from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

        raw = key.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
        return "EdDSA", {"kty": "OKP", "crv": "Ed25519", "x": b64url(raw)}
    raise ValueError(f"A DPoP key is an EC, RSA or Ed25519 private key, not {type(key).__name__}")


def token_hash(access_token: str) -> str:
    """``ath``: base64url(SHA-256(access token))."""
    return b64url(hashlib.sha256(access_token.encode("ascii")).digest())


def htu_of(url: str) -> str:
    """The ``htu`` of a request URL: without query and fragment (RFC 9449 §4.2)."""
    parts = urlsplit(url)
    return urlunsplit((parts.scheme, parts.netloc, parts.path, "", ""))


def _origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme.lower()}://{parts.netloc.lower()}"


class DPoPKey:
    """A DPoP key pair and the nonces servers gave: makes the proofs (RFC 9449 §4).

    ``key``: a ``cryptography`` private key, or its PEM (str or bytes); None generates an
    ES256 (P-256) key that lives as long as this object.
    """

    def __init__(self, key: Any = None) -> None:
        try:
            import jwt  # noqa: F401  # optional: pyjwt[crypto] (the auth extra)

            # optional: pyjwt[crypto] (the auth extra)
            from cryptography.hazmat.primitives import serialization

            # optional: pyjwt[crypto] (the auth extra)
            from cryptography.hazmat.primitives.asymmetric import ec
        except ImportError:  # pragma: no cover - the auth extra is missing
            raise ClientError(f"DPoP needs the auth extra: {extra_install('auth')}") from None
        if key is None:
            key = ec.generate_private_key(ec.SECP256R1())
        elif isinstance(key, (str, bytes)):
            data = key.encode() if isinstance(key, str) else key
            key = serialization.load_pem_private_key(data, password=None)
        self._key = key
        self.alg, self.jwk = public_jwk(key)
        self.jkt = jwk_thumbprint(self.jwk)
        self._nonces: dict[str, str] = {}
        self._sent: dict[str, str | None] = {}

    def __repr__(self) -> str:
        return f"DPoPKey(alg={self.alg!r}, jkt={self.jkt!r})"

    def proof(self, method: str, url: str, access_token: str | None = None) -> str:
        """A fresh proof for one request (``ath`` when it carries ``access_token``), with the
        latest nonce the server at ``url`` gave, if any."""
        import jwt  # optional: pyjwt[crypto] (the auth extra)

        origin = _origin(url)
        claims: dict[str, Any] = {
            "jti": secrets.token_urlsafe(24),
            "htm": method.upper(),
            "htu": htu_of(url),
            "iat": int(time.time()),
        }
        if access_token is not None:
            claims["ath"] = token_hash(access_token)
        nonce = self._nonces.get(origin)
        if nonce is not None:
            claims["nonce"] = nonce
        self._sent[origin] = nonce
        headers = {"typ": "dpop+jwt", "jwk": self.jwk}
        return jwt.encode(claims, self._key, algorithm=self.alg, headers=headers)

    def remember_nonce(self, url: str, nonce: str | None) -> None:
        """Keep the ``DPoP-Nonce`` a server at ``url`` answered with (the latest wins)."""
        if nonce and nonce.isascii() and nonce.isprintable():
            self._nonces[_origin(url)] = nonce

    def nonce_retry(self, url: str, www_authenticate: str | None) -> bool:
        """True when a 401 asks for a nonce (``DPoP error="use_dpop_nonce"``) that this key
        now holds and did not send: the request is worth sending once more."""

        asked = any(
            scheme.lower() == "dpop" and params.get("error") == "use_dpop_nonce"
            for scheme, params in parse_challenges(www_authenticate or "")
        )
        if not asked:
            return False
        origin = _origin(url)
        held = self._nonces.get(origin)
        return held is not None and held != self._sent.get(origin)

    def supported_by(self, algorithms: Any) -> bool:
        """Whether an authorization server's ``dpop_signing_alg_values_supported`` allows
        this key's algorithm."""
        return isinstance(algorithms, list) and self.alg in algorithms
