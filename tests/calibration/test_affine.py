"""Affine calibration and its logistic-regression kernel.

References for every check are computed here independently: the objective Ce(p) written out
with ``np.logaddexp`` (docs/conventions.md), scipy's BFGS on it,
scikit-learn's LogisticRegression with the prior as sample weights, and the sandwich
estimate of the sampling error of the fitted parameters.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from numpy.testing import assert_allclose
from scipy.optimize import minimize
from scipy.special import expit, logit

from llrlab.core import (
    DataError,
    LlrlabWarning,
    SeparableDataWarning,
    Trials,
    cllr,
    gaussian_trials,
    min_cllr,
)
from llrlab.core.calibration import AffineCalibrator, ConvergenceWarning, _logreg


def ce(a, b, tar, non, p, tw=None, nw=None):
    """Ce(p) of llr = a*s + b, nats, written out from the definition."""
    o = logit(p)
    lt = np.logaddexp(0, -(a * tar + b + o))
    ln = np.logaddexp(0, a * non + b + o)
    return p * np.average(lt, weights=tw) + (1 - p) * np.average(ln, weights=nw)


def ce_grad_hess(a, b, tar, non, p):
    """Gradient and Hessian of ``ce`` in (a, b), from the definition."""
    o = logit(p)
    st = expit(-(a * tar + b + o))  # d/dl of softplus(-(l+o)) is -st
    sn = expit(a * non + b + o)
    g = np.array([-p * np.mean(st * tar) + (1 - p) * np.mean(sn * non),
                  -p * np.mean(st) + (1 - p) * np.mean(sn)])
    ht, hn = p * st * (1 - st) / tar.size, (1 - p) * sn * (1 - sn) / non.size
    h = np.array([[ht @ tar**2 + hn @ non**2, ht @ tar + hn @ non],
                  [ht @ tar + hn @ non, ht.sum() + hn.sum()]])
    return g, h


def decrement(a, b, tar, non, p):
    """Newton decrement g' H^-1 g / 2 of the exact objective, relative to its value."""
    g, h = ce_grad_hess(a, b, tar, non, p)
    return 0.5 * g @ np.linalg.solve(h, g) / ce(a, b, tar, non, p)


def bfgs(tar, non, p):
    def f(w):
        return ce(w[0], w[1], tar, non, p)

    def jac(w):
        return ce_grad_hess(w[0], w[1], tar, non, p)[0]

    r = minimize(f, [1.0, 0.0], jac=jac, method="BFGS", options={"gtol": 1e-13, "maxiter": 10_000})
    return r.x, r.fun


def data(n_tar, n_non, seed, *, mt=3.0, st=2.0):
    rng = np.random.default_rng(seed)
    return rng.normal(mt, st, n_tar), rng.normal(0.0, 1.0, n_non)


@pytest.mark.parametrize("p", [0.5, 0.01, 0.9, 0.2])
def test_matches_bfgs_and_sklearn_with_1_to_100_imbalance(p):
    tar, non = data(300, 30_000, 1)
    tar, non = 7 * tar - 3, 7 * non - 3  # arbitrary units
    cal = AffineCalibrator.fit(Trials.from_tar_non(tar, non), prior=p)
    ref, f_ref = bfgs(tar, non, p)
    # The references stop a little short of the optimum (their Newton decrements are
    # 1e-22..1e-17 relative, llrlab's 1e-28..1e-21), which limits the agreement to ~1e-8.
    assert_allclose([cal.scale, cal.offset], ref, rtol=1e-7, atol=1e-12)
    # objective: the reported value is Ce at the returned parameters, and no better point
    # exists (to 1e-10 relative) than what BFGS found independently
    f = ce(cal.scale, cal.offset, tar, non, p)
    assert cal.objective == pytest.approx(f, rel=1e-13)
    assert f <= f_ref * (1 + 1e-12)
    assert f_ref <= f * (1 + 1e-10)
    from sklearn.linear_model import LogisticRegression

    x = np.r_[tar, non][:, None]
    y = np.r_[np.ones(tar.size), np.zeros(non.size)]
    w = np.r_[np.full(tar.size, p / tar.size), np.full(non.size, (1 - p) / non.size)]
    lr = LogisticRegression(C=np.inf, tol=1e-14, max_iter=100_000).fit(
        x, y, sample_weight=w * y.size)
    assert cal.scale == pytest.approx(lr.coef_[0, 0], rel=1e-7)
    # sklearn's intercept absorbs the prior log-odds that Ce adds to every LLR
    assert cal.offset + logit(p) == pytest.approx(lr.intercept_[0], rel=1e-7, abs=1e-12)
    # and llrlab's solution is at least as close to the optimum as both references
    ours = decrement(cal.scale, cal.offset, tar, non, p)
    assert ours <= 1e-19
    assert ours <= 10 * min(decrement(*ref, tar, non, p),
                            decrement(lr.coef_[0, 0], lr.intercept_[0] - logit(p), tar, non, p))


