"""A protected server, from the inspector page: why it refused, and signing in with OAuth.

A server at a URL that answers 401 or 403 gets an explanation on the page
(:func:`refusal`): what it said, and the two ways in, a token given with ``--header`` or an
OAuth sign-in. The sign-in is toolwire's own client flow (authorization code with PKCE),
run by the inspector: :class:`SignIn` hands the authorization URL to the page, which sends
the browser there, and takes back the redirect, which comes to the inspector's own loopback
address (``/oauth/callback``) and carries the ``state`` the flow sent.
"""

from __future__ import annotations

import asyncio
import hmac
import shlex
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from ..client.oauth.browser import check_authorization_url
from ..client.oauth.discovery import bearer_challenge
from ..errors import ClientError, Unauthorized

SIGN_IN_TIMEOUT = 300.0  # for the person to sign in at the authorization server

JSON = dict[str, Any]


def refusal(target: str, refused: Unauthorized, tried: str | None) -> tuple[str, JSON]:
    """The explanation of a refusal for the page, and what the page offers (``auth``).
    ``tried`` is how the inspector asked: ``"header"`` (a ``--header`` token), ``"oauth"``
    (a sign-in from the page) or None."""
    challenge = bearer_challenge(refused.www_authenticate)
    scopes = " ".join(challenge.scopes)
    if refused.status == 403:
        why = "refused the token (HTTP 403 Forbidden): it lacks a permission the server needs"
        why += f" (scope: {scopes})" if scopes else ""
    elif tried == "oauth":
        why = f"needs a sign-in, and the last one did not succeed ({refused})"
    elif tried == "header":
        why = (
            "refused the token it was given (HTTP 401 Unauthorized): it may have expired, "
            "or be meant for another server"
        )
    else:
        why = "answered HTTP 401 Unauthorized: it serves only callers with a token"
    if challenge.error_description:
        why += f". It says: {challenge.error_description}"
    command = shlex.join(["toolwire", "dev", target, "--header", "Authorization: Bearer TOKEN"])
    return f"{target} {why}.", {"status": refused.status, "command": command}


class SignIn:
    """One sign-in started from the page: :meth:`authorize` is the OAuth client's
    ``authorize`` (it publishes the authorization URL in :attr:`url` and waits for the
    redirect); :meth:`returned` takes the redirect from the browser."""

    def __init__(self) -> None:
        loop = asyncio.get_running_loop()
        self.url: asyncio.Future[str] = loop.create_future()
        self._callback: asyncio.Future[str] = loop.create_future()
        self._state = ""

    async def authorize(self, url: str) -> str:
        check_authorization_url(url)
        if self.url.done():
            raise ClientError("The server asks to sign in again: use Sign in on the page")
        self._state = dict(parse_qsl(urlsplit(url).query)).get("state", "")
        self.url.set_result(url)
        try:
            return await asyncio.wait_for(asyncio.shield(self._callback), SIGN_IN_TIMEOUT)
        except asyncio.TimeoutError:
            raise ClientError(f"No sign-in came back within {SIGN_IN_TIMEOUT:g} s") from None

    def returned(self, callback_url: str) -> bool:
        """Take the browser's redirect; False when it is not the one this sign-in waits for
        (none is waiting, or its ``state`` is another)."""
        state = dict(parse_qsl(urlsplit(callback_url).query)).get("state", "")
        if not self._state or self._callback.done():
            return False
        if not hmac.compare_digest(state.encode(), self._state.encode()):
            return False
        self._callback.set_result(callback_url)
        return True
