"""Tools derived from other tools, without touching their code.

::

    from toolwire import Server
    from toolwire.composition.transforms import Arg

    mcp.transform_tool(
        "search",
        name="find_books",
        description="Find books by title.",
        arguments={"q": Arg(name="title"), "kind": Arg(hide=True, value="book")},
    )

A derived tool is a :class:`ForwardedTool`: a :class:`~toolwire.tools.Tool` that carries
its own definition (name, title, description, annotations, ``_meta``, input and output
schema) and whose call goes to another tool, here the original with its arguments mapped
back (renamed ones to their old names, hidden ones filled in with their fixed values), or
to a ``wrap`` function that receives the arguments and may call the original. The same
class serves mounted servers' tools (:mod:`toolwire.composition.mount`) and proxied ones: a
transform works on any of them, and its results keep the original's output schema and
``structuredContent``.
"""

from __future__ import annotations

import copy
import inspect
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from ..content import text_result
from ..errors import RegistrationError, RPCError
from ..protocol.header_params import header_params
from ..schema.common import generic_dumper
from ..schema.function import FunctionSchema
from ..server.inputs import InputRequired
from ..tools import JSON, RunSync, Tool, failure_result

#: How a forwarded tool is run: ``forward(arguments, context, run_sync, mask_errors,
#: timeout, on_timeout)`` returns the internal ``tools/call`` result.
Forward = Callable[
    [JSON, Any, RunSync, bool, "float | None", "Callable[[], None] | None"], Awaitable[JSON]
]

_UNSET: Any = object()


async def _placeholder(**arguments: Any) -> None:  # pragma: no cover - never called
    return None


def _identity(arguments: JSON) -> JSON:
    return dict(arguments)


class ForwardedTool(Tool):
    """A tool with a given definition whose calls go to ``forward`` (another tool, a mounted
    server's tool, an upstream server's tool). Arguments are checked by whoever ``forward``
    reaches; the result it returns is passed on as it is."""

    def __init__(
        self,
        forward: Forward,
        *,
        name: str,
        input_schema: JSON,
        output_schema: JSON | None = None,
        wraps_result: bool = False,
        structured: bool = True,
        needs_context: bool | Callable[[], bool] = True,
        title: str | None = None,
        description: str | None = None,
        annotations: Any = None,
        meta: JSON | None = None,
        icons: list[Any] | None = None,
        tags: Iterable[str] = (),
        scopes: Iterable[str] = (),
        auth: Callable[[Any], bool] | None = None,
        sensitive: Iterable[str] = (),
        original: Tool | None = None,
    ) -> None:
        super().__init__(
            _placeholder,
            name=name,
            title=title,
            description=description,
            annotations=annotations,
            output_schema=False,
            tags=tags,
            meta=meta,
            icons=icons,
            scopes=scopes,
            auth=auth,
            sensitive=sensitive,
            max_argument_depth=None,  # whoever runs the call checks its limits
            max_string_length=None,
        )
        self.forward = forward
        self._needs_context = needs_context
        #: The tool this one was derived from (None for an upstream's tool).
        self.original = original
        self.schema = FunctionSchema(
            description=self.description,
            input_schema=input_schema,
            output_schema=output_schema,
            wraps_result=wraps_result,
            injected={"context": object} if needs_context else {},
            _make_validator=lambda: _identity,
            _make_dumper=_dumper,
        )
        self.structured = structured

        mirrored, problem = header_params(input_schema)
        self.header_params = mirrored if problem is None else {}
        self.definition = self._definition()

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
        if self.nulls_from is not None and arguments:  # Server(provider=...): null = absent
            # lazy: the providers' schema rules, only for a tool checked or exported for one
            from ..providers import null_means_absent

            arguments = null_means_absent(arguments, self.nulls_from)
        return await self.forward(
            arguments or {}, injected, run_sync, mask_errors, timeout, on_timeout
        )

    def run_inline(self, arguments: JSON, injected: Any, *, mask_errors: bool) -> JSON:
        raise RuntimeError("a forwarded tool never runs inline")  # pragma: no cover

    def needs_context(self) -> bool:
        """Whether its calls build a Context: as given, or asked at each call (a mounted
        tool needs one once its server has middleware)."""
        needed = self._needs_context
        return needed() if callable(needed) else needed


def _dumper() -> Callable[[Any], Any]:

    return generic_dumper()


def running(tool: Tool) -> Forward:
    """A forward that runs ``tool`` itself (with the caller's context and limits)."""

    def forward(
        arguments: JSON,
        context: Any,
        run_sync: RunSync,
        mask_errors: bool,
        timeout: float | None,
        on_timeout: Callable[[], None] | None,
    ) -> Awaitable[JSON]:
        return tool.run(
            arguments,
            context,
            run_sync,
            mask_errors=mask_errors,
            timeout=timeout,
            on_timeout=on_timeout,
        )

    return forward


