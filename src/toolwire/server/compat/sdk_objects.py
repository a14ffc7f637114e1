"""The official SDK's private objects on :class:`toolwire.Server` (``mcp._tool_manager``,
``mcp._lowlevel_server``, ...), each a descriptor installed on the class: those its examples
reach into where the SDK has no public way are served (:mod:`.sdk_private`, loaded on first
read); the others raise an ``AttributeError`` naming the public way."""

from __future__ import annotations

from typing import Any

# The official SDK's private objects that its examples reach into where it has no public way:
# served as the SDK's examples use them (toolwire.server.compat.sdk_private).
_SDK_OBJECTS = {
    "_tool_manager": "ToolManager",
    "_lowlevel_server": "LowLevelServer",
    "_mcp_server": "LowLevelServer",  # its 1.x name
}
# Those they reach in passing, and what to write instead.
_SDK_PRIVATE = {
    "_resource_manager": "find a resource with mcp.get_resource(uri)",
    "_prompt_manager": "find a prompt with mcp.get_prompt(name)",
}


class _SdkObject:
    """A private object of the official SDK (``mcp._tool_manager``...), made on first read.
    A descriptor, not ``__getattr__``, which would keep CPython from specializing every
    other attribute read of a server."""

    def __init__(self, name: str, kind: str | None, advice: str = "") -> None:
        self.name, self.kind, self.advice = name, kind, advice

    def __get__(self, server: object, owner: type | None = None) -> Any:
        if server is None:  # read on the class (help(), inspect): the descriptor itself
            return self
        if self.kind is None:
            raise AttributeError(
                f"toolwire's Server has no {self.name} (a private object of the official "
                f"SDK): {self.advice}"
            )
        # lazy: the official SDK's private surface, on first use
        from . import sdk_private

        return getattr(sdk_private, self.kind)(server)


def install_sdk_objects(server_class: type) -> None:
    """Put the SDK's private names on ``server_class`` (``Server``)."""
    for name, kind in _SDK_OBJECTS.items():
        setattr(server_class, name, _SdkObject(name, kind))
    for name, advice in _SDK_PRIVATE.items():
        setattr(server_class, name, _SdkObject(name, None, advice))
