"""DPoP (RFC 9449) end to end over real HTTP on 127.0.0.1: toolwire's client against the
test authorization server issuing DPoP-bound tokens, and toolwire's resource server
(``ResourceServer(..., dpop=DPoPVerifier())`` behind uvicorn) checking the proofs.

The client side: ``OAuth(dpop=True)`` sends a proof with its token request, gets a token
bound to its key (``cnf.jkt``), presents it as ``Authorization: DPoP`` with a fresh proof on
every request; it retries once with the nonce the authorization server or the MCP server
asks for; it falls back to bearer where the authorization server has no DPoP. The server
side: proofs are built here with PyJWT and ``cryptography`` directly (not with toolwire's
client), and each broken one is refused: a replay, another key, wrong ``htu``/``htm``, a
stale ``iat``, a missing or wrong ``ath``, two proofs, a bound token used as a bearer token.
No proof nor token reaches a log line or an error text.
"""

from __future__ import annotations

import hashlib
import logging
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import httpx
import jwt
import pytest
from cryptography.hazmat.primitives.asymmetric import ec
from joserfc.jwk import ECKey

from toolwire.auth import DPoPVerifier, IntrospectionVerifier, JWTVerifier
from toolwire.client import DPoPKey
from toolwire.client.oauth.flow import DEFAULT_REDIRECT_URI, OAuth

from dpop_helpers import INITIALIZE, Holder, b64url, post, refused
from oauth_authlib import Client as AuthlibClient
from oauth_helpers import BOTH_ERAS, LEGACY, READ, TIMEOUT, Browser, files_server, resource_server
from oauth_server import INTROSPECTOR, OAuthServer, Recorder, serve_protected
from wire import checked_client

pytestmark = pytest.mark.timeout(30)


@contextmanager
def dpop_protected(
    auth_server: OAuthServer, introspect: bool = False, **options: Any
) -> Iterator[Recorder]:
    """The files server behind a resource server that accepts DPoP-bound tokens, checked
    as JWTs (or by introspection, RFC 7662, with ``introspect``)."""

    def build(url: str) -> Any:
        verifier: Any = JWTVerifier(
            issuer=auth_server.issuer, audience=url, jwks_url=f"{auth_server.base}/jwks"
        )
        if introspect:
            verifier = IntrospectionVerifier(
                f"{auth_server.base}/introspect",
                client_id=INTROSPECTOR[0],
                client_secret=INTROSPECTOR[1],
                audience=url,
                issuer=auth_server.issuer,
            )
        auth = resource_server(url, auth_server.issuer, verifier)
        auth.dpop = DPoPVerifier(**options)
        return files_server().http_app("/mcp", auth=auth)

    with serve_protected(build) as recorder:
        yield recorder


def bound_token(auth_server: OAuthServer, resource: str, jkt: str | None) -> str:
    """An access token of the test authorization server, bound to ``jkt`` when given."""
    auth_server._binding = jkt
    try:
        client = AuthlibClient("files-app", [DEFAULT_REDIRECT_URI])
        return str(auth_server.issue(client, READ, resource)["access_token"])
    finally:
        auth_server._binding = None


# ---------------------------------------------------------------------------- the client


