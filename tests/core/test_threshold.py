"""Threshold measures (llrlab.core.threshold) and the AUC (llrlab.core.auc): hand-computed
toy tables with ties, brute force over every threshold on small random data, hypothesis
properties, and a seeded coverage check of DeLong's interval.  The peers' published values
are in test_threshold_peers.py.
"""

from __future__ import annotations

import warnings
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose, assert_array_equal
from scipy.special import ndtr

from llrlab.core import (
    DataError,
    LlrlabWarning,
    Trials,
    act_dcf,
    auc,
    counts_at,
    fmr_at_fnmr,
    fmr_label,
    fnmr_at_fmr,
    hter,
    roc_curve,
    rocch_eer,
    steppy_roc,
    threshold_eer,
    zero_fmr,
    zero_fnmr,
)

from . import reference as ref

# ---------------------------------------------------------------------------------------
# Layer 1: a hand-computed table with ties (T = 4, N = 5).
#
#   tar: 0.2 0.5 0.5 0.9        non: 0.1 0.5 0.7 0.7 0.8
#
#   k  threshold  misses #(tar<t)  FAs #(non>=t)  FNMR   FMR   FMR-FNMR
#   0  0.1        0                5              0      1      1
#   1  0.2        0                4              0      0.8    0.8
#   2  0.5        1                4              0.25   0.8    0.55
#   3  0.7        3                3              0.75   0.6   -0.15
#   4  0.8        3                1              0.75   0.2
#   5  0.9        3                0              0.75   0
#   6  +inf       4                0              1      0
#
# FMR <= FNMR first at k = 3; the candidates are k = 2 (sum 1.05, |diff| 0.55) and k = 3
# (sum 1.35, |diff| 0.15).  FVC2000 takes the smaller sum: EER (0.25 + 0.8)/2 = 0.525,
# [0.25, 0.8], threshold midway in (0.2, 0.5]: 0.35.  The closest rule takes k = 3: EER
# (0.75 + 0.6)/2 = 0.675, [0.6, 0.75], threshold midway in (0.5, 0.7]: 0.6.
# FNMR at FMR <= 0.5: k = 4 (FMR 0.2), FNMR 0.75, threshold in (0.7, 0.8]: 0.75.
# ZeroFMR: k = 5, FNMR 0.75, threshold in (0.8, 0.9]: 0.85.
# ZeroFNMR: the last k with FNMR 0 is k = 1: FMR 0.8, threshold in (0.1, 0.2]: 0.15.
# AUC: 0.2 beats 0.1 (1); each 0.5 beats 0.1 and ties 0.5 (1.5); 0.9 beats all 5: 9 / 20.
# ---------------------------------------------------------------------------------------
TAR = np.array([0.5, 0.2, 0.9, 0.5])
NON = np.array([0.7, 0.1, 0.5, 0.8, 0.7])


def test_toy_sweep():
    c = roc_curve(TAR, NON)
    assert_array_equal(c.threshold, [0.1, 0.2, 0.5, 0.7, 0.8, 0.9, np.inf])
    assert_array_equal(c.misses, [0, 0, 1, 3, 3, 3, 4])
    assert_array_equal(c.false_alarms, [5, 4, 4, 3, 1, 0, 0])
    assert_array_equal(c.p_miss, [0, 0, 0.25, 0.75, 0.75, 0.75, 1])
    assert_array_equal(c.p_fa, [1, 0.8, 0.8, 0.6, 0.2, 0, 0])
    assert len(c) == 7 and c.complete and (c.n_tar, c.n_non) == (4, 5)


def test_toy_counts_at():
    c = counts_at(TAR, NON, 0.5)
    assert (int(c.misses), int(c.false_alarms)) == (1, 4)
    assert (float(c.fnmr), float(c.fmr), float(c.hter)) == (0.25, 0.8, 0.525)
    assert (float(c.lower), float(c.upper)) == (0.2, 0.5)
    c = counts_at(TAR, NON, [-np.inf, 0.55, 1.0, np.inf])
    assert_array_equal(c.misses, [0, 3, 4, 4])
    assert_array_equal(c.false_alarms, [5, 3, 0, 0])
    assert_array_equal(c.lower, [-np.inf, 0.5, 0.9, 0.9])
    assert_array_equal(c.upper, [0.1, 0.7, np.inf, np.inf])
    # the same numbers as the actual DCF at the Bayes threshold -plo
    d = act_dcf(TAR, NON, plo=-0.55)
    assert (int(d.misses), int(d.false_alarms)) == (3, 3)
    with pytest.raises(DataError, match="must be a number"):
        counts_at(TAR, NON, np.nan)


