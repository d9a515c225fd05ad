"""Lessons and presenter mode in a real browser at projector sizes.

* The built-in lesson stepped through with the arrow keys at 1280 x 720: at each step the
  session's state is the step's, the page shows the step's text and only its panels, the
  address bar carries the step (a student opening that link sees the same step), and a
  screenshot of every step is saved.
* Presenter mode at 1280 x 720 and 1920 x 1080, one plot and a pair: every shown plot and its
  legend inside the window (bounding boxes of the plot elements and of the legends drawn on
  the canvas).
* Saved views: saved in the sidebar, exported to a file, imported in another session and
  stepped through with the arrow keys.
* ``llrlab serve --lesson FILE`` run as users run it (the console script).
"""

from __future__ import annotations

import json
import math
import subprocess
from urllib.parse import parse_qs, urlparse

import pytest

from llrlab.dashboard.app import create_app
from llrlab.dashboard.lessons import builtin_lessons

from .conftest import (
    PAGE_LOAD,
    free_port,
    grace,
    model_value,
    quiet,
    scaled,
    screenshot,
    settle,
    wait_until,
)
from .test_entry_points import LLRLAB, served  # noqa: F401 (a fixture)
from .test_hostile_browser import _watch_dialogs

pytestmark = pytest.mark.browser

#: The Bokeh models of the panels a lesson or presenter mode can show (figures, or the
#: metrics column).
PLOTS = {"nber": "nber", "det": "det", "histogram": "histogram",
         "calibration": "calibration", "metrics": "metrics", "tippett": "tippett",
         "reliability": "reliability", "ece": "ece"}

_GEOMETRY = """(names) => {
  const out = {plots: {}, legends: {}}; const seen = new Set();
  const walk = (v) => {
    if (!v || seen.has(v)) return; seen.add(v);
    const m = v.model;
    if (m && names.includes(m.name) && v.el && !(m.name in out.plots)) {
      const r = v.el.getBoundingClientRect();
      out.plots[m.name] = {x: r.x, y: r.y, w: r.width, h: r.height};
    }
    if (m && m.type === 'Legend' && v.parent && v.parent.model
        && names.includes(v.parent.model.name) && m.visible && m.items.length) {
      const b = v.bbox, p = v.parent.bbox;
      out.legends[v.parent.model.name] = {x: b.x, y: b.y, w: b.width, h: b.height,
                                          pw: p.width, ph: p.height};
    }
    if (v.child_views) for (const c of v.child_views) walk(c);
    if (v.renderer_views) for (const c of v.renderer_views.values()) walk(c);
  };
  for (const v of Object.values(Bokeh.index)) walk(v);
  out.scroll = [document.documentElement.scrollWidth, document.documentElement.scrollHeight];
  return out;
}"""


def _open(page, serve, query, *, size=(1280, 720)):
    url, sessions = serve(create_app)
    page.set_viewport_size({"width": size[0], "height": size[1]})
    page.goto(url + query)
    wait_until(page, lambda: sessions and sessions[0].state.results is not None
               and not sessions[0].state.status.busy, timeout=PAGE_LOAD, what="the demo data")
    wait_until(page, lambda: page.locator(".bk-Canvas").count() >= 1, timeout=PAGE_LOAD,
               what="a plot")
    return url, sessions


def _new_page(page, size=(1280, 720)):
    """Another tab of the same browser, its console errors and external requests recorded
    (as the conftest's ``page``; its context gives it the scaled time limits)."""
    other = page.context.new_page()
    other.set_viewport_size({"width": size[0], "height": size[1]})
    other.console_errors, other.external_requests = [], []
    other.on("console", lambda m: other.console_errors.append(m.text)
             if m.type == "error" else None)
    other.on("pageerror", lambda e: other.console_errors.append(str(e)))
    return other




def _shown(page):
    return {p for p in PLOTS if model_value(page, f"panel_{p}", "visible")}


