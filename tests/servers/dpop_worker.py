"""A DPoP-protected toolwire HTTP worker sharing its store through Redis, for the
cross-worker DPoP tests.

Run as ``dpop_worker.py --fd N --redis redis://127.0.0.1:PORT/0 --resource URL --token T
--jkt J [--nonce]``: serves ``/mcp`` on the listening socket N, protected by a
``ResourceServer`` for ``URL`` whose one token ``T`` is bound to the key thumbprint ``J``,
with a ``DPoPVerifier`` (nonces asked for with ``--nonce``). Its replay cache and nonce
secret live in the shared ``RedisStore``.
"""

from __future__ import annotations

import argparse
import os

import uvicorn

from toolwire import Server
from toolwire.auth import AccessToken, DPoPVerifier, ResourceServer, StaticTokens
from toolwire.transports.store.stores import RedisStore


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--fd", type=int, required=True)
    parser.add_argument("--redis", required=True)
    parser.add_argument("--resource", required=True)
    parser.add_argument("--token", required=True)
    parser.add_argument("--jkt", required=True)
    parser.add_argument("--nonce", action="store_true")
    options = parser.parse_args()
    mcp = Server("dpop-worker", version="0.0.1")

    @mcp.tool()
    def whoami() -> int:
        """This worker's process id."""
        return os.getpid()

    caller = AccessToken(
        subject="alice", scopes=frozenset({"mcp"}), claims={"cnf": {"jkt": options.jkt}}
    )
    auth = ResourceServer(
        options.resource,
        ["https://auth.example.test"],
        StaticTokens({options.token: caller}),
        dpop=DPoPVerifier(nonce=options.nonce),
    )
    app = mcp.http_app(store=RedisStore(options.redis), auth=auth)
    uvicorn.run(app, fd=options.fd, log_level="warning", lifespan="on")


if __name__ == "__main__":
    main()
