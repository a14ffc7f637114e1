"""toolwire as an OAuth 2.1 resource server over real HTTP (AU-02 … AU-27, SB-02, SB-03).

Every server here is a real uvicorn on 127.0.0.1, and so is everything it depends on: a
JWKS endpoint serving RSA, EC and Ed25519 keys made with ``cryptography`` (an
:class:`Authority` that also signs the tests' tokens), and an RFC 7662 introspection
endpoint (:class:`Introspector`). Tests speak raw HTTP with httpx so status codes and
``WWW-Authenticate`` headers are visible; every MCP message the server sends is validated
against the negotiated revision's schema (2025-11-25 and 2026-07-28).

Covered: the Protected Resource Metadata at both well-known paths (AU-03, AU-04, AU-27);
401 with the challenge for missing and bad tokens (AU-08, AU-18, AU-19); 403
``insufficient_scope`` (AU-24) and scope hierarchies (AU-26); the Authorization header as
the only place a token is read (AU-17); pre-shared and introspected tokens; JWKS rotation
and its fetch limit; a verifier whose backend is down (503, then recovery); per-tool
scopes on both eras; ``ctx.access_token`` without the raw token (AU-21); sessions bound to
their caller (SB-02, SB-03), also across two workers sharing a real Redis store.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import hmac
import itertools
import re
import secrets
import time
from collections.abc import AsyncIterator, Iterator
from typing import Any
from urllib.parse import parse_qs

import httpx
import jwt
import orjson
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed25519, rsa

from toolwire import Context, Server
from toolwire.auth import (
    AccessToken,
    AuthFailure,
    IntrospectionVerifier,
    InvalidToken,
    JWTVerifier,
    ResourceServer,
    StaticTokens,
    VerifierUnavailable,
)
from toolwire.server.session import Request
from toolwire.transports.store.stores import RedisStore

from http_server import serve_http
from mcp_spec import WireChecker
from services import start_redis
from wire import MODERN, modern_meta

pytestmark = pytest.mark.timeout(30)

JSON = dict[str, Any]
LEGACY = "2025-11-25"
TIMEOUT = 10.0
BOTH = "application/json, text/event-stream"
RESOURCE = "https://mcp.example.test/mcp"
PRM_URL = "https://mcp.example.test/.well-known/oauth-protected-resource/mcp"
ISSUER = "https://auth.example.test"
SUPPORTED = ["mcp", "files:read", "files:write", "admin", "offline_access"]
HIERARCHY = {"admin": ["mcp", "files"]}  # admin implies mcp and every files:* scope


# ---------------------------------------------------------------------------- helpers


@contextlib.contextmanager
def serve_asgi(app: Any) -> Iterator[str]:
    """Any ASGI app on a real uvicorn (through the same helper as the MCP servers)."""

    class Hosted:
        def http_app(self, path: str) -> Any:
            return app

    with serve_http(Hosted(), "/") as url:
        yield url.rstrip("/")


async def lifespan(receive: Any, send: Any) -> None:
    while True:
        message = await receive()
        if message["type"] == "lifespan.startup":
            await send({"type": "lifespan.startup.complete"})
        elif message["type"] == "lifespan.shutdown":
            await send({"type": "lifespan.shutdown.complete"})
            return


async def respond(send: Any, status: int, body: Any) -> None:
    data = orjson.dumps(body)
    headers = [(b"content-type", b"application/json")]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": data})


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


class Authority:
    """The signing side of an authorization server: keys, a JWKS endpoint, tokens.

    ``down`` makes the JWKS endpoint answer 500; ``fetches`` counts its requests.
    """

    def __init__(self) -> None:
        self.private: dict[str, tuple[Any, str]] = {
            "rsa-1": (rsa.generate_private_key(public_exponent=65537, key_size=2048), "RS256"),
            "ec-1": (ec.generate_private_key(ec.SECP256R1()), "ES256"),
            "ed-1": (ed25519.Ed25519PrivateKey.generate(), "EdDSA"),
        }
        self.published = list(self.private)
        self.fetches = 0
        self.down = False

    def add_key(self, kid: str) -> None:
        self.private[kid] = (
            rsa.generate_private_key(public_exponent=65537, key_size=2048),
            "RS256",
        )
        self.published.append(kid)

    def jwks(self) -> JSON:
        keys = []
        for kid in self.published:
            key, alg = self.private[kid]
            jwk = orjson.loads(
                jwt.algorithms.get_default_algorithms()[alg].to_jwk(key.public_key())
            )
            keys.append({**jwk, "kid": kid, "use": "sig", "alg": alg})
        return {"keys": keys}

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "lifespan":
            await lifespan(receive, send)
            return
        self.fetches += 1
        if self.down:
            await respond(send, 500, {"error": "down"})
        else:
            await respond(send, 200, self.jwks())

    def claims(self, **overrides: Any) -> JSON:
        now = int(time.time())
        claims: JSON = {
            "iss": ISSUER,
            "aud": RESOURCE,
            "sub": "alice",
            "client_id": "client-1",
            "scope": "mcp files:read",
            "iat": now,
            "exp": now + 300,
            "jti": secrets.token_hex(8),
        }
        claims.update(overrides)
        return {k: v for k, v in claims.items() if v is not None}

    def mint(self, kid: str = "rsa-1", **overrides: Any) -> str:
        key, alg = self.private[kid]
        return jwt.encode(self.claims(**overrides), key, algorithm=alg, headers={"kid": kid})

    def public_pem(self, kid: str = "rsa-1") -> bytes:
        return (
            self.private[kid][0]
            .public_key()
            .public_bytes(
                serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
            )
        )

    def forged(self, header: JSON, claims: JSON, secret: bytes | None = None) -> str:
        """A token signed by hand: ``alg: none`` (no signature) or an HMAC one."""
        signing = f"{b64url(orjson.dumps(header))}.{b64url(orjson.dumps(claims))}"
        signature = b""
        if secret is not None:
            signature = hmac.new(secret, signing.encode(), hashlib.sha256).digest()
        return f"{signing}.{b64url(signature)}"


class Introspector:
    """An RFC 7662 endpoint: ``active`` maps tokens to their answers; callers must
    authenticate as ``CREDENTIALS``; ``failing`` makes it answer 500."""

    CREDENTIALS = ("resource-server", "rs-secret")

    def __init__(self) -> None:
        self.active: dict[str, JSON] = {}
        self.calls = 0
        self.failing = False

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "lifespan":
            await lifespan(receive, send)
            return
        self.calls += 1
        body = b""
        while True:
            message = await receive()
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        if self.failing:
            await respond(send, 500, {"error": "server_error"})
            return
        headers = dict(scope["headers"])
        user, secret = self.CREDENTIALS
        expected = b"Basic " + base64.b64encode(f"{user}:{secret}".encode())
        if headers.get(b"authorization") != expected:
            await respond(send, 401, {"error": "invalid_client"})
            return
        token = parse_qs(body.decode()).get("token", [""])[0]
        await respond(send, 200, self.active.get(token, {"active": False}))


def build(auth: ResourceServer | None) -> Server:
    mcp = Server("auth-tests", auth=auth)

    @mcp.tool()
    def add(a: int, b: int) -> int:
        """Add two numbers."""
        return a + b

    @mcp.tool(scopes=["files:write"])
    def write_file(path: str) -> str:
        """Write a file (needs files:write)."""
        return f"wrote {path}"

    @mcp.tool()
    def whoami(ctx: Context) -> JSON:
        """Who the server thinks is calling, and everything the tool can see."""
        token = ctx.access_token
        request = ctx.request
        seen = [
            repr(vars(ctx)),
            repr({slot: getattr(request, slot) for slot in Request.__slots__}),
            repr(vars(ctx._connection)),
            repr(token),
            repr(dict(token.claims) if token else None),
        ]
        return {
            "subject": token.subject if token else None,
            "client_id": token.client_id if token else None,
            "scopes": sorted(token.scopes) if token else None,
            "seen": "\n".join(seen),
        }

    return mcp


def resource_server(verifier: Any) -> ResourceServer:
    return ResourceServer(
        RESOURCE,
        [ISSUER],
        verifier,
        scopes_supported=SUPPORTED,
        required_scopes=["mcp"],
        scope_hierarchy=HIERARCHY,
        resource_name="Auth tests",
        resource_documentation="https://docs.example.test/mcp",
    )


def challenge(response: httpx.Response) -> JSON:
    """The ``WWW-Authenticate`` Bearer challenge as a dict (its scheme under ``scheme``)."""
    value = response.headers["www-authenticate"]
    scheme, _, rest = value.partition(" ")
    params = dict(re.findall(r'([a-z_]+)="([^"]*)"', rest))
    assert re.fullmatch(r'(\s*,?\s*[a-z_]+="[^"]*")+', rest), value
    return {"scheme": scheme, **params}


def assert_refused(response: httpx.Response, status: int, error: str | None) -> JSON:
    """A refusal with its challenge, and a body that tells nothing but the error."""
    assert response.status_code == status, response.text
    body = response.json()
    assert set(body) <= {"error", "error_description"}
    assert not re.search(r"Traceback|\.py\b|jwt\.|httpx", response.text), response.text
    if status == 503:
        assert "www-authenticate" not in response.headers
        return {}
    found = challenge(response)
    assert found["scheme"] == "Bearer"
    assert found["resource_metadata"] == PRM_URL  # AU-04: where to discover the AS
    assert found.get("error") == error
    if error is None:
        assert "error_description" not in found  # RFC 6750 §3.1: no credentials, no error
    return found


_ids = itertools.count(1)


def modern_message(method: str, params: JSON | None = None) -> JSON:
    return {
        "jsonrpc": "2.0",
        "id": next(_ids),
        "method": method,
        "params": {**(params or {}), "_meta": modern_meta()},
    }


async def post_modern(
    http: httpx.AsyncClient,
    url: str,
    token: str | None,
    method: str,
    params: JSON | None = None,
    **headers: str,
) -> tuple[httpx.Response, JSON | None]:
    """A 2026-07-28 request; the JSON-RPC answer validated when there is one."""
    message = modern_message(method, params)
    sent = {
        "Accept": BOTH,
        "Content-Type": "application/json",
        "MCP-Protocol-Version": MODERN,
        "Mcp-Method": method,
    }
    if method == "tools/call":
        sent["Mcp-Name"] = message["params"]["name"]
    if token is not None:
        sent["Authorization"] = f"Bearer {token}"
    sent.update(headers)
    response = await http.post(url, content=orjson.dumps(message), headers=sent)
    if not response.headers.get("content-type", "").startswith("application/json"):
        return response, None
    body = response.json()
    if "jsonrpc" not in body:  # an authorization refusal, not an MCP message
        return response, None
    checker = WireChecker(MODERN)
    checker.client_sent(message)
    checker.server_sent(response.content)
    return response, body


class LegacySession:
    """A 2025-11-25 session over raw HTTP, every message checked."""

    def __init__(self, http: httpx.AsyncClient, url: str, token: str | None) -> None:
        self.http = http
        self.url = url
        self.token = token
        self.id: str | None = None
        self.checker = WireChecker(LEGACY)

    def headers(self, token: str | None) -> dict[str, str]:
        headers = {"Accept": BOTH, "Content-Type": "application/json"}
        if self.id is not None:
            headers["Mcp-Session-Id"] = self.id
            headers["MCP-Protocol-Version"] = LEGACY
        if token is not None:
            headers["Authorization"] = f"Bearer {token}"
        return headers

    async def post(self, message: JSON, token: str | None = None) -> httpx.Response:
        token = token or self.token
        self.checker.client_sent(message)
        response = await self.http.post(
            self.url, content=orjson.dumps(message), headers=self.headers(token)
        )
        if response.headers.get("content-type", "").startswith("application/json"):
            body = response.json()
            if isinstance(body, dict) and "jsonrpc" in body:
                self.checker.server_sent(response.content)
        return response

    async def open(self) -> httpx.Response:
        response = await self.post(
            {
                "jsonrpc": "2.0",
                "id": next(_ids),
                "method": "initialize",
                "params": {
                    "protocolVersion": LEGACY,
                    "capabilities": {},
                    "clientInfo": {"name": "tests", "version": "0"},
                },
            }
        )
        if response.status_code == 200:
            self.id = response.headers["mcp-session-id"]
            note = {"jsonrpc": "2.0", "method": "notifications/initialized"}
            assert (await self.post(note)).status_code == 202
        return response

    async def request(
        self, method: str, params: JSON | None = None, token: str | None = None
    ) -> JSON:
        message = {"jsonrpc": "2.0", "id": next(_ids), "method": method, "params": params or {}}
        response = await self.post(message, token)
        assert response.status_code in (200, 400), response.text
        body: JSON = response.json()
        return body


def tool_names(body: JSON) -> set[str]:
    return {tool["name"] for tool in body["result"]["tools"]}


def text_of(body: JSON) -> str:
    result: JSON = body["result"]
    assert not result.get("isError"), result
    text: str = result["content"][0]["text"]
    return text


def structured(body: JSON) -> JSON:
    result: JSON = body["result"]
    assert not result.get("isError"), result
    return result["structuredContent"]


# ---------------------------------------------------------------------------- fixtures


@pytest.fixture(scope="module")
def authority() -> Iterator[tuple[Authority, str]]:
    keys = Authority()
    with serve_asgi(keys) as url:
        yield keys, url


@pytest.fixture(scope="module")
def jwt_url(authority: tuple[Authority, str]) -> Iterator[str]:
    """The main protected server: JWT access tokens checked against the JWKS."""
    _, jwks = authority
    verifier = JWTVerifier(issuer=ISSUER, audience=RESOURCE, jwks_url=jwks)
    with serve_http(build(resource_server(verifier))) as url:
        yield url


@pytest.fixture
def keys(authority: tuple[Authority, str]) -> Authority:
    return authority[0]


@pytest.fixture
async def http() -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(timeout=TIMEOUT) as client:
        yield client


async def assert_serving(http: httpx.AsyncClient, url: str, token: str) -> None:
    response, body = await post_modern(
        http, url, token, "tools/call", {"name": "add", "arguments": {"a": 40, "b": 2}}
    )
    assert response.status_code == 200, response.text
    assert body is not None and structured(body) == {"result": 42}


# ---------------------------------------------------------------------------- metadata


@pytest.mark.parametrize(
    "path",
    ["/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource"],
)
async def test_the_protected_resource_metadata_is_served_at_both_well_known_paths(
    http: httpx.AsyncClient, jwt_url: str, path: str
) -> None:
    """AU-03/AU-04: RFC 9728 metadata, no token needed, cacheable, readable cross-origin;
    ``offline_access`` is not advertised (AU-27)."""
    origin = jwt_url.removesuffix("/mcp")
    response = await http.get(origin + path, headers={"Origin": "https://app.example.test"})
    assert response.status_code == 200, response.text
    assert response.headers["content-type"] == "application/json"
    assert "max-age=" in response.headers["cache-control"]
    assert response.headers["access-control-allow-origin"] == "*"
    document = response.json()
    assert document == {
        "resource": RESOURCE,
        "authorization_servers": [ISSUER],
        "scopes_supported": ["mcp", "files:read", "files:write", "admin"],
        "bearer_methods_supported": ["header"],
        "resource_name": "Auth tests",
        "resource_documentation": "https://docs.example.test/mcp",
    }
    preflight = await http.options(origin + path)
    assert preflight.status_code == 204
    assert preflight.headers["access-control-allow-origin"] == "*"
    assert (await http.post(origin + path)).status_code == 405
    assert (
        await http.get(origin + "/.well-known/oauth-protected-resource/other")
    ).status_code == 404


# ---------------------------------------------------------------------------- 401 and 403


async def test_a_request_without_a_token_is_challenged(
    http: httpx.AsyncClient, jwt_url: str
) -> None:
    """AU-04, AU-08: 401 naming the metadata and the scope to ask for, on every method."""
    response, _ = await post_modern(http, jwt_url, None, "tools/list")
    found = assert_refused(response, 401, None)
    assert found["scope"] == "mcp"
    session = LegacySession(http, jwt_url, None)
    assert_refused(await session.open(), 401, None)
    get = await http.get(jwt_url, headers={"Accept": "text/event-stream", "Mcp-Session-Id": "x"})
    assert_refused(get, 401, None)
    assert_refused(await http.delete(jwt_url, headers={"Mcp-Session-Id": "x"}), 401, None)


IMPOSTOR = rsa.generate_private_key(public_exponent=65537, key_size=2048)  # signs forgeries


def bad_tokens(keys: Authority) -> dict[str, str]:
    impostor = IMPOSTOR
    now = int(time.time())
    return {
        "garbled": "not-a-jwt-at-all",
        "truncated": keys.mint().rsplit(".", 1)[0],
        "expired": keys.mint(iat=now - 7200, exp=now - 3600),
        "not yet valid": keys.mint(nbf=now + 3600),
        "issued in the future": keys.mint(iat=now + 3600),
        "without expiry": keys.mint(exp=None),
        "another issuer": keys.mint(iss="https://evil.example.test"),
        "another audience": keys.mint(aud="https://other.example.test/mcp"),  # AU-19
        "no audience": keys.mint(aud=None),
        "bad signature": jwt.encode(
            keys.claims(), impostor, algorithm="RS256", headers={"kid": "rsa-1"}
        ),
        "alg none": keys.forged({"alg": "none", "typ": "JWT", "kid": "rsa-1"}, keys.claims()),
        "HMAC with the public key": keys.forged(
            {"alg": "HS256", "typ": "JWT", "kid": "rsa-1"}, keys.claims(), keys.public_pem()
        ),
        "unknown key": jwt.encode(
            keys.claims(), impostor, algorithm="RS256", headers={"kid": "ghost"}
        ),
    }


BAD = [
    "garbled",
    "truncated",
    "expired",
    "not yet valid",
    "issued in the future",
    "without expiry",
    "another issuer",
    "another audience",
    "no audience",
    "bad signature",
    "alg none",
    "HMAC with the public key",
    "unknown key",
]


@pytest.mark.parametrize("kind", BAD)
async def test_a_bad_token_gets_401_invalid_token(
    http: httpx.AsyncClient, jwt_url: str, keys: Authority, kind: str
) -> None:
    """AU-18, AU-19, AU-23: every token that does not verify is refused with a challenge."""
    response, _ = await post_modern(http, jwt_url, bad_tokens(keys)[kind], "tools/list")
    found = assert_refused(response, 401, "invalid_token")
    assert found["scope"] == "mcp"
    assert found["error_description"]
    await assert_serving(http, jwt_url, keys.mint())


async def test_tokens_signed_with_each_published_key_type_are_accepted(
    http: httpx.AsyncClient, jwt_url: str, keys: Authority
) -> None:
    for kid in ("rsa-1", "ec-1", "ed-1"):
        await assert_serving(http, jwt_url, keys.mint(kid))


async def test_a_token_without_the_required_scope_gets_403(
    http: httpx.AsyncClient, jwt_url: str, keys: Authority
) -> None:
    """AU-24: 403 insufficient_scope naming the scopes needed; AU-26: a scope that implies
    the required one through the hierarchy is enough."""
    response, _ = await post_modern(http, jwt_url, keys.mint(scope="files:read"), "tools/list")
    found = assert_refused(response, 403, "insufficient_scope")
    assert found["scope"] == "mcp"
    response, body = await post_modern(http, jwt_url, keys.mint(scope="admin"), "tools/list")
    assert response.status_code == 200 and body is not None
    assert "write_file" in tool_names(body)  # admin -> files -> files:write


async def test_only_the_authorization_header_carries_a_token(
    http: httpx.AsyncClient, jwt_url: str, keys: Authority
) -> None:
    """AU-17: ``access_token`` in the query string is never read; other schemes are no
    bearer token; a Bearer header without a token is a malformed request (400)."""
    good = keys.mint()
    response, _ = await post_modern(http, f"{jwt_url}?access_token={good}", None, "tools/list")
    assert_refused(response, 401, None)
    bad = bad_tokens(keys)["expired"]
    response, _ = await post_modern(http, f"{jwt_url}?access_token={good}", bad, "tools/list")
    assert_refused(response, 401, "invalid_token")
    response, _ = await post_modern(
        http, jwt_url, None, "tools/list", Authorization=f"Basic {good}"
    )
    assert_refused(response, 401, None)
    for header in ("Bearer", "Bearer two words", 'Bearer tok"en'):
        response, _ = await post_modern(http, jwt_url, None, "tools/list", Authorization=header)
        assert_refused(response, 400, "invalid_request")
    response, _ = await post_modern(
        http, jwt_url, None, "tools/list", Authorization=f"bearer {good}"
    )
    assert response.status_code == 200  # the scheme is case-insensitive


# ---------------------------------------------------------------------------- tools and identity


async def test_per_tool_scopes_over_http_modern(
    http: httpx.AsyncClient, jwt_url: str, keys: Authority
) -> None:
    """A tool needing files:write is hidden from and unknown to a reader, on 2026-07-28."""
    reader = keys.mint(scope="mcp files:read")
    response, body = await post_modern(http, jwt_url, reader, "tools/list")
    assert response.status_code == 200 and body is not None
    assert tool_names(body) == {"add", "whoami"}
    response, body = await post_modern(
        http, jwt_url, reader, "tools/call", {"name": "write_file", "arguments": {"path": "x"}}
    )
    assert body is not None and body["error"]["code"] == -32602
    assert "Unknown tool" in body["error"]["message"]
    writer = keys.mint(scope="mcp files:write")
    response, body = await post_modern(http, jwt_url, writer, "tools/list")
    assert body is not None and tool_names(body) == {"add", "whoami", "write_file"}
    response, body = await post_modern(
        http, jwt_url, writer, "tools/call", {"name": "write_file", "arguments": {"path": "x"}}
    )
    assert body is not None and text_of(body) == "wrote x"


async def test_per_tool_scopes_over_http_legacy(
    http: httpx.AsyncClient, jwt_url: str, keys: Authority
) -> None:
    """The same on a 2025-11-25 session: each request's own token decides."""
    reader = keys.mint(scope="mcp files:read")
    session = LegacySession(http, jwt_url, reader)
    assert (await session.open()).status_code == 200
    assert tool_names(await session.request("tools/list")) == {"add", "whoami"}
    body = await session.request("tools/call", {"name": "write_file", "arguments": {"path": "x"}})
    assert body["error"]["code"] == -32602 and "Unknown tool" in body["error"]["message"]
    upgraded = keys.mint(scope="mcp files:write")  # same user and client, more scopes
    body = await session.request("tools/list", token=upgraded)
    assert tool_names(body) == {"add", "whoami", "write_file"}
    body = await session.request(
        "tools/call", {"name": "write_file", "arguments": {"path": "y"}}, token=upgraded
    )
    assert text_of(body) == "wrote y"


