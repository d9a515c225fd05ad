"""Browser tests: Debian chromium driven by Playwright against a dashboard served in a thread.

Every request that is not to localhost / 127.0.0.1 is aborted (and recorded), so a page that
tries to fetch an external resource fails loudly instead of hanging.  Chromium is launched
with the flags in FLAGS (no sandbox as root, no background networking).  Without chromium the tests
are skipped, unless the environment variable CI is "true" (then they fail).

Time limits (``tests/_time_scale.py``): every limit here is written for an idle machine
(:data:`WAIT`, :data:`PAGE_LOAD`, :data:`SERVER_START`, in seconds) and multiplied by the
time scale (``LLRLAB_TEST_TIME_SCALE``, automatic from the load by default): Playwright's
default timeouts of every page (:func:`new_context`), :func:`wait_until`, a server's start
(:func:`wait_for_port`), :func:`stop_process_group`.  A test waits for a condition that says
the page has caught up (:func:`wait_until`, :func:`quiet`, :func:`settle`), not for a fixed
time; :func:`grace` is the one scaled pause, for something that must *not* happen.
"""

from __future__ import annotations

import importlib
import os
import re
import selectors
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import urlparse

import pytest

from .._time_scale import scaled, scaled_ms, time_scale

ROOT = Path(__file__).resolve().parents[2]
#: The installed console script, as users run it.
LLRLAB = Path(sys.executable).parent / "llrlab"
ARTIFACTS = ROOT / "test-artifacts"
BENCH = ROOT / "bench"

#: Time limits on an idle machine, in seconds (each use multiplies them by the time scale):
#: a wait for a condition in the page or on the server, and Playwright's default for every
#: action;
WAIT = 30.0
#: a page's navigation and its first complete render (the server makes the session, the
#: browser runs BokehJS: 60-75 s were seen on a loaded 2-core machine);
PAGE_LOAD = 120.0
#: a server process's start (imports and the demo's analyses);
SERVER_START = 120.0
#: how long the websocket must be silent for :func:`quiet` (longer than the dashboard's
#: debounces: 120 ms in the page, 250-350 ms on the server).
QUIET = 1.0


def bench_module(name):
    """The benchmark module ``bench/<name>.py`` (imported once, under its own name, as the
    benchmark scripts import each other): the tests drive the served dashboard with the
    benchmarks' tools, so that both measure the same thing."""
    if str(BENCH) not in sys.path:
        sys.path.append(str(BENCH))
    return importlib.import_module(name)


_served = bench_module("_served")
#: The browser (Debian's chromium) and its flags and the free-port finder: those of the
#: benchmarks (``bench/_served.py``).
CHROMIUM, FLAGS = _served.CHROMIUM, _served.FLAGS
free_port = _served.free_port


def stop_process_group(proc, timeout=20.0):
    """``bench/_served.py``'s stop of a server's process group (SIGTERM, then SIGKILL after
    ``timeout`` seconds on an idle machine, scaled)."""
    _served.stop_process_group(proc, timeout=scaled(timeout))


def wait_for_port(port, proc=None, timeout=SERVER_START):
    """Wait until a server (the process ``proc``, if given) listens on ``port``; fails with
    the end of the server's output when it exits first."""
    try:
        _served.wait_for_port(port, scaled(timeout), proc)
    except RuntimeError as exc:
        out = ""
        if proc is not None and proc.poll() is not None and proc.stdout is not None:
            out = ": " + proc.stdout.read()[-2000:]
        raise AssertionError(f"{exc}{_scale_hint()}{out}") from None


