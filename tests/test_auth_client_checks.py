"""What the OAuth client checks before it trusts anything, and where it looks for it.

The pure parts (the ``WWW-Authenticate`` parser, the well-known URLs, the canonical URI) are
tested without a loop. Discovery runs against the real test authorization server
(``oauth_server``) and a real protected toolwire server; the misbehaving authorization
server must make the client stop with a clear ``ClientError`` before it redeems a code or
opens anything: a wrong ``iss`` in the redirect (AU-31), metadata naming another issuer
(AU-11), no PKCE S256 (AU-29), an authorization endpoint that is not http(s) (SB-07), a
``state`` that does not match (AU-30). The default authorization path (a browser and a
one-shot loopback listener) is driven by a real HTTP client playing the browser. Last, two
checks of the test authorization server itself: exact redirect URI matching, and RFC 7662
introspection as a resource server uses it.
"""

from __future__ import annotations

import asyncio
import socket
from urllib.parse import parse_qsl, urlencode, urlsplit

import httpx
import pytest

from toolwire.auth import IntrospectionVerifier, StaticTokens
from toolwire.auth.verifiers import canonical_url
from toolwire.client.oauth.browser import BrowserAuthorization, open_in_browser
from toolwire.client.oauth.discovery import (
    authorization_server_metadata_urls,
    bearer_challenge,
    discover_authorization_server,
    resource_metadata_urls,
)
from toolwire.client.oauth.flow import DEFAULT_REDIRECT_URI, OAuth
from toolwire.errors import ClientError

from oauth_helpers import (
    LEGACY,
    MODERN,
    READ,
    TIMEOUT,
    TLS,
    Browser,
    files_server,
    protected,
    resource_server,
)
from oauth_server import INTROSPECTOR, OAuthServer, serve_oauth, serve_protected
from wire import checked_client

pytestmark = pytest.mark.timeout(30)


# ---------------------------------------------------------------------------- sans-IO


def test_challenge_parameters_are_read() -> None:
    found = bearer_challenge(
        'Basic realm="files", Bearer error="insufficient_scope", scope="files:read files:write",'
        ' resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp",'
        ' error_description="needs \\"write\\", too"'
    )
    assert found.error == "insufficient_scope"
    assert found.scopes == ("files:read", "files:write")
    assert found.resource_metadata == (
        "https://mcp.example.com/.well-known/oauth-protected-resource/mcp"
    )
    assert found.error_description == 'needs "write", too'
    assert bearer_challenge("bearer scope=files:read").scopes == ("files:read",)
    assert bearer_challenge('Basic realm="x"') == bearer_challenge(None)
    assert bearer_challenge("Bearer").resource_metadata is None


def test_well_known_urls_in_the_specified_order() -> None:
    # AU-06: the header's URL alone, else path-inserted then root
    assert resource_metadata_urls("https://h.example/mcp", "https://h.example/prm") == [
        "https://h.example/prm"
    ]
    assert resource_metadata_urls("https://h.example/a/mcp/", None) == [
        "https://h.example/.well-known/oauth-protected-resource/a/mcp",
        "https://h.example/.well-known/oauth-protected-resource",
    ]
    assert resource_metadata_urls("https://h.example", None) == [
        "https://h.example/.well-known/oauth-protected-resource"
    ]
    # AU-10: RFC 8414 first, then OIDC inserted, then OIDC appended
    assert authorization_server_metadata_urls("https://as.example/tenant") == [
        "https://as.example/.well-known/oauth-authorization-server/tenant",
        "https://as.example/.well-known/openid-configuration/tenant",
        "https://as.example/tenant/.well-known/openid-configuration",
    ]
    assert authorization_server_metadata_urls("https://as.example") == [
        "https://as.example/.well-known/oauth-authorization-server",
        "https://as.example/.well-known/openid-configuration",
    ]
    # AU-16
    assert canonical_url("HTTPS://MCP.Example.com:443/mcp/") == "https://mcp.example.com/mcp"
    assert canonical_url("http://127.0.0.1:8000/mcp#x") == "http://127.0.0.1:8000/mcp"


# ---------------------------------------------------------------------------- discovery


