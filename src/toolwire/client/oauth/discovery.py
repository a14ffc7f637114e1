"""Finding who authorizes a protected MCP server, and checking what they publish.

The steps of the spec's discovery, each a small function:

* :func:`bearer_challenge` reads a ``WWW-Authenticate`` header (AU-07): the URL of the
  protected resource metadata, the scopes the server asks for, the error;
* :func:`discover_resource` fetches RFC 9728 metadata from the header's URL, else the
  path-inserted well-known URI, else the root one (AU-06), and checks it describes this
  server;
* :func:`discover_authorization_server` fetches RFC 8414 or OIDC metadata from the
  well-known URLs in the spec's order (AU-10), rejects a document naming another issuer
  (AU-11) and an authorization server without PKCE S256 (AU-29).

A server that publishes no protected resource metadata at all is a 2025-03-26 server: it is
its own authorization server (:func:`legacy_resource`, the origin of its URL), whose RFC 8414
metadata is at the origin's well-known URL or, without metadata, whose endpoints are the
default ``/authorize``, ``/token`` and ``/register`` there (``legacy=True``).

Every URL is checked before it is fetched or opened (SB-07, AU-28): https, or http on a
loopback address for local development; nothing else (no ``file:``, no ``javascript:``).
Redirects are not followed.
"""

from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from ...auth.verifiers import canonical_url
from ...errors import ClientError

JSON = dict[str, Any]

FETCH_TIMEOUT = 30.0
_TOKEN = r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+"
_NAME_AT = re.compile(rf"[\s,]*({_TOKEN})")
_PARAM_AT = re.compile(rf"({_TOKEN})\s*=\s*(\"(?:[^\"\\]|\\.)*\"|[^\s,]*)")
_ESCAPE = re.compile(r"\\(.)")


@dataclass(frozen=True)
class Challenge:
    """What a ``Bearer`` challenge says (RFC 6750 §3, RFC 9728 §5.1)."""

    resource_metadata: str | None = None
    scopes: tuple[str, ...] = ()
    error: str | None = None
    error_description: str | None = None

    def describe(self) -> str:
        if self.error is None:
            return "no token"
        return self.error + (f" ({self.error_description})" if self.error_description else "")


def parse_challenges(header: str) -> list[tuple[str, dict[str, str]]]:
    """Each challenge of a ``WWW-Authenticate`` value: its scheme and parameters."""
    challenges: list[tuple[str, dict[str, str]]] = []
    position = 0
    while position < len(header):
        name = _NAME_AT.match(header, position)
        if name is None:
            break
        param = _PARAM_AT.match(header, name.start(1))
        if param is not None and challenges:
            value = param.group(2)
            if value.startswith('"'):
                value = _ESCAPE.sub(r"\1", value[1:-1])
            challenges[-1][1][param.group(1).lower()] = value
            position = param.end()
            continue
        challenges.append((name.group(1), {}))
        position = name.end()
    return challenges


def bearer_challenge(header: str | None) -> Challenge:
    """The ``Bearer`` (or ``DPoP``, RFC 9449 §7.1) challenge of a ``WWW-Authenticate``
    header (empty if there is none)."""
    for scheme, params in parse_challenges(header or ""):
        if scheme.lower() in ("bearer", "dpop"):
            return Challenge(
                resource_metadata=params.get("resource_metadata") or None,
                scopes=tuple(params.get("scope", "").split()),
                error=params.get("error") or None,
                error_description=params.get("error_description") or None,
            )
    return Challenge()


def is_loopback(host: str | None) -> bool:
    if not host:
        return False
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def check_oauth_url(url: Any, what: str) -> str:
    """``url`` if it may be used for OAuth: https, or http on a loopback address."""
    if not isinstance(url, str):
        raise ClientError(f"The {what} is not a URL: {url!r}")
    try:
        parts = urlsplit(url)
        host = parts.hostname
    except ValueError:
        raise ClientError(f"The {what} is not a valid URL: {url!r}") from None
    if parts.scheme == "https" and host:
        return url
    if parts.scheme == "http" and is_loopback(host):
        return url
    raise ClientError(
        f"Refusing the {what} {url[:200]!r}: OAuth URLs must use https "
        "(or http on a loopback address)"
    )


def resource_covers(resource: str, server_url: str) -> bool:
    """True when metadata for ``resource`` may describe ``server_url``: the same origin, and
    the same path or a parent of it."""
    ours, theirs = urlsplit(canonical_url(server_url)), urlsplit(canonical_url(resource))
    if (ours.scheme, ours.netloc) != (theirs.scheme, theirs.netloc):
        return False
    return ours.path == theirs.path or ours.path.startswith(theirs.path + "/")


def resource_metadata_urls(server_url: str, header_url: str | None) -> list[str]:
    """Where to look for the protected resource metadata, in order (AU-06)."""
    if header_url:
        return [header_url]
    parts = urlsplit(server_url)
    origin = f"{parts.scheme}://{parts.netloc}"
    path = parts.path.rstrip("/")
    root = f"{origin}/.well-known/oauth-protected-resource"
    return [root + path, root] if path else [root]


def authorization_server_metadata_urls(issuer: str) -> list[str]:
    """The RFC 8414 and OIDC well-known URLs of ``issuer``, in the spec's order (AU-10)."""
    parts = urlsplit(issuer)
    origin = f"{parts.scheme}://{parts.netloc}"
    path = parts.path.rstrip("/")
    if not path:
        return [
            f"{origin}/.well-known/oauth-authorization-server",
            f"{origin}/.well-known/openid-configuration",
        ]
    return [
        f"{origin}/.well-known/oauth-authorization-server{path}",
        f"{origin}/.well-known/openid-configuration{path}",
        f"{origin}{path}/.well-known/openid-configuration",
    ]


