"""The variance of weighted error rates (llrlab.core._stratified) and what uses it: the
weighted z-tests, McNemar's test and the binomial intervals of weighted trials.

Reference values: the stratified variance of a proportion written out by hand (Cochran 1977,
sec. 5.3), the linearised variance ``sum w^2 (e - p)^2 / W^2`` by brute force, Satterthwaite's
degrees of freedom (Cochran 1977, sec. 5.4) by hand.  Then seeded simulations of the null
hypothesis and of coverage, with error rates that differ between conditions (the reason to
weight them): the type-I error and the coverage must lie in the 99.9 % band of binomial noise
around the nominal level, and the previous variance (Kish's effective number with the pooled
rate), evaluated on the same simulated sets, must fall outside it -- so the tests can fail.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import binom, norm

from llrlab.core import DataError, Trials, condition_weights
from llrlab.core._stratified import PrefixVariance, difference_variance, rate_variance
from llrlab.core.significance import mcnemar_test, z_test
from llrlab.core.uncertainty import operating_point_ci, proportion_ci


def band(n, p):
    """The 99.9 % two-sided band of a Binomial(n, p) rate: a rate outside it is no noise."""
    return binom.ppf(0.0005, n, p) / n, binom.ppf(0.9995, n, p) / n


def kish(w):
    return w.sum() ** 2 / np.dot(w, w)


# ------------------------------------------------------------------------ by hand


def test_condition_weights_give_the_stratified_variance_of_a_proportion():
    # three conditions of 4, 3 and 5 targets with weights 2, 1 and 1 (eq. 12 style: constant
    # per condition); errors 1 of 4, 2 of 3, 0 of 5.
    codes = np.r_[[0] * 4, [1] * 3, [2] * 5]
    w = np.array([2.0, 1.0, 1.0])[codes]
    e = np.r_[[1, 0, 0, 0], [1, 1, 0], [0] * 5].astype(bool)
    p, v = rate_variance(e, w, codes)
    big_w = 8 + 3 + 5
    assert p == pytest.approx((2 + 2) / big_w, rel=1e-15)
    want = ((8 / big_w) ** 2 * (1 / 4) * (3 / 4) / 4 + (3 / big_w) ** 2 * (2 / 3) * (1 / 3) / 3
            + 0.0)
    assert v == pytest.approx(want, rel=1e-14)
    # the same trials in any order, and string strata, give the same
    perm = np.random.default_rng(0).permutation(codes.size)
    names = np.array(["tel", "mic", "far"])[codes]
    assert rate_variance(e[perm], w[perm], names[perm])[1] == pytest.approx(v, rel=1e-14)
    # Kish's n with the pooled rate: another number (the reason for this module)
    assert p * (1 - p) / kish(w) != pytest.approx(v, rel=0.05)


def test_one_stratum_gives_the_linearised_and_equal_weights_the_binomial_variance():
    rng = np.random.default_rng(1)
    w = rng.lognormal(size=40)
    e = rng.random(40) < 0.3
    p, v = rate_variance(e, w)
    assert v == pytest.approx(np.sum(w**2 * (e - p) ** 2) / w.sum() ** 2, rel=1e-13)
    p1, v1 = rate_variance(e, np.full(40, 2.5))
    assert v1 == pytest.approx(p1 * (1 - p1) / 40, rel=1e-13)
    # the paired difference: sum w^2 [e_A != e_B] / W^2
    f = rng.random(40) < 0.3
    assert difference_variance(e, f, w) == pytest.approx(
        np.sum(w[e != f] ** 2) / w.sum() ** 2, rel=1e-14)


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 60), st.integers(1, 5), st.booleans(), st.integers(0, 2**32 - 1))
def test_prefix_variance_equals_the_variance_of_every_prefix(n, h, constant, seed):
    rng = np.random.default_rng(seed)
    codes = rng.integers(0, h, n) * 7 + 3  # not dense: any labels are strata
    w = (rng.uniform(0.1, 4.0, h * 7 + 3)[codes] if constant else rng.uniform(0.0, 4.0, n))
    if not w.sum() > 0:
        w[0] = 1.0
    pv = PrefixVariance(w, codes)
    j = np.arange(n + 1)
    v, df = pv(j)
    ref = np.array([rate_variance(np.arange(n) < k, w, codes)[1] for k in range(n + 1)])
    np.testing.assert_allclose(v, ref, rtol=1e-9, atol=1e-13 * ref.max())
    assert v[0] == v[n] == 0.0 and df[0] == df[n] == np.inf  # rates 0 and 1: exactly
    assert np.all(df[v > 0] >= 1.0)


def test_satterthwaite_degrees_of_freedom_by_hand():
    # one stratum: n - 1; two strata: V^2 / sum v_h^2 / (n_h - 1) (Cochran 1977, sec. 5.4)
    w = np.ones(10)
    assert PrefixVariance(w)(np.array([3]))[1][0] == pytest.approx(9.0)
    codes = np.r_[[0] * 6, [1] * 4]
    w = np.array([1.0, 3.0])[codes]
    pv = PrefixVariance(w, codes)
    # the first 7 trials: 6 of 6 in stratum 0 (no variance), 1 of 4 in stratum 1
    v, df = pv(np.array([7]))
    v1 = 9 * 1 * 3 / 4  # w^2 k (n - k) / n
    assert v[0] == pytest.approx(v1 / w.sum() ** 2, rel=1e-13)
    assert df[0] == pytest.approx(3.0, rel=1e-12)  # all variance in a stratum of 4 trials
    v, df = pv(np.array([3]))  # 3 of 6 in stratum 0 only
    assert df[0] == pytest.approx(5.0, rel=1e-12)


# Two systems on 3 conditions; A misses targets {0, 4} and B {1, 4, 5}; A false alarms on
# non-targets {7} and B on {7, 8}.  Conditions: targets 0-2 "x", 3-5 "y"; non-targets 6-8
# "x", 9-11 "y"; weights: "x" 1, "y" 2 (both classes).
CLAB = np.array([True] * 6 + [False] * 6)
CCOND = np.array(["x"] * 3 + ["y"] * 3 + ["x"] * 3 + ["y"] * 3)
CW = np.where(CCOND == "x", 1.0, 2.0)


def _scores(errors):
    e = np.zeros(12, bool)
    e[list(errors)] = True
    return np.where(CLAB != e, 1.0, -1.0)


def test_stratified_z_test_by_hand():
    a = Trials(_scores([0, 4, 7]), CLAB, weights=CW, conditions=CCOND)
    b = Trials(_scores([1, 4, 5, 7, 8]), CLAB, weights=CW, conditions=CCOND)
    r = z_test(a, b, normalize=False)
    assert r.estimator == "stratified"
    assert "stratified by condition" in r.estimator_text
    # W = 3 + 6 = 9 per class; per condition (W_h/W)^2 p_h (1 - p_h) / n_h
    s = lambda p_x, p_y: (3 / 9) ** 2 * p_x * (1 - p_x) / 3 + (6 / 9) ** 2 * p_y * (1 - p_y) / 3  # noqa: E731
    var = 0.25 * (s(1 / 3, 1 / 3) + s(1 / 3, 2 / 3)) + 0.25 * (s(1 / 3, 0) + s(2 / 3, 0))
    assert r.std == pytest.approx(np.sqrt(var), rel=1e-13)
    assert r.p_miss_a == pytest.approx((1 + 2) / 9) and r.p_miss_b == pytest.approx(5 / 9)
    d = z_test(a, b, variance="dependent", normalize=False)
    # discordant: targets 0 (w 1), 1 (w 1), 5 (w 2); non-target 8 (w 1)
    assert d.std == pytest.approx(np.sqrt(0.25 * 6 / 81 + 0.25 * 1 / 81), rel=1e-13)
    # conditions on one system only are the trials' conditions
    b0 = Trials(_scores([1, 4, 5, 7, 8]), CLAB, weights=CW)
    assert z_test(a, b0, normalize=False).std == pytest.approx(r.std, rel=1e-15)
    assert z_test(Trials(a.scores, CLAB, weights=CW), b0).estimator == "linearised"
    # different conditions on the same trial: refused
    other = Trials(b.scores, CLAB, weights=CW, conditions=np.roll(CCOND, 1), source="b.txt")
    with pytest.raises(DataError, match=r"the conditions of .* and b\.txt differ.*position 0"):
        z_test(a, other)


def test_intervals_name_the_variance_and_read_the_effective_number_from_it():
    a = Trials(_scores([0, 4, 7]), CLAB, weights=CW, conditions=CCOND)
    ci = operating_point_ci(a, plo=0.0, method="normal", normalize=False)
    assert ci.variance == "stratified"
    p = 3 / 9
    v = (3 / 9) ** 2 * (1 / 3) * (2 / 3) / 3 + (6 / 9) ** 2 * (1 / 3) * (2 / 3) / 3
    assert float(ci.p_miss.estimate) == pytest.approx(p)
    # n* = p (1 - p) / V = 5.4 trials, times (t_5 / t_df)^2 with Satterthwaite's df from
    # the strata's shares v_x = 2/3 and v_y = 8/3 (units of 1/81): (10/3)^2 / (68/9 / 2)
    from scipy.stats import t

    assert p * (1 - p) / v == pytest.approx(5.4, rel=1e-13)
    df = (10 / 3) ** 2 / ((4 / 9 + 64 / 9) / 2)
    assert float(ci.p_miss.trials) == pytest.approx(
        5.4 * (t.ppf(0.975, 5) / t.ppf(0.975, df)) ** 2, rel=1e-9)
    # no false alarm in condition "y", one of 3 in "x": V = (3/9)^2 (1/3)(2/3)/3, so
    # n* = 12, capped at the 6 trials; all the variance in "x": df = 2
    f = float(ci.p_fa.trials)
    pf = 1 / 9
    vf = (3 / 9) ** 2 * (1 / 3) * (2 / 3) / 3
    assert f == pytest.approx(min(pf * (1 - pf) / vf, 6) * (t.ppf(0.975, 5) / t.ppf(0.975, 2))
                              ** 2, rel=1e-9)
    # a rate of 0: Kish's number
    b = Trials(_scores([]), CLAB, weights=CW, conditions=CCOND)
    ci0 = operating_point_ci(b, plo=0.0)
    assert float(ci0.p_miss.trials) == pytest.approx(kish(CW[CLAB]), rel=1e-13)
    # the vectorized thresholds agree with one at a time
    t_all = np.array([-2.0, 0.0, 2.0])
    many = operating_point_ci(a, plo=0.0, threshold=t_all)
    for i, th in enumerate(t_all):
        one = operating_point_ci(a, plo=0.0, threshold=th)
        assert float(many.p_fa.upper[i]) == pytest.approx(float(one.p_fa.upper), rel=1e-13)


# ------------------------------------------------------------------ null simulation
#
# Three conditions, as in issue 18 but sharper so that 400 runs separate the two variances:
# two large conditions with few errors and a small one with many; equal condition weights
# (van Leeuwen 2008, eq. 12) give the small condition a third of the pooled rates.

N_SIMS = 400
NT, NN = np.array([600, 600, 40]), np.array([1200, 1200, 80])
PM, PF = np.array([0.01, 0.02, 0.5]), np.array([0.005, 0.01, 0.4])


def _design():
    """Labels, error probability and condition-weighted trials of the three conditions, the
    weights and Kish's effective numbers of the two classes."""
    cond = np.r_[np.repeat(np.arange(3), NT), np.repeat(np.arange(3), NN)].astype(str)
    lab = np.r_[np.ones(NT.sum(), bool), np.zeros(NN.sum(), bool)]
    p = np.r_[np.repeat(PM, NT), np.repeat(PF, NN)]
    base = condition_weights(Trials(np.where(lab, 1.0, -1.0), lab, conditions=cond)).trials
    w = base.weights
    return lab, p, base, w, kish(w[lab]), kish(w[~lab])


