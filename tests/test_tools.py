"""Registering tools (names, overrides, kinds of callables), removing them, list changes,
and how sync tools run: on worker threads, inline only when declared or proven non-blocking."""

from __future__ import annotations

import asyncio
import functools
import logging
import threading
from typing import Any

import pytest

from toolwire import Context, Depends, Prompt, RegistrationError, Server, ServerError, Tool

from wire import checked_client

LEGACY = "2025-06-18"
MODERN = "2026-07-28"

ADD_SCHEMA = {
    "type": "object",
    "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
    "required": ["a", "b"],
}


def add(a: int, b: int) -> int:
    """Add two numbers together."""
    return a + b


# ---------------------------------------------------------------- names


@pytest.mark.parametrize(
    "name",
    ["", "get weather", "x" * 129, "héllo", "日本", "a,b", "a/b", "tab\tname", "new\nline"],
    ids=["empty", "space", "129-chars", "accent", "cjk", "comma", "slash", "tab", "newline"],
)
def test_invalid_names_are_rejected_at_decoration_time(name: str) -> None:
    mcp = Server("t")
    with pytest.raises(RegistrationError, match="Invalid tool name"):
        mcp.tool(name)(add)
    with pytest.raises(RegistrationError, match="Invalid tool name"):
        mcp.tool(name=name)(add)
    with pytest.raises(RegistrationError, match="Invalid tool name"):
        mcp.add_tool(add, name=name)
    assert mcp.tools == []


def test_empty_name_is_not_replaced_by_the_function_name() -> None:
    mcp = Server("t")
    with pytest.raises(RegistrationError) as info:
        mcp.tool("")(add)
    assert "''" in str(info.value)
    assert mcp.get_tool("add") is None


@pytest.mark.parametrize("name", ["a", "x" * 128, "get_weather", "Weather.Get-v2", "0", "A_b.c-D"])
def test_valid_names_are_accepted(name: str) -> None:
    mcp = Server("t")
    mcp.tool(name)(add)
    tool = mcp.get_tool(name)
    assert tool is not None and tool.name == name


def test_a_function_whose_own_name_is_invalid_is_rejected() -> None:
    mcp = Server("t")

    def héllo() -> str:
        return "hi"

    with pytest.raises(RegistrationError, match="héllo"):
        mcp.tool(héllo)
    # ... but it can be registered under a valid name
    mcp.tool("hello")(héllo)
    assert [t.name for t in mcp.tools] == ["hello"]


def test_names_are_case_sensitive() -> None:
    mcp = Server("t")
    mcp.tool("Add")(add)
    mcp.tool("add")(add)
    assert [t.name for t in mcp.tools] == ["Add", "add"]


def test_duplicate_names_are_rejected_and_the_first_tool_stays() -> None:
    mcp = Server("t")
    mcp.tool()(add)

    def other(x: int) -> int:
        return x

    with pytest.raises(RegistrationError, match="'add' is already registered"):
        mcp.tool("add")(other)
    with pytest.raises(RegistrationError, match="already registered"):
        mcp.add_tool(add)
    assert [t.name for t in mcp.tools] == ["add"]
    tool = mcp.get_tool("add")
    assert tool is not None and tool.fn is add


# ---------------------------------------------------------------- decorator forms


def test_every_decorator_form_returns_the_function_unchanged() -> None:
    mcp = Server("t")

    @mcp.tool
    def bare(a: int) -> int:
        return a + 1

    @mcp.tool()
    def called(a: int) -> int:
        return a + 2

    @mcp.tool("renamed")
    def positional(a: int) -> int:
        return a + 3

    @mcp.tool(name="kw_named", title="Kw", description="Keyword form.")
    async def keyword(a: int) -> int:
        return a + 4

    assert (bare(1), called(1), positional(1)) == (2, 3, 4)
    assert asyncio.run(keyword(1)) == 5
    assert bare.__name__ == "bare" and keyword.__name__ == "keyword"
    assert [t.name for t in mcp.tools] == ["bare", "called", "renamed", "kw_named"]
    assert mcp.get_tool("renamed").fn is positional  # type: ignore[union-attr]


