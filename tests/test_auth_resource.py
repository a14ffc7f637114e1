"""The resource-server settings and the verifiers, without a network.

What :class:`ResourceServer` says (metadata, paths, challenges) and decides (401, 400,
403, 503), what :class:`StaticTokens` and :class:`JWTVerifier` (with a fixed public key)
accept, and that a tool sees no access token when the server does not authenticate. The
HTTP side, JWKS and introspection are in test_auth_server.py.
"""

from __future__ import annotations

import logging
import time
from typing import Any

import jwt
import orjson
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa

from toolwire import Context, Server
from toolwire.auth import (
    AccessToken,
    AuthFailure,
    IntrospectionVerifier,
    InvalidToken,
    JWTVerifier,
    ResourceServer,
    StaticTokens,
)

from wire import MODERN, checked_client

RESOURCE = "https://mcp.example.test/mcp"
ISSUER = "https://auth.example.test"
RSA_KEY = rsa.generate_private_key(public_exponent=65537, key_size=2048)
EC_KEY = ec.generate_private_key(ec.SECP256R1())


class Failing:
    """A verifier with a bug of its own."""

    async def verify(self, token: str) -> AccessToken:
        raise RuntimeError(f"database password is hunter2 ({token})")


def server(verifier: Any = None, **options: Any) -> ResourceServer:
    tokens = StaticTokens(
        {
            "reader-token": AccessToken(subject="r", scopes=frozenset({"mcp:read"})),
            "both-token": AccessToken(subject="b", scopes=frozenset({"mcp:read", "mcp:write"})),
            "root-token": AccessToken(subject="root", scopes=frozenset({"root"})),
        }
    )
    return ResourceServer(RESOURCE, [ISSUER], verifier or tokens, **options)


async def refusal(auth: ResourceServer, header: str | None) -> AuthFailure:
    with pytest.raises(AuthFailure) as caught:
        await auth.authenticate(header)
    return caught.value


# ---------------------------------------------------------------------------- settings


async def test_pre_shared_tokens_need_no_authorization_server() -> None:
    """Without an authorization server there is no OAuth to discover: no metadata is
    published (AU-03 binds OAuth deployments) and challenges name no metadata URL."""
    auth = ResourceServer(RESOURCE, [], StaticTokens({"tok": ["files:read"]}))
    assert auth.metadata_paths == () and auth.metadata_url is None
    assert (await refusal(auth, None)).www_authenticate == "Bearer"
    bad = await refusal(auth, "Bearer nope")
    assert bad.www_authenticate is not None and "resource_metadata" not in bad.www_authenticate
    assert (await auth.authenticate("Bearer tok")).scopes == frozenset({"files:read"})


def test_a_resource_server_needs_a_real_url() -> None:
    for bad in ("mcp.example.test/mcp", "ftp://mcp.example.test/mcp", f"{RESOURCE}#frag"):
        with pytest.raises(ValueError):
            ResourceServer(bad, [ISSUER], StaticTokens({}))
    with pytest.raises(ValueError, match="scope"):
        ResourceServer(RESOURCE, [ISSUER], StaticTokens({}), required_scopes=['a"b'])


def test_metadata_paths_insert_the_well_known_part_before_the_resource_path() -> None:
    """RFC 9728 §3.1, AU-04: path-inserted form first, then the root form."""
    auth = ResourceServer("HTTPS://MCP.Example.TEST/tenant/mcp/", [ISSUER], StaticTokens({}))
    assert auth.resource == "https://mcp.example.test/tenant/mcp/"
    assert auth.metadata_paths == (
        "/.well-known/oauth-protected-resource/tenant/mcp",
        "/.well-known/oauth-protected-resource",
    )
    assert auth.metadata_url == (
        "https://mcp.example.test/.well-known/oauth-protected-resource/tenant/mcp"
    )
    root = ResourceServer("https://mcp.example.test", [ISSUER], StaticTokens({}))
    assert root.metadata_paths == ("/.well-known/oauth-protected-resource",)


def test_the_metadata_document_never_advertises_offline_access() -> None:
    """AU-27; optional fields appear only when set."""
    auth = server(scopes_supported=["mcp:read", "offline_access", "mcp:write"])
    assert auth.metadata() == {
        "resource": RESOURCE,
        "authorization_servers": [ISSUER],
        "bearer_methods_supported": ["header"],
        "scopes_supported": ["mcp:read", "mcp:write"],
    }
    assert "scopes_supported" not in server().metadata()


# ---------------------------------------------------------------------------- decisions


async def test_missing_or_foreign_credentials_get_a_401_without_an_error_code() -> None:
    """AU-08: the challenge names the required scopes, never offline_access (AU-27)."""
    auth = server(required_scopes=["mcp:read", "offline_access"])
    for header in (None, "Basic dXNlcjpwYXNz", "Digest x"):
        failure = await refusal(auth, header)
        assert failure.status == 401 and failure.error is None
        assert failure.www_authenticate == (
            'Bearer scope="mcp:read", resource_metadata="https://mcp.example.test'
            '/.well-known/oauth-protected-resource/mcp"'
        )


async def test_a_bearer_header_without_a_token_is_a_malformed_request() -> None:
    for header in ("Bearer", "Bearer   ", "Bearer a b", "Bearer a,b", "Bearer é"):
        failure = await refusal(server(), header)
        assert failure.status == 400 and failure.error == "invalid_request", header
        assert failure.www_authenticate is not None
        assert 'error="invalid_request"' in failure.www_authenticate


