"""The tool model: a Python callable plus everything MCP says about it.

A :class:`Tool` is built once at registration (name checks, schemas, annotations) and
knows how to run itself: validate the arguments, call the function, and turn the
outcome — a value or an exception — into a ``tools/call`` result.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
import os
import re
from collections.abc import Awaitable, Callable, Iterable, Mapping
from datetime import timedelta
from types import CoroutineType
from typing import TYPE_CHECKING, Any, Literal

from .components import Component, Metadata, annotation_dict
from .content import NonFiniteNumber, text_result, to_result
from .errors import RegistrationError, RPCError, ToolError
from .functions.inspection import (
    EXPECTED_ERRORS,
    Dependency,
    Injected,
    cancelled_from_outside,
    error_message,
    is_async,
    raised_by,
    unwrap,
)
from .protocol.header_params import header_params
from .safety import MAX_ARGUMENT_DEPTH, MAX_STRING_LENGTH, check_arguments, strip_control_json
from .schema.function import FunctionSchema, InvalidArguments, function_schema

if TYPE_CHECKING:
    from typing_extensions import Unpack

logger = logging.getLogger("toolwire")

JSON = dict[str, Any]
RunSync = Callable[[Callable[..., Any], dict[str, Any]], Awaitable[Any]]

_NAME = re.compile(r"[A-Za-z0-9_.\-]{1,128}")
_ANNOTATION_KEYS = {"title", "readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"}


# How sync tools run. Nothing can interrupt a sync function on the event loop's thread, so
# a sync tool runs on worker threads, where a slow or blocked call holds only its thread and
# timeouts apply. Two kinds run inline instead, saving the thread hand-off (~35 us, more
# than a quick tool takes): those declared `blocking=False` (the author's promise; not with a
# timeout, which an inline call could not honour), and those whose code provably never
# blocks (straight-line arithmetic on plain arguments, see toolwire.functions.nonblocking), judged on
# their first call. `blocking=True` keeps a tool on threads always. A sync tool that hands
# back an awaitable (the coroutine of an async helper it calls) has it awaited on the loop,
# as FastMCP does, and is never judged inline.


class TaskConfig:
    """How a tool runs as a task (FastMCP's ``TaskConfig``), the ``task=`` option's long form:
    ``mode`` is ``"optional"`` (``task=True``), ``"required"`` or ``"forbidden"`` (no task),
    and ``poll_interval`` (a ``timedelta`` or seconds) the wait between polls that its
    tasks ask clients for."""

    __slots__ = ("mode", "poll_interval")

    def __init__(
        self,
        mode: Literal["optional", "required", "forbidden"] = "optional",
        poll_interval: timedelta | float | None = None,
    ) -> None:
        if mode not in ("optional", "required", "forbidden"):
            raise ValueError(
                f'TaskConfig mode is "optional", "required" or "forbidden", not {mode!r}'
            )
        seconds = _seconds(poll_interval)
        if seconds is not None and not seconds > 0:
            raise ValueError(f"TaskConfig poll_interval must be positive, not {poll_interval!r}")
        self.mode = mode
        self.poll_interval = poll_interval

    def __repr__(self) -> str:
        return f"TaskConfig(mode={self.mode!r}, poll_interval={self.poll_interval!r})"

    @property
    def poll_ms(self) -> int | None:
        """The poll interval in milliseconds, or None for the server's."""
        seconds = _seconds(self.poll_interval)
        return None if seconds is None else max(1, round(seconds * 1000))


def _seconds(interval: timedelta | float | None) -> float | None:
    return interval.total_seconds() if isinstance(interval, timedelta) else interval


def check_name(name: str) -> str:
    """A tool name as the spec recommends (TL-11, TL-13): 1-128 chars of ``A-Za-z0-9_.-``."""
    if not isinstance(name, str) or not _NAME.fullmatch(name):
        raise RegistrationError(
            f"Invalid tool name {name!r}: use 1-128 characters of A-Z, a-z, 0-9, '_', '-' and '.'"
        )
    return name


def _annotations_dict(annotations: Any) -> JSON | None:
    return annotation_dict(annotations, _ANNOTATION_KEYS, "tool", "ToolAnnotations") or None


def _refuse_unbound_method(target: Any, name: str) -> None:
    """A function written in a class body whose first parameter is ``self``/``cls``.

    Decorating it registers the plain function: there is no instance to bind ``self`` to, so
    the tool could never be called. The bound method of an instance is what works.
    """
    if not inspect.isfunction(target):
        return
    owner = target.__qualname__.rpartition("<locals>.")[2].rpartition(".")[0]
    if not owner:
        return
    first = next(iter(inspect.signature(target).parameters), None)
    if first in ("self", "cls"):
        raise RegistrationError(
            f"Tool {name!r} is a method of {owner} (its first parameter is {first!r}): register "
            f"the bound method instead, e.g. mcp.add_tool(instance.{target.__name__}), or make "
            "it a @staticmethod"
        )


class Tool(Component):
    """One registered tool."""

    kind = "tool"
    returns_awaitable = False  # a sync function whose result had to be awaited (set when seen)

    # Server(provider=...): nulls for the optional arguments of this schema mean absent (set
    # on the few tools that need it; a class default keeps every other instance as small).
    nulls_from: JSON | None = None
    # A list result: one content block per item (the official SDK's way), or one JSON text.
    split_lists = True
    # The poll interval its tasks ask clients for (TaskConfig), else the server's.
    task_poll_ms: int | None = None
    # Set on the few task tools that ask first. Class defaults like these keep a tool's own
    # attributes few enough for CPython's compact instance dicts, whose lookups every call
    # makes (tests/test_tools.py counts them).
    questions_first = False
    # Its tasks may run again, from the start, on another worker (handed over when theirs
    # stops before they end, or dies: toolwire.extensions.task_handover).
    resumable = False
    # The _meta every result it makes carries (toolwire.FastMCP: FastMCP's wrap_result mark).
    result_meta: JSON | None = None

    def __init__(
        self,
        fn: Callable[..., Any],
        *,
        name: str | None = None,
        annotations: Any = None,
        input_schema: JSON | None = None,
        output_schema: JSON | bool | None = True,
        structured_output: bool | None = None,
        timeout: float | None = None,
        blocking: bool | None = None,
        sensitive: Iterable[str] = (),
        inject: tuple[type, ...] = (),
        provided: Mapping[Any, Any] | None = None,
        schema_profile: Literal["portable", "pydantic"] = "portable",
        max_argument_depth: int | None = MAX_ARGUMENT_DEPTH,
        max_string_length: int | None = MAX_STRING_LENGTH,
        strip_control_sequences: bool = False,
        unknown_arguments: Literal["reject", "ignore", "ignore-all"] = "reject",
        split_lists: bool = True,
        task: Literal["optional", "required"] | bool | TaskConfig | None = None,
        questions_first: bool = False,
        resumable: bool = False,
        **metadata: Unpack[Metadata],
    ) -> None:
        if not callable(fn):
            raise RegistrationError(f"A tool must be callable, got {type(fn).__name__}")
        target = unwrap(fn)
        self.fn = fn
        if name is None:
            name = str(getattr(target, "__name__", type(target).__name__))
        self.name = check_name(name)
        _refuse_unbound_method(target, self.name)
        if output_schema is False:
            structured_output = False
        self.structured = structured_output is not False
        try:
            self.schema: FunctionSchema = function_schema(
                fn,
                inject=inject,
                profile=schema_profile,
                structured_output=structured_output,
                input_schema=input_schema,
                unknown_arguments=unknown_arguments,
                provided=provided,
            )
        except (TypeError, ValueError) as exc:
            message = str(exc)
            if not message.lower().startswith(f"tool {self.name!r}"):
                message = f"Tool {self.name!r}: {message}"
            raise RegistrationError(message[:1].upper() + message[1:]) from exc
        if isinstance(output_schema, dict):
            # The author's own schema: a result is wrapped only to fit an object root.
            self.schema.output_schema = output_schema
            self.schema.wraps_result = (
                self.schema.wraps_result and output_schema.get("type") == "object"
            )
        self._describe(self.schema.description, metadata)
        self.annotations = _annotations_dict(annotations)
        self.timeout = timeout
        # Argument names whose values never reach logs (the audit log redacts them).
        self.sensitive = frozenset((sensitive,) if isinstance(sensitive, str) else sensitive)
        self.is_async = is_async(fn)
        self.blocking = blocking
        # A sync tool runs inline on the event loop when told it never blocks, or once its
        # code is judged never to block (see "How sync tools run" above).
        self.inline = not self.is_async and blocking is False and timeout is None
        self.never_blocks = False  # proven by its code: inline even when a timeout applies
        self._judged = self.is_async or blocking is not None
        self.plan = None  # on the instance: checked on every call, found at once
        injected = self.schema.injected
        if injected and any(isinstance(d, Dependency) for d in injected.values()):
            # lazy: only for a function that declares dependencies
            from .functions.dependencies import plan

            self.plan = plan(f"tool {self.name!r}", self.schema.injected, inject, provided)
            self.inline = False  # its dependencies are resolved on the event loop first
            self._judged = True
        self._source = getattr(getattr(target, "__code__", None), "co_filename", None)
        self.header_params = _header_params(self.name, self.schema.input_schema)
        self.definition = self._definition()
        # Argument limits, checked before validation (see toolwire.safety.limits).
        self.max_argument_depth = max_argument_depth
        self.max_string_length = max_string_length
        self._limited = max_argument_depth is not None or max_string_length is not None
        # Results and error texts lose terminal control sequences (toolwire.safety.text).
        self.strip_control_sequences = strip_control_sequences
        if not split_lists:  # a list result as one JSON text (FastMCP's way)
            self.split_lists = False
        # Run as a task (2026-07-28, toolwire.extensions.tasks): when the client declares the
        # Tasks extension ("optional"), or only then ("required": others are refused).
        # FastMCP's spellings: task=True for "optional", task=TaskConfig(...).
        if isinstance(task, TaskConfig):
            if task.poll_ms is not None:
                self.task_poll_ms = task.poll_ms
            task = None if task.mode == "forbidden" else task.mode
        elif isinstance(task, bool):
            task = "optional" if task else None
        if task not in (None, "optional", "required"):
            raise RegistrationError(
                f'Tool {self.name!r}: task= is "optional", "required", True, a TaskConfig or '
                f"None, not {task!r}"
            )
        self.task = task
        # The task starts where the tool calls ctx.start_task(); its questions before that
        # are input_required rounds of the call (SEP-2663 with SEP-2322).
        if questions_first and task is not None:
            self.questions_first = True
        if resumable:
            if task is None or questions_first:
                raise RegistrationError(
                    f"Tool {self.name!r}: resumable= is for task tools that start as tasks"
                )
            self.resumable = True

    def _definition(self) -> JSON:
        """The tool as the newest revision describes it; shaping cuts it down per revision."""
        definition = self._headed({"name": self.name})
        definition["inputSchema"] = self.schema.input_schema
        if self.schema.output_schema is not None:
            definition["outputSchema"] = self.schema.output_schema
        return self._tailed(definition)

    async def run(
        self,
        arguments: JSON,
        injected: Any,
        run_sync: RunSync,
        *,
        mask_errors: bool,
        timeout: float | None = None,
        on_timeout: Callable[[], None] | None = None,
    ) -> JSON:
        """Call the tool; every outcome becomes a result (never an exception).

        ``timeout`` applies when the tool has none of its own; when it strikes, an async
        tool is cancelled, ``on_timeout`` is called (it raises the context's ``cancelled``
        flag, which a sync tool can poll) and the result says the tool timed out.
        """
        try:
            kwargs = self._arguments(arguments, injected)
        except InvalidArguments as exc:
            return self._invalid(exc)
        deadline = self.timeout if self.timeout is not None else timeout
        if not self.is_async:
            run_sync = self._awaiting(run_sync)
        try:
            call: Awaitable[Any]
            if self.plan is not None:  # made into a result before the cleanups run
                call = self.plan.call(
                    self.fn, self.is_async, kwargs, injected, run_sync, self._result
                )
            else:
                call = self.fn(**kwargs) if self.is_async else run_sync(self.fn, kwargs)
            if deadline is not None:
                outcome = await before(call, deadline)
            else:
                outcome = await call
        except DeadlinePassed:
            if on_timeout is not None:
                on_timeout()
            return text_result(f"Tool '{self.name}' timed out after {deadline:g} s", is_error=True)
        except RPCError:
            raise  # raised on purpose: the answer is this JSON-RPC error
        except (Exception, SystemExit, KeyboardInterrupt) as exc:  # the call ends, not the server
            return self._failure(exc, mask_errors)
        except asyncio.CancelledError as exc:
            if cancelled_from_outside():
                raise  # the client (or the server stopping) cancelled the call: no answer
            return self._failure(exc, mask_errors)  # the tool raised it itself: a failure
        if self.plan is not None:
            return outcome  # type: ignore[no-any-return]
        if self.is_async:
            return self._result(outcome)
        if not self._judged:
            self._judge()
        return self._result(outcome)

    @classmethod
    def from_function(cls, fn: Callable[..., Any], name: str | None = None, **options: Any) -> Tool:
        """A tool of ``fn`` for ``mcp.add_tool(tool)`` (FastMCP's and the official SDK's way
        to build one beforehand), with the options of ``@mcp.tool`` (``title``,
        ``description``, ``annotations``, ``tags``, ``output_schema``, ...); a ``Context``
        parameter is filled in, as for a decorated function (the SDK's ``context_kwarg`` is
        not needed)."""
        options.pop("context_kwarg", None)
        return cls(fn, name=name, inject=(Injected,), **options)

    def _awaiting(self, run_sync: RunSync) -> RunSync:
        """``run_sync`` for this sync tool: what the function returns that is awaitable (the
        coroutine of an async helper it calls) is awaited, as FastMCP awaits it, and the tool
        is not run inline, where nothing can be awaited."""
        fn = self.fn

        async def run(call: Callable[..., Any], kwargs: dict[str, Any]) -> Any:
            value = await run_sync(call, kwargs)
            if call is fn and inspect.isawaitable(value):
                self.returns_awaitable = True
                self.inline = False
                return await value
            return value

        return run

    def needs_context(self) -> bool:
        """Whether a call of it builds a :class:`~toolwire.Context` (it takes one, or a
        dependency that does)."""
        return bool(self.schema.injected)

    def run_inline(self, arguments: JSON, injected: Any, *, mask_errors: bool) -> JSON:
        """Call a sync tool right here, on the event loop (only when :attr:`inline`)."""
        try:
            kwargs = self._arguments(arguments, injected)
        except InvalidArguments as exc:
            return self._invalid(exc)
        try:
            value = self.fn(**kwargs)
        except RPCError:
            raise  # raised on purpose: the answer is this JSON-RPC error
        except BaseException as exc:  # even SystemExit: it would stop the event loop
            return self._failure(exc, mask_errors)
        if isinstance(value, CoroutineType):  # inline, yet it hands back a coroutine
            self.returns_awaitable = True
            self.inline = False  # from the next call on it runs where that is awaited
            value.close()
            return text_result(
                f"Tool '{self.name}' returned a coroutine where it was declared not to "
                "block (blocking=False): make it async def, or leave blocking out",
                is_error=True,
            )
        return self._result(value)

    def _arguments(self, arguments: JSON, injected: Any) -> dict[str, Any]:
        if self._limited:  # before validation: an oversized payload costs one cheap walk
            check_arguments(arguments, self.max_argument_depth, self.max_string_length)
        if self.nulls_from is not None and arguments:
            # lazy: the providers' schema rules, only for a tool checked or exported for one
            from .providers import null_means_absent

            arguments = null_means_absent(arguments, self.nulls_from)
        kwargs = self.schema.validate(arguments)
        for param in self.schema.injected:
            kwargs[param] = injected
        return kwargs

    def _invalid(self, exc: InvalidArguments) -> JSON:
        known = self.schema.input_schema.get("properties")
        explained = unknown_names_explained(exc, known if isinstance(known, dict) else {})
        result = text_result(
            f"Invalid arguments for tool '{self.name}': {explained}", is_error=True
        )
        return strip_control_json(result) if self.strip_control_sequences else result

    def _judge(self) -> None:
        """After a first call on a thread: run inline from now on if the code never blocks."""
        # lazy: only to judge whether a tool blocks the loop
        from .functions.nonblocking import never_blocks

        self._judged = True
        if never_blocks(self.fn) and not self.returns_awaitable:
            self.never_blocks = self.inline = True

    def _result(self, value: Any) -> JSON:
        try:
            clean = strip_control_json if self.strip_control_sequences else None
            result = to_result(
                value,
                self.schema,
                structured=self.structured,
                clean=clean,
                split_lists=self.split_lists,
            )
            if self.result_meta is not None:
                result = {**result, "_meta": {**result.get("_meta", {}), **self.result_meta}}
            return result
        except Exception as exc:  # the return value does not fit the declared output
            reference = os.urandom(4).hex()
            if self.schema.output_schema is not None:
                problem = "a result that does not match its output schema"
            else:  # nothing declared: the value cannot be turned into JSON
                problem = f"a value that cannot be sent as a result ({type(value).__name__})"
            if isinstance(exc, NonFiniteNumber):
                problem = f"{problem}: {exc}"
            logger.error(
                "Tool %r returned %s (reference %s)", self.name, problem, reference, exc_info=exc
            )
            return text_result(
                f"Tool '{self.name}' returned {problem} (reference {reference})", is_error=True
            )

    def _failure(self, exc: BaseException, mask_errors: bool) -> JSON:
        result = failure_result(exc, self.name, self._source, mask_errors)
        return strip_control_json(result) if self.strip_control_sequences else result


_EXTRA = "Extra inputs are not permitted"  # pydantic-core's and _schema_given's wording


def unknown_names_explained(exc: InvalidArguments, known: Mapping[str, Any]) -> str:
    """The text of ``exc`` with each unknown top-level argument name explained: the closest
    parameter name when one is near ("nite" -> "night"), else (once) the names it takes."""
    import difflib  # lazy: only for a 'did you mean'

    parts = []
    listed = False  # the names the tool takes are given once
    for path, message in exc.errors:
        if message == _EXTRA and path and "." not in path:
            close = difflib.get_close_matches(path, list(known), n=1, cutoff=0.6)
            if close:
                message = f"unknown argument, did you mean {close[0]!r}?"
            elif listed:
                message = "unknown argument"
            else:
                names = ", ".join(known) if known else "no arguments"
                message = f"unknown argument (the tool takes {names})"
                listed = True
        parts.append(f"{path}: {message}" if path else message)
    return "; ".join(parts)


def _header_params(tool: str, input_schema: JSON) -> dict[str, str]:
    """Parameters mirrored into ``Mcp-Param-{Name}`` HTTP headers (``x-mcp-header``, TL-38).

    Declare one with ``Field(json_schema_extra={"x-mcp-header": "Region"})`` on a string,
    integer or boolean parameter (never on secrets, TL-40).
    """
    mirrored, problem = header_params(input_schema)
    if problem is not None:
        raise RegistrationError(f"Tool {tool!r}: {problem}")
    return mirrored


class DeadlinePassed(Exception):
    """The tool's deadline passed (unlike a ``TimeoutError`` the tool raised itself)."""


async def before(call: Awaitable[Any], deadline: float) -> Any:
    """Await ``call`` for at most ``deadline`` seconds; past it, cancel it and raise DeadlinePassed."""
    task = asyncio.ensure_future(_boxed(call))
    try:
        done, _ = await asyncio.wait({task}, timeout=deadline)
    except asyncio.CancelledError:
        task.cancel()
        raise
    if not done:
        task.cancel()
        await asyncio.wait({task}, timeout=1.0)  # let its finally blocks run
        raise DeadlinePassed
    ok, value = task.result()
    if not ok:
        raise value
    return value


async def _boxed(call: Awaitable[Any]) -> tuple[bool, Any]:
    """``call``'s outcome, SystemExit and KeyboardInterrupt included as values: escaping a
    task of its own, the event loop would re-raise them and stop."""
    try:
        return True, await call
    except (SystemExit, KeyboardInterrupt) as exc:
        return False, exc


def failure_result(exc: BaseException, tool: str, source: str | None, mask_errors: bool) -> JSON:
    """The ``isError`` result for an exception a tool raised (see DESIGN "Errors").

    ``ToolError`` and the expected exceptions raised by the tool's own code (``source`` is
    the file it is defined in) show their message; anything else is masked behind a
    reference id, with the traceback in the server log.
    """
    if isinstance(exc, ToolError) or (isinstance(exc, EXPECTED_ERRORS) and raised_by(exc, source)):
        return text_result(error_message(exc), is_error=True)
    reference = os.urandom(4).hex()
    logger.error("Tool %r failed (reference %s)", tool, reference, exc_info=exc)
    if not mask_errors:
        return text_result(f"{type(exc).__name__}: {exc} (reference {reference})", is_error=True)
    return text_result(
        f"Tool '{tool}' failed with an internal error (reference {reference})", is_error=True
    )
