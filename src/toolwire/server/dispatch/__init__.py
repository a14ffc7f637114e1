"""How a request reaches its handler: the method table and the handlers of the list,
read, get and complete methods, the call slots every call takes, middleware, idempotency
keys, the extension mechanism, roots and the log records forwarded to the client."""
