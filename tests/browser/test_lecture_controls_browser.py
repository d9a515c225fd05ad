"""A lecturer's controls in chromium (issue 19): the keys of presentation tools, the black
screen, the step list, the end signal, the speaker view following the audience's page both
ways, SVG export as a user ticks it, the presenter-mode switch's label, the sidebar's buttons
within their cards at 1280 x 720."""

from __future__ import annotations

import pytest

from llrlab.dashboard.app import create_app
from llrlab.dashboard.lessons import builtin_lessons

from .conftest import assert_svg_drawing, save_through_toolbar, screenshot, wait_until
from .test_lessons_browser import _DEEP_TEXT

pytestmark = pytest.mark.browser


@pytest.fixture
def page(page):
    page.set_default_timeout(60_000)
    page.set_viewport_size({"width": 1280, "height": 720})
    return page


def _open(page, serve, query):
    url, sessions = serve(create_app)
    page.goto(url + query, timeout=120_000)
    wait_until(page, lambda: sessions and sessions[0].state.results is not None
               and not sessions[0].state.status.busy, timeout=120, what="the page")
    wait_until(page, lambda: page.locator(".bk-Canvas").count() >= 1, what="a plot")
    return url, sessions


def _step(page, st, k):
    wait_until(page, lambda: st.lesson.step == k, what=f"step {k}")


def _black(page):
    return page.evaluate("() => { const el = document.getElementById('llrlab-blackout');"
                         " return el != null && el.style.display === 'block'; }")


def test_the_keys_of_presentation_tools(page, serve):
    _, sessions = _open(page, serve, "?lesson=calibration&step=1")
    st, n = sessions[0].state, len(builtin_lessons()["calibration"])
    page.mouse.click(640, 700)  # the focus on the page, not on a widget
    for key, k in (("PageDown", 2), ("Space", 3), ("ArrowRight", 4), ("ArrowDown", 5),
                   ("Shift+Space", 4), ("PageUp", 3), ("ArrowLeft", 2), ("ArrowUp", 1),
                   ("End", n), ("Home", 1)):
        page.keyboard.press(key)
        _step(page, st, k)
    page.keyboard.type("7")
    page.keyboard.press("Enter")
    _step(page, st, 7)
    # Space on the focused Next button steps once, not twice
    page.locator(".bk-btn", has_text="Next ▶").first.focus()
    page.keyboard.press("Space")
    _step(page, st, 8)
    page.wait_for_timeout(600)
    assert st.lesson.step == 8
    # the black screen: B, then B again; '.' then Escape; at once, in the page
    page.mouse.click(640, 700)
    for on, off in (("b", "b"), (".", "Escape")):
        page.keyboard.press(on)
        assert _black(page)
        wait_until(page, lambda: sessions[0].page_control.blackout, what="black on the server")
        screenshot(page, "42_black_screen")
        page.keyboard.press(off)
        assert not _black(page)
    assert st.lesson.step == 8  # the black screen moves nothing
    # the end: a step forward from the last step says so, and the bar is full
    page.keyboard.press("End")
    _step(page, st, n)
    wait_until(page, lambda: sessions[0].page_control.at_end, what="the last step")
    wait_until(page, lambda: page.evaluate(  # the page learns that this is the last step
        "() => [...Bokeh.documents[0].all_models].some(m => m.data != null"
        " && m.data.at_end === true)"), what="the last step in the page")
    page.keyboard.press("PageDown")
    end = page.locator("#llrlab-end")
    wait_until(page, lambda: end.count() and end.evaluate("e => e.style.opacity") == "1",
               what="the end signal")
    assert "End of the lesson" in end.inner_text()
    screenshot(page, "42_end_of_lesson")
    assert st.lesson.step == n
    assert page.locator(".bk-btn", has_text="End ■").count() == 1
    assert page.locator('[role="progressbar"][aria-valuenow="100"]').count() == 1
    # the step list jumps to a step by its title
    title = builtin_lessons()["calibration"].step(5).title
    page.locator("select").filter(has_text=title).first.select_option(
        label=f"5 / {n} · {title}")
    _step(page, st, 5)
    assert page.console_errors == []