def _assert_unclipped(page, panels, size):
    """Every shown panel inside the window, every legend inside its plot's canvas, and the
    page without scroll bars."""
    width, height = size
    geo = page.evaluate(_GEOMETRY, [PLOTS[p] for p in panels])
    assert set(geo["plots"]) == {PLOTS[p] for p in panels}, geo
    for name, r in geo["plots"].items():
        assert r["w"] > 200 and r["h"] > 200, (name, r)
        assert r["x"] >= -1 and r["y"] >= -1, (name, r)
        assert r["x"] + r["w"] <= width + 1 and r["y"] + r["h"] <= height + 1, (name, r)
    for name, b in geo["legends"].items():
        assert b["x"] >= 0 and b["y"] >= 0, (name, b)
        assert b["x"] + b["w"] <= b["pw"] + 1 and b["y"] + b["h"] <= b["ph"] + 1, (name, b)
    assert {"nber", "det"} & set(panels) <= set(geo["legends"]) | {"metrics"} - set(panels)
    assert geo["scroll"][0] <= width + 1 and geo["scroll"][1] <= height + 1, geo["scroll"]
    return geo


_DEEP_TEXT = """(el) => {
  const walk = (n) => {
    let out = '';
    if (n.shadowRoot) out += walk(n.shadowRoot);
    for (const c of n.childNodes) {
      if (c.nodeType === Node.TEXT_NODE) out += c.textContent;
      else if (c.nodeType === Node.ELEMENT_NODE && c.tagName !== 'STYLE') out += ' ' + walk(c);
    }
    return out;
  };
  return walk(el);
}"""


def _lesson_text(page):
    """The shown step's text as the page shows it (through the shadow roots)."""
    box = page.locator(".llrlab-lesson-text")
    if not box.count():
        return ""
    return " ".join(box.first.evaluate(_DEEP_TEXT).split())


def _settled(page, panels, size, what):
    """Wait until the shown panels are laid out unclipped (the browser lays out again after
    each size the server sends), then check once more and return the geometry."""

    def ok():
        try:
            _assert_unclipped(page, panels, size)
        except AssertionError:
            return False
        return True

    wait_until(page, ok, what=what)
    return _assert_unclipped(page, panels, size)


def _query(page):
    return {k: v[0] for k, v in parse_qs(urlparse(page.url).query).items()}


def _wait_step(page, state, lesson, k):
    step = lesson.step(k)
    wait_until(page, lambda: state.lesson.step == k and not state.status.busy,
               what=f"step {k} on the server")
    wait_until(page, lambda: step.title in _lesson_text(page)
               and f"step {k} of {len(lesson)}" in _lesson_text(page),
               what=f"the text of step {k}")
    wait_until(page, lambda: _shown(page) == set(step.show), what=f"the panels of step {k}")
    wait_until(page, lambda: _query(page).get("step") == str(k), what="the step in the link")


def _assert_step_state(state, step):
    """The session's choices are those the step sets (on top of the defaults)."""
    snap = state.snapshot()
    for part, values in step.snapshot().items():
        for key, value in values.items():
            got = snap[part][key]
            if isinstance(value, float):
                assert got == pytest.approx(value, rel=1e-12), (part, key)
            else:
                assert got == value, (step.title, part, key, got, value)


@pytest.mark.parametrize("lesson_id", ["calibration", "forensic"])
def test_stepping_through_the_builtin_lesson_with_the_keyboard(page, serve, lesson_id):
    lesson = builtin_lessons()[lesson_id]
    url, sessions = _open(page, serve, f"?lesson={lesson_id}&step=1")
    state = sessions[0].state
    assert state.lesson.lesson == lesson_id
    for k in range(1, len(lesson) + 1):
        _wait_step(page, state, lesson, k)
        step = lesson.step(k)
        _assert_step_state(state, step)
        assert _query(page)["lesson"] == lesson_id
        # the page draws the step's operating point
        if "nber" in step.show:
            wait_until(page, lambda: model_value(page, "op_span", "location") == pytest.approx(
                state.point.plo, abs=1e-9), what=f"the operating point of step {k}")
        # the step's text, escaped Markdown, beside the plots, all of it inside the window
        def text_inside():
            box = page.locator(".llrlab-lesson-text").bounding_box()
            return box["x"] + box["width"] <= 1281 and box["y"] + box["height"] <= 721

        wait_until(page, text_inside, what=f"the text of step {k} inside the window")
        settle(page)
        screenshot(page, f"30_lesson_{lesson_id}_step_{k:02d}")
        _settled(page, step.show, (1280, 720), f"step {k} unclipped")
        page.keyboard.press("ArrowRight")
    quiet(page)  # the last key press has reached the server, and its answer the page
    assert state.lesson.step == len(lesson)  # the last step stays
    page.keyboard.press("ArrowLeft")
    _wait_step(page, state, lesson, len(lesson) - 1)
    _assert_step_state(state, lesson.step(len(lesson) - 1))
    # a student opening the link sees the same step, in the same state
    student = _new_page(page)
    student.goto(url + "?" + urlparse(page.url).query)
    wait_until(student, lambda: len(sessions) > 1 and sessions[1].state.results is not None
               and not sessions[1].state.status.busy, timeout=PAGE_LOAD,
               what="the student's session")
    _wait_step(student, sessions[1].state, lesson, len(lesson) - 1)
    assert sessions[1].state.snapshot() == state.snapshot()
    assert page.console_errors == [] and page.external_requests == []
    assert student.console_errors == []