def test_add_tool_returns_the_tool_and_remove_tool_unregisters_it() -> None:
    mcp = Server("t")
    tool = mcp.add_tool(add, title="Adder")
    assert tool is mcp.get_tool("add")
    assert tool.definition == {
        "name": "add",
        "title": "Adder",
        "description": "Add two numbers together.",
        "inputSchema": ADD_SCHEMA,
        "outputSchema": {
            "type": "object",
            "properties": {"result": {"type": "integer"}},
            "required": ["result"],
        },
    }
    mcp.remove_tool("add")
    assert mcp.get_tool("add") is None and mcp.tools == []
    with pytest.raises(KeyError, match="add"):
        mcp.remove_tool("add")


async def test_name_title_description_and_annotations_overrides() -> None:
    mcp = Server("t")

    @mcp.tool(
        name="sum_two",
        title="Sum",
        description="Overrides the docstring.",
        annotations={"title": "Sum (hint)", "readOnlyHint": True, "openWorldHint": False},
    )
    def add_numbers(a: int, b: int) -> int:
        """The docstring."""
        return a + b

    async with checked_client(mcp, LEGACY) as client:
        [listed] = await client.list_tools()
    assert listed["name"] == "sum_two"
    assert listed["title"] == "Sum"
    assert listed["description"] == "Overrides the docstring."
    assert listed["annotations"] == {
        "title": "Sum (hint)",
        "readOnlyHint": True,
        "openWorldHint": False,
    }
    async with checked_client(mcp, "2024-11-05") as client:
        [old] = await client.list_tools()
    assert "title" not in old and "annotations" not in old and "outputSchema" not in old


@pytest.mark.parametrize("revision", [LEGACY, MODERN])
async def test_titles_from_names_titles_every_tool_that_has_none(revision: str) -> None:
    mcp = Server("t", titles_from_names=True)
    mcp.tool(add)
    mcp.tool(name="get-forecast_now")(add)
    mcp.tool(name="given", title="Given")(add)
    mcp.tool(name="hinted", annotations={"title": "Hinted"})(add)
    child = Server("child")
    child.tool(name="top_headlines")(add)
    mcp.mount(child, namespace="news")
    async with checked_client(mcp, revision) as client:
        listed = {tool["name"]: tool.get("title") for tool in await client.list_tools()}
    assert listed == {
        "add": "Add",
        "get-forecast_now": "Get Forecast Now",
        "given": "Given",
        "hinted": "Hinted",
        "news_top_headlines": "News Top Headlines",
    }
    async with checked_client(mcp, "2024-11-05") as client:
        assert all("title" not in tool for tool in await client.list_tools())
    async with checked_client(Server("plain", tools=[add]), revision) as client:
        assert [tool.get("title") for tool in await client.list_tools()] == [None]


def test_fastmcp_is_a_server_that_titles_tools_from_their_names() -> None:
    from toolwire import FastMCP

    assert isinstance(FastMCP("f"), Server) and FastMCP("f").titles_from_names
    assert not FastMCP("f", titles_from_names=False).titles_from_names
    assert not Server("s").titles_from_names


@pytest.mark.parametrize(
    ("key", "meant"),
    [
        ("readonly", "readOnlyHint"),
        ("read_only_hint", "readOnlyHint"),
        ("destructive", "destructiveHint"),
    ],
)
def test_a_misspelt_annotation_key_is_refused_with_the_one_meant(key: str, meant: str) -> None:
    mcp = Server("t")
    with pytest.raises(RegistrationError, match=f"'{key}': did you mean '{meant}'"):
        mcp.tool(annotations={key: True})(add)


async def test_another_annotation_key_is_accepted_and_not_sent() -> None:
    # as FastMCP: a real server's "icon" does not stop it from starting, and is left out
    mcp = Server("t")
    mcp.tool(annotations={"title": "Add", "icon": "+", "readOnlyHint": True})(add)
    async with checked_client(mcp, LEGACY) as client:
        (tool,) = await client.list_tools()
    assert tool["annotations"] == {"title": "Add", "readOnlyHint": True}


# ---------------------------------------------------------------- kinds of callables