def _null_runs(rho, seed):
    """``N_SIMS`` pairs of systems with the same error probability in each condition;
    with probability ``rho`` B copies A's decision on a trial (correlated errors)."""
    lab, p, base, w, tk, nk = _design()
    rng = np.random.default_rng(seed)
    out = {k: [] for k in ("independent", "dependent", "mcnemar", "old independent",
                           "old dependent")}
    for _ in range(N_SIMS):
        ea = rng.random(lab.size) < p
        eb = np.where(rng.random(lab.size) < rho, ea, rng.random(lab.size) < p)
        a = base.with_scores(np.where(lab != ea, 1.0, -1.0))
        b = base.with_scores(np.where(lab != eb, 1.0, -1.0))
        zi, zd = z_test(a, b), z_test(a, b, variance="dependent")
        out["independent"].append(zi.p_value)
        out["dependent"].append(zd.p_value)
        out["mcnemar"].append(mcnemar_test(a, b).p_value)
        # the previous variance: Kish's n with the pooled rates (normalized DCF at plo 0:
        # cm = cf = 1)
        v_old = ((zi.p_miss_a * (1 - zi.p_miss_a) + zi.p_miss_b * (1 - zi.p_miss_b)) / tk
                 + (zi.p_fa_a * (1 - zi.p_fa_a) + zi.p_fa_b * (1 - zi.p_fa_b)) / nk)
        out["old independent"].append(2 * norm.sf(abs(zi.difference) / np.sqrt(v_old)))
        d_m = w[lab][ea[lab] != eb[lab]].sum() / w[lab].sum()
        d_f = w[~lab][ea[~lab] != eb[~lab]].sum() / w[~lab].sum()
        out["old dependent"].append(2 * norm.sf(abs(zd.difference)
                                                / np.sqrt(d_m / tk + d_f / nk)))
    return {k: np.mean(np.asarray(v) < 0.05) for k, v in out.items()}


