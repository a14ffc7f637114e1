"""The resource model: read-only data a host pulls into context, by URI.

A :class:`Resource` has one fixed URI (``config://app``); a :class:`ResourceTemplate` has an
RFC 6570 URI template (``users://{user_id}/profile``) and serves every URI that matches it,
its function taking the template's variables as (typed) parameters. Both are built once at
registration and know how to read themselves: call the function and turn what it returns
into ``resources/read`` contents (:func:`to_contents`).

Templates support level 1 of RFC 6570 (``{var}``: one path segment, percent-decoded) and
reserved expansion (``{+var}``: may span ``/``), which covers paths such as
``file:///{+path}``.
"""

from __future__ import annotations

import inspect
import logging
import os
import re
from collections.abc import Awaitable, Callable, Mapping
from inspect import Signature, cleandoc
from typing import TYPE_CHECKING, Any

from ..components import Component, Metadata, annotation_dict
from ..content import _Media
from ..errors import RegistrationError, ToolError
from ..functions.inspection import (
    EXPECTED_ERRORS,
    Dependency,
    describe,
    error_message,
    is_async,
    own_code,
    raised_by,
    signature_of,
    unwrap,
)
from ..schema.function import InvalidArguments, function_schema
from .contents import listed_type, to_contents, value_type
from .uri_template import UriTemplate, is_template

if TYPE_CHECKING:
    from typing_extensions import Unpack

__all__ = [
    "Resource",
    "ResourceNotFound",
    "ResourceTemplate",
    "UriTemplate",
    "is_template",
    "to_contents",
]

logger = logging.getLogger("toolwire")

JSON = dict[str, Any]
RunSync = Callable[[Callable[..., Any], dict[str, Any]], Awaitable[Any]]

_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*:")
_ANNOTATION_KEYS = {"audience", "priority", "lastModified"}


class ResourceNotFound(ToolError, LookupError):
    """No resource has this URI. Raise it in a template's function for a URI that matches
    the template but names nothing (``users://999/profile``); a client gets the revision's
    not-found error, a tool reading it with ``ctx.read_resource`` an error result."""

    def __init__(self, uri: str, message: str | None = None) -> None:
        super().__init__(message or f"Resource not found: {uri}")
        self.uri = uri


def _annotations(given: Any) -> JSON | None:
    annotations = annotation_dict(given, _ANNOTATION_KEYS, "resource", "Annotations")
    if annotations is None:
        return None
    audience = annotations.get("audience")
    if audience is not None and (
        not isinstance(audience, (list, tuple)) or set(audience) - {"user", "assistant"}
    ):
        raise RegistrationError('annotations["audience"] must list "user" and/or "assistant"')
    priority = annotations.get("priority")
    if priority is not None and not (
        isinstance(priority, (int, float)) and not isinstance(priority, bool) and 0 <= priority <= 1
    ):
        raise RegistrationError('annotations["priority"] must be a number from 0 to 1')
    return {k: (list(v) if k == "audience" else v) for k, v in annotations.items() if v is not None}