@pytest.mark.parametrize("era", ["legacy", "modern"])
async def test_a_tool_sees_the_callers_token_but_never_the_raw_token(
    http: httpx.AsyncClient, jwt_url: str, keys: Authority, era: str
) -> None:
    """ctx.access_token has the subject, client and scopes (AU-21: not the token itself)."""
    token = keys.mint(sub="dana", client_id="desk-app", scope="mcp files:read")
    call = {"name": "whoami", "arguments": {}}
    if era == "modern":
        _, body = await post_modern(http, jwt_url, token, "tools/call", call)
        assert body is not None
    else:
        session = LegacySession(http, jwt_url, token)
        assert (await session.open()).status_code == 200
        body = await session.request("tools/call", call)
    seen = structured(body)
    assert seen["subject"] == "dana"
    assert seen["client_id"] == "desk-app"
    assert seen["scopes"] == ["files:read", "mcp"]
    signature = token.rsplit(".", 1)[1]
    assert "dana" in seen["seen"]  # the dump does hold the caller...
    assert token not in seen["seen"] and signature not in seen["seen"]  # ...not the token


async def test_a_legacy_session_belongs_to_the_caller_that_opened_it(
    http: httpx.AsyncClient, jwt_url: str, keys: Authority
) -> None:
    """SB-02, SB-03: another user's (or another client's) token with a stolen session id
    gets 404 on POST, GET and DELETE; the owner, with a fresh token, goes on."""
    session = LegacySession(http, jwt_url, keys.mint(sub="alice"))
    assert (await session.open()).status_code == 200
    for intruder in (keys.mint(sub="mallory"), keys.mint(sub="alice", client_id="other-app")):
        response = await session.post(
            {"jsonrpc": "2.0", "id": next(_ids), "method": "tools/list"}, intruder
        )
        assert response.status_code == 404
        session.checker.server_sent(response.content)
        headers = {**session.headers(intruder), "Accept": "text/event-stream"}
        for refused in (
            await http.get(jwt_url, headers=headers),
            await http.delete(jwt_url, headers=session.headers(intruder)),
        ):
            assert refused.status_code == 404
            session.checker.server_sent(refused.content)  # the same answer as a lost session
    refreshed = keys.mint(sub="alice")
    body = await session.request(
        "tools/call", {"name": "add", "arguments": {"a": 1, "b": 2}}, refreshed
    )
    assert structured(body) == {"result": 3}
    assert (await http.delete(jwt_url, headers=session.headers(refreshed))).status_code == 200


