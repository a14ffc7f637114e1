"""Dependencies: parameters of tools, resources and prompts that the server fills in.

A parameter is a dependency when it is annotated ``Annotated[T, Depends(provider)]``, has
``Depends(provider)`` as its default, or has a type given to ``Server.provide(T,
provider)`` (:func:`toolwire.functions.inspection.Depends`). The call's ``Context`` is the built-in case:
a parameter annotated ``Context`` gets the call's context, and so does a provider's.

At registration, :func:`plan` turns a component's dependencies into a :class:`Plan`: each
provider once (by provider and scope), its own parameters resolved the same way, in an order
where every provider comes after what it needs. Registration refuses a cycle, a provider
parameter nothing can fill, and a lifespan provider that needs something of one call (the
``Context``, a request-scoped provider).

At each call, :meth:`Plan.call` resolves them and calls the function:

* **request** scope: the provider is called once for the call (everything in the call that
  needs it shares the value). A generator's code after ``yield`` runs once the function has
  returned (for a tool, once its result is made) or raised, or the call was cancelled; the
  function's exception is raised at the ``yield``, so ``try/except/else`` around it can roll
  back or commit.
* **lifespan** scope: called on first use, kept by the serving server
  (:class:`LifespanValues`) for every later call, and cleaned up when the server stops (after
  its last connection). A failed creation is not kept: the next call tries again.

Sync providers run on the worker threads, as sync tools do. A provider that fails gives the
component's error (masked per ``Server(mask_errors=...)`` like the component's own
exceptions): an ``isError`` result for a tool, an error for a resource or prompt.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import logging
import os
import typing
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from ..errors import RegistrationError, RPCError, ToolError
from .inspection import (
    EXPECTED_ERRORS,
    SCOPES,
    Dependency,
    describe,
    error_message,
    injected_as,
    is_async,
    raised_by,
    signature_of,
    unwrap,
)

logger = logging.getLogger("toolwire")

RunSync = Callable[[Callable[..., Any], dict[str, Any]], Awaitable[Any]]

#: A provider parameter that gets the call's Context.
CONTEXT: Any = object()


class Node:
    """One provider in a plan: how to call it and what its parameters get."""

    __slots__ = ("args", "key", "kind", "name", "provider", "scope", "source")

    def __init__(self, dependency: Dependency) -> None:
        self.provider = dependency.provider
        self.scope = dependency.scope
        self.key = (dependency.provider, dependency.scope)
        name, _, func = describe(dependency.provider)
        self.name = name
        target = unwrap(dependency.provider)
        if inspect.isasyncgenfunction(target):
            self.kind = "agen"
        elif inspect.isgeneratorfunction(target):
            self.kind = "gen"
        else:
            self.kind = "async" if is_async(dependency.provider) else "call"
        code = getattr(func, "__code__", None)
        self.source: str | None = getattr(code, "co_filename", None)
        self.args: dict[str, Any] = {}  # parameter -> Node or CONTEXT


def plan(
    label: str,
    injected: Mapping[str, Any],
    inject: tuple[type, ...],
    provided: Mapping[Any, Dependency] | None,
) -> Plan | None:
    """The plan of a component whose parameters ``injected`` holds (None: no dependency).

    ``label`` names the component in messages (``"tool 'query'"``). Raises
    :class:`RegistrationError` for a cycle, a provider parameter nothing fills, or a
    lifespan provider that needs the call's context or a request-scoped provider.
    """
    wanted = {name: d for name, d in injected.items() if isinstance(d, Dependency)}
    if not wanted:
        return None
    builder = _Builder(label, inject, provided)
    params = {name: builder.node(dependency, ()) for name, dependency in wanted.items()}
    return Plan(label, params, builder.order)


class _Builder:
    def __init__(
        self, label: str, inject: tuple[type, ...], provided: Mapping[Any, Dependency] | None
    ) -> None:
        self.label = label
        self.inject = inject
        self.provided = provided
        self.nodes: dict[Any, Node] = {}
        self.order: list[Node] = []

    def node(self, dependency: Dependency, chain: tuple[Node, ...]) -> Node:
        key = (dependency.provider, dependency.scope)
        done = self.nodes.get(key)
        if done is not None:
            return done
        for i, seen in enumerate(chain):
            if seen.key == key:
                names = " -> ".join(n.name for n in (*chain[i:], seen))
                raise RegistrationError(f"{self._label()}: the dependencies form a cycle: {names}")
        node = Node(dependency)
        name, _, func = describe(node.provider)
        try:
            signature = signature_of(node.provider, func, name, None)
        except (TypeError, ValueError) as exc:
            raise RegistrationError(f"{self._label()}: the dependency {name!r}: {exc}") from None
        for p in signature.parameters.values():
            if p.kind is p.VAR_POSITIONAL or p.kind is p.VAR_KEYWORD:
                continue
            found = injected_as(p.annotation, p.default, self.inject, self.provided)
            if isinstance(found, Dependency):
                child = self.node(found, (*chain, node))
                if node.scope == "lifespan" and child.scope == "request":
                    raise RegistrationError(
                        f"{self._label()}: the lifespan dependency {node.name!r} cannot use "
                        f"the request-scoped {child.name!r} (it outlives the call): make "
                        f"{child.name!r} lifespan-scoped too"
                    )
                arg: Any = child
            elif found is not None:
                if node.scope == "lifespan":
                    raise RegistrationError(
                        f"{self._label()}: the lifespan dependency {node.name!r} cannot take "
                        f"the call's {found.__name__} (parameter {p.name!r}): it outlives the "
                        "call"
                    )
                arg = CONTEXT
            elif p.default is not p.empty:
                continue  # its own default
            else:
                shown = getattr(p.annotation, "__name__", None) or repr(p.annotation)
                hint = (
                    f"Depends(...), or call mcp.provide({shown}, ...) before registering it"
                    if p.annotation is not p.empty
                    else "Depends(...)"
                )
                raise RegistrationError(
                    f"{self._label()}: parameter {p.name!r} of the dependency {node.name!r} "
                    f"has no provider and no default: annotate it with {hint}"
                )
            if p.kind is p.POSITIONAL_ONLY:
                raise RegistrationError(
                    f"{self._label()}: the dependency {node.name!r} takes {p.name!r} "
                    "positionally only; it is passed by name"
                )
            node.args[p.name] = arg
        self.nodes[key] = node
        self.order.append(node)
        return node

    def _label(self) -> str:
        return self.label[:1].upper() + self.label[1:]


class Plan:
    """How to fill in one component's dependencies, and call it with them."""

    __slots__ = ("label", "order", "params")

    def __init__(self, label: str, params: dict[str, Node], order: list[Node]) -> None:
        self.label = label
        self.params = params
        self.order = order  # every provider after those it needs

    async def call(
        self,
        fn: Callable[..., Any],
        fn_is_async: bool,
        kwargs: dict[str, Any],
        context: Any,
        run_sync: RunSync,
        made: Callable[[Any], Any] | None = None,
    ) -> Any:
        """``fn(**kwargs)`` with the dependencies filled in (``made(value)`` when given: a
        tool's result, made while they are still open), and the request-scoped ones cleaned
        up after, whatever the outcome. A provider's failure raises a :class:`ToolError`
        with the text the client may see."""
        exits: list[tuple[Node, Any]] = []
        try:
            values = await self._resolve(context, run_sync, exits)
            for name, node in self.params.items():
                kwargs[name] = values[node.key]
            value = await fn(**kwargs) if fn_is_async else await run_sync(fn, kwargs)
            if made is not None:
                value = made(value)
        except BaseException as exc:
            if exits:
                await self._clean(exits, exc, context, run_sync)
            raise
        if exits:
            await self._clean(exits, None, context, run_sync)
        return value

    async def _resolve(
        self, context: Any, run_sync: RunSync, exits: list[tuple[Node, Any]]
    ) -> dict[Any, Any]:
        values: dict[Any, Any] = {}
        lifespan: LifespanValues | None = None
        for node in self.order:
            if node.scope == "lifespan":
                if lifespan is None:
                    lifespan = _lifespan_of(context, self.label)
                values[node.key] = await lifespan.get(node, run_sync, self.label, context)
                continue
            kwargs = {
                name: context if arg is CONTEXT else values[arg.key]
                for name, arg in node.args.items()
            }
            try:
                values[node.key] = await enter(node, kwargs, run_sync, exits)
            except (RPCError, ToolError):
                raise
            except (Exception, SystemExit, KeyboardInterrupt) as exc:
                raise ToolError(failure_text(node, exc, self.label, _masked(context))) from None
        return values

    async def _clean(
        self,
        exits: list[tuple[Node, Any]],
        error: BaseException | None,
        context: Any,
        run_sync: RunSync,
    ) -> None:
        """Run the cleanups, last entered first, each told of ``error``. A cleanup that
        fails is logged; when the call itself went well, its failure is the call's."""
        failed: ToolError | None = None
        while exits:
            node, manager = exits.pop()
            try:
                await leave(node, manager, error, run_sync)
            except BaseException as exc:
                if exc is error:
                    continue  # the generator let the call's own exception through
                if isinstance(exc, asyncio.CancelledError) and error is None:
                    raise
                if error is None:
                    text = failure_text(node, exc, self.label, _masked(context), cleanup=True)
                    failed = failed or ToolError(text)
                else:  # the call failed already and says so: this one goes to the log
                    logger.error(
                        "The dependency %r of %s failed cleaning up after an error",
                        node.name,
                        self.label,
                        exc_info=exc,
                    )
        if failed is not None:
            raise failed


