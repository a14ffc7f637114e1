"""A host: many MCP servers behind one tool list, ready for an LLM API, with a human in the
loop.

:mod:`.host` holds :class:`Host`; :mod:`.primitives` its resources and prompts,
:mod:`.exports` the tools and results shaped for each LLM API, :mod:`.approval` which calls
may run without asking, :mod:`.naming` the model-facing names.
"""

from .exports import HostTool, to_anthropic_content, to_gemini_content, to_openai_content
from .host import Host, UnknownToolError, denied
from .naming import HASH_LENGTH, MAX_NAME, NAME_PATTERN, assign_names
from .primitives import HostPrompt, HostResource, UnknownPrimitiveError

__all__ = [
    "HASH_LENGTH",
    "MAX_NAME",
    "NAME_PATTERN",
    "Host",
    "HostPrompt",
    "HostResource",
    "HostTool",
    "UnknownPrimitiveError",
    "UnknownToolError",
    "assign_names",
    "denied",
    "to_anthropic_content",
    "to_gemini_content",
    "to_openai_content",
]
