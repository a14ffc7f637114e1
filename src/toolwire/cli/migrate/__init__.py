"""``toolwire migrate``: the ``mcp`` and ``fastmcp`` imports of a file or tree rewritten to
toolwire's.

:mod:`.table` says where each import goes (the one source, also of docs/migrating.md's
table, written by :mod:`.doc`), :mod:`.rewrite` rewrites one source, :mod:`.command` is the
command.
"""
