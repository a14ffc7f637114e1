"""A real OAuth 2.1 authorization server on 127.0.0.1, for the authorization tests.

It is Authlib's generic ``AuthorizationServer`` with its grants and endpoints (code grant
with PKCE, refresh tokens, RFC 7591 registration, RFC 7662 introspection, RFC 9207 ``iss``;
the adapters are in :mod:`oauth_authlib`), behind a small ASGI app served by a real
uvicorn. On top of Authlib it offers:

* RFC 8414 metadata (and OIDC discovery) at the well-known URLs of its issuer;
* JWT access tokens in the RFC 9068 shape, signed with an RSA key published at ``/jwks``,
  whose ``aud`` is the RFC 8707 ``resource`` the client asked for;
* client ID metadata documents: a ``client_id`` that is an http(s) URL is fetched;
* auto-approval: ``/authorize`` redirects at once, as a user who always agrees would.

Everything it receives is kept in :attr:`OAuthServer.received`, and switches make it
misbehave on purpose. :func:`serve_protected` serves an MCP server app that knows its own
URL, behind a :class:`Recorder` that notes every request it gets.
"""

from __future__ import annotations

import contextlib
import functools
import json
import secrets
import socket
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl

import httpx
from authlib.common.urls import add_params_to_uri
from authlib.oauth2 import OAuth2Error
from joserfc import jwt
from joserfc.jwk import JWKRegistry, RSAKey
from joserfc.jws import extract_compact
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from http_server import bound_socket, uvicorn_on
from oauth_authlib import (
    USER,
    Authlib,
    Client,
    Code,
    CodeGrant,
    FormRequest,
    Introspection,
    IssuerExtension,
    JsonBodyRequest,
    RefreshGrant,
    Registration,
    S256Only,
    Token,
    User,
)
from oauth_machine_server import (
    MACHINE_AUTH_METHODS,
    MACHINE_GRANTS,
    ClientCredentials,
    Federation,
    JWTBearer,
    PrivateKeyJWT,
)

INTROSPECTOR = ("resource-server", "introspection-secret")  # a confidential client


@functools.lru_cache(maxsize=1)
def signing_key() -> RSAKey:
    """One RSA key for the whole test run (generating one takes a noticeable moment)."""
    return RSAKey.generate_key(2048, parameters={"kid": "test-key", "use": "sig"})


@dataclass
class Received:
    """One request the server received: its path and every parameter (query, form, JSON)."""

    method: str
    path: str
    params: dict[str, str]
    json: Any = None
    authorization: str | None = None
    dpop: str | None = None  # the DPoP proof header


