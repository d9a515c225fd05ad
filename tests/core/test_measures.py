"""Numeric tests of the core measures, in three layers (STYLE.md item 6):
hand-computed toy tables with ties, brute-force agreement on random data, and properties.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose, assert_array_equal

from llrlab.core import (
    DataError,
    Trials,
    act_dcf,
    analyze,
    analyze_transformed,
    cllr,
    cross_entropy,
    det_curve,
    det_dr30,
    dr30,
    effective_prior,
    min_cllr,
    min_cross_entropy,
    min_dcf,
    nber_curves,
    pav,
    plo_from_costs,
    prbep,
    rocch,
    rocch_eer,
    steppy_roc,
    uer,
)
from llrlab.core.det import decimate, probit

from . import reference as ref

# ---------------------------------------------------------------------------------------
# Layer 1: a hand-computed toy table with ties.
#
#   score   -2   -1   -1    0    0    1    2    3
#   label    n    n    t    n    t    t    n    t        T = 4, N = 4
#
# Sorted with ties grouped: [-2: n] [-1: n t] [0: n t] [1: t] [2: n] [3: t]
# PAV on target proportions 0, 1/2, 1/2, 1, 0, 1: the pair (1: t, 2: n) violates (1 > 0)
# and pools to 1/2, which equals its left neighbours, so they pool too.
# Blocks: {-2}: 0/1, {-1, 0, 1, 2}: 3/6, {3}: 1/1.
# PAV LLR = logit(p) - log(T/N) = logit(p): -inf, 0, +inf.
# ROCCH vertices (p_fa, p_miss): (1, 0), (3/4, 0), (0, 3/4), (0, 1).
# EER on the segment (3/4, 0)-(0, 3/4): p_fa - p_miss = 3/4 - a*3/2 = 0 at a = 1/2: 3/8.
# Actual DCF at plo = 0 (threshold 0): misses = #(tar < 0) = 1 -> 1/4;
#   false alarms = #(non >= 0) = 2 (0 and 2) -> 1/2; DCF = 3/4.
# Minimum DCF at plo = 0: vertex values 1, 3/4, 3/4, 1 -> 3/4.
# ---------------------------------------------------------------------------------------
TOY_TAR = np.array([-1.0, 0.0, 1.0, 3.0])
TOY_NON = np.array([-2.0, -1.0, 0.0, 2.0])


def test_toy_pav_blocks_and_llrs():
    scores = np.concatenate([TOY_TAR, TOY_NON])
    labels = np.r_[np.ones(4, bool), np.zeros(4, bool)]
    f = pav(scores, labels)
    assert f.n_blocks == 3
    assert_array_equal(f.llr, [-np.inf, 0.0, np.inf])
    assert_array_equal(f.lower, [-2.0, -1.0, 3.0])
    assert_array_equal(f.upper, [-2.0, 2.0, 3.0])
    assert_array_equal(f.tar, [0, 3, 1])
    assert_array_equal(f.non, [1, 3, 0])
    assert_array_equal(f.trial_llr, [0, 0, 0, np.inf, -np.inf, 0, 0, 0])


def test_toy_rocch_eer_dcf():
    h = rocch(TOY_TAR, TOY_NON)
    assert_array_equal(h.p_fa, [1, 0.75, 0, 0])
    assert_array_equal(h.p_miss, [0, 0, 0.75, 1])
    assert rocch_eer(TOY_TAR, TOY_NON) == pytest.approx(3 / 8, rel=1e-15)
    a = act_dcf(TOY_TAR, TOY_NON, 0.0)
    assert (float(a.p_miss), float(a.p_fa), float(a.dcf)) == (0.25, 0.5, 0.75)
    assert (int(a.misses), int(a.false_alarms)) == (1, 2)
    assert float(min_dcf(TOY_TAR, TOY_NON, 0.0).dcf) == 0.75


def test_toy_cllr_by_hand():
    # log(1 + e^-x) summed by hand for the four targets and e^x for the non-targets.
    sp = np.log1p(np.exp([1.0, 0.0, -1.0, -3.0])).mean() + np.log1p(
        np.exp([-2.0, -1.0, 0.0, 2.0])).mean()
    assert cllr(TOY_TAR, TOY_NON) == pytest.approx(sp / (2 * np.log(2)), rel=1e-14)
    # min Cllr from the PAV LLRs (-inf, 0, +inf), block counts (t, n) = (0,1), (3,3), (1,0):
    # 3 targets and 3 non-targets at LLR 0 cost log 2 each, the pure blocks cost nothing:
    # (3 log 2 / 4 + 3 log 2 / 4) / (2 log 2) = 3/4.
    assert min_cllr(TOY_TAR, TOY_NON) == pytest.approx(0.75, rel=1e-15)


def test_prbep_and_uer_toy():
    # T = N so PRBEP = N * EER; UER(1) = EER.
    assert prbep(TOY_TAR, TOY_NON) == pytest.approx(4 * 3 / 8)
    assert uer(TOY_TAR, TOY_NON, 1.0) == pytest.approx(3 / 8)
    # UER(r): on the segment (3/4, 0)-(0, 3/4), p_fa = 3/4 (1 - a) = r * 3a/4 at
    # a = 1/(1 + r), so UER(r) = 3/4 * r/(1 + r); 9/16 for r = 3.
    assert uer(TOY_TAR, TOY_NON, 3.0) == pytest.approx(9 / 16, rel=1e-15)


def test_effective_prior_and_plo():
    assert float(effective_prior(0.01, 10, 1)) == pytest.approx(0.1 / (0.1 + 0.99))
    assert float(plo_from_costs(0.001)) == pytest.approx(np.log(0.001 / 0.999))
    with pytest.raises(DataError, match="p_target"):
        plo_from_costs(1.0)
    with pytest.raises(DataError, match="costs"):
        plo_from_costs(0.1, 0, 1)


# ---------------------------------------------------------------------------------------
# Layer 2: brute force on random data, with ties.
# ---------------------------------------------------------------------------------------
def _random_set(rng, t, n, decimals=1):
    return (np.round(rng.normal(1.0, 1.5, t), decimals), np.round(rng.normal(-1.0, 1.0, n),
                                                                  decimals))


@pytest.mark.parametrize("seed", range(25))
def test_brute_force_agreement(seed):
    rng = np.random.default_rng(seed)
    tar, non = _random_set(rng, int(rng.integers(1, 40)), int(rng.integers(1, 60)))
    plo = np.array([-4.0, -2.3, -0.7, 0.0, 0.4, 1.9, 3.5])
    a = act_dcf(tar, non, plo)
    m = min_dcf(tar, non, plo)
    for i, x in enumerate(plo):
        assert a.dcf[i] == pytest.approx(ref.act_dcf(tar, non, x), rel=1e-12)
        assert m.dcf[i] == pytest.approx(ref.min_dcf(tar, non, x), rel=1e-12, abs=1e-15)
        # the min-DCF threshold really attains the minimum
        pm, pf = ref.rates(tar, non, m.threshold[i])
        assert ref.dcf_norm(x, pm, pf) == pytest.approx(m.dcf[i], rel=1e-12, abs=1e-15)
    assert cllr(tar, non) == pytest.approx(ref.cllr(tar, non), rel=1e-12)
    assert min_cllr(tar, non) == pytest.approx(ref.min_cllr(tar, non), rel=1e-12, abs=1e-15)
    assert rocch_eer(tar, non) == pytest.approx(ref.eer(tar, non), rel=1e-12, abs=1e-15)
    lt, ln = ref.pav_llr(tar, non)
    f = pav(np.r_[tar, non], np.r_[np.ones(tar.size, bool), np.zeros(non.size, bool)])
    assert_allclose(f.trial_llr, np.r_[lt, ln], rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("seed", range(10))
def test_rocch_vertices_match_monotone_chain_hull(seed):
    rng = np.random.default_rng(100 + seed)
    tar, non = _random_set(rng, 30, 50)
    h = rocch(tar, non)
    hull = ref.lower_hull(ref.roc_points(tar, non))
    # The two hulls are the same polyline: each one's vertices lie on the other.  (Vertex
    # sets can differ by collinear points: PAV pools equal proportions, while the float
    # cross product of the monotone chain may keep a collinear point.)
    order = np.argsort(h.p_fa)
    for x, y in hull:
        if x > 0:  # at p_fa = 0 the hull has a vertical segment
            assert np.interp(x, h.p_fa[order], h.p_miss[order]) == pytest.approx(y, abs=1e-12)
    hx = np.array([p[0] for p in hull])
    hy = np.array([p[1] for p in hull])
    inside = h.p_fa > 0
    assert_allclose(np.interp(h.p_fa[inside], hx, hy), h.p_miss[inside], atol=1e-12)


def test_exact_rational_min_dcf():
    """minDCF agrees with exact rational arithmetic at several priors (reference values)."""
    rng = np.random.default_rng(7)
    tar, non = _random_set(rng, 23, 37)
    for pt in [Fraction(1, 1000), Fraction(1, 10), Fraction(1, 2), Fraction(9, 10)]:
        exact = ref.min_dcf_unnorm_exact(tar, non, pt)
        plo = np.log(float(pt) / float(1 - pt))
        got = min_dcf(tar, non, plo, normalize=False).dcf
        assert float(got) == pytest.approx(float(exact), rel=1e-12)


def test_weights_equal_duplication():
    rng = np.random.default_rng(3)
    tar, non = _random_set(rng, 20, 30)
    wt = rng.integers(1, 4, tar.size).astype(float)
    wn = rng.integers(1, 4, non.size).astype(float)
    dup_t, dup_n = np.repeat(tar, wt.astype(int)), np.repeat(non, wn.astype(int))
    plo = np.linspace(-3, 3, 13)
    kw = dict(tar_weights=wt, non_weights=wn)
    assert_allclose(act_dcf(tar, non, plo, **kw).dcf, act_dcf(dup_t, dup_n, plo).dcf, rtol=1e-12)
    assert_allclose(min_dcf(tar, non, plo, **kw).dcf, min_dcf(dup_t, dup_n, plo).dcf, rtol=1e-12)
    assert cllr(tar, non, **kw) == pytest.approx(cllr(dup_t, dup_n), rel=1e-12)
    assert min_cllr(tar, non, **kw) == pytest.approx(min_cllr(dup_t, dup_n), rel=1e-12)
    assert rocch_eer(tar, non, **kw) == pytest.approx(rocch_eer(dup_t, dup_n), rel=1e-12)


def test_unit_weights_reproduce_unweighted_exactly():
    rng = np.random.default_rng(4)
    tar, non = _random_set(rng, 40, 70)
    kw = dict(tar_weights=np.ones(tar.size), non_weights=np.ones(non.size))
    plo = np.linspace(-5, 5, 21)
    assert_array_equal(min_dcf(tar, non, plo, **kw).dcf, min_dcf(tar, non, plo).dcf)
    assert_array_equal(act_dcf(tar, non, plo, **kw).dcf, act_dcf(tar, non, plo).dcf)
    assert min_cllr(tar, non, **kw) == min_cllr(tar, non)
    assert rocch_eer(tar, non, **kw) == rocch_eer(tar, non)


def test_steppy_roc_contains_every_roc_point():
    rng = np.random.default_rng(5)
    for t, n in [(10, 40), (40, 10), (25, 25)]:
        tar, non = _random_set(rng, t, n)
        r = steppy_roc(tar, non)
        # every brute-force ROC point lies on the polyline (segments are axis-parallel or
        # diagonal across ties): check membership of the point set after interpolation
        pts = ref.roc_points(tar, non)
        poly = set(zip(r.p_fa.round(12), r.p_miss.round(12), strict=True))
        corners = {(round(a, 12), round(b, 12)) for a, b in pts}
        assert poly <= corners  # the polyline's points are genuine ROC points
        # and the polyline passes through every ROC point: check with sklearn's det_curve
        from sklearn.metrics import det_curve as sk_det

        fpr, fnr, _ = sk_det(np.r_[np.ones(t), np.zeros(n)], np.r_[tar, non])
        for x, y in zip(fpr, fnr, strict=True):
            on = _on_polyline(r.p_fa, r.p_miss, x, y)
            assert on, (x, y)


def test_steppy_roc_leaves_out_points_inside_straight_runs():
    # Regression: (0.75, 1/3) and (0.75, 2/3) were returned inside the vertical run from
    # (0.75, 0) to (0.75, 1), against the docstring.
    r = steppy_roc([1.0, 2.0, 3.0], [0.0, 5.0, 6.0, 7.0])
    assert r.p_fa.tolist() == [1.0, 0.75, 0.75, 0.0]
    assert r.p_miss.tolist() == [0.0, 0.0, 1.0, 1.0]
    assert r.threshold.tolist() == [-np.inf, 1.0, np.nextafter(3.0, np.inf), np.inf]
    rng = np.random.default_rng(11)
    for t, n in [(30, 200), (200, 30), (50, 50)]:
        tar, non = _random_set(rng, t, n)
        r = steppy_roc(tar, non)
        dx, dy = np.diff(r.p_fa), np.diff(r.p_miss)
        assert np.all((dx != 0) | (dy != 0))  # no repeated point
        # no three consecutive points on one horizontal or vertical line
        assert not np.any((dx[:-1] == 0) & (dx[1:] == 0))
        assert not np.any((dy[:-1] == 0) & (dy[1:] == 0))


def test_steppy_det_passes_through_every_roc_point_in_probit_space():
    # the DET curve is drawn straight between its points in probit coordinates: every
    # ROC point (sklearn's det_curve) must lie on that polyline, also without the points
    # left out inside straight runs (a horizontal or vertical run stays one under probit)
    from sklearn.metrics import det_curve as sk_det

    rng = np.random.default_rng(12)
    for t, n in [(40, 300), (300, 40)]:
        tar, non = _random_set(rng, t, n)
        c = det_curve(tar, non, kind="steppy", max_points=10**6)
        assert c.tolerance == 0.0
        fpr, fnr, _ = sk_det(np.r_[np.ones(t), np.zeros(n)], np.r_[tar, non])
        for x, y in zip(probit(fpr), probit(fnr), strict=True):
            assert _on_polyline(c.x, c.y, x, y, tol=1e-9), (x, y)


def _on_polyline(px, py, x, y, tol=1e-12):
    for i in range(len(px) - 1):
        x0, y0, x1, y1 = px[i], py[i], px[i + 1], py[i + 1]
        if min(x0, x1) - tol <= x <= max(x0, x1) + tol and min(y0, y1) - tol <= y <= max(
                y0, y1) + tol:
            cross = (x1 - x0) * (y - y0) - (y1 - y0) * (x - x0)
            if abs(cross) <= tol:
                return True
    return False


def test_dr30_markers_match_grid_counts():
    rng = np.random.default_rng(11)
    tar, non = rng.normal(2, 1, 800), rng.normal(-2, 1, 20000)
    d = dr30(tar, non)
    grid = np.linspace(-12, 8, 20001)
    m = min_dcf(tar, non, grid)
    safe = (m.misses >= 30) & (m.false_alarms >= 30)
    assert_array_equal(safe, d.is_safe(grid))
    assert float(min_dcf(tar, non, d.plo_fa).dcf) == pytest.approx(d.dcf_fa)
    # just right of the FA marker there are >= 30 false alarms, just left fewer
    assert min_dcf(tar, non, np.nextafter(d.plo_fa, -np.inf)).false_alarms < 30
    assert min_dcf(tar, non, d.plo_fa).false_alarms >= 30
    assert min_dcf(tar, non, d.plo_miss).misses < 30


def test_dr30_small_classes():
    d = dr30([1.0, 2.0], [0.0, 0.5])  # fewer than 30 errors possible anywhere
    assert not d.is_safe(0.0)
    fa, miss = det_dr30([1.0, 2.0], [0.0, 0.5])
    assert np.isnan(fa).all() and np.isnan(miss).all()


def test_det_dr30_points_steppy_and_rocch():
    rng = np.random.default_rng(2)
    tar, non = rng.normal(2, 1, 500), rng.normal(0, 1, 5000)
    (pf, pm), (_pf2, pm2) = det_dr30(tar, non)
    assert pf == pytest.approx(30 / 5000)
    assert pm2 == pytest.approx(30 / 500)
    assert pm == pytest.approx(np.mean(tar < np.sort(non)[-30]))
    (hf, hm), _ = det_dr30(tar, non, kind="rocch")
    assert hf == pytest.approx(30 / 5000)
    assert hm <= pm + 1e-12  # the hull lies below the steppy curve


# ---------------------------------------------------------------------------------------
# DET decimation
# ---------------------------------------------------------------------------------------
def test_det_decimation_bounded_and_faithful():
    rng = np.random.default_rng(9)
    tar, non = rng.normal(2, 1, 50_000), rng.normal(0, 1, 50_000)
    full = det_curve(tar, non, max_points=10**9)
    small = det_curve(tar, non, max_points=2000)
    assert small.x.size <= 2000 < full.x.size
    assert small.tolerance > 0
    # every dropped point lies within tolerance (L1 arc length) of the kept polyline: the
    # decimated curve passes through the first point of every arc-length piece
    keep, delta = decimate(full.x, full.y, 2000)
    arc = np.concatenate([[0], np.cumsum(np.abs(np.diff(full.x)) + np.abs(np.diff(full.y)))])
    prev_kept = keep[np.searchsorted(keep, np.arange(full.x.size), side="right") - 1]
    assert np.all(arc - arc[prev_kept] < delta + 1e-12)  # within one piece of a kept point
    assert (small.x[0], small.y[0]) == (full.x[0], full.y[0])
    assert (small.x[-1], small.y[-1]) == (full.x[-1], full.y[-1])


def test_rocch_det_passes_through_vertices():
    rng = np.random.default_rng(1)
    tar, non = rng.normal(2, 1, 300), rng.normal(0, 1, 3000)
    c = det_curve(tar, non, kind="rocch", max_points=3000)
    h = rocch(tar, non)
    pts = set(zip(c.p_fa.round(13), c.p_miss.round(13), strict=True))
    for v in zip(h.p_fa.round(13), h.p_miss.round(13), strict=True):
        assert v in pts
    assert np.all(np.diff(c.p_fa) <= 0) and np.all(np.diff(c.p_miss) >= 0)
    assert_allclose(c.x, probit(c.p_fa))


# ---------------------------------------------------------------------------------------
# Layer 3: properties
# ---------------------------------------------------------------------------------------
scores = st.lists(st.integers(-20, 20).map(lambda i: i / 4), min_size=1, max_size=40)


@settings(max_examples=150, deadline=None)
@given(scores, scores)
def test_properties(tar, non):
    tar, non = np.array(tar), np.array(non)
    plo = np.linspace(-4, 4, 17)
    m, a = min_dcf(tar, non, plo), act_dcf(tar, non, plo)
    assert np.all(m.dcf <= a.dcf + 1e-12)
    assert min_cllr(tar, non) <= cllr(tar, non) + 1e-12
    # symmetry: swapping classes and negating scores mirrors the ROC
    assert rocch_eer(tar, non) == pytest.approx(rocch_eer(-non, -tar), abs=1e-12)
    # invariance to an increasing transform
    f = np.arctan
    assert rocch_eer(f(tar), f(non)) == pytest.approx(rocch_eer(tar, non), abs=1e-12)
    assert min_cllr(f(tar), f(non)) == pytest.approx(min_cllr(tar, non), abs=1e-12)
    assert_allclose(min_dcf(3 * tar + 1, 3 * non + 1, plo).dcf, m.dcf, atol=1e-12)
    # PAV: monotone, idempotent, and its LLRs reach min DCF at every prior
    lab = np.r_[np.ones(tar.size, bool), np.zeros(non.size, bool)]
    s = np.r_[tar, non]
    fit = pav(s, lab)
    order = np.argsort(s, kind="stable")
    llr_sorted = fit.trial_llr[order]
    assert np.all(llr_sorted[1:] >= llr_sorted[:-1])
    if np.isfinite(fit.llr).all():
        again = pav(fit.trial_llr, lab)
        assert_allclose(again.trial_llr, fit.trial_llr, atol=1e-12)
    pt, pn = fit.trial_llr[lab], fit.trial_llr[~lab]
    assert_allclose(act_dcf(pt, pn, plo).dcf, m.dcf, rtol=1e-12, atol=1e-12)


@settings(max_examples=60, deadline=None)
@given(scores, scores)
def test_eer_is_max_of_unnormalized_min_dcf(tar, non):
    tar, non = np.array(tar), np.array(non)
    h = rocch(tar, non)
    # the maximum over pt of min over vertices is attained at a segment slope: evaluate
    # at every segment's slope prior (exact), plus a dense grid
    slopes = -h.llr[np.isfinite(h.llr)]
    plo = np.concatenate([slopes, np.linspace(-8, 8, 401)])
    best = min_dcf(tar, non, plo, normalize=False).dcf.max()
    assert rocch_eer(tar, non) == pytest.approx(best, abs=1e-12)


def test_cross_entropy_consistency():
    rng = np.random.default_rng(0)
    tar, non = rng.normal(1, 1, 200), rng.normal(-1, 1, 300)
    assert cross_entropy(tar, non, 0.5) / np.log(2) == pytest.approx(cllr(tar, non), rel=1e-14)
    assert min_cross_entropy(tar, non, 0.5) / np.log(2) == pytest.approx(min_cllr(tar, non),
                                                                         rel=1e-12)
    for p in [0.01, 0.3, 0.9]:
        assert min_cross_entropy(tar, non, p) <= cross_entropy(tar, non, p) + 1e-15
    assert cross_entropy([0.0], [0.0], 0.2, normalize=True) == pytest.approx(1.0)
    with pytest.raises(DataError, match="prior"):
        cross_entropy(tar, non, 1.0)


def test_cllr_no_overflow_and_infinite_llrs():
    assert cllr([1e308], [-1e308]) == 0.0
    assert np.isfinite(cllr([-800.0], [800.0]))
    assert cllr([np.inf], [-np.inf]) == 0.0


def test_an_infinite_llr_of_weight_zero_counts_for_nothing_in_cllr():
    # a target at -inf and a non-target at +inf, both of weight 0 (inf * 0 was NaN)
    tar, non = np.array([-np.inf, 1.0, 2.0]), np.array([0.0, np.inf, -1.0])
    tw, nw = np.array([0.0, 1.0, 2.0]), np.array([1.0, 0.0, 1.0])
    want = cllr(tar[1:], non[[0, 2]], tar_weights=tw[1:], non_weights=nw[[0, 2]])
    assert np.isfinite(want)
    assert cllr(tar, non, tar_weights=tw, non_weights=nw) == want
    assert analyze(tar, non, tar_weights=tw, non_weights=nw).cllr == want


# ---------------------------------------------------------------------------------------
# analyze(): one call, same numbers as the separate functions
# ---------------------------------------------------------------------------------------
def test_analyze_agrees_with_separate_functions():
    rng = np.random.default_rng(21)
    tar, non = rng.normal(2, 1.2, 3000), rng.normal(-1, 1, 300_000)  # threaded Cllr path
    plo = np.linspace(-8, 4, 301)
    an = analyze(tar, non, plo=plo)
    assert an.cllr == pytest.approx(cllr(tar, non), rel=1e-12)
    assert an.min_cllr == pytest.approx(min_cllr(tar, non), rel=1e-12)
    assert an.eer == rocch_eer(tar, non)
    assert an.prbep == prbep(tar, non)
    assert_array_equal(an.act.dcf, act_dcf(tar, non, plo).dcf)
    assert_array_equal(an.min.dcf, min_dcf(tar, non, plo).dcf)
    op = an.at(-6.9)
    assert op.act_dcf == float(act_dcf(tar, non, -6.9).dcf)
    assert op.min_dcf == float(min_dcf(tar, non, -6.9).dcf)
    c = nber_curves(tar, non, plo)
    assert_array_equal(c.min.dcf, an.min.dcf)
    assert c.dr30.plo_fa == an.dr30.plo_fa
    assert an.summary(0.01)["n_tar"] == 3000
    assert an.det("rocch").x.size <= 5000


def test_analyze_accepts_trials_and_rejects_one_class():
    t = Trials.from_tar_non([1.0, 2.0], [0.0])
    assert analyze(t).n_tar == 2
    with pytest.raises(DataError, match="no non-target"):
        analyze(Trials.from_tar_non([1.0], []))
    with pytest.raises(DataError, match="NaN"):
        analyze([1.0, np.nan], [0.0])
    with pytest.raises(DataError, match="empty"):
        cllr([], [1.0])


def test_analyze_transformed_equals_fresh_analysis():
    rng = np.random.default_rng(8)
    tar, non = np.round(rng.normal(1, 1, 500), 2), np.round(rng.normal(-1, 1, 5000), 2)
    base = analyze(tar, non)
    for f in (lambda s: 1.7 * s - 0.3, lambda s: np.clip(s, -1, 1), np.arctan):
        got = analyze_transformed(base, f)
        want = analyze(f(tar), f(non))
        assert_array_equal(got.act.dcf, want.act.dcf)
        assert_array_equal(got.min.dcf, want.min.dcf)
        assert got.cllr == pytest.approx(want.cllr, rel=1e-13)
        assert got.min_cllr == want.min_cllr
        assert got.eer == want.eer
        assert got.dr30.plo_fa == want.dr30.plo_fa
    with pytest.raises(ValueError, match="non-decreasing"):
        analyze_transformed(base, lambda s: -s)
    # NaN from the transform (anywhere, also as the only score of a class) is refused
    for where in (0, 7, -1):
        def nan_at(s, where=where):
            y = s.copy()
            if s.size == base.sorted.tar.size:
                y[where] = np.nan
            return y
        with pytest.raises(ValueError, match="non-decreasing on the target"):
            analyze_transformed(base, nan_at)
    one = analyze([1.0], [0.0, 2.0])
    with pytest.raises(ValueError, match="non-decreasing on the target"):
        analyze_transformed(one, lambda s: np.where(s == 1.0, np.nan, s))


def test_synthetic_true_llr_is_calibrated():
    from llrlab.core import GaussianModel, gaussian_trials

    m = GaussianModel()
    s = np.array([-1.0, 0.5, 4.0])
    want = (-0.5 * ((s - 3) / 2) ** 2 - np.log(2)) - (-0.5 * s**2)  # log N(3,2) - log N(0,1)
    assert_allclose(m.llr(s), want, rtol=1e-13)
    t = gaussian_trials(20_000, 20_000, seed=3)
    a = analyze(t, plo=np.linspace(-2, 2, 5))
    # true LLRs: actual DCF close to minimum DCF, Cllr close to min Cllr
    assert np.all(a.act.dcf - a.min.dcf < 0.03)
    assert a.cllr - a.min_cllr < 0.01
    bad = analyze(gaussian_trials(20_000, 20_000, seed=3, scale=2.0, shift=1.0))
    assert bad.cllr - bad.min_cllr > 0.05
    assert bad.min_cllr == pytest.approx(a.min_cllr)  # monotone miscalibration
    with pytest.raises(DataError):
        gaussian_trials(0, 5)