@pytest.fixture(scope="module")
def null_independent():
    return _null_runs(0.0, 20260101)


@pytest.fixture(scope="module")
def null_correlated():
    return _null_runs(0.6, 20260102)


def test_weighted_z_tests_hold_their_level_when_the_conditions_rates_differ(
        null_independent, null_correlated):
    lo, hi = band(N_SIMS, 0.05)
    r = null_independent
    assert lo <= r["independent"] <= hi, r
    assert lo <= r["dependent"] <= hi, r
    assert lo <= null_correlated["dependent"] <= hi, null_correlated
    # with correlated errors the independent form is conservative (Bengio & Mariéthoz 2004)
    assert null_correlated["independent"] <= hi
    # the previous variance fails the same test on the same simulated sets
    assert r["old independent"] > hi and r["old dependent"] > hi, r
    assert null_correlated["old dependent"] > hi, null_correlated


def test_weighted_mcnemar_holds_its_level(null_independent, null_correlated):
    # conditionally on the discordant trials each is equally likely to favour either system,
    # so the weighted statistic (W_b - W_c)^2 / sum w^2 needs no strata
    lo, hi = band(N_SIMS, 0.05)
    assert null_independent["mcnemar"] <= hi and null_correlated["mcnemar"] <= hi
    assert max(null_independent["mcnemar"], null_correlated["mcnemar"]) >= lo