@pytest.mark.parametrize("revision", BOTH_ERAS)
async def test_client_binds_its_token_and_proves_every_request(
    auth_server: OAuthServer, revision: str
) -> None:
    auth_server.dpop = ["ES256", "RS256"]
    auth_server.register_client("files-app", redirect_uris=[DEFAULT_REDIRECT_URI])
    auth = OAuth(client_id="files-app", authorize=Browser(), dpop=True)
    assert auth.dpop is not None
    with dpop_protected(auth_server) as mcp:
        async with checked_client(mcp.url, revision, auth=auth) as client:
            result = await client.call_tool("whoami", {})
            await client.list_tools()
    assert result.text == "alice files-app files:read"
    (token_request,) = auth_server.requests_to("/token")
    assert token_request.dpop is not None
    header = jwt.get_unverified_header(token_request.dpop)
    assert header["typ"] == "dpop+jwt" and header["alg"] == "ES256" and "d" not in header["jwk"]
    token_proof = jwt.decode(token_request.dpop, options={"verify_signature": False})
    assert token_proof["htm"] == "POST" and token_proof["htu"] == f"{auth_server.base}/token"
    assert "ath" not in token_proof
    endpoint = [seen for seen in mcp.seen if seen.path == "/mcp"]
    assert endpoint[0].status == 401 and endpoint[0].authorization is None
    jtis = set()
    for seen in endpoint[1:]:
        assert seen.status in (200, 202) and seen.authorization is not None
        scheme, token = seen.authorization.split(" ")
        assert scheme == "DPoP"
        claims = jwt.decode(token, options={"verify_signature": False})
        assert claims["cnf"]["jkt"] == auth.dpop.jkt
        assert seen.dpop is not None
        proof = jwt.decode(seen.dpop, options={"verify_signature": False})
        assert proof["htm"] == seen.method and proof["htu"] == mcp.url
        assert proof["ath"] == b64url(hashlib.sha256(token.encode()).digest())
        jtis.add(proof["jti"])
    assert len(jtis) == len(endpoint) - 1  # a fresh proof each time


async def test_client_uses_the_key_it_is_given(auth_server: OAuthServer) -> None:
    auth_server.dpop = ["ES384"]
    auth_server.register_client("files-app", redirect_uris=[DEFAULT_REDIRECT_URI])
    key = DPoPKey(ec.generate_private_key(ec.SECP384R1()))
    auth = OAuth(client_id="files-app", authorize=Browser(), dpop=key)
    with dpop_protected(auth_server) as mcp:
        async with checked_client(mcp.url, LEGACY, auth=auth) as client:
            assert (await client.call_tool("whoami", {})).text.startswith("alice")
    (token_request,) = auth_server.requests_to("/token")
    assert jwt.get_unverified_header(token_request.dpop or "")["alg"] == "ES384"
    assert key.jkt == ECKey.import_key(key.jwk).thumbprint()


async def test_authorization_server_nonce_round_trip(auth_server: OAuthServer) -> None:
    auth_server.dpop = ["ES256"]
    auth_server.dpop_nonce = "as-nonce-1"
    auth_server.register_client("files-app", redirect_uris=[DEFAULT_REDIRECT_URI])
    auth = OAuth(client_id="files-app", authorize=Browser(), dpop=True)
    with dpop_protected(auth_server) as mcp:
        async with checked_client(mcp.url, LEGACY, auth=auth) as client:
            await client.call_tool("whoami", {})
    first, second = auth_server.requests_to("/token")
    assert "nonce" not in jwt.decode(first.dpop or "", options={"verify_signature": False})
    again = jwt.decode(second.dpop or "", options={"verify_signature": False})
    assert again["nonce"] == "as-nonce-1"
    # the resource server gave no nonce: the authorization server's stays its own
    for seen in mcp.seen:
        if seen.dpop:
            assert "nonce" not in jwt.decode(seen.dpop, options={"verify_signature": False})


@pytest.mark.parametrize("revision", BOTH_ERAS)
async def test_resource_server_nonce_round_trip(auth_server: OAuthServer, revision: str) -> None:
    auth_server.dpop = ["ES256"]
    auth_server.register_client("files-app", redirect_uris=[DEFAULT_REDIRECT_URI])
    auth = OAuth(client_id="files-app", authorize=Browser(), dpop=True)
    with dpop_protected(auth_server, nonce=True) as mcp:
        async with checked_client(mcp.url, revision, auth=auth) as client:
            assert (await client.call_tool("whoami", {})).text.startswith("alice")
            await client.list_tools()
    with_token = [s for s in mcp.seen if s.path == "/mcp" and s.authorization]
    assert with_token[0].status == 401  # use_dpop_nonce, once
    assert all(seen.status in (200, 202) for seen in with_token[1:])
    nonces = [jwt.decode(s.dpop or "", options={"verify_signature": False}) for s in with_token]
    assert "nonce" not in nonces[0]
    assert all(claims["nonce"] for claims in nonces[1:])
    assert len(auth_server.requests_to("/token")) == 1  # the token itself was fine


