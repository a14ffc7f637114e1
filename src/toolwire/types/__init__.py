"""Typed MCP objects, for people who want full control (the low-level API) and for code
written against the official SDK's ``mcp.types``.

Every definition of every MCP revision's schema (2024-11-05 to 2026-07-28) is here under the
schema's name: objects as pydantic models, unions and string enums as type aliases
(``ContentBlock``, ``LoggingLevel``, ``Role``); so are the names ``mcp.types`` adds in the
SDK 1.x and 2.x (``ErrorData`` and the error codes, ``CompletionArgument``,
``ToolsCapability``, ...). The models are generated from the schemas by
``scripts/generate_types.py``.

The rules:

* **One model per name, accepting what any revision defines.** A field some revision lacks,
  or does not require, is optional; a field whose type changed accepts each. What a given
  client may see is decided when the server shapes its answer for the negotiated revision,
  not here.
* **Two spellings in, one out.** A field is accepted by its wire name (``mimeType``,
  ``structuredContent``, ``_meta``) and by its snake_case name (``mime_type``,
  ``structured_content``, ``meta``), reads as an attribute by both (``result.isError`` and
  ``result.is_error``), and ``to_wire()`` (or ``model_dump(by_alias=True)``) always gives the
  wire name.
* **Strict.** A field the model does not know is a ``pydantic.ValidationError`` (or, when
  set as an attribute, an ``AttributeError``) naming it and the nearest known field: never
  dropped in silence, never sent as an extra key. Objects the schema leaves open
  (``Result``) take any field.
* **Lenient for what a peer sent.** ``Model.from_wire(data)`` reads a received message: a
  field of a revision newer than these schemas is kept as it is (``model_extra``) and
  ``to_wire()`` gives it back, so reading and forwarding a message never breaks on it or
  loses it. toolwire itself works on dicts and parses no peer message into these models.

The hot path never builds these models, and ``import toolwire`` does not load them.
"""

# generated names: begin
from . import (
    _sdk,
    base_types,
    calls,
    capabilities,
    client_features,
    content,
    lifecycle,
    messages,
    prompts,
    resources,
    tasks,
    tools,
)
from ._base import MCPModel, dump
from ._sdk import *  # noqa: F403
from .base_types import *  # noqa: F403
from .calls import *  # noqa: F403
from .capabilities import *  # noqa: F403
from .client_features import *  # noqa: F403
from .content import *  # noqa: F403
from .lifecycle import *  # noqa: F403
from .messages import *  # noqa: F403
from .prompts import *  # noqa: F403
from .resources import *  # noqa: F403
from .tasks import *  # noqa: F403
from .tools import *  # noqa: F403

__all__ = ["MCPModel", "dump"]
__all__ += _sdk.__all__
__all__ += base_types.__all__
__all__ += calls.__all__
__all__ += capabilities.__all__
__all__ += client_features.__all__
__all__ += content.__all__
__all__ += lifecycle.__all__
__all__ += messages.__all__
__all__ += prompts.__all__
__all__ += resources.__all__
__all__ += tasks.__all__
__all__ += tools.__all__
# generated names: end
