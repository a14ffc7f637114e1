"""What an author adds to the HTTP app: plain routes beside the MCP endpoint,
``@mcp.custom_route(path, methods)`` (FastMCP's and the official SDK's decorator), each
handler a Starlette endpoint (``async def health(request) -> Response``); and Starlette
middleware around every request, ``mcp.http_app(middleware=[Middleware(CORSMiddleware,
...)])`` (FastMCP's option).

::

    from starlette.requests import Request
    from starlette.responses import JSONResponse

    @mcp.custom_route("/health", methods=["GET"])
    async def health(request: Request) -> JSONResponse:
        return JSONResponse({"status": "ok"})

The routes answer what reaches the app outside its MCP path (after the health probes and the
OAuth metadata), through Starlette's router: path parameters (``/items/{id}``) as Starlette
reads them, 405 for another method, 404 for no route. They are not behind the server's
authentication, as in FastMCP and the SDK: a handler checks what it needs itself.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class CustomRoute:
    """One ``@mcp.custom_route(...)``: Starlette's ``Route`` arguments."""

    path: str
    methods: Sequence[str]
    endpoint: Callable[..., Any]
    name: str | None = None
    include_in_schema: bool = True


def router(routes: Sequence[CustomRoute]) -> Any:
    """The ASGI app answering ``routes`` (Starlette's ``Router``)."""
    try:
        # optional: Starlette, which the handlers' own code imports, only for a server with routes
        from starlette.routing import Route, Router
    except ModuleNotFoundError:
        raise RuntimeError(
            "@mcp.custom_route handlers are Starlette endpoints: pip install starlette"
        ) from None
    return Router(
        routes=[
            Route(
                route.path,
                route.endpoint,
                methods=list(route.methods),
                name=route.name,
                include_in_schema=route.include_in_schema,
            )
            for route in routes
        ]
    )


def wrapped(app: Any, middleware: Sequence[Any]) -> Any:
    """``app`` inside ``middleware``, Starlette ``Middleware(cls, *args, **kwargs)`` entries
    (or plain classes), the first outermost, as Starlette stacks them."""
    for entry in reversed(list(middleware)):
        if isinstance(entry, type):
            app = entry(app)
            continue
        cls = entry.cls
        args = getattr(entry, "args", ())
        kwargs = getattr(entry, "kwargs", None)
        if kwargs is None:  # Starlette before 0.35 names them options
            kwargs = getattr(entry, "options", {})
        app = cls(app, *args, **kwargs)
    return app