class Counter:
    def __init__(self, step: int) -> None:
        self.step = step
        self.total = 0

    def bump(self, times: int = 1) -> int:
        """Bump the counter."""
        self.total += self.step * times
        return self.total

    async def abump(self, times: int = 1) -> int:
        self.total += self.step * times
        return self.total


class Greeter:
    """Greets people."""

    def __init__(self, greeting: str) -> None:
        self.greeting = greeting

    def __call__(self, name: str) -> str:
        return f"{self.greeting}, {name}!"


class AsyncGreeter:
    """Greets people asynchronously."""

    async def __call__(self, name: str) -> str:
        await asyncio.sleep(0)
        return f"Hi, {name}!"


def power(base: int, exponent: int) -> int:
    """Raise base to a power."""
    return base**exponent


async def test_bound_methods_callable_objects_and_partials() -> None:
    mcp = Server("t")
    counter = Counter(step=10)
    mcp.add_tool(counter.bump)
    mcp.add_tool(counter.abump)
    mcp.add_tool(Greeter("Hello"), name="greet")
    mcp.add_tool(AsyncGreeter())
    mcp.add_tool(functools.partial(power, exponent=2), name="square")

    async with checked_client(mcp, LEGACY) as client:
        listed = {t["name"]: t for t in await client.list_tools()}
        assert list(listed) == ["bump", "abump", "greet", "AsyncGreeter", "square"]
        # no `self` in the schema of a bound method
        assert listed["bump"]["inputSchema"] == {
            "type": "object",
            "properties": {"times": {"type": "integer", "default": 1}},
        }
        assert listed["bump"]["description"] == "Bump the counter."
        assert listed["greet"]["description"] == "Greets people."
        assert listed["greet"]["inputSchema"] == {
            "type": "object",
            "properties": {"name": {"type": "string"}},
            "required": ["name"],
        }
        assert listed["square"]["inputSchema"] == {
            "type": "object",
            "properties": {
                "base": {"type": "integer"},
                "exponent": {"type": "integer", "default": 2},
            },
            "required": ["base"],
        }

        assert (await client.call_tool("bump", {"times": 2})).structured == {"result": 20}
        assert (await client.call_tool("abump", {})).structured == {"result": 30}
        assert counter.total == 30
        assert (await client.call_tool("greet", {"name": "Ada"})).text == "Hello, Ada!"
        assert (await client.call_tool("AsyncGreeter", {"name": "Bo"})).text == "Hi, Bo!"
        assert (await client.call_tool("square", {"base": 7})).structured == {"result": 49}
        assert (await client.call_tool("square", {"base": 2, "exponent": 5})).text == "32"

    assert mcp.get_tool("abump").is_async  # type: ignore[union-attr]
    assert mcp.get_tool("AsyncGreeter").is_async  # type: ignore[union-attr]
    assert not mcp.get_tool("greet").is_async  # type: ignore[union-attr]


def test_a_method_decorated_in_a_class_body_is_rejected() -> None:
    # At class-creation time there is no instance to bind `self` to: the tool could never be
    # called. Refuse it with a hint rather than publish a schema with a required `self`.
    mcp = Server("t")
    with pytest.raises(RegistrationError, match=r"self.*add_tool\(instance\.lookup\)"):

        class Service:
            @mcp.tool()
            def lookup(self, key: str) -> str:
                return key

    with pytest.raises(RegistrationError, match="cls"):

        class Other:
            @mcp.tool
            def build(cls, key: str) -> str:
                return key

    assert mcp.tools == []


async def test_static_methods_and_bound_methods_of_a_class_work() -> None:
    mcp = Server("t")

    class Service:
        prefix = "svc"

        @staticmethod
        @mcp.tool()
        def ping(word: str) -> str:
            return f"pong {word}"

        def lookup(self, key: str) -> str:
            return f"{self.prefix}:{key}"

    mcp.add_tool(Service().lookup)
    async with checked_client(mcp, LEGACY) as client:
        assert (await client.call_tool("ping", {"word": "x"})).text == "pong x"
        assert (await client.call_tool("lookup", {"key": "k"})).text == "svc:k"


