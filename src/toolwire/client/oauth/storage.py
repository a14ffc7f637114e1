"""What an OAuth client keeps between authorizations: tokens and client registrations.

Both are kept per authorization server (AU-13): a registration made with one issuer is
never offered to another, and tokens are kept per (issuer, resource), so a server is only
sent tokens its own authorization server issued for it (AU-22). :class:`MemoryStorage` keeps
them for the life of the process; anything with the four methods of :class:`TokenStorage`
can keep them longer (a keyring, an encrypted file). The dataclasses convert to and from
plain dicts with :func:`dataclasses.asdict` and ``Tokens(**data)``.

Token values never appear in a ``repr``, so they stay out of logs and tracebacks.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Protocol

EXPIRY_MARGIN = 5.0  # seconds: a token this close to its end is refreshed first


@dataclass
class Tokens:
    """An access token, what it is good for, and how to get the next one."""

    access_token: str = field(repr=False)
    refresh_token: str | None = field(default=None, repr=False)
    expires_at: float | None = None  # Unix time
    scopes: tuple[str, ...] = ()  # granted (or, if the server did not say, requested)
    requested: tuple[str, ...] = ()  # the scopes asked for
    token_type: str = "Bearer"  # or "DPoP": bound to the client's DPoP key (RFC 9449)

    def expired(self, now: float | None = None) -> bool:
        if self.expires_at is None:
            return False
        return (now if now is not None else time.time()) >= self.expires_at - EXPIRY_MARGIN


@dataclass
class Registration:
    """The client's identity at one authorization server."""

    client_id: str
    redirect_uri: str
    client_secret: str | None = field(default=None, repr=False)
    token_endpoint_auth_method: str = "none"


class TokenStorage(Protocol):
    """Where tokens and registrations live; keys are the issuer (and the resource)."""

    async def load_tokens(self, issuer: str, resource: str) -> Tokens | None: ...

    async def save_tokens(self, issuer: str, resource: str, tokens: Tokens) -> None: ...

    async def load_registration(self, issuer: str) -> Registration | None: ...

    async def save_registration(self, issuer: str, registration: Registration) -> None: ...


class MemoryStorage:
    """Tokens and registrations in memory, for the life of the process."""

    def __init__(self) -> None:
        self.tokens: dict[tuple[str, str], Tokens] = {}
        self.registrations: dict[str, Registration] = {}

    async def load_tokens(self, issuer: str, resource: str) -> Tokens | None:
        return self.tokens.get((issuer, resource))

    async def save_tokens(self, issuer: str, resource: str, tokens: Tokens) -> None:
        self.tokens[(issuer, resource)] = tokens

    async def load_registration(self, issuer: str) -> Registration | None:
        return self.registrations.get(issuer)

    async def save_registration(self, issuer: str, registration: Registration) -> None:
        self.registrations[issuer] = registration