# ---------------------------------------------------------------------------- other verifiers


async def test_pre_shared_static_tokens(http: httpx.AsyncClient) -> None:
    verifier = StaticTokens(
        {
            "alpha-service-token": AccessToken(subject="svc-alpha", scopes=frozenset({"mcp"})),
            "beta-service-token": ["mcp", "files:write"],
        }
    )
    with serve_http(build(resource_server(verifier))) as url:
        _, body = await post_modern(
            http, url, "alpha-service-token", "tools/call", {"name": "whoami", "arguments": {}}
        )
        assert body is not None and structured(body)["subject"] == "svc-alpha"
        _, body = await post_modern(http, url, "beta-service-token", "tools/list")
        assert body is not None and "write_file" in tool_names(body)
        response, _ = await post_modern(http, url, "gamma-service-token", "tools/list")
        assert_refused(response, 401, "invalid_token")


@pytest.fixture(scope="module")
def introspection() -> Iterator[tuple[Introspector, str]]:
    endpoint = Introspector()
    with serve_asgi(endpoint) as base:
        user, secret = Introspector.CREDENTIALS
        verifier = IntrospectionVerifier(
            f"{base}/introspect", client_id=user, client_secret=secret, audience=RESOURCE
        )
        with serve_http(build(resource_server(verifier))) as url:
            yield endpoint, url