@pytest.mark.parametrize("p", [0.5, 0.02])
def test_converges_to_1e_10_in_the_objective(p):
    """The Newton decrement of the exact objective (written out here) is below 1e-12 relative.

    For a strictly convex smooth objective the decrement ``g' H^-1 g / 2`` is the second-order
    estimate of ``f - f*``; it is computed from the definition, not from llrlab's kernel.
    """
    tar, non = data(2000, 50_000, 2, mt=1.0, st=1.5)
    cal = AffineCalibrator.fit(Trials.from_tar_non(tar, non), prior=p)
    assert decrement(cal.scale, cal.offset, tar, non, p) <= 1e-12
    # and the kernel's own estimate agrees that it converged
    fit = _logreg.fit_linear(np.r_[tar, non], np.r_[np.ones(tar.size, bool),
                                                     np.zeros(non.size, bool)], p)
    assert fit.decrement <= 1e-12 * fit.objective


def test_prior_equal_to_the_class_proportion_is_plain_logistic_regression():
    """At p = T/(T+N), Ce(p) is (T+N)/n times sklearn's unweighted log-loss."""
    from sklearn.linear_model import LogisticRegression

    tar, non = data(500, 20_000, 3)
    p = tar.size / (tar.size + non.size)
    cal = AffineCalibrator.fit(Trials.from_tar_non(tar, non), prior=p)
    x = np.r_[tar, non][:, None]
    y = np.r_[np.ones(tar.size), np.zeros(non.size)]
    lr = LogisticRegression(C=np.inf, tol=1e-14, max_iter=100_000).fit(x, y)
    assert_allclose([cal.scale, cal.offset + logit(p)], [lr.coef_[0, 0], lr.intercept_[0]],
                    rtol=1e-7)


def test_prior_weighting_balances_the_classes_at_the_optimum():
    """Zero derivative in b: p * mean sigmoid(-(l+o)) over tar == (1-p) * mean sigmoid(l+o)."""
    tar, non = data(100, 10_000, 4)
    for p in (0.5, 0.01, 0.3):
        cal = AffineCalibrator.fit(Trials.from_tar_non(tar, non), prior=p)
        o = logit(p)
        lhs = p * np.mean(expit(-(cal.scale * tar + cal.offset + o)))
        rhs = (1 - p) * np.mean(expit(cal.scale * non + cal.offset + o))
        assert lhs == pytest.approx(rhs, rel=1e-9)


def test_recovers_identity_on_calibrated_llrs_within_sampling_error():
    """LLRs of N(+m, 2m) vs N(-m, 2m) are calibrated: a = 1, b = 0 up to sampling error.

    The tolerance is 4 standard errors from the sandwich estimate H^-1 J H^-1 / n of the
    fitted parameters' covariance (J: covariance of the per-trial gradients).
    """
    for seed in (5, 6):
        t = gaussian_trials(20_000, 20_000, seed=seed)  # exact LLRs
        cal = AffineCalibrator.fit(t)
        tar, non = t.tar, t.non
        g_t = -0.5 * expit(-(cal.scale * tar + cal.offset))[:, None] * np.c_[tar, np.ones(tar.size)]
        g_n = 0.5 * expit(cal.scale * non + cal.offset)[:, None] * np.c_[non, np.ones(non.size)]
        j = np.cov(g_t.T) / tar.size + np.cov(g_n.T) / non.size
        _, h = ce_grad_hess(cal.scale, cal.offset, tar, non, 0.5)
        hi = np.linalg.inv(h)
        se = np.sqrt(np.diag(hi @ j @ hi))
        assert abs(cal.scale - 1.0) < 4 * se[0]
        assert abs(cal.offset) < 4 * se[1]
        assert 0.005 < se[0] < 0.05  # the test has power: errors are small but not zero
        assert cal.training.cllr <= cal.training.cllr_raw[0] + 1e-12


def test_repairs_a_known_miscalibration():
    """Scores 2*llr - 1 are calibrated back to about llr: scale 1/2, offset 1/2."""
    dev = gaussian_trials(50_000, 50_000, seed=7, scale=2.0, shift=-1.0)
    cal = AffineCalibrator.fit(dev)
    assert cal.scale == pytest.approx(0.5, abs=0.01)
    assert cal.offset == pytest.approx(0.5, abs=0.02)
    ev = gaussian_trials(50_000, 50_000, seed=8, scale=2.0, shift=-1.0)
    assert cllr(cal(ev)) < cllr(ev) - 0.05
    assert cllr(cal(ev)) == pytest.approx(min_cllr(ev), abs=0.01)


