"""Authlib's generic OAuth 2.1 server pieces, fitted to the test authorization server.

Authlib leaves storage and the web framework to its users: these are the models (clients,
codes, tokens), the request and response adapters, and the grant and endpoint subclasses
that keep everything in :class:`~oauth_server.OAuthServer`'s dictionaries. Token issuing
is handed to ``OAuthServer.issue``, which knows the RFC 8707 ``resource`` a request named.
"""

from __future__ import annotations

import secrets
import time
from dataclasses import dataclass, field
from typing import Any

from authlib.oauth2 import AuthorizationServer
from authlib.oauth2.rfc6749 import (
    AuthorizationCodeMixin,
    ClientMixin,
    JsonPayload,
    JsonRequest,
    OAuth2Payload,
    OAuth2Request,
    TokenMixin,
    grants,
)
from authlib.oauth2.rfc6749.errors import InvalidRequestError
from authlib.oauth2.rfc7591 import ClientRegistrationEndpoint
from authlib.oauth2.rfc7636 import CodeChallenge
from authlib.oauth2.rfc7662 import IntrospectionEndpoint
from authlib.oauth2.rfc9207 import IssuerParameter
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

USER = "alice"


@dataclass
class Client(ClientMixin):
    client_id: str
    redirect_uris: list[str]
    client_secret: str | None = None
    scope: str = ""
    metadata: dict[str, Any] = field(default_factory=dict)
    public_key: Any = None  # authenticates with private_key_jwt
    grant_types: tuple[str, ...] = ("authorization_code", "refresh_token")

    def get_client_id(self) -> str:
        return self.client_id

    def get_default_redirect_uri(self) -> str | None:
        return self.redirect_uris[0] if self.redirect_uris else None

    def get_allowed_scope(self, scope: str | None) -> str:
        return scope or ""

    def check_redirect_uri(self, redirect_uri: str) -> bool:
        return redirect_uri in self.redirect_uris  # exact matching (AU-30)

    def check_client_secret(self, client_secret: str) -> bool:
        return self.client_secret is not None and secrets.compare_digest(
            client_secret, self.client_secret
        )

    def check_endpoint_auth_method(self, method: str, endpoint: str) -> bool:
        if self.public_key is not None:
            return method == "private_key_jwt"
        if self.client_secret is None:
            return method == "none"
        return method in ("client_secret_basic", "client_secret_post")

    def check_response_type(self, response_type: str) -> bool:
        return response_type == "code"

    def check_grant_type(self, grant_type: str) -> bool:
        return grant_type in self.grant_types


@dataclass
class Code(AuthorizationCodeMixin):
    code: str
    client_id: str
    redirect_uri: str
    scope: str
    resource: str | None
    code_challenge: str
    code_challenge_method: str

    def get_redirect_uri(self) -> str:
        return self.redirect_uri

    def get_scope(self) -> str:
        return self.scope


@dataclass
class Token(TokenMixin):
    access_token: str
    refresh_token: str | None
    client_id: str
    scope: str
    resource: str | None
    expires_at: int
    claims: dict[str, Any]
    revoked: bool = False

    def check_client(self, client: Client) -> bool:
        return self.client_id == client.get_client_id()

    def get_scope(self) -> str:
        return self.scope

    def get_expires_in(self) -> int:
        return max(0, self.expires_at - int(time.time()))

    def is_expired(self) -> bool:
        return time.time() >= self.expires_at

    def is_revoked(self) -> bool:
        return self.revoked


class User:
    def get_user_id(self) -> str:
        return USER


class _Payload(OAuth2Payload):
    def __init__(self, pairs: list[tuple[str, str]]) -> None:
        self._data = dict(pairs)
        self._datalist: dict[str, list[str]] = {}
        for key, value in pairs:
            self._datalist.setdefault(key, []).append(value)

    @property
    def data(self) -> dict[str, str]:
        return self._data

    @property
    def datalist(self) -> dict[str, list[str]]:
        return self._datalist


class FormRequest(OAuth2Request):
    """An already read HTTP request in the shape Authlib's grants expect."""

    def __init__(self, request: Request, query: list[tuple[str, str]], form: dict[str, str]):
        super().__init__(request.method, str(request.url), headers=request.headers)
        self._args = dict(query)
        self._form = form
        self.payload = _Payload([*query, *form.items()])

    @property
    def args(self) -> dict[str, str]:
        return self._args

    @property
    def form(self) -> dict[str, str]:
        return self._form


class _JsonBody(JsonPayload):
    def __init__(self, body: Any) -> None:
        self._body = body

    @property
    def data(self) -> Any:
        return self._body


class JsonBodyRequest(JsonRequest):
    def __init__(self, request: Request, body: Any) -> None:
        super().__init__(request.method, str(request.url), request.headers)
        self.payload = _JsonBody(body)


