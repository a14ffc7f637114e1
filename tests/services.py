"""Real services on loopback for tests: redis-server, toolwire HTTP workers, nginx.

Each helper is a context manager that starts a real process, waits for the line the process
writes when it is ready (no polling, every wait bounded), yields how to reach it, and stops it
afterwards. Worker processes get an already-listening socket by file descriptor, so their port
accepts connections before the process has even started: early requests wait in the backlog.

``redis-server`` and ``nginx`` come from the Debian packages of the same names (``.ci/run``
installs them). When one is missing the test is skipped with the one line that installs it
(``apt-get install redis-server``) — except in CI (the ``CI`` environment variable is set),
where a missing binary is a failure.
"""

from __future__ import annotations

import contextlib
import os
import queue
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections import deque
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

import pytest

LOOPBACK = "127.0.0.1"
READY_TIMEOUT = 15.0  # seconds a service gets to say it is ready
STOP_TIMEOUT = 5.0  # seconds a service gets to exit before it is killed
KEPT_LINES = 200  # output lines kept per process for failure messages


def require(binary: str) -> str:
    """The path of ``binary`` (named like its Debian package); skip without it, fail in CI."""
    path = shutil.which(binary)
    if path is not None:
        return path
    reason = f"{binary} is not installed; install it with: apt-get install {binary}"
    if os.environ.get("CI"):
        pytest.fail(f"{reason}, and CI must run these tests", pytrace=False)
    pytest.skip(reason)


def listening_socket() -> socket.socket:
    """A TCP socket on 127.0.0.1 with an OS-chosen port, already listening."""
    # IPPROTO_TCP given explicitly: asyncio sets TCP_NODELAY only on sockets that say they
    # are TCP, and without it every reused keep-alive request waits for a delayed ACK.
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((LOOPBACK, 0))
    sock.listen(128)
    return sock


