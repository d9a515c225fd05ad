"""Slow, obviously-correct reference implementations used only by the tests.

Each follows the definition in docs/conventions.md literally: sweeps over every
threshold, exact rational arithmetic where it matters, quadratic loops.  No llrlab code.
"""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np
from scipy.special import expit
from sklearn.isotonic import IsotonicRegression


def thresholds(tar, non):
    """Every threshold that gives a distinct ROC point: each distinct score, and +inf."""
    return np.concatenate([np.unique(np.concatenate([tar, non])), [np.inf]])


def rates(tar, non, t, wt=None, wn=None):
    wt = np.ones(len(tar)) if wt is None else wt
    wn = np.ones(len(non)) if wn is None else wn
    return wt[tar < t].sum() / wt.sum(), wn[non >= t].sum() / wn.sum()


def dcf_norm(plo, p_miss, p_fa):
    pt = expit(plo)
    return (pt * p_miss + (1 - pt) * p_fa) / min(pt, 1 - pt)


def act_dcf(tar, non, plo, wt=None, wn=None):
    pm, pf = rates(tar, non, -plo, wt, wn)
    return dcf_norm(plo, pm, pf)


def min_dcf(tar, non, plo, wt=None, wn=None):
    return min(dcf_norm(plo, *rates(tar, non, t, wt, wn)) for t in thresholds(tar, non))


def min_dcf_unnorm_exact(tar, non, pt: Fraction):
    """Exact un-normalized minimum DCF at a rational prior (Fractions)."""
    T, N = len(tar), len(non)
    best = None
    for t in thresholds(tar, non):
        m = Fraction(int((tar < t).sum()), T)
        f = Fraction(int((non >= t).sum()), N)
        v = pt * m + (1 - pt) * f
        best = v if best is None or v < best else best
    return best


def cllr(tar, non):
    return (np.mean(np.log1p(np.exp(-tar))) + np.mean(np.log1p(np.exp(non)))) / (2 * np.log(2))


def pav_llr(tar, non, wt=None, wn=None):
    """PAV LLRs per trial via scikit-learn's isotonic regression on tie-grouped scores."""
    wt = np.ones(len(tar)) if wt is None else wt
    wn = np.ones(len(non)) if wn is None else wn
    s = np.concatenate([tar, non])
    u, inv = np.unique(s, return_inverse=True)
    bt = np.bincount(inv, weights=np.concatenate([wt, np.zeros(len(non))]), minlength=u.size)
    bn = np.bincount(inv, weights=np.concatenate([np.zeros(len(tar)), wn]), minlength=u.size)
    keep = bt + bn > 0
    ir = IsotonicRegression().fit(u[keep], (bt / np.where(keep, bt + bn, 1))[keep],
                                  sample_weight=(bt + bn)[keep])
    p = ir.predict(u)
    with np.errstate(divide="ignore"):
        llr = np.log(p) - np.log1p(-p) - np.log(wt.sum() / wn.sum())
    return llr[inv[: len(tar)]], llr[inv[len(tar):]]


def min_cllr(tar, non):
    lt, ln = pav_llr(tar, non)
    with np.errstate(over="ignore"):
        ct = np.mean(np.where(np.isposinf(lt), 0.0, np.logaddexp(0, -lt)))
        cn = np.mean(np.where(np.isneginf(ln), 0.0, np.logaddexp(0, ln)))
    return (ct + cn) / (2 * np.log(2))


def lower_hull(points):
    """Lower-left convex hull (monotone chain) of ROC points, from (0,1) to (1,0)."""
    pts = sorted(set(points))
    hull = []
    for p in pts:
        while len(hull) >= 2:
            (x1, y1), (x2, y2) = hull[-2], hull[-1]
            if (x2 - x1) * (p[1] - y1) - (y2 - y1) * (p[0] - x1) <= 0:
                hull.pop()
            else:
                break
        hull.append(p)
    return hull


def roc_points(tar, non):
    return [rates(tar, non, t) [::-1] for t in np.concatenate([[-np.inf], thresholds(tar, non)])]


def eer(tar, non):
    """ROCCH-EER by intersecting y = x with the monotone-chain hull."""
    hull = lower_hull(roc_points(tar, non))
    for (x1, y1), (x2, y2) in itertools.pairwise(hull):
        g1, g2 = x1 - y1, x2 - y2
        if g1 <= 0 <= g2 or g2 <= 0 <= g1:
            if g1 == g2:
                return x1
            a = g1 / (g1 - g2)
            return x1 + a * (x2 - x1)
    raise AssertionError("no crossing")
