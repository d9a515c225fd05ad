"""The calibration lesson's lecture file in chromium, opened from disk with the network off
and every other request aborted: walked step by step with Page Down (each step's title, text
and plots shown, the others hidden), the lecturer's other keys (Home, End, a number then
Enter, Page Up, the black screen, the end signal), a drag that changes the table, and the
numbers at a step's operating point compared with what the served lesson's state computes."""

from __future__ import annotations

from pathlib import Path

import pytest

from llrlab.dashboard.lessons import builtin_lessons

from .conftest import offline_page, open_offline, scaled, screen_point, settle, wait_until

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def lecture_file(tmp_path_factory):
    from llrlab.dashboard.lecture import lecture_html
    from llrlab.dashboard.report import write_report

    path = tmp_path_factory.mktemp("lecture") / "lecture.html"
    write_report(path, lecture_html(builtin_lessons()["calibration"]))
    return path


@pytest.fixture
def offline(browser, lecture_file):
    """The lecture file opened in a context with the network off; every request but the
    file itself is aborted and recorded."""
    ctx, pg = offline_page(browser, {"width": 1280, "height": 720})
    open_offline(pg, lecture_file)
    pg.wait_for_function("() => window.llrlabLecture && llrlabLecture.current() === 1",
                         timeout=scaled(120) * 1000)
    pg.wait_for_function("() => Bokeh.documents[0].is_idle")
    yield pg
    ctx.close()


@pytest.fixture(scope="module")
def held_lecture_file(tmp_path_factory):
    """The lecture file with the drawing of the steps not shown put off for ten minutes:
    they are drawn only when asked for."""
    from unittest import mock

    from llrlab.dashboard import lecture
    from llrlab.dashboard.report import write_report

    path = tmp_path_factory.mktemp("lecture") / "held.html"
    with mock.patch.object(lecture, "BACKGROUND_MS", 600_000):
        write_report(path, lecture.lecture_html(builtin_lessons()["calibration"]))
    return path


#: Records, in every animation frame, the shown step if one of its figures is not drawn
#: (its root's element still empty): a torn step.
_TORN_JS = """(() => {
  window.__torn = [];
  const tick = () => {
    const s = document.querySelector('.llrlab-step:not([hidden])');
    if (s != null && Array.from(s.querySelectorAll('[data-root-id]'))
                          .some(e => e.children.length === 0)) {
      window.__torn.push(Number(s.dataset.step));
    }
    requestAnimationFrame(tick);
  };
  requestAnimationFrame(tick);
})();"""


def _roots(page):
    """The names of the roots in BokehJS's document (the figures drawn or being drawn)."""
    return page.evaluate("() => Bokeh.documents[0].roots().map(r => r.name)")


def test_steps_drawn_when_needed_and_shown_whole(browser, held_lecture_file, lecture_file):
    """The page opens with the shown step's figures alone in BokehJS's document (drawing
    the hidden steps' figures was about half of the time to open it; a link to a step opens
    with that step's); another step's figures are drawn when the step is asked for, and
    the step is shown only once they are: never its text before its plots, also for key
    presses faster than the drawing.  With the drawing in the background (the lecture
    file as written), every step's figures are drawn soon after the page opens."""
    lesson = builtin_lessons()["calibration"]
    n = len(lesson)
    ctx, pg = offline_page(browser, {"width": 1280, "height": 720})
    try:
        pg.add_init_script(_TORN_JS)
        open_offline(pg, held_lecture_file)
        pg.wait_for_function("() => window.llrlabLecture && llrlabLecture.current() === 1"
                             " && Bokeh.documents[0].is_idle", timeout=scaled(120) * 1000)
        pg.evaluate("window.__torn = []")  # (while the page loads, its text comes first)
        assert {r.split("_")[0] for r in _roots(pg)} == {"s1"}
        assert pg.evaluate("llrlabLazy.held()") == list(range(2, n + 1))
        # four presses at once: steps 2-5 asked for, step 5 shown once its figures are drawn
        pg.evaluate("""() => { for (let i = 0; i < 4; i++) { document.dispatchEvent(
            new KeyboardEvent('keydown', {key: 'PageDown', bubbles: true})); } }""")
        wait_until(pg, lambda: _step(pg) == 5, what="step 5")
        assert _shown(pg) == [5]
        assert pg.inner_text("#llrlab-step-5 .llrlab-text h3") == lesson.step(5).title
        for panel in lesson.step(5).show:
            if panel != "metrics":
                wait_until(pg, lambda p=panel: min(_plot_box(pg, f"s5_{p}")) > 200,
                           what=f"step 5's {panel} plot")
        assert set(pg.evaluate("llrlabLazy.held()")) == set(range(6, n + 1))
        # a step far ahead (End), and back to one drawn already
        _key(pg, "End", lambda: _step(pg) == n)
        _key(pg, "Home", lambda: _step(pg) == 1)
        settle(pg, 0)
        assert pg.evaluate("window.__torn") == []
        assert pg.errors == []
        # a link to a step opens with that step's figures alone
        pg.goto(held_lecture_file.as_uri() + "#step=7")
        pg.reload()
        pg.wait_for_function("() => window.llrlabLecture && llrlabLecture.current() === 7"
                             " && Bokeh.documents[0].is_idle", timeout=scaled(120) * 1000)
        assert {r.split("_")[0] for r in _roots(pg)} == {"s7"}
        assert _shown(pg) == [7]
        # as written: the other steps drawn in the background after the page is painted
        open_offline(pg, lecture_file)
        pg.wait_for_function("() => window.llrlabLecture && llrlabLecture.current() === 1",
                             timeout=scaled(120) * 1000)
        pg.evaluate("window.__torn = []")
        wait_until(pg, lambda: pg.evaluate("llrlabLazy.held()") == [] and len(_roots(pg)) == len(
            [p for s in lesson.steps for p in s.show if p != "metrics"]),
            timeout=60, what="every step's figures drawn")
        assert pg.evaluate("window.__torn") == []
        assert pg.errors == [] and pg.aborted == []
    finally:
        ctx.close()