async def test_an_unknown_token_gets_invalid_token_and_is_never_logged(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG, logger="toolwire")
    failure = await refusal(server(), "Bearer s3cret-but-wrong")
    assert failure.status == 401 and failure.error == "invalid_token"
    assert failure.www_authenticate is not None
    assert failure.www_authenticate.startswith('Bearer error="invalid_token", ')
    assert "s3cret-but-wrong" not in caplog.text + str(failure) + failure.www_authenticate


async def test_insufficient_scope_names_every_scope_needed() -> None:
    """AU-24 (2026: all needed scopes in one challenge); AU-26: hierarchies count."""
    auth = server(required_scopes=["mcp:read", "mcp:write"], scope_hierarchy={"root": ["mcp"]})
    failure = await refusal(auth, "Bearer reader-token")
    assert failure.status == 403 and failure.error == "insufficient_scope"
    assert failure.www_authenticate is not None
    assert 'scope="mcp:read mcp:write"' in failure.www_authenticate
    assert 'error="insufficient_scope"' in failure.www_authenticate
    assert "resource_metadata=" in failure.www_authenticate
    assert (await auth.authenticate("Bearer both-token")).subject == "b"
    assert (await auth.authenticate("bearer root-token")).subject == "root"


async def test_a_verifier_that_crashes_gives_503_and_leaks_nothing(
    caplog: pytest.LogCaptureFixture,
) -> None:
    failure = await refusal(server(Failing()), "Bearer tok-123")
    assert failure.status == 503 and failure.www_authenticate is None
    assert "hunter2" not in failure.description and "tok-123" not in failure.description
    assert "The token verifier failed" in caplog.text


def test_error_descriptions_are_kept_quotable() -> None:
    header = server().challenge("invalid_token", 'bad "quote" \\ and\nnewline é')
    assert header.endswith('error_description="bad quote  andnewline "')


# ---------------------------------------------------------------------------- verifiers


async def test_static_tokens_given_scopes_only_are_told_apart() -> None:
    tokens = StaticTokens({"first-token": ["a"], "second-token": ["a", "b"]})
    first = await tokens.verify("first-token")
    second = await tokens.verify("second-token")
    assert first.subject != second.subject
    assert (first.scopes, second.scopes) == (frozenset({"a"}), frozenset({"a", "b"}))
    with pytest.raises(InvalidToken):
        await tokens.verify("first-token ")
    with pytest.raises(TypeError):
        StaticTokens({"t": "a b"})
    with pytest.raises(ValueError):
        StaticTokens({"": ["a"]})


async def test_an_expired_static_token_is_refused() -> None:
    tokens = StaticTokens({"old": AccessToken(subject="x", expires_at=int(time.time()) - 1)})
    with pytest.raises(InvalidToken, match="expired"):
        await tokens.verify("old")


def test_symmetric_and_unsigned_algorithms_are_refused_up_front() -> None:
    pem = RSA_KEY.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    for algorithms in (["HS256"], ["none"], ["RS256", "HS512"], []):
        with pytest.raises(ValueError, match="asymmetric"):
            JWTVerifier(issuer=ISSUER, audience=RESOURCE, public_key=pem, algorithms=algorithms)
    with pytest.raises(ValueError, match="exactly one"):
        JWTVerifier(issuer=ISSUER, audience=RESOURCE)
    with pytest.raises(ValueError, match="exactly one"):
        JWTVerifier(issuer=ISSUER, audience=RESOURCE, public_key=pem, jwks_url="http://x.test")
    with pytest.raises(ValueError):
        IntrospectionVerifier("http://x.test/introspect", client_id="only-the-id")


def claims(**overrides: Any) -> dict[str, Any]:
    now = int(time.time())
    found = {"iss": ISSUER, "aud": RESOURCE, "sub": "alice", "iat": now, "exp": now + 60}
    found.update(overrides)
    return found


async def test_a_fixed_public_key_verifies_and_the_claims_are_mapped() -> None:
    pem = RSA_KEY.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    verifier = JWTVerifier(issuer=ISSUER, audience=RESOURCE, public_key=pem.decode())
    token = jwt.encode(
        claims(
            aud=["https://other.test", "HTTPS://MCP.EXAMPLE.TEST/mcp/"], scp=["a", "b"], azp="app"
        ),
        RSA_KEY,
        algorithm="PS256",
    )
    caller = await verifier.verify(token)
    assert (caller.subject, caller.client_id, caller.issuer) == ("alice", "app", ISSUER)
    assert caller.scopes == frozenset({"a", "b"})
    assert caller.audience == ("https://other.test", "HTTPS://MCP.EXAMPLE.TEST/mcp/")
    assert token not in repr(caller) + repr(dict(caller.claims))
    with pytest.raises(InvalidToken):  # an EC signature cannot come from an RSA key
        await verifier.verify(jwt.encode(claims(), EC_KEY, algorithm="ES256"))


async def test_a_jwk_as_the_fixed_key() -> None:
    jwk = orjson.loads(jwt.algorithms.ECAlgorithm.to_jwk(EC_KEY.public_key()))
    verifier = JWTVerifier(issuer=[ISSUER, "https://b.test"], audience=RESOURCE, public_key=jwk)
    token = jwt.encode(claims(iss="https://b.test", scope="x y"), EC_KEY, algorithm="ES256")
    assert (await verifier.verify(token)).scopes == frozenset({"x", "y"})


# ---------------------------------------------------------------------------- tools


async def test_without_authentication_a_tool_sees_no_access_token() -> None:
    mcp = Server("open")

    @mcp.tool()
    def whoami(ctx: Context) -> str:
        return repr(ctx.access_token)

    for revision in ("2025-11-25", MODERN):
        async with checked_client(mcp, revision) as client:
            result = await client.call_tool("whoami", {})
            assert result.content[0]["text"] == "None"
