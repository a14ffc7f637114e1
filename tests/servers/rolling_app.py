"""The rolling-restart worker as an ASGI app, for ``uvicorn rolling_app:app`` (see
``rolling_worker.py``): the shared store and the drain as ``deployment.md`` shows them."""

from rolling_worker import DRAIN_DELAY, REDIS, mcp

from toolwire.transports.store.stores import RedisStore

app = mcp.http_app(store=RedisStore(REDIS), drain_delay=DRAIN_DELAY)
