"""APE / ECE curves (Brümmer 2010, sec. 7.7.4): hand-computed toy with ties, agreement with the
per-prior measures, the fast cross-entropy kernel, the integral identities (errata factor 2),
the Cllr decomposition, weights, infinite LLRs, bad input."""

from __future__ import annotations

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from scipy.special import expit, logit

from llrlab.core import (
    DataError,
    Trials,
    analyze,
    bayes_error,
    cllr,
    cross_entropy,
    min_cllr,
    min_cross_entropy,
    min_dcf,
    pav,
)
from llrlab.core.ape import (
    APECurves,
    ECECurves,
    _ce_curve,
    _softplus_sums,
    ape_curves,
    ece_curves,
)
from llrlab.core.cllr import softplus_sum

LN2 = np.log(2.0)


def sp(x):
    return np.logaddexp(0.0, x)


def _pav(tar, non):
    labels = np.concatenate([np.ones(len(tar), bool), np.zeros(len(non), bool)])
    return pav(np.concatenate([tar, non]), labels)


# -- hand-computed toy with a tie across classes --------------------------------------------
# tar = [1, 2], non = [0, 1].  PAV blocks: {0: n} llr -inf, {1: t n} llr log(1/1) - log(2/2)
# = 0, {2: t} llr +inf.  So minCllr = (ln2/2 + ln2/2) / (2 ln2) = 1/2, min Ce(p) = H(p)/2 and
# the ROCCH vertices (Pfa, Pmiss) = (1, 0), (1/2, 0), (0, 1/2), (0, 1) give
# Emin(pt) = min(pt, 1-pt)/2.
TAR, NON = [1.0, 2.0], [0.0, 1.0]


def test_toy_bayes_errors_with_ties():
    plo = np.array([-1.5, -1.0, -0.5, 0.0])
    c = ape_curves(TAR, NON, plo)
    # threshold -plo = 1.5: tar 1 missed (1/2), no false alarm      -> pt/2
    # threshold 1: the tied pair is accepted: Pmiss 0, Pfa 1/2       -> (1-pt)/2
    # threshold 0.5: Pmiss 0, Pfa 1/2                                -> (1-pt)/2
    # threshold 0: Pmiss 0, Pfa 1                                    -> 1-pt
    pt = expit(plo)
    assert_allclose(c.bayes_error, [pt[0] / 2, (1 - pt[1]) / 2, (1 - pt[2]) / 2, 1 - pt[3]],
                    rtol=1e-15)
    assert_allclose(c.min_bayes_error, np.minimum(pt, 1 - pt) / 2, rtol=1e-15)
    assert_allclose(c.default, np.minimum(pt, 1 - pt), rtol=1e-15)
    assert c.min_cllr == pytest.approx(0.5, rel=1e-15)
    # Cllr by hand: targets sp(-1), sp(-2); non-targets sp(0), sp(1).
    want = (np.mean([sp(-1.0), sp(-2.0)]) + np.mean([sp(0.0), sp(1.0)])) / (2 * LN2)
    assert c.cllr == pytest.approx(want, rel=1e-15)
    assert c.calibration_loss == pytest.approx(want - 0.5, rel=1e-14)
    assert c.eer == pytest.approx(0.25)


def test_toy_cross_entropies_with_ties():
    plo = np.linspace(-4, 4, 9)
    c = ece_curves(TAR, NON, plo)
    p = expit(plo)
    h = -p * np.log(p) - (1 - p) * np.log1p(-p)
    assert_allclose(c.default, h, rtol=1e-14)
    assert_allclose(c.min_ce, h / 2, rtol=1e-14)
    want = p * (sp(-(1 + plo)) + sp(-(2 + plo))) / 2 + (1 - p) * (sp(plo) + sp(1 + plo)) / 2
    assert_allclose(c.ce, want, rtol=1e-14)
    assert c.ce[4] == pytest.approx(LN2 * c.cllr, rel=1e-15)
    assert c.min_ce[4] == pytest.approx(LN2 * c.min_cllr, rel=1e-15)


