"""Calibration and fusion: agreement with independent optimizers, PAV properties, bad input."""

from __future__ import annotations

import json

import numpy as np
import pytest
from scipy.optimize import minimize
from scipy.special import logit

from llrlab.core import (
    DataError,
    FileFormatError,
    SeparableDataWarning,
    Trials,
    act_dcf,
    cllr,
    min_dcf,
)
from llrlab.core.calibration import (
    apply_fusion,
    from_dict,
    load_calibrator,
    train_affine,
    train_fusion,
    train_pav,
)


def _ce(a, b, tar, non, p):
    o = logit(p)
    return p * np.mean(np.logaddexp(0, -(a * tar + b + o))) + (1 - p) * np.mean(
        np.logaddexp(0, a * non + b + o))


@pytest.mark.parametrize("p", [0.5, 0.01, 0.9])
def test_affine_matches_bfgs_and_sklearn(p):
    rng = np.random.default_rng(1)
    tar, non = rng.normal(3, 2, 300), rng.normal(0, 1, 30_000)  # 1:100 imbalance
    cal = train_affine(Trials.from_tar_non(tar, non), prior=p)
    ref = minimize(lambda w: _ce(w[0], w[1], tar, non, p), [1.0, 0.0], method="BFGS",
                   options={"gtol": 1e-12})
    assert cal.scale == pytest.approx(ref.x[0], rel=1e-6)
    assert cal.offset == pytest.approx(ref.x[1], rel=1e-6, abs=1e-6)
    from sklearn.linear_model import LogisticRegression

    x = np.r_[tar, non][:, None]
    y = np.r_[np.ones(tar.size), np.zeros(non.size)]
    w = np.r_[np.full(tar.size, p / tar.size), np.full(non.size, (1 - p) / non.size)]
    lr = LogisticRegression(C=np.inf, tol=1e-12, max_iter=10_000).fit(
        x, y, sample_weight=w * y.size)
    assert cal.scale == pytest.approx(lr.coef_[0, 0], rel=1e-5)
    # sklearn's intercept includes the prior log-odds added inside the objective
    assert cal.offset + logit(p) == pytest.approx(lr.intercept_[0], rel=1e-5, abs=1e-5)


def test_affine_recovers_identity_on_calibrated_llrs():
    rng = np.random.default_rng(2)
    m = 2.0  # LLRs of N(m, 2m) vs N(-m, 2m) are calibrated
    tar, non = rng.normal(m, np.sqrt(2 * m), 200_000), rng.normal(-m, np.sqrt(2 * m), 200_000)
    cal = train_affine(Trials.from_tar_non(tar, non))
    assert cal.scale == pytest.approx(1.0, abs=0.02)
    assert cal.offset == pytest.approx(0.0, abs=0.02)
    assert cal.cllr_after <= cal.cllr_before + 1e-12


def test_separable_data_warn_and_stay_finite():
    with pytest.warns(SeparableDataWarning, match="separable"):
        cal = train_affine(Trials.from_tar_non([2.0, 3.0, 4.0], [-1.0, 0.0, 1.0]))
    assert np.isfinite(cal.scale) and cal.scale > 0


def test_pav_calibrator_train_min_dcf_and_finite_eval():
    rng = np.random.default_rng(3)
    t = Trials.from_tar_non(np.round(rng.normal(2, 1, 500), 1), np.round(rng.normal(0, 1, 2000), 1))
    cal = train_pav(t)
    llr = cal(t)
    plo = np.linspace(-4, 4, 41)
    # within the training set the map reproduces the PAV LLRs except at pure end blocks,
    # where it is finite: the actual DCF equals the minimum DCF away from those extremes
    mid = np.abs(plo) < 2
    assert np.allclose(act_dcf(llr, plo=plo[mid]).dcf, min_dcf(t, plo=plo[mid]).dcf, atol=1e-12)
    ev = cal(rng.normal(0, 5, 1000))
    assert np.all(np.isfinite(ev)) and np.all(np.diff(cal(np.sort(rng.normal(0, 5, 99)))) >= 0)


def test_fusion_beats_each_system():
    rng = np.random.default_rng(4)

    def make(n, seed):
        r = np.random.default_rng(seed)
        lab = r.random(n) < 0.2
        base = np.where(lab, 1.5, -1.5)
        s1 = base + r.normal(0, 1.5, n)
        s2 = 0.5 * base + 0.5 * (s1 - base) + r.normal(0, 1.2, n)
        ids = np.array([f"m{i}" for i in range(n)])
        seg = np.array(["s"] * n)
        return (Trials(s1, lab, model_ids=ids, segment_ids=seg),
                Trials(s2, lab, model_ids=ids, segment_ids=seg))

    dev, ev = make(20_000, 1), make(20_000, 2)
    fus = train_fusion(list(dev))
    fused = apply_fusion(fus, list(ev))
    single = [cllr(e.with_scores(train_affine(d)(e.scores))) for d, e in zip(dev, ev,
                                                                               strict=True)]
    assert cllr(fused) < min(single)
    assert rng is not None


def test_round_trip_and_bad_json(tmp_path):
    cal = train_affine(Trials.from_tar_non([1.0, 2.0, 0.5], [0.0, 1.5, -1.0, 0.8]))
    assert from_dict(json.loads(json.dumps(cal.to_dict()))) == cal
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(FileFormatError, match=r"bad\.json.*not valid JSON"):
        load_calibrator(bad)
    bad.write_text(json.dumps({"llrlab_calibrator": 1, "kind": "affine"}))
    with pytest.raises(FileFormatError, match="missing field"):
        load_calibrator(bad)


def test_bad_dev_sets():
    with pytest.raises(DataError, match="no non-target"):
        train_affine(Trials.from_tar_non([1.0, 2.0], []))
    with pytest.raises(DataError, match="no target"):
        train_pav(Trials.from_tar_non([], [1.0]))
    with pytest.raises(DataError, match="NaN"):
        Trials.from_tar_non([np.nan], [1.0])
    a = Trials(np.array([1.0, 0.0]), np.array([True, False]), model_ids=["a", "b"],
               segment_ids=["x", "x"])
    b = Trials(np.array([1.0, 0.0]), np.array([True, False]), model_ids=["c", "d"],
               segment_ids=["x", "x"])
    with pytest.raises(DataError, match="share no trial"):
        train_fusion([a, b])