class _Readable(Component):
    """What resources and templates share: metadata, the function, and reading it."""

    kind = "resource"

    def __init__(
        self,
        fn: Any,
        fallback_name: str,
        name: str | None,
        mime_type: str | None,
        annotations: Any,
        inject: tuple[type, ...],
        metadata: Metadata,
        provided: Mapping[Any, Any] | None = None,
    ) -> None:
        self.fn: Callable[..., Any] | None = fn if callable(fn) else None
        self.value = None if callable(fn) else fn
        if self.fn is None and not isinstance(fn, (str, bytes, bytearray, _Media)):
            raise RegistrationError(
                f"A {self.kind} needs a function, a string or bytes, got {type(fn).__name__}"
            )
        self.parameters: set[str] = set()
        self.required: set[str] = set()
        self.injected: tuple[str, ...] = ()
        self._validate: Callable[[JSON], JSON] | None = None
        doc_description = None
        target = unwrap(fn) if self.fn is not None else None
        if self.fn is not None:
            try:
                # the variables come from the URI template, checked against the parameters
                schema = function_schema(
                    self.fn, inject=inject, unknown_arguments="ignore-all", provided=provided
                )
            except (TypeError, ValueError) as exc:
                raise RegistrationError(f"Resource {fallback_name!r}: {exc}") from exc
            if any(isinstance(d, Dependency) for d in schema.injected.values()):
                # lazy: only for a function that declares dependencies
                from ..functions.dependencies import plan

                label = f"{self.kind} {fallback_name!r}"
                self.plan = plan(label, schema.injected, inject, provided)
            self.parameters = set(schema.input_schema.get("properties") or ())
            self.required = set(schema.input_schema.get("required") or ())
            self.injected = tuple(schema.injected)
            self._validate = schema.validate
            # The whole docstring, as the SDK and FastMCP list it: a template's ``Args:``
            # describe its variables, which have no other place in a listing.
            doc = describe(self.fn)[1]
            doc_description = cleandoc(doc) if isinstance(doc, str) and doc.strip() else None
            if name is None:
                found = getattr(target, "__name__", None)
                name = found if isinstance(found, str) and found != "<lambda>" else None
        self.name = name or fallback_name
        # scopes/auth: who may list, read, subscribe to and complete it (as for tools)
        self._describe(doc_description, metadata)
        self.mime_type = mime_type
        # What its reads answer and its listing names: the type given, else the one its
        # function's return annotation (or its value) settles, once, here.
        self.content_type = mime_type or self._settled_type(fn, fallback_name)
        self.annotations = _annotations(annotations)
        self.is_async = self.fn is not None and is_async(self.fn)
        self._source = getattr(getattr(target, "__code__", None), "co_filename", None)

    def _settled_type(self, fn: Any, uri: str) -> str | None:
        """The MIME type every read of ``fn`` answers with, when known before reading."""
        template = self.kind == "resource template"
        if self.fn is None:  # the content itself
            return value_type(fn, uri)
        name, _, target = describe(self.fn)
        try:
            returns = signature_of(self.fn, target, name, self.kind).return_annotation
        except (TypeError, ValueError):
            return None
        if returns is Signature.empty:  # no annotation: text/plain, as the SDK and FastMCP
            return "text/plain"
        return listed_type(returns, uri, template=template)

    def _metadata(self, definition: JSON) -> JSON:
        self._headed(definition)
        if self.content_type:
            definition["mimeType"] = self.content_type
        return definition

    async def read(
        self,
        uri: str,
        variables: JSON,
        injected: Any,
        run_sync: RunSync,
        *,
        mask_errors: bool,
    ) -> list[JSON]:
        """The contents of ``uri``. Failures raise :class:`ResourceNotFound` or another
        :class:`~toolwire.ToolError` whose text may be shown to the client."""
        if self.fn is None:
            return to_contents(self.value, uri, self.content_type)
        assert self._validate is not None
        try:
            kwargs = self._validate(variables)
        except InvalidArguments as exc:  # e.g. "abc" for an int: no such resource
            raise ResourceNotFound(uri, f"Resource not found: {uri} ({exc})") from None
        for param in self.injected:
            kwargs[param] = injected
        try:
            value = await self._call(kwargs, run_sync, injected)
        except ToolError:
            raise
        except (Exception, SystemExit, KeyboardInterrupt) as exc:  # the read fails, not the server
            raise self._failure(exc, uri, mask_errors) from None
        try:
            return to_contents(value, uri, self.content_type)
        except Exception as exc:
            reference = os.urandom(4).hex()
            logger.error(
                "Resource %r returned a value that cannot be sent (reference %s)",
                uri,
                reference,
                exc_info=exc,
            )
            raise ToolError(
                f"Resource {uri!r} returned a value that cannot be sent (reference {reference})"
            ) from None

    def _failure(self, exc: BaseException, uri: str, mask_errors: bool) -> ToolError:
        """What a client is told when the function raised (the rules of tool errors)."""
        if isinstance(exc, (LookupError, FileNotFoundError)) and own_code(exc, self._source):
            # Not found, whoever raised it; Python's own message (a key, a path) is not shown.
            return ResourceNotFound(
                uri, error_message(exc) if raised_by(exc, self._source) else None
            )
        if isinstance(exc, EXPECTED_ERRORS) and raised_by(exc, self._source):
            return ToolError(error_message(exc))
        reference = os.urandom(4).hex()
        logger.error("Resource %r failed (reference %s)", uri, reference, exc_info=exc)
        if not mask_errors:
            return ToolError(f"{type(exc).__name__}: {exc} (reference {reference})")
        return ToolError(f"Reading {uri!r} failed with an internal error (reference {reference})")