def test_a_link_to_a_step_opens_that_step(page, serve):
    lesson = builtin_lessons()["calibration"]
    _, (session,) = _open(page, serve, "?lesson=calibration&step=8")
    _wait_step(page, session.state, lesson, 8)
    _assert_step_state(session.state, lesson.step(8))
    assert (session.state.calibration.method, session.state.teaching.scale) == ("affine", 2)
    wait_until(page, lambda: "affine" in _lesson_text(page).lower(), what="the text")
    assert page.console_errors == []


@pytest.mark.parametrize("size", [(1280, 720), (1920, 1080)])
@pytest.mark.parametrize("panels", [["nber", "det"], ["det"], ["histogram", "calibration"]])
def test_presenter_mode_fills_the_screen_without_clipping(page, serve, size, panels):
    query = "?presenter=true&panels=" + json.dumps(panels).replace(" ", "")
    _, (session,) = _open(page, serve, query, size=size)
    st = session.state
    assert st.presenter.enabled and st.display.presentation
    assert st.presenter.shown_panels() == [p for p in PLOTS if p in panels]
    wait_until(page, lambda: _shown(page) == set(panels), what="the chosen panels")
    # the main area was measured and the panels sized to it
    wait_until(page, lambda: session.page_control.main_width > 0, what="the measured page")
    settle(page)
    screenshot(page, f"31_presenter_{'_'.join(panels)}_{size[0]}x{size[1]}")
    # one plot or a pair fills the screen: the panels take most of the window's width (once
    # the sidebar has folded and the browser has sent the main area's final size)
    wait_until(page, lambda: sum(r["w"] for r in page.evaluate(
        _GEOMETRY, [PLOTS[p] for p in panels])["plots"].values()) >= 0.8 * size[0],
        what="the panels filling the width")
    _settled(page, panels, size, "the stage unclipped")
    # large fonts: presentation style's axis labels
    if "nber" in panels:
        assert int(model_value(page, "nber", "below[0].axis_label_text_font_size")[:-2]) >= 16
    assert page.console_errors == [] and page.external_requests == []


