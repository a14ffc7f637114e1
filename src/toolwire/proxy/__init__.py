"""Proxies and bridges: serve another MCP server's tools, resources and prompts through
toolwire, on any transport toolwire serves.

::

    from toolwire import Server

    proxy = Server.proxy(["npx", "-y", "@modelcontextprotocol/server-everything"])
    proxy.run(transport="http", port=8000)    # a stdio server offered over HTTP

``toolwire proxy`` does the same from the command line.
"""

from __future__ import annotations

from typing import Any

from ..client import Client
from . import mounted
from .server import MAX_UPSTREAMS, ProxyServer
from .upstream import UpstreamClient

ProxyServer.mounting = mounted

__all__ = ["ProxyServer", "proxy"]

CONNECT_TIMEOUT = 60.0  # the least an upstream gets to start and answer the handshake


def proxy(
    target: Any,
    *,
    name: str | None = None,
    shared: bool | None = None,
    max_upstreams: int = MAX_UPSTREAMS,
    **client_options: Any,
) -> ProxyServer:
    """A server that serves what ``target`` offers: a command (list or string, run as a
    stdio subprocess), an ``http(s)://`` URL (Streamable HTTP) or a
    :class:`~toolwire.Client` (whose target and options are reused).

    By default downstream sessions share one upstream connection, and a legacy session
    whose client the upstream may ask something (it declared sampling, elicitation or
    roots) gets its own, opened at its first request that can lead to a question, up to
    ``max_upstreams`` at once (beyond that it shares). ``shared=True`` puts every session on
    the shared connection, ``shared=False`` gives every legacy session its own (as many as
    ``max_upstreams``). ``client_options`` go to each upstream :class:`~toolwire.Client`
    (``headers``, ``auth``, ``env``, ``timeout`` ...); connecting to the upstream waits at
    least ``CONNECT_TIMEOUT`` seconds unless ``connect_timeout`` says otherwise."""

    if isinstance(target, Client):
        client_options = {**_options_of(target), **client_options}
        target = target.target

    timeout = client_options.get("timeout", 60.0)
    if client_options.get("connect_timeout") is None and timeout is not None:
        # an upstream may take longer to start (npx fetching it, say) than a call may take
        client_options["connect_timeout"] = max(timeout, CONNECT_TIMEOUT)

    def make_client(**handlers: Any) -> UpstreamClient:
        return UpstreamClient(target, **{**client_options, **handlers})

    if name is None:
        if isinstance(target, (list, tuple)):
            target = list(map(str, target))
            shown = " ".join(target)
        else:
            shown = target if isinstance(target, str) else getattr(target, "name", "upstream")
        name = f"proxy of {shown}"[:100]
    return ProxyServer(make_client, name, shared=shared, max_upstreams=max_upstreams)


def _options_of(client: Any) -> dict[str, Any]:
    """The options a :class:`~toolwire.Client` was made with, for each upstream client."""
    options: dict[str, Any] = {
        "protocol_version": client.requested_version,
        "client_info": client.client_info,
        "timeout": client.timeout,
        "connect_timeout": client.connect_timeout,
        "max_message_bytes": client.max_message_bytes,
    }
    if client._http_headers:
        options["headers"] = dict(client._http_headers)
    if client.auth is not None:
        options["auth"] = client.auth
    options.update({k: v for k, v in client._transport_options.items() if v is not None})
    return options
