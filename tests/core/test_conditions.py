"""Condition-weighted pooling (van Leeuwen 2008): hand-computed case, per-condition averages,
brute force on the weighted definitions, equal weights == plain pool, selection, errors."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose, assert_array_equal
from scipy.optimize import isotonic_regression
from scipy.special import expit, logit

from llrlab.core import DataError, Trials, analyze, gaussian_trials
from llrlab.core.conditions import (
    by_condition,
    condition_weights,
    parse_condition_weights,
)

# ---------------------------------------------------------------------------------------
# Layer 1: two conditions of unequal size, computed by hand.
#
#   A: tar 1.0, 3.0                 non -2.0, 0.5, -1.0, -3.0     N_tar^A = 2, N_non^A = 4
#   B: tar 0.2, -0.5, -0.7, 1.5     non 0.0, -1.5                 N_tar^B = 4, N_non^B = 2
#   N_tar = N_non = 6.  Equal weights w_A = w_B = 1/2 give (van Leeuwen 2008, eq. 12)
#   beta_tar^A = 0.5/(2/6) = 1.5,  beta_tar^B = 0.5/(4/6) = 0.75,
#   beta_non^A = 0.5/(4/6) = 0.75, beta_non^B = 0.5/(2/6) = 1.5.
#
# Actual decisions at plo = 0 (threshold 0, accept s >= 0):
#   A: misses 0/2, false alarms {0.5} 1/4      -> actDCF_A = 0 + 1/4 = 1/4
#   B: misses {-0.5, -0.7} 2/4, fa {0.0} 1/2   -> actDCF_B = 1/2 + 1/2 = 1
#   pool: Pmiss = (0 + 1/2)/2 = 1/4, Pfa = (1/4 + 1/2)/2 = 3/8, actDCF = 5/8
#   (plain pool: Pmiss = 2/6, Pfa = 2/6, actDCF = 2/3).
#
# Weighted sweep (score:class(beta)), sorted:
#   -3n(.75) -2n(.75) -1.5n(1.5) -1n(.75) -0.7t(.75) -0.5t(.75) 0n(1.5) 0.2t(.75) 0.5n(.75)
#   1t(1.5) 1.5t(.75) 3t(1.5); Pmiss + Pfa at the thresholds -0.7, 0.2, 1.0 is
#   0 + 2.25/6, 1.5/6 + 0.75/6, 2.25/6 + 0 = 3/8 each, the minimum: minDCF(0) = 3/8.
#   Per condition: A separable (minDCF 0), B: 1/2 -> average 1/4 < 3/8.
# ROCCH: (1,0) ... (3/8, 0), (1/8, 1/4), (0, 3/8), (0, 1); the first three are collinear
#   (slope -1), so the hull is the segment Pfa + Pmiss = 3/8 and EER = 3/16.
# Weighted PAV: pure non-target block (weight 3.75), then {-0.7t, -0.5t, 0n} = 1.5 : 1.5 and
#   {0.2t, 0.5n} = .75 : .75 (equal proportions, pooled): 2.25 : 2.25, LLR log(1) - log(6/6)
#   = 0; then pure targets.  minCllr = [2.25/6 ln 2 + 2.25/6 ln 2] / (2 ln 2) = 3/8.
#   Per condition: A 0; B blocks {n}, {t t n} (LLR log 2 - log 2 = 0), {t t}:
#   minCllr_B = (2/4 ln 2 + 1/2 ln 2)/(2 ln 2) = 1/2 -> average 1/4 < 3/8.
# Custom weights {A: 3, B: 1} -> w = (3/4, 1/4): Pmiss = 1/8, Pfa = 3/16 + 1/8 = 5/16.
# ---------------------------------------------------------------------------------------
TOY = Trials([1.0, 3.0, -2.0, 0.5, -1.0, -3.0, 0.2, -0.5, -0.7, 1.5, 0.0, -1.5],
             [1, 1, 0, 0, 0, 0, 1, 1, 1, 1, 0, 0], conditions=["A"] * 6 + ["B"] * 6,
             source="toy.txt")


def _cllr_by_formula(tar, non):
    return (np.mean(np.logaddexp(0, -tar)) + np.mean(np.logaddexp(0, non))) / (2 * np.log(2))


def test_hand_computed_weights():
    cw = condition_weights(TOY)
    assert cw.conditions.tolist() == ["A", "B"]
    assert_array_equal(cw.n_tar, [2, 4])
    assert_array_equal(cw.n_non, [4, 2])
    assert_array_equal(cw.w_tar, [0.5, 0.5])
    assert_array_equal(cw.beta_tar, [1.5, 0.75])
    assert_array_equal(cw.beta_non, [0.75, 1.5])
    assert cw.reweighted
    assert_array_equal(cw.trials.weights, [1.5, 1.5, .75, .75, .75, .75,
                                           .75, .75, .75, .75, 1.5, 1.5])
    # The class totals of the plain pool are kept: sum beta = N_c.
    assert cw.trials.weights[TOY.labels].sum() == 6.0
    assert cw.trials.weights[~TOY.labels].sum() == 6.0


def test_hand_computed_measures():
    r = by_condition(TOY, plo=0.0)
    assert_array_equal(r.p_miss, [0.0, 0.5])
    assert_array_equal(r.p_fa, [0.25, 0.5])
    assert_array_equal(r.act_dcf, [0.25, 1.0])
    assert_array_equal(r.min_dcf, [0.0, 0.5])
    assert_allclose(r.min_cllr, [0.0, 0.5], rtol=1e-15)
    w = r.pooled_summary()
    assert (w["p_miss"], w["p_fa"], w["act_dcf"], w["min_dcf"]) == (0.25, 0.375, 0.625, 0.375)
    assert w["eer"] == pytest.approx(3 / 16, rel=1e-15)
    assert w["min_cllr"] == pytest.approx(3 / 8, rel=1e-15)
    assert (w["n_tar"], w["n_non"]) == (6, 6)
    u = r.pooled_summary("unweighted")
    assert (u["p_miss"], u["p_fa"]) == (2 / 6, 2 / 6)
    assert u["act_dcf"] == pytest.approx(2 / 3, rel=1e-15)
    # Cllr: eq. 11, the w-average of the per-condition formula values.
    ca = _cllr_by_formula(np.array([1.0, 3.0]), np.array([-2.0, 0.5, -1.0, -3.0]))
    cb = _cllr_by_formula(np.array([0.2, -0.5, -0.7, 1.5]), np.array([0.0, -1.5]))
    assert_allclose(r.cllr, [ca, cb], rtol=1e-14)
    assert w["cllr"] == pytest.approx(0.5 * ca + 0.5 * cb, rel=1e-14)


def test_hand_computed_custom_weights():
    r = by_condition(TOY, {"A": 3, "B": 1}, plo=0.0)
    assert_array_equal(r.weights.w_tar, [0.75, 0.25])
    w = r.pooled_summary()
    assert w["p_miss"] == pytest.approx(1 / 8, rel=1e-15)
    assert w["p_fa"] == pytest.approx(5 / 16, rel=1e-15)
    assert w["act_dcf"] == pytest.approx(7 / 16, rel=1e-15)


# ---------------------------------------------------------------------------------------
# Layer 2: weighted pool == w-average of the conditions (Pmiss, Pfa, act DCF, Cllr), and
# brute force on the weighted definitions (minDCF, EER, minCllr).
# ---------------------------------------------------------------------------------------


def _random_trials(rng, n_cond, *, max_n=40, ties=False):
    scores, labels, conds = [], [], []
    for k in range(n_cond):
        nt, nn = rng.integers(1, max_n, size=2)
        d = rng.uniform(0.0, 3.0)
        t, n = rng.normal(d - 1, 1.0, nt), rng.normal(-1, rng.uniform(0.5, 2), nn)
        if ties:
            t, n = np.round(t, 1), np.round(n, 1)
        scores += [t, n]
        labels += [np.ones(nt, bool), np.zeros(nn, bool)]
        conds += [np.full(nt + nn, f"c{k}")]
    perm = rng.permutation(sum(map(len, scores)))
    return Trials(np.concatenate(scores)[perm], np.concatenate(labels)[perm],
                  conditions=np.concatenate(conds)[perm])


def _weights_for(rng, n_cond, kind):
    if kind == "equal":
        return "equal", np.full(n_cond, 1 / n_cond)
    w = rng.uniform(0.1, 5.0, n_cond)
    return {f"c{k}": float(w[k]) for k in range(n_cond)}, w / w.sum()


def _rates(t, thr):
    """Definitions: Pmiss(t) = #(tar < t)/T, Pfa(t) = #(non >= t)/N, per threshold."""
    tar, non = t.tar, t.non
    pm = (tar[None, :] < thr[:, None]).mean(axis=1)
    pf = (non[None, :] >= thr[:, None]).mean(axis=1)
    return pm, pf


