"""Affine calibration of long classes: moments and a start from a block summary of the sorted
classes (``_logreg._Summary``), then Newton on all trials.  The optimum is the one the
linear-discriminant start reaches (to the solver's tolerance), on every shape, at one thread
or several (bit for bit)."""

from __future__ import annotations

import zlib

import numpy as np
import pytest
from scipy.special import expit, logit

from llrlab.core import Trials, cllr
from llrlab.core._parallel import set_threads
from llrlab.core.calibration import AffineCalibrator, _logreg

N = 300_000  # above _logreg.SUMMARY_MIN: the summarized path


def shape(kind, rng, n=N, frac=0.1, scale=1.0):
    lab = rng.random(n) < frac
    if kind == "gauss":
        x = np.where(lab, 1.0, -1.0) + rng.normal(size=n)
    elif kind == "skew":
        x = np.where(lab, rng.gamma(2.0, 2.0, n), rng.gamma(1.2, 1.5, n))
    elif kind == "heavy":
        x = np.where(lab, 1.5, -1.5) + rng.standard_t(3, size=n)
    elif kind == "near_separable":
        x = np.where(lab, 4.0, -4.0) + rng.normal(size=n)
    else:  # ties
        x = np.round(np.where(lab, 1.0, -1.0) + rng.normal(size=n), 1)
    return scale * x + 3.0 * scale, lab


def reference(monkeypatch, t, prior):
    """The fit from the linear-discriminant start (no summary)."""
    with monkeypatch.context() as m:
        m.setattr(_logreg, "SUMMARY_MIN", 10**12)
        return AffineCalibrator.fit(t, prior=prior)


def gradient(cal, t, prior):
    """Gradient of Ce(prior) in (scale * sd, offset) at the fitted map: zero at the optimum."""
    w = np.ones(len(t)) if t.weights is None else t.weights
    z = cal(t.scores) + logit(prior)
    lab = t.labels
    ct = prior * w[lab] / w[lab].sum()
    cn = (1 - prior) * w[~lab] / w[~lab].sum()
    dt, dn = -expit(-z[lab]) * ct, expit(z[~lab]) * cn
    sd = t.scores.std()
    return np.array([sd * (dt @ t.scores[lab] + dn @ t.scores[~lab]), dt.sum() + dn.sum()])


@pytest.mark.parametrize("kind", ["gauss", "skew", "heavy", "near_separable", "ties"])
@pytest.mark.parametrize("prior", [0.5, 0.01])
def test_the_summary_start_reaches_the_same_optimum(monkeypatch, kind, prior):
    rng = np.random.default_rng(zlib.crc32(f"{kind} {prior}".encode()))
    s, lab = shape(kind, rng, frac=0.01 if prior == 0.01 else 0.5)
    t = Trials(s, lab)
    cal = AffineCalibrator.fit(t, prior=prior)
    ref = reference(monkeypatch, Trials(s, lab), prior)
    assert cal.scale == pytest.approx(ref.scale, rel=1e-9)
    assert cal.offset == pytest.approx(ref.offset, rel=1e-9, abs=1e-9 * abs(ref.scale))
    assert cal.objective == pytest.approx(ref.objective, rel=1e-13)
    assert np.abs(gradient(cal, t, prior)).max() < 1e-10
    assert cal.training.cllr == pytest.approx(ref.training.cllr, rel=1e-12)
    assert cal.training.cllr_raw == ref.training.cllr_raw
    assert cal.training.min_cllr == ref.training.min_cllr


@pytest.mark.parametrize("scale", [0.01, 100.0])
def test_scaled_and_weighted_scores(monkeypatch, scale):
    rng = np.random.default_rng(7)
    s, lab = shape("gauss", rng, scale=scale)
    w = rng.integers(0, 4, s.size).astype(np.float64)  # weight 0 included
    w[rng.random(s.size) < 0.3] *= 0.37  # and not integers
    for prior in (0.5, 0.01):
        t = Trials(s, lab, weights=w)
        cal = AffineCalibrator.fit(t, prior=prior)
        ref = reference(monkeypatch, Trials(s, lab, weights=w), prior)
        assert cal.scale == pytest.approx(ref.scale, rel=1e-9)
        assert cal.offset == pytest.approx(ref.offset, rel=1e-9, abs=1e-9 * abs(ref.scale))
        assert np.abs(gradient(cal, t, prior)).max() < 1e-10