def test_saved_views_through_a_file_and_the_arrow_keys(page, serve, tmp_path):
    page.set_viewport_size({"width": 1500, "height": 1100})
    url, sessions = serve(create_app)
    page.goto(url)
    wait_until(page, lambda: sessions and sessions[0].state.results is not None
               and not sessions[0].state.status.busy, timeout=PAGE_LOAD, what="the demo data")
    state = sessions[0].state
    page.locator(".card-header", has_text="Lessons, presenter").first.click()
    name = page.get_by_placeholder("e.g. 'after affine calibration'")
    name.fill("default view")
    name.press("Enter")
    page.get_by_role("button", name="Save view").click()
    wait_until(page, lambda: len(state.presenter.views) == 1, what="the first view")
    # change the operating point in the page (a click on the NBER plot), save again
    plo0 = state.point.plo
    nber = page.locator(".bk-Canvas").first.bounding_box()
    page.mouse.click(nber["x"] + 0.75 * nber["width"], nber["y"] + 0.4 * nber["height"])
    wait_until(page, lambda: abs(state.point.plo - plo0) > 0.5, what="the click")
    plo1 = state.point.plo
    name.fill("moved <b>point</b>")
    name.press("Enter")
    page.get_by_role("button", name="Save view").click()
    wait_until(page, lambda: len(state.presenter.views) == 2, what="the second view")
    with page.expect_download() as dl:
        page.get_by_role("button", name="Export views").click()
    path = tmp_path / "views.json"
    dl.value.save_as(path)
    saved = json.loads(path.read_text(encoding="utf-8"))
    assert saved["format"] == "llrlab-views"
    assert [v["name"] for v in saved["views"]] == ["default view", "moved <b>point</b>"]
    assert saved["views"] == json.loads(json.dumps(state.presenter.views))

    # another session imports the file and presents the views with the arrow keys
    other = _new_page(page)
    other.goto(url)
    wait_until(other, lambda: len(sessions) > 1 and sessions[1].state.results is not None
               and not sessions[1].state.status.busy, timeout=PAGE_LOAD,
               what="the second session")
    st2 = sessions[1].state
    other.locator(".card-header", has_text="Lessons, presenter").first.click()
    other.locator('input[type="file"][accept=".json"]').set_input_files(str(path))
    wait_until(other, lambda: len(st2.presenter.views) == 2, what="the imported views")
    assert st2.presenter.views == saved["views"]
    # presenter mode on (its switch), then → shows view 1, → view 2, ← view 1
    other.evaluate("() => document.activeElement && document.activeElement.blur()")
    other.locator(".llrlab-presenter-switch .bk-label", has_text="Presenter mode").click()
    wait_until(other, lambda: st2.presenter.enabled, what="presenter mode")
    # → as soon as the stage shows, as a presenter does: the switch lets go of the focus
    wait_until(other, lambda: other.evaluate(
        "document.body.classList.contains('llrlab-staged')"), what="the stage in the page")
    for key, index, plo in (("ArrowRight", 0, plo0), ("ArrowRight", 1, plo1),
                            ("ArrowLeft", 0, plo0)):
        other.keyboard.press(key)
        wait_until(other, lambda index=index, plo=plo: st2.presenter.current == index
                   and math.isclose(st2.point.plo, plo, rel_tol=1e-9)
                   and not st2.status.busy, what=f"view {index + 1}")
    nav = sessions[1].main_area.nav.where
    wait_until(other, lambda: "view 1 of 2" in nav.object, what="the stage's bar")
    wait_until(other, lambda: _shown(other) == {"nber", "det"}, what="the stage")
    screenshot(other, "32_presenter_saved_views")
    assert page.console_errors == [] and other.console_errors == []
    # the imported name is shown as text, not as markup
    other.keyboard.press("ArrowRight")
    wait_until(other, lambda: "view 2 of 2" in nav.object, what="view 2 in the bar")
    assert "&#60;b&#62;point&#60;&#47;b&#62;" in nav.object and "<b>" not in nav.object


LESSON = """---
title: My lecture
teaching.enabled: true
---

## Only the DET plot
show: det
point.plo: -3

The DET plot, alone.

## A shifted system
show: nber
teaching.shift: 2
point.plo: -2.2

Act DCF above min DCF.

## Affine calibration
show: nber, calibration
calibration.method: affine
teaching.shift: 2

Affine calibration repairs it.
"""


def test_llrlab_serve_lesson_file_opens_the_lesson(page, served, tmp_path):  # noqa: F811
    path = tmp_path / "lecture.md"
    path.write_text(LESSON, encoding="utf-8")
    port = free_port()
    url = served([str(LLRLAB), "serve", "--no-show", "--port", str(port), "--lesson",
                  str(path)], port)
    page.set_viewport_size({"width": 1280, "height": 720})
    page.goto(url)
    wait_until(page, lambda: "Only the DET plot" in _lesson_text(page), timeout=PAGE_LOAD,
               what="the lesson's first step")
    wait_until(page, lambda: _shown(page) == {"det"}, timeout=60, what="the DET plot alone")
    settle(page)
    page.keyboard.press("ArrowRight")
    wait_until(page, lambda: "A shifted system" in _lesson_text(page), what="step 2")
    wait_until(page, lambda: _query(page) == {"lesson": "lecture", "step": "2"}
               or (_query(page).get("lesson"), _query(page).get("step")) == ("lecture", "2"),
               timeout=60, what="the step in the link")  # (a busy server: seen > 20 s in CI)
    wait_until(page, lambda: model_value(page, "op_span", "location") == pytest.approx(-2.2,
               abs=1e-9), what="the operating point of step 2")
    # a student's link to step 3
    student = _new_page(page)
    student.goto(url + "?lesson=lecture&step=3")
    wait_until(student, lambda: "Affine calibration" in _lesson_text(student), timeout=60,
               what="step 3 for the student")
    wait_until(student, lambda: _shown(student) == {"nber", "calibration"}, timeout=60,
               what="step 3's panels")
    screenshot(student, "33_serve_lesson_step3")
    assert page.console_errors == [] and student.console_errors == []
    assert page.external_requests == [] and student.external_requests == []