def _pooled_rates(t, w, thr):
    """van Leeuwen (2008), eq. 3-4: sum_alpha w_alpha * P_alpha(t)."""
    pm, pf = np.zeros(thr.size), np.zeros(thr.size)
    for k, c in enumerate(np.unique(t.conditions)):
        a, b = _rates(t.subset(t.conditions == c), thr)
        pm += w[k] * a
        pf += w[k] * b
    return pm, pf


def _brute_min_dcf(pm, pf, plo):
    pt = expit(plo)
    return np.min(pt * pm + (1 - pt) * pf) / min(pt, 1 - pt)


def _brute_eer(pm, pf):
    """max over pt of min over thresholds of pt*Pmiss + (1-pt)*Pfa (CONVENTIONS.md).

    The lower envelope is concave and piecewise linear in pt; its maximum is at 0, 1 or
    a crossing of two of the lines."""
    i, j = np.triu_indices(pm.size, 1)
    den = (pm[i] - pf[i]) - (pm[j] - pf[j])
    with np.errstate(divide="ignore", invalid="ignore"):
        cross = (pf[j] - pf[i]) / den
    cand = np.concatenate([[0.0, 1.0], cross[np.isfinite(cross) & (cross >= 0)
                                              & (cross <= 1)]])
    env = np.min(cand[:, None] * pm[None, :] + (1 - cand[:, None]) * pf[None, :], axis=1)
    return env.max()