def test_fewer_passes_from_the_summary(monkeypatch):
    """The summary's optimum starts Newton so close that one pass over the 10^6 trials is
    left (it meets the criterion at once), against three to five from the
    linear-discriminant start (skewed scores)."""
    passes = []
    evaluate = _logreg._Objective._evaluate

    def counted(self, theta):
        if len(self.classes) > 20 and (self._x is None or not np.array_equal(theta, self._x)):
            passes[-1] += 1  # a pass over the trials (not over the summary)
        return evaluate(self, theta)

    monkeypatch.setattr(_logreg._Objective, "_evaluate", counted)
    rng = np.random.default_rng(3)
    for kind, prior, most in (("gauss", 0.5, 1), ("skew", 0.5, 1), ("skew", 0.01, 1)):
        s, lab = shape(kind, rng, n=1_000_000)
        tar, non = Trials(s, lab).sorted().tar, Trials(s, lab).sorted().non
        passes.append(0)
        fit = _logreg.fit_sorted(tar, non, prior)
        with monkeypatch.context() as m:
            m.setattr(_logreg, "SUMMARY_MIN", 10**12)
            passes.append(0)
            ref = _logreg.fit_sorted(tar, non, prior)
        assert passes[-2] <= most < passes[-1]
        assert fit.weights[0] == pytest.approx(ref.weights[0], rel=1e-10)


def test_summary_moments_equal_the_two_pass_moments():
    rng = np.random.default_rng(11)
    x = np.sort(rng.normal(5.0, 0.5, N))
    w = rng.random(N)
    for c in (0.3 / N, 0.3 * w / w.sum()):
        summ = _logreg._Summary(x, c, 4.0, 6.0)
        (mu, var), = [summ.moments()]
        (mu2, var2) = _logreg._sorted_moments(x, c, 0.3)
        assert mu[0] == pytest.approx(mu2[0], rel=1e-14)
        assert var[0, 0] == pytest.approx(var2[0, 0], rel=1e-12)
        assert summ.weights.sum() == pytest.approx(0.3, rel=1e-14)
        assert np.all(np.diff(summ.points) >= 0)


def test_the_same_bits_at_one_thread_or_two():
    rng = np.random.default_rng(5)
    s, lab = shape("skew", rng, n=2_000_000)
    out = []
    try:
        for k in (1, 2):
            set_threads(k)
            cal = AffineCalibrator.fit(Trials(s, lab), prior=0.01)
            out.append((cal.scale, cal.offset, cal.objective, cal.training))
    finally:
        set_threads()
    assert out[0] == out[1]


def test_prior_half_reports_the_objective_as_cllr():
    rng = np.random.default_rng(2)
    s, lab = shape("heavy", rng)
    t = Trials(s, lab)
    cal = AffineCalibrator.fit(t, prior=0.5)
    llr = cal(t.scores)
    assert cal.training.cllr == pytest.approx(cllr(llr[lab], llr[~lab]), rel=1e-13)
    assert cal.training.cllr == cal.objective / np.log(2.0)


@pytest.mark.parametrize("kind, prior, frac", [("skew", 0.01, 0.1), ("gauss", 0.01, 1 / 11),
                                               ("heavy", 0.5, 0.5), ("near_separable", 0.01, 0.01)])
def test_the_summary_optimum_is_the_optimum_of_all_trials(monkeypatch, kind, prior, frac):
    """At the summary's optimum the Newton decrement on all the trials (the predicted
    remaining decrease of ``Ce``) is below 1e-20 of the objective: far below the criterion
    (1e-12), so no draw needs a second pass.  The summary's blocks are of equal counts and
    of equal widths: with equal counts alone the wide blocks of the sparse tails left
    1e-14 to 1e-11 (skewed classes at the prior 0.01, 3 draws in 8 above the criterion)."""
    starts = []
    newton = _logreg._newton

    def recorded(obj, theta0):
        if len(obj.classes) > 20:  # all the trials (not the summary)
            value, dec = _logreg._decrement(obj, theta0)
            starts.append(dec / value)
        return newton(obj, theta0)

    monkeypatch.setattr(_logreg, "_newton", recorded)
    for seed in range(3):
        rng = np.random.default_rng([seed, zlib.crc32(kind.encode())])
        s, lab = shape(kind, rng, n=1_000_000, frac=frac, scale=0.01)
        t = Trials(s, lab).sorted()
        _logreg.fit_sorted(t.tar, t.non, prior)
    assert len(starts) == 3
    assert max(starts) < 1e-20, starts
