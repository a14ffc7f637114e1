"""pytest helpers for testing MCP servers: a plugin that pytest loads by itself.

Installing toolwire registers this module as a pytest plugin (entry point ``pytest11``), so
its fixtures need no import. A test of a tool is three lines::

    import pytest
    from toolwire.testing import assert_tool_result

    from myserver import mcp

    @pytest.fixture
    def mcp_server():
        return mcp                      # a Server object (in memory) or a command (stdio)

    async def test_add(mcp_client):
        result = await mcp_client.call_tool("add", {"a": 2, "b": 3})
        assert_tool_result(result, text="5", structured={"result": 5})

Fixtures
    ``mcp_client``
        A connected :class:`~toolwire.Client`, closed after the test. Its server comes from the
        nearest ``@pytest.mark.mcp_server(target)`` marker, else from a ``mcp_server`` fixture
        you define. A target is a ``Server`` object (served in memory, in the test's own
        process), or a command: a string such as ``"python server.py"``, an argument list, or
        the path of a ``.py`` file (run with the current interpreter as a stdio subprocess).
    ``mcp_protocol_version``
        The revision the client asks for; ``None`` (the default) lets the client pick: 2026-07-28
        when the server offers it (toolwire servers do), else the newest legacy revision.
        Override it to run every test on several revisions::

            @pytest.fixture(params=["2025-06-18", "2026-07-28"])
            def mcp_protocol_version(request):
                return request.param

    ``mcp_client_options``
        Extra keyword arguments for :class:`~toolwire.Client` (``env``, ``cwd``, ``tap``,
        ``elicitation_handler``, ``timeout``, ...); ``{}`` by default.

    Every step is bounded: connecting, each request and closing time out after
    :data:`DEFAULT_TIMEOUT` seconds (or the ``timeout`` client option), so a server that hangs
    fails the test instead of stalling the run.

Outside fixtures
    ``async with connect(target, protocol_version=None, **client_options) as client:`` gives
    the same connected client, for scripts or tests that need several servers.

Assertions (each failure message says what came back)
    * ``assert_tool_result(result, *, text=None, structured=None, is_error=False)`` checks
      ``is_error`` first (a failed tool shows its error text), then the text and the structured
      content when given (``None`` means "not checked").
    * ``assert_tool_error(result, contains)``: the call failed and its text contains ``contains``.
    * ``assert_tool_names(tools, expected)``: the tools (from ``list_tools()``, or names) are
      exactly ``expected``, in any order; the message lists what is missing and unexpected.
    * ``assert_lint_clean(*targets, providers=None, allow_warnings=False, ...)``: ``toolwire
      lint``'s rules find nothing in the servers (one host's servers when several are given);
      ``await lint_servers(*targets, ...)`` gives the findings themselves.

A test that uses ``mcp_client`` needs no configuration and no mark: with pytest-asyncio
active (in any mode) the plugin marks it as an asyncio test; without it, the plugin runs it in
an event loop of its own and connects the client there.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import inspect
import os
import pprint
import sys
from collections.abc import AsyncIterator, Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, TypeAlias, cast

import pytest

from .client import CallResult, Client

if TYPE_CHECKING:
    from .lint import Finding
    from .server import Server

Target: TypeAlias = "Server | str | os.PathLike[str] | Sequence[str]"

__all__ = [
    "DEFAULT_TIMEOUT",
    "assert_lint_clean",
    "assert_tool_error",
    "assert_tool_names",
    "assert_tool_result",
    "connect",
    "lint_servers",
]

DEFAULT_TIMEOUT = 30.0
"""Seconds allowed to connect, for each request, and to close."""

# ---------------------------------------------------------------- connecting


def _client_target(target: Target) -> Any:
    """A ``Client`` target: a path becomes a command (``.py`` files run on this interpreter)."""
    if isinstance(target, os.PathLike):
        path = os.fspath(target)
        return [sys.executable, path] if path.endswith(".py") else [path]
    if isinstance(target, str) or hasattr(target, "connect"):
        return target
    if isinstance(target, Sequence):
        return [os.fspath(part) for part in target]
    raise TypeError(
        f"An MCP server target is a Server object, a command or a path, not {type(target).__name__}"
    )


@contextlib.asynccontextmanager
async def connect(
    server_or_command: Target, protocol_version: str | None = None, **client_options: Any
) -> AsyncIterator[Client]:
    """A connected :class:`~toolwire.Client`, closed on exit; every step is bounded.

    ``server_or_command`` is a ``Server`` (in memory) or a command, argument list or ``.py``
    path (stdio subprocess). ``client_options`` go to ``Client``; ``timeout`` (default
    :data:`DEFAULT_TIMEOUT`) also bounds connecting and closing.
    """
    timeout = float(client_options.pop("timeout", DEFAULT_TIMEOUT))
    client = Client(
        _client_target(server_or_command),
        protocol_version=protocol_version,
        timeout=timeout,
        **client_options,
    )
    try:
        await asyncio.wait_for(client.connect(), timeout)
    except asyncio.TimeoutError:
        raise TimeoutError(
            f"Connecting to the MCP server {server_or_command!r} took more than {timeout:g} s"
        ) from None
    try:
        yield client
    finally:
        with contextlib.suppress(asyncio.TimeoutError):  # the transport kills what hangs
            await asyncio.wait_for(client.close(), timeout)


# ---------------------------------------------------------------- fixtures


def pytest_configure(config: pytest.Config) -> None:
    _load_toolwire_as_written(config)
    config.addinivalue_line(
        "markers",
        "mcp_server(target): the MCP server of the mcp_client fixture "
        "(a Server object, a command or a .py path)",
    )
    # mcp_client connects in the loop its test runs in: pytest-asyncio's when it is active,
    # else one this plugin makes.
    asyncio_active = config.pluginmanager.has_plugin("asyncio")
    client = _pytest_asyncio_client() if asyncio_active else _OwnLoopClient()
    config.pluginmanager.register(client, "toolwire-mcp-client")


def _load_toolwire_as_written(config: pytest.Config) -> None:
    """pytest rewrites the asserts of every module of a distribution that has a pytest plugin:
    all of toolwire, each module when it is first imported, in whichever thread imports it.
    Only this module's need it; the rest load as written. (Rewriting parses the module, and
    on CPython 3.11 two threads building syntax trees at once can fail with "AST constructor
    recursion depth mismatch": python/cpython#106905.)"""
    hook = getattr(config.pluginmanager, "rewrite_hook", None)
    marked = getattr(hook, "_must_rewrite", None)  # pytest's own set: no public way to unmark
    if not isinstance(marked, set) or "toolwire" not in marked:
        return
    marked.discard("toolwire")
    marked.add(__name__)
    cache = getattr(hook, "_marked_for_rewrite_cache", None)
    if isinstance(cache, dict):
        for name in [name for name in cache if name.split(".")[0] == "toolwire"]:
            del cache[name]


