"""The server under inspection: a subprocess spoken to through toolwire's own client, restarted
when its source changes, with a history of calls and each call's JSON-RPC traffic.

The server runs as ``python -m toolwire run FILE`` over stdio, exactly as an MCP host starts
it: a crash, a hang or an ``os._exit`` in a tool ends that process, not the inspector, and
the page shows the real messages. Every change is announced through ``emit(event, data)``
(``state``, ``call`` or ``log``), which the web app turns into server-sent events; a ``log``
entry sent again with the same ``id`` replaces the first (more lines of the record came).
"""

from __future__ import annotations

import asyncio
import codecs
import contextlib
import itertools
import os
import sys
from collections import deque
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson

from .. import __version__
from ..client import Client
from ..client.oauth.flow import OAuth
from ..client.tasks import TASKS
from ..errors import ClientError, Unauthorized
from ..extensions.apps import MIME_TYPE as APP_MIME_TYPE
from ..extensions.apps import UI
from ..server.launch import split_target
from .calls import Call, Exchange, Traffic, now_ms, params_of, sending_for
from .questions import Questions
from .signin import SIGN_IN_TIMEOUT, SignIn, refusal
from .stderr import Records, masked_reference, read_traceback

JSON = dict[str, Any]
Emit = Callable[[str, Any], None]

START_TIMEOUT = 30.0  # to spawn, import and initialize
CALL_TIMEOUT = 3600.0  # a developer may be stepping through a tool in a debugger
STOP_GRACE = 2.0
MAX_CALLS = 200
MAX_LOGS = 200
STDERR_TAIL = 20
READ_SIZE = 64 * 1024
MAX_LINE = 64 * 1024  # a longer line without its end yet is shown as it is


class NotReady(Exception):
    """The server is starting or failed to start: there is nothing to call."""


