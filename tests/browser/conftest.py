"""Browser tests: Debian chromium driven by Playwright against a dashboard served in a thread.

Every request that is not to localhost / 127.0.0.1 is aborted (and recorded), so a page that
tries to fetch an external resource fails loudly instead of hanging.  Chromium is launched
with the flags in FLAGS (no sandbox as root, no background networking).  Without chromium the tests
are skipped, unless the environment variable CI is "true" (then they fail).
"""

from __future__ import annotations

import importlib
import os
import re
import socket
import sys
import time
from pathlib import Path
from urllib.parse import urlparse

import pytest

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts"
BENCH = ROOT / "bench"


def bench_module(name):
    """The benchmark module ``bench/<name>.py`` (imported once, under its own name, as the
    benchmark scripts import each other): the tests drive the served dashboard with the
    benchmarks' tools, so that both measure the same thing."""
    if str(BENCH) not in sys.path:
        sys.path.append(str(BENCH))
    return importlib.import_module(name)


_served = bench_module("_served")
#: The browser (Debian's chromium) and its flags, the free-port finder and the process-group
#: stop: those of the benchmarks (``bench/_served.py``).
CHROMIUM, FLAGS = _served.CHROMIUM, _served.FLAGS
free_port, stop_process_group = _served.free_port, _served.stop_process_group


@pytest.fixture(scope="session")
def browser():
    if not os.path.exists(CHROMIUM):
        msg = f"chromium not found at {CHROMIUM}"
        if os.environ.get("CI") == "true":
            pytest.fail(msg)
        pytest.skip(msg)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=FLAGS)
        yield b
        b.close()


@pytest.fixture
def page(browser):
    ctx = browser.new_context(viewport={"width": 1500, "height": 1300})
    pg = ctx.new_page()
    pg.set_default_timeout(20_000)
    pg.external_requests = []
    pg.console_errors = []

    def route(r):
        host = urlparse(r.request.url).hostname
        if host in ("localhost", "127.0.0.1"):
            r.continue_()
        else:
            pg.external_requests.append(r.request.url)
            r.abort()

    pg.route("**/*", route)
    pg.on("console", lambda m: pg.console_errors.append(m.text) if m.type == "error" else None)
    pg.on("pageerror", lambda e: pg.console_errors.append(str(e)))
    yield pg
    ctx.close()


@pytest.fixture
def serve():
    """``serve(factory, keep=True, **server_options) -> (url, sessions)``: serve ``factory``
    on a free localhost port; ``sessions`` collects the page object of every browser session
    (unless ``keep`` is False: a test of session clean-up must not hold them)."""
    import panel as pn

    def start(factory, keep=True, **options):
        sessions = []

        def app():
            page = factory()
            if keep:
                sessions.append(page)
            return page

        port = free_port()
        pn.serve(app, port=port, address="127.0.0.1", threaded=True, show=False,
                 websocket_max_message_size=64_000_000, **options)
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", port)) == 0:
                    break
            time.sleep(0.05)
        return f"http://127.0.0.1:{port}/", sessions

    yield start  # the autouse fixture below stops the servers


@pytest.fixture(autouse=True)
def _reset_panel():
    yield
    import panel as pn

    pn.state.kill_all_servers()
    pn.state.reset()


def wait_until(page, condition, timeout=20.0, what="condition"):
    """Poll ``condition()`` while letting the page run; fail with ``what`` on timeout."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if condition():
                return
        except Exception:  # e.g. a model not rendered yet
            pass
        page.wait_for_timeout(50)
    raise AssertionError(f"timed out waiting for {what}")


def screenshot(page, name):
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)


# ------------------------------------------------------------------ reading the page's models


def model_value(page, name, attr):
    """The attribute ``attr`` of the page's Bokeh model named ``name``: a path such as
    ``"title.text"`` or ``"below[0].axis_label"`` (None when a step of it is missing)."""
    path = [int(k) if k.isdigit() else k for k in re.findall(r"[^.\[\]]+", attr)]
    return page.evaluate("""([name, path]) => {
        let v = Bokeh.documents[0].get_model_by_name(name);
        for (const k of path) { if (v == null) { return null; } v = v[k]; }
        return v === undefined ? null : v; }""", [name, path])


def source_data(page, name):
    """The columns of the page's ColumnDataSource named ``name``, as lists."""
    return page.evaluate("""(name) => {
        const d = Bokeh.documents[0].get_model_by_name(name).data, o = {};
        for (const k in d) { o[k] = Array.from(d[k]); }
        return o; }""", name)


def screen_point(page, fig, x, y):
    """Viewport coordinates of the data point (x, y) of figure ``fig`` (scrolled into view)."""
    return page.evaluate("""([name, x, y]) => {
        const v = Bokeh.index.find_one(Bokeh.documents[0].get_model_by_name(name));
        v.el.scrollIntoView({block: "center"});
        const r = v.canvas_view.el.getBoundingClientRect();
        return [r.x + v.frame.x_scale.compute(x), r.y + v.frame.y_scale.compute(y)]; }""",
                         [fig, x, y])
