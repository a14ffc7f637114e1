"""Streamable HTTP, the server side (an extra: ``pip install toolwire[http]``).

:mod:`.app` holds :class:`HttpApp`, the ASGI application; the other modules are its parts:
answering a POST (:mod:`.answer`), the GET stream and resumption (:mod:`.follow`,
:mod:`.resume`, :mod:`.sse`), sessions (:mod:`.session`), list changes (:mod:`.changes`), the
request checks (:mod:`.guard`, :mod:`.rules`, :mod:`.limits`, :mod:`.auth`), health probes
(:mod:`.health`), the author's own routes (:mod:`.routes`), the current request (:mod:`.trace`) and running and stopping under uvicorn
(:mod:`.run`, :mod:`.stop`). The state they share between workers is in
:mod:`toolwire.transports.store`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .app import HttpApp

__all__ = ["HttpApp"]


def __getattr__(name: str) -> Any:
    if name == "HttpApp":  # the path it had before the package: toolwire.transports.http
        from .app import HttpApp  # lazy: on first use of the name

        return HttpApp
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