def _brute_min_cllr(t):
    """Weighted PAV on every tied score group (scipy), then the weighted Cllr (eq. 21-22)."""
    w = np.ones(len(t)) if t.weights is None else t.weights
    u, inv = np.unique(t.scores, return_inverse=True)
    tw = np.bincount(inv, weights=np.where(t.labels, w, 0.0), minlength=u.size)
    nw = np.bincount(inv, weights=np.where(t.labels, 0.0, w), minlength=u.size)
    p = isotonic_regression(tw / (tw + nw), weights=tw + nw).x
    T, N = tw.sum(), nw.sum()
    with np.errstate(divide="ignore", invalid="ignore"):  # pure groups: 0 * inf
        llr = logit(p) - np.log(T / N)
        ct = np.where(tw > 0, tw * np.logaddexp(0, -llr), 0.0).sum() / T
        cn = np.where(nw > 0, nw * np.logaddexp(0, llr), 0.0).sum() / N
    return (ct + cn) / (2 * np.log(2))


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("kind", ["equal", "custom"])
def test_linear_measures_are_weighted_averages(seed, kind):
    rng = np.random.default_rng(seed)
    n_cond = int(rng.integers(2, 5))
    t = _random_trials(rng, n_cond, max_n=300)
    spec, w = _weights_for(rng, n_cond, kind)
    plo = float(rng.uniform(-4, 4))
    r = by_condition(t, spec, plo=plo)
    assert_allclose(r.weights.w_tar, w, rtol=1e-15)
    p = r.pooled_summary()
    for key in ("p_miss", "p_fa", "act_dcf", "cllr"):
        want = np.dot(w, getattr(r, key))
        assert p[key] == pytest.approx(want, rel=1e-13, abs=1e-15), key
        assert r.average(getattr(r, key)) == pytest.approx(want, rel=1e-15, abs=1e-16)
    # Per-condition numbers are those of each condition alone (no beta).
    for k, c in enumerate(r.conditions.tolist()):
        alone = analyze(t.subset(t.conditions == c)).summary()
        assert r.cllr[k] == alone["cllr"] and r.eer[k] == alone["eer"]
    # Not averages: one threshold / one PAV for the pool is never better.
    assert p["min_dcf"] >= np.dot(w, r.min_dcf) - 1e-14
    assert p["min_cllr"] >= np.dot(w, r.min_cllr) - 1e-14
    assert p["min_dcf"] <= p["act_dcf"] + 1e-14 and p["min_cllr"] <= p["cllr"] + 1e-14


@pytest.mark.parametrize("seed", range(15))
@pytest.mark.parametrize("kind", ["equal", "custom"])
def test_pool_against_brute_force(seed, kind):
    rng = np.random.default_rng(100 + seed)
    n_cond = int(rng.integers(2, 4))
    t = _random_trials(rng, n_cond, max_n=12, ties=bool(seed % 2))
    spec, w = _weights_for(rng, n_cond, kind)
    r = by_condition(t, spec, grid=np.linspace(-5, 5, 11))
    a = r.weighted
    thr = np.concatenate([np.unique(t.scores), [np.inf]])  # every distinct operating point
    pm, pf = _pooled_rates(t, w, thr)
    # DET / ROC: the weighted rates at every threshold are the eq. 3-4 averages.
    pm_k, pf_k = a.sorted.rates(thr)
    assert_allclose(pm_k, pm, rtol=1e-13, atol=1e-15)
    assert_allclose(pf_k, pf, rtol=1e-13, atol=1e-15)
    for plo in a.plo:
        assert a.at(plo).min_dcf == pytest.approx(_brute_min_dcf(pm, pf, plo), rel=1e-12,
                                                  abs=1e-15)
    assert a.eer == pytest.approx(_brute_eer(pm, pf), rel=1e-12, abs=1e-15)
    assert a.min_cllr == pytest.approx(_brute_min_cllr(r.weights.trials), rel=1e-12,
                                       abs=1e-15)