def free_port() -> int:
    """A port that was free a moment ago (for programs that cannot take a socket)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((LOOPBACK, 0))
        return int(sock.getsockname()[1])


# ---------------------------------------------------------------- process output


class _Lines:
    """Reads a process pipe on a thread: keeps the last lines, hands each one to waiters."""

    def __init__(self, pipe: IO[bytes], name: str) -> None:
        self.kept: deque[str] = deque(maxlen=KEPT_LINES)
        self._queue: queue.Queue[str | None] = queue.Queue()
        self._thread = threading.Thread(
            target=self._read, args=(pipe,), name=f"{name} output", daemon=True
        )
        self._thread.start()

    def _read(self, pipe: IO[bytes]) -> None:
        with contextlib.suppress(OSError, ValueError):
            for raw in pipe:
                line = raw.decode(errors="replace").rstrip()
                self.kept.append(line)
                self._queue.put(line)
        self._queue.put(None)  # end of output: the process is gone

    def wait_for(self, marker: str, timeout: float) -> bool:
        """Whether a line containing ``marker`` arrives within ``timeout`` seconds."""
        deadline = time.monotonic() + timeout
        for _ in range(100_000):
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            try:
                line = self._queue.get(timeout=left)
            except queue.Empty:
                return False
            if line is None:
                return False
            if marker in line:
                return True
        return False

    def text(self) -> str:
        return "\n".join(self.kept)

    def join(self) -> None:
        self._thread.join(STOP_TIMEOUT)


def _stop(process: subprocess.Popen[bytes]) -> None:
    """Terminate, then kill after STOP_TIMEOUT; a process already gone is fine."""
    if process.poll() is None:
        with contextlib.suppress(ProcessLookupError):
            process.send_signal(signal.SIGTERM)
        try:
            process.wait(STOP_TIMEOUT)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(STOP_TIMEOUT)
    for pipe in (process.stdout, process.stderr):
        if pipe is not None:
            pipe.close()


def _not_ready(what: str, process: subprocess.Popen[bytes], lines: _Lines) -> AssertionError:
    state = "exited" if process.poll() is not None else "still starting"
    return AssertionError(
        f"{what} did not become ready within {READY_TIMEOUT:g}s ({state}); its output:\n"
        f"{lines.text()}"
    )


# ---------------------------------------------------------------- redis


@contextlib.contextmanager
def start_redis(attempts: int = 3) -> Iterator[str]:
    """A fresh redis-server on 127.0.0.1 without persistence; yields ``redis://…/0``.

    redis-server cannot take a socket from its parent, so it gets a port that was free a
    moment ago; if another process takes it first, the start is tried again (a bounded
    number of times).
    """
    binary = require("redis-server")
    failure: AssertionError | None = None
    for _ in range(attempts):
        port = free_port()
        process = subprocess.Popen(
            [
                binary,
                "--port",
                str(port),
                "--bind",
                LOOPBACK,
                "--save",
                "",
                "--appendonly",
                "no",
                "--protected-mode",
                "yes",
                "--loglevel",
                "notice",
            ],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
        )
        assert process.stdout is not None
        lines = _Lines(process.stdout, "redis-server")
        try:
            if lines.wait_for("Ready to accept connections", READY_TIMEOUT):
                yield f"redis://{LOOPBACK}:{port}/0"
                return
            failure = _not_ready("redis-server", process, lines)
        finally:
            _stop(process)
            lines.join()
        if "Address already in use" not in lines.text():
            break
    assert failure is not None
    raise failure


@contextlib.contextmanager
def redis_on(port: int) -> Iterator[str]:
    """redis-server on a given ``port`` (no persistence) until the block ends, so that a test
    can stop it and start it again where its clients look; yields ``redis://…/0``."""
    process = subprocess.Popen(
        [require("redis-server"), "--port", str(port), "--bind", LOOPBACK, "--save", ""],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    assert process.stdout is not None
    lines = _Lines(process.stdout, "redis-server")
    try:
        if not lines.wait_for("Ready to accept connections", READY_TIMEOUT):
            raise _not_ready("redis-server", process, lines)
        yield f"redis://{LOOPBACK}:{port}/0"
    finally:
        _stop(process)
        lines.join()


# ---------------------------------------------------------------- toolwire workers


@dataclass
class Worker:
    """A toolwire HTTP server process listening on 127.0.0.1:``port``."""

    process: subprocess.Popen[bytes]
    port: int
    output: _Lines = field(repr=False)

    @property
    def url(self) -> str:
        return f"http://{LOOPBACK}:{self.port}/mcp"

    @property
    def pid(self) -> int:
        return self.process.pid

    def kill(self) -> None:
        """SIGKILL: the process gets no chance to clean up (a crash)."""
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait(STOP_TIMEOUT)

    def log(self) -> str:
        return self.output.text()


@contextlib.contextmanager
def start_worker(script: str | Path, *args: str, python: str = sys.executable) -> Iterator[Worker]:
    """Run ``python script --fd N *args`` where N is a listening loopback socket.

    The script serves on that socket (``uvicorn.run(app, fd=N, ...)``); the port accepts
    connections at once, before the process is up. The process is stopped afterwards
    (killing it first, in the test, is fine).
    """
    sock = listening_socket()
    port = int(sock.getsockname()[1])
    fd = sock.fileno()
    try:
        process = subprocess.Popen(
            [python, str(script), "--fd", str(fd), *args],
            pass_fds=[fd],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
        )
    finally:
        sock.close()  # the child holds its own copy
    assert process.stdout is not None
    worker = Worker(process, port, _Lines(process.stdout, f"worker {port}"))
    try:
        yield worker
    except BaseException:  # the worker's last lines go with the failure (pytest shows them)
        print(f"worker on port {port}, exit code {process.poll()}:", *worker.output.kept, sep="\n")
        raise
    finally:
        _stop(process)
        worker.output.join()


@contextlib.contextmanager
def start_run_worker(script: str | Path, *args: str) -> Iterator[Worker]:
    """Run ``python script *args``, a ``mcp.run(transport="http", port=0, ...)`` that prints
    ``listening PORT`` once its port accepts connections (the graceful runner, whose
    ``SIGTERM`` drains). The process is stopped afterwards."""
    with start_listening([sys.executable, str(script), *args], 0, "listening") as worker:
        lines = worker.output.kept
        worker.port = next(int(line.split()[1]) for line in lines if line.startswith("listening"))
        yield worker


@contextlib.contextmanager
def start_listening(
    command: Sequence[str],
    port: int,
    marker: str,
    *,
    times: int = 1,
    env: Mapping[str, str] | None = None,
) -> Iterator[Worker]:
    """Run ``command``, a server on 127.0.0.1:``port`` that writes a line containing
    ``marker`` once it accepts connections (``times`` such lines: one per process of a
    server with several). The process is stopped afterwards."""
    process = subprocess.Popen(
        list(command),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        env={**os.environ, **(env or {})},
        start_new_session=True,  # its own process group: its workers go with it
    )
    assert process.stdout is not None
    output = _Lines(process.stdout, f"server {process.pid}")
    try:
        for _ in range(times):
            if not output.wait_for(marker, READY_TIMEOUT):
                raise _not_ready(f"server {process.pid}", process, output)
        yield Worker(process, port, output)
    except BaseException:
        print(f"server {process.pid}, exit code {process.poll()}:", *output.kept, sep="\n")
        raise
    finally:
        _stop(process)
        with contextlib.suppress(ProcessLookupError):  # the workers of a parent that was killed
            os.killpg(process.pid, signal.SIGKILL)
        output.join()


# ---------------------------------------------------------------- nginx

NGINX_CONF = """\
daemon off;
master_process on;
worker_processes 1;
{user}pid {tmp}/nginx.pid;
error_log stderr notice;

events {{
    worker_connections 256;
}}

http {{
    access_log off;
    client_body_temp_path {tmp}/client_body;
    proxy_temp_path {tmp}/proxy;
    fastcgi_temp_path {tmp}/fastcgi;
    uwsgi_temp_path {tmp}/uwsgi;
    scgi_temp_path {tmp}/scgi;

    upstream toolwire_workers {{
{servers}
        keepalive 8;
    }}

    server {{
        listen {listen};
        underscores_in_headers on;

        location / {{
            proxy_pass http://toolwire_workers;
            proxy_http_version 1.1;
            proxy_buffering off;
            proxy_request_buffering {request_buffering};
            proxy_cache off;
            proxy_read_timeout 60s;
            proxy_send_timeout 60s;
            proxy_set_header Connection "";
            proxy_set_header Host $http_host;
            proxy_pass_request_headers on;{next_upstream}
        }}
    }}
}}
"""


RESEND_POSTS = "\n            proxy_next_upstream error non_idempotent;"


def _user_line() -> str:
    """As root, nginx workers would switch to ``nobody``; keep them as the current user."""
    if os.geteuid() != 0:
        return ""
    import grp
    import pwd

    user = pwd.getpwuid(os.geteuid()).pw_name
    group = grp.getgrgid(os.getegid()).gr_name
    return f"user {user} {group};\n"


@contextlib.contextmanager
def start_nginx(
    upstream_ports: Iterable[int], server_options: str = "", *, resend_posts: bool = False
) -> Iterator[str]:
    """nginx on 127.0.0.1 balancing round-robin over the given loopback ports.

    Yields the base URL (``http://127.0.0.1:PORT``). Streaming is unbuffered both ways and
    every request header (``Mcp-Session-Id``, ``Last-Event-ID``, ``MCP-Protocol-Version``,
    ``Accept``) passes through. nginx takes its listening socket from this process (the
    ``NGINX`` environment variable names inherited sockets), so the port is ready at once.
    As nginx does by default, an idempotent request (a GET) that cannot reach a worker is
    tried on the next one, so a dead worker costs nothing to a client that resumes a stream;
    so is any request whose connection a worker refused. ``server_options`` follow each
    upstream server (``" max_fails=0"``: a worker that refused is never set aside);
    ``resend_posts``: a POST whose connection failed after it was sent is tried on the next
    worker too (``proxy_next_upstream error non_idempotent``, with the request bodies
    buffered, which nginx needs to send one again).
    """
    binary = require("nginx")
    ports = list(upstream_ports)
    assert ports, "nginx needs at least one upstream port"
    sock = listening_socket()
    port = int(sock.getsockname()[1])
    with tempfile.TemporaryDirectory(prefix="toolwire-nginx-") as tmp:
        for sub in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi", "logs"):
            Path(tmp, sub).mkdir()
        conf = Path(tmp, "nginx.conf")
        servers = (f"        server {LOOPBACK}:{p}{server_options};" for p in ports)
        conf.write_text(
            NGINX_CONF.format(
                user=_user_line(),
                tmp=tmp,
                listen=f"{LOOPBACK}:{port}",
                servers="\n".join(servers),
                next_upstream=RESEND_POSTS if resend_posts else "",
                request_buffering="on" if resend_posts else "off",
            )
        )
        env = {**os.environ, "NGINX": f"{sock.fileno()};"}
        try:
            process = subprocess.Popen(
                [binary, "-e", "stderr", "-c", str(conf), "-p", tmp],
                pass_fds=[sock.fileno()],
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
            )
        finally:
            sock.close()
        assert process.stderr is not None
        lines = _Lines(process.stderr, "nginx")
        try:
            if not lines.wait_for("start worker process", READY_TIMEOUT):
                raise _not_ready("nginx", process, lines)
            yield f"http://{LOOPBACK}:{port}"
        except BaseException:  # nginx's last lines go with the failure (pytest shows them)
            print("nginx:", *lines.kept, sep="\n")
            raise
        finally:
            _stop(process)  # SIGTERM: nginx's fast shutdown
            lines.join()


# ---------------------------------------------------------------- HAProxy


@contextlib.contextmanager
def start_haproxy(config: str) -> Iterator[str]:
    """HAProxy with ``config``, whose ``bind`` line reads ``bind {bind}``: it serves on a
    loopback socket it takes from this process (``fd@N``), so the port is ready at once.

    Yields the base URL (``http://127.0.0.1:PORT``); HAProxy's warnings and errors go with a
    failure."""
    binary = require("haproxy")
    sock = listening_socket()
    port = int(sock.getsockname()[1])
    with tempfile.TemporaryDirectory(prefix="toolwire-haproxy-") as tmp:
        conf = Path(tmp, "haproxy.cfg")
        conf.write_text(config.replace("{bind}", f"fd@{sock.fileno()}"))
        try:
            process = subprocess.Popen(
                [binary, "-db", "-f", str(conf)],
                pass_fds=[sock.fileno()],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
            )
        finally:
            sock.close()
        assert process.stdout is not None
        lines = _Lines(process.stdout, "haproxy")
        try:
            yield f"http://{LOOPBACK}:{port}"
        except BaseException:
            print("haproxy:", *lines.kept, sep="\n")
            raise
        finally:
            _stop(process)
            lines.join()
