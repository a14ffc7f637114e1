"""The session store: what must outlive a request (sessions, their event logs, Tasks,
per-user state, rate buckets, replay windows), in memory by default or in Redis shared by
workers (``pip install toolwire[redis]``).

:mod:`.contract` is what every store provides, :mod:`.stores` the two stores, :mod:`.runs`
the queue that hands a resumable Task to another worker.
"""

from .contract import SessionStore, StoreUnavailable
from .stores import MemoryStore, RedisStore

__all__ = ["MemoryStore", "RedisStore", "SessionStore", "StoreUnavailable"]
