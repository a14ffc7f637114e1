import os
import signal
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

# Test helpers (mcp_spec, wire) import each other as top-level modules.
sys.path.insert(0, str(Path(__file__).resolve().parent))

import leftovers  # found through the path above

_RUN_MARK = pytest.StashKey[str]()
_LEFT_BEHIND = pytest.StashKey[list[str]]()


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "peers(*names): registry packages the test runs (tests/interop/peers.py)"
    )
    config.stash[_RUN_MARK] = leftovers.mark_run()
    # A suite started in the background by a shell without job control (a CI script's `&`)
    # inherits SIGINT ignored, and every server it starts would too: toolwire leaves an
    # ignored signal alone, as nohup asks. The tests send SIGINT as a terminal's Ctrl+C does,
    # to servers that have it at its default; a handled signal is reset to it at exec.
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)


def pytest_collection_finish(session: pytest.Session) -> None:
    """Install the peers the collected tests name, before the first test: no test's timeout
    pays for a download."""
    if session.config.option.collectonly:
        return
    names = {
        name for item in session.items for mark in item.iter_markers("peers") for name in mark.args
    }
    if names:
        # imported here: tests/test_leftovers.py runs this file in a folder without interop/
        from interop import peers

        reporter = session.config.pluginmanager.get_plugin("terminalreporter")
        peers.provision(names, reporter.write_line if reporter else print)


@pytest.hookimpl(trylast=True)  # after the fixtures' teardown (pytest's own sessionfinish)
def pytest_sessionfinish(session: pytest.Session) -> None:
    """No test leaves a process behind: one still alive now fails the run, named."""
    if not sys.platform.startswith("linux"):
        return
    found = leftovers.still_running(os.getpid(), session.config.stash.get(_RUN_MARK, None))
    if found:
        session.config.stash[_LEFT_BEHIND] = found
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_terminal_summary(terminalreporter: Any, config: pytest.Config) -> None:
    found = config.stash.get(_LEFT_BEHIND, [])
    if found:
        terminalreporter.section("processes left behind", red=True)
        terminalreporter.write_line(
            f"{len(found)} process(es) started by the tests were still running at the end of "
            "the session (killed now); each test must stop what it starts:"
        )
        for line in found:
            terminalreporter.write_line(f"  {line}")


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """One headless Chromium per test module (tests/browser.py)."""
    from browser import launch_chromium

    with launch_chromium() as launched:
        yield launched


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    """A fresh context per test; any page error or console error fails the test."""
    from browser import VIEWPORT, WAIT_MS, fresh_page

    with fresh_page(browser, VIEWPORT, WAIT_MS) as opened:
        yield opened


@pytest.fixture(scope="module")
def shared_auth_server() -> Iterator[Any]:
    """The test authorization server (tests/oauth_server.py) of one module."""
    from oauth_server import OAuthServer, serve_oauth

    with serve_oauth(OAuthServer()) as server:
        yield server


@pytest.fixture
def auth_server(shared_auth_server: Any) -> Any:
    """The module's authorization server, with every client, code and token forgotten."""
    shared_auth_server.reset()
    return shared_auth_server
