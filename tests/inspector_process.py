"""``toolwire dev`` as a real subprocess, for the inspector's tests: its address, its API and
its event stream.

``start_inspector(file, cwd)`` runs ``python -m toolwire dev FILE --port 0 --no-browser``,
reads the printed address, waits until the inspector reports its server's start over (ready,
or the ``status`` a test expects), and stops the process (SIGINT, as Ctrl+C) when the block
ends. Waiting is done on the event stream: ``wait_for(predicate)`` returns the first ``state``
or ``call`` event the predicate accepts, or fails after a timeout.
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import signal
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx

WAIT = 20.0
START_WAIT = 45.0  # longer than the inspector's own limit to start a server (30 s)


@dataclass
class Inspector:
    url: str
    process: subprocess.Popen[str]
    events: queue.Queue[tuple[str, Any]] = field(default_factory=queue.Queue)
    stderr: list[str] = field(default_factory=list)
    seen: list[tuple[str, Any]] = field(default_factory=list)

    @property
    def base(self) -> str:
        parts = urlsplit(self.url)
        return f"{parts.scheme}://{parts.netloc}"

    @property
    def token(self) -> str:
        return parse_qs(urlsplit(self.url).query)["token"][0]

    def api(self, method: str, path: str, body: Any = None, **headers: str) -> httpx.Response:
        sent = {"X-Toolwire-Token": self.token, **headers}
        with httpx.Client(timeout=WAIT) as http:
            return http.request(method, self.base + path, json=body, headers=sent)

    def state(self) -> dict[str, Any]:
        answer = self.api("GET", "/api/state")
        assert answer.status_code == 200, answer.text
        return answer.json()  # type: ignore[no-any-return]

    def call(self, tool: str, arguments: dict[str, Any]) -> int:
        answer = self.api("POST", "/api/calls", {"tool": tool, "arguments": arguments})
        assert answer.status_code == 202, answer.text
        return int(answer.json()["id"])

    def wait_for(
        self, predicate: Callable[[str, Any], bool], timeout: float = WAIT
    ) -> tuple[str, Any]:
        """The first event (``state``, ``call`` or ``log``) since the start that
        ``predicate(event, data)`` accepts, waiting for more as long as none does: the order
        in which two independent things are reported does not matter."""
        for event, data in self.seen:
            if predicate(event, data):
                return event, data
        while True:
            try:
                event, data = self.events.get(timeout=timeout)
            except queue.Empty:
                raise AssertionError(f"no matching event within {timeout} s") from None
            self.seen.append((event, data))
            if predicate(event, data):
                return event, data

    def finished(self, call_id: int) -> dict[str, Any]:
        _, call = self.wait_for(
            lambda event, data: (
                event == "call" and data["id"] == call_id and data["status"] != "running"
            )
        )
        return call  # type: ignore[no-any-return]

    def ready(self, generation: int | None = None, timeout: float = WAIT) -> dict[str, Any]:
        """The first state whose server start is over (``ready`` or ``failed``)."""
        _, state = self.wait_for(
            lambda event, data: (
                event == "state"
                and data["server"]["status"] in ("ready", "failed")
                and (generation is None or data["server"]["generation"] >= generation)
            ),
            timeout,
        )
        return state  # type: ignore[no-any-return]

    def _listen(self) -> None:
        """Read the event stream into ``events`` until the process ends."""
        with contextlib.suppress(httpx.HTTPError), httpx.Client(timeout=None) as http:
            url = f"{self.base}/api/events?token={self.token}"
            with http.stream("GET", url) as stream:
                event = None
                for line in stream.iter_lines():
                    if line.startswith("event: "):
                        event = line.removeprefix("event: ")
                    elif line.startswith("data: ") and event is not None:
                        self.events.put((event, json.loads(line.removeprefix("data: "))))


def _read_address(process: subprocess.Popen[str]) -> str:
    found: queue.Queue[str] = queue.Queue()
    assert process.stdout is not None
    stdout = process.stdout
    threading.Thread(target=lambda: found.put(stdout.readline()), daemon=True).start()
    try:
        line = found.get(timeout=WAIT)
    except queue.Empty:
        raise AssertionError("toolwire dev printed no address") from None
    assert line.startswith("http://127.0.0.1:"), line
    return line.strip()


@contextlib.contextmanager
def start_inspector(
    file: Path | str | None,
    *args: str,
    cwd: Path | None = None,
    toolwire: tuple[str, ...] = (sys.executable, "-m", "toolwire"),
    status: str | None = "ready",
) -> Iterator[Inspector]:
    """``toolwire dev`` until the block ends; the block begins once the server's start is over
    and its status is ``status`` (``None``: at once, while it may still be starting)."""
    process = subprocess.Popen(
        [
            *toolwire,
            "dev",
            *([str(file)] if file is not None else []),
            "--port",
            "0",
            "--no-browser",
            *args,
        ],
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    try:
        inspector = Inspector(_read_address(process), process)
        assert process.stderr is not None
        stderr = process.stderr
        reader = threading.Thread(target=lambda: inspector.stderr.extend(stderr), daemon=True)
        reader.start()
        threading.Thread(target=inspector._listen, daemon=True).start()
        if status is not None:
            server = inspector.ready(timeout=START_WAIT)["server"]
            assert server["status"] == status, f"the server is {server['status']}: {server}"
        yield inspector
    finally:
        process.send_signal(signal.SIGINT)
        try:
            process.wait(timeout=WAIT)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
            raise AssertionError("toolwire dev did not stop on SIGINT") from None
    reader.join(WAIT)
    problems = [line for line in inspector.stderr if "Traceback" in line or "never" in line]
    assert not problems, "".join(inspector.stderr)
