"""What tools, resources, resource templates and prompts share: one component model.

A component is a named thing a server lists and serves: its key (a tool's or prompt's name,
a resource's URI, a template's URI template), the metadata every kind publishes the same
way (``title``, ``description``, ``icons``, ``_meta``, and ``annotations`` where the kind
has them), its ``tags``, whether it is ``enabled``, and who may use it (``scopes`` and an
``auth`` predicate on the caller). :class:`toolwire.tools.Tool`,
:class:`toolwire.resources.Resource`, :class:`toolwire.resources.ResourceTemplate` and
:class:`toolwire.prompts.Prompt` build on :class:`Component`; the server keeps each kind in a
:class:`toolwire.server.components.registry.Registry`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any, TypedDict

from .auth.tokens import access_rules
from .errors import RegistrationError

if TYPE_CHECKING:
    from .functions.dependencies import Plan

JSON = dict[str, Any]
RunSync = Callable[[Callable[..., Any], dict[str, Any]], Awaitable[Any]]


class Metadata(TypedDict, total=False):
    """The options every kind of component takes, with the same meaning: ``title``,
    ``description`` (else the function's docstring), ``icons`` (dicts or ``Icon`` models),
    ``meta`` (its ``_meta``), ``tags``, ``version`` (several versions of one name may be
    registered: the highest enabled one is served, see :mod:`toolwire.server.components.versions`),
    who may use it: the ``scopes`` the caller's token must cover and an ``auth`` predicate on
    the caller, and ``enabled=False`` (FastMCP 2's) to register it disabled."""

    title: str | None
    description: str | None
    icons: list[Any] | None
    meta: JSON | None
    tags: Iterable[str]
    version: str | int | float | None
    scopes: str | Iterable[str]
    auth: Callable[[Any], bool] | None
    enabled: bool


_OPTIONS = frozenset(Metadata.__annotations__)


def version_text(version: Any) -> str:
    """A component's ``version`` as text (``2`` and ``"2"`` are the same version)."""
    if isinstance(version, bool) or not isinstance(version, (str, int, float)):
        raise RegistrationError(
            f'A version is a string or a number (version="1.2"), not {type(version).__name__}'
        )
    text = str(version)
    if not text or "@" in text:
        raise RegistrationError(
            f"A version is a non-empty text without '@' (it separates the name from the "
            f"version in a key such as 'tool:name@1.2'), not {text!r}"
        )
    return text


def icon_dicts(icons: Iterable[Any] | None) -> list[JSON]:
    """Icons as the wire carries them: dicts, or ``Icon`` models (toolwire's or the SDK's)."""
    return [
        i.model_dump(by_alias=True, exclude_none=True) if hasattr(i, "model_dump") else i
        for i in icons or ()
    ]


def annotation_dict(annotations: Any, known: Iterable[str], kind: str, model: str) -> JSON | None:
    """``annotations`` (a dict, or the pydantic model ``types.<model>``) as a dict of its set
    values; None when not given. A key the protocol does not define is accepted and left out,
    as FastMCP leaves it out, unless it looks like a misspelt one (``readonly``,
    ``read_only_hint``), which would lose that hint: that is refused."""
    if annotations is None:
        return None
    if hasattr(annotations, "model_dump"):
        annotations = annotations.model_dump(exclude_none=True)
    if not isinstance(annotations, Mapping):
        raise RegistrationError(f"annotations must be a dict or a types.{model}")
    known = list(known)
    for key in set(annotations).difference(known):
        meant = _misspelt(str(key), known)
        if meant is not None:
            raise RegistrationError(
                f"Unknown {kind} annotation {key!r}: did you mean {meant!r}? "
                f"(known: {sorted(known)}; other keys are accepted and left out)"
            )
    return {k: v for k, v in annotations.items() if v is not None and k in known}


def _misspelt(key: str, known: list[str]) -> str | None:
    """The known annotation ``key`` is likely a misspelling of (case, ``_`` and ``-`` aside)."""
    import difflib  # lazy: only for an annotation the protocol does not define

    def plain(name: str) -> str:
        return name.lower().replace("_", "").replace("-", "")

    spelt = {plain(name): name for name in known}
    close = difflib.get_close_matches(plain(key), list(spelt), n=1, cutoff=0.75)
    return spelt[close[0]] if close else None


class Component:
    """The part every kind of component shares (a base class; the kinds add the rest)."""

    kind = "component"  # "tool", "resource", "resource template", "prompt"
    # Shown unless disabled (server-wide with ``disable_tool``/``disable_resource``/...,
    # or for one session with ``ctx.disable_components``).
    enabled = True
    annotations: JSON | None = None
    tags: frozenset[str] = frozenset()
    version: str | None = None
    fn: Any  # the function (None for a resource given as its content)
    is_async: bool
    # How its dependencies are filled in (toolwire.functions.dependencies); None for most components.
    plan: Plan | None = None
    definition: JSON  # as listed: made by _definition() when it is built or changed

    def _describe(self, documented: str | None, metadata: Metadata) -> None:
        """Set the shared metadata from the options (``documented``: the description the
        function's docstring gives), checked and normalized the same way for every kind."""
        unknown = set(metadata) - _OPTIONS
        if unknown:
            raise TypeError(f"Unexpected option(s) for a {self.kind}: {', '.join(sorted(unknown))}")
        description = metadata.get("description")
        self.title = metadata.get("title")
        self.description = description if description is not None else documented
        self.icons = icon_dicts(metadata.get("icons"))
        self.meta = metadata.get("meta")
        tags = metadata.get("tags", ())
        self.tags = frozenset((tags,) if isinstance(tags, str) else tags)
        self.enabled = metadata.get("enabled") is not False
        version = metadata.get("version")
        if version is not None:
            self.version = version_text(version)
            # published as FastMCP lists it, so its clients find it where they look
            published = dict(self.meta or {})
            published["fastmcp"] = {**published.get("fastmcp", {}), "version": self.version}
            self.meta = published
        # Who may see and use it: the scopes the caller's token must cover, and a predicate
        # on the caller (the verified AccessToken, or None when unauthenticated).
        self.scopes, self.auth = access_rules(metadata.get("scopes", ()), metadata.get("auth"))

    def _headed(self, definition: JSON) -> JSON:
        """``definition`` (its key fields) with the title and description."""
        if self.title:
            definition["title"] = self.title
        if self.description:
            definition["description"] = self.description
        return definition

    def _definition(self) -> JSON:
        """The component as the newest revision lists it (each kind makes its own)."""
        raise NotImplementedError

    def _tailed(self, definition: JSON) -> JSON:
        """``definition`` with the annotations, icons and ``_meta``, last as every kind
        lists them."""
        if self.annotations:
            definition["annotations"] = self.annotations
        if self.icons:
            definition["icons"] = self.icons
        if self.meta:
            definition["_meta"] = self.meta
        return definition

    async def _call(self, kwargs: dict[str, Any], run_sync: RunSync, context: Any = None) -> Any:
        """Call the function: awaited when async, else through ``run_sync`` (a worker
        thread), so a slow sync function never blocks the event loop; its dependencies
        (``plan``, :mod:`toolwire.functions.dependencies`) filled in first, cleaned up after."""
        assert self.fn is not None
        if self.plan is not None:
            return await self.plan.call(self.fn, self.is_async, kwargs, context, run_sync)
        if self.is_async:
            return await self.fn(**kwargs)
        return await run_sync(self.fn, kwargs)
