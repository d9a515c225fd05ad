"""Forensic views (Meuwly, Ramos & Haraksim 2017; reliability diagrams): LLR units, Tippett
curves and reliability diagrams against hand-computed tables with ties, brute-force
definitions on random data, and properties."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose, assert_array_equal
from scipy.special import expit, logit

from llrlab.core import (
    LLR_UNITS,
    DataError,
    Trials,
    analyze,
    llr_from_unit,
    llr_label,
    llr_to_unit,
    reliability,
    tippett,
)
from llrlab.core.forensic import ReliabilityDiagram

from .reference import pav_llr

# --------------------------------------------------------------------------------- units


def test_units_convert_natural_log_llrs():
    assert float(llr_to_unit(np.log(1000.0), "log10")) == pytest.approx(3.0, rel=1e-15)
    assert float(llr_to_unit(np.log(2.0) * 5, "bits")) == pytest.approx(5.0, rel=1e-15)
    assert float(llr_to_unit(1.25, "ln")) == 1.25
    x = np.array([-3.0, 0.0, 0.5, 7.0])
    for unit in LLR_UNITS:
        assert_allclose(llr_from_unit(llr_to_unit(x, unit), unit), x, rtol=1e-15)
    assert llr_label("log10") == "log10(LR)"
    assert llr_label("ln") == "LLR (natural log)"
    assert "bits" in llr_label("bits")
    with pytest.raises(DataError, match="unknown LLR unit 'dB'"):
        llr_to_unit(1.0, "dB")


# ------------------------------------------------------------------------------- Tippett

# tar: -1, 2, 2 (tie); non: -3, 0, 1, 5.  P(tar >= x): 1 for x <= -1, 2/3 for -1 < x <= 2,
# 0 above.  P(non >= x): 1, 3/4 above -3, 2/4 above 0, 1/4 above 1, 0 above 5.
TAR = [-1.0, 2.0, 2.0]
NON = [-3.0, 0.0, 1.0, 5.0]


def test_tippett_hand_computed_corners_with_a_tie():
    c = tippett(TAR, NON)
    assert c.tar_llr.tolist() == [-1.0, -1.0, 2.0, 2.0]
    assert c.tar_ge.tolist() == [1.0, 2 / 3, 2 / 3, 0.0]
    assert c.non_llr.tolist() == [-3.0, -3.0, 0.0, 0.0, 1.0, 1.0, 5.0, 5.0]
    assert c.non_ge.tolist() == [1.0, 0.75, 0.75, 0.5, 0.5, 0.25, 0.25, 0.0]
    # misleading evidence: targets with LR < 1 (-1), non-targets with LR > 1 (1, 5);
    # the non-target at exactly LLR 0 supports neither
    assert c.rme_tar == 1 / 3
    assert c.rme_non == 0.5
    assert c.tolerance == 0.0


def test_tippett_read_back_equals_the_definition():
    c = tippett(TAR, NON)
    xs = np.array([-5.0, -3.0, -2.0, -1.0, -0.5, 0.0, 0.5, 1.0, 2.0, 3.0, 5.0, 6.0])
    t, n = c.at(xs)
    assert_array_equal(t, [np.mean(np.asarray(TAR) >= x) for x in xs])
    assert_array_equal(n, [np.mean(np.asarray(NON) >= x) for x in xs])


def test_tippett_at_the_bayes_threshold_is_one_minus_pmiss_and_pfa():
    rng = np.random.default_rng(3)
    tar, non = rng.normal(2, 1.5, 700).round(1), rng.normal(-1, 1.5, 1300).round(1)
    a = analyze(tar, non)
    c = tippett(a)
    for plo in (-3.0, -0.7, 0.0, 1.3, 4.0):
        op = a.at(plo)
        t, n = c.at(-plo)
        assert t == pytest.approx(1.0 - float(op.act.p_miss), abs=1e-15)
        assert n == float(op.act.p_fa)


def test_tippett_brute_force_on_random_data_with_ties_and_weights():
    rng = np.random.default_rng(11)
    tar, non = rng.integers(-5, 8, 60).astype(float), rng.integers(-8, 5, 90).astype(float)
    wt, wn = rng.uniform(0.1, 2, tar.size), rng.uniform(0.1, 2, non.size)
    c = tippett(tar, non, tar_weights=wt, non_weights=wn)
    for x in np.arange(-9.0, 9.5, 0.5):
        t, n = c.at(x)
        assert t == pytest.approx(wt[tar >= x].sum() / wt.sum(), rel=1e-13, abs=1e-15)
        assert n == pytest.approx(wn[non >= x].sum() / wn.sum(), rel=1e-13, abs=1e-15)
    assert c.rme_tar == pytest.approx(wt[tar < 0].sum() / wt.sum(), rel=1e-13)
    assert c.rme_non == pytest.approx(wn[non > 0].sum() / wn.sum(), rel=1e-13)


def test_tippett_is_exact_rational_on_unweighted_counts():
    rng = np.random.default_rng(5)
    tar = rng.integers(-20, 20, 337).astype(float)
    c = tippett(tar, [0.0])
    for v, s in zip(c.tar_llr[0::2], c.tar_ge[0::2], strict=True):
        assert s == float(Fraction(int((tar >= v).sum()), tar.size))


def test_tippett_accepts_trials_and_analysis_and_infinite_llrs():
    t = Trials(np.array([-1.0, 2.0, 2.0, -3.0, 0.0, 1.0, 5.0]),
               np.array([1, 1, 1, 0, 0, 0, 0], bool))
    ref = tippett(TAR, NON)
    for c in (tippett(t), tippett(analyze(t))):
        assert_array_equal(c.tar_ge, ref.tar_ge)
        assert_array_equal(c.non_llr, ref.non_llr)
    c = tippett([-np.inf, 1.0, np.inf], [2.0, -1.0])  # PAV can give infinite LLRs
    assert c.tar_llr.tolist() == [-np.inf, -np.inf, 1.0, 1.0, np.inf, np.inf]
    assert c.tar_ge.tolist() == pytest.approx([1.0, 2 / 3, 2 / 3, 1 / 3, 1 / 3, 0.0])


def test_tippett_decimates_long_curves_within_the_stated_tolerance():
    rng = np.random.default_rng(0)
    tar, non = rng.normal(2, 1, 50_000), rng.normal(-2, 1, 80_000)
    c = tippett(tar, non, max_points=500)
    assert c.tar_llr.size <= 500 and c.non_llr.size <= 500
    assert 0 < c.tolerance < 0.01
    # kept corners are exact corners: at each kept x the value is P(>= x) or P(> x)
    for x, s in zip(c.tar_llr[1:-1], c.tar_ge[1:-1], strict=True):
        assert s in (np.mean(tar >= x), np.mean(tar > x))
    assert c.tar_ge[0] == 1.0 and c.tar_ge[-1] == 0.0
    assert np.all(np.diff(c.tar_llr) >= 0) and np.all(np.diff(c.tar_ge) <= 0)
    # between kept corners the exact curve stays within the tolerance of the polyline
    st = np.sort(tar)
    for x in rng.uniform(st[0], st[-1], 300):
        exact = np.mean(tar >= x)
        drawn = np.interp(x, c.tar_llr, c.tar_ge)  # the polyline (steps are vertical)
        assert abs(exact - drawn) <= c.tolerance + 1e-12


def test_tippett_bad_input():
    with pytest.raises(DataError, match="max_points"):
        tippett(TAR, NON, max_points=2)
    with pytest.raises(TypeError, match="non-target scores are missing"):
        tippett(TAR)
    with pytest.raises(DataError, match="NaN"):
        tippett([np.nan], NON)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(-6, 6), min_size=1, max_size=25),
       st.lists(st.integers(-6, 6), min_size=1, max_size=25))
def test_tippett_properties(t, n):
    tar, non = np.array(t, float), np.array(n, float)
    c = tippett(tar, non)
    for llr, ge in ((c.tar_llr, c.tar_ge), (c.non_llr, c.non_ge)):
        assert ge[0] == 1.0 and ge[-1] == 0.0
        assert np.all(np.diff(ge) <= 0) and np.all(np.diff(llr) >= 0)
    # swapping the classes and negating the LLRs mirrors the curves: P(-non >= x) is
    # P(non <= -x) = 1 - P(non > -x)
    m = tippett(-non, -tar)
    for x in np.arange(-7.0, 7.5, 0.5):
        assert m.at(x)[0] == pytest.approx(np.mean(non <= -x))
    assert c.rme_tar == np.mean(tar < 0) and c.rme_non == np.mean(non > 0)


# --------------------------------------------------------------------------- reliability


def brute_reliability_bins(tar, non, plo, bins, wt=None, wn=None):
    """Per bin of predicted posterior (membership by LLR, see ``reliability``), every trial
    weighted prior/T or (1-prior)/N: (mean predicted, target share, t count, n count)."""
    wt = np.ones(len(tar)) if wt is None else wt
    wn = np.ones(len(non)) if wn is None else wn
    p = expit(plo)
    edges = np.linspace(0, 1, bins + 1)
    with np.errstate(divide="ignore"):
        cut = logit(edges) - plo
    out = []
    for k in range(bins):
        it = (tar >= cut[k]) & ((tar < cut[k + 1]) | (k == bins - 1))
        inn = (non >= cut[k]) & ((non < cut[k + 1]) | (k == bins - 1))
        if not (it.any() or inn.any()):
            continue
        w = np.concatenate([p * wt[it] / wt.sum(), (1 - p) * wn[inn] / wn.sum()])
        q = expit(np.concatenate([tar[it], non[inn]]) + plo)
        y = np.concatenate([np.ones(it.sum()), np.zeros(inn.sum())])
        out.append((np.sum(w * q) / w.sum(), np.sum(w * y) / w.sum(), wt[it].sum(),
                    wn[inn].sum()))
    return np.array(out).T


def test_reliability_bins_hand_computed():
    # plo = 0, two bins split at LLR 0.  Bin 0: tar -1, non -3 (LLR 0 goes up); bin 1:
    # tar 2, 2, non 0, 1, 5.  Weights 1/(2*3) per target, 1/(2*4) per non-target.
    r = reliability(TAR, NON, method="bins", bins=2)
    assert r.n_tar.tolist() == [1.0, 2.0] and r.n_non.tolist() == [1.0, 3.0]
    wt, wn = 1 / 6, 1 / 8
    w0, w1 = wt + wn, 2 * wt + 3 * wn
    assert_allclose(r.empirical, [wt / w0, 2 * wt / w1], rtol=1e-15)
    pred0 = (wt * expit(-1.0) + wn * expit(-3.0)) / w0
    pred1 = (2 * wt * expit(2.0) + wn * (expit(0.0) + expit(1.0) + expit(5.0))) / w1
    assert_allclose(r.predicted, [pred0, pred1], rtol=1e-15)
    assert r.edges.tolist() == [0.0, 0.5, 1.0]


@pytest.mark.parametrize("plo", [-4.0, -1.0, 0.0, 2.5])
@pytest.mark.parametrize("weighted", [False, True])
def test_reliability_bins_brute_force(plo, weighted):
    rng = np.random.default_rng(7)
    tar, non = rng.normal(1.5, 2, 400).round(2), rng.normal(-1.5, 2, 900).round(2)
    wt = rng.uniform(0.2, 3, tar.size) if weighted else None
    wn = rng.uniform(0.2, 3, non.size) if weighted else None
    r = reliability(tar, non, plo=plo, method="bins", bins=10, tar_weights=wt,
                    non_weights=wn)
    pred, emp, ct, cn = brute_reliability_bins(tar, non, plo, 10, wt, wn)
    assert_allclose(r.predicted, pred, rtol=1e-12)
    assert_allclose(r.empirical, emp, rtol=1e-12, atol=1e-300)
    assert_allclose(r.n_tar, ct, rtol=1e-13)
    assert_allclose(r.n_non, cn, rtol=1e-13)


def test_reliability_pav_is_the_recalibrated_posterior_of_every_trial():
    rng = np.random.default_rng(2)
    tar, non = rng.normal(1, 1.2, 300).round(1), rng.normal(-1, 1.2, 500).round(1)
    lt, ln = pav_llr(tar, non)  # scikit-learn's isotonic regression, per trial
    for plo in (-2.0, 0.0, 1.5):
        r = reliability(tar, non, plo=plo, method="pav")
        # every trial's (predicted, PAV posterior) lies on the step function's corners'
        # horizontal segments: at its LLR, between a block's lower and upper corner
        x, y = r.llr, r.pav_llr
        for s, ref in zip(np.concatenate([tar, non]), np.concatenate([lt, ln]), strict=True):
            j = np.flatnonzero((x[0::2] <= s) & (s <= x[1::2]))
            assert j.size == 1
            assert y[0::2][j[0]] == pytest.approx(ref, rel=1e-12, abs=1e-12)
        assert_allclose(r.predicted, expit(x + plo), rtol=0)
        assert_allclose(r.empirical, expit(y + plo), rtol=0)
        assert r.n_tar.sum() == 2 * tar.size and r.n_non.sum() == 2 * non.size


def test_reliability_pav_moves_to_another_prior_without_the_scores():
    rng = np.random.default_rng(4)
    tar, non = rng.normal(1, 1, 200), rng.normal(-1, 1, 300)
    a = analyze(tar, non)
    r0 = reliability(a, method="pav")
    for plo in (-3.0, 0.7):
        r = r0.at_plo(plo)
        ref = reliability(a, plo=plo, method="pav")
        assert_array_equal(r.predicted, ref.predicted)
        assert_array_equal(r.empirical, ref.empirical)
        assert r.plo == plo
    with pytest.raises(DataError, match="compute the binned one again"):
        reliability(a, method="bins").at_plo(1.0)


def test_reliability_of_calibrated_llrs_is_close_to_the_diagonal():
    # LLRs of two Gaussians with equal variance are calibrated: lr = exp(llr)
    rng = np.random.default_rng(1)
    mu = 2.0
    tar = rng.normal(mu / 2, np.sqrt(mu), 200_000)
    non = rng.normal(-mu / 2, np.sqrt(mu), 200_000)
    for plo in (-2.0, 0.0, 2.0):
        r = reliability(tar, non, plo=plo, method="bins", bins=10)
        big = (r.n_tar > 3000) & (r.n_non > 3000)  # sampling noise ~ 1/sqrt(3000)
        assert big.sum() >= 4
        assert np.max(np.abs(r.predicted[big] - r.empirical[big])) < 0.02
    # a scale miscalibration (LLR x 3) is far from it
    r = reliability(3 * tar, 3 * non, method="bins", bins=10)
    assert np.max(np.abs(r.predicted - r.empirical)) > 0.1


def test_reliability_decimates_the_pav_steps():
    rng = np.random.default_rng(9)
    tar, non = rng.normal(1, 1, 100_000), rng.normal(-1, 1, 100_000)
    r = reliability(tar, non, method="pav", max_points=200)
    assert r.llr.size <= 200
    assert np.all(r.llr[1:] >= r.llr[:-1]) and np.all(r.pav_llr[1:] >= r.pav_llr[:-1])
    assert np.isneginf(r.pav_llr[0]) and np.isposinf(r.pav_llr[-1])  # pure end blocks


def test_reliability_bad_input():
    with pytest.raises(DataError, match="unknown reliability method 'iso'"):
        reliability(TAR, NON, method="iso")
    with pytest.raises(DataError, match="bins must be at least 1"):
        reliability(TAR, NON, method="bins", bins=0)
    with pytest.raises(DataError, match="NaN"):
        reliability(TAR, NON, plo=np.nan)
    assert isinstance(reliability(TAR, NON), ReliabilityDiagram)
