"""The dashboard state, tested by setting parameters (no widgets, no browser)."""

from __future__ import annotations

import csv
import io
import math

import numpy as np
import pytest
from numpy.testing import assert_allclose
from scipy.special import expit, logit

from llrlab.core import analyze, gaussian_trials, probit
from llrlab.dashboard import compute
from llrlab.dashboard.state import DashboardState

from .conftest import count_heavy, make_trials


def test_p_target_sets_plo_and_effective_prior(state):
    state.point.p_target = 0.001
    assert_allclose(state.point.plo, logit(0.001), rtol=1e-12)
    assert_allclose(state.point.effective_prior, 0.001, rtol=1e-12)
    state.point.c_miss = 10.0
    # plo = logit(p_target) + log(c_miss / c_fa)  (CONVENTIONS "Symbols")
    assert_allclose(state.point.plo, logit(0.001) + math.log(10.0), rtol=1e-12)
    assert_allclose(state.point.effective_prior, expit(logit(0.001) + math.log(10.0)),
                    rtol=1e-12)


def test_plo_and_effective_prior_keep_the_costs(state):
    state.point.param.update(c_miss=10.0, c_fa=2.0)
    state.point.plo = -3.0
    assert (state.point.c_miss, state.point.c_fa) == (10.0, 2.0)
    assert_allclose(state.point.effective_prior, expit(-3.0), rtol=1e-12)
    assert_allclose(state.point.p_target, expit(-3.0 - math.log(5.0)), rtol=1e-12)
    state.point.effective_prior = 0.2
    assert_allclose(state.point.plo, logit(0.2), rtol=1e-12)
    assert_allclose(state.point.p_target, expit(logit(0.2) - math.log(5.0)), rtol=1e-12)


def test_operating_point_metrics_come_from_analysis_at(state, eval_):
    state.point.p_target = 0.002
    ref = analyze(eval_).at(logit(0.002))
    row = {r["role"]: r for r in state.export.metrics_rows()}["eval"]
    assert_allclose(row["act_dcf"], ref.act_dcf, rtol=1e-12)
    assert_allclose(row["min_dcf"], ref.min_dcf, rtol=1e-12)
    assert row["misses"] == int(ref.act.misses)
    assert row["false_alarms"] == int(ref.act.false_alarms)
    assert row["dr30_safe"] == ref.dr30_safe
    assert row["n_tar"] == eval_.n_tar and row["n_non"] == eval_.n_non


def test_dr30_warning_names_the_dataset(state):
    state.point.plo = -15.0
    assert not all(r["dr30_safe"] for r in state.export.metrics_rows())
    text = state.export.dr30_warning()
    assert "DR30" in text and "false alarms" in text
    state.point.plo = -1.0
    assert all(r["dr30_safe"] for r in state.export.metrics_rows())
    assert state.export.dr30_warning() == ""


def test_changing_the_operating_point_does_not_reanalyze(state, monkeypatch):
    calls = count_heavy(monkeypatch, ("analyze", "analyze_transformed"))
    results = state.results
    for plo in np.linspace(-6, 2, 25):
        state.point.plo = float(plo)
    state.point.p_target = 0.3
    state.point.c_fa = 3.0
    state.point.effective_prior = 0.05
    assert calls == []
    assert state.results is results
    # a new calibration is computed once, then served from the cache
    state.calibration.method = "affine"
    n = len(calls)
    assert n > 0
    state.calibration.method = "none"
    state.calibration.method = "affine"
    assert len(calls) == n


def test_calibration_changes_eval_actual_dcf(state):
    state.point.p_target = 0.01
    before = {r["role"]: r for r in state.export.metrics_rows()}["eval"]
    state.calibration.method = "affine"
    assert state.status.error == ""
    after = {r["role"]: r for r in state.export.metrics_rows()}["eval"]
    assert after["act_dcf"] != before["act_dcf"]
    # calibration trained on a mildly shifted dev set brings eval close to its min DCF
    assert after["act_dcf"] < before["act_dcf"]
    # an increasing affine map keeps the ROC: min DCF and EER do not change
    assert_allclose(after["min_dcf"], before["min_dcf"], rtol=1e-12)
    assert_allclose(after["eer"], before["eer"], rtol=1e-12)
    state.calibration.method = "pav"
    assert state.status.error == ""
    pav = {r["role"]: r for r in state.export.metrics_rows()}["eval"]
    assert pav["act_dcf"] != before["act_dcf"]
    d = state.export.calibration_dict()
    assert d is not None and d["method"] == "pav"


