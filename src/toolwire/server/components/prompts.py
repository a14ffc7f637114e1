"""Prompts on :class:`toolwire.Server`: ``@mcp.prompt()`` turns a function into a prompt
template whose parameters are its arguments, with completion of argument values.

::

    @mcp.prompt(complete={"language": lambda value: [l for l in LANGUAGES if l.startswith(value)]})
    def review(code: str, language: str = "python") -> str:
        \"\"\"Ask for a code review.

        Args:
            code: The code to review
            language: Its programming language
        \"\"\"
        return f"Review this {language} code:\\n\\n{code}"

A server with no prompt answers exactly as before: no ``prompts`` capability, and the
prompt methods are unknown (-32601).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping, Sequence
from functools import cached_property
from typing import TYPE_CHECKING, Any, TypeVar, overload

from ... import jsonrpc
from ...completion import run_completer
from ...components import Metadata
from ...errors import RPCError
from ...functions.inspection import is_async
from ...prompts import Prompt
from ...protocol import shaping
from ...protocol.revisions import Features
from ..context import Context, _current
from ..core import JSON, ServerCore
from ..inputs import InputRequired, InvalidAnswer, answer_returned
from ..request import Request
from ..session import ServerConnection
from .registry import Registry, decorator, unknown

if TYPE_CHECKING:
    from typing_extensions import Unpack

F = TypeVar("F", bound=Callable[..., Any])


def unknown_prompt(name: str, known: Sequence[str]) -> RPCError:
    """-32602 for an unknown prompt, with the closest known name as a hint."""
    return unknown("prompt", name, known)


class PromptRegistry(ServerCore):
    """The prompt half of :class:`toolwire.Server` (a mixin over ``ServerCore``)."""

    # Set by the first registration and kept: a session told about prompts can still
    # list them (an empty list) after the last one is removed.
    offers_prompts = False

    @cached_property
    def prompt_registry(self) -> Registry[Prompt]:
        """Made on first use: a server without prompts builds none."""
        return self.registry("prompts", "name", "prompt named", self.prompts_changed)

    @cached_property
    def _prompts(self) -> dict[str, Prompt]:
        return self.prompt_registry.items

    # ------------------------------------------------------------ registration

    _completion_handler: Callable[..., Any] | None = None

    def completion(self) -> Callable[[F], F]:
        """The official SDK's ``@mcp.completion()``: ``handler(ref, argument, context)``
        (sync or async) answers every ``completion/complete``: ``ref`` is a
        ``PromptReference`` or ``ResourceTemplateReference``, ``argument`` has ``name`` and
        ``value``, ``context`` is None or has ``arguments``. It returns a ``Completion``
        (or a list of values); None leaves the argument to its own ``complete=`` completer
        (nothing to suggest without one)."""

        def register(fn: F) -> F:
            if not callable(fn):
                raise TypeError("@mcp.completion() decorates a function")
            self._completion_handler = fn
            return fn

        return register

    @overload
    def prompt(self, name: F, /) -> F: ...

    @overload
    def prompt(
        self,
        name: str | None = None,
        /,
        *,
        complete: Mapping[str, Callable[..., Any]] | None = None,
        **metadata: Unpack[Metadata],
    ) -> Callable[[F], F]: ...

    def prompt(self, name: Any = None, /, **options: Any) -> Any:
        """Register a function as a prompt: ``@mcp.prompt``, ``@mcp.prompt()`` or
        ``@mcp.prompt("name", title=..., description=..., icons=..., meta=...,
        complete={"argument": completer}, tags=..., scopes=..., auth=...)``."""
        return decorator(self.add_prompt, name, options)

    def add_prompt(
        self,
        fn: Callable[..., Any],
        *,
        name: str | None = None,
        complete: Mapping[str, Callable[..., Any]] | None = None,
        **metadata: Unpack[Metadata],
    ) -> Prompt:
        """Register ``fn`` (a function, async function or callable) as a prompt.

        ``complete`` maps argument names to completers: ``fn(value)`` or
        ``fn(value, arguments)`` (the earlier answers), sync or async, returning a list of
        suggestions. ``Literal`` and ``Enum`` arguments complete from their choices.

        ``scopes=["reports:read"]`` and ``auth=lambda caller: ...`` limit who may use it, as
        for tools: another caller does not see it in ``prompts/list``, and ``prompts/get``
        and completion answer as for an unknown prompt.
        """
        # a Prompt built beforehand (a mounted server's, renamed) is registered as it is
        prompt = (
            fn
            if isinstance(fn, Prompt)
            else Prompt(
                fn,
                name=name,
                complete=complete,
                inject=(Context,),
                provided=self.provided,
                **metadata,
            )
        )
        self.offers_prompts = True
        return self.prompt_registry.add(prompt)

    def remove_prompt(self, name: str) -> None:
        """Unregister a prompt; clients are told the list changed."""
        self.prompt_registry.remove(name)

    def get_prompt(self, name: str) -> Prompt | None:
        return self._prompts.get(name)

    def enable_prompt(self, name: str) -> None:
        """Show a disabled prompt again; clients are told the list changed."""
        self.prompt_registry.set_enabled(name, True)

    def disable_prompt(self, name: str) -> None:
        """Hide a prompt without unregistering it: it leaves prompts/list and becomes
        unknown."""
        self.prompt_registry.set_enabled(name, False)

    @property
    def prompts(self) -> Sequence[Prompt]:
        """The registered prompts, in registration order."""
        return list(self._prompts.values())

    # ------------------------------------------------------------ capabilities

    def capabilities(self, features: Features) -> JSON:
        capabilities = super().capabilities(features)
        if self.offers_prompts:
            capabilities["prompts"] = {"listChanged": True}
        # ServerCapabilities.completions exists since 2025-03-26 (completion/complete itself
        # is answered on 2024-11-05 too: that schema defines the request).
        if features.revision >= "2025-03-26" and self.offers_completions():
            capabilities["completions"] = {}
        return capabilities

    def accepted_notifications(self, wanted: JSON, request: Request | None = None) -> JSON:
        accepted = super().accepted_notifications(wanted, request)
        if self.offers_prompts and wanted.get("promptsListChanged") is True:
            accepted["promptsListChanged"] = True
        return accepted

    def offers_completions(self) -> bool:
        """Some prompt argument or resource-template variable has a completer (or the
        server an SDK-style ``@mcp.completion()`` handler)."""
        if self._completion_handler is not None:
            return True
        if self.offers_prompts and any(p.completers for p in self._prompts.values()):
            return True
        templates: Any = getattr(self, "resource_templates", None) or ()
        return any(getattr(t, "completers", None) for t in templates)

    # ------------------------------------------------------------ list changes

    def prompts_changed(self) -> None:
        """Tell connected clients the prompt list changed, once per burst of changes."""
        self.list_changed("prompts")

    # ------------------------------------------------------------ protocol side

    def prompts_page(self, request: Request, cursor: str | None) -> JSON:
        """One page of ``prompts/list`` for the request's revision (and caller)."""
        return self.components_page(
            self.prompt_registry, request, cursor, "prompts", shaping.prompt
        )

    def find_prompt(self, name: str, request: Request | None = None) -> Prompt:
        """The prompt named ``name`` that ``request``'s caller may use, else -32602 whose
        "did you mean" hint names only prompts that caller may use."""
        prompt = self.prompt_registry.find(name, request)
        if prompt is not None:
            return prompt
        raise unknown_prompt(name, [p.name for p in self.prompt_registry.visible(request)])

    def render_prompt(
        self, connection: ServerConnection, request: Request, name: str, arguments: JSON
    ) -> Any:
        """The coroutine of a ``prompts/get`` result; unknown names and bad arguments are
        refused right away."""
        prompt = self.find_prompt(name, request)
        kwargs = prompt.bind(arguments)
        params = request.params
        answers = None
        if request.features.modern and ("requestState" in params or "inputResponses" in params):
            answers = self.signer.answers(params, _state_key(prompt), arguments, request.caller)
        return self._render(prompt, connection, request, kwargs, arguments, answers)

    async def _render(
        self,
        prompt: Prompt,
        connection: ServerConnection,
        request: Request,
        kwargs: JSON,
        arguments: JSON,
        answers: JSON | None,
    ) -> JSON:
        context = connection.context_for(request, answers) if prompt.injected else None
        if context is not None:
            _current.set(context)  # this task's own copy of the context variables
        try:
            result = await prompt.render(
                kwargs, context, self.runner.run, mask_errors=self.mask_errors
            )
            if result.get("resultType") == "input_required":  # the prompt returned questions

                def again() -> Any:
                    return prompt.render(
                        kwargs, context, self.runner.run, mask_errors=self.mask_errors
                    )

                result = await answer_returned(result, context, again, prompt.name, "Prompt")
                if result.get("isError"):  # what could not be asked, or asked without end
                    raise RPCError(jsonrpc.INTERNAL_ERROR, result["content"][0]["text"])
        except InputRequired as needed:  # 2026-07-28: the client answers, then asks again
            return needed.result(self.signer, _state_key(prompt), arguments, request.caller)
        except InvalidAnswer as exc:
            raise RPCError(jsonrpc.INVALID_PARAMS, f"Invalid inputResponses: {exc}") from None
        finally:
            if context is not None:
                context._finish()
        return shaping.prompt_result(result, request.features)

    def complete_argument(
        self, request: Request, ref: JSON, name: str, value: str, context: dict[str, str]
    ) -> Any:
        """The ``completion/complete`` result (or its coroutine) for one argument."""
        if self._completion_handler is not None and ref.get("type") in REF_KEYS:
            return self._complete_by_handler(request, ref, name, value, context)
        return self._complete_own(request, ref, name, value, context)

    async def _complete_by_handler(
        self, request: Request, ref: JSON, name: str, value: str, context: dict[str, str]
    ) -> JSON:
        # lazy: the official SDK's surface, on first use
        from ..compat.sdk_session import completion_arguments

        handler = self._completion_handler
        assert handler is not None
        given = context if isinstance(request.params.get("context"), dict) else None
        arguments = completion_arguments(ref, name, value, given)
        found: list[Any] = []

        async def ask_async(_: str) -> Any:
            found.append(await handler(*arguments))
            return found[0]

        def ask(_: str) -> Any:
            found.append(handler(*arguments))
            return found[0]

        completion = await run_completer(
            ask_async if is_async(handler) else ask,
            value,
            {},
            self.runner.run,
            label=f"argument {name!r}",
            mask_errors=self.mask_errors,
        )
        if found and found[0] is None:  # the handler leaves it to the argument's completer
            own = self._complete_own(request, ref, name, value, context)
            return await own if inspect.isawaitable(own) else own  # type: ignore[no-any-return]
        return {"completion": completion}

    def _complete_own(
        self, request: Request, ref: JSON, name: str, value: str, context: dict[str, str]
    ) -> Any:
        kind = ref.get("type")
        if kind == "ref/prompt":
            prompt_name = ref.get("name")
            if not isinstance(prompt_name, str):
                raise RPCError(
                    jsonrpc.INVALID_PARAMS, 'Invalid params: "ref.name" must be a string'
                )
            completer = self.find_prompt(prompt_name, request).completers.get(name)
            label = f"argument {name!r} of prompt {prompt_name!r}"
        elif kind == "ref/resource":
            uri = ref.get("uri")
            if not isinstance(uri, str):
                raise RPCError(jsonrpc.INVALID_PARAMS, 'Invalid params: "ref.uri" must be a string')
            find = getattr(self, "find_template", None)
            template = find(uri, request) if find is not None else None
            if template is None:
                raise RPCError(jsonrpc.INVALID_PARAMS, f"Unknown resource template: {uri!r}")
            completer = (getattr(template, "completers", None) or {}).get(name)
            label = f"variable {name!r} of {uri!r}"
        else:
            raise RPCError(
                jsonrpc.INVALID_PARAMS,
                'Invalid params: "ref.type" must be "ref/prompt" or "ref/resource"',
            )
        if completer is None:  # nothing to suggest for this argument
            return {"completion": {"values": []}}
        return self._complete(completer, value, context, label)

    async def _complete(
        self, completer: Callable[..., Any], value: str, context: dict[str, str], label: str
    ) -> JSON:
        completion = await run_completer(
            completer, value, context, self.runner.run, label=label, mask_errors=self.mask_errors
        )
        return {"completion": completion}


REF_KEYS = {"ref/prompt": "name", "ref/resource": "uri"}


def _state_key(prompt: Prompt) -> str:
    """What a prompt's requestState is bound to: never valid for a tool of the same name."""
    return f"prompts/get {prompt.name}"
