"""The grants for machines (``toolwire.client.oauth.machine``), end to end on 127.0.0.1.

The real Authlib authorization server of ``oauth_server`` (client credentials and jwt-bearer
grants, ``private_key_jwt``: ``oauth_machine_server``), an enterprise identity provider
exchanging ID tokens for ID-JAGs, and a toolwire server behind ``ResourceServer`` with a
``JWTVerifier``, all behind uvicorn; every MCP message checked against the negotiated
revision's schema. Covered for each grant: the call succeeds with a token for the right
subject, client and resource; a wrong secret, key or assertion gives one clear error after
one token request; an expired token is replaced before it is sent; a refused token is
replaced once, refused again it is an error; no secret, assertion or token in any log line
or error text.
"""

from __future__ import annotations

import asyncio
import base64
import functools
import json
import logging
import secrets
import time
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from joserfc import jwt
from joserfc.jwk import ECKey, RSAKey

from toolwire.client import ClientCredentials, EnterpriseAuthorization, WorkloadIdentity
from toolwire.client.oauth.storage import MemoryStorage
from toolwire.errors import ClientError, Unauthorized

from oauth_helpers import BOTH_ERAS, MODERN, READ, identity_provider, protected
from oauth_machine_server import JWT_BEARER
from oauth_server import OAuthServer, Recorder
from wire import checked_client

pytestmark = pytest.mark.timeout(30)

SECRET = "cc-secret-" + secrets.token_hex(12)
WRONG_SECRET = "cc-wrong-" + secrets.token_hex(12)
PLATFORM = "https://platform.example.test"  # the workload identity issuer
WORKLOAD = "system:serviceaccount:ci:agent"


@functools.cache
def rsa_pem() -> str:
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    return key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    ).decode()


def ec_jwk(kid: str = "ec-1") -> dict[str, Any]:
    return ECKey.generate_key("P-256", parameters={"kid": kid}).as_dict(private=True)


def public_of(key: str | dict[str, Any]) -> Any:
    if isinstance(key, str):
        return RSAKey.import_key(key)
    return ECKey.import_key(key)


@functools.lru_cache(maxsize=1)
def platform_key() -> ECKey:
    return ECKey.generate_key("P-256", parameters={"kid": "platform"})


def workload_jwt(audience: str, lifetime: int = 300) -> str:
    now = int(time.time())
    claims = {"iss": PLATFORM, "sub": WORKLOAD, "aud": audience, "iat": now, "exp": now + lifetime}
    return jwt.encode({"alg": "ES256", "kid": "platform"}, claims, platform_key())


def claims_of(token: str) -> tuple[dict[str, Any], dict[str, Any]]:
    def part(text: str) -> dict[str, Any]:
        return json.loads(base64.urlsafe_b64decode(text + "=" * (-len(text) % 4)))

    header, payload, _ = token.split(".")
    return part(header), part(payload)


def token_requests(server: OAuthServer) -> list[Any]:
    return server.requests_to("/token")


def expire(storage: MemoryStorage) -> None:
    for tokens in storage.tokens.values():
        tokens.expires_at = time.time() - 1


def refusals(recorder: Recorder) -> int:
    return sum(1 for seen in recorder.seen if seen.path == "/mcp" and seen.status == 401)


# ---------------------------------------------------------------- client credentials


@pytest.mark.parametrize("method", ["client_secret_basic", "client_secret_post"])
@pytest.mark.parametrize("revision", BOTH_ERAS)
async def test_client_credentials_with_a_secret(
    auth_server: OAuthServer, method: str, revision: str
) -> None:
    auth_server.register_machine("ci-job", secret=SECRET)
    if method == "client_secret_post":  # basic is preferred where it is offered
        auth_server.token_endpoint_auth_methods = ["client_secret_post"]
    with protected(auth_server) as mcp:
        auth = ClientCredentials("ci-job", SECRET)
        async with checked_client(mcp.url, revision, auth=auth) as client:
            result = await client.call_tool("whoami", {})
            assert (await client.call_tool("whoami", {})).text == result.text
    assert result.text == f"ci-job ci-job {READ}"
    (token,) = token_requests(auth_server)  # kept for the second call
    assert token.params["grant_type"] == "client_credentials"
    assert token.params["resource"] == mcp.url
    assert token.params["scope"] == READ  # from the challenge
    if method == "client_secret_basic":
        assert token.authorization is not None and token.authorization.startswith("Basic ")
        assert "client_secret" not in token.params
    else:
        assert token.authorization is None and token.params["client_secret"] == SECRET
    assert not auth_server.requests_to("/authorize") and not auth_server.requests_to("/register")


