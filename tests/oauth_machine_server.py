"""The grants for machines on the test authorization server, and an identity provider.

Authlib's pieces, fitted to :class:`~oauth_server.OAuthServer`:

* :class:`ClientCredentials`: the client credentials grant, the client authenticated with
  its secret (basic or post) or with ``private_key_jwt`` (:class:`PrivateKeyJWT`: RFC 7523
  §2.2, ``aud`` the issuer, each ``jti`` once); no refresh token;
* :class:`JWTBearer`: the RFC 7523 jwt-bearer grant, for a workload's JWT from an issuer
  the server trusts (``OAuthServer.federate``), or for an ID-JAG (SEP-990) from a trusted
  identity provider, which also needs the client it names to authenticate and the
  ``resource`` it names to be the one asked for.

:class:`IdentityProvider` is an enterprise identity provider: it issues ID tokens
(:meth:`IdentityProvider.id_token`) and, at ``/token``, exchanges them for ID-JAGs (RFC 8693
token exchange); serve it with ``oauth_server.serve_asgi``.
"""

from __future__ import annotations

import secrets
import time
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl

from authlib.oauth2.rfc6749 import grants
from authlib.oauth2.rfc6749.errors import InvalidClientError, InvalidGrantError
from authlib.oauth2.rfc7523 import JWTBearerClientAssertion, JWTBearerGrant
from joserfc import jwt
from joserfc.errors import JoseError
from joserfc.jwk import ECKey
from starlette.requests import Request
from starlette.responses import JSONResponse

JWT_BEARER = "urn:ietf:params:oauth:grant-type:jwt-bearer"
TOKEN_EXCHANGE = "urn:ietf:params:oauth:grant-type:token-exchange"
ID_TOKEN_TYPE = "urn:ietf:params:oauth:token-type:id_token"
ID_JAG_TYPE = "urn:ietf:params:oauth:token-type:id-jag"
ID_JAG_TYP = "oauth-id-jag+jwt"
MACHINE_GRANTS = ("client_credentials", JWT_BEARER)
MACHINE_AUTH_METHODS = ("client_secret_basic", "client_secret_post", "private_key_jwt")


@dataclass
class Federation:
    """An issuer of assertions the authorization server trusts: a workload platform (its
    tokens are for ``client_id``) or, with ``id_jag``, an enterprise identity provider."""

    issuer: str
    key: Any  # its public key (joserfc)
    client_id: str | None = None
    id_jag: bool = False


class Subject:
    """Whom a token is for: a workload, or the user an ID-JAG names."""

    def __init__(self, subject: str) -> None:
        self.subject = subject

    def get_user_id(self) -> str:
        return self.subject


class PrivateKeyJWT(JWTBearerClientAssertion):
    """``private_key_jwt``: the client's signed assertion, its ``aud`` this server's issuer."""

    CLIENT_AUTH_METHOD = "private_key_jwt"

    def __init__(self, owner: Any) -> None:
        super().__init__(leeway=5)
        self.owner = owner
        self.jtis: set[str] = set()

    def get_audiences(self) -> list[str]:
        return [self.owner.issuer]

    def validate_jti(self, claims: Any, jti: str) -> bool:
        if jti in self.jtis:
            return False
        self.jtis.add(jti)
        return True

    def resolve_client_public_key(self, client: Any) -> Any:
        if client.public_key is None:
            raise InvalidClientError(description="This client has no key")
        return client.public_key


def _resource(request: Any) -> str | None:
    return request.payload.data.get("resource")


class ClientCredentials(grants.ClientCredentialsGrant):
    TOKEN_ENDPOINT_AUTH_METHODS = MACHINE_AUTH_METHODS

    def generate_token(self, user: Any = None, scope: Any = None, **options: Any) -> dict[str, Any]:
        client = self.request.client
        return self.server.owner.issue(
            client,
            self.server.owner.granted(scope),
            _resource(self.request),
            subject=client.client_id,
            refresh=False,
        )


