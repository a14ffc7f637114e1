"""The developer's functions, as tools, prompts and resources need them: their names,
signatures, injected parameters and error messages (:mod:`.inspection`), their docstrings
(:mod:`.docstrings`), dependency plans (:mod:`.dependencies`) and whether a sync function
can block the event loop (:mod:`.nonblocking`)."""