async def test_oidc_discovery_is_tried_in_order() -> None:
    server = OAuthServer(issuer_path="/tenant")
    server.metadata_at = {"oidc-appended"}
    with serve_oauth(server):
        async with httpx.AsyncClient(verify=TLS) as http:
            found = await discover_authorization_server(http, server.issuer)
        assert found.issuer == server.issuer
        assert [r.path for r in server.received] == [
            "/.well-known/oauth-authorization-server/tenant",
            "/.well-known/openid-configuration/tenant",
            "/tenant/.well-known/openid-configuration",
        ]
        with protected(server) as mcp:  # and the whole flow with that issuer
            auth = OAuth(authorize=Browser())
            async with checked_client(mcp.url, MODERN, auth=auth) as client:
                result = await client.call_tool("whoami", {})
    assert result.text.startswith("alice ")


@pytest.mark.parametrize("revision", [LEGACY, MODERN])
async def test_metadata_from_the_root_well_known_uri(
    auth_server: OAuthServer, revision: str
) -> None:
    """A challenge without resource_metadata: path-inserted URI, then the root one (AU-06)."""
    with protected(auth_server) as mcp:
        mcp.refuse("POST", f'Bearer scope="{READ}"')
        mcp.refuse("GET", None, path="/.well-known/oauth-protected-resource/mcp", status=404)
        async with checked_client(mcp.url, revision, auth=OAuth(authorize=Browser())) as client:
            await client.call_tool("whoami", {})
    looked = [(s.path, s.status) for s in mcp.seen if s.path != "/mcp"]
    assert looked == [
        ("/.well-known/oauth-protected-resource/mcp", 404),
        ("/.well-known/oauth-protected-resource", 200),
    ]


async def test_metadata_for_another_resource_is_refused(auth_server: OAuthServer) -> None:
    def build(url: str) -> object:
        other = url.replace("/mcp", "/other")
        rs = resource_server(other, auth_server.issuer, StaticTokens({"t": [READ]}))
        return files_server().http_app("/mcp", auth=rs)

    with serve_protected(build) as mcp, pytest.raises(ClientError, match="describes"):
        async with checked_client(mcp.url, MODERN, auth=OAuth(authorize=Browser())):
            pass
    assert not auth_server.received


# ---------------------------------------------------------------------------- refusals


async def refused(auth_server: OAuthServer, browser: Browser, match: str) -> None:
    with protected(auth_server) as mcp:
        auth = OAuth(authorize=browser)
        with pytest.raises(ClientError, match=match):
            async with checked_client(mcp.url, MODERN, auth=auth):
                pass
    assert not auth_server.requests_to("/token")  # no code was ever redeemed


async def test_wrong_iss_in_the_redirect(auth_server: OAuthServer) -> None:
    auth_server.wrong_iss = "https://attacker.example"
    browser = Browser()
    await refused(auth_server, browser, "names the issuer 'https://attacker.example'")
    assert len(browser.urls) == 1


async def test_missing_iss_when_the_server_promised_it(auth_server: OAuthServer) -> None:
    def drop_iss(location: str) -> str:
        parts = urlsplit(location)
        query = [(k, v) for k, v in parse_qsl(parts.query) if k != "iss"]
        return parts._replace(query=urlencode(query)).geturl()

    await refused(auth_server, Browser(tamper=drop_iss), "names the issuer None")


async def test_state_mismatch(auth_server: OAuthServer) -> None:
    browser = Browser(tamper=lambda location: location.replace("state=", "state=forged"))
    await refused(auth_server, browser, "state")


async def test_a_refusal_by_the_person(auth_server: OAuthServer) -> None:
    def deny(location: str) -> str:
        params = dict(parse_qsl(urlsplit(location).query))
        denial = {"error": "access_denied", "state": params["state"], "iss": params["iss"]}
        return f"{DEFAULT_REDIRECT_URI}?{urlencode(denial)}"

    await refused(auth_server, Browser(tamper=deny), "refused the authorization: access_denied")


@pytest.mark.parametrize(
    ("switch", "value", "match"),
    [
        ("advertised_issuer", "http://127.0.0.1:1", "names the issuer 'http://127.0.0.1:1'"),
        ("code_challenge_methods", ["plain"], "S256"),
        ("code_challenge_methods", [], "S256"),
        ("authorization_endpoint", "javascript:alert(1)", "Refusing the authorization endpoint"),
        ("authorization_endpoint", "file:///etc/passwd", "Refusing the authorization endpoint"),
    ],
)
async def test_untrustworthy_metadata(
    auth_server: OAuthServer, switch: str, value: object, match: str
) -> None:
    setattr(auth_server, switch, value)
    browser = Browser()
    await refused(auth_server, browser, match)
    assert browser.urls == []  # nothing was opened
    assert not auth_server.requests_to("/authorize")
    assert not auth_server.requests_to("/register")


