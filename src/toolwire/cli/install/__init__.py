"""``toolwire install``: add a server to an MCP host's configuration.

:mod:`.command` is the command; :mod:`.hosts` the hosts it knows, :mod:`.config` the edit of
a host's file, :mod:`.checks` what it checks before writing, :mod:`.inputs` its ``--env``
options.
"""
