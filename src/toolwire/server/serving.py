"""How a server is served: a connection for each transport, ``run()`` over stdio or
Streamable HTTP (uvicorn), the ASGI app for any framework, and a graceful stop.

:class:`Serving` is a part of :class:`~toolwire.server.core.ServerCore`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, cast

from .._pip import extra_install
from .launch import take
from .session import ServerConnection

if TYPE_CHECKING:
    from ..transports.http.app import HttpServer
    from .request import Host
    from .workers import ThreadRunner


class Serving:
    """Serving a server: what transports ask of it, and ``run()``."""

    if TYPE_CHECKING:  # what the server this is a part of provides
        name: str
        shutdown_grace: float
        max_message_bytes: int | None
        max_pending_output_bytes: int | None
        max_calls_in_flight: int | None
        runner: ThreadRunner
        _connections: set[ServerConnection]

        async def start(self) -> None: ...

        async def stop(self) -> None: ...

    def connect(self, send: Callable[[bytes], None]) -> ServerConnection:
        """A new connection whose answers go to ``send`` (used by transports)."""
        return ServerConnection(cast("Host", self), send)  # self: the ServerCore

    def run(self, transport: str = "stdio", **options: Any) -> None:
        """Serve: ``"stdio"`` (default) until the client goes away, or ``"http"`` (Streamable
        HTTP with uvicorn: ``host="127.0.0.1"``, ``port=8000``, ``path="/mcp"`` and the
        options of :meth:`http_app`) until stopped; ``on_listening=callback(host, port)`` is
        called once the port accepts connections. The official SDK's names
        (``transport="streamable-http"``, ``streamable_http_path``, ``stateless_http``, ...)
        mean the same (:mod:`toolwire.server.compat.sdk_options`).

        ``SIGTERM`` or ``SIGINT`` stops either gracefully: no new requests, calls in flight
        get ``shutdown_grace`` seconds to answer, the rest are cancelled, the lifespan is
        left, and ``run()`` returns. (Not while ``toolwire`` imports the file: see .launch.)
        FastMCP's ``show_banner`` is accepted: no banner is printed."""
        options.pop("show_banner", None)
        if take(self, transport, options):
            return
        if transport == "stdio":
            from ..transports.stdio.serving import run_stdio  # lazy: only when serving stdio

            run_stdio(self.run_stdio_async, **options)
        elif transport in ("http", "streamable-http"):
            self._run_http(**self._sdk_http_options(options))
        elif transport == "sse":
            raise ValueError(
                "The HTTP+SSE transport (deprecated by the protocol since 2025-03-26) is not "
                "offered: use transport='streamable-http', which every current client speaks "
                "(served at http://127.0.0.1:8000/mcp by default)"
            )
        else:
            raise ValueError(f"Unknown transport {transport!r}: use 'stdio' or 'http'")

    def _sdk_http_options(self, options: dict[str, Any]) -> dict[str, Any]:
        """HTTP options with the official SDK's names translated, over the transport
        settings given to the constructor (``Server.settings``)."""
        # lazy: the official SDK's surface, on first use
        from .compat.sdk_options import http_options

        settings = getattr(self, "settings", None)
        return http_options(settings.run_defaults() if settings is not None else {}, options)

    def http_app(self, path: str | None = None, **options: Any) -> Any:
        """An ASGI application serving this server over Streamable HTTP at ``path``
        (``"/mcp"`` by default).

        Mount it in any ASGI framework or run it with any ASGI server. Options:
        ``json_response``, ``stateless``, ``allowed_hosts``, ``allowed_origins``,
        ``max_body_bytes``, ``max_streams``, ``max_client_streams``,
        ``max_session_streams``, ``max_sessions``, ``max_client_sessions``, ``retry_ms``,
        ``body_timeout`` (see :class:`toolwire.transports.http.app.HttpApp`), and the official
        SDK's ``streamable_http_app()`` options (``streamable_http_path``,
        ``stateless_http``, ``transport_security``, ...).
        """
        from ..transports.http.app import HttpApp  # lazy: the HTTP stack, only when serving HTTP

        options = self._sdk_http_options(options)
        path = path or options.pop("path", "/mcp")
        options.pop("port", None)
        options.pop("log_level", None)
        host = options.pop("host", "127.0.0.1")
        if host not in ("127.0.0.1", "localhost", "::1") and "allowed_hosts" not in options:
            options["allowed_hosts"] = ["*"]  # not a local server: no DNS-rebinding host check
        if self.max_message_bytes is not None:
            options.setdefault("max_body_bytes", self.max_message_bytes)
        app = HttpApp(cast("HttpServer", self), path=path, **options)  # self: the ServerCore
        self._http_app = app
        return app

    def streamable_http_app(self, **options: Any) -> Any:
        """The official SDK's name for :meth:`http_app`, with its options."""
        return self.http_app(**options)

    @property
    def session_manager(self) -> Any:
        """The official SDK's ``session_manager`` of the last app :meth:`http_app` built:
        ``async with mcp.session_manager.run():`` runs its lifespan where it is mounted."""
        app = getattr(self, "_http_app", None)
        if app is None:
            raise RuntimeError("Build the app first: mcp.streamable_http_app() or mcp.http_app()")
        # lazy: the official SDK's surface, on first use
        from .compat.sdk_options import SessionManager

        return SessionManager(app)

    def _run_http(
        self,
        host: str = "127.0.0.1",
        port: int = 8000,
        log_level: str = "warning",
        on_listening: Any = None,
        **options: Any,
    ) -> None:
        import importlib.util  # lazy: only to look for an optional package

        if importlib.util.find_spec("uvicorn") is None:
            raise RuntimeError(f"HTTP needs the http extra: {extra_install('http')}")
        # lazy: the HTTP stack, only when serving HTTP
        from ..transports.http.run import serve_uvicorn

        serve_uvicorn(
            self.http_app(host=host, **options),
            host=host,
            port=port,
            log_level=log_level,
            grace=self.shutdown_grace,
            on_listening=on_listening,
        )

    def end_listening(self) -> None:
        """End every connection's listen streams (a graceful shutdown's first step)."""
        for connection in list(self._connections):
            connection.end_listening()

    async def drain_connections(self, grace: float) -> None:
        """Stop every connection at once: listen streams end, calls in flight and running
        tasks get ``grace`` seconds to end, the rest are cancelled (a graceful shutdown's
        middle step)."""
        draining = [connection.drain(grace) for connection in list(self._connections)]
        tasks = getattr(self, "tasks", None)  # the task registry of a Server with task tools
        if tasks is not None:
            draining.append(tasks.finish(grace))
        await asyncio.gather(*draining)

    async def run_stdio_async(self, **options: Any) -> None:
        """Serve one client on stdin/stdout until stdin closes (or SIGTERM/SIGINT)."""
        if take(self, "stdio", options):
            return
        from ..transports.stdio.guard import held_stdio  # lazy: only when serving stdio
        from ..transports.stdio.serving import serve_stdio  # lazy: only when serving stdio

        if self.max_message_bytes is not None:
            options.setdefault("max_message_bytes", self.max_message_bytes)
        if self.max_pending_output_bytes is not None:
            options.setdefault("max_pending_output_bytes", self.max_pending_output_bytes)
        if self.max_calls_in_flight is not None:
            options.setdefault("max_calls_in_flight", self.max_calls_in_flight)
        options.setdefault("name", self.name)
        with held_stdio():  # before the lifespan, whose print() must not reach the client
            await self.start()
            try:
                await serve_stdio(self.connect, grace=self.shutdown_grace, **options)
            finally:
                # lazy: only when serving stdio
                from ..transports.stdio.stopping import signals_ignored

                with signals_ignored(asyncio.get_running_loop()):  # the lifespan closes in peace
                    await self.stop()
                self.runner.shutdown()
