"""Python signatures -> MCP tool JSON Schemas, argument validation and result dumping.

:mod:`.function` builds a tool function's :class:`~.function.FunctionSchema` and picks one of
two paths: :mod:`.fast` (primitive signatures, no pydantic) or :mod:`.pydantic_path` (every
other signature); :mod:`.given` takes a hand-written input schema as it is, :mod:`.clean`
makes pydantic's schemas portable, :mod:`.common` holds what the paths share.
"""