def test_toy_eer_both_rules():
    e = threshold_eer(TAR, NON)
    assert (e.eer, e.eer_low, e.eer_high, e.threshold, e.rule) == (0.525, 0.25, 0.8, 0.35,
                                                                   "fvc")
    assert (float(e.at.lower), float(e.at.upper)) == (0.2, 0.5)
    e = threshold_eer(TAR, NON, rule="closest")
    assert (e.eer, e.eer_low, e.eer_high, e.threshold) == (0.675, 0.6, 0.75, 0.6)
    assert (int(e.at.misses), int(e.at.false_alarms)) == (3, 3)
    with pytest.raises(DataError, match="unknown EER rule"):
        threshold_eer(TAR, NON, rule="bob")


def test_eer_from_counts_one_rounding():
    """Two points with equal sums FMR + FNMR (0 + 5/6 and 1/3 + 1/2): the EER of either rule
    is 5/12 as one float (summing the rounded rates gave 0.41666666666666669 and ...63, and
    the "fvc" EER above the "closest" one; found by hypothesis)."""
    tar, non = [0.0, -0.25], [0.0, 0.0, -0.25, -0.25, -0.25, -0.5]
    f, c = threshold_eer(tar, non), threshold_eer(tar, non, rule="closest")
    assert (f.eer_low, f.eer_high, c.eer_low, c.eer_high) == (0.0, 5 / 6, 1 / 3, 0.5)
    assert f.eer == c.eer == 5 / 12


def test_toy_fixed_rates():
    r = fnmr_at_fmr(TAR, NON, [0.6, 0.5, 0.8, 1.0])
    assert_array_equal(r.p_miss, [0.75, 0.75, 0, 0])
    assert_array_equal(r.p_fa, [0.6, 0.2, 0.8, 1])
    assert_allclose(r.threshold, [0.6, 0.75, 0.15, -np.inf], rtol=1e-15)
    z = zero_fmr(TAR, NON)
    assert (float(z.p_miss), float(z.p_fa)) == (0.75, 0.0)
    assert float(z.threshold) == pytest.approx(0.85, rel=1e-15)
    z = zero_fnmr(TAR, NON)
    assert (float(z.p_fa), float(z.p_miss), float(z.upper)) == (0.8, 0.0, 0.2)
    assert float(z.threshold) == pytest.approx(0.15, rel=1e-15)
    r = fmr_at_fnmr(TAR, NON, [0.25, 0.5, 1.0])
    assert_array_equal(r.p_fa, [0.8, 0.8, 0.0])
    assert_allclose(r.threshold, [0.35, 0.35, np.inf], rtol=1e-15)
    for bad in (-0.1, 1.5, np.nan, "x"):
        with pytest.raises(DataError, match="FMR"):
            fnmr_at_fmr(TAR, NON, bad)


def test_fnmr_at_fmr_takes_the_lowest_threshold_not_the_next_non_target():
    # FMR <= 0.5 allows one false match (0.7); the lowest such threshold lies just above
    # 0.5 and accepts the target 0.6.  bob.measure's far_threshold gives 0.7 (a non-target
    # score): the same FMR, but the target is rejected there (FNMR 1).
    r = fnmr_at_fmr([0.6], [0.5, 0.7], 0.5)
    assert (float(r.p_fa), float(r.p_miss), float(r.threshold)) == (0.5, 0.0, 0.55)


def test_toy_hter():
    ev = ([0.3, 0.4, 0.95], [0.0, 0.36, 0.65])
    r = hter((TAR, NON), ev)
    assert r.threshold == 0.35 and r.criterion == "eer" and r.fmr is None
    assert (int(r.eval.misses), int(r.eval.false_alarms)) == (1, 2)
    assert r.hter == pytest.approx(0.5)
    assert float(r.dev.p_miss) == 0.25 and float(r.dev.p_fa) == 0.8
    r = hter(Trials.from_tar_non(TAR, NON), Trials.from_tar_non(*ev), criterion="fmr", fmr=0.5)
    assert r.threshold == 0.75 and r.fmr == 0.5
    assert r.hter == pytest.approx(1 / 3)
    assert hter((TAR, NON), ev, rule="closest").threshold == 0.6
    with pytest.raises(DataError, match="needs the dev FMR"):
        hter((TAR, NON), ev, criterion="fmr")
    with pytest.raises(DataError, match="leave it out"):
        hter((TAR, NON), ev, fmr=0.1)
    with pytest.raises(DataError, match="unknown HTER criterion"):
        hter((TAR, NON), ev, criterion="far")