def test_threshold_score_inverts_the_calibration(state):
    state.calibration.method = "affine"
    res = state.results
    for plo in (-4.0, -1.0, 0.5):
        s = res.threshold_score(plo)
        assert_allclose(res.calibration.apply(np.array([s]))[0], -plo, atol=1e-6)
        assert_allclose(res.plo_of_score(s), plo, atol=1e-6)
    state.set_threshold_score(res.threshold_score(-2.5))
    assert_allclose(state.point.plo, -2.5, atol=1e-6)


def test_uncalibrated_threshold_is_minus_plo(state):
    state.point.plo = -2.0
    assert state.results.threshold_score(state.point.plo) == 2.0
    state.set_threshold_score(1.25)
    assert state.point.plo == -1.25


def test_pick_det_moves_to_a_min_dcf_point(state):
    d = state.results.datasets["eval"]
    i = d.pick_x.size // 3
    state.pick_det(float(d.pick_x[i]) + 1e-3, float(d.pick_y[i]))
    assert_allclose(state.point.plo, d.pick_plo[i])
    op = state.op["eval"]
    assert_allclose(probit(op.min.p_fa), d.pick_x[i])
    assert_allclose(probit(op.min.p_miss), d.pick_y[i])


def test_calibration_without_dev_is_refused_and_reverted(eval_):
    st = DashboardState()
    st.data.set_trials("A", "eval", eval_)
    res = st.results
    st.calibration.method = "affine"
    assert "dev set" in st.status.error
    assert st.calibration.method == "none"
    assert st.results is res


def test_bad_file_keeps_previous_data(state, tmp_path):
    bad = tmp_path / "broken_scores.txt"
    bad.write_text("m1 s1 0.5\nm1 s2 not-a-number\n")
    systems, results = state.data.systems, state.results
    state.data.load_files([("A", "eval", str(bad), None)])
    assert "broken_scores.txt" in state.status.error
    assert "Traceback" not in state.status.error
    assert state.data.systems is systems
    assert state.results is results
    assert not state.status.busy


def test_missing_file_message_uses_the_display_name(state, tmp_path):
    path = tmp_path / "hidden" / "x.txt"
    state.data.load_files([("A", "eval", str(path), None)],
                          display={str(path): "my_upload.txt"})
    assert state.status.error.startswith("my_upload.txt")
    assert str(tmp_path) not in state.status.error


def test_good_file_adds_a_system(state, tmp_path):
    from llrlab.core.io import write_trials

    t = make_trials(5_000, seed=7, ids=True)
    path = tmp_path / "labelled.txt"
    write_trials(str(path), t)
    state.data.load_files([("B", "eval", str(path), None)])
    assert state.status.error == ""
    assert set(state.data.systems) == {"A", "B"}
    assert state.data.system == "B"
    assert_allclose(np.sort(state.data.systems["B"].eval.scores), np.sort(t.scores))
    assert set(state.results.datasets) == {"eval"}


def test_fusion_of_two_aligned_systems(dev, eval_):
    st = DashboardState()
    st.data.set_trials("A", "dev", dev)
    st.data.set_trials("A", "eval", eval_)
    rng = np.random.default_rng(3)
    st.data.set_trials("B", "dev", dev.with_scores(dev.scores + rng.normal(0, 1, len(dev))))
    st.data.set_trials("B", "eval",
                       eval_.with_scores(eval_.scores + rng.normal(0, 1, len(eval_))))
    st.calibration.fusion = True
    assert st.status.error == ""
    assert st.results.calibration is not None
    assert all("fused" in r["dataset"] for r in st.export.metrics_rows())
    assert st.export.calibration_dict() is not None
    fused = st.export.calibrated_eval()
    assert len(fused) == len(eval_)


