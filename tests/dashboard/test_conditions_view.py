"""Condition-weighted pooling (van Leeuwen 2008) and confidence intervals in the dashboard state and
views: set parameters, compare with llrlab.core computed directly (no browser)."""

from __future__ import annotations

import numpy as np
import pytest
from numpy.testing import assert_allclose

from llrlab.core import Trials, analyze
from llrlab.core.conditions import by_condition
from llrlab.core.uncertainty import bootstrap_ci, operating_point_ci
from llrlab.dashboard import compute
from llrlab.dashboard.state import DashboardState
from llrlab.dashboard.views import DETView, MetricsView, NBERView

from .conftest import make_trials, state_of

#: (condition, share of the trials, score shift): unequal sizes and shifts, so that the
#: weighted pool differs from the plain pool.
CONDITIONS = (("tel", 0.6, 0.0), ("mic", 0.3, -0.8), ("far", 0.1, 0.9))


def with_conditions(t: Trials, seed):
    """``t`` with a condition per trial and a per-condition shift of its scores."""
    rng = np.random.default_rng(seed)
    names = np.array([c for c, _, _ in CONDITIONS])
    cond = names[rng.choice(len(CONDITIONS), len(t), p=[p for _, p, _ in CONDITIONS])]
    shift = np.select([cond == c for c, _, _ in CONDITIONS], [s for _, _, s in CONDITIONS])
    n = len(t)
    ids = {"model_ids": [f"m{i % 40}" for i in range(n)],
           "segment_ids": [f"s{i // 40}" for i in range(n)]}
    return Trials(t.scores + shift, t.labels, conditions=cond, source=t.source, **ids)


@pytest.fixture
def cdev():
    return with_conditions(make_trials(20_000, seed=1, scale=0.5, shift=1.0), 11)


@pytest.fixture
def ceval():
    return with_conditions(make_trials(30_000, seed=2, scale=0.5, shift=1.3), 12)


@pytest.fixture
def cstate(cdev, ceval):
    return state_of(cdev, ceval)


def _row(st, role="eval"):
    return {r["role"]: r for r in st.export.metrics_rows()}[role]


def test_conditions_are_offered_and_all_selected(cstate):
    assert cstate.conditions.available == ["far", "mic", "tel"]
    assert cstate.conditions.selected == ["far", "mic", "tel"]
    assert cstate.conditions.custom_weights == "far=1, mic=1, tel=1"
    # pooled trials over all conditions: the numbers of the plain pool
    assert cstate.conditions.spec().select is None
    assert "weighted the same way" in cstate.conditions.note()


def test_pooled_trials_are_the_plain_pool(cstate, ceval):
    ref = analyze(ceval).at(cstate.point.plo)
    row = _row(cstate)
    assert row["act_dcf"] == ref.act_dcf and row["min_dcf"] == ref.min_dcf
    assert row["weighting"] == "pooled trials; all conditions"


def test_equal_weighting_shows_the_weighted_pool(cstate, ceval):
    views = {"nber": NBERView(state=cstate), "det": DETView(state=cstate)}
    old_nber = np.array(views["nber"].sources["eval"].data["min"])
    old_det = np.array(views["det"].curve_sources["eval"]["rocch"].data["x"])
    pooled = cstate.results
    cstate.conditions.weighting = "equal per condition"
    assert cstate.status.error == ""
    assert cstate.results is not pooled
    ref = by_condition(ceval, "equal", plo=cstate.point.plo).pooled_summary()
    row = _row(cstate)
    for k in ("act_dcf", "min_dcf", "eer", "cllr", "min_cllr", "p_miss", "p_fa"):
        assert_allclose(row[k], ref[k], rtol=1e-12, err_msg=k)
    # pooling matters here
    assert row["min_dcf"] != analyze(ceval).at(cstate.point.plo).min_dcf
    # the plots follow (new data in the same sources)
    assert not np.array_equal(views["nber"].sources["eval"].data["min"], old_nber,
                              equal_nan=True)
    assert not np.array_equal(views["det"].curve_sources["eval"]["rocch"].data["x"],
                              old_det, equal_nan=True)
    # back to pooled trials: served from the cache
    cstate.conditions.weighting = "pooled trials"
    assert cstate.results is pooled


def test_equal_weights_on_one_condition_reproduce_the_unweighted_numbers(cstate, ceval):
    cstate.conditions.weighting = "equal per condition"
    cstate.conditions.selected = ["mic"]
    assert cstate.status.error == ""
    mic = ceval.subset(ceval.conditions == "mic")
    a = analyze(mic)
    ref = a.at(cstate.point.plo)
    row = _row(cstate)
    assert (row["n_tar"], row["n_non"]) == (mic.n_tar, mic.n_non)
    assert row["act_dcf"] == ref.act_dcf and row["min_dcf"] == ref.min_dcf
    assert row["eer"] == a.eer and row["cllr"] == a.cllr
    assert row["weighting"] == "equal per condition; mic"
    cstate.conditions.selected = []  # nothing to pool: refused, the selection comes back
    assert cstate.status.error == "select at least one condition to pool"
    assert cstate.conditions.selected == ["mic"]


