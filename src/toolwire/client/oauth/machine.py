"""OAuth grants for machines: no browser, nobody to approve.

::

    Client(url, auth=ClientCredentials("ci-job", client_secret=SECRET))
    Client(url, auth=ClientCredentials("ci-job", private_key=PEM, key_id="key-1"))
    Client(url, auth=WorkloadIdentity(token_file="/var/run/secrets/tokens/mcp"))
    Client(url, auth=EnterpriseAuthorization(
        idp_token_endpoint="https://idp.example.com/oauth2/token", id_token=get_id_token,
        client_id="agent", client_secret=SECRET,
    ))

Each is an :class:`~toolwire.client.OAuth` whose authorization is a grant made by the
program itself, so everything else is the same: the first 401 starts the discovery
(protected resource metadata, then the authorization server's metadata), every token
request names the server as its RFC 8707 ``resource`` and asks for the scopes of the
challenge (else ``scopes``, else the server's ``scopes_supported``), tokens are kept in
``storage`` per issuer and resource, and a token about to expire is replaced before it is
sent. A token the server refuses is replaced once; refused again, the call fails with a
:class:`~toolwire.errors.ClientError`, as does any grant the authorization server refuses
(never retried with another grant).

* :class:`ClientCredentials`: the client credentials grant (OAuth 2.1 §4.2, SEP-1046),
  the client authenticated with its secret (``client_secret_basic``, or
  ``client_secret_post`` where the server only offers that) or with a signed JWT
  (``private_key_jwt``, RFC 7523 §2.2) made from the private key given;
* :class:`WorkloadIdentity`: workload identity federation (SEP-1933): a JWT the platform
  issues to the workload (a Kubernetes service account token, a cloud identity token),
  read again from its file or callable for every grant, presented with the RFC 7523
  jwt-bearer grant;
* :class:`EnterpriseAuthorization`: enterprise-managed authorization (SEP-990): the
  user's ID token from the enterprise identity provider is exchanged there (RFC 8693) for
  an identity assertion JWT authorization grant (ID-JAG) for the MCP server's
  authorization server, which is then presented to it with the jwt-bearer grant.

Secrets, keys, assertions, ID tokens and access tokens never appear in a log line, an
error text or a ``repr``. Signing needs PyJWT with its cryptography extra
(``pip install 'toolwire[auth]'``), imported only when a key is used.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
import os
import secrets
import time
from collections.abc import Awaitable, Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

from ..._pip import extra_install
from ...auth.verifiers import canonical_url
from ...errors import ClientError
from .discovery import FETCH_TIMEOUT, check_oauth_url
from .endpoints import request_tokens
from .flow import OAuth, _Server
from .storage import Registration, Tokens, TokenStorage

logger = logging.getLogger("toolwire.client")

JWT_BEARER = "urn:ietf:params:oauth:grant-type:jwt-bearer"
TOKEN_EXCHANGE = "urn:ietf:params:oauth:grant-type:token-exchange"
CLIENT_ASSERTION_TYPE = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
ID_TOKEN_TYPE = "urn:ietf:params:oauth:token-type:id_token"
ID_JAG_TYPE = "urn:ietf:params:oauth:token-type:id-jag"
ASSERTION_LIFETIME = 60  # seconds: a client assertion is made for one request

#: A token the program gets from elsewhere: the token itself, or a (sync or async) callable
#: returning it, called again each time one is needed.
TokenSource = str | Callable[[], str | Awaitable[str]]


async def _no_browser(url: str) -> str:  # pragma: no cover - never called
    raise ClientError("A grant for machines never opens an authorization URL")


async def _token_from(source: TokenSource, what: str) -> str:
    """The current value of ``source`` (a callable is called, with a time limit)."""
    if isinstance(source, str):
        value: Any = source
    else:
        try:
            value = source()
            if inspect.isawaitable(value):
                value = await asyncio.wait_for(value, FETCH_TIMEOUT)
        except ClientError:
            raise
        except asyncio.TimeoutError:
            raise ClientError(f"Getting the {what} took more than {FETCH_TIMEOUT:g}s") from None
        except Exception as exc:
            raise ClientError(f"Getting the {what} failed ({type(exc).__name__})") from exc
    if not isinstance(value, str) or not value.strip():
        raise ClientError(f"The {what} is empty")
    return value.strip()


class _SigningKey:
    """A private key for signing JWTs: PEM text or bytes, or a JWK (a dict)."""

    def __init__(
        self, key: str | bytes | Mapping[str, Any], key_id: str | None, algorithm: str | None
    ) -> None:
        try:
            import jwt  # optional: pyjwt[crypto] (the auth extra)

            # optional: pyjwt[crypto] (the auth extra)
            from cryptography.hazmat.primitives.asymmetric import ec, rsa

            # optional: pyjwt[crypto] (the auth extra)
            from cryptography.hazmat.primitives.serialization import load_pem_private_key
        except ImportError:  # pragma: no cover - depends on the installed extras
            raise ClientError(
                f"Signing with a private key needs PyJWT: {extra_install('auth')}"
            ) from None
        try:
            if isinstance(key, Mapping):
                jwk = jwt.PyJWK(dict(key), algorithm)
                material: Any = jwk.key
                key_id = key_id or key.get("kid")
                algorithm = algorithm or key.get("alg") or jwk.algorithm_name
            else:
                data = key.encode() if isinstance(key, str) else bytes(key)
                material = load_pem_private_key(data, password=None)
        except Exception:
            raise ValueError(
                "private_key is neither a PEM private key nor a private JWK"
            ) from None  # the key's text stays out of the error
        if isinstance(material, rsa.RSAPrivateKey):
            algorithm = algorithm or "RS256"
        elif isinstance(material, ec.EllipticCurvePrivateKey):
            curve = {"secp256r1": "ES256", "secp384r1": "ES384", "secp521r1": "ES512"}
            algorithm = algorithm or curve.get(material.curve.name)
        if algorithm is None or algorithm.startswith("HS") or algorithm == "none":
            raise ValueError("private_key must be an RSA or EC private key (RS256, ES256, ...)")
        self._key = material
        self.key_id = key_id
        self.algorithm = algorithm

    def __repr__(self) -> str:
        return f"<signing key {self.algorithm}{f' {self.key_id}' if self.key_id else ''}>"

    def sign(self, claims: dict[str, Any]) -> str:
        import jwt  # optional: pyjwt[crypto] (the auth extra)

        headers = {"typ": "JWT", **({"kid": self.key_id} if self.key_id else {})}
        return jwt.encode(claims, self._key, algorithm=self.algorithm, headers=headers)


class MachineOAuth(OAuth):
    """What the grants for machines share: the client's authentication at the token
    endpoint, the grant in place of the authorization code flow, and renewing a token
    before it is sent when it has expired and there is no refresh token.

    ``client_id`` with ``client_secret`` or ``private_key`` (PEM, or a JWK dict; ``key_id``
    is its ``kid``, ``signing_algorithm`` defaults to RS256 or ES256 by the key) authenticates
    the client; the ``private_key_jwt`` assertion's ``aud`` is the authorization server's
    issuer, or ``assertion_audience`` when given (some servers want their token endpoint).
    """

    interactive = False
    grant_type = ""

    def __init__(
        self,
        client_id: str | None = None,
        *,
        client_secret: str | None = None,
        private_key: str | bytes | Mapping[str, Any] | None = None,
        key_id: str | None = None,
        signing_algorithm: str | None = None,
        assertion_audience: str | None = None,
        scopes: Iterable[str] | str | None = None,
        storage: TokenStorage | None = None,
    ) -> None:
        if client_secret is not None and private_key is not None:
            raise ValueError("Give client_secret or private_key, not both")
        if (client_secret is not None or private_key is not None) and not client_id:
            raise ValueError("A client_secret or private_key needs the client_id it belongs to")
        super().__init__(
            client_id=client_id,
            client_secret=client_secret,
            scopes=scopes,
            authorize=_no_browser,
            storage=storage,
        )
        self.key = (
            _SigningKey(private_key, key_id, signing_algorithm) if private_key is not None else None
        )
        self.assertion_audience = assertion_audience
        self._failed: dict[str, ClientError] = {}  # a renewal header() could not make

    def __repr__(self) -> str:
        return f"{type(self).__name__}(client_id={self.client_id!r})"

    # ------------------------------------------------------------ the transport's calls

    async def header(self, url: str, http: Any) -> str | None:
        """The ``Authorization`` value for ``url``; an expired token without a refresh
        token is replaced by a new grant first."""
        server = self._servers.get(canonical_url(url))
        tokens = server.tokens if server is not None else None
        if (
            server is not None
            and tokens is not None
            and tokens.expired()
            and not tokens.refresh_token
        ):
            async with self._lock:
                tokens = server.tokens
                if tokens is not None and tokens.expired() and not tokens.refresh_token:
                    logger.info("The access token for %s has expired: a new grant", url)
                    try:
                        await self._authorize(server, http, tokens.requested)
                    except ClientError as exc:  # told by challenge() when the server refuses
                        self._failed[canonical_url(url)] = exc
        return await super().header(url, http)

    async def challenge(
        self,
        url: str,
        http: Any,
        status: int,
        www_authenticate: str | None,
        sent: str | None,
        attempt: int,
    ) -> bool:
        """As :meth:`OAuth.challenge`; a grant that just failed is not tried again."""
        failed = self._failed.pop(canonical_url(url), None)
        if failed is not None and status == 401:
            raise failed
        return await super().challenge(url, http, status, www_authenticate, sent, attempt)

    # ------------------------------------------------------------ the grant

    async def grant(self, server: _Server, http: Any, scopes: tuple[str, ...]) -> dict[str, str]:
        """The grant's parameters for the token request (``resource`` and ``scope`` are
        added by the caller)."""
        raise NotImplementedError

    async def _authorize(self, server: _Server, http: Any, scopes: Iterable[str]) -> None:
        scopes = tuple(scopes)
        registration = await self._registration(server, http)
        grant = await self.grant(server, http, scopes)
        grant["resource"] = server.resource
        if scopes:
            grant["scope"] = " ".join(scopes)
        logger.info(
            "Requesting a token from %s for %s (%s)",
            server.issuer,
            server.resource,
            grant["grant_type"],
        )
        tokens = await self._token_request(server, http, registration, grant, scopes, scopes)
        server.fresh, server.fresh_by_refresh = tokens.access_token, False

    async def _token_request(
        self,
        server: _Server,
        http: Any,
        registration: Registration,
        data: dict[str, str],
        requested: tuple[str, ...],
        granted: tuple[str, ...],
        refresh_token: str | None = None,
    ) -> Tokens:
        if self.key is not None:  # every request to the token endpoint, refreshes too
            data = {**data, **self.client_assertion(server)}
        return await super()._token_request(
            server, http, registration, data, requested, granted, refresh_token
        )

    def client_assertion(self, server: _Server) -> dict[str, str]:
        """``private_key_jwt`` (RFC 7523 §2.2): a short-lived JWT naming this client."""
        assert self.key is not None and self.client_id
        now = int(time.time())
        claims = {
            "iss": self.client_id,
            "sub": self.client_id,
            "aud": self.assertion_audience or server.authorization_server.issuer,
            "iat": now,
            "exp": now + ASSERTION_LIFETIME,
            "jti": secrets.token_urlsafe(16),
        }
        return {
            "client_assertion_type": CLIENT_ASSERTION_TYPE,
            "client_assertion": self.key.sign(claims),
        }

    async def _registration(self, server: _Server, http: Any) -> Registration:
        """This client as the token endpoint knows it; a machine never registers itself."""
        methods = server.authorization_server.auth_methods
        method = "none"
        if self.key is not None:
            method = "private_key_jwt"
        elif self.client_secret:
            post_only = "client_secret_post" in methods and "client_secret_basic" not in methods
            method = "client_secret_post" if post_only else "client_secret_basic"
        if method not in methods and method != "none":
            logger.info("%s does not list %s; using it anyway", server.issuer, method)
        return Registration(self.client_id or "", "", self.client_secret, method)


class ClientCredentials(MachineOAuth):
    """The client credentials grant (SEP-1046), for a program acting on its own behalf.

    ``ClientCredentials("id", client_secret="...")`` authenticates with the secret
    (HTTP Basic, or in the form where the server only offers ``client_secret_post``);
    ``ClientCredentials("id", private_key=pem_or_jwk, key_id="k1")`` with a signed JWT
    (``private_key_jwt``). ``scopes`` are asked for when the server's challenge names none.
    """

    grant_type = "client_credentials"

    def __init__(
        self,
        client_id: str,
        client_secret: str | None = None,
        *,
        private_key: str | bytes | Mapping[str, Any] | None = None,
        key_id: str | None = None,
        signing_algorithm: str | None = None,
        assertion_audience: str | None = None,
        scopes: Iterable[str] | str | None = None,
        storage: TokenStorage | None = None,
    ) -> None:
        if client_secret is None and private_key is None:
            raise ValueError("ClientCredentials needs client_secret= or private_key=")
        super().__init__(
            client_id,
            client_secret=client_secret,
            private_key=private_key,
            key_id=key_id,
            signing_algorithm=signing_algorithm,
            assertion_audience=assertion_audience,
            scopes=scopes,
            storage=storage,
        )

    async def grant(self, server: _Server, http: Any, scopes: tuple[str, ...]) -> dict[str, str]:
        return {"grant_type": "client_credentials"}


class WorkloadIdentity(MachineOAuth):
    """Workload identity federation (SEP-1933): the workload's own JWT, issued by its
    platform, presented with the jwt-bearer grant (RFC 7523 §2.1).

    ``token_file`` is read again for every grant (platforms rotate it in place);
    ``token`` is the JWT itself or a sync or async callable returning it. ``client_id``
    (with ``client_secret`` or ``private_key``) where the authorization server wants the
    client named or authenticated as well.
    """

    grant_type = JWT_BEARER

    def __init__(
        self,
        token_file: str | os.PathLike[str] | None = None,
        *,
        token: TokenSource | None = None,
        client_id: str | None = None,
        client_secret: str | None = None,
        private_key: str | bytes | Mapping[str, Any] | None = None,
        key_id: str | None = None,
        scopes: Iterable[str] | str | None = None,
        storage: TokenStorage | None = None,
    ) -> None:
        if (token_file is None) == (token is None):
            raise ValueError("WorkloadIdentity needs token_file= or token=, one of them")
        super().__init__(
            client_id,
            client_secret=client_secret,
            private_key=private_key,
            key_id=key_id,
            scopes=scopes,
            storage=storage,
        )
        self.token_file = Path(token_file) if token_file is not None else None
        self._token = token

    async def assertion(self) -> str:
        """The workload's JWT as it is now."""
        if self.token_file is not None:
            path = self.token_file
            try:
                text = await asyncio.to_thread(path.read_text, encoding="utf-8")
            except OSError as exc:
                raise ClientError(
                    f"Cannot read the workload identity token file {path}: {exc.strerror}"
                ) from None
            return await _token_from(text, f"workload identity token in {path}")
        assert self._token is not None
        return await _token_from(self._token, "workload identity token")

    async def grant(self, server: _Server, http: Any, scopes: tuple[str, ...]) -> dict[str, str]:
        return {"grant_type": JWT_BEARER, "assertion": await self.assertion()}