def introspected(**overrides: Any) -> JSON:
    answer: JSON = {
        "active": True,
        "sub": "carol",
        "client_id": "client-9",
        "scope": "mcp files:write",
        "aud": RESOURCE,
        "iss": ISSUER,
        "exp": int(time.time()) + 600,
    }
    answer.update(overrides)
    return answer


async def test_introspected_tokens_are_accepted_and_cached(
    http: httpx.AsyncClient, introspection: tuple[Introspector, str]
) -> None:
    """RFC 7662 with client authentication; a second request costs no round trip."""
    endpoint, url = introspection
    endpoint.active["opaque-carol"] = introspected()
    before = endpoint.calls
    for _ in range(3):
        _, body = await post_modern(
            http, url, "opaque-carol", "tools/call", {"name": "whoami", "arguments": {}}
        )
        assert body is not None
        seen = structured(body)
        assert (seen["subject"], seen["client_id"]) == ("carol", "client-9")
        assert seen["scopes"] == ["files:write", "mcp"]
    assert endpoint.calls == before + 1


@pytest.mark.parametrize(
    "answer",
    [
        {"active": False},
        introspected(active="true"),  # only the JSON true counts
        introspected(aud="https://other.example.test/mcp"),
        introspected(aud=None),
        introspected(exp=int(time.time()) - 3600),
    ],
    ids=["inactive", "active-as-string", "another-audience", "no-audience", "expired"],
)
async def test_introspection_refusals_get_401(
    http: httpx.AsyncClient, introspection: tuple[Introspector, str], answer: JSON
) -> None:
    endpoint, url = introspection
    token = f"opaque-{secrets.token_hex(6)}"
    endpoint.active[token] = {k: v for k, v in answer.items() if v is not None}
    response, _ = await post_modern(http, url, token, "tools/list")
    assert_refused(response, 401, "invalid_token")