def test_new_data_offer_their_conditions(cstate, eval_):
    cstate.conditions.selected = ["tel"]
    cstate.data.set_trials("B", "eval", eval_)  # no conditions
    assert cstate.conditions.available == [] and cstate.conditions.selected == []
    assert cstate.results.condition_spec is None and cstate.status.error == ""
    cstate.data.system = "A"
    assert cstate.conditions.available == ["far", "mic", "tel"]
    assert cstate.conditions.selected == ["far", "mic", "tel"]


def test_equal_weights_with_a_single_condition_equal_no_conditions(eval_):
    one = Trials(eval_.scores, eval_.labels, conditions=["x"] * len(eval_))
    st, plain = DashboardState(), DashboardState()
    st.data.set_trials("A", "eval", one)
    plain.data.set_trials("A", "eval", eval_)
    st.conditions.weighting = "equal per condition"
    assert st.status.error == ""
    a, b = _row(st), _row(plain)
    for k in ("act_dcf", "min_dcf", "eer", "cllr", "min_cllr", "misses", "false_alarms"):
        assert a[k] == b[k], k


def test_custom_weights(cstate, ceval):
    cstate.conditions.weighting = "custom"
    cstate.conditions.custom_weights = "tel=2, mic=1, far=1"
    assert cstate.status.error == ""
    ref = by_condition(ceval, {"tel": 2, "mic": 1, "far": 1}, plo=cstate.point.plo)
    assert_allclose(_row(cstate)["min_dcf"], ref.pooled_summary()["min_dcf"], rtol=1e-12)
    # weights of conditions outside the selection are ignored
    cstate.conditions.selected = ["tel", "mic"]
    assert cstate.status.error == ""
    ref = by_condition(ceval, {"tel": 2, "mic": 1}, select=["tel", "mic"],
                       plo=cstate.point.plo)
    assert_allclose(_row(cstate)["act_dcf"], ref.pooled_summary()["act_dcf"], rtol=1e-12)
    # a bad weight: one line, and the previous text comes back
    cstate.conditions.custom_weights = "tel=2, mic=lots"
    assert cstate.status.error == "the weight of condition 'mic' is not a number: 'lots'"
    assert cstate.conditions.custom_weights == "tel=2, mic=1, far=1"
    cstate.status.clear_error()
    cstate.conditions.custom_weights = "tel=1, bus=1"
    assert "'bus'" in cstate.status.error and "\n" not in cstate.status.error


def test_calibration_is_trained_on_the_weighted_dev_trials(cstate, cdev):
    cstate.conditions.weighting = "equal per condition"
    cstate.calibration.method = "affine"
    assert cstate.status.error == ""
    report = cstate.results.calibration.report()
    assert report["train_n_tar"] == cdev.n_tar
    from llrlab.core.calibration import fit_calibrator
    from llrlab.core.conditions import condition_weights

    ref = fit_calibrator(condition_weights(cdev, "equal").trials, method="affine")
    assert_allclose(cstate.results.calibration.apply(np.array([0.0, 1.0])),
                    ref.apply(np.array([0.0, 1.0])), rtol=1e-12)


def test_per_condition_curves_and_table(cstate, ceval):
    nber, det = NBERView(state=cstate), DETView(state=cstate)
    metrics = MetricsView(state=cstate)
    figures = (nber.figure, det.figure)
    assert not any(r.visible for slot in nber.condition_renderers for r in slot.values())
    cstate.conditions.weighting = "equal per condition"
    cstate.conditions.show_curves = True
    eval_lines = [slot[("eval", "act")] for slot in nber.condition_renderers]
    assert [r.visible for r in eval_lines] == [True] * 3  # slots built as needed
    dev_lines = [slot[("dev", "min")] for slot in nber.condition_renderers]
    assert sum(r.visible for r in dev_lines) == 3  # show_dev is on
    assert sum(slot["eval"].visible for slot in det.condition_renderers) == 3
    assert [i.label.value for i in det.condition_items[:3]] == ["far", "mic", "tel"]
    assert [i.label.value for i in nber.condition_items[:3]] == [
        "far (w 0.33)", "mic (w 0.33)", "tel (w 0.33)"]
    ref = by_condition(ceval, "equal", plo=cstate.point.plo)
    # curves: the conditions' own NBER curves on the plotted grid
    act, _ = ref.per_condition[1].curves(cstate.nber.plo)
    assert_allclose(nber.condition_sources["eval"][1].data["act"], act.dcf, rtol=1e-12)
    rows = cstate.export.condition_rows()
    assert [r["condition"] for r in rows] == ["far", "mic", "tel"]
    assert_allclose([r["act_dcf"] for r in rows], ref.act_dcf, rtol=1e-12)
    assert_allclose([r["min_dcf"] for r in rows], ref.min_dcf, rtol=1e-12)
    assert metrics.condition_table.visible and "mic" in metrics.condition_table.object
    # the drag updates them (a look-up per condition)
    cstate.point.plo = -1.0
    ref = by_condition(ceval, "equal", plo=-1.0)
    assert_allclose([r["act_dcf"] for r in cstate.export.condition_rows()], ref.act_dcf,
                    rtol=1e-12)
    cstate.display.show_dev = False
    assert sum(r.visible for r in dev_lines) == 0
    cstate.conditions.show_curves = False
    assert not any(r.visible for r in eval_lines)
    assert not metrics.condition_table.visible
    assert (nber.figure, det.figure) == figures