def _step(page):
    return page.evaluate("llrlabLecture.current()")


def _shown(page):
    """The visible step sections (their numbers)."""
    return page.evaluate("""() => Array.from(document.querySelectorAll('.llrlab-step'))
        .filter(s => s.offsetParent !== null).map(s => Number(s.dataset.step))""")


def _plot_box(page, name):
    """Width and height of the canvas of the figure named ``name`` as drawn (0 when it is not
    on the screen)."""
    return page.evaluate("""(name) => {
        const m = Bokeh.documents[0].get_model_by_name(name);
        const v = m == null ? null : Bokeh.index.find_one(m);
        if (v == null || v.el.offsetParent === null) { return [0, 0]; }
        const r = v.canvas_view.el.getBoundingClientRect();
        return [r.width, r.height]; }""", name)


def _op(page, k):
    """The numbers step ``k`` shows, from its data source (full precision, not the text)."""
    return page.evaluate("""(k) => {
        const d = llrlabLecture.models(k).op.data, o = {};
        for (const key in d) { o[key] = Array.from(d[key]); }
        return o; }""", k)


def _key(page, key, then):
    page.keyboard.press(key)
    wait_until(page, then, what=f"the page after {key}")


def test_every_step_with_page_down_offline(offline):
    page = offline
    lesson = builtin_lessons()["calibration"]
    n = len(lesson)
    for k, step in enumerate(lesson.steps, 1):
        if k > 1:
            _key(page, "PageDown", lambda k=k: _step(page) == k)
        assert _shown(page) == [k]
        assert page.inner_text("#llrlab-count") == f"step {k} of {n}"
        section = f"#llrlab-step-{k}"
        assert page.inner_text(f"{section} .llrlab-text h3") == step.title
        words = " ".join(step.text.split()[:3]).replace("*", "")
        assert " ".join(page.inner_text(f"{section} .llrlab-text").split()).count(
            words.split("$")[0].strip()) >= 1
        for panel in step.show:
            if panel == "metrics":
                assert page.is_visible(f"#s{k}-table")
                continue
            w, h = _plot_box(page, f"s{k}_{panel}")
            assert w > 300 and h > 200, (k, panel, w, h)
        # the other steps' plots are not on the screen
        for j, other in enumerate(lesson.steps, 1):
            if j != k:
                drawn = [p for p in other.show if p != "metrics"]
                assert _plot_box(page, f"s{j}_{drawn[0]}") == [0, 0]
        # the step opens at its own operating point
        op = _op(page, k)
        assert page.inner_text(f"#s{k}-op-header").startswith("P(target) = ")
        assert op["index"][0] >= 0
    # a step forward from the last one: the end signal, the step stays
    page.keyboard.press("PageDown")
    wait_until(page, lambda: page.evaluate(
        "getComputedStyle(document.getElementById('llrlab-end')).opacity") == "1",
        what="the end signal")
    assert _step(page) == n
    # back, first, last, a number, the black screen
    _key(page, "PageUp", lambda: _step(page) == n - 1)
    _key(page, "Home", lambda: _step(page) == 1)
    _key(page, "End", lambda: _step(page) == n)
    page.keyboard.press("3")
    _key(page, "Enter", lambda: _step(page) == 3)
    _key(page, "Shift+Space", lambda: _step(page) == 2)
    _key(page, "Space", lambda: _step(page) == 3)
    _key(page, "b", lambda: page.is_visible("#llrlab-blackout"))
    _key(page, "Escape", lambda: not page.is_visible("#llrlab-blackout"))
    assert page.aborted == [] and page.errors == []
    assert set(page.requests) == {page.url.split("#")[0]}


