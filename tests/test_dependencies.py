"""Dependencies: parameters the server fills in (``Depends``, ``Server.provide``).

Over a real stdio subprocess (its providers write a journal file that outlives it) and a
real uvicorn on 127.0.0.1, both eras: the input schema leaves the dependencies out; a
lifespan provider is made once across calls and connections and cleaned up when the server
stops; a request-scoped generator runs once per call, shared within it (nested providers,
the ``Context`` inside a provider), and is cleaned up after the call, also when the tool
raises or the call is cancelled; resources and prompts use them too. In memory: provider
failures (masked, shown, failing cleanups), concurrent first uses, retries, mounted servers,
and the registration errors. Every message is validated against the negotiated revision's
schema. The server: tests/servers/dependencies_server.py.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated, Any

import pytest
from pydantic import BaseModel, ConfigDict, Field, computed_field

from toolwire import ClientError, Context, Depends, RegistrationError, Server

from http_server import serve_http
from wire import checked_client

sys.path.insert(0, str(Path(__file__).parent / "servers"))
from dependencies_server import Journal, build

pytestmark = pytest.mark.timeout(60)

ERAS = ["2025-11-25", "2026-07-28"]
SERVER = Path(__file__).parent / "servers" / "dependencies_server.py"


def stdio(journal: Path) -> list[str]:
    return [sys.executable, str(SERVER), str(journal)]


async def queries(client: Any, count: int) -> list[dict[str, Any]]:
    results = []
    for index in range(count):
        result = await client.call_tool("query", {"sql": f"select {index}"})
        assert not result.is_error, result.text
        results.append(result.structured)
    return results


def check_query_results(results: list[dict[str, Any]]) -> None:
    """One pool for every call, one transaction per call, shared within it."""
    assert {r["pool"] for r in results} == {1}
    assert [r["calls"] for r in results] == list(range(1, len(results) + 1))
    assert len({r["tx"] for r in results}) == len(results)
    assert all(r["same_tx"] for r in results)


def check_transactions(lines: list[str], count: int) -> None:
    """Each call's transaction opened once, its cursor closed first, then it committed."""
    opened = [line for line in lines if line.startswith("tx ") and " open for request " in line]
    assert len(opened) == count
    for line in opened:
        number = line.split()[1]
        mine = [entry for entry in lines if f"tx {number}" in entry]
        assert mine == [
            line,
            f"cursor of tx {number} open",
            f"cursor of tx {number} closed",
            f"tx {number} commit",
        ]


async def check_schemas(client: Any) -> None:
    tools = {tool["name"]: tool for tool in await client.list_tools()}
    assert tools["query"]["inputSchema"] == {
        "type": "object",
        "properties": {"sql": {"type": "string"}},
        "required": ["sql"],
    }
    assert tools["sync_query"]["inputSchema"]["properties"] == {"sql": {"type": "string"}}
    assert tools["hang"]["inputSchema"] == {"type": "object", "properties": {}}
    prompts = {prompt["name"]: prompt for prompt in await client.list_prompts()}
    assert [a["name"] for a in prompts["summarize"]["arguments"]] == ["topic"]


# ---------------------------------------------------------------- stdio and HTTP


@pytest.mark.parametrize("revision", ERAS)
async def test_over_stdio_lifespan_once_request_per_call(revision: str, tmp_path: Path) -> None:
    journal = tmp_path / "journal.txt"
    async with checked_client(stdio(journal), revision) as client:
        await check_schemas(client)
        check_query_results(await queries(client, 3))
        sync = await client.call_tool("sync_query", {"sql": "select 1"})
        assert sync.text == "select 1 in tx 4"
    # the client closed stdin and waited for the process: its journal is complete
    lines = journal.read_text(encoding="utf-8").splitlines()
    assert lines.count("pool 1 open") == 1 and lines[0] == "pool 1 open"
    assert lines[-1] == "pool 1 closed"  # cleaned up when the server stopped, last
    check_transactions(lines[:-1], 4)