class ServeProcess:
    """``llrlab serve --no-show --port P *args`` in a process group of its own, as users run
    it; :meth:`wait_line` reads its output, :attr:`link_line` is the line with its link."""

    def __init__(self, *args, env=None):
        self.port = free_port()
        self.proc = subprocess.Popen(
            [str(LLRLAB), "serve", "--no-show", "--port", str(self.port), *args],
            env=dict(os.environ, PYTHONUNBUFFERED="1", **(env or {})),
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
        self.lines = []
        self._sel = selectors.DefaultSelector()
        self._sel.register(self.proc.stdout, selectors.EVENT_READ)
        self.link_line = None

    def wait_line(self, text, timeout):
        """The first line of output holding ``text``, within ``timeout`` seconds on an idle
        machine (scaled); fails with the end of the server's errors if it exits first."""
        deadline = time.monotonic() + scaled(timeout)
        while time.monotonic() < deadline:
            for line in self.lines:
                if text in line:
                    return line
            if self._sel.select(timeout=0.5):
                self.lines.append(self.proc.stdout.readline())
            if self.proc.poll() is not None:
                raise AssertionError(f"the server exited: {self.proc.stderr.read()[-2000:]}")
        raise AssertionError(f"the server never printed {text!r}{_scale_hint()}: {self.lines}")

    def stop(self):
        stop_process_group(self.proc)


@pytest.fixture
def llrlab_serve():
    """``start(*args, env=None) -> ServeProcess`` once the server printed its link; every
    server started is stopped after the test."""
    started = []

    def start(*args, env=None):
        s = ServeProcess(*args, env=env)
        started.append(s)
        s.link_line = s.wait_line("the dashboard is at", SERVER_START)
        return s

    yield start
    for s in started:
        s.stop()


def run_apart(coroutine_function):
    """Run a coroutine to its end on an event loop of its own, in another thread: once a
    test of the session has used the Playwright browser (a session fixture), its event loop
    runs in this thread, and ``asyncio.run`` here would fail."""
    import asyncio
    import threading

    out = []

    def run():
        try:
            asyncio.run(coroutine_function())
        except BaseException as exc:  # re-raised in the test's thread
            out.append(exc)

    t = threading.Thread(target=run)
    t.start()
    t.join()
    if out:
        raise out[0]


def _scale_hint():
    factor, how = time_scale()
    return (f" (time limits x{factor:.3g}, {how}: on a slower machine set "
            "LLRLAB_TEST_TIME_SCALE, see README)")


# ------------------------------------------------------------------ browser and pages


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


def track_websockets(page):
    """Record in ``page.last_frame`` the time of the page's last websocket frame (sent or
    received), for :func:`quiet`."""
    page.last_frame = time.monotonic()

    def on_ws(ws):
        def frame(_payload):
            page.last_frame = time.monotonic()

        ws.on("framesent", frame)
        ws.on("framereceived", frame)

    page.on("websocket", on_ws)


def new_context(browser, **options):
    """``browser.new_context(**options)`` whose pages have the scaled default timeouts
    (:data:`WAIT` for actions, :data:`PAGE_LOAD` for navigations) and their websocket frames
    tracked (:func:`quiet`)."""
    ctx = browser.new_context(**options)
    ctx.set_default_timeout(scaled_ms(WAIT))
    ctx.set_default_navigation_timeout(scaled_ms(PAGE_LOAD))
    ctx.on("page", track_websockets)
    return ctx


@pytest.fixture
def page(browser):
    ctx = new_context(browser, viewport={"width": 1500, "height": 1300})
    pg = ctx.new_page()
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
        wait_for_port(port)
        return f"http://127.0.0.1:{port}/", sessions

    yield start  # the autouse fixture below stops the servers


@pytest.fixture(autouse=True)
def _reset_panel():
    yield
    import panel as pn

    pn.state.kill_all_servers()
    pn.state.reset()


# ------------------------------------------------------------------ waiting for the page


def wait_until(page, condition, timeout=WAIT, what="condition"):
    """Poll ``condition()`` while letting the page run (``page`` None: a wait on a server
    alone); fail with ``what`` after ``timeout`` seconds on an idle machine (scaled)."""
    limit = scaled(timeout)
    deadline = time.monotonic() + limit
    while True:
        try:
            if condition():
                return
        except Exception:  # e.g. a model not rendered yet
            pass
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {limit:.0f} s waiting for {what}"
                                 f"{_scale_hint()}")
        if page is None:
            time.sleep(0.05)
        else:
            page.wait_for_timeout(50)


def quiet(page, seconds=QUIET, timeout=WAIT):
    """Wait until no websocket frame has gone either way for ``seconds`` (scaled): the server
    has sent what the page's last actions cause, and the page what its debounced widgets
    report.  A page without websocket (a report from disk) waits ``seconds``."""
    silence, limit = scaled(seconds), scaled(timeout)
    deadline = time.monotonic() + limit
    if not hasattr(page, "last_frame"):  # a page not made by new_context: from now on
        page.last_frame = time.monotonic()
    while True:
        now = time.monotonic()
        if now - page.last_frame >= silence:
            return
        if now > deadline:
            raise AssertionError(f"the page's websocket was not silent for {silence:.1f} s "
                                 f"within {limit:.0f} s{_scale_hint()}")
        page.wait_for_timeout(50)


_FRAMES = """() => new Promise(done => requestAnimationFrame(
    () => requestAnimationFrame(() => done(true))))"""


def settle(page, seconds=QUIET, timeout=WAIT):
    """:func:`quiet`, then two animation frames: what arrived is drawn (for a screenshot, a
    measurement of the layout, a check that nothing else happens)."""
    quiet(page, seconds, timeout)
    page.evaluate(_FRAMES)


