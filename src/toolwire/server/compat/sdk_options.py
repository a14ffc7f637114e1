"""The official MCP Python SDK's server options, read once when a server is built or run.

Code written for the SDK's ``MCPServer`` (``mcp`` 2.x) or ``FastMCP`` (``mcp`` 1.x) passes
options to the constructor, to ``run()`` and to ``streamable_http_app()``. Each one is taken
here with the SDK's meaning and turned into toolwire's own option, so that such code runs
with only its import changed (``from toolwire import Server as MCPServer``):

* the constructor's ``debug``, ``log_level``, ``dependencies``, ``warn_on_duplicate_*``,
  ``auth`` (the SDK's ``AuthSettings``) with ``token_verifier``; and ``mcp`` 1.x's transport
  settings (``host``, ``port``, ``streamable_http_path``, ``json_response``,
  ``stateless_http``, ...), kept on :attr:`Server.settings` as the defaults of ``run()``;
* ``run()`` and ``streamable_http_app()``'s ``streamable_http_path``, ``stateless_http``,
  ``max_request_body_size``, ``retry_interval``, ``session_idle_timeout``,
  ``transport_security`` and ``event_store``.

An option toolwire has no equivalent for is refused with a ``TypeError`` naming what to use
instead, unless ignoring it changes nothing a client can see. Nothing here runs per request.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import warnings
from collections.abc import AsyncIterator, Iterable
from typing import Any

from ...auth import AccessToken, InvalidToken, ResourceServer

__all__ = ["SessionManager", "Settings", "absorb", "http_options"]

logger = logging.getLogger("toolwire")

# Constructor options of mcp 1.x's FastMCP that say how the server is served over HTTP.
TRANSPORT_SETTINGS = (
    "host",
    "port",
    "mount_path",
    "sse_path",
    "message_path",
    "streamable_http_path",
    "json_response",
    "stateless_http",
    "max_request_body_size",
    "transport_security",
    "event_store",
    "retry_interval",
)

# SDK options toolwire has no equivalent for, and what to use instead.
REFUSED = {
    "auth_server_provider": (
        "toolwire is an OAuth resource server, not an authorization server: run the "
        "authorization server on its own and pass auth=AuthSettings(...) with "
        "token_verifier=..., or auth=toolwire.auth.ResourceServer(...) (docs/security.md)"
    ),
    "resources": "register resources with @mcp.resource(uri) (docs/resources-and-prompts.md)",
    "resource_security": (
        "toolwire checks template parameters itself; take a path parameter as "
        "toolwire.SafePath to confine it to a folder (docs/security.md)"
    ),
    "cache_hints": "pass list_ttl_ms= and discover_ttl_ms= (the ttlMs of list results)",
    "subscriptions": (
        "subscriptions/listen is always served; replicas share list changes through "
        "mcp.http_app(store=toolwire.transports.store.RedisStore(...)) (docs/deployment.md)"
    ),
}


class Settings:
    """The SDK's ``mcp.settings``: what the constructor was given, read back at run time.

    Transport settings (``mcp`` 1.x) given to the constructor, or set here before
    ``run()``, are the defaults of ``run(transport="streamable-http")``."""

    debug: bool = False
    log_level: str = "INFO"
    host: str = "127.0.0.1"
    port: int = 8000
    mount_path: str = "/"
    sse_path: str = "/sse"
    message_path: str = "/messages/"
    streamable_http_path: str = "/mcp"
    json_response: bool = False
    stateless_http: bool = False
    max_request_body_size: int | None = None
    transport_security: Any = None
    event_store: Any = None
    retry_interval: int | None = None
    warn_on_duplicate_resources: bool = True
    warn_on_duplicate_tools: bool = True
    warn_on_duplicate_prompts: bool = True
    lifespan: Any = None
    auth: Any = None

    def __init__(self, dependencies: Iterable[str] = (), **given: Any) -> None:
        self.dependencies = list(dependencies)
        for name, value in given.items():
            setattr(self, name, value)
        self.given = frozenset(given)

    def __repr__(self) -> str:
        shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in sorted(self.given))
        return f"Settings({shown})"

    def run_defaults(self) -> dict[str, Any]:
        """The transport settings given or changed since construction, as run() options."""
        default = type(self)
        options = {
            name: getattr(self, name)
            for name in TRANSPORT_SETTINGS
            if name in self.given or getattr(self, name) != getattr(default, name)
        }
        if "log_level" in self.given or self.log_level != default.log_level:
            options["log_level"] = self.log_level.lower()  # uvicorn's, as the SDK passes it
        return options


SETTING_NAMES = frozenset(TRANSPORT_SETTINGS) | {
    "debug",
    "log_level",
    "dependencies",
    "warn_on_duplicate_resources",
    "warn_on_duplicate_tools",
    "warn_on_duplicate_prompts",
}


def absorb(options: dict[str, Any]) -> tuple[Settings, dict[str, Any], list[Any]]:
    """Split the SDK's constructor options out of ``options``.

    Returns the settings, the options left for toolwire (some rewritten: ``debug`` shows
    error details, ``auth`` + ``token_verifier`` become a resource server) and the tools
    passed as ``tools=[...]`` to register."""
    for name, alternative in REFUSED.items():
        if name in options and options[name] is not None:
            raise TypeError(f"Server() does not take {name}=: {alternative}")
        options.pop(name, None)
    if options.pop("request_state_security", None) is not None and "state_secret" not in options:
        warnings.warn(
            "request_state_security is not used: toolwire seals requestState under a key this "
            "process makes; replicas share one with Server(state_secret=<bytes>)",
            stacklevel=3,
        )
    taken = {name: options.pop(name) for name in list(options) if name in SETTING_NAMES}
    settings = Settings(**taken)
    settings.lifespan = options.get("lifespan")
    if settings.debug:
        options.setdefault("mask_errors", False)  # the SDK's debug mode shows details
    if "log_level" in taken:
        configure_logging(settings.log_level)
    tools = list(options.pop("tools", None) or ())
    for tool in tools:
        if not callable(tool):
            raise TypeError(
                f"Server(tools=[...]) takes functions, not {type(tool).__name__} objects; "
                "register a function with @mcp.tool() or mcp.add_tool(fn)"
            )
    verifier = options.pop("token_verifier", None)
    auth = settings.auth = options.get("auth")
    if auth is not None and hasattr(auth, "issuer_url") and hasattr(auth, "resource_server_url"):
        options["auth"] = resource_server(auth, verifier)
    elif verifier is not None:
        raise ValueError("Cannot specify token_verifier without auth settings")
    return settings, options, tools


def configure_logging(level: str) -> None:
    """As the SDK does: the root logger at ``level``, to stderr, unless logging was
    configured already (``logging.basicConfig`` leaves an existing configuration alone)."""
    logging.basicConfig(level=level.upper(), format="%(levelname)s %(name)s: %(message)s")


def resource_server(settings: Any, verifier: Any) -> Any:
    """The SDK's ``AuthSettings`` + ``TokenVerifier`` as a toolwire ``ResourceServer``."""
    if verifier is None:
        raise ValueError(
            "auth=AuthSettings(...) needs token_verifier=... (toolwire verifies tokens; "
            "it does not issue them)"
        )
    if settings.resource_server_url is None:
        raise ValueError("auth=AuthSettings(...) needs resource_server_url (this server's URL)")

    documentation = getattr(settings, "service_documentation_url", None)
    return ResourceServer(
        str(settings.resource_server_url),
        [str(settings.issuer_url)],
        SdkVerifier(verifier),
        required_scopes=settings.required_scopes or (),
        scopes_supported=settings.required_scopes or (),
        resource_documentation=str(documentation) if documentation else None,
    )