@pytest.mark.parametrize("revision", ERAS)
async def test_over_http_lifespan_shared_by_connections_cleaned_at_stop(revision: str) -> None:
    journal = Journal()
    with serve_http(build(journal)) as url:
        async with checked_client(url, revision) as client:
            await check_schemas(client)
            first = await queries(client, 2)
        async with checked_client(url, revision) as client:
            second = await queries(client, 2)
        assert journal.lines.count("pool 1 open") == 1
        assert "pool 1 closed" not in journal.lines  # the server still runs
    check_query_results(first + second)
    assert journal.lines[-1] == "pool 1 closed"  # uvicorn stopped: the lifespan ended
    check_transactions(journal.lines[1:-1], 4)


@pytest.mark.parametrize(("transport", "revision"), [("stdio", ERAS[0]), ("http", ERAS[1])])
async def test_cleanup_after_an_error_and_a_cancelled_call(
    transport: str, revision: str, tmp_path: Path
) -> None:
    journal = Journal()
    with serve_http(build(journal)) as url:
        target: Any = url if transport == "http" else stdio(tmp_path / "journal.txt")
        async with checked_client(target, revision) as client:
            failed = await client.call_tool("fail", {"message": "no such table"})
            assert failed.is_error and failed.text == "no such table"
            with pytest.raises(ClientError, match="timed out"):
                await client.call_tool("hang", {}, timeout=0.5)
            waited = await client.call_tool("journal_lines", {"until": "rollback Cancelled"})
            assert not waited.is_error, waited.text
            lines = waited.structured["result"]
            # the tool still works after both
            check_query_results(await queries(client, 1))
    assert "tx 1 rollback ValueError" in lines  # raised at the generator's yield
    assert "tx 1 commit" not in lines
    assert lines.index("tx 2 hanging") < lines.index("tx 2 rollback CancelledError")
    assert "tx 2 commit" not in lines


@pytest.mark.parametrize("revision", ERAS)
async def test_resources_and_prompts_get_dependencies_over_http(revision: str) -> None:
    journal = Journal()
    with serve_http(build(journal)) as url:
        async with checked_client(url, revision) as client:
            read = await client.read_resource("rows://users")
            prompt = await client.get_prompt("summarize", {"topic": "sales"})
            templates = await client.list_resource_templates()
    assert read.contents[0]["text"] == "rows of users in tx 1 of pool 1"
    assert prompt.messages[0]["content"]["text"] == "Summarize sales (tx 2)"
    assert [t["uriTemplate"] for t in templates] == ["rows://{table}"]
    assert "tx 1 commit" in journal.lines and "tx 2 commit" in journal.lines
    assert journal.lines[-1] == "pool 1 closed"


# ---------------------------------------------------------------- failures (in memory)


async def test_a_failing_provider_gives_an_error_result_masked_or_not() -> None:
    journal = Journal()
    mcp = build(journal)
    async with checked_client(mcp, "2025-11-25") as client:
        broken = await client.call_tool("broken", {})
        refused = await client.call_tool("refused", {})
        unclean = await client.call_tool("unclean", {})
        mcp.mask_errors = False
        shown = await client.call_tool("broken", {})
        after = await client.call_tool("query", {"sql": "x"})
        assert not after.is_error, after.text  # still serving
    assert broken.is_error
    assert broken.text.startswith(
        "The dependency 'broken_provider' of tool 'broken' failed with an internal error "
        "(reference "
    )
    assert "hunter2" not in broken.text
    assert "tx 1 rollback ToolError" in journal.lines  # what began is cleaned up
    assert refused.is_error and refused.text == "the caller may not use the database"
    assert unclean.is_error and "unclean_provider" in unclean.text
    assert "hunter2" not in unclean.text
    assert shown.is_error and "RuntimeError: cannot reach postgres" in shown.text