# ------------------------------------------------------------------ coverage simulation


@pytest.fixture(scope="module")
def coverage_runs():
    lab, p, base, _, tk, nk = _design()
    true_m, true_f = PM.mean(), PF.mean()
    true_dcf = true_m + true_f  # normalized at plo 0
    rng = np.random.default_rng(20260103)
    hits = {}

    def hit(key, lo, hi, true):
        hits.setdefault(key, []).append(bool(lo <= true <= hi))

    for _ in range(N_SIMS):
        e = rng.random(lab.size) < p
        t = base.with_scores(np.where(lab != e, 1.0, -1.0))
        for method in ("normal", "wilson", "clopper-pearson"):
            ci = operating_point_ci(t, plo=0.0, method=method)
            hit(("p_miss", method), ci.p_miss.lower, ci.p_miss.upper, true_m)
            hit(("p_fa", method), ci.p_fa.lower, ci.p_fa.upper, true_f)
            hit(("dcf", method), ci.dcf.lower, ci.dcf.upper, true_dcf)
            old_m = proportion_ci(ci.p_miss.estimate * tk, tk, method=method)
            old_f = proportion_ci(ci.p_fa.estimate * nk, nk, method=method)
            hit(("old p_miss", method), old_m.lower, old_m.upper, true_m)
            hit(("old p_fa", method), old_f.lower, old_f.upper, true_f)
    return {k: np.mean(v) for k, v in hits.items()}


