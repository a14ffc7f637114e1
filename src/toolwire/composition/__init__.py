"""Servers made of other servers and other APIs, built on the core's public API: mounting
(:mod:`.mount`, :mod:`.mount_routes`), tool transforms (:mod:`.transforms`), tool search
(:mod:`.tool_search`) and OpenAPI operations as tools (:mod:`.openapi`, :mod:`.openapi_call`,
:mod:`.openapi_schema`). ``Server``'s methods (``mount``, ``transform_tool``,
``enable_tool_search``, ``from_openapi``, ``add_openapi``) reach them through
:mod:`toolwire.server.features`."""