def test_the_speaker_view_follows_and_steers_the_audience(page, serve):
    _, sessions = _open(page, serve, "?lesson=calibration&step=2")
    st = sessions[0].state
    with page.context.expect_page() as info:
        page.locator(".bk-btn", has_text="Speaker view").click()
    speaker = info.value
    speaker.set_viewport_size({"width": 1100, "height": 760})
    speaker.console_errors = []
    speaker.on("pageerror", lambda e: speaker.console_errors.append(str(e)))
    lesson = builtin_lessons()["calibration"]

    def text():
        return " ".join(speaker.locator("body").evaluate(_DEEP_TEXT).split())

    def shows(k):
        text_ = text()
        return f"step {k} of {len(lesson)}" in text_ and lesson.step(k).title in text_

    wait_until(speaker, lambda: shows(2), timeout=60, what="the speaker view at step 2")
    assert "Next:" in text() and "no notes for this step" in text()
    # the audience moves: the speaker view follows
    page.mouse.click(640, 700)
    page.keyboard.press("PageDown")
    _step(page, st, 3)
    wait_until(speaker, lambda: shows(3), what="the speaker view following")
    # the speaker moves (its button, its keys): the audience follows
    speaker.locator(".bk-btn", has_text="Next ▶").click()
    _step(page, st, 4)
    speaker.mouse.click(550, 700)
    speaker.keyboard.press("PageDown")
    _step(page, st, 5)
    wait_until(speaker, lambda: shows(5), what="the speaker view at step 5")
    # B in the speaker view blacks out the audience's screen, not its own
    speaker.keyboard.press("b")
    wait_until(page, lambda: _black(page), what="the audience's black screen")
    assert not _black(speaker)
    speaker.keyboard.press("b")
    wait_until(page, lambda: not _black(page), what="the audience's screen back")
    # the clock ticks in the browser
    clock = speaker.locator("text=elapsed").first
    first = clock.inner_text()
    wait_until(speaker, lambda: clock.inner_text() != first, timeout=5, what="the clock")
    screenshot(speaker, "43_speaker_view")
    assert page.console_errors == [] and speaker.console_errors == []


def test_svg_output_ticked_in_the_page_saves_svg(page, serve, tmp_path):
    page.set_viewport_size({"width": 1500, "height": 1000})
    _, sessions = _open(page, serve, "")
    wait_until(page, lambda: page.locator(".bk-Canvas").count() >= 4, what="the plots")
    # the option ticked as a user does: a click on its label
    page.locator(".bk-label", has_text="SVG output").first.click()
    wait_until(page, lambda: sessions[0].state.display.svg, what="SVG output on")
    wait_until(page, lambda: page.evaluate(
        "() => Bokeh.documents[0].get_model_by_name('nber').output_backend") == "svg",
        what="the figure's backend")
    name, data = save_through_toolbar(page, "nber", tmp_path / "saved.svg")
    assert name == "llrlab-nber.svg"
    assert_svg_drawing(data)
    # ticked off again: PNG
    page.locator(".bk-label", has_text="SVG output").first.click()
    wait_until(page, lambda: not sessions[0].state.display.svg, what="SVG output off")
    wait_until(page, lambda: page.evaluate(
        "() => Bokeh.documents[0].get_model_by_name('nber').output_backend") == "canvas",
        what="the figure's backend back to canvas")
    name, data = save_through_toolbar(page, "nber", tmp_path / "saved.png")
    assert name == "llrlab-nber.png"
    assert data.startswith(b"\x89PNG")


def test_the_presenter_switch_reacts_to_its_label_and_sidebar_buttons_fit(page, serve):
    _, sessions = _open(page, serve, "")
    st = sessions[0].state
    # every card open (these are folded at first)
    for title in ("Upload files", "Uncertainty", "Teaching mode", "Lessons, presenter"):
        page.locator(".card-header", has_text=title).first.click()
    page.wait_for_timeout(800)
    boxes = page.evaluate("""() => {
      const out = [];
      const find = (root, sel, acc) => { root.querySelectorAll('*').forEach(e => {
        if (e.matches(sel)) acc.push(e);
        if (e.shadowRoot) find(e.shadowRoot, sel, acc); }); return acc; };
      const cards = find(document.getElementById('sidebar'),
                         '.card, .bk-panel-models-layout-Card', []);
      for (const card of cards) {
        const c = card.getBoundingClientRect();
        for (const b of find(card.shadowRoot || card, 'button, .bk-btn, input[type=file]',
                             [])) {
          const r = b.getBoundingClientRect();
          if (r.width === 0) continue;
          out.push({text: (b.textContent || b.title || '').trim().slice(0, 30),
                    inside: r.left >= c.left - 1 && r.right <= c.right + 1});
        }
      }
      return out; }""")
    assert len(boxes) >= 10 and [b for b in boxes if not b["inside"]] == []
    assert {"Save view", "Export views", "Start lesson"} <= {b["text"] for b in boxes}
    label = page.locator(".llrlab-presenter-switch .bk-label", has_text="Presenter mode")
    label.scroll_into_view_if_needed()
    label.click()
    wait_until(page, lambda: st.presenter.enabled, what="presenter mode from the label")


