"""The MCP extensions toolwire serves, built on the server's extension mechanism
(:mod:`toolwire.server.dispatch.extensions`): Tasks (:mod:`.tasks`, and resumable ones taken over
across workers, :mod:`.task_handover`), Agent Skills (:mod:`.skills`) and MCP Apps
(:mod:`.apps`). ``Server`` reaches them through :mod:`toolwire.server.features`."""