def test_min_cllr_is_not_the_average_of_per_condition_min_cllr():
    # The per-condition PAVs may calibrate each condition differently; the pool may not.
    # Condition B is A with the labels' score scale shifted, so each alone is perfect
    # after PAV, but the pool is not.
    t = Trials([1, 2, 3, 4, 11, 12, 13, 14], [0, 0, 1, 1, 0, 0, 1, 1],
               conditions=["A"] * 4 + ["B"] * 4)
    r = by_condition(t)
    assert_array_equal(r.min_cllr, [0.0, 0.0])
    assert r.weighted.min_cllr > 0.1
    assert r.weighted.min_cllr == pytest.approx(_brute_min_cllr(t), rel=1e-14)


# ---------------------------------------------------------------------------------------
# Equal per-trial weights == the plain pool
# ---------------------------------------------------------------------------------------
_KEYS = ("n_tar", "n_non", "eer", "cllr", "min_cllr", "act_dcf", "min_dcf", "prbep")


def _same(a, b):
    sa, sb = a.summary(0.05), b.summary(0.05)
    for k in _KEYS:
        assert sa[k] == sb[k], k
    assert_array_equal(a.act.dcf, b.act.dcf)
    assert_array_equal(a.min.dcf, b.min.dcf)


def test_pooled_spec_is_the_plain_pool_bitwise():
    t = gaussian_trials(200, 900, seed=3)
    t = Trials(t.scores, t.labels, conditions=np.where(np.arange(len(t)) % 3, "x", "y"))
    r = by_condition(t, "pooled", plo=-2.0)
    assert r.weights.trials is t and not r.weights.reweighted
    assert_array_equal(r.weights.beta_tar, 1.0)
    _same(r.weighted, analyze(t))
    assert r.unweighted is r.weighted
    # w_tar / w_non are the classes' shares; Pmiss / Pfa are their averages.
    assert_allclose(r.weights.w_tar, r.n_tar / r.n_tar.sum(), rtol=1e-15)
    p = r.pooled_summary()
    assert p["p_miss"] == pytest.approx(r.average(r.p_miss, "tar"), rel=1e-14)
    assert p["p_fa"] == pytest.approx(r.average(r.p_fa, "non"), rel=1e-14)
    with pytest.raises(DataError, match="differ"):
        r.average(r.p_miss)


@pytest.mark.parametrize("spec", ["equal", {"a": 1.0, "b": 1.0, "c": 1.0},
                                  {"a": 0.1, "b": 0.1, "c": 0.1}])
def test_equal_beta_is_the_plain_pool_bitwise(spec):
    # Equal class counts per condition and equal weights: beta == 1 for every trial.
    rng = np.random.default_rng(7)
    t = Trials(rng.normal(size=300), np.tile([True] * 20 + [False] * 80, 3),
               conditions=np.repeat(["a", "b", "c"], 100))
    cw = condition_weights(t, spec)
    assert_allclose(cw.beta_tar, 1.0, rtol=1e-15)
    assert not cw.reweighted and cw.trials is t
    _same(analyze(cw.trials), analyze(t))


def test_weights_proportional_to_counts_are_the_plain_pool():
    # w_alpha = N^alpha / N in both classes (same target fraction in every condition).
    t = Trials(np.arange(40.0), np.tile([True, False, False, False], 10),
               conditions=["p"] * 8 + ["q"] * 32)
    cw = condition_weights(t, {"p": 0.2, "q": 0.8})
    assert not cw.reweighted
    _same(analyze(cw.trials), analyze(t))


@pytest.mark.parametrize("seed", range(10))
def test_explicit_unit_weights_match_unweighted(seed):
    # What the weighted code path itself gives with weights 1: every measure from the
    # cumulative weights and PAV is bitwise equal (the cumulative sums of ones are exact
    # integers); Cllr may differ in the last bit, because a weighted mean is a dot product
    # (softplus_sum: b @ weights) while the unweighted one is numpy's pairwise sum.  This is
    # why condition_weights leaves constant beta out (test above) instead of passing ones.
    t = gaussian_trials(137 + seed, 1511 + 7 * seed, seed=seed)
    a, b = analyze(t), analyze(t.with_weights(np.ones(len(t))))
    sa, sb = a.summary(), b.summary()
    for k in ("eer", "min_cllr", "act_dcf", "min_dcf", "prbep", "n_tar", "n_non"):
        assert sa[k] == sb[k], k
    assert_array_equal(a.min.dcf, b.min.dcf)
    assert_array_equal(a.act.dcf, b.act.dcf)
    assert sb["cllr"] == pytest.approx(sa["cllr"], rel=1e-14)


