"""Lesson steps on the dashboard's stage, in chromium (issue 19, item 1).

Every step of the built-in lesson arrives complete in one update: the page records, in the
order the document changes, when the step's text first matched and when its plots, panels,
highlights and table first did (``bench/_lesson_page.py``); both happen in the same
animation frame, so no frame shows the new text with the old plots.  The steps are timed
from the key press to the complete step, and the page has the BokehJS fixes of
``llrlab.dashboard.bokehjs_fixes`` installed (without them a step took 0.6-1.1 s of the
browser's main thread).  ``bench/bench_lesson.py`` measures the same on a quiet and a loaded
machine against the targets.
"""

from __future__ import annotations

import statistics

import pytest

from llrlab.dashboard import app as app_module
from llrlab.dashboard.app import create_app
from llrlab.dashboard.state.shared import SharedResults

from .._time_scale import scaled
from .conftest import bench_module, wait_until

pytestmark = pytest.mark.browser

_lesson_page = bench_module("_lesson_page")


@pytest.fixture(scope="module")
def expected():
    """What each step of the built-in lesson must show (computed without a browser)."""
    return _lesson_page.expected_steps("calibration")


@pytest.fixture
def fresh(monkeypatch):
    """A shared results cache of the test's own."""
    shared = SharedResults()
    monkeypatch.setattr(app_module, "SHARED", shared)
    return shared


def _probe(page, url, expected, index, timeout=120):
    """Open ``url`` instrumented, and wait until step ``index`` (0-based) is complete."""
    page.add_init_script(_lesson_page.PROBE_INIT)
    page.set_viewport_size({"width": 1280, "height": 720})
    page.goto(url, timeout=1000 * scaled(timeout))
    wait_until(page, lambda: page.evaluate(_lesson_page.WATCH, expected), timeout=timeout,
               what="the lesson's page")
    _expect(page, index, timeout)


def _expect(page, index, timeout=60):
    page.evaluate(f"() => __probe.expectStep({index})")
    try:
        wait_until(page, lambda: page.evaluate(
            f"() => !!(__probe.done[{index}] && __probe.done[{index}].all)"),
            timeout=timeout, what=f"step {index + 1} complete")
    except AssertionError as exc:  # say what differed
        why = page.evaluate(f"() => {{ __probe.check(); return __probe.done[{index}]; }}")
        raise AssertionError(f"{exc}; the page: {why}") from None
    return page.evaluate(f"() => __probe.done[{index}]")


def _step(page, key, index, timeout=60):
    """Press ``key``, wait for step ``index`` complete: ``(its record, ms from the key)``."""
    nk = page.evaluate("() => __probe.keys.length")
    page.evaluate(f"() => {{ delete __probe.done[{index}]; __probe.expectStep({index}); }}")
    page.keyboard.press(key)
    done = _expect(page, index, timeout)
    pressed = page.evaluate(f"() => __probe.keys[{nk}][0]")
    return done, done["all"] - pressed


def test_each_step_arrives_complete_in_one_update(page, serve, expected, fresh):
    url, sessions = serve(create_app)
    _probe(page, url + "?lesson=calibration&step=1", expected, 0)
    assert page.evaluate("() => Bokeh.__llrlab_fixes") == ["css", "font", "layout", "hidden"]
    page.wait_for_timeout(1000)
    times = []
    for i in range(1, len(expected)):
        done, ms = _step(page, "PageDown", i)
        times.append(ms)
        # the text and the plots of the step changed in the same animation frame
        assert done["text_frame"] == done["plots_frame"], (i + 1, done)
        assert done["text"] == done["plots"], (i + 1, done)
    for i in range(len(expected) - 2, -1, -1):
        done, ms = _step(page, "PageUp", i)
        times.append(ms)
        assert done["text_frame"] == done["plots_frame"], (i + 1, done)
    assert sessions[0].state.lesson.step == 1
    print(f"lesson steps: key -> complete step, ms: median {statistics.median(times):.0f}, "
          f"max {max(times):.0f}")
    # (the targets, 300 ms median and 500 ms p90, are the benchmark's; this bound fails
    # where a step is sent in pieces or every change lays the page out again)
    assert statistics.median(times) < scaled(0.5) * 1000, times
    assert page.console_errors == [] and page.external_requests == []


_COUNT_LAYOUTS = r"""() => {
  const L = Bokeh.require('models/layouts/layout_dom').LayoutDOMView;
  const f = L.prototype.compute_layout;
  window.__layouts = 0;
  L.prototype.compute_layout = function (...args) {
    if (!(this.parent instanceof L)) { window.__layouts += 1; }  // (a root's layout)
    return f.apply(this, args);
  };
}"""


def test_a_step_lays_the_page_out_once(page, serve, expected, fresh, monkeypatch):
    """A step is laid out once: the layout its message asks for runs before the plots
    repaint (each plot whose axes or legend changed size used to lay the whole page out
    again), and a hidden plot's repaint lays out nothing (the panels a step does not show
    did, one page layout each), and a plot's new renderers or side panels join the
    message's layout (before: 1-8 page layouts per step, 60-250 ms each)."""
    monkeypatch.setattr(app_module, "PANELS_DELAY", 200)  # (every panel in the page first)
    url, sessions = serve(create_app)
    _probe(page, url + "?lesson=calibration&step=3", expected, 2)
    wait_until(page, lambda: len(sessions[0].main_area.attached) == 5, what="all panels")
    page.evaluate(_COUNT_LAYOUTS)
    # the page settled first: a second without a layout (on a busy machine the panels sent
    # last may still lay out after they are attached, inside the first step's window)
    for _ in range(20):
        page.evaluate("() => { window.__layouts = 0; }")
        page.wait_for_timeout(1000)
        if page.evaluate("() => window.__layouts") == 0:
            break
    else:
        pytest.fail("the page laid itself out in each of 20 seconds without a step")
    counts = []
    for i in (3, 4, 5, 6, 7):  # steps 4-8: one to three plots shown, the others hidden
        page.evaluate("() => { window.__layouts = 0; }")
        _step(page, "PageDown", i)
        page.wait_for_timeout(600)  # (what the step's paint would lay out follows it)
        counts.append(page.evaluate("() => window.__layouts"))
    # (one, or two where a shown plot's legend or axes take their size only when drawn)
    assert statistics.median(counts) == 1 and max(counts) <= 2, counts
    assert page.console_errors == []