class EnterpriseAuthorization(MachineOAuth):
    """Enterprise-managed authorization (SEP-990): single sign-on through the enterprise's
    identity provider, with no consent screen at the MCP server's authorization server.

    ``id_token`` (the user's OpenID Connect ID token from the identity provider: the token,
    or a sync or async callable returning a current one) is exchanged at
    ``idp_token_endpoint`` (RFC 8693 token exchange, as ``idp_client_id`` with
    ``idp_client_secret`` if the identity provider wants one) for an ID-JAG whose audience is
    the MCP server's authorization server and whose resource is the MCP server; the ID-JAG
    is then presented there with the jwt-bearer grant, as ``client_id`` authenticated with
    ``client_secret`` or ``private_key``.
    """

    grant_type = JWT_BEARER

    def __init__(
        self,
        idp_token_endpoint: str,
        id_token: TokenSource,
        client_id: str,
        client_secret: str | None = None,
        *,
        private_key: str | bytes | Mapping[str, Any] | None = None,
        key_id: str | None = None,
        idp_client_id: str | None = None,
        idp_client_secret: str | None = None,
        scopes: Iterable[str] | str | None = None,
        storage: TokenStorage | None = None,
    ) -> None:
        super().__init__(
            client_id,
            client_secret=client_secret,
            private_key=private_key,
            key_id=key_id,
            scopes=scopes,
            storage=storage,
        )
        self.idp_token_endpoint = check_oauth_url(
            idp_token_endpoint, "identity provider token endpoint"
        )
        self._id_token = id_token
        self.idp = Registration(
            idp_client_id or "",
            "",
            idp_client_secret,
            "client_secret_basic" if idp_client_secret else "none",
        )

    async def id_jag(self, server: _Server, http: Any, scopes: tuple[str, ...]) -> str:
        """An ID-JAG for ``server``, from the identity provider (RFC 8693)."""
        exchange = {
            "grant_type": TOKEN_EXCHANGE,
            "requested_token_type": ID_JAG_TYPE,
            "audience": server.authorization_server.issuer,
            "resource": server.resource,
            "subject_token": await _token_from(self._id_token, "ID token"),
            "subject_token_type": ID_TOKEN_TYPE,
        }
        if scopes:
            exchange["scope"] = " ".join(scopes)
        logger.info("Exchanging the ID token at %s for an ID-JAG", self.idp_token_endpoint)
        answer = await request_tokens(
            http, self.idp_token_endpoint, self.idp, exchange, token_types=("n_a", "bearer")
        )
        if answer.get("issued_token_type") != ID_JAG_TYPE:
            raise ClientError(
                f"The identity provider {self.idp_token_endpoint} issued no ID-JAG "
                f"(issued_token_type {str(answer.get('issued_token_type'))[:100]!r})"
            )
        return str(answer["access_token"])

    async def grant(self, server: _Server, http: Any, scopes: tuple[str, ...]) -> dict[str, str]:
        return {"grant_type": JWT_BEARER, "assertion": await self.id_jag(server, http, scopes)}