def test_single_condition_is_the_plain_pool():
    t = gaussian_trials(50, 70, seed=1)
    t = Trials(t.scores, t.labels, conditions=["only"] * len(t))
    r = by_condition(t)
    _same(r.weighted, analyze(t))
    _same(r.per_condition[0], analyze(t))


def test_own_trial_weights_are_kept_as_a_factor():
    # Trials with weight 2 count as two trials: the weighting equals that of duplicates.
    t = TOY.with_weights(np.where(TOY.conditions == "A", 2.0, 1.0))
    dup = TOY.subset(np.concatenate([np.arange(12), np.arange(6)]))
    rw, rd = by_condition(t, plo=0.5), by_condition(dup, plo=0.5)
    for k in ("p_miss", "p_fa", "act_dcf", "min_dcf", "eer", "cllr", "min_cllr"):
        assert rw.pooled_summary()[k] == pytest.approx(rd.pooled_summary()[k], rel=1e-13)
        assert rw.pooled_summary("unweighted")[k] == pytest.approx(
            rd.pooled_summary("unweighted")[k], rel=1e-13)
        assert_allclose(getattr(rw, k), getattr(rd, k), rtol=1e-13)


# ---------------------------------------------------------------------------------------
# Selection
# ---------------------------------------------------------------------------------------


def _three():
    rng = np.random.default_rng(11)
    return _random_trials(rng, 3, max_n=50)


def test_select_subset_equals_the_subset_trials():
    t = _three()
    r = by_condition(t, select=["c0", "c2"], plo=1.0)
    assert r.conditions.tolist() == ["c0", "c2"]
    sub = t.subset(np.isin(t.conditions, ["c0", "c2"]))
    want = by_condition(sub, plo=1.0)
    for k in ("p_miss", "p_fa", "act_dcf", "min_dcf", "eer", "cllr", "min_cllr"):
        assert r.pooled_summary()[k] == want.pooled_summary()[k]
    assert len(r.weights.trials) == len(sub)


def test_zero_weight_leaves_a_condition_out():
    t = _three()
    a = by_condition(t, {"c0": 1, "c1": 0, "c2": 3})
    b = by_condition(t, {"c0": 1, "c2": 3}, select=["c0", "c2"])
    assert a.conditions.tolist() == ["c0", "c2"]
    assert_array_equal(a.weights.w_tar, [0.25, 0.75])
    assert a.pooled_summary() == b.pooled_summary()


def test_zero_weight_condition_may_lack_a_class():
    t = Trials([1.0, 2.0, 0.0, 5.0], [1, 0, 1, 1], conditions=["a", "a", "b", "b"])
    r = by_condition(t, {"a": 1, "b": 0})
    assert r.conditions.tolist() == ["a"]


# ---------------------------------------------------------------------------------------
# Errors
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("weights, select, match", [
    ({"A": 1, "C": 1}, None, r"toy.txt: condition weights name 'C', which no trial has; "
                             r"the conditions are 'A', 'B'"),
    ({"A": 1}, None, r"no weight for condition\(s\) 'B'"),
    ({"A": -1, "B": 1}, None, r"weight of condition 'A' must be a finite number >= 0"),
    ({"A": float("nan"), "B": 1}, None, "finite"),
    ({"A": float("inf"), "B": 1}, None, "finite"),
    ({"A": "x", "B": 1}, None, "not a number"),
    ({"A": 0, "B": 0}, None, "every condition weight is 0"),
    ({"A": 1, "B": 1}, ["A"], r"name 'B', which the selection leaves out"),
    ("equal", ["Z"], r"selected condition\(s\) 'Z' not found"),
    ("equal", [], "selection of conditions is empty"),
    ("heavy", None, "must be 'equal', 'pooled' or a mapping"),
    (3, None, "got int"),
])
def test_bad_weights(weights, select, match):
    with pytest.raises(DataError, match=match):
        condition_weights(TOY, weights, select=select)


def test_no_conditions():
    with pytest.raises(DataError, match="have no conditions; attach a condition file"):
        condition_weights(Trials([1.0, 0.0], [1, 0]))
    with pytest.raises(DataError, match="need Trials"):
        condition_weights([1.0, 0.0])