class InspectedServer:
    """``target`` is ``FILE[:OBJECT]`` as given to ``toolwire dev``; ``emit`` is told of
    every change."""

    def __init__(
        self,
        target: str,
        emit: Emit = lambda event, data: None,
        *,
        protocol_version: str | None = None,
        python: str = sys.executable,
        command: list[str] | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        self.target = target
        self.headers = headers or {}
        # A toolwire file (started with `toolwire run`, restarted on changes), any server's
        # stdio command, or an HTTP URL.
        self.command = command
        if command is not None:
            self.kind = "command"
        elif target.startswith(("http://", "https://")):
            self.kind = "url"
        else:
            self.kind = "file"
        self.emit = emit
        self.protocol_version = protocol_version
        self.python = python
        self.client: Client | None = None
        self.status = "starting"
        self.error: str | None = None
        self.auth: JSON | None = None  # what the page offers when the server refused us
        self.oauth: OAuth | None = None  # once the page asked to sign in
        self.sign_in: SignIn | None = None
        self.generation = 0
        self.listings: dict[str, list[JSON]] = {kind: [] for kind in LISTINGS}
        self.calls: dict[int, Call] = {}
        self.logs: deque[JSON] = deque(maxlen=MAX_LOGS)
        self._ids = itertools.count(1)
        self._log_ids = itertools.count(1)  # an entry sent again (it grew) keeps its id
        self._traffic = Traffic(self._running)
        self.questions = Questions(lambda event, data: self.emit(event, data))
        self._stderr_tail: deque[str] = deque(maxlen=STDERR_TAIL)
        self._started_on: dict[str, tuple[int, int]] = {}  # the files the server started from
        self._background: set[asyncio.Task[Any]] = set()
        self._lock = asyncio.Lock()

    # ------------------------------------------------------------ what the page sees

    def state(self) -> JSON:
        info = self.client.server_info if self.client is not None else {}
        return {
            "server": {
                "file": self.target,
                "kind": self.kind,
                "status": self.status,
                "error": self.error,
                "auth": self.auth,
                "name": info.get("name"),
                "version": info.get("version"),
                "title": info.get("title"),
                "instructions": self.client.instructions if self.client is not None else None,
                "protocolVersion": self.client.protocol_version if self.client else None,
                "capabilities": self.client.server_capabilities if self.client else {},
                "generation": self.generation,
            },
            **self.listings,
            "calls": [call.as_json() for call in self.calls.values()],
            "questions": [question.as_json() for question in self.questions.open.values()],
            "logs": list(self.logs),
        }

    def _announce(self) -> None:
        self.emit("state", self.state())

    def _changed(self, call: Call) -> None:
        self.emit("call", call.as_json())

    # ------------------------------------------------------------ the server's life

    async def start(self) -> None:
        """Start the server, or restart it: calls still running are cancelled."""
        async with self._lock:
            self.status = "starting"  # the old process's exit is not a failure
            await self._stop_client("The server was restarted")
            self.generation += 1
            generation = self.generation
            self.error = self.auth = None
            self.listings = {kind: [] for kind in LISTINGS}
            self._stderr_tail.clear()
            if self.kind == "file":  # an edit from now on restarts it, even during the start
                self._started_on = self._snapshot()
            self._announce()
            pipe = os.pipe() if self.kind != "url" else None  # the process's stderr
            stderr_done = self._spawn(self._read_stderr(pipe[0], generation)) if pipe else None
            client = Client(
                self._client_target(),
                protocol_version=self.protocol_version,
                client_info={"name": "toolwire-inspector", "version": _version()},
                capabilities={"elicitation": {"form": {}, "url": {}}},  # the page asks either
                # a task tool runs as a task, followed on the page; app views render there
                extensions={TASKS: {}, UI: {"mimeTypes": [APP_MIME_TYPE]}},
                timeout=START_TIMEOUT if self.sign_in is None else SIGN_IN_TIMEOUT,
                stderr=pipe[1] if pipe else None,
                tap=lambda direction, data: self._tap(generation, direction, data),
                log_level="debug",
                headers=self.headers,
                auth=self.oauth,
                elicitation_handler=lambda params: self._ask("elicitation", params),
                sampling_handler=lambda params: self._ask("sampling", params),
            )
            try:
                try:
                    await client.connect()
                    self.client = client
                    for kind in LISTINGS:
                        self.listings[kind] = await _list(client, kind)
                finally:
                    if pipe:
                        os.close(pipe[1])  # the child has its own copy: EOF means it exited
            except (ClientError, OSError) as exc:
                await client.close()
                self.client = None
                if stderr_done is not None:
                    with contextlib.suppress(asyncio.TimeoutError):
                        await asyncio.wait_for(asyncio.shield(stderr_done), STOP_GRACE)
                self.status, self.error = "failed", self._why(str(exc))
                if isinstance(exc, Unauthorized):
                    header = "authorization" in map(str.lower, self.headers)
                    way = "oauth" if self.oauth is not None else "header" if header else None
                    self.error, self.auth = refusal(self.target, exc, way)
                self.sign_in = None
                self._announce()
                return
            if client.modern:  # list changes arrive on a listen stream
                with contextlib.suppress(ClientError, asyncio.TimeoutError):
                    await client.listen(resources_list_changed=True, prompts_list_changed=True)
            self.status = "ready"
            self.sign_in = None
            self._announce()

    def _client_target(self) -> str | list[str]:
        if self.kind == "file":
            return [self.python, "-m", "toolwire", "run", self.target]
        return self.command if self.command is not None else self.target

    def _why(self, reason: str) -> str:
        """The server's last words on stderr say more than the client's view of its end."""
        tail = "\n".join(self._stderr_tail).strip()
        return tail or reason

    def _running(self) -> list[Call]:
        return [call for call in self.calls.values() if call.status == "running"]

    async def _ask(self, kind: str, params: JSON) -> JSON:
        """A question from the server, for the person at the page. On 2026-07-28 it comes
        from inside the call's own request; on stdio's legacy sessions it names no request,
        so it belongs to the running call when there is exactly one."""
        owner = sending_for.get()
        running = self._running()
        call = owner if isinstance(owner, Call) else running[0] if len(running) == 1 else None
        return await self.questions.ask(kind, params, call.id if call else None)

    async def _stop_client(self, reason: str) -> None:
        self.questions.drop_all()
        running = [call for call in self.calls.values() if call.task and not call.task.done()]
        for call in running:
            call.cancel_reason = reason
            assert call.task is not None
            call.task.cancel()
        if running:
            await asyncio.wait([call.task for call in running if call.task], timeout=STOP_GRACE)
        client, self.client = self.client, None
        if client is not None:
            await client.close()
        self._traffic.clear()

    async def begin_sign_in(self, redirect_uri: str) -> str:
        """Restart the server with toolwire's OAuth client; the address the page goes to
        next: the authorization server's, or the page itself when no sign-in was asked."""
        if self.kind != "url":
            raise NotReady("Only a server given by its URL signs in")
        sign_in = self.sign_in = SignIn()
        if self.oauth is None or self.oauth.redirect_uri != redirect_uri:
            self.oauth = OAuth(
                client_name="toolwire inspector",
                redirect_uri=redirect_uri,
                authorize=self._authorize,
            )
        started = self._spawn(self.start())
        await asyncio.wait({sign_in.url, started}, return_when=asyncio.FIRST_COMPLETED)
        if sign_in.url.done():
            return sign_in.url.result()
        if self.status == "ready":
            return "/"
        raise NotReady(self.error or f"The server is {self.status}")

    async def _authorize(self, url: str) -> str:
        if self.sign_in is None:
            raise ClientError("The server asks to sign in again: use Sign in on the page")
        return await self.sign_in.authorize(url)

    def reload(self) -> None:
        """Restart the server in the background (the page asked)."""
        self._spawn(self.start())

    async def stop(self) -> None:
        async with self._lock:
            self.generation += 1  # what the old process still says is ignored
            await self._stop_client("The inspector stopped")
        for task in list(self._background):
            task.cancel()

    async def watch(self, interval: float = 0.5) -> None:
        """Restart the server whenever a Python file beside it changes (polling: no extra
        dependency, and a few ``stat`` calls per interval). Only toolwire files are watched:
        a command or a URL is someone else's server."""
        if self.kind != "file":
            return
        while True:
            await asyncio.sleep(interval)
            if self._snapshot() != self._started_on:
                await self.start()

    def _snapshot(self) -> dict[str, tuple[int, int]]:
        path, _ = split_target(self.target)
        files = {path, *path.parent.glob("*.py")}
        snapshot = {}
        for file in files:
            with contextlib.suppress(OSError):
                stat = Path(file).stat()
                snapshot[str(file)] = (stat.st_mtime_ns, stat.st_size)
        return snapshot

    async def _read_stderr(self, fd: int, generation: int) -> None:
        loop = asyncio.get_running_loop()
        reader = asyncio.StreamReader()
        pipe = os.fdopen(fd, "rb", buffering=0)
        transport, _ = await loop.connect_read_pipe(
            lambda: asyncio.StreamReaderProtocol(reader), pipe
        )
        records = Records()
        decode = codecs.getincrementaldecoder("utf-8")(errors="replace").decode
        partial = ""  # a line not ended yet
        try:
            # What is there at once is read at once: a log message and its traceback, written
            # together, make one event.
            while chunk := await reader.read(READ_SIZE):
                *lines, partial = (partial + decode(chunk)).split("\n")
                if len(partial) > MAX_LINE:
                    lines, partial = [*lines, partial], ""
                self._stderr_lines(lines, records, generation)
            if last := partial + decode(b"", final=True):
                self._stderr_lines([last], records, generation)
        finally:
            transport.close()
        if generation == self.generation and self.status == "ready":
            self.status = "failed"
            self.error = self._why("The server process exited")
            self._announce()

    def _stderr_lines(self, lines: list[str], records: Records, generation: int) -> None:
        """Show what the server wrote on stderr, grouped into records; a traceback that
        explains a masked error goes to the call that got it."""
        if generation != self.generation:
            return
        lines = [line.rstrip() for line in lines]
        self._stderr_tail.extend(lines)
        for record in records.feed(lines):
            text = "\n".join(record.lines)
            traceback = read_traceback(record.lines)
            if record.entry is None:
                shown = {"level": "stderr", "logger": None, "data": text, "traceback": traceback}
                record.entry = self._log(shown, None)
            else:
                record.entry.update(data=text, traceback=traceback)
                self.emit("log", record.entry)
            reference = traceback["reference"] if traceback else None
            for call in self.calls.values():
                if reference is not None and call.reference == reference:
                    call.traceback = traceback
                    self._changed(call)

    def _logged_traceback(self, reference: str | None) -> JSON | None:
        """The traceback logged on stderr under a masked error's reference id, if it came."""
        if reference is None:
            return None
        for entry in reversed(self.logs):
            traceback = entry.get("traceback")
            if traceback is not None and traceback["reference"] == reference:
                return traceback  # type: ignore[no-any-return]
        return None

    def _spawn(self, work: Any) -> asyncio.Task[Any]:
        task = asyncio.create_task(work)
        self._background.add(task)
        task.add_done_callback(self._background.discard)
        return task

    # ------------------------------------------------------------ calls

    def call(self, tool: str, arguments: JSON) -> Call:
        if self.client is None or self.status != "ready":
            raise NotReady(self.error or f"The server is {self.status}")
        call = Call(next(self._ids), tool, arguments)
        self.calls[call.id] = call
        for old in list(self.calls.values())[: max(0, len(self.calls) - MAX_CALLS)]:
            if old.status != "running":
                del self.calls[old.id]
        call.task = asyncio.create_task(self._run(call, self.client))
        self._changed(call)
        return call

    async def _run(self, call: Call, client: Client) -> None:
        sending_for.set(call)  # this task's messages belong to the call

        def progress(value: float, total: float | None, message: str | None) -> None:
            call.progress = {"progress": value, "total": total, "message": message}
            self._changed(call)

        def task_status(state: JSON) -> None:
            shown = {key: state.get(key) for key in ("taskId", "status", "statusMessage")}
            if shown != call.server_task:
                call.server_task = shown
                self._changed(call)

        try:
            result = await client.call_tool(
                call.tool,
                call.arguments,
                timeout=CALL_TIMEOUT,
                progress=progress,
                task_status=task_status,
            )
        except asyncio.CancelledError:
            call.finish("cancelled", failure=call.cancel_reason)
        except ClientError as exc:  # the server went away, a JSON-RPC error, a bad result
            call.finish("failed", failure=str(exc))
        else:
            call.finish("error" if result.is_error else "ok", result=result.raw)
        call.reference = masked_reference(call.result, call.failure)
        call.traceback = self._logged_traceback(call.reference)  # when stderr brought it first
        self._traffic.forget(call)
        self.questions.drop_for(call.id)
        self._changed(call)

    def cancel(self, call_id: int) -> Call | None:
        """Cancel a running call; ``None`` when it already finished. KeyError if unknown."""
        call = self.calls[call_id]
        if call.task is None or call.task.done():
            return None
        call.task.cancel()
        return call

    def clear_history(self) -> None:
        for call in list(self.calls.values()):
            if call.status != "running":
                del self.calls[call.id]
        self._announce()

    async def exchange(self, method: str, params: JSON) -> JSON:
        """One request from the page other than a tool call (``resources/read``,
        ``prompts/get``, ``completion/complete``): ``{"result"}`` or ``{"error"}``, and the
        ``traffic`` it took."""
        client = self.client
        if client is None or self.status != "ready":
            raise NotReady(self.error or f"The server is {self.status}")
        exchange = Exchange()
        sent_by = sending_for.set(exchange)
        try:
            outcome: JSON = {"result": await client.request(method, params, timeout=START_TIMEOUT)}
        except ClientError as exc:
            outcome = {"error": str(exc)}
        finally:
            sending_for.reset(sent_by)
            self._traffic.forget(exchange)
        return {**outcome, "traffic": exchange.traffic}

    # ------------------------------------------------------------ traffic

    def _tap(self, generation: int, direction: str, data: bytes) -> None:
        """Sort each JSON-RPC message to the call it belongs to, and react to the server's
        notifications (logs, tool list changes)."""
        if generation != self.generation:
            return
        try:
            message = orjson.loads(data)
        except orjson.JSONDecodeError:
            return
        if not isinstance(message, dict):
            return
        owner = self._traffic.owner(direction, message)
        if owner is not None:
            owner.traffic.append({"direction": direction, "time": now_ms(), "message": message})
        call = owner if isinstance(owner, Call) else None
        method = message.get("method")
        if direction != "receive" or not isinstance(method, str):
            return
        params = params_of(message)
        if method == "notifications/message":
            entry = {key: params.get(key) for key in ("level", "logger", "data")}
            self._log(entry, call)
        elif method in CHANGED:
            self._spawn(self._refresh(generation, CHANGED[method]))

    def _log(self, entry: JSON, call: Call | None) -> JSON:
        entry = {
            "id": next(self._log_ids),
            "time": now_ms(),
            **entry,
            "call": call.id if call else None,
        }
        if call is not None:
            call.logs.append(entry)
            self._changed(call)
        else:
            self.logs.append(entry)
            self.emit("log", entry)
        return entry

    async def _refresh(self, generation: int, kinds: tuple[str, ...]) -> None:
        client = self.client
        if client is None:
            return
        with contextlib.suppress(ClientError):
            for kind in kinds:
                listing = await _list(client, kind)
                if generation != self.generation:
                    return
                self.listings[kind] = listing
            self._announce()


# What the page lists, the capability that offers it, and the client method that lists it.
LISTINGS = {
    "tools": ("tools", "list_tools"),
    "resources": ("resources", "list_resources"),
    "resourceTemplates": ("resources", "list_resource_templates"),
    "prompts": ("prompts", "list_prompts"),
}
CHANGED = {
    "notifications/tools/list_changed": ("tools",),
    "notifications/resources/list_changed": ("resources", "resourceTemplates"),
    "notifications/prompts/list_changed": ("prompts",),
}


async def _list(client: Client, kind: str) -> list[JSON]:
    capability, method = LISTINGS[kind]
    if capability not in client.server_capabilities:
        return []
    listing: list[JSON] = await getattr(client, method)()
    return listing


def _version() -> str:

    return __version__