def test_a_function_with_a_parameter_called_self_outside_a_class_is_fine() -> None:
    mcp = Server("t")

    def echo(self: str) -> str:
        return self

    mcp.tool()(echo)
    assert mcp.get_tool("echo").schema.input_schema["required"] == ["self"]  # type: ignore[union-attr]


def test_non_callables_are_rejected() -> None:
    mcp = Server("t")
    with pytest.raises(RegistrationError, match="callable"):
        mcp.add_tool(42)  # type: ignore[arg-type]


# ---------------------------------------------------------------- removal and list changes


async def test_removed_tool_is_unknown_with_a_hint() -> None:
    mcp = Server("t")
    mcp.tool()(add)

    @mcp.tool()
    def subtract(a: int, b: int) -> int:
        return a - b

    async with checked_client(mcp, LEGACY) as client:
        assert [t["name"] for t in await client.list_tools()] == ["add", "subtract"]
        mcp.remove_tool("add")
        assert [t["name"] for t in await client.list_tools()] == ["subtract"]
        with pytest.raises(ServerError) as info:
            await client.call_tool("add", {"a": 1, "b": 2})
        assert info.value.code == -32602
        assert info.value.message == "Unknown tool: 'add'."
        with pytest.raises(ServerError) as info:
            await client.call_tool("subtrac", {"a": 1, "b": 2})
        assert info.value.code == -32602
        assert info.value.message == "Unknown tool: 'subtrac'. Did you mean 'subtract'?"


def _list_changes(client: Any) -> list[dict[str, Any]]:
    return [n for n in client.notifications if n["method"] == "notifications/tools/list_changed"]


