"""The official SDK's and FastMCP's APIs on toolwire's server.

The SDK's ``ctx.session`` and ``ctx.request_context``, its settings, its low-level server in
both major versions' styles (re-exported by :mod:`toolwire.lowlevel`), and FastMCP's
``FastMCP`` class, ``Context`` methods, per-session state, files, skill folders, transforms
and task names. ``docs/migrating.md`` says what each maps to.
"""
