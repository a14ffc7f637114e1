"""Where the inspector renders MCP Apps: a second origin, the sandbox proxy the spec asks web
hosts for (a double iframe).

The page opens a view by asking ``/api/apps/open`` for it: the inspector reads the view's
``ui://`` resource from the server, checks it, and registers a one-time sandbox address on its
second listener (127.0.0.1 on another port, so another origin than the page). That address
serves a small proxy page under the view's Content-Security-Policy, built from the domain
lists of the resource's ``_meta.ui.csp`` (no list: no network at all), framed only by the
inspector's page. The page sends the proxy the HTML; the proxy writes it into an inner
sandboxed iframe, which inherits the policy, and relays the view's JSON-RPC messages to the
page's ``AppBridge`` and back.
"""

from __future__ import annotations

import secrets
from collections import OrderedDict
from pathlib import Path
from typing import Any

from ..extensions.apps import CSP_SOURCE, MIME_TYPE, PERMISSIONS
from .web import Request, Response

STATIC = Path(__file__).parent / "static"
NONE, SELF = "'none'", "'self'"
MAX_WAITING = 32  # sandbox addresses handed out and not yet loaded

JSON = dict[str, Any]


class ViewRefused(Exception):
    """The server's resource is not a view the inspector can render (the reason)."""


def open_view(uri: str, read: JSON) -> JSON:
    """The view in a ``resources/read`` result: its HTML and its checked ``_meta.ui``."""
    contents = read.get("contents")
    if not isinstance(contents, list) or len(contents) != 1 or not isinstance(contents[0], dict):
        raise ViewRefused(f"{uri} must have exactly one content, the HTML document")
    content = contents[0]
    if content.get("mimeType") != MIME_TYPE:
        raise ViewRefused(
            f"{uri} is {content.get('mimeType')!r}, not an app ({MIME_TYPE}): "
            "serve it with mcp.app(uri, html)"
        )
    html = content.get("text")
    if not isinstance(html, str):
        raise ViewRefused(f"{uri} has no HTML text")
    meta = content.get("_meta")
    ui = _object(meta.get("ui") if isinstance(meta, dict) else None)
    csp = _object(ui.get("csp"))
    domains = {
        key: [s for s in csp[key] if isinstance(s, str) and CSP_SOURCE.fullmatch(s)]
        for key in ("connectDomains", "resourceDomains", "frameDomains", "baseUriDomains")
        if isinstance(csp.get(key), list)
    }
    wanted = _object(ui.get("permissions"))
    permissions: JSON = {name: {} for name in PERMISSIONS if name in wanted}
    view: JSON = {"uri": uri, "html": html, "csp": domains, "permissions": permissions}
    if isinstance(ui.get("prefersBorder"), bool):
        view["prefersBorder"] = ui["prefersBorder"]
    return view


def _object(value: Any) -> JSON:
    return value if isinstance(value, dict) else {}


def content_security_policy(csp: JSON, page_origins: list[str]) -> str:
    """The spec's policy for a view (MCP Apps, "Security"), a little tighter where it may be:
    no connections unless ``connectDomains`` names them."""

    def sources(key: str, *base: str) -> str:
        return " ".join((*base, *csp.get(key, ())))

    connect = sources("connectDomains") or NONE
    resources = sources("resourceDomains")
    parts = [
        "default-src 'none'",
        f"script-src 'self' 'unsafe-inline' {resources}",
        f"style-src 'self' 'unsafe-inline' {resources}",
        f"connect-src {connect}",
        f"img-src 'self' data: {resources}",
        f"font-src 'self' {resources}",
        f"media-src 'self' data: {resources}",
        f"frame-src {sources('frameDomains') or NONE}",
        "object-src 'none'",
        f"base-uri {sources('baseUriDomains') or SELF}",
        f"frame-ancestors {' '.join(page_origins)}",
    ]
    return "; ".join(" ".join(part.split()) for part in parts)


class Sandbox:
    """The sandbox origin's routes: one-time proxy pages and the proxy's script."""

    def __init__(self) -> None:
        self.port = 0  # set once its socket is bound
        self.page_port = 0
        self._waiting: OrderedDict[str, str] = OrderedDict()  # token -> its policy

    @property
    def origin(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def page_origins(self) -> list[str]:
        return [f"http://127.0.0.1:{self.page_port}", f"http://localhost:{self.page_port}"]

    def register(self, view: JSON, page_origin: str) -> str:
        """A one-time address of a proxy page for ``view``, to be framed by ``page_origin``."""
        token = secrets.token_urlsafe(18)
        self._waiting[token] = content_security_policy(view["csp"], self.page_origins())
        while len(self._waiting) > MAX_WAITING:
            self._waiting.popitem(last=False)
        return f"{self.origin}/sandbox?view={token}&host={page_origin}"

    async def handle(self, request: Request) -> Response:
        if request.headers.get("host") != f"127.0.0.1:{self.port}":
            return Response.error(403, "wrong Host")
        if request.method != "GET":
            return Response.error(405, "method not allowed")
        if request.path == "/sandbox.js":
            return Response(
                200,
                (STATIC / "sandbox.js").read_bytes(),
                "text/javascript; charset=utf-8",
                {"Cache-Control": "no-store"},
            )
        if request.path != "/sandbox":
            return Response.error(404, "not found")
        policy = self._waiting.pop(request.query.get("view", ""), None)
        if policy is None or request.query.get("host") not in self.page_origins():
            return Response.error(404, "this view was already opened, or never was")
        headers = {
            "Content-Security-Policy": policy,
            "Cache-Control": "no-store",
            "Referrer-Policy": "no-referrer",
        }
        page = (STATIC / "sandbox.html").read_bytes()
        return Response(200, page, "text/html; charset=utf-8", headers)