def test_condition_without_a_class_is_named():
    t = Trials([1.0, 2.0, 0.0, 5.0, 3.0], [1, 0, 1, 1, 0],
               conditions=["a", "a", "b", "b", "a"], source="s.txt")
    with pytest.raises(DataError, match=r"s.txt: condition 'b' has no non-target trials "
                                        r"\(of its 2 trials\).*weight 0"):
        condition_weights(t)
    with pytest.raises(DataError, match="condition 'b' has no non-target"):
        condition_weights(t, {"a": 1, "b": 2})
    # Pooled weights need no per-condition rates, but the per-condition analysis does.
    assert condition_weights(t, "pooled").trials is t
    with pytest.raises(DataError, match="'b' has no non-target trials, so it cannot be "
                                        "analysed alone"):
        by_condition(t, "pooled")


def test_parse_condition_weights():
    assert parse_condition_weights(" pooled ") == "pooled"
    assert parse_condition_weights("a=1, b=2.5,x=y=0") == {"a": 1.0, "b": 2.5, "x=y": 0.0}
    for bad, match in [("a", "cannot read 'a'"), ("a=x", "not a number"),
                       ("a=1,a=2", "two weights"), ("=1", "cannot read")]:
        with pytest.raises(DataError, match=match):
            parse_condition_weights(bad)


# ---------------------------------------------------------------------------------------
# Properties
# ---------------------------------------------------------------------------------------


@st.composite
def _conditioned(draw):
    n_cond = draw(st.integers(1, 4))
    scores, labels, conds = [], [], []
    for k in range(n_cond):
        nt, nn = draw(st.integers(1, 8)), draw(st.integers(1, 8))
        vals = st.integers(-6, 6).map(lambda i: i / 2)  # coarse: many ties
        scores += draw(st.lists(vals, min_size=nt + nn, max_size=nt + nn))
        labels += [True] * nt + [False] * nn
        conds += [f"k{k}"] * (nt + nn)
    w = draw(st.lists(st.floats(0.05, 20), min_size=n_cond, max_size=n_cond))
    return Trials(scores, labels, conditions=conds), {f"k{k}": w[k] for k in range(n_cond)}


@settings(max_examples=150, deadline=None)
@given(_conditioned(), st.floats(-5, 5))
def test_properties_against_definitions(data, plo):
    t, spec = data
    r = by_condition(t, spec, plo=plo, grid=[plo])
    w = r.weights.w_tar
    # beta: each class keeps its total, each condition gets its weight (eq. 12).
    tw = r.weights.trials.weights
    tw = np.ones(len(t)) if tw is None else tw
    assert tw[t.labels].sum() == pytest.approx(t.n_tar, rel=1e-12)
    assert tw[~t.labels].sum() == pytest.approx(t.n_non, rel=1e-12)
    thr = np.concatenate([np.unique(t.scores), [np.inf]])
    pm, pf = _pooled_rates(t, w, thr)
    p = r.pooled_summary()
    assert p["act_dcf"] == pytest.approx(np.dot(w, r.act_dcf), rel=1e-12, abs=1e-14)
    assert p["cllr"] == pytest.approx(np.dot(w, r.cllr), rel=1e-12)
    assert p["min_dcf"] == pytest.approx(_brute_min_dcf(pm, pf, plo), rel=1e-12, abs=1e-14)
    assert p["eer"] == pytest.approx(_brute_eer(pm, pf), rel=1e-12, abs=1e-14)
    assert p["min_cllr"] == pytest.approx(_brute_min_cllr(r.weights.trials), rel=1e-12,
                                          abs=1e-14)
    # Shuffling the trials changes nothing.
    perm = np.random.default_rng(0).permutation(len(t))
    q = by_condition(t.subset(perm), spec, plo=plo, grid=[plo]).pooled_summary()
    for k in ("act_dcf", "min_dcf", "eer"):
        assert q[k] == pytest.approx(p[k], rel=1e-12, abs=1e-14)


@pytest.mark.parametrize("n_values", [1, 3, 40])
def test_factorize_equals_numpy_unique(n_values):
    from llrlab.core.trials import factorize

    rng = np.random.default_rng(n_values)
    values = np.array([f"c{i:02d}" for i in range(n_values)])[rng.integers(0, n_values, 500)]
    names, codes = factorize(values)
    ref_names, ref_codes = np.unique(values, return_inverse=True)
    assert names.tolist() == ref_names.tolist()
    assert np.array_equal(codes, ref_codes.ravel())


@settings(max_examples=200, deadline=None)
@given(st.lists(st.text(alphabet=st.sampled_from(["a", "b", "\x00", "\xff", "\u0100", "z",
                                                   "\U0001f600"]), max_size=10),
                min_size=0, max_size=60),
       st.sampled_from(["U", "S", "O"]))