@dataclass(frozen=True)
class Arg:
    """How a derived tool shows one argument of the original.

    ``name``: its new name (the call maps it back). ``description``: a new description.
    ``default``: a new default, shown in the schema and filled in when the call leaves the
    argument out (it is then optional). ``hide=True`` with ``value=...``: the argument
    leaves the input schema and the call always gets ``value`` (an optional argument may be
    hidden without a value: the original's own default applies).
    """

    name: str | None = None
    description: str | None = None
    default: Any = _UNSET
    hide: bool = False
    value: Any = _UNSET


#: ``wrap(arguments, original)``: an async function getting the derived tool's arguments
#: (new names) and ``original``, an async function of such arguments returning the
#: original's result (a ``CallToolResult`` dict, ``isError`` included); what it returns is
#: that result, or a value turned into one with the original's output schema.
Wrapper = Callable[[JSON, Callable[[JSON], Awaitable[JSON]]], Awaitable[Any]]


def derive_tool(
    tool: Tool,
    *,
    name: str | None = None,
    title: str | None = _UNSET,
    description: str | None = _UNSET,
    annotations: Any = _UNSET,
    meta: JSON | None = _UNSET,
    tags: Iterable[str] | None = None,
    arguments: Mapping[str, Arg] | None = None,
    wrap: Wrapper | None = None,
    output_schema: JSON | None = _UNSET,
) -> ForwardedTool:
    """A new tool made from ``tool``: another name, title, description, annotations or
    ``_meta`` (``None`` removes one), its arguments renamed, redescribed, given defaults or
    hidden with fixed values (``arguments={"old": Arg(...)}``), and its call optionally
    wrapped. A ``wrap`` that returns another shape than the original's declares it with
    ``output_schema={...}`` (an object schema; ``None``: no output schema). ``tool`` itself
    is left as it is (register the result in its place with
    :meth:`Server.transform_tool <toolwire.Server.transform_tool>`)."""
    changes = dict(arguments or {})
    schema = copy.deepcopy(tool.schema.input_schema)
    given = schema.get("properties")
    original: JSON = given if isinstance(given, dict) else {}
    required = [r for r in schema.get("required") or () if isinstance(r, str)]
    label = name or tool.name
    renamed: dict[str, str] = {}  # new name -> original's
    fixed: JSON = {}  # original name -> value always sent
    defaults: JSON = {}  # new name -> default filled in
    for old, given_change in changes.items():
        if not isinstance(given_change, Arg):
            raise RegistrationError(f"Tool {label!r}: arguments[{old!r}] must be an Arg(...)")
        if old not in original:
            known = ", ".join(original) or "no arguments"
            raise RegistrationError(f"Tool {label!r}: no argument {old!r} to change ({known})")
    properties: JSON = {}
    for old, prop in original.items():
        change: Arg | None = changes.get(old)
        if change is None:
            new = old
        elif change.hide:
            if change.value is not _UNSET:
                fixed[old] = change.value
            elif old in required:
                raise RegistrationError(
                    f"Tool {label!r}: hiding the required argument {old!r} needs value=..."
                )
            if old in required:
                required.remove(old)
            continue
        else:
            new = change.name or old
            prop = dict(prop)
            if change.description is not None:
                prop["description"] = change.description
            if change.default is not _UNSET:
                prop["default"] = change.default
                defaults[new] = change.default
                if old in required:
                    required.remove(old)
            if new != old:
                renamed[new] = old
                required = [new if r == old else r for r in required]
        if new in properties:
            raise RegistrationError(f"Tool {label!r}: two arguments would be named {new!r}")
        properties[new] = prop
    schema["properties"] = properties
    if required:
        schema["required"] = required
    else:
        schema.pop("required", None)
    hidden = {old for old, change in changes.items() if change.hide}
    gone = (hidden | set(renamed.values())) - set(properties)

    def mapped(given: JSON) -> JSON:
        out: JSON = {}
        for key, value in given.items():
            if key in gone:  # an original name that this tool does not take
                if key[:1] == "_":  # `_meta` and the like are never arguments
                    continue
                raise _Unknown(key)
            out[renamed.get(key, key)] = value
        for new, value in defaults.items():
            out.setdefault(renamed.get(new, new), value)
        out.update(fixed)
        return out

    def refused(key: str) -> JSON:
        close = [k for k in schema["properties"] if renamed.get(k) == key]
        hint = f", did you mean {close[0]!r}?" if close else ""
        return text_result(
            f"Invalid arguments for tool '{label}': {key}: unknown argument{hint}", is_error=True
        )

    call_original = running(tool)

    async def through(
        given: JSON,
        context: Any,
        run_sync: RunSync,
        mask_errors: bool,
        timeout: float | None,
        on_timeout: Callable[[], None] | None,
    ) -> JSON:
        """The original tool called with ``given`` mapped to its own arguments."""
        try:
            arguments = mapped(given)
        except _Unknown as exc:
            return refused(exc.args[0])
        return await call_original(arguments, context, run_sync, mask_errors, timeout, on_timeout)

    forward = through
    if wrap is not None:
        if not inspect.iscoroutinefunction(wrap):
            raise RegistrationError(f"Tool {label!r}: wrap= must be an async function")
        source = getattr(getattr(wrap, "__code__", None), "co_filename", None)

        async def wrapped(
            given: JSON,
            context: Any,
            run_sync: RunSync,
            mask_errors: bool,
            timeout: float | None,
            on_timeout: Callable[[], None] | None,
        ) -> JSON:
            async def original(arguments: JSON) -> JSON:
                return await through(arguments, context, run_sync, mask_errors, timeout, on_timeout)

            try:
                value = await wrap(dict(given), original)
            except (RPCError, InputRequired):
                raise
            except Exception as exc:
                return failure_result(exc, label, source, mask_errors)
            if isinstance(value, dict) and isinstance(value.get("content"), list):
                return value  # a result (the original's, or made like one)
            return derived._result(value)

        forward = wrapped

    def keep(value: Any, current: Any) -> Any:
        return current if value is _UNSET else value

    output, wraps = tool.schema.output_schema, tool.schema.wraps_result
    if output_schema is not _UNSET:
        if output_schema is not None and (
            not isinstance(output_schema, dict) or output_schema.get("type") != "object"
        ):
            raise RegistrationError(f"Tool {label!r}: output_schema must be an object schema")
        output, wraps = output_schema, False

    derived = ForwardedTool(
        forward,
        name=label,
        input_schema=schema,
        output_schema=output,
        wraps_result=wraps,
        structured=tool.structured,
        needs_context=True if wrap is not None else tool.needs_context,  # (asked at each call)
        title=keep(title, tool.title),
        description=keep(description, tool.description),
        annotations=keep(annotations, tool.annotations),
        meta=keep(meta, tool.meta),
        icons=tool.icons,
        tags=tool.tags if tags is None else tags,
        scopes=tool.scopes,
        auth=tool.auth,
        sensitive={renamed_back(renamed, s) for s in tool.sensitive},
        original=tool,
    )
    derived.timeout = tool.timeout
    return derived