def test_no_conditions_disable_the_controls(state):
    from llrlab.dashboard.controls import condition_controls

    assert state.conditions.available == []
    assert state.results.condition_spec is None
    assert "no conditions" in state.conditions.note()
    col = condition_controls(state)
    widgets = [w for w in col if hasattr(w, "disabled")]
    assert widgets and all(w.disabled for w in widgets)
    assert "no conditions" in col[-1].object
    key = state.results.key
    state.conditions.weighting = "equal per condition"  # nothing to weight: the plain pool
    assert state.status.error == "" and "weighting" not in state.export.metrics_rows()[0]
    assert state.results.key != key or state.results.condition_spec is None


def test_binomial_intervals_in_rows_table_and_csv(state, eval_):
    metrics, nber, det = MetricsView(state=state), NBERView(state=state), DETView(state=state)
    assert "act_dcf_lo" not in _row(state)
    assert not nber.ci_whisker.visible
    state.uncertainty.ci_method = "wilson"
    state.point.p_target = 0.005
    ref = operating_point_ci(eval_, plo=state.point.plo, method="wilson", confidence=0.95)
    row = _row(state)
    assert_allclose(row["p_miss_lo"], ref.p_miss.lower, rtol=1e-12)
    assert_allclose(row["p_fa_hi"], ref.p_fa.upper, rtol=1e-12)
    assert_allclose(row["act_dcf_lo"], ref.dcf.lower, rtol=1e-12)
    assert_allclose(row["act_dcf"], ref.dcf.estimate, rtol=1e-12)
    assert row["ci"] == "wilson 0.95" and row["ci_variance"] == "binomial"
    assert f"[{row['act_dcf_lo']:.4f}, {row['act_dcf_hi']:.4f}]" in metrics.table.object
    assert "Wilson intervals" in metrics.ci_note.object
    assert "(independent trials; binomial variance)" in metrics.ci_note.object
    header = state.export.metrics_csv().splitlines()[0].split(",")
    assert {"p_miss_lo", "p_fa_hi", "act_dcf_lo", "act_dcf_hi"} <= set(header)
    # whiskers at the operating point, following a drag
    assert nber.ci_whisker.visible and det.ci_x.visible and det.ci_y.visible
    assert nber.ci_source.data["x"][0] == state.point.plo
    assert_allclose(nber.ci_source.data["upper"][0], ref.dcf.upper, rtol=1e-12)
    state.point.plo = -2.0
    assert nber.ci_source.data["x"][0] == -2.0
    ref = operating_point_ci(eval_, plo=-2.0, method="wilson")
    assert_allclose(_row(state)["act_dcf_hi"], ref.dcf.upper, rtol=1e-12)
    # the exact method and another level
    state.uncertainty.param.update(ci_method="exact", ci_level=0.9)
    ref = operating_point_ci(eval_, plo=-2.0, method="clopper-pearson", confidence=0.9)
    assert_allclose(_row(state)["p_miss_hi"], ref.p_miss.upper, rtol=1e-12)
    state.uncertainty.ci_method = "off"
    assert "p_miss_lo" not in _row(state) and not nber.ci_whisker.visible


def test_weighted_intervals_use_the_weighted_pool(cstate, ceval):
    from llrlab.core.conditions import condition_weights

    cstate.conditions.weighting = "equal per condition"
    cstate.uncertainty.ci_method = "normal"
    ref = operating_point_ci(condition_weights(ceval, "equal").trials, plo=cstate.point.plo,
                             method="normal")
    assert_allclose(_row(cstate)["act_dcf_hi"], ref.dcf.upper, rtol=1e-12)


