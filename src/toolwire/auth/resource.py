"""toolwire as an OAuth 2.1 resource server (AU-02): who may call, and how to tell a
client that it may not.

A :class:`ResourceServer` holds what the server says about itself (its RFC 9728 Protected
Resource Metadata: the canonical resource URL and the authorization servers that issue
tokens for it) and how it checks a bearer token (a :class:`TokenVerifier`). Give it to
``Server(name, auth=...)``; the HTTP transport then serves the metadata and authenticates
every request on the MCP endpoint::

    auth = ResourceServer(
        "https://mcp.example.com/mcp",
        ["https://auth.example.com"],
        JWTVerifier(issuer="https://auth.example.com", audience="https://mcp.example.com/mcp",
                    jwks_url="https://auth.example.com/.well-known/jwks.json"),
        scopes_supported=["mcp", "files:read", "files:write"],
        required_scopes=["mcp"],
    )

Answers (AU-18, AU-23, AU-24; RFC 6750 §3):

* no ``Authorization: Bearer`` header: **401** with ``WWW-Authenticate: Bearer
  resource_metadata="<PRM URL>"`` and ``scope="<required scopes>"`` when there are any
  (AU-04, AU-08); no ``error``, as RFC 6750 asks when no credentials were sent;
* a token that does not verify (garbled, expired, another issuer or audience, bad
  signature): **401** with ``error="invalid_token"`` as well;
* a Bearer header that is not a token at all (empty, spaces inside): **400** with
  ``error="invalid_request"``: a malformed request (AU-23, RFC 6750 §3.1);
* a token that lacks ``required_scopes``: **403** with ``error="insufficient_scope"`` and
  every scope the endpoint needs (AU-24; scope hierarchies count, AU-26);
* a verifier that cannot reach what it depends on (JWKS or introspection endpoint down):
  **503** — the token may be fine, so the client should retry rather than discard it.

Only the ``Authorization`` header is read; a token in the query string is never looked at
(AU-17). ``offline_access`` is never advertised nor challenged for (AU-27).
"""

from __future__ import annotations

import dataclasses
import logging
import re
from collections.abc import Iterable, Mapping
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from ..errors import ToolwireError
from .dpop import DPoPFailure, DPoPVerifier
from .tokens import AccessToken, covers
from .verifiers import InvalidToken, TokenVerifier, VerifierUnavailable, token_digest

logger = logging.getLogger("toolwire.auth")

WELL_KNOWN = "/.well-known/oauth-protected-resource"
TOKEN68 = re.compile(r"[A-Za-z0-9\-._~+/]+=*")
SCOPE_TOKEN = re.compile(r"[\x21\x23-\x5B\x5D-\x7E]+")  # RFC 6749 scope-token
NOT_QUOTABLE = re.compile(r"[^\x20\x21\x23-\x5B\x5D-\x7E]")  # RFC 6750 error_description


class AuthFailure(ToolwireError):
    """An HTTP answer refusing a request: ``status`` and, for 400/401/403, the
    ``WWW-Authenticate`` header value."""

    def __init__(
        self,
        status: int,
        www_authenticate: str | None,
        error: str | None = None,
        description: str = "",
        dpop_nonce: str | None = None,
    ) -> None:
        super().__init__(f"{status} {error or ''} {description}".strip())
        self.status = status
        self.www_authenticate = www_authenticate
        self.error = error
        self.description = description
        self.dpop_nonce = dpop_nonce  # the DPoP-Nonce header of a use_dpop_nonce answer


