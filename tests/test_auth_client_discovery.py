"""Finding the authorization server again, and servers that publish no resource metadata.

Over real HTTP on 127.0.0.1, with the project's real authorization server
(``oauth_server.OAuthServer``) and ``Client(url, auth=OAuth(...))``; every MCP message is
checked against the negotiated revision's schema (``wire.checked_client``).

* A server that moves to another authorization server: the token it refuses sends the
  client back to its protected resource metadata, and the new issuer gets a registration
  of its own; nothing of the old one is offered to it (AU-13).
* A 2025-03-26 server, which publishes no protected resource metadata: its origin is its
  authorization server, with RFC 8414 metadata there, or else the default ``/authorize``,
  ``/token`` and ``/register`` endpoints.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from starlette.responses import Response

from toolwire import Server
from toolwire.auth import JWTVerifier
from toolwire.client.oauth.flow import OAuth
from toolwire.client.oauth.storage import MemoryStorage
from toolwire.errors import ClientError
from toolwire.transports.http.auth import MetadataDocument

from oauth_helpers import MODERN, READ, Browser, protected, resource_server
from oauth_server import OAuthServer, Recorder, serve_oauth, serve_protected
from wire import checked_client

pytestmark = pytest.mark.timeout(30)

MARCH = "2025-03-26"


# ---------------------------------------------------------------------------- migration


async def test_a_server_that_moves_to_another_authorization_server() -> None:
    storage = MemoryStorage()
    auth = OAuth(client_name="Files app", authorize=Browser(), storage=storage)
    with (
        serve_oauth(OAuthServer()) as first,
        serve_oauth(OAuthServer()) as second,
        protected(first) as mcp,
    ):
        async with checked_client(mcp.url, MODERN, auth=auth) as client:
            assert (await client.call_tool("whoami", {})).text.startswith("alice ")
            first_id = storage.registrations[first.issuer].client_id
            # The server now trusts the second authorization server only: its metadata
            # names it, and the first one's tokens are refused.
            verifier = JWTVerifier(
                issuer=second.issuer, audience=mcp.url, jwks_url=f"{second.base}/jwks"
            )
            mcp.app.auth = resource_server(mcp.url, second.issuer, verifier)
            mcp.app.metadata = MetadataDocument(mcp.app.auth)
            result = await client.call_tool("whoami", {})
    second_id = storage.registrations[second.issuer].client_id
    assert result.text == f"alice {second_id} {READ}"
    assert len(second.requests_to("/register")) == 1  # registered anew with the new issuer
    (authorize,) = second.requests_to("/authorize")
    assert authorize.params["client_id"] == second_id != first_id
    assert all(r.params.get("client_id") != first_id for r in second.received)
    assert all(r.authorization is None for r in second.received)
    # The first authorization server was not asked again (no refresh, no new authorization)
    assert [r.params["grant_type"] for r in first.requests_to("/token")] == ["authorization_code"]
    assert len(first.requests_to("/authorize")) == 1
    metadata = [seen for seen in mcp.seen if seen.path.startswith("/.well-known/")]
    assert len(metadata) == 2  # read once per authorization
    assert set(storage.tokens) == {(first.issuer, mcp.url), (second.issuer, mcp.url)}


async def test_a_refused_token_from_the_same_issuer_is_refreshed() -> None:
    storage = MemoryStorage()
    auth = OAuth(authorize=Browser(), storage=storage)
    with serve_oauth(OAuthServer()) as auth_server, protected(auth_server) as mcp:
        async with checked_client(mcp.url, MODERN, auth=auth) as client:
            await client.call_tool("whoami", {})
            storage.tokens[(auth_server.issuer, mcp.url)].access_token = "revoked.token"
            assert (await client.call_tool("whoami", {})).text.startswith("alice ")
    grants = [r.params["grant_type"] for r in auth_server.requests_to("/token")]
    assert grants == ["authorization_code", "refresh_token"]
    assert len(auth_server.requests_to("/register")) == 1
    assert len(auth_server.requests_to("/.well-known/oauth-authorization-server")) == 1


# ---------------------------------------------------------------------------- 2025-03-26


def echo_server() -> Server:
    mcp = Server("echo")

    @mcp.tool()
    def echo(text: str) -> str:
        """Say it back."""
        return text

    return mcp


@contextmanager
def march_server(auth_server: OAuthServer) -> Iterator[Recorder]:
    """A 2025-03-26 server: its own origin is the authorization server (``auth_server``'s
    routes), no protected resource metadata, a bare ``Bearer`` challenge without a token."""

    def build(url: str) -> Any:
        auth_server.base = url.removesuffix("/mcp")
        app = echo_server().http_app("/mcp")

        async def gate(scope: dict[str, Any], receive: Any, send: Any) -> None:
            if scope["type"] != "http" or scope["path"] != "/mcp":
                await (auth_server if scope["type"] == "http" else app)(scope, receive, send)
                return
            headers = dict(scope["headers"])
            value = headers.get(b"authorization", b"").decode("latin-1")
            token = auth_server.tokens.get(value.removeprefix("Bearer "))
            if not value.startswith("Bearer ") or token is None or token.resource != url:
                challenge = {"www-authenticate": 'Bearer error="invalid_token"'}
                await Response(b"", 401, challenge)(scope, receive, send)
                return
            await app(scope, receive, send)

        return gate

    with serve_protected(build) as recorder:
        yield recorder


def paths(auth_server: OAuthServer) -> list[str]:
    """What the server's origin was asked for, MCP endpoint aside."""
    return [r.path for r in auth_server.received]


