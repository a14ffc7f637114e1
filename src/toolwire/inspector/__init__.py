"""The inspector: ``toolwire dev FILE`` serves a page on 127.0.0.1 to browse a server's tools,
call them from forms built from their input schemas, and watch results, progress, logs and the
JSON-RPC traffic; the server restarts whenever its file changes.

Everything is in the package (the page's HTML, JavaScript and CSS, and a small HTTP server on
asyncio), so it works offline and needs nothing beyond ``pip install toolwire``.
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
import signal
import sys
import webbrowser

from .app import InspectorApp
from .sandbox import Sandbox
from .session import InspectedServer
from .web import HttpServer

__all__ = ["DEFAULT_PORT", "run"]

DEFAULT_PORT = 6274


def run(
    target: str,
    *,
    command: list[str] | None = None,
    headers: dict[str, str] | None = None,
    port: int | None = None,
    open_browser: bool = True,
    protocol_version: str | None = None,
) -> int:
    """Serve the inspector until Ctrl+C; returns 0. ``target`` is a toolwire file
    (``FILE[:OBJECT]``, restarted when it changes), an ``http(s)://`` URL, or, with
    ``command``, the display name of any server started by that command over stdio;
    ``headers`` go on every request to a URL (e.g. ``Authorization``).
    ``port`` defaults to :data:`DEFAULT_PORT` (another is taken when it is busy)."""
    session = InspectedServer(
        target, protocol_version=protocol_version, command=command, headers=headers
    )
    asyncio.run(_serve(session, DEFAULT_PORT if port is None else port, open_browser))
    return 0


async def _serve(session: InspectedServer, port: int, open_browser: bool) -> None:
    sandbox = Sandbox()
    app = InspectorApp(session, secrets.token_urlsafe(24), sandbox)
    web = HttpServer(app.handle)
    app.port = sandbox.page_port = await _listen(web, port)
    views = HttpServer(sandbox.handle)  # another origin, where app views render
    sandbox.port = await views.start("127.0.0.1", 0)
    url = f"http://127.0.0.1:{app.port}/?token={app.token}"
    print(url, flush=True)
    restarts = "; it restarts when the file changes" if session.kind == "file" else ""
    print(
        f"toolwire dev: inspecting {session.target}{restarts}. Press Ctrl+C to stop.",
        file=sys.stderr,
        flush=True,
    )
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.add_signal_handler(signum, stop.set)
    await session.start()
    watcher = asyncio.create_task(session.watch())
    if open_browser:
        loop.run_in_executor(None, webbrowser.open, url)
    try:
        await stop.wait()
    finally:
        watcher.cancel()
        app.close_streams()
        await web.close()
        await views.close()
        await session.stop()


async def _listen(web: HttpServer, port: int) -> int:
    try:
        return await web.start("127.0.0.1", port)
    except OSError:
        if port == 0:
            raise
        print(f"toolwire dev: port {port} is busy; using another.", file=sys.stderr)
        return await web.start("127.0.0.1", 0)