async def enter(node: Node, kwargs: dict[str, Any], run_sync: RunSync, exits: list[Any]) -> Any:
    """Call ``node``'s provider with ``kwargs``; a generator's cleanup joins ``exits``."""
    kind = node.kind
    if kind == "async":
        return await node.provider(**kwargs)
    if kind == "call":
        return await run_sync(node.provider, kwargs)
    if kind == "agen":
        manager: Any = contextlib.asynccontextmanager(node.provider)(**kwargs)
        value = await manager.__aenter__()
    else:
        manager = contextlib.contextmanager(node.provider)(**kwargs)
        value = await run_sync(_enter_sync, {"manager": manager})
    exits.append((node, manager))
    return value


async def leave(
    node: Node, manager: Any, error: BaseException | None, run_sync: RunSync | None
) -> None:
    """Run a generator's code after ``yield`` (``error`` raised at the ``yield``)."""
    if node.kind == "agen":
        if error is None:
            await manager.__aexit__(None, None, None)
        else:
            await manager.__aexit__(type(error), error, error.__traceback__)
    elif run_sync is None:  # the server is stopping: run it here
        _exit_sync(manager, error)
    else:
        await run_sync(_exit_sync, {"manager": manager, "error": error})


def _enter_sync(manager: Any) -> Any:
    return manager.__enter__()


