"""The client's requests to an authorization server: tokens, and registering itself.

:func:`request_tokens` posts a grant to the token endpoint, authenticating the client the
way its registration says (``client_secret_basic``, ``client_secret_post``, or ``none`` for
a public client, which only names itself); :func:`tokens_from` reads the answer.
:func:`register_client` is RFC 7591 dynamic registration as a public client. Token values
never reach an error message or a log line.
"""

from __future__ import annotations

import base64
import logging
import time
from typing import Any
from urllib.parse import quote, urlsplit

from ...errors import ClientError
from .discovery import FETCH_TIMEOUT, is_loopback
from .dpop import DPoPKey
from .storage import Registration, Tokens

logger = logging.getLogger("toolwire.client")

JSON = dict[str, Any]


async def _post(
    http: Any, endpoint: str, what: str, *, seen: dict[str, str] | None = None, **request: Any
) -> tuple[int, Any]:
    """POST to ``endpoint``: the status and the JSON answer (None if it is not JSON);
    ``seen`` receives the answer's ``DPoP-Nonce``, if any."""
    try:
        response = await http.post(endpoint, timeout=FETCH_TIMEOUT, **request)
    except Exception as exc:
        raise ClientError(f"The {what} {endpoint} is unreachable: {exc}") from exc
    if seen is not None and response.headers.get("dpop-nonce"):
        seen["nonce"] = response.headers["dpop-nonce"]
    try:
        return response.status_code, response.json()
    except ValueError:
        return response.status_code, None


async def request_tokens(
    http: Any,
    endpoint: str,
    registration: Registration,
    grant: dict[str, str],
    dpop: DPoPKey | None = None,
    *,
    token_types: tuple[str, ...] = ("bearer",),
) -> JSON:
    """The token endpoint's answer to ``grant`` (a successful one, or :class:`ClientError`).

    ``token_types`` are the ``token_type`` values accepted in the answer (lower case). With
    ``dpop``, the request carries a DPoP proof (RFC 9449 §5), sent once more with the
    server's nonce when it answers ``use_dpop_nonce`` (§8), and a DPoP token is accepted."""
    headers = {"Accept": "application/json"}
    data = dict(grant)
    secret, method = registration.client_secret, registration.token_endpoint_auth_method
    if secret and method == "client_secret_basic":
        pair = f"{quote(registration.client_id, safe='')}:{quote(secret, safe='')}"
        headers["Authorization"] = "Basic " + base64.b64encode(pair.encode()).decode("ascii")
    else:
        if registration.client_id:  # a workload may authenticate by its assertion alone
            data["client_id"] = registration.client_id
        if secret and method == "client_secret_post":
            data["client_secret"] = secret
    for attempt in range(2 if dpop is not None else 1):
        seen: dict[str, str] = {}
        if dpop is not None:
            headers["DPoP"] = dpop.proof("POST", endpoint)
        status, answer = await _post(
            http, endpoint, "token endpoint", data=data, headers=headers, seen=seen
        )
        if dpop is None:
            break
        dpop.remember_nonce(endpoint, seen.get("nonce"))
        retry = status == 400 and isinstance(answer, dict) and seen.get("nonce")
        if not (retry and answer.get("error") == "use_dpop_nonce" and attempt == 0):
            break
    if status != 200 or not isinstance(answer, dict):
        error = answer.get("error") if isinstance(answer, dict) else None
        raise ClientError(
            f"The token endpoint {endpoint} refused the {grant['grant_type']} grant "
            f"(HTTP {status}{f': {error}' if isinstance(error, str) else ''})"
        )
    access, kind = answer.get("access_token"), answer.get("token_type")
    kinds = (*token_types, "dpop") if dpop is not None else token_types
    if not isinstance(access, str) or not access or str(kind).lower() not in kinds:
        raise ClientError(
            f"The token endpoint {endpoint} returned no {' or '.join(kinds)} access token"
        )
    return answer


def tokens_from(
    answer: JSON,
    requested: tuple[str, ...],
    granted: tuple[str, ...],
    refresh_token: str | None = None,
) -> Tokens:
    """Tokens from a token response; what it leaves out keeps the value known before
    (``granted`` scopes, the ``refresh_token`` in use)."""
    lifetime = answer.get("expires_in")
    scope = answer.get("scope")
    refresh = answer.get("refresh_token")
    expires_at = None
    if isinstance(lifetime, (int, float)) and not isinstance(lifetime, bool):
        expires_at = time.time() + lifetime
    return Tokens(
        access_token=answer["access_token"],
        refresh_token=refresh if isinstance(refresh, str) and refresh else refresh_token,
        expires_at=expires_at,
        scopes=tuple(scope.split()) if isinstance(scope, str) else granted,
        requested=requested,
        token_type="DPoP" if str(answer.get("token_type")).lower() == "dpop" else "Bearer",
    )


async def register_client(
    http: Any, endpoint: str, client_name: str, redirect_uri: str
) -> Registration:
    """Dynamic client registration (RFC 7591) as a public client; a loopback redirect
    makes it a ``native`` application (AU-13)."""
    native = is_loopback(urlsplit(redirect_uri).hostname)
    body = {
        "client_name": client_name,
        "redirect_uris": [redirect_uri],
        "grant_types": ["authorization_code", "refresh_token"],
        "response_types": ["code"],
        "token_endpoint_auth_method": "none",
        "application_type": "native" if native else "web",
    }
    headers = {"Accept": "application/json"}
    status, answer = await _post(
        http, endpoint, "registration endpoint", json=body, headers=headers
    )
    client_id = answer.get("client_id") if isinstance(answer, dict) else None
    if status not in (200, 201) or not isinstance(answer, dict) or not isinstance(client_id, str):
        raise ClientError(
            f"The registration endpoint {endpoint} refused this client (HTTP {status})"
        )
    method = answer.get("token_endpoint_auth_method")
    secret = answer.get("client_secret")
    if not isinstance(method, str):
        method = "client_secret_basic" if isinstance(secret, str) else "none"
    secret = secret if isinstance(secret, str) and method != "none" else None
    logger.info("Registered as client %s at %s", client_id, endpoint)
    return Registration(client_id, redirect_uri, secret, method)