def test_llrlab_serve_with_a_bad_lesson_exits_2_with_one_line(tmp_path):
    path = tmp_path / "broken.md"
    path.write_text(LESSON.replace("teaching.shift: 2\npoint", "teaching.shfit: 2\npoint"),
                    encoding="utf-8")
    out = subprocess.run([str(LLRLAB), "serve", "--no-show", "--port", str(free_port()),
                          "--lesson", str(path)], capture_output=True, text=True,
                         timeout=scaled(120))
    assert out.returncode == 2
    lines = out.stderr.strip().splitlines()
    assert lines == ["llrlab serve: error: broken.md line 14 (step 2 'A shifted system'): "
                     "unknown key 'teaching.shfit' (teaching settings: enabled, mu_non, "
                     "mu_tar, n_non, n_tar, references, scale, seed, shift, sigma_non, "
                     "sigma_tar)"]


# ------------------------------------------------------------------ formulas: safe, text-sized

#: Every element under the lesson's text box, through the shadow roots: its tag, the centre of
#: its box (viewport coordinates; null when it has no box) and its attributes.
_TEXT_ELEMENTS = """(box) => {
  const out = [];
  const walk = (n) => {
    if (n.shadowRoot) walk(n.shadowRoot);
    for (const c of n.children || []) {
      if (c.tagName !== 'STYLE' && c.tagName !== 'LINK') {
        const r = c.getBoundingClientRect();
        const attrs = {};
        for (const a of c.attributes) attrs[a.name] = a.value;
        out.push({tag: c.tagName.toLowerCase(), attrs: attrs,
                  xy: r.width > 0 && r.height > 0 ? [r.x + r.width / 2, r.y + r.height / 2]
                                                  : null});
      }
      walk(c);
    }
  };
  if (box) walk(box);
  return out;
}"""

#: Click every element under the lesson's text box from script (an <a>'s click follows its
#: address, as a user's would).
_CLICK_ALL = """(box) => {
  let n = 0;
  const walk = (e) => {
    if (e.shadowRoot) walk(e.shadowRoot);
    for (const c of e.children || []) {
      if (typeof c.click === 'function') { c.click(); n += 1; }
      else { c.dispatchEvent(new MouseEvent('click', {bubbles: true, cancelable: true})); n += 1; }
      walk(c);
    }
  };
  if (box) walk(box);
  return n;
}"""


def _hostile_lesson():
    """A lesson whose text holds every formula the parser refuses (HOSTILE_MATHS of the unit
    tests: the reproducer of issue 18 and its disguises), built without the parser: what the
    page does if such a text ever got past the check."""
    import dataclasses

    from llrlab.dashboard.lessons import Lesson, parse_lesson

    from ..dashboard.test_lessons import HOSTILE_MATHS

    base = parse_lesson("---\ntitle: Hostile\n---\n\n## Formulas\nshow: nber\n\nx\n", "h.md")
    text = "\n\n".join(f"Case {i}: {p}" for i, p in enumerate(HOSTILE_MATHS))
    step = dataclasses.replace(base.steps[0], text=text)
    return Lesson("hostile", "Hostile formulas", "", "h.md", (step,))