def test_invariant_to_an_affine_change_of_the_scores():
    tar, non = data(400, 4000, 9, mt=1.5)
    base = AffineCalibrator.fit(Trials.from_tar_non(tar, non), prior=0.2)
    for alpha, beta in ((1e-3, 5.0), (250.0, -1e4), (-3.0, 2.0)):
        other = AffineCalibrator.fit(Trials.from_tar_non(alpha * tar + beta,
                                                         alpha * non + beta), prior=0.2)
        assert other.scale == pytest.approx(base.scale / alpha, rel=1e-8)
        s = np.linspace(-5, 5, 11)
        assert_allclose(other(alpha * s + beta), base(s), rtol=1e-8, atol=1e-8)
        assert other.objective == pytest.approx(base.objective, rel=1e-10)


def test_trial_weights_equal_duplicated_trials():
    rng = np.random.default_rng(10)
    tar, non = data(60, 400, 11)
    wt, wn = rng.integers(0, 4, tar.size), rng.integers(0, 4, non.size)
    weighted = AffineCalibrator.fit(Trials(np.r_[tar, non],
                                           np.r_[np.ones(tar.size, bool),
                                                 np.zeros(non.size, bool)],
                                           weights=np.r_[wt, wn].astype(float)), prior=0.3)
    dup = AffineCalibrator.fit(Trials.from_tar_non(np.repeat(tar, wt), np.repeat(non, wn)),
                               prior=0.3)
    assert_allclose([weighted.scale, weighted.offset], [dup.scale, dup.offset], rtol=1e-10)
    assert weighted.objective == pytest.approx(dup.objective, rel=1e-12)
    assert weighted.training.weighted and not dup.training.weighted
    assert weighted.training.cllr == pytest.approx(dup.training.cllr, rel=1e-12)
    # multiplying every weight by a constant changes nothing
    scaled = AffineCalibrator.fit(Trials(np.r_[tar, non], np.r_[np.ones(tar.size, bool),
                                                                 np.zeros(non.size, bool)],
                                         weights=7.5 * np.r_[wt, wn]), prior=0.3)
    assert_allclose([scaled.scale, scaled.offset], [weighted.scale, weighted.offset],
                    rtol=1e-12)


def test_training_report():
    tar, non = data(200, 2000, 12)
    t = Trials.from_tar_non(3 * tar, 3 * non, source="dev.txt")
    cal = AffineCalibrator.fit(t, prior=0.1)
    r = cal.training
    assert (r.n_tar, r.n_non, r.source, r.weighted) == (200, 2000, "dev.txt", False)
    assert r.cllr_raw == (pytest.approx(cllr(t), rel=1e-14),)
    assert r.cllr == pytest.approx(cllr(cal(t)), rel=1e-14)
    assert r.min_cllr == pytest.approx(min_cllr(t), rel=1e-12)  # increasing map keeps it
    assert r.score_range == ((float(t.scores.min()), float(t.scores.max())),)
    assert r.notes == ()
    rep = cal.report()
    assert rep["method"] == "affine" and rep["prior"] == 0.1
    assert rep["train_cllr_before"] == r.cllr_raw[0] and rep["train_cllr_after"] == r.cllr
    s, llr = cal.curve()
    assert list(s) == list(r.score_range[0])
    assert np.array_equal(llr, cal.scale * s + cal.offset)
    assert cal.inverse(cal(np.array([0.3, 1.7]))) == pytest.approx([0.3, 1.7])


def test_applies_to_arrays_scores_and_trials():
    cal = AffineCalibrator.fit(gaussian_trials(300, 3000, seed=13, scale=2.0))
    t = gaussian_trials(10, 20, seed=14)
    out = cal(t)
    assert isinstance(out, Trials) and np.array_equal(out.labels, t.labels)
    assert np.array_equal(out.scores, cal.scale * t.scores + cal.offset)
    assert np.array_equal(cal(t.unlabelled()).scores, out.scores)
    assert cal([np.inf, -np.inf]).tolist() == [np.inf, -np.inf]
    with pytest.raises(DataError, match="NaN"):
        cal([0.0, np.nan])


# ---------------------------------------------------------------------- separable data
def _fit_warned(tar, non, category=SeparableDataWarning, **kw):
    with pytest.warns(category, match="separable") as rec:
        cal = AffineCalibrator.fit(Trials.from_tar_non(tar, non), **kw)
    return cal, rec