@pytest.mark.parametrize("revision", [MARCH, MODERN])
async def test_a_server_without_resource_metadata_uses_its_origins_metadata(
    revision: str,
) -> None:
    auth_server = OAuthServer()
    auth_server.metadata_at = {"oauth"}
    with march_server(auth_server) as mcp:
        async with checked_client(mcp.url, revision, auth=OAuth(authorize=Browser())) as client:
            assert client.protocol_version == revision
            assert (await client.call_tool("echo", {"text": "hi"})).text == "hi"
    assert paths(auth_server) == [
        "/.well-known/oauth-protected-resource/mcp",  # none: a 2025-03-26 server
        "/.well-known/oauth-protected-resource",
        "/.well-known/oauth-authorization-server",  # at the server's origin
        "/register",
        "/authorize",
        "/token",
    ]
    (authorize,) = auth_server.requests_to("/authorize")
    assert authorize.params["code_challenge_method"] == "S256"
    assert authorize.params["resource"] == mcp.url
    assert "scope" not in authorize.params


async def test_a_server_without_any_metadata_uses_the_default_endpoints() -> None:
    auth_server = OAuthServer()
    auth_server.metadata_at = set()  # no RFC 8414 nor OIDC metadata either
    with march_server(auth_server) as mcp:
        async with checked_client(mcp.url, MARCH, auth=OAuth(authorize=Browser())) as client:
            assert (await client.call_tool("echo", {"text": "hi"})).text == "hi"
    assert paths(auth_server) == [
        "/.well-known/oauth-protected-resource/mcp",
        "/.well-known/oauth-protected-resource",
        "/.well-known/oauth-authorization-server",
        "/.well-known/openid-configuration",
        "/register",
        "/authorize",
        "/token",
    ]
    assert auth_server.requests_to("/token")[0].params["code_verifier"]


async def test_a_named_resource_metadata_url_that_is_missing_is_no_fallback() -> None:
    """A challenge naming metadata that is not there is an error, not a 2025-03-26 server."""
    with serve_oauth(OAuthServer()) as auth_server, protected(auth_server) as mcp:
        missing = mcp.url.removesuffix("/mcp") + "/.well-known/nowhere"
        mcp.refuse("POST", f'Bearer resource_metadata="{missing}"')
        with pytest.raises(ClientError, match="publishes no protected resource metadata"):
            async with checked_client(mcp.url, MODERN, auth=OAuth(authorize=Browser())):
                pass
    assert auth_server.received == []