async def test_an_introspection_endpoint_that_fails_gives_503_then_recovers(
    http: httpx.AsyncClient, introspection: tuple[Introspector, str]
) -> None:
    endpoint, url = introspection
    endpoint.active["opaque-later"] = introspected()
    endpoint.failing = True
    try:
        response, _ = await post_modern(http, url, "opaque-later", "tools/list")
        assert_refused(response, 503, None)
        assert response.headers["retry-after"]
    finally:
        endpoint.failing = False
    response, body = await post_modern(http, url, "opaque-later", "tools/list")
    assert response.status_code == 200 and body is not None


# ---------------------------------------------------------------------------- JWKS


async def test_a_jwks_endpoint_that_is_down_gives_503_then_recovers(
    http: httpx.AsyncClient,
) -> None:
    keys = Authority()
    keys.down = True
    with serve_asgi(keys) as jwks:
        verifier = JWTVerifier(
            issuer=ISSUER, audience=RESOURCE, jwks_url=jwks, jwks_refresh_interval=0
        )
        with serve_http(build(resource_server(verifier))) as url:
            response, _ = await post_modern(http, url, keys.mint(), "tools/list")
            assert_refused(response, 503, None)
            keys.down = False
            await assert_serving(http, url, keys.mint())


async def test_an_unreachable_jwks_endpoint_is_unavailable_not_a_crash(keys: Authority) -> None:
    with serve_asgi(Authority()) as jwks:
        pass  # the port is closed now: connections are refused
    verifier = JWTVerifier(issuer=ISSUER, audience=RESOURCE, jwks_url=jwks)
    with pytest.raises(VerifierUnavailable):
        await verifier.verify(keys.mint())
    with pytest.raises(VerifierUnavailable):  # asked again at once: no new attempt, same answer
        await verifier.verify(keys.mint())
    assert verifier.jwks_fetches == 1
    with pytest.raises(AuthFailure) as refused:
        await resource_server(verifier).authenticate(f"Bearer {keys.mint()}")
    assert refused.value.status == 503 and refused.value.www_authenticate is None