async def test_list_changed_is_sent_once_per_burst_to_a_legacy_session() -> None:
    mcp = Server("t")
    mcp.tool()(add)
    async with checked_client(mcp, LEGACY) as client:
        assert client.server_capabilities["tools"] == {"listChanged": True}
        await client.list_tools()
        for name in ("one", "two", "three"):
            mcp.add_tool(add, name=name)
        await client.ping()  # the notification is queued before the ping's answer
        assert _list_changes(client) == [
            {"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}
        ]
        assert [t["name"] for t in await client.list_tools()] == ["add", "one", "two", "three"]

        mcp.remove_tool("one")
        mcp.remove_tool("two")
        await client.ping()
        assert len(_list_changes(client)) == 2
        assert [t["name"] for t in await client.list_tools()] == ["add", "three"]

        await client.ping()  # no change, no notification
        assert len(_list_changes(client)) == 2


async def test_list_changed_reaches_every_legacy_session() -> None:
    mcp = Server("t")
    async with checked_client(mcp, LEGACY) as first, checked_client(mcp, "2025-03-26") as second:
        mcp.add_tool(add)
        await first.ping()
        await second.ping()
        assert len(_list_changes(first)) == 1
        assert len(_list_changes(second)) == 1


async def test_no_list_changed_on_a_modern_connection() -> None:
    mcp = Server("t")
    async with checked_client(mcp, MODERN) as client:
        assert [t["name"] for t in await client.list_tools()] == []
        mcp.add_tool(add)
        await client.request("tools/list")
        assert _list_changes(client) == []
        assert [t["name"] for t in await client.list_tools()] == ["add"]


def test_changes_without_a_running_loop_are_fine() -> None:
    mcp = Server("t")
    mcp.add_tool(add)
    mcp.remove_tool("add")
    assert mcp.tools == []


# ---------------------------------------------------------------- how sync tools run


async def test_a_slow_sync_tool_does_not_block_a_concurrent_quick_call() -> None:
    mcp = Server("t")
    release = threading.Event()
    started = threading.Event()

    @mcp.tool()
    def slow() -> str:
        started.set()
        release.wait(5)
        return "slow done"

    @mcp.tool()
    def quick() -> str:
        return "quick done"

    async with checked_client(mcp, LEGACY) as client:
        slow_call = asyncio.create_task(client.call_tool("slow"))
        try:
            assert await asyncio.to_thread(started.wait, 5)
            assert (await client.call_tool("quick")).text == "quick done"
            assert not slow_call.done()
        finally:
            release.set()
        assert (await slow_call).text == "slow done"


async def test_a_time_sleep_tool_does_not_delay_a_concurrent_quick_call() -> None:
    mcp = Server("t")
    threads: list[str] = []
    started = threading.Event()

    @mcp.tool()
    def nap(seconds: float) -> str:
        import time

        threads.append(threading.current_thread().name)
        started.set()
        time.sleep(seconds)
        return "rested"

    mcp.add_tool(add)
    async with checked_client(mcp, LEGACY) as client:
        napping = asyncio.create_task(client.call_tool("nap", {"seconds": 0.5}))
        assert await asyncio.to_thread(started.wait, 5)
        assert (await client.call_tool("add", {"a": 1, "b": 2})).text == "3"
        assert not napping.done()  # answered while the sync tool still sleeps in its thread
        assert (await napping).text == "rested"
    assert threads[0].startswith("toolwire-worker")


async def _call_n(client: Any, name: str, n: int, arguments: dict[str, Any] | None = None) -> None:
    for _ in range(n):
        result = await client.call_tool(name, arguments or {})
        assert not result.is_error, result.text


async def test_a_quick_sync_tool_that_calls_things_stays_on_threads() -> None:
    """However quick its calls, a tool whose code calls anything could block: never inline."""
    mcp = Server("t")
    seen: list[str] = []

    @mcp.tool()
    def where() -> str:
        seen.append(threading.current_thread().name)
        return "ok"

    tool = mcp.get_tool("where")
    assert tool is not None and not tool.inline
    async with checked_client(mcp, LEGACY) as client:
        await _call_n(client, "where", 20)
    assert not tool.inline
    assert len(seen) == 20 and all(name.startswith("toolwire-worker") for name in seen)


async def test_a_tool_that_provably_never_blocks_runs_inline_after_its_first_call() -> None:
    mcp = Server("t")
    tool = mcp.add_tool(add)
    assert not tool.inline
    async with checked_client(mcp, LEGACY) as client:
        assert (await client.call_tool("add", {"a": 1, "b": 2})).structured == {"result": 3}
        assert tool.inline and tool.never_blocks
        assert (await client.call_tool("add", {"a": 2, "b": 2})).structured == {"result": 4}


def _celsius(c: float) -> float:
    return c * 9 / 5 + 32


def _greet(name: str, excited: bool = False) -> str:
    return f"Hello {name}!" if excited else f"Hello {name}"


def _power(a: int, b: int) -> int:
    return a**b


def _repeat(text: str, n: int) -> str:
    return text * n


def _width(a: int, w: int) -> str:
    return f"{a:>{w}}"


def _loop(n: int) -> int:
    total = 0
    for i in range(n):
        total += i
    return total


def _upper(text: str) -> str:
    return text.upper()


def _sleepy(seconds: float) -> str:
    import time

    time.sleep(seconds)
    return "ok"


def _listy(items: list[int]) -> int:
    return len(items)


def _squares(a: int, b: int) -> bool:  # quadratic on a 4,300-digit integer argument
    c1 = a * a
    c2 = c1 * c1
    return c2 // c1 == b


def _floor(a: int, b: int) -> int:
    return a // b


def _doubled(s: str, t: str) -> bool:  # each step doubles the text
    c1 = s + s
    c2 = c1 + c1
    c3 = c2 + c2
    return c3 == t


def _fields(s: str) -> str:
    return f"{s}{s}{s}{s}"


def _escaped(s: str) -> str:  # !a turns one character into up to ten
    return f"{s!a}"


def _joined(s: str, t: str) -> str:
    return s + t


def _area(width: float, height: float) -> float:
    return width * height


@pytest.mark.parametrize(
    ("fn", "expected"),
    [
        (add, True),
        (_celsius, True),
        (_greet, True),
        (_power, False),  # grows with an argument's value
        (_repeat, False),  # str * int
        (_width, False),  # a format width from an argument
        (_loop, False),
        (_upper, False),  # any call
        (_sleepy, False),
        (_listy, False),  # not a plain parameter type
        (functools.partial(add, 1), False),
        (_squares, False),  # * and // on integers: quadratic in their size
        (_floor, False),
        (_doubled, False),  # three concatenations: the text grows eightfold
        (_fields, False),  # four f-string fields of a string argument
        (_escaped, False),
        (_joined, True),  # one concatenation
        (_area, True),  # * on floats
    ],
)
def test_never_blocks_accepts_only_straight_line_arithmetic(fn: Any, expected: bool) -> None:
    from toolwire.functions.nonblocking import never_blocks

    assert never_blocks(fn) is expected


async def test_blocking_true_keeps_a_tool_on_threads() -> None:
    mcp = Server("t")
    seen: list[str] = []

    @mcp.tool(blocking=True)
    def always_threaded() -> str:
        seen.append(threading.current_thread().name)
        return "ok"

    tool = mcp.get_tool("always_threaded")
    assert tool is not None
    async with checked_client(mcp, LEGACY) as client:
        await _call_n(client, "always_threaded", 20)
    assert not tool.inline
    assert len(seen) == 20 and all(name.startswith("toolwire-worker") for name in seen)


async def test_blocking_false_runs_inline_from_the_start_and_stays_there(
    caplog: pytest.LogCaptureFixture,
) -> None:
    mcp = Server("t")
    seen: list[str] = []

    @mcp.tool(blocking=False)
    def on_loop(delay: float = 0.0) -> str:
        import time

        seen.append(threading.current_thread().name)
        time.sleep(delay)
        return "ok"

    tool = mcp.get_tool("on_loop")
    assert tool is not None and tool.inline
    async with checked_client(mcp, LEGACY) as client:
        with caplog.at_level(logging.WARNING, logger="toolwire"):
            await _call_n(client, "on_loop", 2)
            await _call_n(client, "on_loop", 1, {"delay": 0.005})  # the author said it's fine
    assert tool.inline
    assert "ran for" not in caplog.text
    assert seen == [threading.current_thread().name] * 3


async def test_a_tool_declared_non_blocking_with_a_timeout_runs_on_a_thread() -> None:
    mcp = Server("t")
    tool = mcp.add_tool(add, timeout=5, blocking=False)
    assert not tool.inline
    async with checked_client(mcp, LEGACY) as client:
        await _call_n(client, "add", 12, {"a": 1, "b": 1})
    assert not tool.inline


async def test_a_tool_built_beforehand_takes_the_decorators_options_and_a_context() -> None:
    # FastMCP's and the SDK's mcp.add_tool(Tool.from_function(fn, ...))
    def lookup(word: str, ctx: Context, limit: int = 2) -> str:
        return f"{word}: {limit} ({type(ctx).__name__})"

    mcp = Server("t")
    mcp.add_tool(Tool.from_function(lookup, name="define", description="Define a word."))
    mcp.add_tool(Tool.from_function(lookup, name="sdk_style", context_kwarg="ctx"))
    mcp.add_tool(Tool.from_function(lookup, name="hidden", enabled=False))  # FastMCP 2's

    def explain(topic: str, ctx: Context) -> str:
        return f"{topic} via {ctx.server.name}"

    mcp.add_prompt(Prompt.from_function(explain))
    async with checked_client(mcp, LEGACY) as client:
        tools = {tool["name"]: tool for tool in await client.list_tools()}
        assert sorted(tools) == ["define", "sdk_style"]
        assert tools["define"]["description"] == "Define a word."
        assert sorted(tools["define"]["inputSchema"]["properties"]) == ["limit", "word"]
        called = await client.call_tool("define", {"word": "wire"})
        assert (called.is_error, called.text) == (False, "wire: 2 (Context)")
        got = await client.get_prompt("explain", {"topic": "MCP"})
        assert got.text == "MCP via t"


async def _created(filename: str) -> str:
    await asyncio.sleep(0)
    return f"created {filename}"


async def test_a_sync_tool_handing_back_a_coroutine_has_it_awaited() -> None:
    # FastMCP awaits what a sync tool returns when it is awaitable: the result is the
    # coroutine's, on every call (the tool is never judged inline, where nothing is awaited)
    mcp = Server("t")

    @mcp.tool()
    def create(filename: str):  # type: ignore[no-untyped-def]
        return _created(filename)

    tool = mcp.get_tool("create")
    assert tool is not None
    async with checked_client(mcp, LEGACY) as client:
        for n in range(4):
            result = await client.call_tool("create", {"filename": f"{n}.docx"})
            assert (result.is_error, result.text) == (False, f"created {n}.docx")
    assert tool.returns_awaitable and not tool.inline


async def test_a_tool_declared_non_blocking_that_hands_back_a_coroutine_is_told_so() -> None:
    mcp = Server("t")

    @mcp.tool(blocking=False)
    def create(filename: str):  # type: ignore[no-untyped-def]
        return _created(filename)

    async with checked_client(mcp, LEGACY) as client:
        first = await client.call_tool("create", {"filename": "a"})
        assert first.is_error and "make it async def" in first.text
        second = await client.call_tool("create", {"filename": "b"})  # now off the loop
        assert (second.is_error, second.text) == (False, "created b")


async def test_async_tools_are_never_inline() -> None:
    mcp = Server("t")

    @mcp.tool()
    async def aadd(a: int, b: int) -> int:
        return a + b

    tool = mcp.get_tool("aadd")
    assert tool is not None
    async with checked_client(mcp, LEGACY) as client:
        await _call_n(client, "aadd", 12, {"a": 1, "b": 1})
    assert tool.is_async and not tool.inline


async def test_inline_tools_still_map_errors_and_invalid_arguments(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    mcp = Server("t")

    @mcp.tool(blocking=False)
    def divide(a: float, b: float) -> float:
        if b == 0:
            raise ValueError("Cannot divide by zero")
        return a / b

    async with checked_client(mcp, LEGACY) as client:
        result = await client.call_tool("divide", {"a": 1, "b": 0})
        assert result.raw == {
            "content": [{"type": "text", "text": "Cannot divide by zero"}],
            "isError": True,
        }
        result = await client.call_tool("divide", {"a": 1})
        assert result.is_error and "b: Field required" in result.text
        assert (await client.call_tool("divide", {"a": 1, "b": 4})).structured == {"result": 0.25}


def test_one_server_served_by_one_event_loop_after_another() -> None:
    # e.g. asyncio.run() twice, or one test per loop: results must reach the loop that asked
    mcp = Server("t")
    mcp.add_tool(add, blocking=True)

    async def session() -> Any:
        async with checked_client(mcp, LEGACY) as client:
            return (await client.call_tool("add", {"a": 1, "b": 2})).structured

    assert asyncio.run(session()) == {"result": 3}
    assert asyncio.run(session()) == {"result": 3}


def test_a_tool_keeps_few_enough_attributes_for_compact_instance_dicts() -> None:
    # CPython keeps an instance's attributes in a compact layout (keys shared by the class)
    # while it has at most 29 of them; a 30th makes every attribute lookup of every call
    # slower. Rare options are class defaults set on the instance only when used.
    mcp = Server("t")
    plain = mcp.add_tool(add)
    planned = mcp.add_tool(lambda n=Depends(lambda: 1): n, name="planned")
    assert len(vars(plain)) <= 29, sorted(vars(plain))
    assert len(vars(planned)) <= 29, sorted(vars(planned))


def test_the_server_classes_are_generic_in_their_lifespan_value_as_the_incumbents() -> None:
    from typing import Generic, TypeVar

    from toolwire import FastMCP

    T = TypeVar("T")

    class Subclassed(FastMCP[T], Generic[T]):  # a real server's base class
        pass

    assert Server[dict] is Server and FastMCP[int] is FastMCP  # type: ignore[misc]
    assert isinstance(Subclassed("s"), FastMCP)


async def test_enabled_false_registers_a_component_disabled() -> None:
    # FastMCP 2's @mcp.tool(enabled=...), a real server's switch for its write tools
    mcp = Server("t")
    mcp.tool(enabled=False)(add)
    mcp.tool(name="shown", enabled=True)(add)
    mcp.add_resource("x", "data://hidden", enabled=False)
    async with checked_client(mcp, LEGACY) as client:
        assert [tool["name"] for tool in await client.list_tools()] == ["shown"]
        assert await client.list_resources() == []
    mcp.enable(names={"add"})
    assert sorted(tool.name for tool in await mcp.list_tools()) == ["add", "shown"]