@pytest.mark.parametrize("method", ["normal", "wilson", "clopper-pearson"])
@pytest.mark.parametrize("what", ["p_miss", "p_fa", "dcf"])
def test_weighted_intervals_cover_near_95_percent(coverage_runs, what, method):
    lo, hi = band(N_SIMS, 0.95)
    assert lo <= coverage_runs[(what, method)] <= hi, coverage_runs


@pytest.mark.parametrize("method", ["normal", "wilson"])
def test_kish_intervals_fail_the_same_coverage_test(coverage_runs, method):
    lo, _ = band(N_SIMS, 0.95)
    assert coverage_runs[("old p_miss", method)] < lo, coverage_runs
    assert coverage_runs[("old p_fa", method)] < lo, coverage_runs


# ------------------------------------------------------- per-trial weights, no conditions
#
# Log-normal weights; the heaviest tenth of the trials errs far more often.  The trials are a
# random sample (weights and error probabilities drawn anew for every set), so the target is
# the population rate E[w p] / E[w].

T_PT, N_PT = 800, 2400
Z90 = norm.ppf(0.9)


def _per_trial_truth(p_heavy, p_light):
    ew, ew_heavy = np.exp(0.5), np.exp(0.5) * norm.sf(Z90 - 1.0)  # E[w], E[w; log w > z90]
    return (p_heavy * ew_heavy + p_light * (ew - ew_heavy)) / ew


@pytest.fixture(scope="module")
def per_trial_runs():
    rng = np.random.default_rng(20260104)
    lab = np.r_[np.ones(T_PT, bool), np.zeros(N_PT, bool)]
    true_m, true_f = _per_trial_truth(0.4, 0.03), _per_trial_truth(0.3, 0.01)
    out = {k: [] for k in ("dependent", "independent", "old dependent", "cover p_miss",
                           "cover p_fa", "old cover p_miss")}
    for _ in range(N_SIMS):
        w = rng.lognormal(0.0, 1.0, lab.size)
        heavy = np.log(w) > Z90
        p = np.where(lab, np.where(heavy, 0.4, 0.03), np.where(heavy, 0.3, 0.01))
        ea = rng.random(lab.size) < p
        eb = rng.random(lab.size) < p
        a = Trials(np.where(lab != ea, 1.0, -1.0), lab, weights=w)
        b = Trials(np.where(lab != eb, 1.0, -1.0), lab, weights=w)
        zd = z_test(a, b, variance="dependent")
        assert zd.estimator == "linearised"
        out["dependent"].append(zd.p_value < 0.05)
        out["independent"].append(z_test(a, b).p_value < 0.05)
        tk, nk = kish(w[lab]), kish(w[~lab])
        d_m = w[lab][ea[lab] != eb[lab]].sum() / w[lab].sum()
        d_f = w[~lab][ea[~lab] != eb[~lab]].sum() / w[~lab].sum()
        z_old = abs(zd.difference) / np.sqrt(d_m / tk + d_f / nk)
        out["old dependent"].append(z_old > norm.ppf(0.975))
        ci = operating_point_ci(a, plo=0.0)
        out["cover p_miss"].append(ci.p_miss.lower <= true_m <= ci.p_miss.upper)
        out["cover p_fa"].append(ci.p_fa.lower <= true_f <= ci.p_fa.upper)
        old = proportion_ci(ci.p_miss.estimate * tk, tk)
        out["old cover p_miss"].append(old.lower <= true_m <= old.upper)
    return {k: float(np.mean(v)) for k, v in out.items()}


def test_per_trial_weights_linearised_variance_holds_level_and_coverage(per_trial_runs):
    r = per_trial_runs
    lo, hi = band(N_SIMS, 0.05)
    assert lo <= r["dependent"] <= hi, r
    # each rate's variance includes how the trials' difficulty varies, which the two systems
    # share: the independent form is conservative here (Bengio & Mariéthoz 2004)
    assert r["independent"] <= hi, r
    assert r["old dependent"] > hi, r
    lo, hi = band(N_SIMS, 0.95)
    assert lo <= r["cover p_miss"] <= hi and lo <= r["cover p_fa"] <= hi, r
    assert r["old cover p_miss"] < lo, r