def test_toy_auc():
    r = auc(TAR, NON)
    assert r.auc == 0.45 and (r.n_tar, r.n_non) == (4, 5)
    a, var = ref.auc_delong(TAR, NON)
    assert a == 0.45
    assert r.se == pytest.approx(np.sqrt(var), rel=1e-12)
    assert r.upper == pytest.approx(0.45 + 1.959963984540054 * r.se, rel=1e-12)
    assert r.lower == 0.0  # 0.45 - 1.96 se < 0: clipped
    with pytest.raises(DataError, match="confidence"):
        auc(TAR, NON, confidence=1.0)


def test_fmr_labels():
    assert [fmr_label(x) for x in (0.01, 0.001, 0.0001, 0.1, 0.05, 0.0, 0.3)] == [
        "FMR100", "FMR1000", "FMR10000", "FMR10", "FMR20", "ZeroFMR", "FMR@0.3"]


def test_separable_and_reversed_classes():
    # separable: EER 0 between the classes, ZeroFMR = ZeroFNMR = 0, AUC 1 with a point CI
    e = threshold_eer([3.0, 4.0], [1.0, 2.0])
    assert (e.eer, e.threshold) == (0.0, 2.5)
    assert float(zero_fmr([3.0, 4.0], [1.0, 2.0]).p_miss) == 0.0
    r = auc([3.0, 4.0], [1.0, 2.0])
    assert (r.auc, r.se, r.lower, r.upper) == (1.0, 0.0, 1.0, 1.0)
    # reversed: the crossing is at the end; ZeroFMR needs +inf (reject all)
    e = threshold_eer([1.0, 2.0], [3.0, 4.0])
    assert e.eer == 1.0
    z = zero_fmr([1.0, 2.0], [3.0, 4.0])
    assert (float(z.p_miss), float(z.threshold), float(z.lower)) == (1.0, np.inf, 4.0)
    assert auc([1.0, 2.0], [3.0, 4.0]).auc == 0.0


def test_auc_interval_needs_two_per_class():
    with pytest.warns(LlrlabWarning, match="at least two trials"):
        r = auc([1.0], [0.0, 0.5])
    assert r.auc == 1.0 and np.isnan(r.lower)


def test_infinite_scores():
    tar = np.array([0.0, np.inf])
    non = np.array([-np.inf, 1.0])
    c = roc_curve(tar, non)
    assert_array_equal(c.threshold, [-np.inf, 0.0, 1.0, np.inf, np.inf])
    assert c.p_fa[-1] == 0 and c.p_miss[-1] == 1
    assert threshold_eer(tar, non).eer == 0.5
    assert auc(tar, non).auc == 0.75


