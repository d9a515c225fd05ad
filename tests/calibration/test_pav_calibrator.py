"""PAV calibration: exact PAV LLRs on dev, documented saturation, monotone map for unseen scores.

Independent references: scikit-learn's IsotonicRegression on the 0/1 labels (tied scores are
pooled by it, as by PAV), brute-force threshold sweeps for minimum DCF (llrlab.core.min_dcf is
itself tested against one in tests/core), and the formulas of the PAVCalibrator docstring.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose, assert_array_equal

from llrlab.core import DataError, Trials, act_dcf, cllr, min_cllr, min_dcf, pav
from llrlab.core.calibration import PSEUDO_COUNT, PAVCalibrator


def tied_trials(seed, n_tar=300, n_non=3000, decimals=1):
    rng = np.random.default_rng(seed)
    return Trials.from_tar_non(np.round(rng.normal(2, 1, n_tar), decimals),
                               np.round(rng.normal(0, 1, n_non), decimals))


def sklearn_pav_llr(t, weights=None):
    """PAV LLRs of every dev trial from scikit-learn's isotonic regression of the labels."""
    from sklearn.isotonic import IsotonicRegression

    iso = IsotonicRegression(out_of_bounds="clip", y_min=0.0, y_max=1.0)
    p = iso.fit(t.scores, t.labels.astype(float), sample_weight=weights).predict(t.scores)
    w = np.ones(len(t)) if weights is None else weights
    prior = w[t.labels].sum() / w.sum()
    with np.errstate(divide="ignore"):
        return np.log(p) - np.log1p(-p) - np.log(prior / (1 - prior))


def test_hand_computed_toy_with_ties():
    # sorted: 0n 1n 2t 3t 3t 3n 4n 5t; the tie at 3 is one block [t t n] of proportion 2/3,
    # which pools with 2t (3/4) and 4n into 3t2n; PAV: {0,1}: 0t2n, {2..4}: 3t2n, {5}: 1t0n
    cal = PAVCalibrator.fit(Trials.from_tar_non([2.0, 3.0, 3.0, 5.0], [0.0, 1.0, 3.0, 4.0]))
    assert cal.lower.tolist() == [0.0, 2.0, 5.0] and cal.upper.tolist() == [1.0, 4.0, 5.0]
    # T/N = 4/4; pure ends: log((0 + .5) / (2 + .5)) and log((1 + .5) / (0 + .5))
    assert_allclose(cal.llr, [np.log(0.2), np.log(1.5), np.log(3.0)], rtol=1e-15)
    assert cal.pure_ends == (True, True) and cal.n_blocks == 3
    s = [-10.0, 0.0, 0.5, 1.0, 1.25, 2.0, 3.0, 4.0, 4.5, 5.0, 99.0]
    frac = 0.25
    want = [np.log(0.2)] * 4 + [(1 - frac) * np.log(0.2) + frac * np.log(1.5)] + \
        [np.log(1.5)] * 3 + [0.5 * np.log(1.5) + 0.5 * np.log(3.0)] + [np.log(3.0)] * 2
    assert_allclose(cal(s), want, rtol=1e-14)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_dev_llrs_agree_with_sklearn_isotonic_regression(seed):
    t = tied_trials(seed, 80, 400)
    ref = sklearn_pav_llr(t)
    exact = pav(t.scores, t.labels).trial_llr
    finite = np.isfinite(ref)
    assert np.array_equal(np.isfinite(exact), finite)
    assert np.array_equal(np.sign(exact[~finite]), np.sign(ref[~finite]))
    assert_allclose(exact[finite], ref[finite], rtol=1e-12, atol=1e-12)
    # the calibrator reproduces them on every dev trial outside the pure end blocks
    got = PAVCalibrator.fit(t)(t)
    assert_allclose(got.scores[finite], ref[finite], rtol=1e-12, atol=1e-12)
    assert np.all(np.isfinite(got.scores))


def test_weighted_dev_llrs_agree_with_sklearn_and_with_duplication():
    rng = np.random.default_rng(4)
    t = tied_trials(4, 60, 300)
    w = rng.integers(0, 4, len(t)).astype(float)
    ref = sklearn_pav_llr(t, w)
    weighted = PAVCalibrator.fit(t.with_weights(w))
    live = (w > 0) & np.isfinite(ref)
    assert_allclose(weighted(t.scores)[live], ref[live], rtol=1e-12, atol=1e-12)
    rep = np.repeat(np.arange(len(t)), w.astype(int))
    dup = PAVCalibrator.fit(t.subset(rep))
    # trials of weight 0 take no part in PAV (docs/conventions.md): the blocks' [lower,
    # upper] and LLRs are those of the duplicated trials, so the maps agree everywhere
    assert_array_equal(weighted.lower, dup.lower)
    assert_array_equal(weighted.upper, dup.upper)
    grid = np.linspace(-4, 6, 1001)
    assert_allclose(weighted(grid), dup(grid), rtol=1e-12, atol=1e-12)
    assert weighted.training.weighted and weighted.training.n_tar == t.n_tar