async def fetch_json(http: Any, url: str, what: str) -> JSON | None:
    """The JSON object at ``url``, or None when the server has none there (any non-200)."""
    check_oauth_url(url, what)
    try:
        response = await http.get(
            url, headers={"Accept": "application/json"}, timeout=FETCH_TIMEOUT
        )
    except Exception as exc:
        raise ClientError(f"Could not fetch the {what} from {url}: {exc}") from exc
    if response.status_code != 200:
        return None
    try:
        document = response.json()
    except ValueError:
        raise ClientError(f"The {what} at {url} is not JSON") from None
    if not isinstance(document, dict):
        raise ClientError(f"The {what} at {url} is not a JSON object")
    return document


class NoResourceMetadata(ClientError):
    """The server publishes no protected resource metadata (none of the URLs answered)."""


@dataclass(frozen=True)
class ResourceMetadata:
    """RFC 9728 metadata of a protected MCP server."""

    url: str  # where it was found ("" for a 2025-03-26 server, which has none)
    resource: str
    authorization_servers: tuple[str, ...]
    scopes_supported: tuple[str, ...] = ()


@dataclass(frozen=True)
class ServerMetadata:
    """What the client needs from RFC 8414 / OIDC metadata of an authorization server."""

    issuer: str
    authorization_endpoint: str
    token_endpoint: str
    registration_endpoint: str | None = None
    client_id_metadata_documents: bool = False
    iss_parameter: bool = False  # RFC 9207: the redirect always names the issuer
    auth_methods: tuple[str, ...] = ("client_secret_basic",)
    raw: JSON = field(default_factory=dict, repr=False, compare=False)


def _strings(value: Any) -> tuple[str, ...]:
    return tuple(v for v in value if isinstance(v, str)) if isinstance(value, list) else ()


async def discover_resource(http: Any, server_url: str, header_url: str | None) -> ResourceMetadata:
    """The protected resource metadata of ``server_url`` (AU-05, AU-06)."""
    urls = resource_metadata_urls(server_url, header_url)
    for url in urls:
        document = await fetch_json(http, url, "protected resource metadata")
        if document is None:
            continue
        resource = document.get("resource")
        if not isinstance(resource, str) or not resource_covers(resource, server_url):
            raise ClientError(
                f"The protected resource metadata at {url} describes {resource!r}, not {server_url}"
            )
        servers = _strings(document.get("authorization_servers"))
        if not servers:
            raise ClientError(
                f"The protected resource metadata at {url} names no authorization server"
            )
        return ResourceMetadata(url, resource, servers, _strings(document.get("scopes_supported")))
    raise NoResourceMetadata(
        f"{server_url} asks for authorization but publishes no protected resource metadata "
        f"(tried {', '.join(urls)})"
    )


def legacy_resource(server_url: str) -> ResourceMetadata:
    """What a 2025-03-26 server without protected resource metadata stands for: itself, and
    the origin of its URL as its authorization server (the "authorization base URL")."""
    parts = urlsplit(canonical_url(server_url))
    return ResourceMetadata("", canonical_url(server_url), (f"{parts.scheme}://{parts.netloc}",))


def legacy_endpoints(origin: str) -> ServerMetadata:
    """The default endpoints of a 2025-03-26 authorization server that has no metadata."""
    return ServerMetadata(
        issuer=origin,
        authorization_endpoint=f"{origin}/authorize",
        token_endpoint=f"{origin}/token",
        registration_endpoint=f"{origin}/register",
    )


async def discover_authorization_server(
    http: Any, issuer: str, *, legacy: bool = False, interactive: bool = True
) -> ServerMetadata:
    """The metadata of the authorization server ``issuer`` (AU-10, AU-11, AU-29); with
    ``legacy`` (a 2025-03-26 server's own origin), the default endpoints if it has none.
    Without ``interactive`` (the grants for machines, which never open an authorization
    endpoint) PKCE and an authorization endpoint are not required."""
    check_oauth_url(issuer, "authorization server")
    urls = authorization_server_metadata_urls(issuer)
    for url in urls:
        document = await fetch_json(http, url, "authorization server metadata")
        if document is None:
            continue
        if document.get("issuer") != issuer:
            raise ClientError(
                f"The authorization server metadata at {url} names the issuer "
                f"{document.get('issuer')!r}, not {issuer!r}: refusing it"
            )
        pkce = "S256" in _strings(document.get("code_challenge_methods_supported"))
        if interactive and not pkce:
            raise ClientError(
                f"The authorization server {issuer} does not offer PKCE with S256 "
                "(code_challenge_methods_supported): refusing to authorize with it"
            )
        authorize = document.get("authorization_endpoint")
        if interactive or authorize is not None:
            authorize = check_oauth_url(authorize, "authorization endpoint")
        token = check_oauth_url(document.get("token_endpoint"), "token endpoint")
        registration = document.get("registration_endpoint")
        if registration is not None:
            check_oauth_url(registration, "registration endpoint")
        methods = _strings(document.get("token_endpoint_auth_methods_supported"))
        return ServerMetadata(
            issuer=issuer,
            authorization_endpoint=authorize or "",
            token_endpoint=token,
            registration_endpoint=registration,
            client_id_metadata_documents=document.get("client_id_metadata_document_supported")
            is True,
            iss_parameter=document.get("authorization_response_iss_parameter_supported") is True,
            auth_methods=methods or ("client_secret_basic",),
            raw=document,
        )
    if legacy:
        return legacy_endpoints(issuer)
    raise ClientError(
        f"No authorization server metadata found for {issuer} (tried {', '.join(urls)})"
    )