# ---------------------------------------------------------------------------------------
# Layer 2: brute force over every threshold, exact rationals.
# ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("seed", range(40))
def test_brute_force_agreement(seed):
    rng = np.random.default_rng(seed)
    T, N = rng.integers(1, 15, size=2)
    tar = rng.integers(0, 8, T) / 4.0 + rng.choice([0.0, 0.125])
    non = rng.integers(-2, 6, N) / 4.0
    pts = ref.sweep(tar, non)
    c = roc_curve(tar, non)
    assert_array_equal(c.threshold, [p[0] for p in pts])
    assert_array_equal(c.misses, [p[1] for p in pts])
    assert_array_equal(c.false_alarms, [p[2] for p in pts])
    assert_array_equal(c.p_miss, [float(p[3]) for p in pts])
    assert_array_equal(c.p_fa, [float(p[4]) for p in pts])
    for rule in ("fvc", "closest"):
        value, (lo, hi) = ref.threshold_eer(tar, non, rule)
        e = threshold_eer(tar, non, rule=rule)
        assert e.eer == pytest.approx(float(value), abs=1e-15)
        assert (float(e.at.lower), float(e.at.upper)) == (lo, hi)
        assert e.eer_low <= e.eer <= e.eer_high
    assert threshold_eer(tar, non).eer <= threshold_eer(tar, non, rule="closest").eer
    for x in (0.0, 0.001, 0.1, 0.25, 1 / 3, 0.5, 0.9, 1.0):
        fnmr, fmr, (lo, hi) = ref.fnmr_at_fmr(tar, non, x)
        r = fnmr_at_fmr(tar, non, x)
        assert (float(r.p_miss), float(r.p_fa)) == (float(fnmr), float(fmr))
        assert (float(r.lower), float(r.upper)) == (lo, hi)
        assert float(r.lower) < float(r.threshold) <= float(r.upper) or r.threshold == -np.inf
        # the reported threshold reproduces the point
        again = counts_at(tar, non, r.threshold)
        assert (int(again.misses), int(again.false_alarms)) == (int(r.misses),
                                                                int(r.false_alarms))
        fmr2, fnmr2, (lo, hi) = ref.fmr_at_fnmr(tar, non, x)
        r = fmr_at_fnmr(tar, non, x)
        assert (float(r.p_fa), float(r.p_miss)) == (float(fmr2), float(fnmr2))
        assert (float(r.lower), float(r.upper)) == (lo, hi)
    a, var = ref.auc_delong(tar, non) if min(T, N) > 1 else (None, None)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", LlrlabWarning)
        r = auc(tar, non)
    pairs = sum((x > y) + 0.5 * (x == y) for x in tar for y in non)
    assert r.auc == float(Fraction(pairs).limit_denominator(4) / (T * N))
    if a is not None:
        assert r.se == pytest.approx(np.sqrt(var), rel=1e-9, abs=1e-15)


def test_auc_equals_area_under_steppy_roc_and_sklearn():
    from sklearn.metrics import roc_auc_score

    rng = np.random.default_rng(3)
    tar, non = rng.integers(0, 6, 300) / 2.0, rng.integers(-2, 4, 500) / 2.0
    r = auc(tar, non)
    y = np.r_[np.ones(300), np.zeros(500)]
    assert r.auc == pytest.approx(roc_auc_score(y, np.r_[tar, non]), abs=1e-15)
    roc = steppy_roc(tar, non)  # tied scores: a diagonal step, i.e. ties count 1/2
    assert r.auc == pytest.approx(-np.trapezoid(1 - roc.p_miss, roc.p_fa), abs=1e-12)


def test_weights():
    rng = np.random.default_rng(5)
    tar, non = rng.integers(0, 6, 30) / 2.0, rng.integers(-2, 4, 40) / 2.0
    wt, wn = rng.integers(1, 4, 30), rng.integers(1, 4, 40)
    # integer weights equal duplicated trials (rates; AUC; the EER and FNMR@FMR choices)
    dt, dn = np.repeat(tar, wt), np.repeat(non, wn)
    kw = dict(tar_weights=wt.astype(float), non_weights=wn.astype(float))
    for rule in ("fvc", "closest"):
        assert threshold_eer(tar, non, rule=rule, **kw).eer == pytest.approx(
            threshold_eer(dt, dn, rule=rule).eer, abs=1e-12)
    assert_allclose(fnmr_at_fmr(tar, non, [0.0, 0.05, 0.3], **kw).p_miss,
                    fnmr_at_fmr(dt, dn, [0.0, 0.05, 0.3]).p_miss, atol=1e-12)
    assert auc(tar, non, **kw).auc == pytest.approx(auc(dt, dn).auc, abs=1e-12)
    c = counts_at(tar, non, 1.0, **kw)
    assert float(c.p_miss) == pytest.approx(wt[tar < 1].sum() / wt.sum())
    assert int(c.misses) == int((tar < 1).sum())  # counts stay trial counts
    # unit weights reproduce the unweighted numbers, the interval included
    ones = dict(tar_weights=np.ones(30), non_weights=np.ones(40))
    a, b = auc(tar, non, **ones), auc(tar, non)
    assert (a.auc, a.se) == pytest.approx((b.auc, b.se), rel=1e-12)
    assert threshold_eer(tar, non, **ones).threshold == threshold_eer(tar, non).threshold
    h = hter(Trials.from_tar_non(tar, non).with_weights(np.r_[wt, wn].astype(float)),
             (dt, dn))
    assert h.threshold == threshold_eer(dt, dn).threshold