def test_teaching_mode_reproduces_figure_1_of_the_bosaris_paper():
    st = DashboardState(snapshot={"teaching": {"enabled": True}})
    st.teaching.param.update(n_tar=3000, n_non=30_000, seed=5)
    res = st.results
    assert set(res.datasets) == {"dev", "eval", "true"}
    true = gaussian_trials(3000, 30_000, seed=5)
    ref = analyze(true).at(st.point.plo)
    assert_allclose(st.op["true"].act_dcf, ref.act_dcf, rtol=1e-12)
    # a miscalibration (scale, shift) of the true LLR changes act DCF, never min DCF
    st.teaching.param.update(scale=0.5, shift=1.0)
    mis = gaussian_trials(3000, 30_000, seed=5, scale=0.5, shift=1.0)
    ref_mis = analyze(mis).at(st.point.plo)
    assert_allclose(st.op["eval"].act_dcf, ref_mis.act_dcf, rtol=1e-12)
    assert_allclose(st.op["eval"].min_dcf, st.op["true"].min_dcf, rtol=1e-12)
    assert st.op["eval"].act_dcf > st.op["true"].act_dcf
    assert len(st.nber.references) == len(compute.TEACHING_REFERENCES)


def test_nber_range_recomputes_curves_only(state, monkeypatch):
    called = count_heavy(monkeypatch)
    state.display.nber_range = (-10.0, 5.0)
    assert called == []
    assert state.nber.plo[0] == -10.0 and state.nber.plo[-1] == 5.0


def test_metrics_csv_has_one_row_per_dataset(state):
    text = state.export.metrics_csv().splitlines()
    assert text[0].startswith("p_target,c_miss,c_fa,effective_prior,plo,system,calibration,"
                              "role,dataset")
    assert len(text) == 3
    # which system and which calibration the numbers are of
    rows = list(csv.DictReader(io.StringIO(state.export.metrics_csv())))
    assert [(r["system"], r["calibration"], r["role"]) for r in rows] == [
        ("A", "none", "dev"), ("A", "none", "eval")]
    state.calibration.method = "affine"
    rows = list(csv.DictReader(io.StringIO(state.export.metrics_csv())))
    assert {r["calibration"] for r in rows} == {"affine, prior 0.5"}
    state.calibration.method = "pav"
    rows = list(csv.DictReader(io.StringIO(state.export.metrics_csv())))
    assert {r["calibration"] for r in rows} == {"pav"}
    state.teaching.enabled = True
    rows = list(csv.DictReader(io.StringIO(state.export.metrics_csv())))
    assert {r["system"] for r in rows} == {"synthetic (teaching mode)"}


def test_stale_results_are_not_applied():
    """A slow job that finishes after a newer request must not overwrite its result."""
    pending = []

    class Deferred:
        def run(self, job, on_done, on_error, on_progress):
            pending.append((job, on_done, on_progress))

    st = DashboardState(runner=Deferred())
    a, b = make_trials(3000, seed=1), make_trials(3000, seed=2)
    st.data.set_trials("A", "eval", a)
    st.data.set_trials("A", "eval", b)
    assert len(pending) == 3  # the empty start, then one per set_trials
    newest = pending[-1]
    newest[1](newest[0](newest[2]))
    for job, on_done, on_progress in (pending[1], pending[0]):  # stale ones finish last
        on_done(job(on_progress))
    assert st.results.datasets["eval"].llr.n_tar == b.n_tar
    assert not st.status.busy  # every job ended, the stale one included
    assert_allclose(st.results.datasets["eval"].llr.cllr, analyze(b).cllr)


@pytest.mark.parametrize("method", ["affine", "pav"])
def test_calibrated_eval_is_in_file_order(state, eval_, method):
    state.calibration.method = method
    t = state.export.calibrated_eval()
    assert_allclose(t.scores, state.results.calibration.apply(eval_.scores))
    assert (t.labels == eval_.labels).all()