@pytest.mark.parametrize("kind", ["rsa-pem", "ec-jwk"])
async def test_client_credentials_with_private_key_jwt(auth_server: OAuthServer, kind: str) -> None:
    key: str | dict[str, Any] = rsa_pem() if kind == "rsa-pem" else ec_jwk("ec-1")
    auth_server.register_machine("signer", public_key=public_of(key))
    auth = ClientCredentials(
        "signer", private_key=key, key_id="rsa-1" if kind == "rsa-pem" else None
    )
    with protected(auth_server) as mcp:
        async with checked_client(mcp.url, MODERN, auth=auth) as client:
            result = await client.call_tool("whoami", {})
    assert result.text == f"signer signer {READ}"
    (token,) = token_requests(auth_server)
    assert token.authorization is None and "client_secret" not in token.params
    assert token.params["client_assertion_type"] == (
        "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
    )
    header, claims = claims_of(token.params["client_assertion"])
    assert header["alg"] == ("RS256" if kind == "rsa-pem" else "ES256")
    assert header["kid"] == ("rsa-1" if kind == "rsa-pem" else "ec-1")
    assert claims["iss"] == claims["sub"] == "signer"
    assert claims["aud"] == auth_server.issuer
    assert 0 < claims["exp"] - claims["iat"] <= 60 and len(claims["jti"]) >= 16


@pytest.mark.parametrize("wrong", ["secret", "key", "client"])
async def test_a_refused_client_is_one_clear_error(auth_server: OAuthServer, wrong: str) -> None:
    auth_server.register_machine("ci-job", secret=SECRET)
    auth_server.register_machine("signer", public_key=public_of(ec_jwk()))
    auth = {
        "secret": ClientCredentials("ci-job", WRONG_SECRET),
        "key": ClientCredentials("signer", private_key=ec_jwk()),  # not the registered key
        "client": ClientCredentials("nobody", SECRET),
    }[wrong]
    with protected(auth_server) as mcp, pytest.raises(Unauthorized) as refused:
        async with checked_client(mcp.url, MODERN, auth=auth) as client:
            await client.call_tool("whoami", {})
    text = str(refused.value)
    assert "refused the client_credentials grant" in text and "invalid_client" in text
    assert SECRET not in text and WRONG_SECRET not in text
    assert len(token_requests(auth_server)) == 1  # never retried


async def test_the_arguments_are_checked() -> None:
    with pytest.raises(ValueError, match="client_secret= or private_key="):
        ClientCredentials("ci-job")
    with pytest.raises(ValueError, match="not both"):
        ClientCredentials("ci-job", SECRET, private_key=ec_jwk())
    with pytest.raises(ValueError, match="neither a PEM private key") as bad:
        ClientCredentials("ci-job", private_key="-----BEGIN PRIVATE KEY-----\nnot-a-key\n")
    assert "not-a-key" not in str(bad.value)
    with pytest.raises(ValueError, match="token_file= or token="):
        WorkloadIdentity()
    assert SECRET not in repr(ClientCredentials("ci-job", SECRET))


async def test_an_expired_token_is_replaced_before_it_is_sent(auth_server: OAuthServer) -> None:
    auth_server.register_machine("ci-job", secret=SECRET)
    storage = MemoryStorage()
    auth = ClientCredentials("ci-job", SECRET, storage=storage)
    with protected(auth_server) as mcp:
        async with checked_client(mcp.url, MODERN, auth=auth) as client:
            await client.call_tool("whoami", {})
            (first,) = storage.tokens.values()
            expire(storage)
            await client.call_tool("whoami", {})
            (second,) = storage.tokens.values()
        assert refusals(mcp) == 1  # only the first request, which had no token
    assert first.access_token != second.access_token
    assert len(token_requests(auth_server)) == 2


async def test_a_refused_token_is_replaced_once(auth_server: OAuthServer) -> None:
    auth_server.register_machine("ci-job", secret=SECRET)
    auth = ClientCredentials("ci-job", SECRET)
    revoked = 'Bearer error="invalid_token", error_description="revoked"'
    with protected(auth_server) as mcp:
        async with checked_client(mcp.url, MODERN, auth=auth) as client:
            await client.call_tool("whoami", {})
            mcp.refuse("POST", revoked)
            assert (await client.call_tool("whoami", {})).text.startswith("ci-job ")
            assert len(token_requests(auth_server)) == 2
            mcp.refuse("POST", revoked)
            mcp.refuse("POST", revoked)
            with pytest.raises(ClientError, match="rejected the access token") as refused:
                await client.call_tool("whoami", {})
    assert len(token_requests(auth_server)) == 3  # one new token, not more
    assert "revoked" in str(refused.value)


