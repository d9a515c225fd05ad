"""The dashboard's threshold measures: the score threshold of the actual decision in the
metrics table (on the raw scores, through the calibration's inverse) and the FMR100 /
FMR1000 markers of the DET plot."""

from __future__ import annotations

import numpy as np
import pytest
from numpy.testing import assert_allclose

from llrlab.core import fnmr_at_fmr, probit
from llrlab.dashboard.compute.results import DET_FMR
from llrlab.dashboard.views import DETView, MetricsView
from llrlab.dashboard.views.metrics import MEASURES

_ROW = {key: i for i, (key, _, _) in enumerate(MEASURES)}


def _rows(state):
    return {r["role"]: r for r in state.export.metrics_rows()}


def _decisions_match(trials, threshold, llr_threshold, cal):
    """Accepting raw score >= threshold decides every trial as LLR >= the Bayes threshold."""
    llr = trials.scores if cal is None else cal.apply(trials.scores)
    assert np.array_equal(trials.scores >= threshold, llr >= llr_threshold)


@pytest.mark.parametrize("method", ["none", "affine", "pav"])
def test_score_threshold_is_the_raw_threshold_of_the_decision(state, dev, eval_, method):
    state.calibration.method = method
    metrics = MetricsView(state=state)
    for p in (0.5, 0.01, 0.0003):
        state.point.p_target = p
        plo = state.point.plo
        res = state.results
        t = _rows(state)["eval"]["threshold"]
        if method == "none":
            assert t == -plo  # the scores are read as LLRs
        else:
            assert t == pytest.approx(float(res.calibration.inverse(-plo)), rel=0, abs=0)
        _decisions_match(eval_, t, -plo, res.calibration)
        _decisions_match(dev, t, -plo, res.calibration)
        # the act error counts are those of the raw threshold
        o = state.op["eval"]
        assert int(o.act.misses) == int((eval_.tar < t).sum())
        assert int(o.act.false_alarms) == int((eval_.non >= t).sum())
        assert metrics.data["eval"][_ROW["threshold"]] == f"{t:.6g}"
    assert 'data-key="threshold"' in metrics.table.object


def test_score_threshold_text_at_the_ends(state):
    state.calibration.method = "pav"
    res = state.results
    fmt = MEASURES[_ROW["threshold"]][2]
    assert res.score_threshold(-50.0) == np.inf and fmt(np.inf) == "+∞ (reject all)"
    assert res.score_threshold(50.0) == -np.inf and fmt(-np.inf) == "−∞ (accept all)"
    assert fmt(None) == "—"


def test_det_fmr_markers(state):
    det = DETView(state=state)
    for role in ("eval", "dev"):
        d = state.results.datasets[role]
        want = fnmr_at_fmr(d.raw, fmr=DET_FMR)
        data = det.fmr_sources[role].data
        assert data["text"] == ["FMR100", "FMR1000"]
        assert_allclose(data["x"], probit(want.p_fa))
        assert_allclose(data["y"], probit(want.p_miss))
        assert np.all(want.p_fa <= DET_FMR)
        shown = role == "eval" or state.display.show_dev
        assert det.renderers[role]["fmr"].visible == shown
    # the names beside the eval markers, one Label each, placed at them
    data = det.fmr_sources["eval"].data
    assert [lab.text for lab in det.fmr_labels] == ["FMR100", "FMR1000"]
    assert [(lab.x, lab.y, lab.visible) for lab in det.fmr_labels] == [
        (x, y, True) for x, y in zip(data["x"], data["y"], strict=True)]
    # the markers lie on the drawn steppy curve: between two of its points, on a step
    c = state.results.datasets["eval"].det("steppy")
    data = det.fmr_sources["eval"].data
    for x, y in zip(data["x"], data["y"], strict=True):
        near = np.min(np.hypot(c.x - x, c.y - y))
        assert near < 0.05
    # a calibration keeps them (the same order of the scores); dev hidden, its markers too
    state.calibration.method = "affine"
    assert_allclose(det.fmr_sources["eval"].data["x"], data["x"])
    state.display.show_dev = False
    assert not det.renderers["dev"]["fmr"].visible
    assert all(lab.visible for lab in det.fmr_labels)  # (the eval markers' names)
    state.display.show_dev = True
    assert det.renderers["dev"]["fmr"].visible
    labels = [item.label.value for item in det.legend.items]
    assert "FMR100, FMR1000" in labels


