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
    ) -> None:
        super().__init__(f"{status} {error or ''} {description}".strip())
        self.status = status
        self.www_authenticate = www_authenticate
        self.error = error
        self.description = description


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
        origin = f"{parts.scheme.lower()}://{parts.netloc.lower()}"
        path = parts.path.rstrip("/")
        inserted = WELL_KNOWN + path  # RFC 9728 §3.1: between the host and the path
        self.metadata_url: str | None = None
        self.metadata_paths: tuple[str, ...] = ()
        if self.authorization_servers:
            self.metadata_url = origin + inserted
            self.metadata_paths = (inserted,) if not path else (inserted, WELL_KNOWN)
        self._needed = " ".join(s for s in self.required_scopes if s != "offline_access")
        self._missing_challenge = self.challenge(scope=self._needed or None)

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
        return "Bearer " + ", ".join(params) if params else "Bearer"

    async def authenticate(self, authorization: str | None) -> AccessToken:
        """The caller behind an ``Authorization`` header value, or :class:`AuthFailure`."""
        if authorization is None:
            raise AuthFailure(401, self._missing_challenge, None, "An access token is required")
        scheme, _, token = authorization.strip().partition(" ")
        if scheme.lower() != "bearer":  # other credentials are no bearer token at all
            raise AuthFailure(401, self._missing_challenge, None, "A Bearer token is required")
        token = token.strip()
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