# ---------------------------------------------------------------- workload identity


@pytest.mark.parametrize("source", ["file", "callable", "async-callable"])
async def test_workload_identity(auth_server: OAuthServer, tmp_path: Path, source: str) -> None:
    auth_server.register_machine("ci-agent")
    auth_server.federate(
        PLATFORM, ECKey.import_key(platform_key().as_dict(private=False)), "ci-agent"
    )
    path = tmp_path / "token"
    path.write_text(workload_jwt(auth_server.issuer) + "\n")
    made: list[str] = []

    def issue() -> str:
        made.append(workload_jwt(auth_server.issuer))
        return made[-1]

    async def issue_later() -> str:
        await asyncio.sleep(0)
        return issue()

    storage = MemoryStorage()
    auth = {
        "file": WorkloadIdentity(path, storage=storage),
        "callable": WorkloadIdentity(token=issue, storage=storage),
        "async-callable": WorkloadIdentity(token=issue_later, storage=storage),
    }[source]
    with protected(auth_server) as mcp:
        async with checked_client(mcp.url, MODERN, auth=auth) as client:
            result = await client.call_tool("whoami", {})
            rotated = workload_jwt(auth_server.issuer, lifetime=600)
            path.write_text(rotated)  # the platform rotates the file in place
            expire(storage)
            await client.call_tool("whoami", {})
    assert result.text == f"{WORKLOAD} ci-agent {READ}"
    first, second = token_requests(auth_server)
    assert first.params["grant_type"] == JWT_BEARER
    assert first.params["resource"] == mcp.url and first.params["scope"] == READ
    assert "client_id" not in first.params and first.authorization is None
    assert first.params["assertion"] != second.params["assertion"]  # read again
    if source == "file":
        assert second.params["assertion"] == rotated
    else:
        assert [first.params["assertion"], second.params["assertion"]] == made


@pytest.mark.parametrize("bad", ["expired", "wrong-audience", "missing-file", "empty"])
async def test_a_bad_workload_token_is_one_clear_error(
    auth_server: OAuthServer, tmp_path: Path, bad: str
) -> None:
    auth_server.register_machine("ci-agent")
    auth_server.federate(
        PLATFORM, ECKey.import_key(platform_key().as_dict(private=False)), "ci-agent"
    )
    path = tmp_path / "token"
    token = {
        "expired": workload_jwt(auth_server.issuer, lifetime=-60),
        "wrong-audience": workload_jwt("https://elsewhere.example"),
        "empty": " \n",
    }.get(bad)
    if token is not None:
        path.write_text(token)
    with protected(auth_server) as mcp, pytest.raises(Unauthorized) as refused:
        async with checked_client(mcp.url, MODERN, auth=WorkloadIdentity(path)) as client:
            await client.call_tool("whoami", {})
    text = str(refused.value)
    if bad in ("expired", "wrong-audience"):
        assert f"refused the {JWT_BEARER} grant" in text and "invalid_grant" in text
        assert len(token_requests(auth_server)) == 1  # no retry, no other grant
        assert token is not None and token not in text
    else:
        assert "workload identity token" in text
        assert not token_requests(auth_server)


# ---------------------------------------------------------------- enterprise-managed


async def test_enterprise_managed_authorization(auth_server: OAuthServer) -> None:
    auth_server.register_machine("agent", secret=SECRET)
    with identity_provider(auth_server) as idp, protected(auth_server) as mcp:
        id_tokens: list[str] = []

        def id_token() -> str:
            id_tokens.append(idp.id_token("idp-agent"))
            return id_tokens[-1]

        auth = EnterpriseAuthorization(
            idp_token_endpoint=idp.token_endpoint,
            id_token=id_token,
            idp_client_id="idp-agent",
            client_id="agent",
            client_secret=SECRET,
        )
        async with checked_client(mcp.url, MODERN, auth=auth) as client:
            result = await client.call_tool("whoami", {})
    assert result.text == f"alice agent {READ}"
    (exchange,) = idp.received
    assert exchange.status == 200
    assert exchange.params["grant_type"] == "urn:ietf:params:oauth:grant-type:token-exchange"
    assert exchange.params["requested_token_type"] == "urn:ietf:params:oauth:token-type:id-jag"
    assert exchange.params["subject_token_type"] == "urn:ietf:params:oauth:token-type:id_token"
    assert exchange.params["subject_token"] == id_tokens[0]
    assert exchange.params["audience"] == auth_server.issuer
    assert exchange.params["resource"] == mcp.url
    assert exchange.params["client_id"] == "idp-agent"
    (token,) = token_requests(auth_server)
    assert token.params["grant_type"] == JWT_BEARER
    assert token.params["assertion"] == idp.issued[0]
    assert token.params["resource"] == mcp.url
    assert token.authorization is not None and token.authorization.startswith("Basic ")