# -- agreement with the per-prior measures ----------------------------------------------------
def _data(seed, n=3000, ties=False):
    rng = np.random.default_rng(seed)
    tar = rng.normal(1.5, 2.0, n // 5)
    non = rng.normal(-2.0, 2.5, n)
    if ties:
        tar, non = np.round(tar, 1), np.round(non, 1)
    return tar, non


@pytest.mark.parametrize("ties", [False, True])
def test_ape_agrees_with_bayes_error_and_min_dcf(ties):
    tar, non = _data(1, ties=ties)
    plo = np.linspace(-12, 12, 97)
    c = ape_curves(tar, non, plo)
    assert isinstance(c, APECurves) and c.plo.shape == (97,)
    assert_array_equal(c.bayes_error, bayes_error(tar, non, plo))
    assert_allclose(c.min_bayes_error, min_dcf(tar, non, plo, normalize=False).dcf,
                    rtol=1e-15)
    assert np.all(c.min_bayes_error <= c.bayes_error)
    assert np.all(c.min_bayes_error <= c.default + 1e-15)
    assert c.cllr == pytest.approx(cllr(tar, non), rel=1e-14)
    assert c.min_cllr == pytest.approx(min_cllr(tar, non), rel=1e-14)
    dense = ape_curves(tar, non, np.linspace(-3, 3, 20001))
    assert c.eer == pytest.approx(dense.min_bayes_error.max(), rel=1e-3)


@pytest.mark.parametrize("ties", [False, True])
def test_ece_agrees_with_cross_entropy_at_every_prior(ties):
    tar, non = _data(2, ties=ties)
    p = expit(np.linspace(-12, 12, 41))
    plo = logit(p)  # the plo cross_entropy will use, so both see the same prior
    c = ece_curves(tar, non, plo)
    assert isinstance(c, ECECurves)
    ref = [cross_entropy(tar, non, q) for q in p]
    ref_min = [min_cross_entropy(tar, non, q) for q in p]
    assert_allclose(c.ce, ref, rtol=1e-12)
    assert_allclose(c.min_ce, ref_min, rtol=1e-12)
    assert np.all(c.min_ce <= c.ce) and np.all(c.min_ce <= c.default)


@pytest.mark.parametrize("scale", [1e-3, 0.3, 3.0, 40.0, 1e4])
@pytest.mark.parametrize("weighted", [False, True])
def test_softplus_kernel_taylor_and_direct_match_exact_sums(scale, weighted):
    rng = np.random.default_rng(int(scale * 1000) % 97)
    u = np.sort(rng.normal(0.0, scale, 5000))
    w = rng.uniform(0.1, 3.0, u.size) if weighted else None
    shifts = np.concatenate([np.linspace(-60, 60, 25), [0.0, 1e-9, 700.0, -700.0]])
    ref = np.array([softplus_sum(u, shift=c, weights=w) for c in shifts])
    for method in ("taylor", "direct", None):
        got = _softplus_sums(u, w, shifts, method)
        assert_allclose(got, ref, rtol=1e-13, atol=0), method


def test_softplus_kernel_extremes_and_infinities():
    u = np.array([-np.inf, -1.7e308, -5.0, 0.0, 3.0, 1e300, 1.7e308])
    shifts = np.linspace(-3, 3, 9)
    ref = np.array([softplus_sum(u[1:], shift=c) for c in shifts])
    assert_allclose(_softplus_sums(u, None, shifts, "taylor"), ref, rtol=1e-15)
    assert np.all(np.isinf(_softplus_sums(np.append(u, np.inf), None, shifts, "taylor")))
    # an inf of zero weight counts for nothing
    w = np.array([1, 1, 1, 1, 1, 1, 1, 0.0])
    assert_allclose(_softplus_sums(np.append(u, np.inf), w, shifts, "taylor"), ref,
                    rtol=1e-15)
    assert_array_equal(_softplus_sums(np.array([-np.inf]), None, shifts), np.zeros(9))


def test_large_set_taylor_path_is_exact():
    tar, non = _data(3, n=200_000)
    a = analyze(tar, non, plo=[])
    p = expit(np.linspace(-10, 10, 21))
    plo = logit(p)
    taylor = _ce_curve(a.sorted, plo, "taylor")
    direct = _ce_curve(a.sorted, plo, "direct")
    assert_allclose(taylor, direct, rtol=1e-13)
    assert_allclose(taylor, [cross_entropy(tar, non, q) for q in p], rtol=1e-12)


# -- the integral identities (Brümmer 2010, sec. 7.7.4 with the errata factor 2) -----------------
def _integrate_piecewise(curve, jumps, nodes=20):
    """Integral over the real line of a Bayes-error curve that is smooth between ``jumps``:
    Gauss-Legendre on every piece, plus the tails in closed form.  Below the lowest jump no
    non-target is accepted, so ``E(h) = Pmiss * sigmoid(h)`` with a constant ``Pmiss`` and the
    tail is ``Pmiss * log(1 + exp(h0))``; above the highest, ``E(h) = Pfa * sigmoid(-h)``."""
    x, wts = np.polynomial.legendre.leggauss(nodes)
    e = np.unique(jumps)
    a, b = e[:-1], e[1:]
    pts = (0.5 * (b - a)[:, None] * x[None, :] + 0.5 * (a + b)[:, None]).ravel()
    vals = curve(pts).reshape(a.size, nodes)
    lo, hi = e[0] - 1.0, e[-1] + 1.0
    p_miss = float(curve(np.array([lo]))[0] / expit(lo))
    p_fa = float(curve(np.array([hi]))[0] / expit(-hi))
    return float((vals @ wts) @ (0.5 * (b - a))) + p_miss * sp(e[0]) + p_fa * sp(-e[-1])


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_integral_of_ape_curves_is_2_ln2_cllr(seed):
    rng = np.random.default_rng(seed)
    tar = np.round(rng.normal(1.0, 2.0, 40), 1)  # ties included
    non = np.round(rng.normal(-1.0, 2.0, 60), 1)
    base = ape_curves(tar, non, [0.0])
    # The actual curve jumps where the Bayes threshold -h crosses a score.
    act = _integrate_piecewise(lambda h: ape_curves(tar, non, h).bayes_error,
                               -np.concatenate([tar, non]))
    assert act == pytest.approx(2 * LN2 * base.cllr, rel=1e-11)
    # The minimum curve switches vertex where -h crosses a PAV block LLR.
    llr = _pav(tar, non).llr
    mn = _integrate_piecewise(lambda h: ape_curves(tar, non, h).min_bayes_error,
                              -llr[np.isfinite(llr)])
    assert mn == pytest.approx(2 * LN2 * base.min_cllr, rel=1e-11)
    assert act - mn == pytest.approx(2 * LN2 * base.calibration_loss, rel=1e-10)
    dflt = _integrate_piecewise(lambda h: ape_curves(tar, non, h).default, [0.0, 1.0])
    assert dflt == pytest.approx(2 * LN2, rel=1e-13)


def test_integral_on_a_plain_grid():
    tar, non = _data(4, n=2000)
    h = np.linspace(-40, 40, 160_001)
    c = ape_curves(tar, non, h)
    assert np.trapezoid(c.bayes_error, h) == pytest.approx(2 * LN2 * c.cllr, rel=1e-4)
    assert np.trapezoid(c.min_bayes_error, h) == pytest.approx(2 * LN2 * c.min_cllr,
                                                               rel=1e-4)


# -- decomposition, reuse, weights, infinities ------------------------------------------------
def test_decomposition_sums_and_calibrated_input_has_no_calibration_loss():
    tar, non = _data(5)
    c = ece_curves(tar, non, [0.0])
    assert c.discrimination_loss + c.calibration_loss == pytest.approx(c.cllr, rel=1e-15)
    assert c.calibration_loss > 0.05 and c.discrimination_loss > 0
    fit = _pav(tar, non)
    cal_tar = fit.trial_llr[: tar.size]
    cal_non = fit.trial_llr[tar.size:]
    d = ape_curves(cal_tar, cal_non, [0.0])
    assert d.calibration_loss == pytest.approx(0.0, abs=1e-12)
    assert d.discrimination_loss == pytest.approx(c.discrimination_loss, rel=1e-12)


def test_an_analysis_is_reused():
    tar, non = _data(6)
    a = analyze(tar, non, plo=[])
    plo = np.linspace(-5, 5, 11)
    for f in (ape_curves, ece_curves):
        x, y = f(a, plo=plo), f(tar, non, plo)
        for name in ("cllr", "min_cllr"):
            assert getattr(x, name) == getattr(y, name)
    assert_array_equal(ape_curves(a, plo=plo).bayes_error, ape_curves(tar, non, plo).bayes_error)
    assert_array_equal(ece_curves(a, plo=plo).ce, ece_curves(tar, non, plo).ce)


def test_weights_equal_duplication():
    rng = np.random.default_rng(8)
    s = np.round(rng.normal(0, 2, 300), 1)
    lab = rng.random(300) < 0.3
    w = rng.integers(1, 4, 300).astype(float)
    t = Trials(s, lab, weights=w)
    dup = Trials(np.repeat(s, w.astype(int)), np.repeat(lab, w.astype(int)))
    plo = np.linspace(-6, 6, 25)
    a, b = ape_curves(t, plo=plo), ape_curves(dup, plo=plo)
    assert_allclose(a.bayes_error, b.bayes_error, rtol=1e-13)
    assert_allclose(a.min_bayes_error, b.min_bayes_error, rtol=1e-13)
    e, f = ece_curves(t, plo=plo), ece_curves(dup, plo=plo)
    assert_allclose(e.ce, f.ce, rtol=1e-13)
    assert_allclose(e.min_ce, f.min_ce, rtol=1e-13)
    assert e.cllr == pytest.approx(f.cllr, rel=1e-13)


def test_infinite_llrs():
    plo = np.linspace(-3, 3, 7)
    c = ece_curves([np.inf, 1.0], [-np.inf, 0.0], plo)  # right-side infinities cost nothing
    assert_allclose(c.ce, [cross_entropy([np.inf, 1.0], [-np.inf, 0.0], q)
                           for q in expit(plo)], rtol=1e-12)
    d = ece_curves([-np.inf, 1.0], [0.0], plo)  # a target at -inf: infinite cost
    assert np.all(np.isinf(d.ce)) and np.all(np.isfinite(d.min_ce))


@pytest.mark.parametrize("plo, msg", [([np.nan], "finite"), ([np.inf], "finite"),
                                      ([[0.0]], "1-D")])
def test_bad_plo(plo, msg):
    for f in (ape_curves, ece_curves):
        with pytest.raises(DataError, match=msg):
            f([1.0], [0.0], plo)


def test_bad_scores_and_arguments():
    with pytest.raises(DataError, match="empty"):
        ape_curves([], [0.0])
    with pytest.raises(DataError, match="NaN"):
        ece_curves([1.0], [np.nan])
    with pytest.raises(TypeError, match="non-target scores are missing"):
        ece_curves([1.0])
    a = analyze([1.0], [0.0], plo=[])
    with pytest.raises(TypeError, match="either an Analysis"):
        ape_curves(a, [0.0])


def test_default_grid():
    c = ece_curves([1.0, 2.0], [0.0, -1.0])
    assert c.plo.shape == (1001,) and c.ce.shape == c.min_ce.shape == c.default.shape