async def test_a_rotated_key_is_fetched_and_a_retired_one_refused() -> None:
    keys = Authority()
    with serve_asgi(keys) as jwks:
        verifier = JWTVerifier(
            issuer=ISSUER, audience=RESOURCE, jwks_url=jwks, jwks_refresh_interval=0
        )
        assert (await verifier.verify(keys.mint("rsa-1"))).subject == "alice"
        assert keys.fetches == 1
        keys.add_key("rsa-2")
        keys.published.remove("rsa-1")
        assert (await verifier.verify(keys.mint("rsa-2", sub="bob"))).subject == "bob"
        assert keys.fetches == 2  # the unknown kid made it look again
        with pytest.raises(InvalidToken):
            await verifier.verify(keys.mint("rsa-1"))
        await verifier.aclose()


async def test_made_up_key_ids_cannot_hammer_the_jwks_endpoint() -> None:
    keys = Authority()
    with serve_asgi(keys) as jwks:
        verifier = JWTVerifier(issuer=ISSUER, audience=RESOURCE, jwks_url=jwks)
        await verifier.verify(keys.mint())
        keys.add_key("brand-new")  # published, but asked for too soon after the last fetch
        for _ in range(20):
            forged = jwt.encode(
                keys.claims(),
                keys.private["rsa-1"][0],
                algorithm="RS256",
                headers={"kid": secrets.token_hex(4)},
            )
            with pytest.raises(InvalidToken):
                await verifier.verify(forged)
        with pytest.raises(InvalidToken):
            await verifier.verify(keys.mint("brand-new"))
        assert keys.fetches == 1
        assert (await verifier.verify(keys.mint("ec-1"))).subject == "alice"
        await verifier.aclose()


