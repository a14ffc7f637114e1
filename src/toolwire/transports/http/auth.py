"""The HTTP side of authorization: the metadata document, bearer checks, session owners.

With a :class:`~toolwire.auth.ResourceServer` configured, the HTTP app

* serves the Protected Resource Metadata (RFC 9728) on GET at its well-known paths, to
  anyone (it is public, cacheable, and readable cross-origin: browser-based clients
  discover the authorization server with it);
* authenticates every POST, GET and DELETE on the MCP endpoint before reading a body —
  a session id is not a credential (SB-02);
* binds each legacy session to the caller that initialized it (SB-03): another caller
  presenting that session id is told the session does not exist.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import orjson

from ...auth.resource import AuthFailure, ResourceServer
from ...auth.tokens import AccessToken
from ..asgi import Send
from .guard import Rejection

METADATA_MAX_AGE = 3600


class MetadataDocument:
    """The PRM answer, serialized once."""

    def __init__(self, auth: ResourceServer) -> None:
        if not hasattr(auth, "metadata_paths"):  # a verifier given where the settings go
            raise TypeError(
                f"auth= takes a ResourceServer, not a {type(auth).__name__}: "
                "auth=ResourceServer('https://your.server/mcp', ['https://your.issuer'], verifier)"
            )
        self.paths = frozenset(auth.metadata_paths)
        self.body = orjson.dumps(auth.metadata())

    async def serve(self, method: str, send: Send) -> None:
        cors = [
            (b"access-control-allow-origin", b"*"),
            (b"access-control-allow-methods", b"GET, HEAD, OPTIONS"),
        ]
        if method == "OPTIONS":  # a CORS preflight
            headers = [*cors, (b"access-control-max-age", b"86400")]
            await send({"type": "http.response.start", "status": 204, "headers": headers})
            await send({"type": "http.response.body", "body": b""})
            return
        if method not in ("GET", "HEAD"):
            await Rejection(
                405, "Method Not Allowed", headers=[(b"allow", b"GET, HEAD, OPTIONS")]
            ).send(send)
            return
        headers = [
            (b"content-type", b"application/json"),
            (b"cache-control", f"public, max-age={METADATA_MAX_AGE}".encode()),
            *cors,
        ]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send({"type": "http.response.body", "body": b"" if method == "HEAD" else self.body})


async def authenticate(
    auth: ResourceServer,
    headers: dict[str, str],
    scope: Mapping[str, Any] | None = None,
    store: Any = None,
) -> AccessToken:
    """The caller, or a :class:`Rejection` carrying the challenge. Only the
    ``Authorization`` header counts: a token in the query string is never read (AU-17).
    With DPoP configured, the request's proofs, method and URL (from the ASGI ``scope``)
    and the session ``store`` go along."""
    try:
        if scope is None or getattr(auth, "dpop", None) is None:
            return await auth.authenticate(headers.get("authorization"))
        proofs = tuple(v.decode("latin-1") for k, v in scope.get("headers", ()) if k == b"dpop")
        return await auth.authenticate(
            headers.get("authorization"),
            method=scope.get("method", "POST"),
            proofs=proofs,
            urls=_request_urls(scope, headers),
            store=store,
        )
    except AuthFailure as failure:
        raise rejection(failure) from None


def _request_urls(scope: Mapping[str, Any], headers: dict[str, str]) -> tuple[str, ...]:
    """The URL a request was sent to, as its Host header and path say."""
    host = headers.get("host")
    if not host:
        return ()
    return (f"{scope.get('scheme', 'http')}://{host}{scope.get('path', '')}",)


def rejection(failure: AuthFailure) -> Rejection:
    body: dict[str, Any] = {"error": failure.error or "invalid_token"}
    if failure.description:
        body["error_description"] = failure.description
    headers = []
    if failure.www_authenticate is not None:
        headers.append((b"www-authenticate", failure.www_authenticate.encode("latin-1")))
    if failure.status == 503:
        headers.append((b"retry-after", b"5"))
    nonce = getattr(failure, "dpop_nonce", None)
    if nonce:
        headers.append((b"dpop-nonce", nonce.encode("ascii")))
    return Rejection(
        failure.status,
        failure.description,
        headers=headers,
        body=orjson.dumps(body),
        content_type=b"application/json",
    )


def owner_of(identity: Any) -> list[str | None]:
    """Who a legacy session belongs to: issuer, subject and client of its token (JSON, so
    the shared session store keeps it for every worker), and for a token that names
    neither subject nor client, the digest that tells it apart (``token_id``): two such
    tokens of one issuer never share a session."""
    owner = [
        getattr(identity, "issuer", None),
        getattr(identity, "subject", None),
        getattr(identity, "client_id", None),
    ]
    token_id = getattr(identity, "token_id", None)
    if token_id is not None:
        owner.append(token_id)
    return owner
