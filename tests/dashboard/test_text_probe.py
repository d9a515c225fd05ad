"""The lesson text's heights measured in the page ahead of time (:mod:`.text_probe`): what the
server asks, what it takes from a reply (and what it drops), and that the stage's layout uses
the measured heights at exactly the widths it weighs."""

from __future__ import annotations

import math

import pytest

from llrlab.dashboard.stage_geometry import plan_stage, text_widths
from llrlab.dashboard.text_probe import MAX_HEIGHT, MAX_STEPS, TextHeights, TextProbe


def _probe(n=4, widths=(275, 285, 1219), current=2):
    probe = TextProbe(TextHeights())
    sent = probe.ask("calibration", 18.0, list(widths), [f"<p>{k}</p>" for k in
                                                         range(1, n + 1)], current)
    return probe, sent


def test_the_current_step_goes_first_then_the_next_then_those_before():
    _, sent = _probe(n=5, current=3)
    assert [k for k, _ in sent["steps"]] == [3, 4, 5, 2, 1]
    assert sent["steps"][0] == [3, "<p>3</p>"]
    assert sent["widths"] == [275, 285, 1219]


def test_the_same_probe_goes_out_once_and_a_new_window_asks_again():
    probe, sent = _probe()
    steps = [f"<p>{k}</p>" for k in range(1, 5)]
    assert probe.ask("calibration", 18.0, [275, 285, 1219], steps, 3) is None
    again = probe.ask("calibration", 18.0, [295, 1400], steps, 3)
    assert again is not None and again["token"] != sent["token"]
    assert probe.ask("calibration", 27.0, [295, 1400], steps, 3) is not None  # type size
    probe.forget()
    assert probe.ask("calibration", 27.0, [295, 1400], steps, 3) is not None


def test_a_reply_is_recorded_per_step_and_width():
    probe, sent = _probe()
    changed = probe.take([sent["token"], [[2, [600, 580, 300]], [3, [640.2, 610, 310]]]])
    assert changed == {("calibration", 2, 18.0), ("calibration", 3, 18.0)}
    assert probe.heights.get(("calibration", 3, 18.0)) == {275: 641, 285: 610, 1219: 310}
    # the next reply holds every step so far: nothing new, nothing changed
    assert probe.take([sent["token"], [[2, [600, 580, 300]], [3, [641, 610, 310]]]]) == set()
    # a change of more than 2 px is one (a font loaded late)
    assert probe.take([sent["token"], [[2, [604, 580, 300]]]]) == {("calibration", 2, 18.0)}


@pytest.mark.parametrize("reply", [
    None, "x", [], [1], [1, 2, 3], ["a", []], [99, [[2, [1, 2, 3]]]],   # unknown token
    [1, "steps"], [1, {"2": [1, 2, 3]}],
])
def test_a_reply_that_is_not_one_is_dropped(reply):
    probe, sent = _probe()
    assert sent["token"] == 1
    assert probe.take(reply) == set()
    assert len(probe.heights) == 0


@pytest.mark.parametrize("item", [
    [0, [1, 2, 3]], [5, [1, 2, 3]], ["two", [1, 2, 3]], [2, [1, 2]], [2, [1, 2, 3, 4]],
    [2, [1, 2, "3"]], [2, [1, 2, None]], [2, [1, 2, True]], [2, [1, 2, math.nan]],
    [2, [1, 2, math.inf]], [2, [1, 2, -4]], [2, [1, 2, 0]], [2, [1, 2, MAX_HEIGHT + 1]],
    [2], "2", None,
])
def test_a_step_that_is_not_one_is_dropped_and_the_others_kept(item):
    probe, sent = _probe()
    changed = probe.take([sent["token"], [item, [3, [10, 20, 30]]]])
    assert changed == {("calibration", 3, 18.0)}
    assert len(probe.heights) == 1


def test_replies_to_older_probes_count_and_very_old_ones_not():
    probe = TextProbe(TextHeights())
    steps = ["<p>a</p>", "<p>b</p>"]
    tokens = [probe.ask("l", 18.0, [300 + i], steps, 1)["token"]
              for i in range(TextProbe.KEEP + 1)]
    assert probe.take([tokens[0], [[1, [100]]]]) == set()
    assert probe.take([tokens[1], [[1, [100]]]]) == {("l", 1, 18.0)}
    assert probe.heights.get(("l", 1, 18.0)) == {301: 100}