@pytest.mark.parametrize("bad", ["expired-id-token", "wrong-secret"])
async def test_a_refused_enterprise_authorization_is_one_clear_error(
    auth_server: OAuthServer, bad: str
) -> None:
    auth_server.register_machine("agent", secret=SECRET)
    with identity_provider(auth_server) as idp, protected(auth_server) as mcp:
        lifetime = -60 if bad == "expired-id-token" else 300
        id_token = idp.id_token("idp-agent", lifetime=lifetime)
        auth = EnterpriseAuthorization(
            idp.token_endpoint,
            id_token,
            "agent",
            WRONG_SECRET if bad == "wrong-secret" else SECRET,
            idp_client_id="idp-agent",
        )
        with pytest.raises(Unauthorized) as refused:
            async with checked_client(mcp.url, MODERN, auth=auth) as client:
                await client.call_tool("whoami", {})
    text = str(refused.value)
    assert id_token not in text and SECRET not in text and WRONG_SECRET not in text
    if bad == "expired-id-token":
        assert idp.token_endpoint in text and "invalid_grant" in text
        assert not token_requests(auth_server)
    else:
        assert f"refused the {JWT_BEARER} grant" in text and "invalid_client" in text
        assert len(token_requests(auth_server)) == 1 and len(idp.received) == 1


# ---------------------------------------------------------------- nothing secret is logged


async def test_no_secret_assertion_or_token_in_logs_or_errors(
    auth_server: OAuthServer, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)  # every logger, toolwire's and the libraries'
    errors: list[str] = []
    key = ec_jwk()
    auth_server.register_machine("ci-job", secret=SECRET)
    auth_server.register_machine("signer", public_key=public_of(key))
    auth_server.register_machine("ci-agent")
    auth_server.register_machine("agent", secret=SECRET)
    auth_server.federate(
        PLATFORM, ECKey.import_key(platform_key().as_dict(private=False)), "ci-agent"
    )
    path = tmp_path / "token"
    path.write_text(workload_jwt(auth_server.issuer))
    with identity_provider(auth_server) as idp, protected(auth_server) as mcp:
        id_token = idp.id_token("idp-agent")
        expired_id_token = idp.id_token("idp-agent", lifetime=-60)
        expired_workload = workload_jwt(auth_server.issuer, lifetime=-60)
        flows = [
            ClientCredentials("ci-job", SECRET),
            ClientCredentials("signer", private_key=key),
            WorkloadIdentity(path),
            EnterpriseAuthorization(
                idp.token_endpoint, id_token, "agent", SECRET, idp_client_id="idp-agent"
            ),
            ClientCredentials("ci-job", WRONG_SECRET),
            ClientCredentials("signer", private_key=ec_jwk()),
            WorkloadIdentity(token=expired_workload),
            EnterpriseAuthorization(
                idp.token_endpoint, expired_id_token, "agent", SECRET, idp_client_id="idp-agent"
            ),
        ]
        for auth in flows:
            try:
                async with checked_client(mcp.url, MODERN, auth=auth) as client:
                    await client.call_tool("whoami", {})
                    expire(auth.storage)  # type: ignore[arg-type]
                    await client.call_tool("whoami", {})
                    mcp.refuse("POST", 'Bearer error="invalid_token"')
                    mcp.refuse("POST", 'Bearer error="invalid_token"')
                    await client.call_tool("whoami", {})
            except ClientError as exc:
                errors.append(f"{exc!r} {exc}")
            errors.append(repr(auth))
    assert len(errors) == 2 * 8  # every flow ends in an error (a refused token at the end)
    secret_values = {SECRET, WRONG_SECRET, id_token, expired_id_token, expired_workload}
    secret_values |= {path.read_text()}
    secret_values |= set(auth_server.tokens)  # every access token issued
    secret_values |= set(idp.issued)  # every ID-JAG
    for request in token_requests(auth_server):
        for name in ("client_assertion", "assertion", "client_secret"):
            if name in request.params:
                secret_values.add(request.params[name])
        if request.authorization:
            secret_values.add(request.authorization.split()[-1])
    secret_values |= {str(key["d"])}
    assert len(secret_values) > 12
    # Everything the client side logged: the authorization server runs in this process,
    # and Authlib's own debug lines (the server's) name the tokens it issues.
    lines = [r.getMessage() for r in caplog.records if not r.name.startswith("authlib")]
    logged = "\n".join(lines + errors)
    assert "Requesting a token from" in logged  # the flows did log
    for value in secret_values:
        assert value not in logged
        for part in value.split(".")[1:] if value.count(".") == 2 else ():
            assert part not in logged  # nor the claims or signature of a JWT