@pytest.fixture
def mcp_protocol_version() -> str | None:
    """The revision ``mcp_client`` asks for; ``None`` lets the client pick."""
    return None


@pytest.fixture
def mcp_client_options() -> dict[str, Any]:
    """Extra keyword arguments for the ``Client`` of ``mcp_client``."""
    return {}


def _server_of(request: pytest.FixtureRequest) -> Target:
    """The ``mcp_server`` marker's or fixture's server."""
    marker = request.node.get_closest_marker("mcp_server")
    if marker is not None:
        if len(marker.args) != 1 or marker.kwargs:
            pytest.fail("use @pytest.mark.mcp_server(target) with one target", pytrace=False)
        return cast(Target, marker.args[0])
    try:
        return cast(Target, request.getfixturevalue("mcp_server"))
    except pytest.FixtureLookupError:
        pytest.fail(
            "mcp_client needs a server: define a `mcp_server` fixture returning a Server "
            "object or a command, or mark the test with @pytest.mark.mcp_server(target)",
            pytrace=False,
        )


def _uses_client(function: object) -> bool:
    return inspect.iscoroutinefunction(function) and "mcp_client" in _parameters(function)


def _parameters(function: Any) -> Mapping[str, Any]:
    try:
        return inspect.signature(function).parameters
    except (TypeError, ValueError):
        return {}