class SdkVerifier:
    """A verifier of the SDK's shape (``verify_token(token) -> AccessToken | None``) as
    toolwire's (``verify(token) -> AccessToken``, raising ``InvalidToken``)."""

    def __init__(self, verifier: Any) -> None:
        self.verifier = verifier

    async def verify(self, token: str) -> Any:

        found = await self.verifier.verify_token(token)
        if found is None:
            raise InvalidToken()
        claims = dict(getattr(found, "claims", None) or {})
        resource = getattr(found, "resource", None)
        return AccessToken(
            subject=getattr(found, "subject", None),
            client_id=found.client_id,
            scopes=frozenset(found.scopes or ()),
            expires_at=found.expires_at,
            issuer=claims.get("iss"),
            audience=(resource,) if resource else (),
            claims=claims,
        )


def http_options(defaults: dict[str, Any], options: dict[str, Any]) -> dict[str, Any]:
    """``run()`` / ``http_app()`` options with the SDK's names turned into toolwire's, over
    the transport settings given to the constructor."""
    merged = {**defaults, **options}
    out: dict[str, Any] = {}
    for name, value in merged.items():
        if name in ("mount_path", "sse_path", "message_path"):
            continue  # the SDK's HTTP+SSE transport only, which toolwire does not offer
        if name == "debug":
            continue  # Starlette's traceback page: toolwire logs each failure with its traceback
        if name == "streamable_http_path":
            out.setdefault("path", value)
        elif name == "stateless_http":
            out.setdefault("stateless", value)
        elif name == "max_request_body_size":
            if value is not None:
                out.setdefault("max_body_bytes", value)
        elif name == "retry_interval":
            if value is not None:
                out.setdefault("retry_ms", value)  # milliseconds in both
        elif name == "session_idle_timeout":
            out.setdefault("session_idle", float("inf") if value is None else value)
        elif name == "transport_security":
            if value is not None:
                for key, allowed in guard_options(value).items():
                    out.setdefault(key, allowed)
        elif name == "event_store":
            if value is not None:
                warnings.warn(
                    "event_store is not used: toolwire keeps each stream's events itself and "
                    "resumes them on Last-Event-ID; share them between replicas with "
                    "http_app(store=RedisStore(...))",
                    stacklevel=3,
                )
        else:
            out[name] = value
    return out