# ---------------------------------------------------------------------------------------
# Layer 3: properties
# ---------------------------------------------------------------------------------------
scores = st.lists(st.integers(-12, 12).map(lambda i: i / 4), min_size=2, max_size=30)


@settings(max_examples=200, deadline=None)
@given(scores, scores)
def test_properties(tar, non):
    tar, non = np.array(tar), np.array(non)
    e = threshold_eer(tar, non)
    a = auc(tar, non)
    # an increasing map keeps every rate, the EER and the AUC (the thresholds move with it)
    f = np.arctan
    e2 = threshold_eer(f(tar), f(non))
    assert (e2.eer, e2.eer_low, e2.eer_high) == (e.eer, e.eer_low, e.eer_high)
    assert auc(f(tar), f(non)).auc == a.auc
    assert auc(3 * tar - 1, 3 * non - 1).se == pytest.approx(a.se, abs=1e-15)
    # swapping the classes and negating the scores mirrors the ROC
    # (at a tie of FMR + FNMR the mirrored sweep takes the other point: same EER)
    assert threshold_eer(-non, -tar).eer == pytest.approx(e.eer, abs=1e-15)
    for x in (0.0, 0.1, 0.5):
        assert float(fnmr_at_fmr(tar, non, x).p_miss) == float(fmr_at_fnmr(-non, -tar, x).p_fa)
    assert auc(-non, -tar).auc == a.auc
    # the AUC of negated scores, or of swapped classes, is one minus the AUC
    assert auc(-tar, -non).auc == pytest.approx(1 - a.auc, abs=1e-15)
    assert auc(non, tar).auc == pytest.approx(1 - a.auc, abs=1e-15)
    # the "fvc" EER is never above the "closest" one, and both lie in their intervals
    c = threshold_eer(tar, non, rule="closest")
    assert e.eer <= c.eer and c.eer_low <= c.eer <= c.eer_high
    # rates move monotonically with the FMR target; the threshold reproduces the counts
    r = fnmr_at_fmr(tar, non, [0.0, 0.2, 0.5, 1.0])
    assert np.all(np.diff(r.p_miss) <= 0) and np.all(r.p_fa <= [0.0, 0.2, 0.5, 1.0])
    again = counts_at(tar, non, r.threshold)
    assert_array_equal(again.misses, r.misses)
    assert_array_equal(again.false_alarms, r.false_alarms)


@settings(max_examples=100, deadline=None)
@given(scores, scores)
def test_sweep_eer_brackets_the_rocch(tar, non):
    # the steppy ROC lies on or above its hull, so the crossing of the hull (ROCCH-EER) is
    # not above that of the steppy curve, which lies in [FNMR, FMR] of the two points
    # around it: the ROCCH-EER is at most the larger rate of the "closest" point
    tar, non = np.array(tar), np.array(non)
    assert rocch_eer(tar, non) <= threshold_eer(tar, non, rule="closest").eer_high + 1e-12


# ---------------------------------------------------------------------------------------
# DeLong's interval: coverage by seeded simulation
# ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("weighted", [False, True])
def test_delong_coverage(weighted):
    """Binormal scores (d' = 1.2, true AUC = Phi(d'/sqrt 2)): the 95 % interval covers the
    true AUC in about 95 % of 600 replicates (binomial sd 0.9 %).  Weighted: two conditions
    of different sizes weighted equally; the true AUC of the weighted populations is then
    the mean of the four condition pairs' binormal AUCs."""
    rng = np.random.default_rng(20240611)
    d = 1.2
    hits, reps = 0, 600
    for _ in range(reps):
        if not weighted:
            tar, non = rng.normal(d, 1, 80), rng.normal(0, 1, 120)
            r, truth = auc(tar, non), ndtr(d / np.sqrt(2))
        else:
            # condition A: 60 tar, 90 non, mean shift 0; condition B: 20 tar, 30 non, +0.8
            ta, na = rng.normal(d, 1, 60), rng.normal(0, 1, 90)
            tb, nb = rng.normal(d + 0.8, 1, 20), rng.normal(0.8, 1, 30)
            wt = np.r_[np.full(60, 0.5 / 60), np.full(20, 0.5 / 20)]
            wn = np.r_[np.full(90, 0.5 / 90), np.full(30, 0.5 / 30)]
            r = auc(np.r_[ta, tb], np.r_[na, nb], tar_weights=wt, non_weights=wn)
            pair = [ndtr((d + s - u) / np.sqrt(2)) for s in (0, 0.8) for u in (0, 0.8)]
            truth = np.mean(pair)
        hits += r.lower <= truth <= r.upper
    assert 0.92 <= hits / reps <= 0.975