def _exit_sync(manager: Any, error: BaseException | None = None) -> None:
    if error is None:
        manager.__exit__(None, None, None)
    else:
        manager.__exit__(type(error), error, error.__traceback__)


def failure_text(
    node: Node, exc: BaseException, label: str, masked: bool, *, cleanup: bool = False
) -> str:
    """What the client is told when a provider failed (the rules of tool errors): the
    text of a ``ToolError`` or of an expected error the provider's code raised, else a
    masked message with a reference id (the traceback goes to the log)."""
    if isinstance(exc, ToolError) or (
        isinstance(exc, EXPECTED_ERRORS) and raised_by(exc, node.source)
    ):
        return error_message(exc)
    reference = os.urandom(4).hex()
    what = "cleaning up" if cleanup else "providing"
    logger.error(
        "The dependency %r of %s failed %s (reference %s)",
        node.name,
        label,
        what,
        reference,
        exc_info=exc,
    )
    if not masked:
        return (
            f"The dependency {node.name!r} of {label} failed: {type(exc).__name__}: {exc} "
            f"(reference {reference})"
        )
    return (
        f"The dependency {node.name!r} of {label} failed with an internal error "
        f"(reference {reference})"
    )


def _masked(context: Any) -> bool:
    server = getattr(context, "server", None)
    return bool(getattr(server, "mask_errors", True))