class OAuthServer:
    """The authorization server; :func:`serve_oauth` puts it on the network.

    Switches: ``wrong_iss`` (the ``iss`` sent back in the redirect), ``advertised_issuer``
    (the ``issuer`` in the metadata), ``code_challenge_methods`` (advertised PKCE methods),
    ``authorization_endpoint`` (advertised instead of the real one), ``cimd`` and ``dcr``
    (whether metadata documents and registration are offered), ``metadata_at`` (which
    well-known URLs answer: ``"oauth"``, ``"oidc"``, ``"oidc-appended"``), ``grantable``
    (the only scopes ever granted, when set), ``access_token_ttl`` (seconds),
    ``token_endpoint_auth_methods`` (advertised); ``dpop`` (the DPoP algorithms advertised: a
    token request with a valid proof gets a token bound to its key, ``cnf.jkt``, RFC 9449 §5)
    and ``dpop_nonce`` (a nonce the proofs must carry). The grants for machines
    (:mod:`oauth_machine_server`) take clients made by :meth:`register_machine` and
    assertions from issuers given to :meth:`federate`.
    """

    def __init__(
        self,
        *,
        scopes_supported: list[str] | None = None,
        issuer_path: str = "",
        access_token_ttl: int = 3600,
    ) -> None:
        self.scopes_supported = scopes_supported or ["files:read", "files:write"]
        self.issuer_path = issuer_path.rstrip("/")
        self.access_token_ttl = access_token_ttl
        self.base = ""  # set by serve_oauth
        self.key = signing_key()
        self.authlib = Authlib(self)
        self.authlib.register_grant(CodeGrant, [S256Only(required=True)])
        self.authlib.register_grant(RefreshGrant)
        self.authlib.register_grant(ClientCredentials)
        self.authlib.register_grant(JWTBearer)
        self.authlib.register_client_auth_method("private_key_jwt", PrivateKeyJWT(self))
        self.authlib.register_endpoint(Registration)
        self.authlib.register_endpoint(Introspection)
        self.authlib.register_extension(IssuerExtension(self))
        self.reset()

    def reset(self) -> None:
        """Forget every client, code, token and request; switch the misbehaviour off."""
        self.wrong_iss: str | None = None
        self.advertised_issuer: str | None = None
        self.code_challenge_methods = ["S256"]
        self.authorization_endpoint: str | None = None
        self.cimd = True
        self.dcr = True
        self.metadata_at = {"oauth", "oidc", "oidc-appended"}
        self.grantable: set[str] | None = None
        self.dpop: list[str] | None = None
        self.dpop_nonce: str | None = None
        self._binding: str | None = None  # the jkt of the token request being answered
        self.received: list[Received] = []
        self.clients: dict[str, Client] = {}
        self.codes: dict[str, Code] = {}
        self.tokens: dict[str, Token] = {}  # by access token and by refresh token
        self.federations: dict[str, Federation] = {}  # trusted issuers of assertions
        self.token_endpoint_auth_methods = ["none", *MACHINE_AUTH_METHODS]
        self.register_client(INTROSPECTOR[0], redirect_uris=[], secret=INTROSPECTOR[1])

    @property
    def issuer(self) -> str:
        return self.base + self.issuer_path

    def register_client(
        self, client_id: str, *, redirect_uris: list[str], secret: str | None = None
    ) -> Client:
        """A pre-registered client."""
        client = Client(client_id, list(redirect_uris), secret)
        self.clients[client_id] = client
        return client

    def register_machine(
        self, client_id: str, *, secret: str | None = None, public_key: Any = None
    ) -> Client:
        """A client for the grants for machines (a secret, or a public key for
        ``private_key_jwt``; neither: a workload known by its assertions alone)."""
        client = Client(client_id, [], secret, public_key=public_key, grant_types=MACHINE_GRANTS)
        self.clients[client_id] = client
        return client

    def federate(
        self, issuer: str, key: Any, client_id: str | None = None, *, id_jag: bool = False
    ) -> None:
        """Trust the assertions ``issuer`` signs with ``key``: a workload's JWT (its tokens
        are for ``client_id``) or, with ``id_jag``, an identity provider's ID-JAGs."""
        self.federations[issuer] = Federation(issuer, key, client_id, id_jag)

    def requests_to(self, path: str) -> list[Received]:
        return [r for r in self.received if r.path == path]

    def granted(self, scope: str | None) -> str:
        """The scopes granted for a request: all asked for, unless ``grantable`` limits them."""
        asked = (scope or "").split()
        return " ".join(s for s in asked if self.grantable is None or s in self.grantable)

    def metadata(self) -> dict[str, Any]:
        base = self.base
        document: dict[str, Any] = {
            "issuer": self.advertised_issuer or self.issuer,
            "authorization_endpoint": self.authorization_endpoint or f"{base}/authorize",
            "token_endpoint": f"{base}/token",
            "jwks_uri": f"{base}/jwks",
            "introspection_endpoint": f"{base}/introspect",
            "scopes_supported": self.scopes_supported,
            "response_types_supported": ["code"],
            "grant_types_supported": ["authorization_code", "refresh_token", *MACHINE_GRANTS],
            "token_endpoint_auth_methods_supported": self.token_endpoint_auth_methods,
            "code_challenge_methods_supported": self.code_challenge_methods,
            "authorization_response_iss_parameter_supported": True,
            "client_id_metadata_document_supported": self.cimd,
        }
        if self.dcr:
            document["registration_endpoint"] = f"{base}/register"
        if self.dpop is not None:
            document["dpop_signing_alg_values_supported"] = self.dpop
        return document

    def metadata_paths(self) -> dict[str, str]:
        """The well-known path of each discovery style for this issuer."""
        path = self.issuer_path
        return {
            "oauth": f"/.well-known/oauth-authorization-server{path}",
            "oidc": f"/.well-known/openid-configuration{path}",
            "oidc-appended": f"{path}/.well-known/openid-configuration" if path else "",
        }

    def issue(
        self,
        client: Client,
        scope: str | None,
        resource: str | None,
        *,
        subject: str = USER,
        refresh: bool = True,
    ) -> dict[str, Any]:
        """A JWT access token (RFC 9068) for ``resource``, and a refresh token (unless not
        ``refresh``)."""
        now = int(time.time())
        claims = {
            "iss": self.issuer,
            "sub": subject,
            "aud": resource or client.client_id,
            "client_id": client.client_id,
            "scope": scope or "",
            "iat": now,
            "exp": now + self.access_token_ttl,
            "jti": secrets.token_hex(8),
        }
        if self._binding is not None:
            claims["cnf"] = {"jkt": self._binding}
        header = {"alg": "RS256", "typ": "at+jwt", "kid": self.key.kid}
        access = jwt.encode(header, claims, self.key)
        refresh_token = secrets.token_urlsafe(32) if refresh else None
        token = Token(
            access, refresh_token, client.client_id, scope or "", resource, claims["exp"], claims
        )
        self.tokens[access] = token
        answer: dict[str, Any] = {
            "access_token": access,
            "token_type": "DPoP" if self._binding is not None else "Bearer",
            "expires_in": self.access_token_ttl,
        }
        if refresh_token is not None:
            self.tokens[refresh_token] = token
            answer["refresh_token"] = refresh_token
        if scope:
            answer["scope"] = scope
        return answer

    # ------------------------------------------------------------ HTTP

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        request = Request(scope, receive)
        response = await self._answer(request)
        await response(scope, receive, send)

    async def _answer(self, request: Request) -> Response:
        path = request.url.path
        query = parse_qsl(request.url.query, keep_blank_values=True)
        body = await request.body()
        form: dict[str, str] = {}
        data: Any = None
        kind = request.headers.get("content-type", "")
        if kind.startswith("application/x-www-form-urlencoded"):
            form = dict(parse_qsl(body.decode(), keep_blank_values=True))
        elif kind.startswith("application/json") and body:
            try:
                data = json.loads(body)
            except ValueError:
                return JSONResponse({"error": "invalid_request"}, 400)
        params = {**dict(query), **form}
        authorization = request.headers.get("authorization")
        proof = request.headers.get("dpop")
        self.received.append(Received(request.method, path, params, data, authorization, proof))
        for style, where in self.metadata_paths().items():
            if where and path == where:
                if style in self.metadata_at:
                    return JSONResponse(self.metadata())
                return JSONResponse({"error": "not_found"}, 404)
        oauth = FormRequest(request, query, form)
        if path == "/authorize" and request.method == "GET":
            return await self._authorize(oauth)
        if path == "/token" and request.method == "POST":
            refused = self._dpop_refusal(request) if self.dpop is not None else None
            if refused is not None:
                return refused
            try:
                return self.authlib.create_token_response(oauth).response()
            finally:
                self._binding = None
        if path == "/introspect" and request.method == "POST":
            return self.authlib.create_endpoint_response("introspection", oauth).response()
        if path == "/register" and request.method == "POST" and self.dcr:
            registration = JsonBodyRequest(request, data)
            answer = self.authlib.create_endpoint_response("client_registration", registration)
            return answer.response()
        if path == "/jwks":
            return JSONResponse({"keys": [self.key.as_dict(private=False)]})
        return JSONResponse({"error": "not_found"}, 404)

    def _dpop_refusal(self, request: Request) -> Response | None:
        """Check a token request's DPoP proof (RFC 9449 §4.3) with joserfc; None when it
        passes (or carries none), and the token will be bound to its key."""
        proofs = request.headers.getlist("dpop")
        if not proofs:
            return None

        def refuse(error: str, headers: dict[str, str] | None = None) -> Response:
            return JSONResponse({"error": error}, 400, headers)

        try:
            key = JWKRegistry.import_key(extract_compact(proofs[0].encode()).headers()["jwk"])
            token = jwt.decode(proofs[0], key, algorithms=self.dpop)
        except Exception:
            return refuse("invalid_dpop_proof")
        claims = token.claims
        if (
            len(proofs) != 1
            or token.header.get("typ") != "dpop+jwt"
            or claims.get("htm") != "POST"
            or claims.get("htu") != f"{self.base}/token"
            or abs(time.time() - claims.get("iat", 0)) > 60
            or not claims.get("jti")
        ):
            return refuse("invalid_dpop_proof")
        if self.dpop_nonce is not None and claims.get("nonce") != self.dpop_nonce:
            return refuse("use_dpop_nonce", {"DPoP-Nonce": self.dpop_nonce})
        self._binding = key.thumbprint()
        return None

    async def _authorize(self, request: FormRequest) -> Response:
        client_id = request.payload.client_id or ""
        if self.cimd and client_id.startswith(("http://", "https://")):
            await self._fetch_metadata_document(client_id)
        try:
            grant = self.authlib.get_consent_grant(request)
        except OAuth2Error as error:
            reply = self.authlib.handle_error_response(request, error)
            if reply.location:  # RFC 9207: error responses name the issuer too
                reply.location = add_params_to_uri(reply.location, {"iss": self.issuer})
            return reply.response()
        return self.authlib.create_authorization_response(
            request, grant_user=User(), grant=grant
        ).response()

    async def _fetch_metadata_document(self, url: str) -> None:
        """A client ID metadata document: the client is whatever the document says."""
        async with httpx.AsyncClient(timeout=5) as http:
            response = await http.get(url)
        document = response.json() if response.status_code == 200 else None
        if isinstance(document, dict) and document.get("client_id") == url:
            self.clients[url] = Client(url, list(document.get("redirect_uris") or []))