def _pytest_asyncio_client() -> object:
    """With pytest-asyncio: ``mcp_client`` is its async fixture, and a coroutine test that
    uses it is marked ``asyncio`` unless it (or its class or module) already is, so strict
    mode needs no mark."""
    import pytest_asyncio  # optional: pytest-asyncio, from the user's test environment

    class PytestAsyncioClient:
        @pytest.hookimpl(tryfirst=True)
        def pytest_pycollect_makeitem(
            self, collector: pytest.Collector, name: str, obj: object
        ) -> None:
            if _uses_client(obj) and collector.get_closest_marker("asyncio") is None:
                marks = getattr(obj, "pytestmark", [])
                if not any(mark.name == "asyncio" for mark in marks):
                    pytest.mark.asyncio(obj)

        @pytest_asyncio.fixture
        async def mcp_client(
            self,
            request: pytest.FixtureRequest,
            mcp_protocol_version: str | None,
            mcp_client_options: dict[str, Any],
        ) -> AsyncIterator[Client]:
            """A client connected to the ``mcp_server`` marker's or fixture's server."""
            server = _server_of(request)
            async with connect(server, mcp_protocol_version, **mcp_client_options) as client:
                yield client

    return PytestAsyncioClient()


class _Unconnected:
    """What ``mcp_client`` is until the test's event loop runs (without pytest-asyncio)."""

    def __init__(self, server: Target, protocol_version: str | None, options: dict[str, Any]):
        self.server, self.protocol_version, self.options = server, protocol_version, options

    def __getattr__(self, name: str) -> Any:
        raise AttributeError(
            f"mcp_client.{name}: the client is connected only in a test written `async def`"
        )

    async def run(self, test: Callable[..., Any], arguments: dict[str, Any]) -> None:
        async with connect(self.server, self.protocol_version, **self.options) as client:
            await test(**{**arguments, "mcp_client": client})


class _OwnLoopClient:
    """Without pytest-asyncio: a coroutine test that uses ``mcp_client`` runs in a new event
    loop, where the client is connected before the test and closed after it."""

    @pytest.fixture
    def mcp_client(
        self,
        request: pytest.FixtureRequest,
        mcp_protocol_version: str | None,
        mcp_client_options: dict[str, Any],
    ) -> _Unconnected:
        """A client connected to the ``mcp_server`` marker's or fixture's server."""
        return _Unconnected(_server_of(request), mcp_protocol_version, mcp_client_options)

    @pytest.hookimpl(tryfirst=True)
    def pytest_pyfunc_call(self, pyfuncitem: pytest.Function) -> bool | None:
        unconnected = pyfuncitem.funcargs.get("mcp_client")
        if not isinstance(unconnected, _Unconnected) or not _uses_client(pyfuncitem.obj):
            return None
        names = _parameters(pyfuncitem.obj)
        arguments = {name: value for name, value in pyfuncitem.funcargs.items() if name in names}
        asyncio.run(unconnected.run(pyfuncitem.obj, arguments))
        return True


# ---------------------------------------------------------------- assertions


def _show(value: Any) -> str:
    shown = pprint.pformat(value, width=88, sort_dicts=False)
    return shown if "\n" not in shown else "\n    " + shown.replace("\n", "\n    ")


def _describe(result: CallResult) -> str:
    parts = [f"text: {result.text!r}"]
    if result.structured is not None:
        parts.append(f"structured: {_show(result.structured)}")
    return "\n  ".join(parts)


def assert_tool_result(
    result: CallResult,
    *,
    text: str | None = None,
    structured: Any = None,
    is_error: bool = False,
) -> None:
    """Check a ``call_tool`` result; ``text``/``structured`` are only checked when given."""
    __tracebackhide__ = True
    if result.is_error != is_error:
        if result.is_error:
            raise AssertionError(f"The tool call failed (isError):\n  {_describe(result)}")
        raise AssertionError(
            f"The tool call was expected to fail, but it succeeded:\n  {_describe(result)}"
        )
    if text is not None and result.text != text:
        raise AssertionError(
            f"Unexpected tool result text:\n  expected: {text!r}\n  got:      {result.text!r}"
        )
    if structured is not None and result.structured != structured:
        message = (
            "Unexpected structured content:\n"
            f"  expected: {_show(structured)}\n  got:      {_show(result.structured)}"
        )
        if isinstance(structured, Mapping) and isinstance(result.structured, Mapping):
            differing = [
                key
                for key in {**structured, **result.structured}
                if structured.get(key, ...) != result.structured.get(key, ...)
            ]
            message += f"\n  differing keys: {', '.join(map(repr, differing))}"
        raise AssertionError(message)