def _lifespan_of(context: Any, label: str) -> LifespanValues:
    server = getattr(context, "server", None)
    if server is None:
        raise ToolError(f"{label[:1].upper()}{label[1:]} needs a request: it has dependencies")
    values: LifespanValues | None = server.dependency_values
    if values is None:
        values = server.dependency_values = LifespanValues()
    return values


class LifespanValues:
    """The lifespan-scoped values of one server: made on first use, cleaned up by
    :meth:`aclose` when the server stops."""

    def __init__(self) -> None:
        self.values: dict[Any, Any] = {}
        self._locks: dict[Any, asyncio.Lock] = {}
        self._exits: list[tuple[Node, Any]] = []

    async def get(self, node: Node, run_sync: RunSync, label: str, context: Any) -> Any:
        try:
            return self.values[node.key]
        except KeyError:
            pass
        lock = self._locks.get(node.key)
        if lock is None:
            lock = self._locks[node.key] = asyncio.Lock()
        async with lock:  # concurrent first uses make it once
            if node.key in self.values:
                return self.values[node.key]
            kwargs = {}
            for name, child in node.args.items():  # lifespan-scoped too (checked at plan)
                kwargs[name] = await self.get(child, run_sync, label, context)
            try:
                value = await enter(node, kwargs, run_sync, self._exits)
            except (RPCError, ToolError):
                raise
            except (Exception, SystemExit, KeyboardInterrupt) as exc:
                raise ToolError(failure_text(node, exc, label, _masked(context))) from None
            self.values[node.key] = value
            return value

    async def aclose(self) -> None:
        """Clean up every value, last made first; failures are logged."""
        self.values.clear()
        while self._exits:
            node, manager = self._exits.pop()
            try:
                await leave(node, manager, None, None)
            except Exception:
                logger.exception("The lifespan dependency %r failed to clean up", node.name)


def provide(
    server: Any,
    key: Any,
    provider: Callable[..., Any],
    scope: str,
    *,
    builtin: tuple[type, ...] = (),
) -> None:
    """Register ``provider`` for parameters annotated ``key`` on ``server`` (``Server.provide``)."""

    shown = getattr(key, "__name__", None) or repr(key)
    if scope not in SCOPES:
        raise RegistrationError(
            f'provide({shown}): scope is "request" or "lifespan", not {scope!r}'
        )
    if not callable(provider):
        raise RegistrationError(
            f"provide({shown}): the provider must be a function or class, not "
            f"{type(provider).__name__}"
        )
    try:
        existing = server.provided.get(key)
    except TypeError:
        raise RegistrationError(f"provide({shown}): the key must be a type") from None
    if isinstance(key, type) and builtin and issubclass(key, builtin):
        raise RegistrationError(f"provide({shown}): the server gives each call its {shown}")
    if existing is not None:
        raise RegistrationError(f"{shown} already has a provider: {existing!r}")
    taker = _taken_as_argument(server, key)
    if taker is not None:
        raise RegistrationError(
            f"{taker} already takes a {shown} as an argument: call provide({shown}, ...) before "
            "registering it"
        )
    server.provided[key] = Dependency(provider, scope)


def _taken_as_argument(server: Any, key: Any) -> str | None:
    """The first component registered already whose argument (not dependency) is a ``key``."""

    kinds = (
        ("tool", getattr(server, "tools", ())),
        ("prompt", getattr(server, "prompts", ())),
        ("resource", getattr(server, "resources", ())),
        ("resource template", getattr(server, "resource_templates", ())),
    )
    for kind, items in kinds:
        for item in items:
            fn = getattr(item, "fn", None)
            if fn is None:
                continue
            schema = getattr(item, "schema", None)
            injected: Any = getattr(schema, "injected", None) or getattr(item, "injected", ())
            name, _, func = describe(fn)
            try:
                parameters = signature_of(fn, func, name).parameters.values()
            except (TypeError, ValueError):
                continue
            for p in parameters:
                ann = p.annotation
                if typing.get_origin(ann) is typing.Annotated:
                    ann = typing.get_args(ann)[0]
                if p.name not in injected and ann is key:
                    key_name = getattr(item, "name", None)
                    return f"The {kind} {key_name!r}"
    return None
