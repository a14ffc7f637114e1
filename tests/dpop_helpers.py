"""What the DPoP tests share: a key holder making proofs with PyJWT and ``cryptography``
directly (independent of toolwire's client), and one initialize POST with given headers."""

from __future__ import annotations

import base64
import hashlib
import json
import secrets
import time
from typing import Any

import httpx
import jwt
from cryptography.hazmat.primitives.asymmetric import ec
from joserfc.jwk import ECKey

from mcp_spec import WireChecker
from oauth_helpers import LEGACY, TIMEOUT


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


class Holder:
    """A key of the test's own and proofs made with PyJWT, independent of toolwire."""

    def __init__(self) -> None:
        self.key = ec.generate_private_key(ec.SECP256R1())
        self.jwk = json.loads(jwt.algorithms.ECAlgorithm.to_jwk(self.key.public_key()))
        self.jkt = ECKey.import_key(self.jwk).thumbprint()

    def proof(self, method: str, url: str, token: str | None, **claims: Any) -> str:
        body: dict[str, Any] = {
            "jti": secrets.token_urlsafe(16),
            "htm": method,
            "htu": url,
            "iat": int(time.time()),
        }
        if token is not None:
            body["ath"] = b64url(hashlib.sha256(token.encode()).digest())
        body.update(claims)
        body = {name: value for name, value in body.items() if value is not None}
        headers = {"typ": "dpop+jwt", "jwk": self.jwk}
        return jwt.encode(body, self.key, algorithm="ES256", headers=headers)


INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": LEGACY,
        "capabilities": {},
        "clientInfo": {"name": "dpop-test", "version": "1"},
    },
}


async def post(url: str, headers: dict[str, str], checker: WireChecker | None = None) -> Any:
    """One initialize POST with ``headers``; a 200 answer is checked against the schema."""
    async with httpx.AsyncClient(timeout=TIMEOUT) as http:
        response = await http.post(
            url,
            json=INITIALIZE,
            headers={"Accept": "application/json, text/event-stream", **headers},
        )
    if response.status_code == 200:
        checker = checker or WireChecker(LEGACY)
        checker.client_sent(INITIALIZE)
        data = [line[5:] for line in response.text.splitlines() if line.startswith("data:")]
        checker.server_sent(data[0] if data else response.text)
    return response


def refused(response: Any, error: str = "invalid_dpop_proof") -> str:
    assert response.status_code == 401, response.text
    challenge = response.headers["www-authenticate"]
    assert challenge.startswith("DPoP ") and f'error="{error}"' in challenge
    assert 'algs="ES256' in challenge
    assert response.json()["error"] == error
    return str(response.json().get("error_description", ""))