# ---------------------------------------------------------------------------- across workers


async def test_a_session_owner_holds_across_workers_sharing_a_store(
    http: httpx.AsyncClient, authority: tuple[Authority, str]
) -> None:
    """SB-03 with a shared RedisStore: a session opened through one worker is refused to
    another caller on the other worker, and continues there for its owner."""
    keys, jwks = authority
    verifier = JWTVerifier(issuer=ISSUER, audience=RESOURCE, jwks_url=jwks)
    with start_redis() as redis_url:
        first_server = build(resource_server(verifier))
        second_server = build(resource_server(verifier))
        with (
            serve_http(first_server, store=RedisStore(redis_url)) as first,
            serve_http(second_server, store=RedisStore(redis_url)) as second,
        ):
            session = LegacySession(http, first, keys.mint(sub="alice"))
            assert (await session.open()).status_code == 200
            session.url = second
            stolen = await session.post(
                {"jsonrpc": "2.0", "id": next(_ids), "method": "tools/list"},
                keys.mint(sub="mallory"),
            )
            assert stolen.status_code == 404
            body = await session.request("tools/call", {"name": "whoami", "arguments": {}})
            assert structured(body)["subject"] == "alice"


def test_a_verifier_given_as_auth_is_refused_with_what_to_write() -> None:
    """``auth=`` takes the endpoint's settings (a ResourceServer); a bare verifier is a clear
    TypeError naming what to write, not an AttributeError when the app starts."""
    verifier = StaticTokens({"t": AccessToken(subject="alice", scopes=frozenset())})
    with pytest.raises(TypeError, match=r"auth= takes a ResourceServer, not a StaticTokens"):
        Server("s").http_app(auth=verifier)