async def test_falls_back_to_bearer_without_dpop_at_the_authorization_server(
    auth_server: OAuthServer,
) -> None:
    auth_server.register_client("files-app", redirect_uris=[DEFAULT_REDIRECT_URI])
    auth = OAuth(client_id="files-app", authorize=Browser(), dpop=True)
    with dpop_protected(auth_server) as mcp:
        async with checked_client(mcp.url, LEGACY, auth=auth) as client:
            assert (await client.call_tool("whoami", {})).text.startswith("alice")
    assert all(s.dpop is None for s in mcp.seen)
    assert all(s.authorization.startswith("Bearer ") for s in mcp.seen[1:] if s.authorization)


async def test_client_refuses_an_authorization_server_without_its_algorithm(
    auth_server: OAuthServer,
) -> None:
    auth_server.dpop = ["RS256"]
    auth_server.register_client("files-app", redirect_uris=[DEFAULT_REDIRECT_URI])
    browser = Browser()
    auth = OAuth(client_id="files-app", authorize=browser, dpop=True)
    with dpop_protected(auth_server) as mcp, pytest.raises(Exception, match="ES256"):
        async with checked_client(mcp.url, LEGACY, auth=auth) as client:
            await client.list_tools()
    assert not auth_server.requests_to("/token")


# ---------------------------------------------------------------------------- the server


@pytest.mark.parametrize("introspect", [False, True], ids=["jwt", "introspection"])
async def test_resource_server_checks_every_part_of_the_proof(
    auth_server: OAuthServer, introspect: bool
) -> None:
    holder, other = Holder(), Holder()
    with dpop_protected(auth_server, introspect) as mcp:
        url = mcp.url
        token = bound_token(auth_server, url, holder.jkt)

        def dpop(proof: str) -> dict[str, str]:
            return {"Authorization": f"DPoP {token}", "DPoP": proof}

        good = holder.proof("POST", url, token)
        assert (await post(url, dpop(good))).status_code == 200
        texts = [refused(await post(url, dpop(good)))]  # the same jti again
        assert "used before" in texts[-1]
        bad = {
            "another key": other.proof("POST", url, token),
            "htu": holder.proof("POST", url.replace("/mcp", "/other"), token),
            "htu query": holder.proof("POST", url + "?x=1", token),
            "htm": holder.proof("GET", url, token),
            "stale": holder.proof("POST", url, token, iat=int(time.time()) - 600),
            "future": holder.proof("POST", url, token, iat=int(time.time()) + 600),
            "no ath": holder.proof("POST", url, None),
            "wrong ath": holder.proof("POST", url, token, ath=b64url(b"x" * 32)),
            "no jti": holder.proof("POST", url, token, jti=None),
        }
        for what, proof in bad.items():
            texts.append(refused(await post(url, dpop(proof))))
            assert texts[-1], what
        hs256 = jwt.encode({"jti": "j", "htm": "POST", "htu": url}, "k" * 32, "HS256")
        texts.append(refused(await post(url, dpop(hs256))))
        typ = jwt.encode(
            {"jti": "k", "htm": "POST", "htu": url, "iat": int(time.time())},
            holder.key,
            "ES256",
            headers={"jwk": holder.jwk},
        )
        texts.append(refused(await post(url, dpop(typ))))
        texts.append(refused(await post(url, {"Authorization": f"DPoP {token}"})))  # no proof
        async with httpx.AsyncClient(timeout=TIMEOUT) as http:  # two proofs
            two = [("DPoP", holder.proof("POST", url, token)) for _ in range(2)]
            response = await http.post(
                url,
                json=INITIALIZE,
                headers=[("Authorization", f"DPoP {token}"), ("Accept", "application/json"), *two],
            )
        texts.append(refused(response))
        # a bound token used as a bearer token
        bearer = await post(url, {"Authorization": f"Bearer {token}"})
        assert bearer.status_code == 401 and bearer.json()["error"] == "invalid_token"
        # an unbound token presented with the DPoP scheme
        plain = bound_token(auth_server, url, None)
        unbound = await post(url, {"Authorization": f"DPoP {plain}", "DPoP": good})
        assert unbound.status_code == 401 and unbound.json()["error"] == "invalid_token"
        # an unbound bearer token is still fine (bearer stays accepted)
        assert (await post(url, {"Authorization": f"Bearer {plain}"})).status_code == 200
        async with httpx.AsyncClient(timeout=TIMEOUT) as http:
            metadata = (
                await http.get(mcp.url.replace("/mcp", "/.well-known/oauth-protected-resource/mcp"))
            ).json()
    assert metadata["dpop_signing_alg_values_supported"][0] == "ES256"
    assert metadata["dpop_bound_access_tokens_required"] is False
    for text in texts:
        assert token not in text and "eyJ" not in text


