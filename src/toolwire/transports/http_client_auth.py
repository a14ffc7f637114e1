"""Authorizing the HTTP client transport's requests.

``auth`` is a fixed bearer token, or an object with the :class:`HttpAuth` calls
(``toolwire.client.oauth.flow.OAuth``): :func:`authorize_request` puts its
``Authorization: Bearer`` value on a request (every request, never in the URL: AU-17), and
:func:`answer_challenge` hands it a 401 or 403, which it may answer (a refreshed token, a new
authorization) so the request is sent again. The transport sends a request at most
:data:`MAX_AUTH_RETRIES` more times, whatever the scheme says.
"""

from __future__ import annotations

from typing import Any, Protocol

from ..errors import ClientError

MAX_AUTH_RETRIES = 3  # a refresh, a new authorization, and a token renewed meanwhile


class AuthFailed(Exception):
    """The authorization a 401 or 403 asked for could not be done; ``fatal`` for a 401
    (the server will not talk to this client at all)."""

    def __init__(self, text: str, *, fatal: bool) -> None:
        super().__init__(text)
        self.fatal = fatal


class HttpAuth(Protocol):
    """What the transport asks of an authorization scheme (``OAuth`` implements it)."""

    async def header(self, url: str, http: Any) -> str | None:
        """The ``Authorization`` value for the next request to ``url``, if any."""

    async def challenge(
        self,
        url: str,
        http: Any,
        status: int,
        www_authenticate: str | None,
        sent: str | None,
        attempt: int,
    ) -> bool:
        """React to a 401/403 of a request sent with ``sent``; True: send it again."""


async def authorize_request(
    auth: str | HttpAuth, url: str, http: Any, headers: dict[str, str], method: str = "POST"
) -> str | None:
    """Put the ``Authorization`` header for ``auth`` in ``headers``; returns its value.

    A ``DPoP`` value gets a fresh proof of ``auth.dpop`` (``toolwire.client.oauth.dpop.DPoPKey``)
    for ``method`` and ``url`` in the ``DPoP`` header (RFC 9449 §7.1)."""
    value = f"Bearer {auth}" if isinstance(auth, str) else await auth.header(url, http)
    if value:
        headers["Authorization"] = value
    else:
        headers.pop("Authorization", None)
    dpop = getattr(auth, "dpop", None)
    if value and dpop is not None and value[:5].lower() == "dpop ":
        headers["DPoP"] = dpop.proof(method, url, value[5:].strip())
    else:
        headers.pop("DPoP", None)
    return value


async def answer_challenge(
    auth: str | HttpAuth | None, url: str, http: Any, response: Any, sent: str | None, attempt: int
) -> bool:
    """True when ``auth`` answered the 401/403 ``response`` and the request should be sent
    again; :class:`AuthFailed` when it tried and could not."""
    status = response.status_code
    if auth is None or isinstance(auth, str):
        return False
    dpop = getattr(auth, "dpop", None)
    if dpop is not None:  # the server's latest DPoP nonce, on any answer (RFC 9449 §9)
        dpop.remember_nonce(url, response.headers.get("dpop-nonce"))
    if status not in (401, 403):
        return False
    await response.aread()
    challenge = response.headers.get("www-authenticate")
    if dpop is not None and status == 401 and dpop.nonce_retry(url, challenge):
        return True  # sent again with the nonce asked for
    try:
        return await auth.challenge(url, http, status, challenge, sent, attempt)
    except ClientError as exc:
        raise AuthFailed(str(exc), fatal=status == 401) from exc