def test_hanley_mcneil_1982_published_example():
    """Hanley & McNeil (1982), table 1: ratings of 109 CT images (58 normal, 51 abnormal)
    on a five-point scale; the published area is 0.893 with a standard error of 0.032 (their
    exponential approximation).  DeLong's standard error of the same data is close to it."""
    normal = np.repeat([1, 2, 3, 4, 5], [33, 6, 6, 11, 2]).astype(float)
    abnormal = np.repeat([1, 2, 3, 4, 5], [3, 2, 2, 11, 33]).astype(float)
    r = auc(abnormal, normal)
    assert round(r.auc, 3) == 0.893
    a, n_a, n_n = r.auc, 51, 58
    q1, q2 = a / (2 - a), 2 * a * a / (1 + a)
    se_hm = np.sqrt((a * (1 - a) + (n_a - 1) * (q1 - a * a) + (n_n - 1) * (q2 - a * a))
                    / (n_a * n_n))
    assert round(se_hm, 3) == 0.032
    assert r.se == pytest.approx(se_hm, rel=0.1)


@pytest.mark.parametrize("seed", range(30))
def test_fixed_rate_search_equals_the_sweep(seed):
    """FNMR at FMR and FMR at FNMR search the sorted classes directly; they pick the rows of
    the full sweep (roc_curve) that the definitions pick, with weights and infinite scores
    too."""
    rng = np.random.default_rng(seed)
    T, N = rng.integers(1, 25, size=2)
    tar = rng.integers(-3, 5, T) / 2.0
    non = rng.integers(-5, 3, N) / 2.0
    if seed % 3 == 0:
        tar[0], non[-1] = np.inf, -np.inf
    kw = {}
    if seed % 2:
        kw = dict(tar_weights=rng.uniform(0, 2, T) + 0.01, non_weights=rng.uniform(0, 2, N))
        kw["non_weights"][0] += 0.01
    c = roc_curve(tar, non, **kw)
    x = np.array([0.0, 0.01, 0.1, 0.2, 0.5, 0.75, 1.0])
    r = fnmr_at_fmr(tar, non, x, **kw)
    k = np.array([np.flatnonzero(c.p_fa <= v)[0] for v in x])
    assert_array_equal(r.upper, c.threshold[k])
    assert_array_equal(r.p_miss, c.p_miss[k])
    assert_array_equal(r.p_fa, c.p_fa[k])
    assert_array_equal(r.misses, c.misses[k])
    r = fmr_at_fnmr(tar, non, x, **kw)
    k = np.array([np.flatnonzero(c.p_miss <= v)[-1] for v in x])
    assert_array_equal(r.p_fa, c.p_fa[k])
    assert_array_equal(r.p_miss, c.p_miss[k])
    assert_array_equal(r.false_alarms, c.false_alarms[k])


def test_the_first_rate_at_most_x_equals_the_search_in_the_rate_array():
    """``_first_rate_at_most`` (no array of n + 1 rates) gives what a binary search in the
    array gives, at any x: the grid's own values, their neighbours, 0, 1, outside, NaN."""
    from llrlab.core.threshold import _first_rate_at_most

    rng = np.random.default_rng(7)
    for n in (1, 2, 3, 7, 10, 997, 1000, 12345, 10**6):
        rate = (n - np.arange(n + 1)) / n
        grid = rng.integers(0, n + 1, 20) / n
        xs = np.concatenate([rng.random(20), grid, np.nextafter(grid, 0), np.nextafter(grid, 1),
                             [0.0, 1.0, -0.1, 1.5, np.nan, 1e-300, 0.01, 0.001, np.inf,
                              -np.inf]])
        assert_array_equal(_first_rate_at_most(n, xs),
                           np.searchsorted(-rate, -xs, side="left"))
    assert _first_rate_at_most(100, 0.01).shape == ()
