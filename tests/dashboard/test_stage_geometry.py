"""The stage's arrangement (no browser): text beside or above, least sizes, scale."""

from __future__ import annotations

from llrlab.dashboard.stage_geometry import PLOT_MIN, plan_stage, stage_scale


def test_the_scale_grows_with_the_window():
    assert stage_scale(1280, 656) == 1.0
    assert stage_scale(1000, 600) == 1.0  # never smaller than the projector's
    assert stage_scale(1920, 1016) == 1.5
    assert stage_scale(3840, 2160) == 3.0


def test_short_text_goes_above_three_panels_and_long_text_beside_one():
    def short(w):
        return 120

    def long(w):
        return int(300 * 600 / w) + 60  # a text that needs 360 px of height at 600 px

    plan = plan_stage(1244, 640, ["nber", "det", "metrics"], mins={"metrics": (420, 460)},
                      text_height_at=short)
    assert plan.fits and plan.above
    assert sum(w for w, _ in plan.panels.values()) <= 1244
    assert plan.panels["metrics"][0] >= 420 and all(
        w >= PLOT_MIN[0] for n, (w, _) in plan.panels.items() if n != "metrics")
    plan = plan_stage(1244, 640, ["nber"], text_height_at=long)
    assert plan.fits and not plan.above and plan.text[1] == 640
    assert plan.text[0] + plan.panels["nber"][0] <= 1244


def test_what_cannot_fit_never_overflows_the_row():
    plan = plan_stage(800, 400, ["nber", "det", "metrics"], mins={"metrics": (420, 460)},
                      text_height_at=lambda w: 300)
    assert not plan.fits
    assert sum(w for w, _ in plan.panels.values()) <= 800


def test_three_panels_with_a_table_that_does_not_fit_share_the_texts_column():
    """1280 x 720 with 18 px type: a text column, two plots and the metrics table beside
    each other are wider than the row, and under a text band the plots are too short.  The
    table then goes under the text, in its column (the narrowest of the text's widths that
    holds the table's least width and, under the text, its least height)."""
    mins = {"nber": (334, 526), "det": (334, 578), "metrics": (452, 467)}
    asked = []

    def least(width):
        asked.append(width)
        return 452, 300

    def text(w):
        return 600 if w < 400 else 230

    plan = plan_stage(1244, 584, ["nber", "det", "metrics"], mins=mins, text_height_at=text,
                      shares={"metrics": least})
    assert plan.below_text == "metrics" and not plan.above and plan.fits
    tw, th = plan.text
    assert tw == 460 and th == 230  # the narrowest column >= 452 wide
    assert plan.panels["metrics"] == (460, 584 - 230 - 12)
    assert all(plan.panels[n] == (380, 584) for n in ("nber", "det"))
    assert sum(plan.panels[n][0] for n in ("nber", "det")) + tw + 2 * 12 <= 1244
    # what fits as before is laid out as before: a roomy window needs no sharing
    roomy = plan_stage(2400, 584, ["nber", "det", "metrics"], mins=mins,
                       text_height_at=text, shares={"metrics": least})
    assert roomy.below_text is None and roomy.fits
    # no column holds the text and the table's least height: not shared
    none = plan_stage(1244, 584, ["nber", "det", "metrics"], mins=mins,
                      text_height_at=lambda w: 500, shares={"metrics": least})
    assert none.below_text is None and not none.fits