async def test_no_pkce_or_authorization_endpoint_needed(auth_server: OAuthServer) -> None:
    """A grant for machines uses only the token endpoint: an authorization server without
    PKCE (which OAuth's code flow refuses) serves it."""
    auth_server.register_machine("ci-job", secret=SECRET)
    auth_server.code_challenge_methods = []
    with protected(auth_server) as mcp:
        async with checked_client(mcp.url, MODERN, auth=ClientCredentials("ci-job", SECRET)) as c:
            assert (await c.call_tool("whoami", {})).text.startswith("ci-job ")


async def test_a_token_source_that_hangs_or_fails_is_one_clear_error(
    auth_server: OAuthServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("toolwire.client.oauth.machine.FETCH_TIMEOUT", 0.2)
    never = asyncio.Event()

    async def hangs() -> str:
        await never.wait()
        return "never"

    def fails() -> str:
        raise RuntimeError(f"the platform said {SECRET}")

    with protected(auth_server) as mcp:
        for source, expected in ((hangs, "took more than 0.2s"), (fails, "RuntimeError")):
            with pytest.raises(Unauthorized, match=expected) as refused:
                async with checked_client(mcp.url, MODERN, auth=WorkloadIdentity(token=source)):
                    pass
            assert SECRET not in str(refused.value)
    assert not token_requests(auth_server)


@pytest.mark.parametrize("grant", ["secret", "private-key-jwt", "workload", "enterprise"])
async def test_each_grant_renews_expired_and_refused_tokens(
    auth_server: OAuthServer, tmp_path: Path, grant: str
) -> None:
    key = ec_jwk()
    auth_server.register_machine("ci-job", secret=SECRET)
    auth_server.register_machine("signer", public_key=public_of(key))
    auth_server.register_machine("ci-agent")
    auth_server.register_machine("agent", secret=SECRET)
    auth_server.federate(
        PLATFORM, ECKey.import_key(platform_key().as_dict(private=False)), "ci-agent"
    )
    path = tmp_path / "token"
    path.write_text(workload_jwt(auth_server.issuer))
    storage = MemoryStorage()
    revoked = f'Bearer error="invalid_token", scope="{READ}"'  # as toolwire's server says
    with identity_provider(auth_server) as idp, protected(auth_server) as mcp:
        auth = {
            "secret": lambda: ClientCredentials("ci-job", SECRET, storage=storage),
            "private-key-jwt": lambda: ClientCredentials(
                "signer", private_key=key, storage=storage
            ),
            "workload": lambda: WorkloadIdentity(path, storage=storage),
            "enterprise": lambda: EnterpriseAuthorization(
                idp.token_endpoint,
                lambda: idp.id_token("idp-agent"),
                "agent",
                SECRET,
                idp_client_id="idp-agent",
                storage=storage,
            ),
        }[grant]()
        async with checked_client(mcp.url, MODERN, auth=auth) as client:
            first = (await client.call_tool("whoami", {})).text
            expire(storage)  # replaced before it is sent
            assert (await client.call_tool("whoami", {})).text == first
            assert refusals(mcp) == 1
            mcp.refuse("POST", revoked)  # replaced once
            assert (await client.call_tool("whoami", {})).text == first
            assert len(token_requests(auth_server)) == 3
            mcp.refuse("POST", revoked)
            mcp.refuse("POST", revoked)
            with pytest.raises(ClientError, match="rejected the access token"):
                await client.call_tool("whoami", {})
    assert len(token_requests(auth_server)) == 4
    assert len(
        {request.params.get("client_assertion") for request in token_requests(auth_server)}
    ) in (1, 4)
    if grant == "enterprise":
        assert len(idp.received) == 4  # a new ID-JAG for each grant
