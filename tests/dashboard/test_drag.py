"""The drag path: moving the operating point is look-ups only, each made once per move.

A served page calls ``state.point.set_plo`` (NBER plot), ``state.set_threshold_score``
(histogram) or ``state.pick_det`` (DET plot) for every step of a drag, through the plots'
drag channels.  Here everything that follows the operating point is switched on -- condition
curves, binomial intervals, a bootstrap, every view, the comparison of two systems -- and the
drag must run no heavy computation (no sort, calibration, pooling, resampling or pass over
every trial) while every view follows.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from numpy.testing import assert_allclose

from llrlab.core import Analysis, probit
from llrlab.dashboard.compute import SystemData
from llrlab.dashboard.state import DashboardState
from llrlab.dashboard.views import CalibrationView, DETView, HistogramView, MetricsView, NBERView
from llrlab.dashboard.views.compare import CompareView

from .conftest import count_heavy, make_trials
from .test_conditions_view import with_conditions


@pytest.fixture
def busy_page():
    """Two paired systems with conditions, everything that follows a drag switched on, every
    view of both tabs built; the significance tests wait for the drag to rest (as served)."""
    def system(scale, shift):
        return SystemData(
            with_conditions(make_trials(8000, seed=1, scale=scale, shift=shift), 11),
            with_conditions(make_trials(12_000, seed=2, scale=scale, shift=shift + 0.3), 12))

    st = DashboardState()
    st.data.set_systems({"A": system(0.5, 1.0), "B": system(0.7, 0.5)})
    st.restore({"calibration": {"method": "affine"},
                "conditions": {"weighting": "equal per condition", "show_curves": True},
                "uncertainty": {"ci_method": "wilson", "boot_n": 20}})
    st.uncertainty.run_bootstrap(st.point.plo)
    views = {"nber": NBERView(state=st), "det": DETView(state=st),
             "hist": HistogramView(state=st), "metrics": MetricsView(state=st),
             "cal": CalibrationView(state=st), "compare": CompareView(state=st)}
    st.compare.active = True
    deferred = []
    st.compare.defer = deferred.append
    assert st.status.error == "" and st.uncertainty.boot is not None
    assert st.compare.tests_current() is not None
    assert len(st.results.datasets["eval"].conditions) == 3
    return st, views, deferred


def _drag(st, views):
    """One drag of each kind through the plots' drag channels (as the browser sends them),
    then the operating point's own widgets; returns the number of moves."""
    moves = 0
    for x in np.linspace(-5.0, 1.0, 7):
        views["nber"].drag.data = {"x": [float(x)], "y": [0.5]}
        moves += 1
    for s in np.linspace(-1.0, 1.5, 5):
        views["hist"].drag.data = {"x": [float(s)], "y": [0.1]}
        moves += 1
    d = st.results.primary
    for i in np.linspace(0, d.pick_x.size - 1, 5).astype(int):
        views["det"].drag.data = {"x": [float(d.pick_x[i])], "y": [float(d.pick_y[i])]}
        moves += 1
    views["compare"].nber.drag.data = {"x": [-2.25], "y": [0.5]}
    st.point.p_target = 0.02
    st.point.effective_prior = 0.1
    st.point.plo = -3.5
    return moves + 4


def test_a_drag_runs_no_heavy_computation(busy_page, monkeypatch):
    st, views, deferred = busy_page
    results, comparison, boot = st.results, st.compare.comparison, st.uncertainty.boot
    calls = count_heavy(monkeypatch)
    _drag(st, views)
    assert calls == []
    assert st.results is results and st.compare.comparison is comparison
    assert st.uncertainty.boot is boot  # kept, marked as for another operating point
    # ... and every view followed the last move
    plo = st.point.plo
    assert plo == -3.5
    op = st.op["eval"]
    ref = results.datasets["eval"].llr.at(plo)
    assert (op.act_dcf, op.min_dcf) == (ref.act_dcf, ref.min_dcf)
    assert views["nber"].op_span.location == plo
    assert_allclose(views["det"].op_sources["eval"].data["x"][0], probit(op.act.p_fa))
    assert f"{op.act_dcf:.4f}" in views["metrics"].table.object
    assert views["hist"].threshold.location == results.threshold_score(plo)
    assert views["cal"].hline.location == -plo
    assert st.op_ci["eval"].dcf.estimate == pytest.approx(op.act_dcf, rel=1e-12)
    conds = results.datasets["eval"].conditions
    assert [o.act_dcf for o in st.cond_op["eval"]] == [c.llr.at(plo).act_dcf for c in conds]
    rows = {r["system"]: r for r in st.compare.table_rows()}
    assert rows["B"]["act_dcf"] == comparison.systems["B"].analysis("eval").at(plo).act_dcf
    assert views["compare"].nber.op_span.location == plo
    # the significance tests wait for the drag to rest: then one job, the heavy part
    assert deferred and st.compare.tests_current() is None
    deferred[-1]()
    assert st.compare.tests_current() is not None
    assert calls.count("significance") == 1


def test_each_look_up_is_made_once_per_move(busy_page, monkeypatch):
    """``Analysis.at`` once per shown analysis and move: the main view's datasets and their
    drawn conditions, and the other compared system's datasets (the shown system's are the
    main view's own, not looked up again)."""
    st, views, _ = busy_page
    seen = Counter()
    real = Analysis.at

    def at(self, plo):
        seen[id(self)] += 1
        return real(self, plo)

    monkeypatch.setattr(Analysis, "at", at)
    res, comp = st.results, st.compare.comparison
    assert comp.systems["A"].results is res  # the shown system is shared
    shown = [d.llr for d in res.datasets.values()]
    shown += [c.llr for d in res.datasets.values() for c in d.conditions]
    shown += [d.llr for d in comp.systems["B"].results.datasets.values()]
    for x in (-4.0, -2.5, -1.0):
        seen.clear()
        views["nber"].drag.data = {"x": [x], "y": [0.5]}
        assert sorted(seen) == sorted(id(a) for a in shown)
        assert set(seen.values()) == {1}


def test_a_drag_without_results_or_with_nonsense_is_ignored():
    st = DashboardState()
    views = {"nber": NBERView(state=st), "hist": HistogramView(state=st),
             "det": DETView(state=st)}
    plo = st.point.plo
    for name in views:
        views[name].drag.data = {"x": [float("nan")], "y": [0.5]}
    st.point.set_plo(None)
    st.point.set_plo(float("inf"))
    st.set_threshold_score(float("nan"))
    st.pick_det(0.0, 0.0)  # no data: no DET curve to pick from
    assert st.point.plo == plo and st.status.error == ""
    st.point.set_plo(-99.0)  # clipped to the plotted range
    assert st.point.plo == -20.0
