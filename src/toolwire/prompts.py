"""The prompt model: a Python function whose parameters are a prompt's arguments.

A :class:`Prompt` is built once at registration. Its arguments come from the signature
(name, description from the docstring's ``Args:`` section, required when there is no
default). MCP sends prompt arguments as strings, so each argument converts its string to the
parameter's type (``int``, ``float``, ``bool``, ``Literal``, ``Enum``, ``str``; other types
through pydantic) and a bad or missing one is a -32602 error that names it.

What the function returns becomes the ``messages`` of ``prompts/get``:

=========================================  ============================================
prompt returns                             messages
=========================================  ============================================
``str``                                    one user message with that text
``Message`` / ``UserMessage`` /            that message
``AssistantMessage``
``{"role": ..., "content": ...}``          that message (content: a string, a content
                                           block dict or a content object)
``Image`` / ``Audio`` / ``File`` or a      one user message carrying it
``types`` content block
a list or tuple of the above               one message per item
``None``                                   no messages
=========================================  ============================================
"""

from __future__ import annotations

import enum
import logging
import os
import sys
import typing
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from . import jsonrpc
from .completion import prefix_completer
from .components import Component, Metadata
from .content import content_block
from .errors import RegistrationError, RPCError, ToolError
from .functions.docstrings import parse_docstring
from .functions.inspection import (
    EXPECTED_ERRORS,
    Dependency,
    Injected,
    describe,
    error_message,
    injected_as,
    is_async,
    raised_by,
    signature_of,
    unwrap,
)
from .schema.common import EMPTY, UNIONS

if TYPE_CHECKING:
    from typing_extensions import Unpack

logger = logging.getLogger("toolwire")

JSON = dict[str, Any]
RunSync = Callable[[Callable[..., Any], dict[str, Any]], Awaitable[Any]]

ROLES = ("user", "assistant")
_BLOCK_TYPES = frozenset({"text", "image", "audio", "resource_link", "resource"})


# ---------------------------------------------------------------- messages


class Message:
    """One prompt message: ``Message("user", "Review this code")``; the content is a string,
    a content block dict, or a content object (``Image``, ``Audio``, ``File``, ``types.*``)."""

    def __init__(self, role: str, content: Any) -> None:
        if role not in ROLES:
            raise ValueError(f"A message's role is 'user' or 'assistant', not {role!r}")
        self.role = role
        self.content = content

    def to_wire(self) -> JSON:
        return {"role": self.role, "content": message_content(self.content)}

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.role!r}, {self.content!r})"


class UserMessage(Message):
    """A message from the user: ``UserMessage("Explain this error")`` (``role="user"`` may
    be given too, as the official SDK's examples do)."""

    def __init__(self, content: Any, role: str = "user") -> None:
        if role != "user":
            raise ValueError(
                f"A UserMessage's role is 'user', not {role!r}: use Message(role, ...)"
            )
        super().__init__("user", content)


class AssistantMessage(Message):
    """A message from the assistant, e.g. the start of an answer for the model to go on with."""

    def __init__(self, content: Any, role: str = "assistant") -> None:
        if role != "assistant":
            raise ValueError(
                f"An AssistantMessage's role is 'assistant', not {role!r}: use Message(role, ...)"
            )
        super().__init__("assistant", content)


def message_content(value: Any) -> JSON:
    """The content block of one message."""
    if isinstance(value, str):
        return {"type": "text", "text": value}
    block = content_block(value)
    if block is not None:
        return block
    if isinstance(value, Mapping) and value.get("type") in _BLOCK_TYPES:
        return dict(value)
    raise TypeError(f"{type(value).__name__} cannot be the content of a prompt message")


def _to_message(item: Any) -> JSON:
    if isinstance(item, Message):
        return item.to_wire()
    if isinstance(item, Mapping) and "role" in item and "content" in item:
        role = item["role"]
        if role not in ROLES:
            raise ValueError(f"A message's role is 'user' or 'assistant', not {role!r}")
        return {"role": role, "content": message_content(item["content"])}
    return {"role": "user", "content": message_content(item)}


