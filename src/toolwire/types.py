"""Typed MCP objects for people who want full control (the low-level API).

The hot path never builds these: the server works on dicts. Each model dumps to the
wire shape with :func:`dump`; unknown fields are kept so newer protocol fields pass through.
"""

from __future__ import annotations

from typing import Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field


class MCPModel(BaseModel):
    model_config = ConfigDict(extra="allow", populate_by_name=True)
    # Protocol objects, not tool data: a tool returning one gets no output schema.
    __toolwire_mcp_type__: ClassVar[bool] = True

    def to_wire(self) -> dict[str, Any]:
        return self.model_dump(mode="json", by_alias=True, exclude_none=True)


class Annotations(MCPModel):
    audience: list[Literal["user", "assistant"]] | None = None
    priority: float | None = Field(default=None, ge=0, le=1)
    lastModified: str | None = None


class Icon(MCPModel):
    src: str
    mimeType: str | None = None
    sizes: list[str] | None = None
    theme: Literal["light", "dark"] | None = None


class TextContent(MCPModel):
    type: Literal["text"] = "text"
    text: str
    annotations: Annotations | None = None
    meta: dict[str, Any] | None = Field(default=None, alias="_meta")


class ImageContent(MCPModel):
    type: Literal["image"] = "image"
    data: str
    mimeType: str
    annotations: Annotations | None = None
    meta: dict[str, Any] | None = Field(default=None, alias="_meta")


class AudioContent(MCPModel):
    type: Literal["audio"] = "audio"
    data: str
    mimeType: str
    annotations: Annotations | None = None
    meta: dict[str, Any] | None = Field(default=None, alias="_meta")


class ResourceLink(MCPModel):
    type: Literal["resource_link"] = "resource_link"
    uri: str
    name: str
    title: str | None = None
    description: str | None = None
    mimeType: str | None = None
    size: int | None = None
    annotations: Annotations | None = None
    meta: dict[str, Any] | None = Field(default=None, alias="_meta")


class TextResourceContents(MCPModel):
    uri: str
    mimeType: str | None = None
    text: str
    meta: dict[str, Any] | None = Field(default=None, alias="_meta")


class BlobResourceContents(MCPModel):
    uri: str
    mimeType: str | None = None
    blob: str
    meta: dict[str, Any] | None = Field(default=None, alias="_meta")


class EmbeddedResource(MCPModel):
    type: Literal["resource"] = "resource"
    resource: TextResourceContents | BlobResourceContents
    annotations: Annotations | None = None
    meta: dict[str, Any] | None = Field(default=None, alias="_meta")


ContentBlock = TextContent | ImageContent | AudioContent | ResourceLink | EmbeddedResource


class Resource(MCPModel):
    uri: str
    name: str
    title: str | None = None
    description: str | None = None
    mimeType: str | None = None
    size: int | None = None
    annotations: Annotations | None = None
    icons: list[Icon] | None = None
    meta: dict[str, Any] | None = Field(default=None, alias="_meta")


class ResourceTemplate(MCPModel):
    uriTemplate: str
    name: str
    title: str | None = None
    description: str | None = None
    mimeType: str | None = None
    annotations: Annotations | None = None
    icons: list[Icon] | None = None
    meta: dict[str, Any] | None = Field(default=None, alias="_meta")


class ReadResourceResult(MCPModel):
    contents: list[TextResourceContents | BlobResourceContents] = Field(default_factory=list)
    meta: dict[str, Any] | None = Field(default=None, alias="_meta")


class PromptArgument(MCPModel):
    name: str
    title: str | None = None
    description: str | None = None
    required: bool | None = None


class Prompt(MCPModel):
    name: str
    title: str | None = None
    description: str | None = None
    arguments: list[PromptArgument] | None = None
    icons: list[Icon] | None = None
    meta: dict[str, Any] | None = Field(default=None, alias="_meta")


class PromptMessage(MCPModel):
    role: Literal["user", "assistant"]
    content: ContentBlock


class GetPromptResult(MCPModel):
    description: str | None = None
    messages: list[PromptMessage] = Field(default_factory=list)
    meta: dict[str, Any] | None = Field(default=None, alias="_meta")


class Completion(MCPModel):
    values: list[str] = Field(default_factory=list, max_length=100)
    total: int | None = None
    hasMore: bool | None = None


class ToolAnnotations(MCPModel):
    title: str | None = None
    readOnlyHint: bool | None = None
    destructiveHint: bool | None = None
    idempotentHint: bool | None = None
    openWorldHint: bool | None = None


class Tool(MCPModel):
    name: str
    title: str | None = None
    description: str | None = None
    inputSchema: dict[str, Any] = Field(
        default_factory=lambda: {"type": "object", "additionalProperties": False}
    )
    outputSchema: dict[str, Any] | None = None
    annotations: ToolAnnotations | None = None
    icons: list[Icon] | None = None
    meta: dict[str, Any] | None = Field(default=None, alias="_meta")


class CallToolResult(MCPModel):
    content: list[TextContent | ImageContent | AudioContent | ResourceLink | EmbeddedResource] = (
        Field(default_factory=list)
    )
    structuredContent: Any = None
    isError: bool = False
    meta: dict[str, Any] | None = Field(default=None, alias="_meta")

    def to_wire(self) -> dict[str, Any]:
        wire = super().to_wire()
        if not self.isError:
            wire.pop("isError", None)
        return wire


class Implementation(MCPModel):
    name: str
    version: str
    title: str | None = None
    description: str | None = None
    websiteUrl: str | None = None
    icons: list[Icon] | None = None


def dump(model: MCPModel | dict[str, Any]) -> dict[str, Any]:
    """The wire shape of a model (dicts pass through)."""
    return model if isinstance(model, dict) else model.to_wire()


__all__ = [
    "Annotations",
    "AudioContent",
    "BlobResourceContents",
    "CallToolResult",
    "ContentBlock",
    "EmbeddedResource",
    "Icon",
    "ImageContent",
    "Implementation",
    "ResourceLink",
    "TextContent",
    "TextResourceContents",
    "Tool",
    "ToolAnnotations",
    "dump",
]