@pytest.mark.parametrize("seed", range(6))
def test_trials_of_weight_zero_do_not_move_the_map(seed):
    """Trials of weight 0 anywhere (between blocks, beyond the ends) leave the PAV map as
    it is without them: they take no part in PAV (docs/conventions.md), also in the
    blocks' ranges, which the map interpolates between."""
    rng = np.random.default_rng(seed)
    t = tied_trials(seed, 25, 40, decimals=2)
    w = rng.choice([0.0, 0.0, 0.5, 1.0, 2.0], len(t))
    w[np.flatnonzero(t.labels)[0]] = w[np.flatnonzero(~t.labels)[0]] = 1.0
    live = w > 0
    with_zeros = PAVCalibrator.fit(t.with_weights(w))
    without = PAVCalibrator.fit(t.subset(np.flatnonzero(live)).with_weights(w[live]))
    assert_array_equal(with_zeros.lower, without.lower)
    assert_array_equal(with_zeros.upper, without.upper)
    grid = np.linspace(-4, 6, 2001)
    assert_array_equal(with_zeros(grid), without(grid))


@pytest.mark.parametrize("seed", [5, 6])
def test_act_dcf_of_pav_llrs_is_min_dcf_at_every_prior(seed):
    t = tied_trials(seed)
    plo = np.r_[np.linspace(-30, 30, 1201), -1e3, 1e3]
    exact = pav(t.scores, t.labels).trial_llr
    tar, non = exact[t.labels], exact[~t.labels]
    assert_allclose(act_dcf(tar, non, plo=plo).dcf, min_dcf(t, plo=plo).dcf, rtol=0,
                    atol=1e-13)
    # the finite map keeps the equality wherever the Bayes threshold -plo lies inside the
    # range of its LLRs (beyond it, saturation decides all pure-block trials the same way)
    cal = PAVCalibrator.fit(t)
    llr = cal(t)
    inside = (-plo > cal.llr[0]) & (-plo < cal.llr[-1])
    assert inside.sum() > 100
    assert_allclose(act_dcf(llr, plo=plo[inside]).dcf, min_dcf(t, plo=plo[inside]).dcf,
                    rtol=0, atol=1e-13)
    assert cal.training.min_cllr == pytest.approx(min_cllr(t), rel=1e-12)
    assert cal.training.cllr == pytest.approx(cllr(llr), rel=1e-14)
    assert cal.training.min_cllr <= cal.training.cllr < cal.training.cllr_raw[0]


def test_without_pure_blocks_the_map_is_exact_pav_at_every_prior():
    # the lowest score is a target and the highest a non-target: no pure end block
    t = Trials.from_tar_non([-5.0, 1.0, 2.0, 2.0, 3.0], [0.0, 0.5, 2.0, 1.5, 9.0])
    cal = PAVCalibrator.fit(t)
    assert cal.pure_ends == (False, False)
    assert np.array_equal(cal(t.scores), pav(t.scores, t.labels).trial_llr)
    plo = np.linspace(-10, 10, 81)
    assert_allclose(act_dcf(cal(t), plo=plo).dcf, min_dcf(t, plo=plo).dcf, atol=1e-14)


def test_saturation_formula_on_separable_dev_scores():
    cal = PAVCalibrator.fit(Trials.from_tar_non([4.0, 5.0, 6.0], [1.0, 2.0, 3.0]))
    # two pure blocks, T = N = 3: log(0.5 / 3.5) and log(3.5 / 0.5)
    assert_allclose(cal.llr, [-np.log(7), np.log(7)], rtol=1e-15)
    assert PSEUDO_COUNT == 0.5
    # halfway between the blocks the map is at 0 (linear interpolation)
    assert cal([3.5])[0] == pytest.approx(0.0, abs=1e-15)
    # with imbalance the prior odds T/N enter: 1 target, 9 non-targets
    cal = PAVCalibrator.fit(Trials.from_tar_non([10.0], np.arange(9.0)))
    assert_allclose(cal.llr, [np.log(0.5 / 9.5) - np.log(1 / 9), np.log(1.5 / 0.5)
                              - np.log(1 / 9)], rtol=1e-14)


def test_a_saturated_end_never_crosses_its_neighbour():
    # sorted: 30 non | 20 tar | 1 non | 1 tar; PAV blocks [30n], [20t 1n], [1t] (T=21, N=31).
    # The pure top block would get log(1.5/0.5) - log(T/N), below its neighbour's
    # log(20/1) - log(T/N), so it is lowered to the neighbour's value.
    non = np.r_[np.arange(-30.0, 0.0), 10.5]
    tar = np.r_[np.arange(20.0) * 0.5 + 0.25, 50.0]
    cal = PAVCalibrator.fit(Trials.from_tar_non(tar, non))
    assert cal.pure_ends == (True, True)
    assert cal.llr[-1] == cal.llr[-2]                       # lowered to its neighbour
    assert np.all(np.diff(cal.llr) >= 0)
    exact = pav(np.r_[tar, non], np.r_[np.ones(tar.size, bool), np.zeros(non.size, bool)])
    assert exact.n_blocks == 3 and np.isinf(exact.llr[-1])
    assert cal.llr[-2] == exact.llr[-2] == np.log(20) - np.log(21 / 31)  # untouched


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(-20, 20), st.booleans()), min_size=2, max_size=60),
       st.lists(st.floats(-1e3, 1e3, allow_nan=False), min_size=1, max_size=40))
