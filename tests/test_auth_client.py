"""The client side of MCP authorization, end to end over real HTTP on 127.0.0.1.

A real authorization server (``oauth_server.OAuthServer``, Authlib behind uvicorn) and a
toolwire server protected by ``toolwire.auth.ResourceServer`` with a ``JWTVerifier`` (behind
uvicorn too) talk to toolwire's ``Client(url, auth=OAuth(...))``. The person approving in a
browser is :class:`Browser`: it follows the authorization server's redirect with httpx and
hands back where it points. Every MCP message is checked against the negotiated revision's
schema (``wire.checked_client``), on a legacy revision and on 2026-07-28.

Covered: the code flow with PKCE S256 for pre-registered, client ID metadata document and
dynamically registered clients (AU-12, AU-13, AU-29, AU-30); ``resource`` in both requests
(AU-15); scopes from the challenge (AU-09, AU-14); ``Authorization: Bearer`` on every
request and never in the URL (AU-17); refresh on expiry and on ``invalid_token``; step-up
on 403 ``insufficient_scope`` with exactly one new authorization (AU-25); a 401 on the GET
stream; a static token.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest

from toolwire import Client
from toolwire.auth import AccessToken, StaticTokens
from toolwire.client import Host
from toolwire.client.oauth.flow import DEFAULT_REDIRECT_URI, OAuth
from toolwire.client.oauth.storage import MemoryStorage
from toolwire.errors import ClientError, Unauthorized

from mcp_spec import WireChecker
from oauth_helpers import (
    BOTH_ERAS,
    LEGACY,
    MODERN,
    READ,
    TIMEOUT,
    WRITE,
    Browser,
    files_server,
    protected,
    resource_server,
    tool_names,
)
from oauth_server import (
    OAuthServer,
    Recorder,
    metadata_document_app,
    serve_asgi,
    serve_oauth,
    serve_protected,
)
from wire import checked_client

pytestmark = pytest.mark.timeout(30)


def check_wire(recorder: Recorder) -> None:
    """AU-17: after the first 401, every request carries a bearer token, none in the URL;
    the metadata was read from the URL the challenge gave (AU-06)."""
    endpoint = [seen for seen in recorder.seen if seen.path == "/mcp"]
    assert endpoint[0].status == 401 and endpoint[0].authorization is None
    assert all(seen.query == "" for seen in recorder.seen)
    for seen in endpoint[1:]:
        assert seen.authorization is not None and seen.authorization.startswith("Bearer ey")
    metadata = [seen.path for seen in recorder.seen if seen.path != "/mcp"]
    assert metadata == ["/.well-known/oauth-protected-resource/mcp"]


# ---------------------------------------------------------------------------- the flows


@pytest.mark.parametrize("revision", BOTH_ERAS)
async def test_pre_registered_client(auth_server: OAuthServer, revision: str) -> None:
    auth_server.register_client("files-app", redirect_uris=[DEFAULT_REDIRECT_URI])
    browser = Browser()
    auth = OAuth(client_id="files-app", authorize=browser)
    with protected(auth_server) as mcp:
        async with checked_client(mcp.url, revision, auth=auth) as client:
            assert client.protocol_version == revision
            assert tool_names(await client.list_tools()) == {"whoami"}
            result = await client.call_tool("whoami", {})
        check_wire(mcp)
    assert result.text == "alice files-app files:read"
    assert len(browser.urls) == 1
    (authorize,) = auth_server.requests_to("/authorize")
    assert authorize.params["resource"] == mcp.url  # AU-15, in both requests
    assert authorize.params["scope"] == READ  # from the 401 challenge (AU-09, AU-14)
    assert authorize.params["code_challenge_method"] == "S256"
    assert len(authorize.params["state"]) >= 32
    (token,) = auth_server.requests_to("/token")
    assert token.params["resource"] == mcp.url
    assert token.params["grant_type"] == "authorization_code"
    assert 43 <= len(token.params["code_verifier"]) <= 128
    assert not auth_server.requests_to("/register")


@pytest.mark.parametrize("revision", BOTH_ERAS)
async def test_client_id_metadata_document(auth_server: OAuthServer, revision: str) -> None:
    with serve_asgi(metadata_document_app(DEFAULT_REDIRECT_URI)) as documents:
        document_url = f"{documents}/client.json"
        auth = OAuth(client_metadata_url=document_url, authorize=Browser())
        with protected(auth_server) as mcp:
            async with checked_client(mcp.url, revision, auth=auth) as client:
                result = await client.call_tool("whoami", {})
    assert result.text == f"alice {document_url} files:read"
    assert auth_server.requests_to("/authorize")[0].params["client_id"] == document_url
    assert not auth_server.requests_to("/register")  # AU-12: preferred over registration


async def test_dynamic_registration_per_issuer(auth_server: OAuthServer) -> None:
    storage = MemoryStorage()
    auth = OAuth(client_name="Files app", authorize=Browser(), storage=storage)
    with protected(auth_server) as mcp:
        async with checked_client(mcp.url, MODERN, auth=auth) as client:
            result = await client.call_tool("whoami", {})
    (registration,) = auth_server.requests_to("/register")
    assert registration.json["redirect_uris"] == [DEFAULT_REDIRECT_URI]
    assert registration.json["application_type"] == "native"  # AU-13: a loopback redirect
    assert registration.json["token_endpoint_auth_method"] == "none"
    assert registration.json["client_name"] == "Files app"
    client_id = storage.registrations[auth_server.issuer].client_id
    assert result.text == f"alice {client_id} files:read"
    assert list(storage.registrations) == [auth_server.issuer]
    assert list(storage.tokens) == [(auth_server.issuer, mcp.url)]

    # Another authorization server: a new registration there, the first one never offered
    with serve_oauth(OAuthServer()) as other, protected(other) as mcp2:
        async with checked_client(mcp2.url, MODERN, auth=auth) as client:
            await client.call_tool("whoami", {})
    assert len(other.requests_to("/register")) == 1
    assert other.requests_to("/authorize")[0].params["client_id"] != client_id
    assert set(storage.registrations) == {auth_server.issuer, other.issuer}


async def test_stored_tokens_are_used_without_a_new_authorization(
    auth_server: OAuthServer,
) -> None:
    storage = MemoryStorage()
    with protected(auth_server) as mcp:
        for _ in range(2):  # a second process with the same storage
            auth = OAuth(authorize=Browser(), storage=storage)
            async with checked_client(mcp.url, MODERN, auth=auth) as client:
                await client.call_tool("whoami", {})
    assert len(auth_server.requests_to("/authorize")) == 1
    assert len(auth_server.requests_to("/register")) == 1


# ---------------------------------------------------------------------------- refresh


@pytest.mark.parametrize("revision", BOTH_ERAS)
async def test_refresh_after_expiry(auth_server: OAuthServer, revision: str) -> None:
    storage = MemoryStorage()
    auth = OAuth(authorize=Browser(), storage=storage)
    with protected(auth_server) as mcp:
        async with checked_client(mcp.url, revision, auth=auth) as client:
            await client.call_tool("whoami", {})
            tokens = storage.tokens[(auth_server.issuer, mcp.url)]
            first = tokens.access_token
            tokens.expires_at = time.time() - 1  # the access token ran out
            result = await client.call_tool("whoami", {})
    assert result.text.startswith("alice ")
    refresh = [
        r for r in auth_server.requests_to("/token") if r.params["grant_type"] == "refresh_token"
    ]
    assert len(refresh) == 1
    assert refresh[0].params["resource"] == mcp.url
    assert len(auth_server.requests_to("/authorize")) == 1
    assert storage.tokens[(auth_server.issuer, mcp.url)].access_token != first
    assert mcp.seen[-1].authorization != f"Bearer {first}"
    assert all(seen.status != 401 for seen in mcp.seen[1:])  # refreshed before sending


@pytest.mark.parametrize("revision", BOTH_ERAS)
async def test_refresh_on_invalid_token(auth_server: OAuthServer, revision: str) -> None:
    storage = MemoryStorage()
    auth = OAuth(authorize=Browser(), storage=storage)
    with protected(auth_server) as mcp:
        async with checked_client(mcp.url, revision, auth=auth) as client:
            await client.call_tool("whoami", {})
            tokens = storage.tokens[(auth_server.issuer, mcp.url)]
            tokens.access_token = "revoked.token.value"
            result = await client.call_tool("whoami", {})
    assert result.text.startswith("alice ")
    rejected = [seen for seen in mcp.seen if seen.authorization == "Bearer revoked.token.value"]
    assert [seen.status for seen in rejected] == [401]
    grants = [r.params["grant_type"] for r in auth_server.requests_to("/token")]
    assert grants == ["authorization_code", "refresh_token"]
    assert len(auth_server.requests_to("/authorize")) == 1


async def test_a_401_on_the_get_stream_is_answered(auth_server: OAuthServer) -> None:
    auth = OAuth(authorize=Browser())
    with protected(auth_server) as mcp:
        mcp.refuse("GET", mcp.app.auth.challenge("invalid_token", "The token was revoked"))
        async with checked_client(mcp.url, LEGACY, auth=auth) as client:
            await client.call_tool("whoami", {})

            def answered(seen: list[Any]) -> bool:
                statuses = [s.status for s in seen if (s.method, s.path) == ("GET", "/mcp")]
                return statuses[-1:] == [200]

            assert await asyncio.to_thread(mcp.wait, answered, TIMEOUT)
    gets = [seen for seen in mcp.seen if (seen.method, seen.path) == ("GET", "/mcp")]
    assert [seen.status for seen in gets] == [401, 200]
    assert gets[0].authorization != gets[1].authorization
    assert [r.params["grant_type"] for r in auth_server.requests_to("/token")] == [
        "authorization_code",
        "refresh_token",
    ]


# ---------------------------------------------------------------------------- step-up


@pytest.mark.parametrize("revision", BOTH_ERAS)
async def test_step_up_on_insufficient_scope(auth_server: OAuthServer, revision: str) -> None:
    browser = Browser()
    auth = OAuth(authorize=browser)
    with protected(auth_server) as mcp:
        async with checked_client(mcp.url, revision, auth=auth) as client:
            assert tool_names(await client.list_tools()) == {"whoami"}
            app = mcp.app
            app.auth = resource_server(mcp.url, auth_server.issuer, app.auth.verifier, READ, WRITE)
            assert tool_names(await client.list_tools()) == {"whoami", "write_file"}
            result = await client.call_tool("write_file", {"path": "a.txt", "text": "hello"})
    assert result.text == "wrote 5 characters to a.txt"
    scopes = [r.params["scope"] for r in auth_server.requests_to("/authorize")]
    assert scopes == [READ, f"{READ} {WRITE}"]  # the union of the old and new scopes
    assert [seen.status for seen in mcp.seen].count(403) == 1  # one retry, then success
    assert len(browser.urls) == 2


async def test_step_up_happens_once(auth_server: OAuthServer) -> None:
    auth_server.grantable = {READ}  # the authorization server never grants files:write
    auth = OAuth(authorize=Browser())
    with protected(auth_server, READ, WRITE) as mcp, pytest.raises(ClientError, match="403"):
        async with checked_client(mcp.url, MODERN, auth=auth):
            pass
    scopes = [r.params["scope"] for r in auth_server.requests_to("/authorize")]
    assert scopes == [f"{READ} {WRITE}"]  # asked for in full once; no loop after that
    assert [seen.status for seen in mcp.seen if seen.path == "/mcp"] == [401, 403]


# ---------------------------------------------------------------------------- static token


@pytest.mark.parametrize("revision", BOTH_ERAS)
async def test_static_token(revision: str) -> None:
    verifier = StaticTokens({"s3cret-token": AccessToken(subject="bob", scopes=frozenset({READ}))})

    def build(url: str) -> Any:
        return files_server().http_app(
            "/mcp", auth=resource_server(url, "https://as.invalid", verifier)
        )

    with serve_protected(build) as mcp:
        async with checked_client(mcp.url, revision, auth="s3cret-token") as client:
            result = await client.call_tool("whoami", {})
        assert result.text == "bob None files:read"
        assert {seen.authorization for seen in mcp.seen} == {"Bearer s3cret-token"}
        with pytest.raises(Unauthorized, match="HTTP 401") as refused:
            async with checked_client(mcp.url, revision, auth="wrong-token"):
                pass
        assert refused.value.status == 401
        challenge = refused.value.www_authenticate or ""
        assert challenge.startswith("Bearer ") and 'error="invalid_token"' in challenge
        assert f'resource_metadata="{mcp.url.replace("/mcp", "")}/.well-known/' in challenge


# ---------------------------------------------------------------------------- in a host


async def test_a_host_keeps_a_servers_own_authorization(auth_server: OAuthServer) -> None:
    checker = WireChecker(MODERN)

    def tap(direction: str, data: bytes) -> None:
        (checker.client_sent if direction == "send" else checker.server_sent)(data)

    auth = OAuth(authorize=Browser())
    with protected(auth_server) as mcp:
        files = Client(mcp.url, protocol_version=MODERN, auth=auth, tap=tap)
        async with Host({"files": files}, trusted={"files"}, tap=tap) as host:
            assert (await host.call_tool("whoami", {})).text.startswith("alice ")
            await host.restart("files")  # a new connection, the same authorization
            assert (await host.call_tool("whoami", {})).text.startswith("alice ")
    assert len(auth_server.requests_to("/authorize")) == 1
    assert checker.checked > 0
