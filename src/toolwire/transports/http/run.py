"""``mcp.run(transport="http")``: the HTTP app under uvicorn, stopped gracefully.

uvicorn alone waits for every open connection before it stops, and an SSE stream (a
legacy GET stream, a ``subscriptions/listen`` stream) never ends by itself; its
``timeout_graceful_shutdown`` then cuts everything, calls included, at the same moment.
On ``SIGTERM``/``SIGINT`` this runner instead:

0. turns readiness false (``/readyz`` answers 503) and, with the app's ``drain_delay``,
   goes on serving that many seconds, so a load balancer stops sending traffic first;
1. stops accepting connections and closes the idle ones (new requests are refused);
2. gives the calls in flight the server's ``shutdown_grace`` to answer, ends listen
   streams at once, and cancels the calls still running after that: their clients get a
   JSON-RPC error ("shutting down", ``503`` for a JSON answer) or, on a resumable legacy
   stream, its end (see :meth:`~toolwire.transports.http.app.HttpApp.close`);
3. ends the remaining streams, lets uvicorn finish writing (``WRITE_OUT_S`` at most) and
   leave the lifespan.

Then ``mcp.run()`` returns (uvicorn would re-raise the signal), so the process exits
with status 0, as a stdio server does. A port it cannot listen on (in use, say) raises
:class:`~toolwire.errors.ListenError` (uvicorn would log it and exit the process).
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import logging
import signal
import socket
import threading
from collections.abc import Callable, Coroutine, Iterator
from typing import Any

from ...errors import ListenError

WRITE_OUT_S = 1  # seconds after the grace: time for the last answers to be written
FORCE_CHECK_S = 0.1  # how often a drain delay looks for a second signal
# asyncio makes an accepted socket a connection two event loop steps later (a task makes its
# transport, which calls connection_made in the next step)
ACCEPT_STEPS = 2
ACCEPTING_CHECK_S = 0.01  # how often a stop looks whether another runner still accepts
ACCEPTING_MAX_S = 2.0  # uvicorn closes its listeners within its 0.1 s tick of the signal

logger = logging.getLogger("toolwire")


def serve_uvicorn(
    app: Any,
    *,
    host: str,
    port: int,
    log_level: str,
    grace: float,
    on_listening: Callable[[str, int], None] | None = None,
) -> None:
    """Serve ``app`` (an :class:`~toolwire.transports.http.app.HttpApp`) until a signal;
    ``app.drain(grace)`` ends the requests and calls in flight, as in a stdio shutdown.
    ``on_listening(host, port)`` is called once the socket accepts connections (the port
    actually bound, also when ``port=0`` asked for a free one)."""
    server = _graceful(app, host, port, log_level, grace, on_listening)
    app.own_runner = True  # this runner drains on a signal: the app need not watch for one
    with _signals_end_the_run():
        server.run()


async def serve_uvicorn_async(
    app: Any,
    *,
    host: str,
    port: int,
    log_level: str,
    grace: float,
    on_listening: Callable[[str, int], None] | None = None,
) -> None:
    """:func:`serve_uvicorn` on the running event loop (``await mcp.run_async("http")``):
    until a signal, or until the awaiting task is cancelled."""
    server = _graceful(app, host, port, log_level, grace, on_listening)
    app.own_runner = True
    try:
        await server.serve()
    except asyncio.CancelledError:  # cancelled: the same graceful shutdown as on a signal
        if server.started:
            await server.shutdown()
        raise


def _graceful(
    app: Any,
    host: str,
    port: int,
    log_level: str,
    grace: float,
    on_listening: Callable[[str, int], None] | None,
) -> Any:
    import uvicorn  # optional: uvicorn (the http extra)

    class GracefulServer(uvicorn.Server):
        async def startup(self, sockets: Any = None) -> None:
            with _listen_errors(host, port):
                await super().startup(sockets)
            if on_listening is None or self.should_exit:
                return
            for listener in self.servers:
                for sock in listener.sockets:
                    bound = sock.getsockname()
                    on_listening(str(bound[0]), int(bound[1]))
                    return

        async def shutdown(self, sockets: Any = None) -> None:
            await not_ready_first(app, lambda: self.force_exit)
            for listener in self.servers:  # refuse new connections from now on
                listener.close()
            await accepted()
            for connection in list(self.server_state.connections):
                connection.shutdown()  # idle keep-alive connections close, busy ones after
            await app.drain(grace)
            await app.close()  # the streams still open (GET streams) end
            await super().shutdown(sockets)
            if self.force_exit:  # a second signal cut the delay short: the lifespan still ends
                await self.lifespan.shutdown()

    config = uvicorn.Config(
        app,
        host=host,
        port=port,
        log_level=log_level,
        lifespan="on",
        timeout_graceful_shutdown=WRITE_OUT_S,
    )
    return GracefulServer(config)


async def not_ready_first(app: Any, forced: Callable[[], bool]) -> None:
    """Readiness turns false; with ``drain_delay``, requests are still served that long
    (new connections too), so a load balancer polling the readiness endpoint stops sending
    traffic before the listener closes. A second ``SIGINT`` (``forced``) cuts it short; the
    rest of the stop (the grace, the lifespan's end) still happens."""
    app.draining = True
    delay = getattr(app, "drain_delay", 0.0)
    if delay > 0:
        logger.warning("Draining: not ready; serving %g s more before stopping", delay)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + delay
        while not forced() and loop.time() < deadline:
            await asyncio.sleep(min(FORCE_CHECK_S, deadline - loop.time()))


async def accepted() -> None:
    """Once the listeners are closed: until what they accepted just before is a connection
    (with its requests still to come, which a drain waits for)."""
    for _ in range(ACCEPT_STEPS):
        await asyncio.sleep(0)


async def _after_accepting(runner: Any, stop: Callable[[], Coroutine[Any, Any, None]]) -> None:
    """``stop()`` once ``runner`` (uvicorn's server, whose signal handler ran) no longer
    accepts connections: a request read before then is one the drain waits for, not one
    that comes after it."""
    listeners = [s for s in getattr(runner, "servers", None) or () if hasattr(s, "is_serving")]
    loop = asyncio.get_running_loop()
    deadline = loop.time() + ACCEPTING_MAX_S
    while any(listener.is_serving() for listener in listeners) and loop.time() < deadline:
        await asyncio.sleep(ACCEPTING_CHECK_S)
    await accepted()
    await stop()


@contextlib.contextmanager
def _listen_errors(host: str, port: int) -> Iterator[None]:
    """uvicorn logs a socket it cannot bind and exits the process (status 3); here the
    error it logs is kept out of the log and raised as a :class:`ListenError` instead."""
    failures: list[OSError] = []

    def keep(record: logging.LogRecord) -> bool:
        if isinstance(record.msg, OSError):
            failures.append(record.msg)
            return False
        return True

    log = logging.getLogger("uvicorn.error")
    log.addFilter(keep)
    try:
        yield
    except SystemExit:
        if not failures:
            raise
        raise _listen_error(host, port, failures[0]) from failures[0]
    finally:
        log.removeFilter(keep)


def _listen_error(host: str, port: int, error: OSError) -> ListenError:
    if isinstance(error, socket.gaierror):
        reason = f"unknown host name {host!r}"
    elif error.errno == errno.EADDRINUSE:
        reason = f"port {port} is in use"
    elif error.errno == errno.EADDRNOTAVAIL:
        reason = f"{host} is not an address of this machine"
    elif error.errno == errno.EACCES:
        reason = f"no permission to listen on port {port}"
    else:
        reason = error.strerror or str(error)
    return ListenError(host, port, reason, error.errno)


class _Stop(BaseException):
    """A stop signal arrived when uvicorn was not listening for it (or re-raised it)."""


@contextlib.contextmanager
def _signals_end_the_run() -> Iterator[None]:
    """uvicorn re-raises the signal that stopped it into the handler it found: with this
    one in place a graceful stop returns from ``run()``, and a signal just before uvicorn
    took over still stops the run."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    saved = {signum: signal.signal(signum, _stop) for signum in _signals()}
    try:
        yield
    except _Stop:
        pass
    finally:
        for signum, handler in saved.items():
            signal.signal(signum, handler)


def stop_with_the_runner(stop: Callable[[], Coroutine[Any, Any, None]]) -> Callable[[], None]:
    """Under a runner that is not this module's (``uvicorn module:app``, ``--workers N``,
    gunicorn's uvicorn workers), the first ``SIGTERM``/``SIGINT`` also runs ``stop()`` on the
    event loop, once uvicorn no longer accepts connections: uvicorn alone waits for every
    connection to close, and a stream never closes by itself. Only a signal the runner
    handles itself (it installed a handler before the app's lifespan started) is watched,
    and that handler still runs first; a second signal is the runner's alone (uvicorn then
    forces the exit). Returns the function that puts the runner's handlers back."""
    if threading.current_thread() is not threading.main_thread():
        return lambda: None
    loop = asyncio.get_running_loop()
    started: list[bool] = []  # the stop was asked for (once)
    tasks: set[asyncio.Task[None]] = set()
    runners: dict[signal.Signals, Callable[[int, Any], Any]] = {}
    for signum in _signals():
        handler = signal.getsignal(signum)
        if callable(handler):
            runners[signum] = handler

    def chained(signum: int, frame: Any) -> None:
        runners[signal.Signals(signum)](signum, frame)
        if not started and not loop.is_closed():
            started.append(True)
            runner = getattr(runners[signal.Signals(signum)], "__self__", None)
            stopping = _after_accepting(runner, stop)
            loop.call_soon_threadsafe(lambda: tasks.add(loop.create_task(stopping)))

    for signum in runners:
        signal.signal(signum, chained)

    def restore() -> None:
        for signum, handler in runners.items():
            if signal.getsignal(signum) is chained:
                signal.signal(signum, handler)

    return restore


def _signals() -> list[signal.Signals]:
    return [getattr(signal, name) for name in ("SIGINT", "SIGTERM") if hasattr(signal, name)]


def _stop(signum: int, frame: Any) -> None:
    raise _Stop