@dataclass
class Reply:
    """What Authlib answers, turned into a Starlette response at the end."""

    status: int
    body: Any
    headers: list[tuple[str, str]]

    @property
    def location(self) -> str | None:
        return dict(self.headers).get("Location")

    @location.setter
    def location(self, value: str) -> None:
        self.headers = [(k, v) for k, v in self.headers if k != "Location"] + [("Location", value)]

    def response(self) -> Response:
        headers = {k: v for k, v in self.headers if k.lower() != "content-type"}
        if isinstance(self.body, dict):
            return JSONResponse(self.body, self.status, headers)
        return Response(self.body or b"", self.status, headers)


class IssuerExtension(IssuerParameter):
    """RFC 9207: the redirect names the issuer (or, on purpose, ``wrong_iss``)."""

    def __init__(self, server: Any) -> None:
        self.server = server

    def get_issuer(self) -> str:
        return self.server.wrong_iss or self.server.issuer


class S256Only(CodeChallenge):
    """PKCE is required, and only with S256."""

    SUPPORTED_CODE_CHALLENGE_METHOD = ("S256",)
    DEFAULT_CODE_CHALLENGE_METHOD = "S256"

    def validate_code_challenge(self, grant: Any, redirect_uri: str) -> None:
        data = grant.request.payload.data
        if not data.get("code_challenge") or data.get("code_challenge_method") != "S256":
            raise InvalidRequestError("PKCE with code_challenge_method=S256 is required")
        super().validate_code_challenge(grant, redirect_uri)


class CodeGrant(grants.AuthorizationCodeGrant):
    TOKEN_ENDPOINT_AUTH_METHODS = ("client_secret_basic", "client_secret_post", "none")

    def save_authorization_code(self, code: str, request: FormRequest) -> None:
        data = request.payload.data
        self.server.owner.codes[code] = Code(
            code,
            request.client.client_id,
            data["redirect_uri"],
            self.server.owner.granted(request.scope),
            data.get("resource"),
            data["code_challenge"],
            data["code_challenge_method"],
        )

    def query_authorization_code(self, code: str, client: Client) -> Code | None:
        found = self.server.owner.codes.get(code)
        return found if found is not None and found.client_id == client.client_id else None

    def delete_authorization_code(self, code: Code) -> None:
        self.server.owner.codes.pop(code.code, None)

    def authenticate_user(self, code: Code) -> User:
        return User()

    def generate_token(self, user: Any = None, scope: Any = None, **options: Any) -> dict[str, Any]:
        resource = (
            self.request.payload.data.get("resource") or self.request.authorization_code.resource
        )
        return self.server.owner.issue(self.request.client, scope, resource)


class RefreshGrant(grants.RefreshTokenGrant):
    TOKEN_ENDPOINT_AUTH_METHODS = ("client_secret_basic", "client_secret_post", "none")
    INCLUDE_NEW_REFRESH_TOKEN = True

    def authenticate_refresh_token(self, refresh_token: str) -> Token | None:
        token = self.server.owner.tokens.get(refresh_token)
        return token if token is not None and not token.revoked else None

    def authenticate_user(self, token: Token) -> User:
        return User()

    def revoke_old_credential(self, token: Token) -> None:
        token.revoked = True

    def generate_token(self, user: Any = None, scope: Any = None, **options: Any) -> dict[str, Any]:
        resource = self.request.payload.data.get("resource") or self.request.refresh_token.resource
        return self.server.owner.issue(self.request.client, scope, resource)


class Registration(ClientRegistrationEndpoint):
    def authenticate_token(self, request: Any) -> bool:
        return True  # open registration

    def get_server_metadata(self) -> dict[str, Any]:
        return self.server.owner.metadata()

    def save_client(self, info: dict[str, Any], metadata: dict[str, Any], request: Any) -> Client:
        public = metadata.get("token_endpoint_auth_method") == "none"
        client = Client(
            info["client_id"],
            list(metadata.get("redirect_uris") or []),
            None if public else info["client_secret"],
            metadata=metadata,
        )
        self.server.owner.clients[client.client_id] = client
        return client


class Introspection(IntrospectionEndpoint):
    CLIENT_AUTH_METHODS = ("client_secret_basic", "client_secret_post")

    def query_token(self, token: str, hint: str | None) -> Token | None:
        return self.server.owner.tokens.get(token)

    def check_permission(self, token: Token, client: Client, request: Any) -> bool:
        return True

    def introspect_token(self, token: Token) -> dict[str, Any]:
        return {"active": True, "token_type": "Bearer", **token.claims}


class Authlib(AuthorizationServer):
    """Authlib's server, its storage and responses handed to ``owner``."""

    def __init__(self, owner: Any) -> None:
        super().__init__(scopes_supported=owner.scopes_supported)
        self.owner = owner

    def query_client(self, client_id: str) -> Client | None:
        return self.owner.clients.get(client_id)

    def save_token(self, token: dict[str, Any], request: Any) -> None:
        pass  # kept by OAuthServer.issue

    def create_oauth2_request(self, request: Any) -> Any:
        return request

    def create_json_request(self, request: Any) -> Any:
        return request

    def handle_response(self, status: int, body: Any, headers: Any) -> Reply:
        return Reply(status, body, list(headers))

    def send_signal(self, name: str, *args: Any, **kwargs: Any) -> None:
        pass
