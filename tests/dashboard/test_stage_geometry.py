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
