"""What the authorization tests share: a browser that approves, a protected files server.

:class:`Browser` stands for the person who approves in a browser: it follows the
authorization URL to the redirect the authorization server answers with and hands it back,
as the page a real browser lands on would. :func:`protected` serves a toolwire server behind
``toolwire.auth.ResourceServer`` with a ``JWTVerifier`` for the test authorization server's
tokens.
"""

from __future__ import annotations

import asyncio
import ssl
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import httpx

from toolwire import Context, Server
from toolwire.auth import JWTVerifier, ResourceServer

from oauth_machine_server import IdentityProvider
from oauth_server import OAuthServer, Recorder, serve_asgi, serve_protected

LEGACY = "2025-11-25"
MODERN = "2026-07-28"
BOTH_ERAS = [LEGACY, MODERN]
TIMEOUT = 10.0
READ, WRITE = "files:read", "files:write"
TLS = ssl.create_default_context()  # made once: every test talks plain HTTP on loopback


class Browser:
    """A person who approves at once: follows the authorization URL to the redirect the
    authorization server answers with, and returns it (``tamper`` may change it first)."""

    def __init__(self, tamper: Callable[[str], str] | None = None) -> None:
        self.urls: list[str] = []
        self.tamper = tamper

    async def __call__(self, url: str) -> str:
        self.urls.append(url)
        async with httpx.AsyncClient(verify=TLS) as http:
            response = await asyncio.wait_for(http.get(url), TIMEOUT)
        assert response.status_code == 302, response.text
        location = response.headers["location"]
        return self.tamper(location) if self.tamper else location


def files_server() -> Server:
    mcp = Server("files")

    @mcp.tool(annotations={"readOnlyHint": True})
    def whoami(ctx: Context) -> str:
        """Who is calling, with which scopes."""
        token = ctx.access_token
        assert token is not None
        return f"{token.subject} {token.client_id} {' '.join(sorted(token.scopes))}"

    @mcp.tool(scopes=[WRITE])
    def write_file(path: str, text: str) -> str:
        """Write a file."""
        return f"wrote {len(text)} characters to {path}"

    return mcp


def resource_server(url: str, issuer: str, verifier: Any, *required: str) -> ResourceServer:
    return ResourceServer(
        url,
        [issuer],
        verifier,
        scopes_supported=[READ, WRITE],
        required_scopes=list(required) or [READ],
    )


@contextmanager
def protected(auth_server: OAuthServer, *required: str) -> Iterator[Recorder]:
    """The files server behind a JWT-checking resource server, for ``auth_server``'s tokens."""

    def build(url: str) -> Any:
        verifier = JWTVerifier(
            issuer=auth_server.issuer, audience=url, jwks_url=f"{auth_server.base}/jwks"
        )
        return files_server().http_app(
            "/mcp", auth=resource_server(url, auth_server.issuer, verifier, *required)
        )

    with serve_protected(build) as recorder:
        yield recorder


def tool_names(tools: list[dict[str, Any]]) -> set[str]:
    return {tool["name"] for tool in tools}


@contextmanager
def identity_provider(auth_server: OAuthServer) -> Iterator[IdentityProvider]:
    """An enterprise identity provider on 127.0.0.1 whose client ``idp-agent`` is ``agent``
    at ``auth_server``, which accepts the ID-JAGs it issues."""
    from joserfc.jwk import ECKey

    idp = IdentityProvider({"idp-agent": "agent"})
    with serve_asgi(idp) as base:
        idp.base = base
        auth_server.federate(
            idp.issuer, ECKey.import_key(idp.key.as_dict(private=False)), id_jag=True
        )
        yield idp