def to_messages(value: Any) -> list[JSON]:
    """The ``PromptMessage`` list for what a prompt function returned (see the table above)."""
    if value is None:
        return []
    if isinstance(value, Mapping) and isinstance(value.get("messages"), list):
        value = value["messages"]  # a GetPromptResult-shaped dict
    if isinstance(value, (list, tuple)):
        return [_to_message(item) for item in value]
    return [_to_message(value)]


# ---------------------------------------------------------------- arguments

_TRUE = frozenset({"true", "1", "yes", "y", "on"})
_FALSE = frozenset({"false", "0", "no", "n", "off"})


def _to_bool(text: str) -> bool:
    lowered = text.strip().lower()
    if lowered in _TRUE:
        return True
    if lowered in _FALSE:
        return False
    raise ValueError("must be true or false")


def _to_int(text: str) -> int:
    try:
        return int(text.strip())
    except ValueError:
        raise ValueError("must be an integer") from None


def _to_float(text: str) -> float:
    try:
        return float(text.strip())
    except ValueError:
        raise ValueError("must be a number") from None


def _choice(options: dict[str, Any]) -> Callable[[str], Any]:
    def convert(text: str) -> Any:
        if text in options:
            return options[text]
        shown = ", ".join(repr(o) for o in options)
        raise ValueError(f"must be one of {shown}")

    return convert


def _through_pydantic(annotation: Any) -> Callable[[str], Any]:
    """Types beyond the primitives (dates, UUIDs, lists, models): pydantic's lax mode reads
    the string itself, or the string as JSON for structured types."""
    adapter: Any = None

    def convert(text: str) -> Any:
        nonlocal adapter
        if adapter is None:
            # lazy: pydantic, off the import path until a schema needs it
            from pydantic import TypeAdapter

            adapter = TypeAdapter(annotation)
        # lazy: pydantic, off the import path until a schema needs it
        from pydantic import ValidationError

        try:
            return adapter.validate_python(text)
        except ValidationError as exc:
            try:
                return adapter.validate_json(text)
            except ValidationError:
                raise ValueError(exc.errors()[0].get("msg", "is invalid")) from None

    return convert


def _identity(text: str) -> str:
    return text


def _converter(annotation: Any) -> tuple[Callable[[str], Any], tuple[str, ...] | None]:
    """How to turn the string a client sends into the parameter's type, and its choices."""
    origin = typing.get_origin(annotation)
    if origin is typing.Annotated:
        return _converter(typing.get_args(annotation)[0])
    if origin in UNIONS:
        rest = [a for a in typing.get_args(annotation) if a is not type(None)]
        if len(rest) == 1:  # Optional[X]: None is the default, never a string
            return _converter(rest[0])
        return _through_pydantic(annotation), None
    if annotation is EMPTY or annotation is Any or annotation is str:
        return _identity, None
    if annotation is bool:
        return _to_bool, None
    if annotation is int:
        return _to_int, None
    if annotation is float:
        return _to_float, None
    if origin is typing.Literal:
        options = {str(v.value if isinstance(v, enum.Enum) else v): v for v in annotation.__args__}
        return _choice(options), tuple(options)
    if isinstance(annotation, type) and issubclass(annotation, enum.Enum):
        options = {str(member.value): member for member in annotation}
        return _choice(options), tuple(options)
    return _through_pydantic(annotation), None


def _field_info(default: Any) -> tuple[Any, str | None, bool]:
    """(default, description, has default) of a pydantic ``Field(...)`` used as a default."""
    fields = sys.modules.get("pydantic.fields")
    if fields is None or not isinstance(default, fields.FieldInfo):
        return default, None, default is not EMPTY
    if default.is_required():
        return EMPTY, default.description, False
    value = default.get_default(call_default_factory=True)
    return value, default.description, True


@dataclass
class PromptArgument:
    """One argument of a prompt, and how its string value becomes the parameter's value."""

    name: str
    description: str | None
    required: bool
    default: Any
    convert: Callable[[str], Any]
    choices: tuple[str, ...] | None

    def definition(self) -> JSON:
        shaped: JSON = {"name": self.name}
        if self.description:
            shaped["description"] = self.description
        shaped["required"] = self.required
        return shaped


# ---------------------------------------------------------------- the prompt


