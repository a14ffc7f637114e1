"""The registry peers (tests/interop/peers.py): installed before the tests, never inside one."""

from __future__ import annotations

import pytest

from interop import peers


def test_a_peer_nobody_named_fails_at_once_naming_the_mark() -> None:
    check = "print('never run')"
    with pytest.raises(pytest.fail.Exception, match=r"pytest\.mark\.peers\('not-a-peer'\)"):
        peers.pip_venv("not-a-peer", {"no-such-package": "0.0.0"}, check)
    assert not (peers.VENV / "not-a-peer").exists()  # nothing was installed


def test_an_unknown_name_in_the_mark_is_a_usage_error() -> None:
    with pytest.raises(pytest.UsageError, match="not-a-peer"):
        peers.provision(["not-a-peer"], print)


def test_a_failed_install_is_reported_by_the_test_that_needs_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(peers._failed, "not-a-peer", "no network")
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception, match="no network"):
        peers.pip_venv("not-a-peer", {"no-such-package": "0.0.0"}, "print()")
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="no network"):
        peers.pip_venv("not-a-peer", {"no-such-package": "0.0.0"}, "print()")