class Resource(_Readable):
    """A resource with one fixed URI; its function takes no arguments (a Context at most)."""

    def __init__(
        self,
        fn: Any,
        uri: str,
        *,
        name: str | None = None,
        mime_type: str | None = None,
        size: int | None = None,
        annotations: Any = None,
        inject: tuple[type, ...] = (),
        provided: Mapping[Any, Any] | None = None,
        **metadata: Unpack[Metadata],
    ) -> None:
        _check_uri(uri)
        if is_template(uri):
            raise RegistrationError(f"{uri!r} is a URI template: register a ResourceTemplate")
        if size is not None and (isinstance(size, bool) or not isinstance(size, int) or size < 0):
            raise RegistrationError(f"Resource {uri!r}: size must be a non-negative integer")
        self.uri = uri
        self.size = size
        super().__init__(fn, uri, name, mime_type, annotations, inject, metadata, provided)
        if self.required:
            raise RegistrationError(
                f"Resource {uri!r} has no URI variables, but its function requires "
                f"{sorted(self.required)}: use a URI template such as "
                f"'{uri.rstrip('/')}/{{{sorted(self.required)[0]}}}'"
            )
        self.definition = self._definition()

    def _definition(self) -> JSON:
        """The resource as the newest revision lists it; shaping cuts it down per revision."""
        definition = self._metadata({"uri": self.uri, "name": self.name})
        if self.size is not None:
            definition["size"] = self.size
        return self._tailed(definition)


class ResourceTemplate(_Readable):
    """Resources whose URIs match an RFC 6570 template; the function gets the variables.

    ``completers`` maps a variable to a function suggesting its values (``completion/complete``).
    """

    kind = "resource template"

    def __init__(
        self,
        fn: Callable[..., Any],
        uri_template: str,
        *,
        name: str | None = None,
        mime_type: str | None = None,
        annotations: Any = None,
        complete: Mapping[str, Callable[..., Any]] | None = None,
        inject: tuple[type, ...] = (),
        provided: Mapping[Any, Any] | None = None,
        **metadata: Unpack[Metadata],
    ) -> None:
        _check_uri(uri_template)
        if not callable(fn):
            raise RegistrationError(f"Resource template {uri_template!r} needs a function")
        try:
            self.template = UriTemplate(uri_template)
        except ValueError as exc:
            raise RegistrationError(str(exc)) from None
        self.uri_template = uri_template
        super().__init__(fn, uri_template, name, mime_type, annotations, inject, metadata, provided)
        variables = set(self.template.variables)
        takes_any = any(
            p.kind is p.VAR_KEYWORD for p in _parameters(fn)
        )  # **kwargs: every variable is welcome
        missing = sorted(variables - self.parameters) if not takes_any else []
        if missing:
            raise RegistrationError(
                f"Resource template {uri_template!r}: its function has no parameter for {missing}"
            )
        unfilled = sorted(self.required - variables)
        if unfilled:
            raise RegistrationError(
                f"Resource template {uri_template!r}: parameters {unfilled} are required but "
                "are not variables of the template"
            )
        self.completers: dict[str, Callable[..., Any]] = dict(complete or {})
        unknown = sorted(set(self.completers) - variables)
        if unknown:
            raise RegistrationError(
                f"Resource template {uri_template!r}: complete= names {unknown}, which are "
                f"not variables of the template ({sorted(variables)})"
            )
        for variable, completer in self.completers.items():
            if not callable(completer):
                raise RegistrationError(f"The completer of {variable!r} must be callable")
        self.definition = self._definition()

    def match(self, uri: str) -> dict[str, str] | None:
        return self.template.match(uri)

    def _definition(self) -> JSON:
        definition = self._metadata({"uriTemplate": self.uri_template, "name": self.name})
        return self._tailed(definition)


def _parameters(fn: Callable[..., Any]) -> list[Any]:

    try:
        return list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):
        return []


def _check_uri(uri: Any) -> None:
    if not isinstance(uri, str) or not _SCHEME.match(uri) or any(c.isspace() for c in uri):
        raise RegistrationError(
            f"Invalid resource URI {uri!r}: it needs a scheme and no spaces, e.g. 'config://app'"
        )
