"""OAuth 2.1 for the client side of a protected MCP server.

::

    async with Client("https://mcp.example.com/mcp", auth=OAuth(client_name="My app")) as c:
        await c.list_tools()        # the first 401 starts the authorization

    Client(url, auth="a-token")     # a fixed bearer token, no flow

The HTTP transport drives :class:`OAuth` through two calls: :meth:`OAuth.header` before each
request (the ``Authorization: Bearer`` value, refreshed first when the token has expired),
and :meth:`OAuth.challenge` when the server answers 401 or 403. On a 401 the client
discovers the authorization server from the server's protected resource metadata
(:mod:`.discovery`; read again whenever a token is refused, so a server that moved to
another authorization server is followed there, AU-13; a server without any is a 2025-03-26
server, authorized by its own origin), gets a client id (pre-registered, a client ID metadata document
URL, or dynamic registration), and runs the authorization code flow with PKCE S256, a
random ``state``, and the RFC 8707 ``resource`` of the server in both the authorization and
the token request (AU-15). The authorization response is only redeemed once its ``state``
and ``iss`` are right (AU-30, AU-31). A rejected token is refreshed once, then authorized
again; a 403 ``insufficient_scope`` is answered by one new authorization with the union of
the scopes held and the scopes asked for (AU-25), never more.

``authorize`` is how a person approves: an async callable taking the authorization URL and
returning the URL the browser was redirected to. The default opens the system browser and
receives the redirect on ``redirect_uri``, a loopback address (:mod:`.browser`).
Tokens are never logged.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import logging
import secrets
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from ...auth.verifiers import canonical_url
from ...errors import ClientError
from .browser import BrowserAuthorization
from .discovery import (
    Challenge,
    NoResourceMetadata,
    ResourceMetadata,
    ServerMetadata,
    bearer_challenge,
    check_oauth_url,
    discover_authorization_server,
    discover_resource,
    legacy_resource,
)
from .dpop import DPoPKey
from .endpoints import register_client, request_tokens, tokens_from
from .storage import MemoryStorage, Registration, Tokens, TokenStorage

logger = logging.getLogger("toolwire.client")

JSON = dict[str, Any]
DEFAULT_REDIRECT_URI = "http://127.0.0.1:33418/callback"
Authorize = Callable[[str], Awaitable[str]]


@dataclass
class _Server:
    """What the client learned about one protected MCP server."""

    resource: str  # the RFC 8707 resource indicator
    metadata: ResourceMetadata
    issuer: str
    authorization_server: ServerMetadata
    tokens: Tokens | None = None
    registration: Registration | None = None
    fresh: str | None = None  # the access token obtained for the last challenge
    fresh_by_refresh: bool = False


def _bearer(tokens: Tokens | None) -> str | None:
    """The ``Authorization`` value of ``tokens``: ``Bearer``, or ``DPoP`` for a bound token."""
    if tokens is None:
        return None
    return f"{'DPoP' if tokens.token_type == 'DPoP' else 'Bearer'} {tokens.access_token}"


def _union(*groups: Iterable[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(scope for group in groups for scope in group))


def _with_query(url: str, params: dict[str, str]) -> str:
    parts = urlsplit(url)
    query = "&".join(q for q in (parts.query, urlencode(params)) if q)
    return urlunsplit((parts.scheme, parts.netloc, parts.path, query, ""))


class OAuth:
    """Authorization for ``Client(url, auth=OAuth(...))``.

    ``client_id`` (and ``client_secret``) for a client registered beforehand;
    ``client_metadata_url``, the https URL of this client's metadata document, used where the
    authorization server supports them; otherwise the client registers itself dynamically as
    ``client_name``. ``scopes`` are asked for when the server's challenge names none (then
    its ``scopes_supported``). ``storage`` keeps tokens and registrations
    (:class:`~toolwire.client.oauth.storage.MemoryStorage` by default).

    ``dpop=True`` (a new ES256 key) or ``dpop=DPoPKey(private_key)`` asks for access tokens
    bound to that key (RFC 9449, :mod:`.dpop`) wherever the authorization server supports
    DPoP; a server whose metadata does not list ``dpop_signing_alg_values_supported``
    issues bearer tokens as before.

    Programs with nobody to approve use the grants for machines instead
    (:mod:`.machine`): :class:`~toolwire.client.ClientCredentials`,
    :class:`~toolwire.client.WorkloadIdentity`, :class:`~toolwire.client.EnterpriseAuthorization`.
    """

    interactive = True  # False: a grant for machines (no authorization endpoint, no PKCE)

    def __init__(
        self,
        client_id: str | None = None,
        client_secret: str | None = None,
        client_metadata_url: str | None = None,
        client_name: str = "toolwire",
        redirect_uri: str = DEFAULT_REDIRECT_URI,
        scopes: Iterable[str] | str | None = None,
        authorize: Authorize | None = None,
        storage: TokenStorage | None = None,
        dpop: bool | DPoPKey = False,
    ) -> None:
        if client_metadata_url is not None:
            check_oauth_url(client_metadata_url, "client metadata document URL")
        self.client_id = client_id
        self.client_secret = client_secret
        self.client_metadata_url = client_metadata_url
        self.client_name = client_name
        self.redirect_uri = redirect_uri
        self.scopes = tuple(scopes.split() if isinstance(scopes, str) else scopes or ())
        self.authorize: Authorize = authorize or BrowserAuthorization(redirect_uri)
        self.storage: TokenStorage = storage if storage is not None else MemoryStorage()
        self.dpop: DPoPKey | None = DPoPKey() if dpop is True else (dpop or None)
        self._servers: dict[str, _Server] = {}
        self._lock = asyncio.Lock()

    # ------------------------------------------------------------ the transport's calls

    async def header(self, url: str, http: Any) -> str | None:
        """The ``Authorization`` value for a request to ``url`` (None before the first 401)."""
        server = self._servers.get(canonical_url(url))
        if server is None or server.tokens is None:
            return None
        if server.tokens.expired() and server.tokens.refresh_token:
            async with self._lock:
                tokens = server.tokens
                if tokens is not None and tokens.expired() and tokens.refresh_token:
                    try:
                        await self._refresh(server, http)
                    except ClientError as exc:  # the server's 401 will start a new flow
                        logger.info("Refreshing the access token failed: %s", exc)
        return _bearer(server.tokens)

    async def challenge(
        self,
        url: str,
        http: Any,
        status: int,
        www_authenticate: str | None,
        sent: str | None,
        attempt: int,
    ) -> bool:
        """React to a 401 or 403 for a request sent with ``sent``; True: send it again.

        ``attempt`` counts the earlier retries of the same request. Raises
        :class:`ClientError` when the authorization cannot be done.
        """
        found = bearer_challenge(www_authenticate)
        async with self._lock:
            server = self._servers.get(canonical_url(url))
            if server is not None and server.tokens is not None and sent != _bearer(server.tokens):
                return True  # the token changed while this request was out: use the new one
            if status == 403:
                return await self._step_up(url, server, http, found)
            if status != 401:
                return False
            return await self._renew(url, server, http, found, sent, attempt)

    # ------------------------------------------------------------ reacting to challenges

    async def _renew(
        self,
        url: str,
        server: _Server | None,
        http: Any,
        found: Challenge,
        sent: str | None,
        attempt: int,
    ) -> bool:
        if (
            server is None
            or sent is not None
            or (found.resource_metadata and found.resource_metadata != server.metadata.url)
        ):
            # A refused token may mean the server moved to another authorization server:
            # its metadata is read again, and a new issuer starts afresh (AU-13).
            known, server = server, await self._discover(url, http, found, server)
            stored = None
            if server is not known:
                stored = await self.storage.load_tokens(server.issuer, server.resource)
            if stored is not None and _bearer(stored) != sent:
                server.tokens = stored
                if not stored.expired():
                    return True
        tokens = server.tokens
        rejected_fresh = (
            tokens is not None
            and sent == _bearer(tokens)
            and attempt > 0
            and server.fresh == tokens.access_token
        )
        if rejected_fresh and not server.fresh_by_refresh:
            raise ClientError(
                f"{url} rejected the access token {server.issuer} has just issued: "
                f"{found.describe()}"
            )
        if tokens is not None and tokens.refresh_token and not rejected_fresh:
            try:
                await self._refresh(server, http)
                return True
            except ClientError as exc:
                logger.info("Refreshing the access token failed, authorizing again: %s", exc)
        scopes = found.scopes or self.scopes or server.metadata.scopes_supported
        await self._authorize(server, http, scopes)
        return True

    async def _step_up(self, url: str, server: _Server | None, http: Any, found: Challenge) -> bool:
        if found.error != "insufficient_scope" or not found.scopes:
            return False
        if server is None or server.tokens is None:
            return False
        held = server.tokens.requested or server.tokens.scopes
        if set(found.scopes) <= set(held):
            logger.warning(
                "%s still asks for %s after they were requested; not authorizing again",
                url,
                " ".join(found.scopes),
            )
            return False
        logger.info("%s needs the scopes %s: authorizing again", url, " ".join(found.scopes))
        await self._authorize(server, http, _union(held, server.tokens.scopes, found.scopes))
        return True

    async def _discover(
        self, url: str, http: Any, found: Challenge, known: _Server | None = None
    ) -> _Server:
        """Who authorizes ``url`` now: ``known`` if its issuer and resource are unchanged."""
        where = found.resource_metadata or (known.metadata.url if known is not None else None)
        try:
            metadata = await discover_resource(http, url, where or None)
        except NoResourceMetadata:
            if where:
                raise
            metadata = legacy_resource(url)  # a 2025-03-26 server: its own origin authorizes
        issuer = metadata.authorization_servers[0]
        if known is not None and (known.issuer, known.resource) == (issuer, metadata.resource):
            known.metadata = metadata
            return known
        if known is not None:
            logger.info("%s is now authorized by %s (was %s)", url, issuer, known.issuer)
        authorization_server = await discover_authorization_server(
            http, issuer, legacy=not metadata.url, interactive=self.interactive
        )
        server = _Server(metadata.resource, metadata, issuer, authorization_server)
        self._servers[canonical_url(url)] = server
        return server

    # ------------------------------------------------------------ the flow

    async def _authorize(self, server: _Server, http: Any, scopes: Iterable[str]) -> None:
        """The authorization code flow with PKCE S256; keeps the tokens it gets."""
        scopes = tuple(scopes)
        meta = server.authorization_server
        self._dpop_for(server)  # a key the server cannot take fails before the person is asked
        registration = await self._registration(server, http)
        verifier = secrets.token_urlsafe(64)
        digest = hashlib.sha256(verifier.encode("ascii")).digest()
        state = secrets.token_urlsafe(32)
        params = {
            "response_type": "code",
            "client_id": registration.client_id,
            "redirect_uri": registration.redirect_uri,
            "code_challenge": base64.urlsafe_b64encode(digest).rstrip(b"=").decode("ascii"),
            "code_challenge_method": "S256",
            "state": state,
            "resource": server.resource,
        }
        if scopes:
            params["scope"] = " ".join(scopes)
        logger.info("Authorizing with %s for %s", server.issuer, server.resource)
        try:
            callback = await self.authorize(_with_query(meta.authorization_endpoint, params))
        except ClientError:
            raise
        except Exception as exc:
            raise ClientError(
                f"The authorization with {server.issuer} did not complete: {exc}"
            ) from exc
        code = self._code_from(callback, state, meta)
        grant = {
            "grant_type": "authorization_code",
            "code": code,
            "redirect_uri": registration.redirect_uri,
            "code_verifier": verifier,
            "resource": server.resource,
        }
        tokens = await self._token_request(server, http, registration, grant, scopes, scopes)
        server.fresh, server.fresh_by_refresh = tokens.access_token, False

    @staticmethod
    def _code_from(callback: str, state: str, meta: ServerMetadata) -> str:
        """The code of an authorization response, once its ``state`` and ``iss`` are right."""
        params = dict(parse_qsl(urlsplit(str(callback)).query, keep_blank_values=True))
        if not secrets.compare_digest(params.get("state", "").encode(), state.encode()):
            raise ClientError("The authorization response does not carry the state sent: refused")
        iss = params.get("iss")
        if (iss is not None and iss != meta.issuer) or (iss is None and meta.iss_parameter):
            raise ClientError(
                f"The authorization response names the issuer {iss!r}, not {meta.issuer!r}: refused"
            )
        if "error" in params:
            detail = params.get("error_description")
            raise ClientError(
                f"{meta.issuer} refused the authorization: {params['error']}"
                + (f" ({detail})" if detail else "")
            )
        code = params.get("code")
        if not code:
            raise ClientError("The authorization response carries no code")
        return code

    async def _refresh(self, server: _Server, http: Any) -> None:
        tokens = server.tokens
        if tokens is None or not tokens.refresh_token:
            raise ClientError("No refresh token")
        registration = await self._registration(server, http)
        grant = {
            "grant_type": "refresh_token",
            "refresh_token": tokens.refresh_token,
            "resource": server.resource,
        }
        fresh = await self._token_request(
            server, http, registration, grant, tokens.requested, tokens.scopes, tokens.refresh_token
        )
        server.fresh, server.fresh_by_refresh = fresh.access_token, True

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
        endpoint = server.authorization_server.token_endpoint
        answer = await request_tokens(http, endpoint, registration, data, self._dpop_for(server))
        tokens = tokens_from(answer, requested, granted, refresh_token)
        server.tokens = tokens
        await self.storage.save_tokens(server.issuer, server.resource, tokens)
        return tokens

    def _dpop_for(self, server: _Server) -> DPoPKey | None:
        """The DPoP key to bind tokens of ``server``'s authorization server to, if any."""
        if self.dpop is None:
            return None
        algorithms = server.authorization_server.raw.get("dpop_signing_alg_values_supported")
        if algorithms is None:
            logger.info("%s does not support DPoP: using bearer tokens", server.issuer)
            return None
        if not self.dpop.supported_by(algorithms):
            raise ClientError(
                f"{server.issuer} does not accept DPoP proofs signed with {self.dpop.alg} "
                f"(it accepts {algorithms!r}): give OAuth(dpop=DPoPKey(key)) a key it accepts"
            )
        return self.dpop

    # ------------------------------------------------------------ the client's identity

    async def _registration(self, server: _Server, http: Any) -> Registration:
        """Who this client is at ``server``'s authorization server (AU-12, AU-13)."""
        meta = server.authorization_server
        if self.client_id is not None:
            method = "none"
            if self.client_secret:
                basic = "client_secret_basic" in meta.auth_methods
                method = "client_secret_basic" if basic else "client_secret_post"
            return Registration(self.client_id, self.redirect_uri, self.client_secret, method)
        if server.registration is not None:
            return server.registration
        if self.client_metadata_url is not None and meta.client_id_metadata_documents:
            server.registration = Registration(self.client_metadata_url, self.redirect_uri)
            return server.registration
        stored = await self.storage.load_registration(server.issuer)
        if stored is not None and stored.redirect_uri == self.redirect_uri:
            server.registration = stored
            return stored
        if meta.registration_endpoint is None:
            raise ClientError(
                f"{server.issuer} offers no way for this client to get a client id: pass "
                "client_id="
                + (", or client_metadata_url=" if meta.client_id_metadata_documents else "")
            )
        server.registration = await register_client(
            http, meta.registration_endpoint, self.client_name, self.redirect_uri
        )
        await self.storage.save_registration(server.issuer, server.registration)
        return server.registration