class ResourceServer:
    """The authorization settings of one protected MCP endpoint (see the module doc)."""

    def __init__(
        self,
        resource: str,
        authorization_servers: Iterable[str],
        verifier: TokenVerifier,
        *,
        scopes_supported: Iterable[str] = (),
        required_scopes: Iterable[str] = (),
        scope_hierarchy: Mapping[str, Iterable[str]] | None = None,
        resource_name: str | None = None,
        resource_documentation: str | None = None,
        dpop: DPoPVerifier | None = None,
    ) -> None:
        parts = urlsplit(resource)
        if (
            parts.scheme.lower() not in ("http", "https")
            or not parts.netloc
            or parts.fragment
            or not resource.isascii()
        ):
            raise ValueError(
                f"resource must be an absolute http(s) URL without fragment: {resource!r}"
            )
        # AU-03 asks OAuth deployments to name at least one; with none (pre-shared tokens,
        # no OAuth at all) no metadata is published and challenges point nowhere.
        self.authorization_servers = [str(a) for a in authorization_servers]
        self.resource = urlunsplit(
            (parts.scheme.lower(), parts.netloc.lower(), parts.path, parts.query, "")
        )
        self.verifier = verifier
        self.required_scopes = _scopes(required_scopes)
        self.scopes_supported = [s for s in _scopes(scopes_supported) if s != "offline_access"]
        self.scope_hierarchy: dict[str, tuple[str, ...]] | None = (
            {parent: tuple(children) for parent, children in scope_hierarchy.items()}
            if scope_hierarchy
            else None
        )
        self.resource_name = resource_name
        self.resource_documentation = resource_documentation
        self.dpop = dpop  # DPoP-bound tokens (RFC 9449): toolwire.auth.dpop
        origin = f"{parts.scheme.lower()}://{parts.netloc.lower()}"
        path = parts.path.rstrip("/")
        inserted = WELL_KNOWN + path  # RFC 9728 §3.1: between the host and the path
        self.metadata_url: str | None = None
        self.metadata_paths: tuple[str, ...] = ()
        if self.authorization_servers:
            self.metadata_url = origin + inserted
            self.metadata_paths = (inserted,) if not path else (inserted, WELL_KNOWN)
        self._needed = " ".join(s for s in self.required_scopes if s != "offline_access")

    @property
    def _missing_challenge(self) -> str:
        """The challenge of a request without (usable) credentials."""
        return self.challenge(scope=self._needed or None)

    def metadata(self) -> dict[str, Any]:
        """The RFC 9728 Protected Resource Metadata document (AU-03)."""
        document: dict[str, Any] = {
            "resource": self.resource,
            "authorization_servers": list(self.authorization_servers),
            "bearer_methods_supported": ["header"],
        }
        if self.scopes_supported:
            document["scopes_supported"] = list(self.scopes_supported)
        if self.resource_name:
            document["resource_name"] = self.resource_name
        if self.resource_documentation:
            document["resource_documentation"] = self.resource_documentation
        if self.dpop is not None:
            document.update(self.dpop.metadata())
        return document

    def challenge(
        self, error: str | None = None, description: str | None = None, scope: str | None = None
    ) -> str:
        """A ``WWW-Authenticate`` value: ``Bearer error=..., scope=..., resource_metadata=...``."""
        params = []
        if error:
            params.append(f'error="{error}"')
        if scope:
            params.append(f'scope="{scope}"')
        if self.metadata_url is not None:
            params.append(f'resource_metadata="{self.metadata_url}"')
        if description:
            params.append(f'error_description="{NOT_QUOTABLE.sub("", description)}"')
        bearer = "Bearer " + ", ".join(params) if params else "Bearer"
        if self.dpop is None:
            return bearer
        dpop = "DPoP " + self.dpop.challenge(
            None if error == "invalid_token" else error  # no dpop error when the token is bad
        )
        if self.metadata_url is not None:
            dpop += f', resource_metadata="{self.metadata_url}"'
        return dpop if self.dpop.required else f"{bearer}, {dpop}"

    def dpop_challenge(self, error: str, description: str) -> str:
        """A ``DPoP`` challenge for a refused proof."""
        assert self.dpop is not None
        value = "DPoP " + self.dpop.challenge(error, NOT_QUOTABLE.sub("", description))
        if self.metadata_url is not None:
            value += f', resource_metadata="{self.metadata_url}"'
        return value

    async def authenticate(
        self,
        authorization: str | None,
        *,
        method: str = "POST",
        proofs: tuple[str, ...] = (),
        urls: tuple[str, ...] = (),
        store: Any = None,
    ) -> AccessToken:
        """The caller behind an ``Authorization`` header value, or :class:`AuthFailure`.

        With ``dpop`` configured, a ``DPoP`` token is checked with the request's ``method``,
        its ``DPoP`` header values (``proofs``), the ``urls`` it was sent to (besides the
        resource URL) and the session ``store`` (the replay cache)."""
        if authorization is None:
            raise AuthFailure(401, self._missing_challenge, None, "An access token is required")
        scheme, _, token = authorization.strip().partition(" ")
        kind = scheme.lower()
        if kind == "dpop" and self.dpop is not None:
            caller = await self._verified(token.strip())
            await self._check_proof(caller, token.strip(), method, proofs, urls, store)
            return self._checked(caller, token.strip())
        if kind != "bearer" or (self.dpop is not None and self.dpop.required):
            raise AuthFailure(401, self._missing_challenge, None, "A Bearer token is required")
        caller = await self._verified(token.strip())
        if _bound_key(caller) is not None:  # RFC 9449 §7.2: a bound token needs its proof
            description = "The access token is bound to a DPoP key: present it with DPoP"
            raise AuthFailure(
                401,
                self.challenge("invalid_token", description, self._needed or None),
                "invalid_token",
                description,
            )
        return self._checked(caller, token.strip())

    async def _check_proof(
        self,
        caller: AccessToken,
        token: str,
        method: str,
        proofs: tuple[str, ...],
        urls: tuple[str, ...],
        store: Any,
    ) -> None:

        assert self.dpop is not None
        jkt = _bound_key(caller)
        if jkt is None:
            description = "The access token is not bound to a DPoP key"
            raise AuthFailure(
                401,
                self.challenge("invalid_token", description, self._needed or None),
                "invalid_token",
                description,
            )
        try:
            await self.dpop.check(proofs, method, (self.resource, *urls), token, jkt, store)
        except DPoPFailure as failure:
            logger.debug("Refused a DPoP proof: %s", failure.description)
            raise AuthFailure(
                401,
                self.dpop_challenge(failure.error, failure.description),
                failure.error,
                failure.description,
                failure.nonce,
            ) from None

    async def _verified(self, token: str) -> AccessToken:
        """The verifier's reading of ``token``, or :class:`AuthFailure`."""
        if not TOKEN68.fullmatch(token):
            description = "The Authorization header does not hold a bearer token"
            raise AuthFailure(
                400, self.challenge("invalid_request", description), "invalid_request", description
            )
        try:
            caller = await self.verifier.verify(token)
        except InvalidToken as exc:
            logger.debug("Refused an access token: %s", exc.description)
            raise AuthFailure(
                401,
                self.challenge("invalid_token", exc.description, self._needed or None),
                "invalid_token",
                exc.description,
            ) from None
        except VerifierUnavailable as exc:
            raise AuthFailure(503, None, "temporarily_unavailable", str(exc)) from None
        except Exception:  # a verifier's own bug must not leak out, nor let anyone in
            logger.exception("The token verifier failed")
            raise AuthFailure(
                503, None, "temporarily_unavailable", "The access token could not be checked"
            ) from None
        return caller

    def _checked(self, caller: AccessToken, token: str) -> AccessToken:
        """``caller`` once its scopes are enough; a token naming nobody gets its digest."""
        if self.required_scopes and not covers(
            caller.scopes, self.required_scopes, self.scope_hierarchy
        ):
            description = "The access token lacks a scope this server requires"
            raise AuthFailure(
                403,
                self.challenge("insufficient_scope", description, self._needed or None),
                "insufficient_scope",
                description,
            )
        if (
            isinstance(caller, AccessToken)
            and not caller.subject
            and not caller.client_id
            and caller.token_id is None
        ):
            # A token that names nobody is its own caller, told apart by a digest (which
            # cannot be turned back into the token, AU-21): two such tokens never share a
            # session (SB-03), rate buckets or requestState.
            caller = dataclasses.replace(caller, token_id=token_digest(token).hex()[:32])
        return caller

    async def aclose(self) -> None:
        """Release what the verifier holds open (its HTTP client), if anything."""
        close = getattr(self.verifier, "aclose", None)
        if close is not None:
            await close()


def _bound_key(caller: Any) -> str | None:
    """The ``cnf.jkt`` of a verified token: the thumbprint of the key it is bound to."""
    claims = getattr(caller, "claims", None)
    cnf = claims.get("cnf") if isinstance(claims, Mapping) else None
    jkt = cnf.get("jkt") if isinstance(cnf, Mapping) else None
    return jkt if isinstance(jkt, str) else None


def _scopes(scopes: Iterable[str]) -> list[str]:
    if isinstance(scopes, str):
        scopes = scopes.split()
    result: list[str] = []
    for scope in scopes:
        if not SCOPE_TOKEN.fullmatch(scope):
            raise ValueError(f"Invalid scope {scope!r}")
        if scope not in result:
            result.append(scope)
    return result