def test_bootstrap_runs_through_the_runner_and_is_cached(state, eval_, monkeypatch):
    calls = []
    real = compute.bootstrap

    def counting(*a, **kw):
        calls.append(kw.get("by"))
        return real(*a, **kw)

    monkeypatch.setattr(compute, "bootstrap", counting)
    metrics = MetricsView(state=state)
    state.uncertainty.boot_n = 50
    state.uncertainty.run_bootstrap(state.point.plo)
    assert state.status.error == "" and len(calls) == 2  # dev and eval
    ref = bootstrap_ci(eval_, plo=state.point.plo, n_boot=50, by="trial", seed=0)
    row = _row(state)
    assert_allclose([row["cllr_lo"], row["cllr_hi"]], [ref.cllr.lower, ref.cllr.upper])
    assert_allclose([row["min_dcf_lo"], row["eer_hi"]], [ref.min_dcf.lower, ref.eer.upper])
    assert f"[{row['cllr_lo']:.4f}, {row['cllr_hi']:.4f}]" in metrics.table.object
    assert "cllr_lo" in state.export.metrics_csv().splitlines()[0]
    # the note and the export name the interval kind
    assert "95 % BCa (Efron 1987) bootstrap intervals, 50 replicates by trial" in (
        metrics.ci_note.object)
    assert row["bootstrap"] == "bca 50 by trial 0.95"
    # same results, settings and operating point: cached
    state.uncertainty.run_bootstrap(state.point.plo)
    assert len(calls) == 2
    # a new operating point keeps Cllr and EER, and marks min DCF as stale
    state.point.plo = -3.0
    row = _row(state)
    assert row["cllr_lo"] == ref.cllr.lower and row["min_dcf_lo"] is None
    assert "other op. point" in metrics.table.object
    state.uncertainty.run_bootstrap(state.point.plo)
    assert len(calls) == 4 and _row(state)["min_dcf_lo"] is not None
    # other settings: nothing shown until asked
    state.uncertainty.boot_n = 60
    assert state.uncertainty.boot is None and "cllr_lo" not in _row(state)
    state.uncertainty.boot_n = 50
    assert state.uncertainty.boot is not None


def test_bootstrap_by_speaker_needs_ids(state):
    state.uncertainty.boot_by = "speaker"
    state.uncertainty.boot_n = 20
    state.uncertainty.run_bootstrap(state.point.plo)
    assert "needs (model, segment) ids" in state.status.error
    assert state.uncertainty.boot is None and not state.status.busy


def test_speaker_bootstrap_of_the_weighted_pool(cstate, ceval):
    from llrlab.core.conditions import condition_weights

    cstate.conditions.weighting = "equal per condition"
    cstate.uncertainty.param.update(boot_by="speaker", boot_n=30)
    cstate.uncertainty.run_bootstrap(cstate.point.plo)
    assert cstate.status.error == ""
    ref = bootstrap_ci(condition_weights(ceval, "equal").trials, plo=cstate.point.plo,
                       n_boot=30, by="speaker", seed=0)
    assert_allclose(_row(cstate)["eer_lo"], ref.eer.lower, rtol=1e-12)


def test_binomial_intervals_of_the_weighted_pool_use_the_variance_per_condition(cstate, ceval):
    from llrlab.core.conditions import condition_weights

    metrics = MetricsView(state=cstate)
    cstate.conditions.weighting = "equal per condition"
    cstate.uncertainty.ci_method = "wilson"
    assert cstate.status.error == ""
    ref = operating_point_ci(condition_weights(ceval, "equal").trials, plo=cstate.point.plo,
                             method="wilson")
    row = _row(cstate)
    assert row["ci_variance"] == "stratified" == ref.variance
    assert_allclose(row["act_dcf_hi"], ref.dcf.upper, rtol=1e-12)
    assert "variance stratified by condition (Cochran 1977)" in metrics.ci_note.object


def test_histograms_of_a_weighted_pool_count_trials_by_their_weights():
    from llrlab.core import Trials, analyze
    from llrlab.dashboard.compute import histogram

    # two non-targets at 0.5 (weight 3 each) and one at 1.5 (weight 1); one target
    t = Trials([0.5, 0.5, 1.5, 1.2], [False, False, False, True], weights=[3, 3, 1, 2])
    h = histogram(analyze(t), np.array([0.0, 1.0, 2.0]))
    np.testing.assert_allclose(h.non, [6 / 7, 1 / 7])
    np.testing.assert_allclose(h.tar, [0.0, 1.0])
    plain = histogram(analyze(t.with_weights(None)), np.array([0.0, 1.0, 2.0]))
    np.testing.assert_allclose(plain.non, [2 / 3, 1 / 3])