async def test_required_dpop_refuses_bearer_tokens(auth_server: OAuthServer) -> None:
    holder = Holder()
    with dpop_protected(auth_server, required=True) as mcp:
        plain = bound_token(auth_server, mcp.url, None)
        response = await post(mcp.url, {"Authorization": f"Bearer {plain}"})
        assert response.status_code == 401
        assert response.headers["www-authenticate"].startswith("DPoP ")
        token = bound_token(auth_server, mcp.url, holder.jkt)
        proof = holder.proof("POST", mcp.url, token)
        assert (
            await post(mcp.url, {"Authorization": f"DPoP {token}", "DPoP": proof})
        ).status_code == 200


async def test_resource_server_nonce_challenge(auth_server: OAuthServer) -> None:
    holder = Holder()
    with dpop_protected(auth_server, nonce=True) as mcp:
        token = bound_token(auth_server, mcp.url, holder.jkt)
        first = await post(
            mcp.url,
            {"Authorization": f"DPoP {token}", "DPoP": holder.proof("POST", mcp.url, token)},
        )
        refused(first, "use_dpop_nonce")
        nonce = first.headers["dpop-nonce"]
        forged = holder.proof("POST", mcp.url, token, nonce=nonce[:-2] + "xx")
        refused(
            await post(mcp.url, {"Authorization": f"DPoP {token}", "DPoP": forged}),
            "use_dpop_nonce",
        )
        proof = holder.proof("POST", mcp.url, token, nonce=nonce)
        assert (
            await post(mcp.url, {"Authorization": f"DPoP {token}", "DPoP": proof})
        ).status_code == 200


async def test_no_proof_or_token_in_logs(
    auth_server: OAuthServer, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    auth_server.dpop = ["ES256"]
    auth_server.dpop_nonce = "as-nonce"
    auth_server.register_client("files-app", redirect_uris=[DEFAULT_REDIRECT_URI])
    auth = OAuth(client_id="files-app", authorize=Browser(), dpop=True)
    holder = Holder()
    with dpop_protected(auth_server, nonce=True) as mcp:
        async with checked_client(mcp.url, LEGACY, auth=auth) as client:
            await client.call_tool("whoami", {})
        token = bound_token(auth_server, mcp.url, holder.jkt)
        replayed = holder.proof("POST", mcp.url, token)
        for _ in range(2):
            await post(mcp.url, {"Authorization": f"DPoP {token}", "DPoP": replayed})
        secrets_seen = [token, replayed]
        secrets_seen += [s.dpop for s in mcp.seen if s.dpop]
        secrets_seen += [s.authorization.split(" ")[1] for s in mcp.seen if s.authorization]
        secrets_seen += [r.dpop for r in auth_server.received if r.dpop]
    # toolwire's own records (the test authorization server and httpcore's traces print
    # tokens and headers at DEBUG: they are not toolwire)
    logged = "\n".join(
        f"{record.getMessage()} {record.exc_text or ''}"
        for record in caplog.records
        if record.name.startswith(("toolwire", "uvicorn"))
    )
    assert "Refused a DPoP proof" in logged  # the refusals were logged, without their proof
    for value in secrets_seen:
        assert value not in logged
        assert value.split(".")[2] not in logged  # not even the signature part
    assert repr(auth.dpop).startswith("DPoPKey(alg='ES256'")
