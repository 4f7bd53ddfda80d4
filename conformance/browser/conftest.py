"""Fixtures of the browser conformance tests (see browser_support.py): one headless Chromium and one page server
for the session, a fresh page per test, and a hearth of each module's own whose rules allow everything.

Without chromium, chromedriver, selenium or the SDK bundles, every test here is reported SKIPPED with the reason.
The chat scenario runs against the `suite` fixture (under `hearth exec`, the repo's emulator.json and the chat
app's rules); the other modules start a hearth with open rules, stopped by PID when the module ends.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from browser_support import Browser, Endpoints, PageServer, jssdk_folder, missing_requirements, start_open_hearth

HERE = Path(__file__).resolve().parent


def pytest_collection_modifyitems(config, items):
    mine = [item for item in items if HERE in Path(str(item.path)).resolve().parents]
    if not mine:
        return
    # The Emulator UI's tests (test_browser_ui.py) drive Hearth's own pages: they need no SDK bundles.
    for bundles in (True, False):
        missing = missing_requirements(bundles=bundles)
        if not missing:
            continue
        skip = pytest.mark.skip(reason="browser tests need: " + "; ".join(missing))
        for item in mine:
            if (Path(str(item.path)).name != "test_browser_ui.py") == bundles:
                item.add_marker(skip)


@pytest.fixture(scope="session")
def browser():
    """One headless Chromium for every browser test, quit at the end of the session (the page server serves
    the SDK bundles when they are there)."""
    server = PageServer(jssdk_folder())
    try:
        running = Browser(server)
        try:
            yield running
        finally:
            running.quit()
    finally:
        server.stop()


@pytest.fixture(scope="module")
def open_hearth(tmp_path_factory, request):
    """A hearth of this module's own, on free ports, with rules that allow everything; it must still run at the
    end, and is then stopped by PID."""
    folder = tmp_path_factory.mktemp("browser-hearth")
    project = "demo-browser-" + Path(str(request.path)).stem.removeprefix("test_browser_")
    process, endpoints = start_open_hearth(folder, project)
    try:
        yield endpoints
        assert process.process.poll() is None, "hearth exited during the module:\n" + process.output()
    finally:
        process.stop()


@pytest.fixture(scope="module")
def endpoints(open_hearth) -> Endpoints:
    """Where the pages' apps connect: the module's open hearth unless the module overrides this fixture."""
    return open_hearth


@pytest.fixture
def page(browser, endpoints):
    """A fresh page configured for `endpoints`. After the test, the page's apps are deleted, and the test
    fails if any of its tabs logged a SEVERE console entry it did not expect."""
    opened = browser.open(endpoints)
    yield opened
    problems = opened.finish()
    assert not problems, "unexpected SEVERE console entries:\n" + "\n".join(problems)