def renamed_back(renamed: Mapping[str, str], original_name: str) -> str:
    for new, old in renamed.items():
        if old == original_name:
            return new
    return original_name


class _Unknown(Exception):
    pass


class TransformRules:
    """A server's transforms by tool name: applied now to a registered tool and again to a
    mounted or proxied tool each time its mount registers it (after a list change)."""

    def __init__(self) -> None:
        self.rules: dict[str, dict[str, Any]] = {}

    def apply(self, tool: Tool) -> Tool:
        """``tool`` with the transforms of its name applied (and those of the names they
        give it, in the order they were made)."""
        seen = set()
        while tool.name in self.rules and tool.name not in seen:
            seen.add(tool.name)
            tool = derive_tool(tool, **self.rules[tool.name])
        return tool


def rules_of(server: Any) -> TransformRules:
    rules: TransformRules | None = getattr(server, "_transform_rules", None)
    if rules is None:
        rules = server._transform_rules = TransformRules()
    return rules


def transform_tool(server: Any, name: str, changes: dict[str, Any]) -> Tool | None:
    """Replace the tool ``name`` of ``server`` by the tool derived from it with ``changes``
    (the keywords of :func:`derive_tool`); a mounted tool not there yet is transformed
    when its mount registers it. Returns the derived tool, if the original was there."""
    rules = rules_of(server)
    if name in rules.rules:
        raise RegistrationError(f"The tool {name!r} already has a transform")
    rules.rules[name] = changes
    original = server.get_tool(name)
    if original is None:
        if not getattr(server, "_mounts", None):  # nothing can bring it later
            del rules.rules[name]
            raise KeyError(f"No tool named {name!r}")
        return None
    derived = derive_tool(original, **changes)
    server.remove_tool(name)
    try:
        server.add_tool(derived)
    except RegistrationError:
        server.add_tool(original)
        del rules.rules[name]
        raise
    for mount in getattr(server, "_mounts", ()):
        mount.renamed(name, derived.name)
    return derived
