"""How the server holds and serves its components: the registry (pages, enable and
disable, versions), per-session visibility, the providers' checks, and the prompt, resource
and tool halves of ``Server``."""
