"""Teaching mode as a newcomer sees it (issue 14.8): a histogram whose classes can be read,
an axis that says "miscalibrated" only when the LLRs are, and the Compare tab on the
synthetic data."""

from __future__ import annotations

import numpy as np
import pytest

from llrlab.core import GaussianModel, gaussian_trials
from llrlab.dashboard.compute import SystemData
from llrlab.dashboard.state import DashboardState
from llrlab.dashboard.views import CalibrationView, HistogramView

from .conftest import make_trials


def _quantile(x, q):
    return float(np.quantile(np.asarray(x), q))


@pytest.fixture
def teaching():
    st = DashboardState()
    st.data.set_systems({"A": SystemData(make_trials(2000, seed=1), make_trials(3000, seed=2))})
    views = HistogramView(state=st), CalibrationView(state=st)
    st.teaching.enabled = True
    assert st.status.error == ""
    return st, views


def test_the_histogram_range_shows_both_classes(teaching):
    st, (hist, calib) = teaching
    lo, hi = hist.figure.x_range.start, hist.figure.x_range.end
    ev = st.results.datasets["eval"].trials
    s, lab = np.asarray(ev.scores), np.asarray(ev.labels, bool)
    # before: 0.1 % to 99.9 % of each class, -3.7 to 36.6 at the defaults (-5 to 80 once
    # scaled): the non-targets' central 90 % was 6 % of the axis
    width = hi - lo
    for x in (s[lab], s[~lab]):
        assert lo < _quantile(x, 0.02) and _quantile(x, 0.98) < hi  # 96 % of each class
        assert lo <= _quantile(x, 0.5) <= hi
    assert (_quantile(s[~lab], 0.95) - _quantile(s[~lab], 0.05)) / width > 0.09
    assert width < 30
    assert calib.figure.x_range.start == lo and calib.figure.x_range.end == hi
    # what lies outside is said under the plot, in percent of each class
    out_tar = np.mean((s[lab] < lo) | (s[lab] > hi))
    assert hist.note.visible
    assert f"{100 * out_tar:.1f} % of the targets" in hist.note.object
    # a scaled LLR scales the range with it
    st.teaching.scale = 2.0
    assert hist.figure.x_range.end == pytest.approx(2 * hi, rel=1e-9)


def test_a_stage_plans_the_histogram_note_at_its_own_scale(teaching):
    """The layout asks for a panel's least room before the display takes the stage's scale:
    the note's height is that of its text at the stage's size (27 px at scale 1.5), not at
    the display's current one."""
    from llrlab.dashboard.text_fit import text_height
    from llrlab.dashboard.views._common import stage_min

    st, (hist, _) = teaching
    st.display.param.update(presentation=True, scale=1.0)
    text = hist.note.object
    assert text
    fw, fh = stage_min(hist.legend, 1.5)
    assert hist.stage_min(1.5) == (fw, fh + text_height(text, 27.0, fw - 40) + 8)
    hist.resize(700, 500)
    assert hist.note.height == text_height(text, 18.0, 700 - 40) + 8
    assert hist.note.styles["font-size"] == "18px"


def test_loaded_data_keep_the_wide_range_and_no_note():
    st = DashboardState()
    st.data.set_systems({"A": SystemData(make_trials(2000, seed=1), make_trials(3000, seed=2))})
    hist = HistogramView(state=st)
    ev = st.data.systems["A"].eval
    assert hist.figure.x_range.start < float(np.min(ev.scores)) + 0.5
    assert not hist.note.visible


def test_the_axis_says_miscalibrated_only_when_it_is(teaching):
    st, (hist, _) = teaching
    label = hist.figure.xaxis[0].axis_label
    assert "miscalibrated" not in label and "true LLR" in label
    st.teaching.shift = 1.5
    assert "miscalibrated" in hist.figure.xaxis[0].axis_label
    assert "1 × LLR + 1.5" in hist.figure.xaxis[0].axis_label
    st.teaching.shift = 0.0
    assert "miscalibrated" not in hist.figure.xaxis[0].axis_label


def test_compare_tab_shows_the_synthetic_system_and_its_true_llr(teaching):
    st, _ = teaching
    cs = st.compare
    cs.active = True
    st.teaching.param.update(scale=2.0, shift=1.0)
    assert cs.names() == ["synthetic system", "true LLR"]
    rows = {r["system"]: r for r in cs.table_rows()}
    t = st.teaching
    model = GaussianModel(t.mu_tar, t.sigma_tar, t.mu_non, t.sigma_non)
    true_dev = gaussian_trials(t.n_tar, t.n_non, model=model, seed=t.seed + 1)
    np.testing.assert_allclose(cs.systems()["true LLR"].dev.scores, true_dev.scores,
                               atol=1e-12)
    res = st.results
    assert rows["synthetic system"]["act_dcf"] == pytest.approx(
        st.op["eval"].act_dcf, rel=1e-12)
    assert rows["true LLR"]["cllr"] == pytest.approx(float(res.datasets["true"].llr.cllr),
                                                     rel=1e-12)
    # calibrated: both are trained on their own dev set, none is dropped
    st.calibration.method = "affine"
    assert [r["system"] for r in cs.table_rows()] == ["synthetic system", "true LLR"]
    assert cs.notice == ""
    st.teaching.enabled = False
    assert cs.names() == ["A"]
