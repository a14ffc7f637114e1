"""Idempotency keys (``_meta["io.toolwire/idempotency-key"]``): a call sent again with its
key runs once and gets the first call's answer, on one worker and across workers sharing
Redis; toolwire's client sends a keyed call again when its connection fails before the
answer, and only such a call."""

from __future__ import annotations

import asyncio
import contextlib
import sys
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from toolwire import Client, ClientError, Server, ServerError, ToolError

from http_server import serve_http
from services import Worker, free_port, start_listening, start_redis
from wire import checked_client

pytestmark = pytest.mark.timeout(60)

REVISIONS = ["2025-11-25", "2026-07-28"]
WORKER = Path(__file__).parent / "servers" / "rolling_worker.py"
KEY = "io.toolwire/idempotency-key"


def counting() -> tuple[Server, list[str]]:
    mcp = Server("keyed")
    runs: list[str] = []

    @mcp.tool()
    def record(item: str) -> str:
        """Record an item; how many records there are."""
        runs.append(item)
        return f"{item} #{len(runs)}"

    @mcp.tool()
    def refuse(item: str) -> str:
        """Refuse the item."""
        runs.append(item)
        raise ToolError(f"{item} refused")

    return mcp, runs


@pytest.mark.parametrize("revision", REVISIONS)
async def test_a_call_sent_again_with_its_key_runs_once(revision: str) -> None:
    mcp, runs = counting()
    with serve_http(mcp) as url:
        async with checked_client(url, revision) as client:
            key = str(uuid.uuid4())
            first = await client.call_tool("record", {"item": "a"}, idempotency_key=key)
            again = await client.call_tool("record", {"item": "a"}, idempotency_key=key)
            assert first.text == again.text == "a #1"
            other = await client.call_tool("record", {"item": "a"}, idempotency_key="other")
            assert other.text == "a #2"
            plain = await client.call_tool("record", {"item": "a"})  # no key: it runs
            assert plain.text == "a #3"
            with pytest.raises(ServerError, match="sent with another call") as refused:
                await client.call_tool("record", {"item": "b"}, idempotency_key=key)
            assert refused.value.code == -32602
            failed_key = str(uuid.uuid4())
            for _ in range(2):  # an error result is the answer kept too
                failed = await client.call_tool("refuse", {"item": "c"}, idempotency_key=failed_key)
                assert failed.is_error and failed.text == "c refused"
            with pytest.raises(ServerError, match="must be a string of 1 to 255") as invalid:
                await client.request(
                    "tools/call",
                    {"name": "record", "arguments": {"item": "d"}, "_meta": {KEY: ""}},
                )
            assert invalid.value.code == -32602
    assert runs == ["a", "a", "a", "c"]


@contextlib.contextmanager
def two_workers() -> Iterator[tuple[str, Worker, Worker]]:
    """Two ``mcp.run`` workers sharing Redis (``servers/rolling_worker.py``)."""
    with start_redis() as redis_url:
        env = {"ROLLING_REDIS": redis_url}
        started = []
        with contextlib.ExitStack() as stack:
            for _ in range(2):
                port = free_port()
                command = [sys.executable, str(WORKER), str(port)]
                started.append(
                    stack.enter_context(start_listening(command, port, "listening", env=env))
                )
            yield redis_url, started[0], started[1]


async def test_a_key_holds_on_every_worker_sharing_redis() -> None:
    with two_workers() as (_redis, a, b):
        key = str(uuid.uuid4())
        arguments = {"call_id": key}
        answers = []
        for worker in (a, b, a):
            async with checked_client(worker.url, "2026-07-28") as client:
                result = await client.call_tool("count", arguments, idempotency_key=key)
                answers.append(result.text)
        assert answers == [f"{a.pid} 1"] * 3  # ran once, on a; b answered what a kept


class DroppingRelay:
    """A TCP relay to ``port`` that, on the first request carrying ``tools/call``, waits for
    the server's first answer byte (the tool has run) and then drops the client's connection
    before passing anything back."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.dropped = 0
        self._relays: dict[asyncio.Task[None], asyncio.StreamWriter] = {}

    @contextlib.asynccontextmanager
    async def serving(self) -> AsyncIterator[str]:
        server = await asyncio.start_server(self._relay, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        try:
            yield f"http://127.0.0.1:{port}/mcp"
        finally:
            server.close()
            for writer in self._relays.values():  # each relay then ends by itself
                writer.close()
            await asyncio.wait_for(asyncio.gather(*self._relays), 10)

    async def _relay(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        this = asyncio.current_task()
        assert this is not None
        self._relays[this] = writer
        up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.port)
        dropping = False

        async def upstream() -> None:
            nonlocal dropping
            while data := await reader.read(65536):
                if b'"tools/call"' in data and not self.dropped:
                    self.dropped += 1
                    dropping = True
                up_writer.write(data)
                await up_writer.drain()

        async def downstream() -> None:
            while data := await up_reader.read(65536):
                if dropping:  # the server answers, so the tool ran: break the connection
                    writer.transport.abort()
                    return
                writer.write(data)
                await writer.drain()

        both = [asyncio.ensure_future(upstream()), asyncio.ensure_future(downstream())]
        try:
            await asyncio.wait(both, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for side in both:
                side.cancel()
            up_writer.close()
            writer.close()


@pytest.mark.parametrize("keyed", [True, False])
async def test_the_client_sends_again_only_a_keyed_call_whose_connection_failed(
    keyed: bool,
) -> None:
    mcp, runs = counting()
    with serve_http(mcp) as url:
        relay = DroppingRelay(int(url.split(":")[2].split("/")[0]))
        async with (
            relay.serving() as relayed,
            Client(relayed, protocol_version="2026-07-28") as client,
        ):
            key = str(uuid.uuid4()) if keyed else None
            if keyed:
                result = await client.call_tool("record", {"item": "x"}, idempotency_key=key)
                assert result.text == "x #1"  # the kept answer of the run the relay cut
            else:
                with pytest.raises(ClientError, match="HTTP request failed"):
                    await client.call_tool("record", {"item": "x"})
        assert relay.dropped == 1
    assert runs == ["x"]
