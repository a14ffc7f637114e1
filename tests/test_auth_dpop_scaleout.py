"""DPoP across workers: two worker processes (tests/servers/dpop_worker.py) sharing a real
redis-server through ``RedisStore``. A proof accepted by worker A is refused as a replay by
worker B; a proof made with another key, for another URL or long ago is refused by either; a
nonce worker A hands out is accepted by worker B; toolwire's client, with an
``auth=`` object of its own holding a ``DPoPKey``, gets through a nonce-asking worker."""

from __future__ import annotations

import secrets
import time
from collections.abc import Iterator
from typing import Any

import pytest

from toolwire.client import DPoPKey

from dpop_helpers import Holder, post, refused
from oauth_helpers import LEGACY
from services import start_redis, start_worker
from wire import checked_client

pytestmark = pytest.mark.timeout(60)

SERVER = "tests/servers/dpop_worker.py"
RESOURCE = "https://mcp.example.test/mcp"  # the htu both workers accept


@pytest.fixture(scope="module")
def redis_url() -> Iterator[str]:
    with start_redis() as url:
        yield url


@pytest.fixture
def holder() -> Holder:
    return Holder()


@pytest.fixture
def token() -> str:
    # One in 64 random tokens (and key thumbprints) starts with "-", as this one always does:
    # it must reach the workers as a value, not be taken for an option.
    return "-" + secrets.token_urlsafe(24)


def workers(redis_url: str, token: str, jkt: str, *extra: str) -> Any:
    bound = (f"--token={token}", f"--jkt={jkt}")  # name=value: "-..." is still a value
    args = ("--redis", redis_url, "--resource", RESOURCE, *bound, *extra)
    return start_worker(SERVER, *args), start_worker(SERVER, *args)


async def test_a_proof_used_on_worker_a_is_a_replay_on_worker_b(
    redis_url: str, holder: Holder, token: str
) -> None:
    first, second = workers(redis_url, token, holder.jkt)
    with first as a, second as b:
        proof = holder.proof("POST", RESOURCE, token)
        headers = {"Authorization": f"DPoP {token}", "DPoP": proof}
        assert (await post(a.url, headers)).status_code == 200
        assert "used before" in refused(await post(b.url, headers))
        assert "used before" in refused(await post(a.url, headers))
        fresh = {"Authorization": f"DPoP {token}", "DPoP": holder.proof("POST", RESOURCE, token)}
        assert (await post(b.url, fresh)).status_code == 200


async def test_a_nonce_from_worker_a_is_good_on_worker_b(
    redis_url: str, holder: Holder, token: str
) -> None:
    first, second = workers(redis_url, token, holder.jkt, "--nonce")
    with first as a, second as b:
        proof = holder.proof("POST", RESOURCE, token)
        challenged = await post(a.url, {"Authorization": f"DPoP {token}", "DPoP": proof})
        refused(challenged, "use_dpop_nonce")
        nonce = challenged.headers["dpop-nonce"]
        proof = holder.proof("POST", RESOURCE, token, nonce=nonce)
        assert (
            await post(b.url, {"Authorization": f"DPoP {token}", "DPoP": proof})
        ).status_code == 200


async def test_each_worker_refuses_a_bad_proof(redis_url: str, holder: Holder, token: str) -> None:
    """Another key than the token's, another URL, a stale iat: refused by either worker."""
    first, second = workers(redis_url, token, holder.jkt)
    thief = Holder()
    bad = {
        "another key": thief.proof("POST", RESOURCE, token),
        "another URL": holder.proof("POST", "https://elsewhere.example.test/mcp", token),
        "a stale iat": holder.proof("POST", RESOURCE, token, iat=int(time.time()) - 3600),
    }
    with first as a, second as b:
        for worker in (a, b):
            for what, proof in bad.items():
                answer = await post(worker.url, {"Authorization": f"DPoP {token}", "DPoP": proof})
                assert answer.status_code == 401, what
                refused(answer)
            good = holder.proof("POST", RESOURCE, token)
            ok = await post(worker.url, {"Authorization": f"DPoP {token}", "DPoP": good})
            assert ok.status_code == 200


class BoundToken:
    """An ``auth=`` object of the caller's: a token bound to ``dpop``, no OAuth flow."""

    def __init__(self, token: str, dpop: DPoPKey) -> None:
        self.token = token
        self.dpop = dpop

    async def header(self, url: str, http: Any) -> str:
        return f"DPoP {self.token}"

    async def challenge(self, *args: Any) -> bool:
        return False


async def test_the_client_follows_the_nonce_of_either_worker(redis_url: str, token: str) -> None:
    key = DPoPKey()
    first, second = workers(redis_url, token, key.jkt, "--nonce")
    with first as a, second as b:
        pids = set()
        for worker in (a, b):
            async with checked_client(worker.url, LEGACY, auth=BoundToken(token, key)) as client:
                pids.add((await client.call_tool("whoami", {})).structured["result"])
        assert pids == {a.pid, b.pid}