async def test_a_failed_lifespan_provider_is_tried_again() -> None:
    attempts: list[int] = []
    mcp = Server("retry")

    async def flaky() -> str:
        attempts.append(1)
        if len(attempts) == 1:
            raise ConnectionError("database down")
        return "connected"

    @mcp.tool()
    def status(link: str = Depends(flaky, scope="lifespan")) -> str:
        return link

    async with checked_client(mcp, "2026-07-28") as client:
        first = await client.call_tool("status", {})
        assert first.is_error and "internal error" in first.text
        assert (await client.call_tool("status", {})).text == "connected"
        assert (await client.call_tool("status", {})).text == "connected"
    assert len(attempts) == 2


async def test_concurrent_first_uses_make_one_lifespan_value() -> None:
    made: list[int] = []
    arrived: list[int] = []
    all_arrived = asyncio.Event()
    mcp = Server("concurrent")
    calls = 8

    async def arrive() -> int:
        arrived.append(1)
        if len(arrived) == calls:
            all_arrived.set()
        return len(arrived)

    async def slow() -> int:
        await all_arrived.wait()  # every call is past arrive(), on its way here
        made.append(1)
        return len(made)

    @mcp.tool()
    async def probe(
        seen: int = Depends(arrive), value: int = Depends(slow, scope="lifespan")
    ) -> int:
        return value

    async with checked_client(mcp, "2025-11-25") as client:
        results = await asyncio.gather(*(client.call_tool("probe", {}) for _ in range(calls)))
    assert [r.structured["result"] for r in results] == [1] * calls
    assert made == [1]


async def test_request_scope_is_shared_within_a_call_and_context_reaches_providers() -> None:
    made: list[str] = []
    closed: list[str] = []
    mcp = Server("shared")

    def caller(ctx: Context) -> str:  # a sync provider, on a worker thread
        made.append(str(ctx.request_id))
        return f"caller of {ctx.request_id}"

    def greeting(who: str = Depends(caller)) -> Iterator[str]:
        yield f"hello {who}"
        closed.append(who)

    @mcp.tool()
    def hello(who: str = Depends(caller), text: str = Depends(greeting)) -> str:
        return f"{text} / {who}"

    async with checked_client(mcp, "2026-07-28") as client:
        one = await client.call_tool("hello", {})
        two = await client.call_tool("hello", {})
    assert len(made) == 2  # once per call, though two parameters need it
    assert one.text == f"hello caller of {made[0]} / caller of {made[0]}"
    assert two.text == f"hello caller of {made[1]} / caller of {made[1]}"
    assert closed == [f"caller of {made[0]}", f"caller of {made[1]}"]


async def test_a_mounted_servers_tool_keeps_its_dependencies() -> None:
    journal = Journal()
    outer = Server("outer")
    outer.mount(build(journal), prefix="db")
    async with checked_client(outer, "2025-11-25") as client:
        tools = {t["name"]: t for t in await client.list_tools()}
        assert tools["db_query"]["inputSchema"]["properties"] == {"sql": {"type": "string"}}
        check_query_results(await queries_named(client, "db_query", 2))
    assert journal.lines[0] == "pool 1 open" and journal.lines[-1] == "pool 1 closed"


async def queries_named(client: Any, name: str, count: int) -> list[dict[str, Any]]:
    return [(await client.call_tool(name, {"sql": "s"})).structured for _ in range(count)]


class Session:
    def __init__(self) -> None:
        self.open = True


class Report(BaseModel):
    """Rows read lazily, while the result is made (as an ORM object reads them)."""

    model_config = ConfigDict(arbitrary_types_allowed=True)
    session: Session = Field(exclude=True)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def rows(self) -> int:
        if not self.session.open:
            raise RuntimeError("the session is closed")
        return 3


def open_session() -> Iterator[Session]:
    session = Session()
    yield session
    session.open = False


async def test_a_tools_result_is_made_before_its_dependencies_close() -> None:
    mcp = Server("lazy")

    @mcp.tool()
    async def report(session: Annotated[Session, Depends(open_session)]) -> Report:
        return Report(session=session)

    async with checked_client(mcp, "2025-11-25") as client:
        result = await client.call_tool("report", {})
    assert not result.is_error, result.text
    assert result.structured == {"rows": 3}