def test_a_slow_step_says_it_is_coming(page, serve, monkeypatch):
    from llrlab.dashboard import layout

    cls = layout.MainArea
    slow = cls._move

    def slowly(self, token):  # a server that takes 0.8 s for a step
        import time

        time.sleep(0.8)
        slow(self, token)

    monkeypatch.setattr(cls, "_move", slowly)
    _, sessions = _open(page, serve, "?lesson=calibration&step=1")
    st = sessions[0].state
    page.mouse.click(640, 700)

    def coming():
        return page.evaluate("() => { const el = document.getElementById('llrlab-coming');"
                             " return el != null && el.style.display === 'block'; }")

    page.keyboard.press("PageDown")
    wait_until(page, coming, timeout=5, what="the 'coming' sign of a slow step")
    assert "Next step coming" in page.locator("#llrlab-coming").inner_text()
    _step(page, st, 2)
    wait_until(page, lambda: not coming(), what="the sign gone with the step")


_SIDEBAR_CARDS = """() => { const side = document.getElementById('sidebar');
  let n = 0;
  const walk = (root) => root.querySelectorAll('*').forEach((e) => {
    if (e.matches('.card-header')) n += 1;
    if (e.shadowRoot) walk(e.shadowRoot); });
  if (side != null) walk(side);
  return n; }"""


def test_a_lessons_link_makes_the_folded_sidebar_when_it_is_unfolded(page, serve, monkeypatch):
    """A lesson's link opens with the sidebar folded: the stage comes first, the sidebar's
    cards when the menu button unfolds it (or a few seconds later, below), and they work.
    The server makes the sidebar's widgets then too, not before the page's first response."""
    import gc

    from llrlab.dashboard import app
    from llrlab.dashboard.views.export import ExportView

    monkeypatch.setattr(app, "SIDEBAR_DELAY", 600_000)
    _, sessions = _open(page, serve, "?lesson=calibration&step=2")
    st = sessions[0].state

    def exports():  # (the sidebar's Export card holds the page's ExportView)
        return sum(isinstance(o, ExportView) and o.state is st for o in gc.get_objects())

    wait_until(page, lambda: page.get_by_text("step 2 of").count() >= 1, what="the step")
    page.wait_for_timeout(1500)
    assert page.evaluate(_SIDEBAR_CARDS) == 0
    assert exports() == 0
    page.locator(".bk-btn", has_text="☰").first.click()
    wait_until(page, lambda: page.evaluate(_SIDEBAR_CARDS) >= 10, what="the sidebar's cards")
    assert exports() == 1
    # the sidebar works: the presentation style off from the Display card
    # (a Bokeh checkbox's label is a sibling of its input in the widget's shadow root)
    page.get_by_text("Presentation style", exact=True).first.evaluate(
        "e => e.getRootNode().querySelector('input[type=checkbox]').click()")
    wait_until(page, lambda: not st.display.presentation, what="the style off")
    assert page.console_errors == []


def test_a_lessons_link_makes_the_sidebar_later_unasked(page, serve, monkeypatch):
    from llrlab.dashboard import app

    monkeypatch.setattr(app, "SIDEBAR_DELAY", 300)
    _open(page, serve, "?lesson=calibration&step=2")
    wait_until(page, lambda: page.evaluate(_SIDEBAR_CARDS) >= 10, what="the sidebar's cards")
    assert page.console_errors == []


_FIGURES = """() => { let n = 0;
  for (const m of Bokeh.documents[0]._all_models.values()) { if (m.type === 'Figure') n += 1; }
  return n; }"""


def test_a_lessons_link_sends_the_steps_panels_first_and_the_others_when_shown(
        page, serve, monkeypatch):
    """A lesson's link at step 1 (the histogram alone) gets one figure with its body; a
    step that shows other panels before the rest have come gets them with the step, drawn
    and with their data; and the rest come unasked a few seconds later (PANELS_DELAY)."""
    from llrlab.dashboard import app

    monkeypatch.setattr(app, "PANELS_DELAY", 600_000)
    _, sessions = _open(page, serve, "?lesson=calibration&step=1")
    st = sessions[0].state
    page.wait_for_timeout(1000)
    assert page.evaluate(_FIGURES) == 1
    page.keyboard.press("End")  # step 11: the NBER plot and the table
    _step(page, st, 11)
    wait_until(page, lambda: page.evaluate(_FIGURES) == 2, what="the NBER plot")
    nber = page.locator(".llrlab-nber .bk-Canvas")
    wait_until(page, lambda: nber.count() == 1 and nber.first.bounding_box() is not None
               and nber.first.bounding_box()["width"] > 300, what="the NBER plot drawn")
    assert page.evaluate(_FIGURES) == 2 and page.console_errors == []


def test_a_lessons_link_sends_the_other_panels_later_unasked(page, serve, monkeypatch):
    from llrlab.dashboard import app

    monkeypatch.setattr(app, "PANELS_DELAY", 300)
    _open(page, serve, "?lesson=calibration&step=1")
    wait_until(page, lambda: page.evaluate(_FIGURES) == 4, what="the four figures")
    assert page.console_errors == []