# ---------------------------------------------------------------- serving


def _bind() -> tuple[socket.socket, str]:
    sock = bound_socket()
    return sock, f"http://127.0.0.1:{sock.getsockname()[1]}"


def _run(app: Any, sock: socket.socket, lifespan: str) -> contextlib.AbstractContextManager[None]:
    return uvicorn_on(app, sock, lifespan)


@contextlib.contextmanager
def serve_asgi(app: Any) -> Iterator[str]:
    """Serve ``app`` on 127.0.0.1; yields ``http://127.0.0.1:<port>``. The socket is bound
    before uvicorn starts, so early requests wait in the backlog."""
    sock, base = _bind()
    with _run(app, sock, "off"):
        yield base


@contextlib.contextmanager
def serve_oauth(server: OAuthServer) -> Iterator[OAuthServer]:
    """Put ``server`` on the network; its :attr:`~OAuthServer.issuer` is known on entry."""
    with serve_asgi(server) as base:
        server.base = base
        yield server


@dataclass
class Seen:
    """One request an MCP server got, as the :class:`Recorder` saw it."""

    method: str
    path: str
    query: str
    authorization: str | None
    status: int | None = None
    dpop: str | None = None  # the DPoP proof header


class Recorder:
    """Wraps an ASGI app and notes each HTTP request. ``refuse(method, challenge)`` answers
    the next such request to the endpoint with 401 and that challenge, as a server that just
    revoked the token would (``path`` and ``status`` pick another request and answer)."""

    def __init__(self, app: Any, url: str = "") -> None:
        self.app = app
        self.url = url
        self.seen: list[Seen] = []
        self.refusals: list[tuple[str, str, int, str | None]] = []
        self._changed = threading.Condition()

    def wait(self, predicate: Callable[[list[Seen]], bool], timeout: float) -> bool:
        """Block until ``predicate(seen)`` holds (run it with ``asyncio.to_thread``)."""
        with self._changed:
            return self._changed.wait_for(lambda: predicate(self.seen), timeout)

    def _note(self, entry: Seen, status: int | None = None) -> None:
        with self._changed:
            if status is None:
                self.seen.append(entry)
            else:
                entry.status = status
            self._changed.notify_all()

    def refuse(
        self, method: str, challenge: str | None, path: str = "/mcp", status: int = 401
    ) -> None:
        self.refusals.append((method, path, status, challenge))

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        entry = Seen(
            scope["method"],
            scope["path"],
            scope.get("query_string", b"").decode("latin-1"),
            headers.get("authorization"),
            dpop=headers.get("dpop"),
        )
        self._note(entry)
        for refusal in self.refusals:
            if refusal[:2] == (scope["method"], scope["path"]):
                self.refusals.remove(refusal)
                status, challenge = refusal[2:]
                self._note(entry, status)
                extra = {"www-authenticate": challenge} if challenge else {}
                answer = Response(b"", status, extra)
                await answer(scope, receive, send)
                return

        async def noting(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                self._note(entry, message["status"])
            await send(message)

        await self.app(scope, receive, noting)


@contextlib.contextmanager
def serve_protected(build: Callable[[str], Any], path: str = "/mcp") -> Iterator[Recorder]:
    """Serve the ASGI app ``build(url)`` makes, ``url`` being its own endpoint URL (which a
    protected server names in its metadata); yields the :class:`Recorder` around it, whose
    ``url`` attribute is that URL."""
    sock, base = _bind()
    recorder = Recorder(build(base + path), base + path)
    with _run(recorder, sock, "on"):
        yield recorder


def metadata_document_app(redirect_uri: str, client_name: str = "toolwire tests") -> Any:
    """An app serving a client ID metadata document at ``/client.json``."""

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        request = Request(scope, receive)
        if request.url.path != "/client.json":
            await JSONResponse({"error": "not_found"}, 404)(scope, receive, send)
            return
        document = {
            "client_id": str(request.url),
            "client_name": client_name,
            "redirect_uris": [redirect_uri],
            "grant_types": ["authorization_code", "refresh_token"],
            "response_types": ["code"],
            "token_endpoint_auth_method": "none",
        }
        await JSONResponse(document)(scope, receive, send)

    return app
