"""A host: many MCP servers behind one tool list, ready for an LLM API, with a human in the
loop.

:mod:`.host` holds :class:`Host`; :mod:`.primitives` its resources and prompts,
:mod:`.exports` the tools and results shaped for each LLM API, :mod:`.approval` which calls
may run without asking, :mod:`.naming` the model-facing names.
"""

from .host import *  # noqa: F403 (what toolwire.client.host gave when it was one module)
from .host import __all__ as __all__