# ---------------------------------------------------------------- registration errors


class Pool:
    pass


class Settings(BaseModel):
    level: int = 1


class Left:
    pass


class Right:
    pass


def make_left(right: Right) -> Left:
    return Left()


def make_right(left: Left) -> Right:
    return Right()


def test_a_cycle_is_refused_at_registration() -> None:
    mcp = Server("cycle")
    mcp.provide(Left, make_left)
    mcp.provide(Right, make_right)
    with pytest.raises(RegistrationError, match="cycle: make_left -> make_right -> make_left"):
        _tool_taking(mcp, Left)


def _tool_taking(mcp: Server, kind: type) -> None:
    def tool(value: Any) -> str:
        return "x"

    tool.__annotations__["value"] = kind
    mcp.add_tool(tool)


def test_what_registration_refuses() -> None:
    mcp = Server("errors")

    def needs_pool(pool: Pool) -> str:
        return "x"

    def request_scoped() -> int:
        return 1

    def lifespan_on_request(n: int = Depends(request_scoped)) -> int:
        return n

    def lifespan_on_context(ctx: Context) -> int:
        return 1

    cases: list[tuple[Any, str]] = [
        (needs_pool, "parameter 'pool' of the dependency 'needs_pool' has no provider"),
        (lifespan_on_request, "cannot use the request-scoped 'request_scoped'"),
        (lifespan_on_context, "cannot take the call's Context"),
    ]
    for provider, message in cases:
        scope: Any = "request" if provider is needs_pool else "lifespan"

        def tool(value: Any = Depends(provider, scope=scope)) -> str:
            return "x"

        with pytest.raises(RegistrationError, match=message):
            mcp.add_tool(tool)
        with pytest.raises(RegistrationError, match=message):
            mcp.add_prompt(tool)

    def local_provider() -> int:
        return 1

    def annotated_locally(value: Annotated[int, Depends(local_provider)]) -> int:
        return value  # this module has `from __future__ import annotations`

    with pytest.raises(RegistrationError, match="define the provider at module level"):
        mcp.add_tool(annotated_locally)
    with pytest.raises(RegistrationError, match=r"parameter 'value' has the type Pool"):
        _tool_taking(mcp, Pool)  # no provider: named, with how to make it a dependency
    with pytest.raises(TypeError, match="needs a function or class"):
        Depends(42)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="scope"):
        Depends(request_scoped, scope="app")  # type: ignore[arg-type]
    with pytest.raises(RegistrationError, match="the server gives each call its Context"):
        mcp.provide(Context, request_scoped)

    mcp.provide(Pool, Pool, scope="lifespan")
    with pytest.raises(RegistrationError, match="Pool already has a provider"):
        mcp.provide(Pool, Pool)

    @mcp.tool()
    def configured(settings: Settings) -> int:  # a JSON argument, registered first
        return settings.level

    with pytest.raises(RegistrationError, match="'configured' already takes a Settings"):
        mcp.provide(Settings, Settings)


async def test_provide_by_type_for_resources_and_templates() -> None:
    mcp = Server("by-type")

    @mcp.provide(Pool, scope="lifespan")
    def make_pool() -> Pool:
        return Pool()

    @mcp.resource("pool://id")
    def pool_id(pool: Pool) -> str:
        return str(id(pool))

    @mcp.resource("pool://{name}/id")
    async def named(name: str, pool: Pool) -> str:
        return f"{name}:{id(pool)}"

    async with checked_client(mcp, "2026-07-28") as client:
        first = (await client.read_resource("pool://id")).contents[0]["text"]
        second = (await client.read_resource("pool://x/id")).contents[0]["text"]
        templates = await client.list_resource_templates()
    assert second == f"x:{first}"
    assert [t["uriTemplate"] for t in templates] == ["pool://{name}/id"]