def test_factorize_equals_numpy_unique_on_any_labels(labels, kind):
    """Labels compared as packed integers (at most 8 characters below U+0100, or 8 bytes)
    or as strings (longer ones, wider characters) give numpy.unique's names and codes:
    trailing NULs, which numpy drops, included."""
    from llrlab.core.trials import _packed, factorize

    if kind == "S":
        labels = [x.encode("utf-8") for x in labels]
    values = np.array(labels, dtype={"U": str, "S": bytes, "O": object}[kind])
    names, codes = factorize(values)
    ref_names, ref_codes = np.unique(values, return_inverse=True)
    assert names.tolist() == ref_names.tolist()
    assert np.array_equal(codes, ref_codes.ravel())
    keys = _packed(values.reshape(-1)) if kind != "O" else None
    if keys is not None:  # equal keys exactly when equal labels
        same = keys[:, None] == keys[None, :]
        assert np.array_equal(same, values[:, None] == values[None, :])


def test_factorize_packs_short_labels_and_compares_the_others_as_strings():
    from llrlab.core.trials import _packed

    assert _packed(np.array(["cond0001", "x"])) is not None        # 8 characters
    assert _packed(np.array(["cond00001", "x"])) is None           # 9: as strings
    assert _packed(np.array(["été", "x"])) is not None              # below U+0100
    assert _packed(np.array(["\u0100", "x"])) is None              # wider: as strings
    assert _packed(np.array([b"12345678"])) is not None
    assert _packed(np.array([b"123456789"])) is None
    strided = np.array(["a", "b"] * 50)[::3]  # not contiguous
    assert np.array_equal(_packed(strided), _packed(strided.copy()))


# ---------------------------------------------------------------------------------------
# Many conditions: the per-condition measures in one vectorized pass (linear in trials and
# conditions), against analyze of each condition alone.
# ---------------------------------------------------------------------------------------
def _many_conditions(rng, n_cond, *, max_size=30, decimals=1, weights=False):
    sizes = rng.integers(2, max_size, n_cond)
    cond = np.repeat(np.array([f"c{k:05d}" for k in range(n_cond)]), sizes)
    n = cond.size
    lab = rng.random(n) < rng.uniform(0.2, 0.8)
    starts = np.r_[0, np.cumsum(sizes)[:-1]]
    lab[starts], lab[starts + 1] = True, False  # both classes in every condition
    s = np.round(np.where(lab, 1.0, -1.0) * rng.uniform(0, 2) + rng.normal(size=n), decimals)
    perm = rng.permutation(n)  # conditions interleaved, as in a real trial list
    w = rng.choice([0.5, 1.0, 3.0], n)[perm] if weights else None
    return Trials(s[perm], lab[perm], weights=w, conditions=cond[perm])


@pytest.mark.parametrize("seed", range(6))
def test_many_conditions_match_each_condition_alone(seed):
    rng = np.random.default_rng(seed)
    t = _many_conditions(rng, int(rng.integers(20, 200)), max_size=int(rng.integers(3, 60)),
                         decimals=int(rng.integers(0, 3)))
    plo = float(rng.uniform(-3, 3))
    r = by_condition(t, "equal", plo=plo, grid=[plo])
    assert len(r.per_condition) == r.conditions.size
    for k, c in enumerate(r.conditions.tolist()):
        alone = analyze(t.subset(t.conditions == c), plo=[plo])
        op = alone.at(plo)
        # bitwise: counts, rates, DCFs, EER and Cllr (the same operations)
        assert (r.n_tar[k], r.n_non[k]) == (alone.n_tar, alone.n_non)
        assert r.p_miss[k] == float(op.act.p_miss) and r.p_fa[k] == float(op.act.p_fa)
        assert r.act_dcf[k] == op.act_dcf and r.min_dcf[k] == op.min_dcf, c
        assert r.eer[k] == alone.eer and r.cllr[k] == alone.cllr, c
        # min Cllr: dot products summed in another order
        assert r.min_cllr[k] == pytest.approx(alone.min_cllr, rel=1e-13, abs=1e-15)
    # the lazily built per-condition analyses are the analyses of each condition alone
    k = int(rng.integers(r.conditions.size))
    _same(r.per_condition[k], analyze(t.subset(t.conditions == r.conditions[k]), plo=[plo]))
    assert r.per_condition[-1] is r.per_condition[r.conditions.size - 1]


def test_many_conditions_with_trial_weights_match_to_rounding():
    rng = np.random.default_rng(7)
    t = _many_conditions(rng, 150, max_size=40, weights=True)
    r = by_condition(t, "equal", plo=0.7, grid=[0.7])
    for k, c in enumerate(r.conditions.tolist()):
        alone = analyze(t.subset(t.conditions == c), plo=[0.7])
        op = alone.at(0.7)
        got = [r.p_miss[k], r.p_fa[k], r.act_dcf[k], r.min_dcf[k], r.eer[k], r.cllr[k],
               r.min_cllr[k]]
        want = [float(op.act.p_miss), float(op.act.p_fa), op.act_dcf, op.min_dcf, alone.eer,
                alone.cllr, alone.min_cllr]
        assert_allclose(got, want, rtol=1e-12, atol=1e-15, err_msg=c)