def test_the_store_is_bounded():
    heights = TextHeights()
    for k in range(MAX_STEPS + 50):
        heights.record(("l", k, 18.0), 300, 100)
    assert len(heights) == MAX_STEPS
    assert heights.get(("l", 0, 18.0)) == {}
    assert heights.get(("l", MAX_STEPS + 49, 18.0)) == {300: 100}


def test_the_layout_weighs_the_widths_the_page_measured():
    """plan_stage asks the text's height at exactly the widths of :func:`text_widths` (the
    columns beside the panels and the band above): with the heights measured there, no
    estimate is needed."""
    for width, scale in ((1244, 1.0), (1884, 1.5), (900, 1.0), (2500, 2.0)):
        columns, band = text_widths(width, scale)
        asked, middle = [], columns[len(columns) // 2]

        def height_at(w, asked=asked, middle=middle):
            asked.append(w)
            return 2000 if w < middle else 400

        plan = plan_stage(width, 600, ["nber", "det"], scale=scale, text_height_at=height_at)
        assert set(asked) <= {*columns, band}
        assert columns == sorted(columns) and len(set(columns)) == len(columns)
        if plan.text is not None and not plan.above:
            assert plan.text[0] in columns


def test_a_lesson_on_a_stage_asks_the_page_and_the_reply_sizes_the_text():
    """The app sends every step's HTML (as its box shows it) and the widths the stage weighs;
    the page's reply for the current step replaces the estimate in the layout."""
    from llrlab.dashboard.app import create_app

    app = create_app(threaded=False, demo=False)
    area, st = app.main_area, app.state
    area.page.param.update(main_width=1280, main_height=656)
    st.lesson.open("calibration", 3)
    probe = area.page.text_probe
    n = len(st.lesson.current())
    assert [k for k, _ in probe["steps"]] == [3, *range(4, n + 1), 2, 1]
    assert dict(probe["steps"])[3] == area.lesson_text.text.object
    plan, scale = area.stage_plan()
    columns, band = text_widths(1280 - 36, scale)
    assert probe["widths"] == sorted(w - 25 for w in (*columns, band))
    # the page says the text needs 400 px in the narrowest column: it goes there
    need = [400] + [380] * (len(probe["widths"]) - 1)
    area.page.text_sizes = [probe["token"], [[3, need]]]
    plan, _ = area.stage_plan()
    assert not plan.above and plan.text[0] == columns[0]
    assert area.lesson_text.box_height(columns[0]) == 400 + 16
    # and if it needs more than the room in every column, above the panels
    area.page.text_sizes = [probe["token"], [[3, [5000] * (len(probe["widths"]) - 1) + [150]]]]
    plan, _ = area.stage_plan()
    assert plan.above and plan.text == (1280 - 36, 150 + 16)
    # another step's reply does not change this step's layout
    area.page.text_sizes = [probe["token"], [[4, [10] * len(probe["widths"])]]]
    assert area.stage_plan()[0] == plan


def test_the_lesson_texts_size_follows_the_window_through_its_inline_style():
    """The text's size is set in the pane's inline style (CSS variables of one fixed
    stylesheet), which reaches the page whenever it changes: a changed stylesheet did not
    always, and a link opened at 1920 x 1080 kept 1280 x 720's 18 px."""
    from llrlab.dashboard.app import create_app
    from llrlab.dashboard.lesson_text import TEXT_VARS_CSS, text_css

    app = create_app(threaded=False, demo=False)
    area, st = app.main_area, app.state
    sheets = list(area.lesson_text.text.stylesheets)
    assert TEXT_VARS_CSS in sheets
    area.page.param.update(main_width=1280, main_height=656)
    st.lesson.open("calibration", 2)
    assert area.lesson_text.text.styles == {"--llrlab-text": "18px", "--llrlab-head": "24px"}
    area.page.param.update(main_width=1920, main_height=1016)
    assert st.display.scale == 1.5
    assert area.lesson_text.text.styles == {"--llrlab-text": "27px", "--llrlab-head": "36px"}
    assert list(area.lesson_text.text.stylesheets) == sheets  # never changed
    # the same rules as the sizes written out (the lecture page's, the probe's)
    assert TEXT_VARS_CSS.replace("var(--llrlab-text, 18px)", "18px").replace(
        "var(--llrlab-head, 24px)", "24px").replace("calc(0.5 * 18px)", "9px").replace(
        "calc(0.2 * 18px)", "3.6px") == text_css(18, 24)