def test_metrics_csv_has_the_threshold(state):
    import csv
    import io

    state.calibration.method = "affine"
    rows = list(csv.DictReader(io.StringIO(state.export.metrics_csv())))
    want = float(state.results.calibration.inverse(-state.point.plo))
    assert [float(r["threshold"]) for r in rows] == [want, want]


def test_lessons_can_highlight_the_fmr_markers_and_the_threshold_row(state):
    det, metrics = DETView(state=state), MetricsView(state=state)
    width = det.renderers["eval"]["fmr"].glyph.line_width
    state.presenter.highlight = ["det.fmr", "metrics.threshold"]
    assert det.renderers["eval"]["fmr"].glyph.line_width > width
    assert det.renderers["eval"]["dr30"].glyph.line_width == width
    assert '<tr data-key="threshold" class="lit">' in metrics.table.object
    assert '<tr data-key="p_fa" class="lit">' not in metrics.table.object


def test_a_stage_shows_the_threshold_row_only_when_highlighted(state):
    """The stage's compact table leaves the score threshold out (its header gives the Bayes
    threshold; the row cost a 1280 x 720 lecture step its layout) unless the step highlights
    it; the page's table always has it."""
    metrics = MetricsView(state=state)
    state.display.presentation = True
    assert 'data-key="threshold"' in metrics.table.object  # on the page
    metrics.resize(600, 500)
    assert 'data-key="threshold"' not in metrics.table.object
    small = metrics.stage_min()
    state.presenter.highlight = ["metrics.threshold"]
    assert '<tr data-key="threshold" class="lit">' in metrics.table.object
    big = metrics.stage_min()
    assert big[1] > small[1] and big[0] >= small[0]
    metrics.resize()
    state.presenter.highlight = []
    assert 'data-key="threshold"' in metrics.table.object


def test_a_crowded_stage_leaves_out_rows_and_says_how_many(state):
    """Given less height than all its rows need (three panels and a lesson's text), the
    stage's table leaves out rows in the order of ``STAGE_DROP`` -- never one the step
    highlights, never act/min DCF or (min) Cllr -- and says how many are left out."""
    from llrlab.dashboard.views.metrics import STAGE_DROP

    metrics = MetricsView(state=state)
    state.display.presentation = True
    full = metrics.stage_min()
    least = metrics.stage_least()
    assert least[1] < full[1] and least[0] == full[0]
    metrics.resize(*full)
    assert metrics._stage_hidden() == ("threshold",)
    assert not metrics.ci_note.visible  # nothing left out, nothing said
    metrics.resize(full[0], (full[1] + least[1]) // 2)
    hidden = [k for k in metrics._stage_hidden() if k != "threshold"]
    assert 0 < len(hidden) < len(STAGE_DROP)
    assert set(hidden) == set(STAGE_DROP[:len(hidden)])  # first to go first
    for key in hidden:
        assert f'data-key="{key}"' not in metrics.table.object
    assert metrics.ci_note.visible
    assert metrics.ci_note.object == f"{len(hidden)} more rows in the full table"
    # the estimate of what is shown fits the height given
    shown = metrics._stage_rows(metrics._room_rows)
    assert metrics._stage_height(1.0, full[0], shown) <= (full[1] + least[1]) // 2
    # a highlighted row stays, the next one goes in its place
    lit = next(k for k in reversed(STAGE_DROP) if k in hidden)  # (counts cannot be lit)
    state.presenter.highlight = [f"metrics.{lit}"]
    metrics.resize(full[0], (full[1] + least[1]) // 2)
    assert f'<tr data-key="{lit}" class="lit">' in metrics.table.object
    assert len([k for k in metrics._stage_hidden() if k != "threshold"]) == len(hidden)
    # at the least height, only what always stays (and the highlighted row)
    state.presenter.highlight = []
    metrics.resize(*least)
    kept = {k for k, _, _ in MEASURES} - set(metrics._stage_hidden())
    assert kept == {"cllr", "min_cllr", "act_dcf", "min_dcf"}
    assert metrics.ci_note.object == f"{len(STAGE_DROP)} more rows in the full table"
    # back on the page: every row, no line
    metrics.resize()
    assert all(f'data-key="{k}"' in metrics.table.object for k, _, _ in MEASURES)
    assert "more rows" not in metrics.ci_note.object