class JWTBearer(JWTBearerGrant):
    """The jwt-bearer grant for a workload's JWT or an ID-JAG."""

    LEEWAY = 5
    TOKEN_ENDPOINT_AUTH_METHODS = MACHINE_AUTH_METHODS

    def get_audiences(self) -> list[str]:
        return [self.server.owner.issuer]

    def _federation(self, issuer: str) -> Federation | None:
        return self.server.owner.federations.get(issuer)

    def resolve_issuer_client(self, issuer: str) -> Any:
        federation = self._federation(issuer)
        if federation is None:
            return None
        self.request.federation = federation
        if federation.id_jag:
            return federation  # the client authenticates itself (validate_token_request)
        return self.server.owner.clients.get(federation.client_id)

    def resolve_client_public_key(self, client: Any) -> Any:
        return self.request.federation.key

    def validate_token_request(self) -> None:
        assertion = self.request.form.get("assertion") or ""
        headers, claims = self.extract_assertion(assertion) if assertion else ({}, {})
        federation = self._federation(str(claims.get("iss")))
        if federation is None or not federation.id_jag:
            super().validate_token_request()
            return
        if headers.get("typ") != ID_JAG_TYP:
            raise InvalidGrantError(description="Not an ID-JAG")
        client = self.authenticate_token_endpoint_client()
        claims = self.process_assertion_claims(assertion)
        if claims.get("client_id") != client.client_id:
            raise InvalidGrantError(description="The ID-JAG is for another client")
        if claims.get("resource") != _resource(self.request):
            raise InvalidGrantError(description="The ID-JAG is for another resource")
        if not client.check_grant_type(self.GRANT_TYPE):
            raise InvalidClientError(description="This client may not use jwt-bearer")
        self.request.client = client
        self.request.user = Subject(str(claims["sub"]))
        self.validate_requested_scope()

    def authenticate_user(self, subject: str) -> Subject:
        return Subject(subject)

    def has_granted_permission(self, client: Any, user: Any) -> bool:
        return True

    def generate_token(self, user: Any = None, scope: Any = None, **options: Any) -> dict[str, Any]:
        client = self.request.client
        subject = user.subject if isinstance(user, Subject) else client.client_id
        return self.server.owner.issue(
            client,
            self.server.owner.granted(scope),
            _resource(self.request),
            subject=subject,
            refresh=False,
        )


# ---------------------------------------------------------------- the identity provider


@dataclass
class Exchange:
    """A token exchange request the identity provider received."""

    params: dict[str, str]
    status: int


class IdentityProvider:
    """An enterprise identity provider: ID tokens for its clients, exchanged for ID-JAGs.

    ``clients`` maps the id of a client at the identity provider to its id at the MCP
    authorization server (the ``client_id`` an ID-JAG names). ``issued`` keeps every ID-JAG.
    """

    def __init__(self, clients: dict[str, str]) -> None:
        self.key = ECKey.generate_key("P-256", parameters={"kid": "idp-key"})
        self.clients = clients
        self.base = ""  # set once served
        self.received: list[Exchange] = []
        self.issued: list[str] = []

    @property
    def issuer(self) -> str:
        return self.base

    @property
    def token_endpoint(self) -> str:
        return f"{self.base}/token"

    def id_token(self, audience: str, subject: str = "alice", lifetime: int = 300) -> str:
        now = int(time.time())
        claims = {
            "iss": self.issuer,
            "sub": subject,
            "aud": audience,
            "iat": now,
            "exp": now + lifetime,
            "email": f"{subject}@example.com",
        }
        return jwt.encode({"alg": "ES256", "kid": self.key.kid}, claims, self.key)

    def _id_jag(self, params: dict[str, str], subject: str, client_id: str) -> str:
        now = int(time.time())
        claims = {
            "iss": self.issuer,
            "sub": subject,
            "aud": params["audience"],
            "client_id": client_id,
            "resource": params["resource"],
            "iat": now,
            "exp": now + 300,
            "jti": secrets.token_hex(8),
        }
        if params.get("scope"):
            claims["scope"] = params["scope"]
        header = {"alg": "ES256", "typ": ID_JAG_TYP, "kid": self.key.kid}
        token = jwt.encode(header, claims, self.key)
        self.issued.append(token)
        return token

    def exchange(self, params: dict[str, str]) -> tuple[int, dict[str, Any]]:
        client_id = params.get("client_id", "")
        if client_id not in self.clients:
            return 401, {"error": "invalid_client"}
        if params.get("grant_type") != TOKEN_EXCHANGE:
            return 400, {"error": "unsupported_grant_type"}
        wanted = {
            "requested_token_type": ID_JAG_TYPE,
            "subject_token_type": ID_TOKEN_TYPE,
        }
        if any(params.get(k) != v for k, v in wanted.items()) or not (
            params.get("audience") and params.get("resource")
        ):
            return 400, {"error": "invalid_request"}
        try:
            token = jwt.decode(params.get("subject_token", ""), self.key)
            jwt.JWTClaimsRegistry(
                iss={"essential": True, "value": self.issuer},
                aud={"essential": True, "value": client_id},
                exp={"essential": True},
            ).validate(token.claims)
        except (JoseError, ValueError):
            return 400, {"error": "invalid_grant", "error_description": "Invalid ID token"}
        answer = {
            "access_token": self._id_jag(params, str(token.claims["sub"]), self.clients[client_id]),
            "issued_token_type": ID_JAG_TYPE,
            "token_type": "N_A",
            "expires_in": 300,
        }
        return 200, answer

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        request = Request(scope, receive)
        if request.url.path != "/token" or request.method != "POST":
            await JSONResponse({"error": "not_found"}, 404)(scope, receive, send)
            return
        params = dict(parse_qsl((await request.body()).decode(), keep_blank_values=True))
        status, answer = self.exchange(params)
        self.received.append(Exchange(params, status))
        await JSONResponse(answer, status)(scope, receive, send)