async def test_no_way_to_get_a_client_id(auth_server: OAuthServer) -> None:
    auth_server.dcr = auth_server.cimd = False
    await refused(auth_server, Browser(), "no way for this client to get a client id")


# ---------------------------------------------------------------------------- the browser


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


async def test_system_browser_path_with_a_loopback_listener(auth_server: OAuthServer) -> None:
    redirect_uri = f"http://127.0.0.1:{free_port()}/callback"
    auth_server.register_client("desktop-app", redirect_uris=[redirect_uri])
    pages: list[httpx.Response] = []

    async def browser(url: str) -> None:
        """What a browser does: follow the redirect, land on the local page."""
        async with httpx.AsyncClient(verify=TLS, follow_redirects=True) as http:
            pages.append(await asyncio.wait_for(http.get(url), TIMEOUT))

    opened: list[asyncio.Task[None]] = []

    async def open_url(url: str) -> None:  # the browser runs on its own, as a real one does
        opened.append(asyncio.create_task(browser(url)))

    authorize = BrowserAuthorization(redirect_uri, open_url=open_url, timeout=TIMEOUT)
    auth = OAuth(client_id="desktop-app", redirect_uri=redirect_uri, authorize=authorize)
    with protected(auth_server) as mcp:
        async with checked_client(mcp.url, MODERN, auth=auth) as client:
            result = await client.call_tool("whoami", {})
    await asyncio.wait_for(opened[0], TIMEOUT)
    assert result.text == "alice desktop-app files:read"
    assert pages[0].status_code == 200 and "complete" in pages[0].text
    assert str(pages[0].url).startswith(f"{redirect_uri}?code=")


async def test_browser_opens_only_http_urls() -> None:
    opened: list[str] = []

    async def open_url(url: str) -> None:
        opened.append(url)

    authorize = BrowserAuthorization(f"http://127.0.0.1:{free_port()}/cb", open_url=open_url)
    for url in ("javascript:alert(1)", "file:///etc/passwd", "calc.exe", "https:///no-host"):
        with pytest.raises(ClientError, match="only http"):
            await authorize(url)
        with pytest.raises(ClientError, match="only http"):
            await open_in_browser(url)
    assert opened == []
    with pytest.raises(ClientError, match="loopback"):
        OAuth(redirect_uri="https://app.example/callback")  # no listener can receive it


# ---------------------------------------------------------------------------- the AS itself


async def test_the_authorization_server_matches_redirect_uris_exactly(
    auth_server: OAuthServer,
) -> None:
    """AU-30 on the authorization server's side: a near miss is refused, not redirected to."""
    auth_server.register_client("app", redirect_uris=[DEFAULT_REDIRECT_URI])
    params = {
        "response_type": "code",
        "client_id": "app",
        "code_challenge": "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
        "code_challenge_method": "S256",
        "state": "s",
    }
    async with httpx.AsyncClient(verify=TLS) as http:
        for near_miss in (DEFAULT_REDIRECT_URI + "/", DEFAULT_REDIRECT_URI.replace("1", "2", 1)):
            url = f"{auth_server.base}/authorize"
            answer = await http.get(url, params={**params, "redirect_uri": near_miss})
            assert answer.status_code == 400 and "location" not in answer.headers
        answer = await http.get(url, params={**params, "redirect_uri": DEFAULT_REDIRECT_URI})
    assert answer.status_code == 302
    assert answer.headers["location"].startswith(DEFAULT_REDIRECT_URI + "?code=")


async def test_tokens_checked_by_introspection(auth_server: OAuthServer) -> None:
    """The same flow against a server that asks the authorization server (RFC 7662)."""

    def build(url: str) -> object:
        verifier = IntrospectionVerifier(
            f"{auth_server.base}/introspect",
            client_id=INTROSPECTOR[0],
            client_secret=INTROSPECTOR[1],
            audience=url,
            issuer=auth_server.issuer,
        )
        return files_server().http_app(
            "/mcp", auth=resource_server(url, auth_server.issuer, verifier)
        )

    with serve_protected(build) as mcp:
        async with checked_client(mcp.url, LEGACY, auth=OAuth(authorize=Browser())) as client:
            result = await client.call_tool("whoami", {})
    assert result.text.startswith("alice ")
    introspected = auth_server.requests_to("/introspect")
    assert introspected and all(r.authorization for r in introspected)  # authenticated