def test_drag_in_a_step_and_the_served_numbers(offline):
    """Step 2 (histogram and table): its starting numbers equal the served lesson's state at
    that step; a drag on the histogram changes the table, and the new numbers are those of
    ``Analysis.at`` at the new operating point."""
    from llrlab.dashboard.app import demo_specs, load_specs
    from llrlab.dashboard.state import DashboardState, SyncRunner

    page, k = offline, 2
    lesson = builtin_lessons()["calibration"]
    st = DashboardState(runner=SyncRunner())
    load_specs(st, demo_specs())
    st.lesson.open("calibration", k)
    st.restore(lesson.step(k).snapshot())
    assert st.status.error == ""
    roles = [r for r in ("eval", "dev", "true") if r in st.results.datasets]

    _key(page, "PageDown", lambda: _step(page) == k)
    op = _op(page, k)
    assert op["plo"][0] == pytest.approx(st.point.plo, abs=1e-12)
    for j, role in enumerate(roles):
        want = st.op[role]  # what the served lesson's table shows
        assert op["misses"][j] == want.act.misses
        assert op["false_alarms"][j] == want.act.false_alarms
        assert op["p_miss"][j] == float(want.act.p_miss)
        assert op["p_fa"][j] == float(want.act.p_fa)
        assert op["act_dcf"][j] == pytest.approx(want.act_dcf, rel=1e-12)
        assert op["min_dcf"][j] == pytest.approx(want.min_dcf, rel=1e-12)
        assert op["dr30_safe"][j] == want.dr30_safe
    assert page.inner_text(f"#s{k}-v-act_dcf-0") == f"{st.op['eval'].act_dcf:.4f}"

    before = page.inner_text(f"#s{k}-table")
    fig = f"s{k}_histogram"
    sx, sy = screen_point(page, fig, 2.2, 0.3)
    ex, ey = screen_point(page, fig, 6.0, 0.3)
    page.mouse.move(sx, sy)
    page.mouse.down()
    page.mouse.move(ex, ey, steps=8)
    page.mouse.up()
    settle(page, 0)
    wait_until(page, lambda: page.inner_text(f"#s{k}-table") != before,
               what="the table after the drag")
    op = _op(page, k)
    plo = op["plo"][0]
    assert plo == pytest.approx(-6.0, abs=0.05)  # the threshold where it was dropped
    for j, role in enumerate(roles):
        want = st.results.datasets[role].llr.at(plo)
        assert op["misses"][j] == want.act.misses
        assert op["false_alarms"][j] == want.act.false_alarms
        assert op["act_dcf"][j] == pytest.approx(want.act_dcf, rel=1e-12)
    p_miss = float(st.results.datasets["eval"].llr.at(plo).act.p_miss)
    assert page.inner_text(f"#s{k}-v-p_miss-0") == f"{100 * p_miss:.3f}"
    # another step and back: the step opens at its own operating point again
    _key(page, "PageDown", lambda: _step(page) == k + 1)
    _key(page, "PageUp", lambda: _step(page) == k)
    assert _op(page, k)["plo"][0] == pytest.approx(st.point.plo, abs=1e-12)
    assert page.aborted == [] and page.errors == []


def test_the_served_lessons_lecture_file_button(page, serve):
    """The sidebar's "Lecture file" in a served lesson: the file is made off the event loop
    (the lesson steps on meanwhile), then downloaded: the whole lesson, under 10 MB."""
    from .test_lecture_controls_browser import _open, _step

    _, sessions = _open(page, serve, "?lesson=calibration&step=2")
    st = sessions[0].state
    page.locator(".bk-btn", has_text="☰").first.click()
    make = page.locator(".bk-btn", has_text="Lecture file").first
    make.scroll_into_view_if_needed()
    make.click()
    download = page.locator(".bk-btn", has_text="Download the lecture file")
    page.keyboard.press("PageDown")  # the page is not blocked while the file is made
    _step(page, st, 3)
    assert not download.first.is_visible()
    wait_until(page, lambda: download.first.is_visible(), timeout=300,
               what="the lecture file's download button")
    assert "MB)" in download.first.inner_text()
    with page.expect_download(timeout=scaled(60) * 1000) as info:
        download.first.click()
    data = Path(info.value.path()).read_bytes()
    assert len(data) <= 10e6
    assert b'id="llrlab-step-11"' in data and b'id="llrlab-step-12"' not in data
    assert info.value.suggested_filename == "calibration-lecture.html"