@pytest.mark.parametrize("tar, non, sign", [
    ([2.0, 3.0, 4.0], [-1.0, 0.0, 1.0], 1),       # separated
    ([2.0, 3.0, 4.0], [-1.0, 0.0, 2.0], 1),       # quasi-separated: a tie at the boundary
    ([-2.0, -3.0, -4.0], [1.0, 0.0, -1.0], -1),   # separated the other way round
    (np.arange(50.0) + 50.5, np.arange(5000.0) / 100, 1),
])
def test_separable_dev_scores_warn_and_stay_finite(tar, non, sign):
    cal, _rec = _fit_warned(tar, non)
    assert cal.regularised and np.isfinite(cal.scale) and np.sign(cal.scale) == sign
    assert any("separable" in n for n in cal.training.notes)
    tar, non = np.asarray(tar), np.asarray(non)
    llr_t, llr_n = cal(tar), cal(non)
    assert np.all(np.isfinite(llr_t)) and np.all(np.isfinite(llr_n))
    assert llr_t.min() >= llr_n.max()                     # correctly ordered
    assert 0 < np.abs(np.r_[llr_t, llr_n]).max() < 50     # finite and of sane size
    # the penalised optimum: gradient of Ce + L2/2 |beta|^2 (whitened) vanishes; in raw
    # units the penalty is L2/2 * (a * sd)^2 with sd the class-balanced standard deviation
    g, _ = ce_grad_hess(cal.scale, cal.offset, tar, non, 0.5)
    m = 0.5 * tar.mean() + 0.5 * non.mean()
    sd2 = 0.5 * np.mean((tar - m) ** 2) + 0.5 * np.mean((non - m) ** 2)
    assert g[0] + _logreg.SEPARABLE_L2 * cal.scale * sd2 == pytest.approx(0, abs=1e-10)
    assert g[1] == pytest.approx(0, abs=1e-12)


def test_overlapping_scores_do_not_warn():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        cal = AffineCalibrator.fit(Trials.from_tar_non([1.0, 3.0], [2.0, 0.0]))
    assert not cal.regularised


def test_constant_scores_give_llr_zero_with_a_warning():
    with pytest.warns(LlrlabWarning, match="all the scores are equal"):
        cal = AffineCalibrator.fit(Trials.from_tar_non([2.0] * 3, [2.0] * 5), prior=0.1)
    assert (cal.scale, cal.offset) == (0.0, 0.0)
    assert not cal.monotone or cal.scale == 0
    with pytest.raises(DataError, match="no inverse"):
        cal.inverse(0.0)


def test_convergence_is_checked(monkeypatch):
    monkeypatch.setattr(_logreg, "DECREMENT_RTOL", -1.0)  # nothing can satisfy it
    with pytest.warns(ConvergenceWarning, match="predicted remaining decrease"):
        AffineCalibrator.fit(Trials.from_tar_non([1.0, 3.0], [2.0, 0.0]))


@pytest.mark.parametrize("tar, non, prior, match", [
    ([1.0, 2.0], [], 0.5, "no non-target"),
    ([], [1.0], 0.5, "no target"),
    ([1.0], [0.0], 0.0, "strictly between 0 and 1"),
    ([1.0], [0.0], 1.0, "strictly between 0 and 1"),
])
def test_bad_dev_sets(tar, non, prior, match):
    with pytest.raises(DataError, match=match):
        AffineCalibrator.fit(Trials.from_tar_non(tar, non), prior=prior)


def test_nan_scores_and_zero_weight_classes_are_refused():
    with pytest.raises(DataError, match="NaN"):
        Trials.from_tar_non([np.nan, 1.0], [0.0])
    with pytest.raises(DataError, match="no target trials with positive weight"):
        AffineCalibrator.fit(Trials([1.0, 2.0, 0.0], [True, True, False],
                                    weights=[0.0, 0.0, 1.0]))
    with pytest.raises(DataError, match="labelled Trials"):
        AffineCalibrator.fit(gaussian_trials(5, 5, seed=1).unlabelled())


def test_scores_too_large_for_the_fit_are_refused_with_a_hint():
    """Scores whose squares overflow used to give overflow warnings and a claim that 'all the
    scores are equal'; they are refused, naming the trials and a rescaling."""
    t = Trials([1.0, -1.0, 3e306, -2.0], [True, True, False, False], source="huge.txt")
    with pytest.raises(DataError, match=r"the dev trials of huge\.txt have scores up to "
                                        r"3e\+306 in magnitude: too large .* rescale them"):
        AffineCalibrator.fit(t)