def grace(page, seconds):
    """A pause of ``seconds`` (scaled) for something that must *not* happen and gives no sign
    of its absence (a script that would run, an image that would fail to load)."""
    page.wait_for_timeout(scaled_ms(seconds))


def offline_page(browser, viewport):
    """``(context, page)``: a page in a new context with the network off, recording its
    requests (``page.requests``), console errors and page errors (``page.errors``) and the
    requests :func:`open_offline` aborts (``page.aborted``)."""
    ctx = new_context(browser, viewport=viewport, offline=True)
    pg = ctx.new_page()
    pg.requests, pg.aborted, pg.errors = [], [], []
    pg.on("request", lambda r: pg.requests.append(r.url))
    pg.on("console", lambda m: pg.errors.append(m.text) if m.type == "error" else None)
    pg.on("pageerror", lambda e: pg.errors.append(str(e)))
    return ctx, pg


def open_offline(page, path):
    """Open the file ``path`` in ``page`` (of a context with ``offline=True``), aborting
    every other request and recording it in ``page.aborted``; returns the file's URL."""
    url = path.as_uri()
    page.aborted = getattr(page, "aborted", [])

    def route(r):
        if r.request.url == url:
            r.continue_()
        else:
            page.aborted.append(r.request.url)
            r.abort()

    page.route("**/*", route)
    page.goto(url)
    return url


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


def drag_settled(page, fig):
    """Wait out a held button's press (Bokeh: 300 ms still) and the in-page drag's pause on
    plot ``fig``, until the page has sent its position and the server's answer has landed."""
    page.wait_for_timeout(700)
    page.wait_for_function(f"() => Bokeh.documents[0].get_model_by_name('{fig}_drag')"
                           "._llrlab_timer == null", polling=20)
    quiet(page)


def mouse_drag(page, x, y, dx, dy, step=10):
    """Press at viewport point (x, y), move by (dx, dy) in ``step``-pixel moves (two mouse
    events each, as a hand gives), release."""
    page.mouse.move(x, y)
    page.mouse.down()
    n = max(abs(dx), abs(dy)) // step
    for i in range(n + 1):
        page.mouse.move(x + dx * i / max(n, 1), y + dy * i / max(n, 1), steps=2)
    page.mouse.up()


def screen_point(page, fig, x, y):
    """Viewport coordinates of the data point (x, y) of figure ``fig`` (scrolled into view)."""
    return page.evaluate("""([name, x, y]) => {
        const v = Bokeh.index.find_one(Bokeh.documents[0].get_model_by_name(name));
        v.el.scrollIntoView({block: "center"});
        const r = v.canvas_view.el.getBoundingClientRect();
        return [r.x + v.frame.x_scale.compute(x), r.y + v.frame.y_scale.compute(y)]; }""",
                         [fig, x, y])


#: BokehJS takes a second tap on a tool button within 300 ms for a double tap, which the
#: Save tool ignores (``UIGestures.doubletap_threshold``): a user's two saves are further apart.
_DOUBLE_TAP = 0.3


def save_through_toolbar(page, figure, path):
    """Press the Save tool of the figure named ``figure`` as a user does; the download goes
    to ``path``.  Returns ``(suggested file name, its bytes)``.  A second press of the same
    button waits until it cannot count as a double tap."""
    last = getattr(page, "_save_taps", {})
    page._save_taps = last
    since = time.monotonic() - last.get(figure, -1e9)
    if since < _DOUBLE_TAP + 0.1:
        page.wait_for_timeout((_DOUBLE_TAP + 0.1 - since) * 1000)
    button = page.evaluate_handle("""(name) => {
        const m = Bokeh.documents[0].get_model_by_name(name);
        return Bokeh.index.find_one(m.toolbar).el.shadowRoot.querySelector('[title="Save"]');
    }""", figure).as_element()
    with page.expect_download() as info:
        button.click()
        last[figure] = time.monotonic()
    info.value.save_as(path)
    return info.value.suggested_filename, Path(path).read_bytes()


def assert_svg_drawing(data):
    """``data`` is an SVG document holding a drawing (not PNG bytes, not an empty shell)."""
    import xml.etree.ElementTree as ET

    assert not data.startswith(b"\x89PNG"), "PNG data saved as .svg"
    text = data.decode("utf-8")
    assert text.lstrip().startswith("<svg") and text.rstrip().endswith("</svg>")
    root = ET.fromstring(text)
    assert root.tag.endswith("svg") and len(list(root.iter())) > 50  # a drawing, not a shell