def test_no_formula_in_a_lesson_runs_script_even_past_the_parser(page, serve):
    """Issue 18: ``$$\\\\href{javascript:alert('math')}{x}$$`` and its disguises, shown as a
    step's text: no dialog after clicking every rendered element (from script and with the
    mouse), no javascript: link, no class, style or id from a formula, no other page loaded."""
    lesson = _hostile_lesson()
    dialogs = _watch_dialogs(page)

    def factory():
        return create_app(lessons={"hostile": lesson}, lesson="hostile")

    url, _ = serve(factory)
    page.set_viewport_size({"width": 1280, "height": 720})
    page.goto(url + "?lesson=hostile&step=1", timeout=90_000)
    wait_until(page, lambda: "Case 0" in _lesson_text(page), timeout=60,
               what="the hostile step's text")
    loads = []  # a followed link would load another page
    page.on("load", lambda _p: loads.append(page.url))
    box = page.locator(".llrlab-lesson-text").first
    elements = box.evaluate(_TEXT_ELEMENTS)
    assert len(elements) > 50
    for el in elements:
        attrs = el["attrs"]
        assert not (set(attrs) & {"onclick", "onerror", "onload", "xlink:href"}), el
        if el["tag"] == "a":
            assert not attrs.get("href", "").lower().lstrip().startswith(
                ("javascript", "vbscript", "data")), el
        if el["tag"] in ("math", "mrow", "mi", "mo", "mn", "mtext", "mstyle"):
            assert not (set(attrs) & {"href", "class", "style", "id", "mathcolor"}), el
    assert box.evaluate(_CLICK_ALL) >= len(elements)
    clicked = 0
    for el in elements:
        if el["xy"] is not None and 0 <= el["xy"][1] <= 720 and el["tag"] != "a":
            page.mouse.click(*el["xy"])
            clicked += 1
    # and the rest of the box, scrolled: every element's centre once more, after scrolling it
    box.evaluate("(b) => { b.scrollTop = b.scrollHeight; }")
    for el in box.evaluate(_TEXT_ELEMENTS):
        if el["xy"] is not None and 0 <= el["xy"][1] <= 720 and el["tag"] != "a":
            page.mouse.click(*el["xy"])
            clicked += 1
    grace(page, 0.5)  # a script a click would start has run
    assert clicked > 20
    assert dialogs == []
    assert loads == [] and _query(page)["lesson"] == "hostile"
    assert urlparse(page.url).path == "/"
    assert page.console_errors == [] and page.external_requests == []
    screenshot(page, "34_lesson_hostile_formulas")


_FONT_SIZES = """(box) => {
  const out = [];
  const walk = (n) => {
    if (n.shadowRoot) walk(n.shadowRoot);
    for (const c of n.children || []) {
      if (c.tagName.toLowerCase() === 'math') {
        const block = c.closest('p, li, td, h3') || c.parentElement;
        const tokens = Array.from(c.querySelectorAll(':scope > mrow > mi, :scope > mrow > mn,'
                                                     + ':scope > mi, :scope > mn'));
        out.push({math: parseFloat(getComputedStyle(c).fontSize),
                  text: parseFloat(getComputedStyle(block).fontSize),
                  family: getComputedStyle(c).fontFamily,
                  tokens: tokens.map(t => parseFloat(getComputedStyle(t).fontSize)),
                  height: c.getBoundingClientRect().height,
                  display: c.getAttribute('display')});
      } else { walk(c); }
    }
  };
  if (box) walk(box);
  return out;
}"""


@pytest.mark.parametrize("presentation", [False, True])
def test_formulas_are_as_large_as_the_text_and_not_monospace(page, serve, presentation):
    """Issue 19: inline formulas were code, 11.8 px monospace.  Now every formula's computed
    font size, and that of its base-level letters and digits, is at least the text's around
    it, in a maths font; none is clipped to nothing."""
    lesson = builtin_lessons()["calibration"]
    query = "?lesson=calibration&step=3" + ("&presenter=true" if presentation else "")
    _, (session,) = _open(page, serve, query)
    _wait_step(page, session.state, lesson, 3)
    box = page.locator(".llrlab-lesson-text").first
    wait_until(page, lambda: len(box.evaluate(_FONT_SIZES)) >= 5, what="the formulas")
    sizes = box.evaluate(_FONT_SIZES)
    assert {s["display"] for s in sizes} == {"inline", "block"}
    for s in sizes:
        assert s["math"] >= s["text"] - 0.01, s
        assert all(t >= s["text"] - 0.01 for t in s["tokens"]), s
        family = s["family"].lower()
        assert family.startswith("math") and "monospace" not in family, s
        assert s["height"] >= 0.5 * s["text"], s  # drawn (a lone pi is half a line high)
    fraction = max(s["height"] for s in sizes if s["display"] == "block")
    assert fraction >= 1.8 * sizes[0]["text"]  # the DCF's fraction: two lines of text
    # the text's own size: 112 % of the page's on a screen, 150 % in presentation style
    assert min(s["text"] for s in sizes) >= (18 if presentation else 13.4)
    screenshot(page, f"35_lesson_formulas_{'presentation' if presentation else 'screen'}")
    assert page.console_errors == [] and page.external_requests == []