def assert_tool_error(result: CallResult, contains: str) -> None:
    """Check that a ``call_tool`` result is an error whose text contains ``contains``."""
    __tracebackhide__ = True
    if not result.is_error:
        raise AssertionError(
            f"The tool call was expected to fail with {contains!r}, but it succeeded:\n"
            f"  {_describe(result)}"
        )
    if contains not in result.text:
        raise AssertionError(
            f"The tool error does not contain {contains!r}:\n  error text: {result.text!r}"
        )


def assert_tool_names(tools: Iterable[Mapping[str, Any] | str], expected: Iterable[str]) -> None:
    """Check that exactly the ``expected`` tools are listed (order ignored, no duplicates)."""
    __tracebackhide__ = True
    names = [tool if isinstance(tool, str) else str(tool.get("name")) for tool in tools]
    wanted = list(expected)
    duplicates = sorted({name for name in names if names.count(name) > 1})
    missing = [name for name in wanted if name not in names]
    unexpected = [name for name in names if name not in wanted]
    if missing or unexpected or duplicates:
        lines = ["The server's tools are not the expected ones:"]
        if missing:
            lines.append(f"  missing:    {', '.join(missing)}")
        if unexpected:
            lines.append(f"  unexpected: {', '.join(unexpected)}")
        if duplicates:
            lines.append(f"  listed more than once: {', '.join(duplicates)}")
        lines.append(f"  listed:     {', '.join(names) or '(none)'}")
        raise AssertionError("\n".join(lines))


# ---------------------------------------------------------------- linting


async def lint_servers(
    *targets: Target,
    providers: Iterable[str] | None = None,
    protocol_version: str | None = None,
    as_published: bool = False,
    **client_options: Any,
) -> list[Finding]:
    """The findings of ``toolwire lint``'s rules over the servers ``targets`` (each a
    ``Server`` or a command, as for :func:`connect`), linted together as one host's servers."""
    from .lint import Listing, lint  # lazy: the linter, only for the lint command

    listings = []
    for target in targets:
        async with connect(target, protocol_version, **client_options) as client:
            offered = client.server_capabilities
            listing = Listing(
                _label(target), str(client.server_info.get("name", "")), client.protocol_version
            )
            if "tools" in offered:
                listing.tools = await client.list_tools()
            if "prompts" in offered:
                listing.prompts = await client.list_prompts()
            listings.append(listing)
    return lint(listings, providers, as_published=as_published)


def _label(target: Target) -> str:
    name = getattr(target, "name", None)
    if isinstance(name, str):
        return name
    if isinstance(target, (str, os.PathLike)):
        return os.fspath(target)
    return " ".join(map(str, cast(Sequence[str], target)))


def assert_lint_clean(
    *targets: Target,
    providers: Iterable[str] | None = None,
    allow_warnings: bool = False,
    protocol_version: str | None = None,
    as_published: bool = False,
    **client_options: Any,
) -> None:
    """Check that ``toolwire lint``'s rules find nothing (no error, and no warning unless
    ``allow_warnings``) in the servers ``targets``, for the ``providers`` given (all by
    default). Call it from any test, ``async def`` or not; the message lists the findings."""
    __tracebackhide__ = True
    work = lint_servers(
        *targets,
        providers=list(providers) if providers is not None else None,
        protocol_version=protocol_version,
        as_published=as_published,
        **client_options,
    )
    findings = _run_apart(work)
    failing = [f for f in findings if f.severity == "error" or not allow_warnings]
    if failing:
        lines = [f"toolwire lint found {len(failing)} problem(s):"]
        for finding in failing:
            where = f"{finding.kind} {finding.name}".strip()
            path = f" {finding.path}" if finding.path and finding.path != "name" else ""
            lines.append(f"  {finding.severity} {finding.rule}: {where}{path}: {finding.message}")
        raise AssertionError("\n".join(lines))


def _run_apart(work: Any) -> Any:
    """Run a coroutine to its end from synchronous code, even while an event loop runs in this
    thread (an ``async def`` test): then it runs in a loop of its own, in another thread."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(work)

    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, work).result()