class Prompt(Component):
    """One registered prompt."""

    kind = "prompt"

    @classmethod
    def from_function(
        cls, fn: Callable[..., Any], name: str | None = None, **metadata: Unpack[Metadata]
    ) -> Prompt:
        """A prompt of ``fn`` for ``mcp.add_prompt`` (the official SDK's way to build one
        beforehand); ``title``, ``description`` and the other metadata as for
        ``@mcp.prompt``, and a ``Context`` parameter filled in."""
        return cls(fn, name=name, inject=(Injected,), **metadata)

    def __init__(
        self,
        fn: Callable[..., Any],
        *,
        name: str | None = None,
        complete: Mapping[str, Callable[..., Any]] | None = None,
        inject: tuple[type, ...] = (),
        provided: Mapping[Any, Any] | None = None,
        **metadata: Unpack[Metadata],
    ) -> None:
        if not callable(fn):
            raise RegistrationError(f"A prompt must be callable, got {type(fn).__name__}")
        fn_name, doc_text, func = describe(fn)
        self.name = name if name is not None else fn_name
        if not isinstance(self.name, str) or not self.name.strip():
            raise RegistrationError(f"Invalid prompt name {self.name!r}: use a non-empty string")
        self.fn = fn
        try:
            signature = signature_of(fn, func, self.name)
        except (TypeError, ValueError) as exc:
            raise RegistrationError(f"Prompt {self.name!r}: {exc}") from exc
        doc = parse_docstring(doc_text)
        self.arguments: list[PromptArgument] = []
        self.injected: list[str] = []
        dependencies: dict[str, Dependency] = {}
        self.extra = False  # **kwargs: arguments beyond the declared ones are passed on
        for param in signature.parameters.values():
            if param.kind is param.VAR_KEYWORD:
                self.extra = True
                continue
            if param.kind is param.VAR_POSITIONAL:
                continue
            found = injected_as(param.annotation, param.default, inject, provided)
            if found is not None:
                self.injected.append(param.name)
                if isinstance(found, Dependency):
                    dependencies[param.name] = found
                continue
            if param.kind is param.POSITIONAL_ONLY:
                raise RegistrationError(
                    f"Prompt {self.name!r}: positional-only parameter {param.name!r} cannot be "
                    "passed by name"
                )
            default, field_description, has_default = _field_info(param.default)
            convert, choices = _converter(param.annotation)
            self.arguments.append(
                PromptArgument(
                    name=param.name,
                    description=field_description or doc.params.get(param.name),
                    required=not has_default,
                    default=default,
                    convert=convert,
                    choices=choices,
                )
            )
        self._by_name = {argument.name: argument for argument in self.arguments}
        if dependencies:
            # lazy: only for a function that declares dependencies
            from .functions.dependencies import plan

            self.plan = plan(f"prompt {self.name!r}", dependencies, inject, provided)
        # scopes/auth: who may list, get and complete it (as for tools)
        self._describe(doc.description, metadata)
        self.completers = self._completers(complete or {})
        self.is_async = is_async(fn)
        self._source = getattr(getattr(unwrap(fn), "__code__", None), "co_filename", None)
        self.definition = self._definition()

    def _completers(self, given: Mapping[str, Callable[..., Any]]) -> dict[str, Callable[..., Any]]:
        """The completer of each argument: the given ones, and the choices of ``Literal`` and
        ``Enum`` arguments for the others."""
        completers: dict[str, Callable[..., Any]] = {}
        for argument in self.arguments:
            if argument.choices is not None:
                completers[argument.name] = prefix_completer(argument.choices)
        for key, completer in given.items():
            if key not in self._by_name:
                raise RegistrationError(
                    f"Prompt {self.name!r} has no argument {key!r} to complete; its arguments: "
                    f"{', '.join(self._by_name) or 'none'}"
                )
            if not callable(completer):
                raise RegistrationError(
                    f"Prompt {self.name!r}: the completer of {key!r} is not callable"
                )
            completers[key] = completer
        return completers

    def _definition(self) -> JSON:
        """The prompt as the newest revision describes it; shaping cuts it down per revision."""
        definition = self._headed({"name": self.name})
        # listed even when empty, as the official SDK and FastMCP list it
        definition["arguments"] = [argument.definition() for argument in self.arguments]
        return self._tailed(definition)

    def bind(self, arguments: Mapping[str, Any]) -> dict[str, Any]:
        """The keyword arguments for the function, from ``prompts/get``'s string arguments.

        Raises -32602 naming the first missing, unknown or invalid argument; a name that
        starts with ``_`` and is no argument (``_meta``) is left out.
        """
        kwargs: dict[str, Any] = {}
        for key, value in arguments.items():
            argument = self._by_name.get(key)
            if argument is None and not self.extra and key[:1] == "_":
                continue  # `_meta` and the like are never arguments
            if not isinstance(value, str):
                raise self._invalid(f"argument {key!r} must be a string")
            if argument is None:
                if not self.extra:
                    known = ", ".join(repr(a) for a in self._by_name) or "none"
                    raise self._invalid(f"unknown argument {key!r} (arguments: {known})")
                kwargs[key] = value
                continue
            try:
                kwargs[key] = argument.convert(value)
            except ValueError as exc:
                shown = value if len(value) <= 40 else value[:40] + "..."
                raise self._invalid(f"argument {key!r} {exc}, got {shown!r}") from None
        for argument in self.arguments:
            if argument.name not in kwargs:
                if argument.required:
                    raise self._invalid(f"missing required argument {argument.name!r}")
                kwargs[argument.name] = argument.default
        return kwargs

    def _invalid(self, problem: str) -> RPCError:
        return RPCError(
            jsonrpc.INVALID_PARAMS, f"Invalid arguments for prompt {self.name!r}: {problem}"
        )

    async def render(
        self, kwargs: dict[str, Any], injected: Any, run_sync: RunSync, *, mask_errors: bool
    ) -> JSON:
        """Call the function and return the ``GetPromptResult`` (newest revision's shape).

        A failure becomes an RPCError: the author's own message for ``ToolError`` and the
        expected exceptions raised by the prompt's own code, else a masked internal error.
        """
        for param in self.injected:
            kwargs[param] = injected
        try:
            value = await self._call(kwargs, run_sync, injected)
        except (Exception, SystemExit, KeyboardInterrupt) as exc:
            raise self._failure(exc, mask_errors) from None
        asking = _input_required(value)
        if asking is not None:  # questions first (SEP-2322): the server asks, then renders again
            return asking
        try:
            messages = to_messages(value)
        except (TypeError, ValueError) as exc:
            reference = os.urandom(4).hex()
            logger.error(
                "Prompt %r returned %s, which is not messages (reference %s)",
                self.name,
                type(value).__name__,
                reference,
                exc_info=exc,
            )
            raise RPCError(
                jsonrpc.INTERNAL_ERROR,
                f"Prompt '{self.name}' returned something that is not messages "
                f"(reference {reference})",
            ) from None
        result: JSON = {"messages": messages}
        if self.description:
            result["description"] = self.description
        return result

    def _failure(self, exc: BaseException, mask_errors: bool) -> RPCError:
        if isinstance(exc, RPCError):
            return exc
        if isinstance(exc, ToolError) or (
            isinstance(exc, EXPECTED_ERRORS) and raised_by(exc, self._source)
        ):
            return RPCError(jsonrpc.INTERNAL_ERROR, error_message(exc))
        reference = os.urandom(4).hex()
        logger.error("Prompt %r failed (reference %s)", self.name, reference, exc_info=exc)
        if not mask_errors:
            text = f"{type(exc).__name__}: {exc} (reference {reference})"
        else:
            text = f"Prompt '{self.name}' failed with an internal error (reference {reference})"
        return RPCError(jsonrpc.INTERNAL_ERROR, text)


def _input_required(value: Any) -> JSON | None:
    """The wire form of an ``InputRequiredResult`` a prompt returned (the official SDK's way
    for a prompt to ask the client first), else None."""
    types = sys.modules.get("toolwire.types")  # loaded if the prompt made one
    if types is not None and isinstance(value, types.InputRequiredResult):
        return value.to_wire()  # type: ignore[no-any-return]
    if isinstance(value, Mapping) and value.get("resultType") == "input_required":
        return dict(value)
    return None