def test_unseen_scores_map_monotone_and_finite(trials, unseen):
    s = np.array([v for v, _ in trials], dtype=float) / 4
    lab = np.array([b for _, b in trials])
    if lab.all() or not lab.any():
        return
    cal = PAVCalibrator.fit(Trials(s, lab))
    u = np.sort(np.r_[unseen, s, np.inf, -np.inf])
    llr = cal(u)
    assert np.all(np.isfinite(llr)) and np.all(np.diff(llr) >= 0)
    assert llr[0] == cal.llr[0] and llr[-1] == cal.llr[-1]
    # the training LLRs are those of PAV wherever PAV's are finite
    exact = pav(s, lab).trial_llr
    fin = np.isfinite(exact)
    assert_allclose(cal(s)[fin], exact[fin], rtol=1e-13, atol=1e-13)


def test_eval_cllr_is_finite_even_for_a_worst_case_eval_set():
    cal = PAVCalibrator.fit(Trials.from_tar_non([4.0, 5.0, 6.0], [1.0, 2.0, 3.0]))
    # eval targets far below and non-targets far above the dev range
    ev = Trials.from_tar_non([-100.0, 0.0], [7.0, 1e9])
    assert np.isfinite(cllr(cal(ev)))


def test_curve_is_exact_piecewise_linear():
    t = tied_trials(7, 100, 1000)
    cal = PAVCalibrator.fit(t)
    s, llr = cal.curve(-6.0, 7.0)
    assert s[0] == -6.0 and s[-1] == 7.0 and np.all(np.diff(s) >= 0)
    assert s.size <= 2 * cal.n_blocks + 2
    grid = np.linspace(-6, 7, 5001)
    assert_allclose(np.interp(grid, s, llr), cal(grid), rtol=0, atol=1e-12)
    d_s, _d_llr = cal.curve()
    assert d_s[0] == t.scores.min() and d_s[-1] == t.scores.max()
    with pytest.raises(DataError, match="empty"):
        cal.curve(1.0, 0.0)


def test_report_and_bad_input():
    t = tied_trials(8, 50, 500)
    cal = PAVCalibrator.fit(t)
    rep = cal.report()
    assert rep["method"] == "pav" and rep["n_blocks"] == cal.n_blocks
    assert rep["llr_range"] == [cal.llr[0], cal.llr[-1]]
    assert "lower" not in rep  # the block arrays are in to_dict(), not in the summary
    assert cal.monotone and not cal.strictly_increasing
    with pytest.raises(DataError, match="NaN"):
        cal([np.nan])
    with pytest.raises(DataError, match="no non-target"):
        PAVCalibrator.fit(Trials.from_tar_non([1.0], []))
    with pytest.raises(DataError, match="no target"):
        PAVCalibrator.fit(Trials.from_tar_non([], [1.0]))


def test_sorted_input_fast_path_is_bit_identical():
    t = tied_trials(9, 200, 2000, decimals=2)
    cal = PAVCalibrator.fit(t)
    rng = np.random.default_rng(1)
    x = np.r_[rng.normal(1, 3, 5000), cal.lower, cal.upper, -np.inf, np.inf]
    order = np.argsort(x, kind="stable")
    fast = cal(x[order])                       # sorted: block starts + repeat
    assert np.array_equal(cal(x)[order], fast)  # unsorted: a binary search per score
    assert np.array_equal(fast, [cal([v])[0] for v in x[order]])
    assert np.all(np.diff(fast) >= 0)


@pytest.mark.parametrize("seed", range(20))
def test_inverse_is_the_smallest_accepted_score(seed):
    """``inverse(eta)``: the smallest score whose LLR reaches ``eta`` (the score threshold of
    the decision ``LLR >= eta``), exactly in floating point; -inf / +inf at the ends."""
    rng = np.random.default_rng(seed)
    dev = Trials.from_tar_non(np.round(rng.normal(1.5, 1, 60), 1),
                              np.round(rng.normal(0, 1, 200), 1))
    cal = PAVCalibrator.fit(dev)
    eta = np.concatenate([cal.llr, rng.uniform(cal.llr[0] - 1, cal.llr[-1] + 1, 200)])
    s = cal.inverse(eta)
    assert s.shape == eta.shape
    inner = np.isfinite(s)
    assert np.all(cal(s[inner]) >= eta[inner])
    assert np.all(cal(np.nextafter(s[inner], -np.inf)) < eta[inner])
    assert np.all(eta[s == -np.inf] <= cal.llr[0]) and np.all(eta[s == np.inf] > cal.llr[-1])
    # on the dev scores: accepting score >= inverse(eta) is the decision LLR >= eta
    x = dev.scores
    for e in eta[::20]:
        assert_array_equal(x >= cal.inverse(e), cal(x) >= e)
    assert np.ndim(cal.inverse(0.0)) == 0