def test_pav_rounds_fall_back_to_the_single_set_kernel(monkeypatch):
    # A staircase that pools one block per round: with only 2 rounds allowed the
    # unsettled conditions are finished by the single-set PAV, with the same result.
    from llrlab.core import _per_condition

    rng = np.random.default_rng(3)
    t = _many_conditions(rng, 60, max_size=80, decimals=2)
    want = by_condition(t, "equal", plo=0.3, grid=[0.3])
    monkeypatch.setattr(_per_condition, "ROUNDS", 2)
    got = by_condition(t, "equal", plo=0.3, grid=[0.3])
    for key in ("min_dcf", "eer"):
        assert_array_equal(getattr(got, key), getattr(want, key))
    assert_allclose(got.min_cllr, want.min_cllr, rtol=1e-13)


def test_many_conditions_error_names_the_condition_without_a_class():
    t = Trials([1.0, 0.0, 2.0, 3.0], [1, 0, 1, 1], conditions=["a", "a", "b", "b"],
               source="x.txt")
    with pytest.raises(DataError, match=r"x\.txt: condition 'b' has no non-target trials"):
        by_condition(t, "pooled")


@pytest.mark.timeout(60)
def test_by_condition_scales_linearly_in_the_number_of_conditions():
    # Regression: each condition was selected with a mask of all trials and analysed by a
    # call of its own (O(C n)): 10^4 conditions of 2 trials took 10 s, and llrlab eval
    # --by-condition on 10^6 trials did not finish in 300 s.  Here 2 x 10^5 trials in 10^5
    # conditions (~1 hour before) must take seconds.
    n_cond = 100_000
    lab = np.tile([True, False], n_cond)
    rng = np.random.default_rng(1)
    s = np.where(lab, 1.0, -1.0) + rng.normal(size=lab.size)
    cond = np.repeat(np.char.add("c", np.char.zfill(np.arange(n_cond).astype(str), 6)), 2)
    r = by_condition(Trials(s, lab, conditions=cond), "equal", plo=0.0, grid=[0.0])
    assert r.conditions.size == n_cond
    # one target and one non-target: min DCF 0 or 1, EER 0 or 1/2 (tied scores)
    correct = s[0::2] > s[1::2]
    assert_array_equal(r.min_dcf, np.where(correct, 0.0, 1.0))
    assert_array_equal(r.eer, np.where(correct, 0.0, 0.5))
    assert len(r.summary()["conditions"]) == n_cond


@settings(max_examples=60, deadline=None)
@given(st.lists(st.text(alphabet=st.characters(max_codepoint=0xFF, exclude_characters="\0"),
                        max_size=8), min_size=0, max_size=40))
def test_packed_keys_hold_each_label_byte_for_byte(labels):
    """The packed key of a label (at most 8 characters below U+0100) is its characters as
    the bytes of one uint64, NUL-padded, and unpacks to the label."""
    from llrlab.core.trials import _packed, _unpacked

    values = np.array(labels, dtype=str) if labels else np.zeros(0, dtype="U1")
    keys = _packed(values)
    assert keys is not None and keys.dtype == np.uint64 and keys.shape == values.shape
    for k, label in zip(keys.tolist(), labels, strict=True):
        assert k.to_bytes(8, "little") == label.encode("latin-1").ljust(8, b"\0")
    assert _unpacked(keys, values.dtype).tolist() == values.tolist()


def test_condition_weights_of_coded_conditions_build_no_per_trial_strings():
    """Conditions held as codes (as ``load_trials`` reads them) are pooled from the codes:
    no object array of one string per trial is built (it cost more than the sort)."""
    from llrlab.core import IdCodes

    rng = np.random.default_rng(3)
    n = 400
    lab = rng.random(n) < 0.3
    scores = np.where(lab, 1.0, -1.0) + rng.normal(size=n)
    vocab = np.array(["tel/far", "mic", "tel/near"], dtype=object)
    codes = IdCodes(rng.integers(0, 3, n).astype(np.int32), vocab)
    t = Trials(scores, lab, conditions=codes)
    cw = condition_weights(t, "equal")
    res = analyze(cw.trials)
    assert t._cols["condition"]._strings is None
    want = condition_weights(Trials(scores, lab, conditions=vocab[codes.codes].astype(str)))
    assert cw.trials.weights.tolist() == want.trials.weights.tolist()
    assert res.cllr == analyze(want.trials).cllr