def guard_options(security: Any) -> dict[str, Any]:
    """The SDK's ``TransportSecuritySettings`` as toolwire's ``allowed_hosts`` and
    ``allowed_origins`` (``host:*`` patterns name the host on any port)."""
    if not getattr(security, "enable_dns_rebinding_protection", True):
        return {"allowed_hosts": ["*"], "allowed_origins": ["*"]}
    hosts = []
    for host in security.allowed_hosts:
        if host.startswith("["):
            hosts.append(host[1 : host.find("]")] if "]" in host else host)
        else:
            hosts.append(host.rsplit(":", 1)[0] if host.count(":") == 1 else host)
    return {"allowed_hosts": hosts, "allowed_origins": list(security.allowed_origins)}


class SessionManager:
    """The SDK's ``mcp.session_manager``: ``async with mcp.session_manager.run():`` in the
    lifespan of the app that mounts ``mcp.streamable_http_app()`` starts and stops the
    server as the app's own lifespan would (a mounted app gets no lifespan events)."""

    def __init__(self, app: Any) -> None:
        self.app = app

    @contextlib.asynccontextmanager
    async def run(self) -> AsyncIterator[None]:
        inbox: asyncio.Queue[dict[str, str]] = asyncio.Queue()
        started = asyncio.Event()

        async def send(message: dict[str, Any]) -> None:
            if message["type"] == "lifespan.startup.complete":
                started.set()

        lifespan = asyncio.ensure_future(self.app({"type": "lifespan"}, inbox.get, send))
        await inbox.put({"type": "lifespan.startup"})
        await asyncio.wait(
            [lifespan, asyncio.ensure_future(started.wait())], return_when="FIRST_COMPLETED"
        )
        if lifespan.done():
            lifespan.result()  # the start failed: raise why
        try:
            yield
        finally:
            await inbox.put({"type": "lifespan.shutdown"})
            await lifespan
