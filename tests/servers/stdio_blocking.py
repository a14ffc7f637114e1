"""A stdio test server whose sync tools block their thread until told to go on.

``hold(key)`` blocks (``threading.Event.wait``) until ``release(key)`` is called or
``--hold-timeout`` seconds pass, so tests can prove other requests are served while a
sync tool is blocked, without sleeping anywhere. ``--grace S`` sets ``shutdown_grace``.
"""

import argparse
import threading
import time
from collections import defaultdict

from toolwire import Server

parser = argparse.ArgumentParser()
parser.add_argument("--grace", type=float, default=2.0)
parser.add_argument("--hold-timeout", type=float, default=5.0)
options = parser.parse_args()

mcp = Server("stdio-blocking", version="0.0.1", shutdown_grace=options.grace)
_events: defaultdict[str, threading.Event] = defaultdict(threading.Event)
_lock = threading.Lock()


def _event(key: str) -> threading.Event:
    with _lock:
        return _events[key]


@mcp.tool()
def hold(key: str, wait: bool = True) -> str:
    """Block until release(key) (or the hold timeout); with wait=false return at once."""
    if not wait:
        return "quick"
    return "released" if _event(key).wait(options.hold_timeout) else "timed out"


@mcp.tool(blocking=True)
def hold_on_thread(key: str, wait: bool = True) -> str:
    """hold, declared blocking: always runs on a worker thread."""
    return hold(key, wait)


@mcp.tool()
def release(key: str) -> str:
    """Let hold(key) return."""
    _event(key).set()
    return "ok"


@mcp.tool()
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@mcp.tool()
def block(seconds: float) -> str:
    """Block this worker thread with time.sleep."""
    time.sleep(seconds)
    return f"blocked {seconds}"


if __name__ == "__main__":
    mcp.run()
