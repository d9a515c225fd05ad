"""The lecture page on ``llrlab serve`` in chromium (issue 19, items 1 and 8): the lecturer
presents from a page with every step in it (a key press changes the step with no server
round trip), the class follows through its link, the dashboard and the speaker view follow
too, and the time from a key press to the complete new step is measured in the page."""

from __future__ import annotations

import statistics

import pytest

from llrlab.dashboard.app import create_app
from llrlab.dashboard.lecture_routes import routes
from llrlab.dashboard.lessons import builtin_lessons

from .._time_scale import scaled
from .conftest import wait_until

pytestmark = pytest.mark.browser

#: Key press -> the new step shown and painted (two animation frames), in the page.
_KEY_TO_PAINT = """(key) => new Promise((resolve) => {
  const before = llrlabLecture.current(), t0 = performance.now();
  document.dispatchEvent(new KeyboardEvent('keydown', {key: key, bubbles: true}));
  requestAnimationFrame(() => requestAnimationFrame(() => resolve(
      {ms: performance.now() - t0, before: before, after: llrlabLecture.current(),
       shown: [...document.querySelectorAll('.llrlab-step')].filter((s) => !s.hidden)
              .map((s) => +s.dataset.step)})));
})"""


def _ready(page, k):
    wait_until(page, lambda: page.evaluate(
        "() => window.llrlabLecture != null && llrlabLecture.current() > 0"
        " && window.Bokeh != null && Bokeh.documents.length > 0"
        " && Bokeh.documents[0].is_idle"), timeout=120, what="the lecture page")
    wait_until(page, lambda: page.evaluate("llrlabLecture.current()") == k,
               what=f"the lecture page at step {k}")


def _visible(page, on):
    """What a browser does when the page's tab goes behind another (or comes back)."""
    page.evaluate("""(on) => {
        Object.defineProperty(document, 'hidden', {value: !on, configurable: true});
        document.dispatchEvent(new Event('visibilitychange'));
    }""", on)


def _badge(page):
    return page.evaluate("() => document.getElementById('llrlab-follow').textContent")


def test_the_lecture_page_leads_the_class_and_the_dashboard(page, serve, browser):
    lessons = builtin_lessons()
    n = len(lessons["calibration"])
    url, sessions = serve(create_app, extra_patterns=routes(lessons))
    page.set_viewport_size({"width": 1280, "height": 720})
    page.goto(url + "?lesson=calibration&step=2", timeout=120_000)
    wait_until(page, lambda: sessions and sessions[0].state.results is not None
               and not sessions[0].state.status.busy, timeout=120, what="the dashboard")
    st = sessions[0].state
    # the dashboard's "Lecture page" opens the lesson led from this page's channel
    with page.context.expect_page() as info:
        page.locator(".bk-btn", has_text="Lecture page").click()
    lead = info.value
    lead.set_viewport_size({"width": 1280, "height": 720})
    errors = []
    lead.on("pageerror", lambda e: errors.append(str(e)))
    _ready(lead, 2)  # where the dashboard was
    wait_until(lead, lambda: _badge(lead) == "Leading the lecture", what="the lead badge")
    assert "/lecture/calibration?channel=" in lead.url
    # the class link, as the lecture page offers it
    lead.once("dialog", lambda d: (links.append(d.default_value), d.dismiss()))
    links = []
    lead.click("#llrlab-class")
    wait_until(lead, lambda: links, what="the class link")
    student_context = browser.new_context(viewport={"width": 1280, "height": 720})
    try:
        student = student_context.new_page()
        student.on("pageerror", lambda e: errors.append(str(e)))
        student.goto(links[0], timeout=120_000)
        _ready(student, 2)
        wait_until(student, lambda: _badge(student) == "Following the lecturer",
                   what="the follow badge")
        # the lecturer steps: the page changes at once, the class follows; the dashboard's
        # tab is behind the lecture page (as in a real browser): it does no work while
        # nobody sees it, and catches up when it is seen again
        _visible(page, False)
        wait_until(page, lambda: sessions[0].page_control.hidden, what="the hidden tab")
        times = []
        for key, k in (("PageDown", 3), ("PageDown", 4), ("ArrowRight", 5), ("PageUp", 4),
                       ("End", n), ("Home", 1), ("PageDown", 2), ("PageDown", 3)):
            r = lead.evaluate(_KEY_TO_PAINT, key)
            assert r["after"] == k and r["shown"] == [k], (key, r)
            times.append(r["ms"])
            wait_until(student, lambda k=k: student.evaluate("llrlabLecture.current()") == k,
                       timeout=5, what=f"the class at step {k}")
        print(f"lecture page: key -> painted step, ms: median {statistics.median(times):.0f}"
              f", max {max(times):.0f} ({len(times)} presses)")
        assert statistics.median(times) < scaled(0.3) * 1000
        assert st.lesson.step == 2
        _visible(page, True)
        wait_until(page, lambda: st.lesson.step == 3, what="the dashboard catching up")
        lead.keyboard.press("PageDown")
        wait_until(page, lambda: st.lesson.step == 4, what="the dashboard following")
        # the black screen reaches the class; the dashboard's own moves reach both pages
        lead.keyboard.press("b")
        wait_until(student, lambda: student.evaluate(
            "document.getElementById('llrlab-blackout').style.display") == "block",
            timeout=5, what="the class's black screen")
        lead.keyboard.press("b")
        wait_until(student, lambda: student.evaluate(
            "document.getElementById('llrlab-blackout').style.display") == "none",
            timeout=5, what="the class's screen back")
        # the analyst moves the dashboard, as a user does (keys in its page; a change of the
        # server's state from the test's thread would be made without the document's lock)
        for k in (5, 6):
            page.keyboard.press("PageDown")
            wait_until(page, lambda k=k: st.lesson.step == k, what=f"the dashboard at {k}")
        for p in (lead, student):
            wait_until(p, lambda p=p: p.evaluate("llrlabLecture.current()") == 6, timeout=10,
                       what="the pages following the dashboard")
        # a student may look elsewhere; the next move of the lecturer brings them back
        student.keyboard.press("Home")
        assert student.evaluate("llrlabLecture.current()") == 1
        lead.keyboard.press("PageDown")
        wait_until(student, lambda: student.evaluate("llrlabLecture.current()") == 7,
                   timeout=5, what="the class back with the lecturer")
        # a student's link cannot move the lecture (its moves stay in its own page)
        wait_until(page, lambda: st.lesson.step == 7, what="the dashboard at 7")
        student.keyboard.press("End")
        student.wait_for_timeout(500)
        assert lead.evaluate("llrlabLecture.current()") == 7 and st.lesson.step == 7
    finally:
        student_context.close()
    assert errors == []
