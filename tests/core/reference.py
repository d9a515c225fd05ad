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


# --- threshold measures (llrlab.core.threshold, llrlab.core.auc), straight from the
# definitions: every candidate threshold in a Python loop, rates as Fractions.

def sweep(tar, non):
    """``[(t, misses, false_alarms, Fraction p_miss, Fraction p_fa)]`` at each distinct score
    and at +inf (where every trial is rejected)."""
    out = []
    for t in thresholds(tar, non):
        m = sum(1 for x in tar if x < t)
        f = sum(1 for x in non if x >= t)
        if t == np.inf:
            m, f = len(tar), 0
        out.append((float(t), m, f, Fraction(m, len(tar)), Fraction(f, len(non))))
    return out


def threshold_eer(tar, non, rule):
    """``(eer, threshold interval)`` by the FVC2000 or the closest rule (Fractions)."""
    pts = sweep(tar, non)
    j = next(k for k, p in enumerate(pts) if p[4] <= p[3])
    if pts[j][4] == pts[j][3]:
        k = j
    elif rule == "fvc":
        k = j - 1 if pts[j - 1][3] + pts[j - 1][4] <= pts[j][3] + pts[j][4] else j
    else:
        k = j - 1 if abs(pts[j - 1][4] - pts[j - 1][3]) < abs(pts[j][4] - pts[j][3]) else j
    lower = pts[k - 1][0] if k > 0 else -np.inf
    return (pts[k][3] + pts[k][4]) / 2, (lower, pts[k][0])


def fnmr_at_fmr(tar, non, x):
    """``(fnmr, fmr, threshold interval)``: the lowest threshold with FMR <= x."""
    pts = sweep(tar, non)
    k = next(k for k, p in enumerate(pts) if float(p[4]) <= x)
    best = min(p[3] for p in pts if float(p[4]) <= x)
    assert pts[k][3] == best  # the lowest such threshold has the lowest FNMR
    return pts[k][3], pts[k][4], (pts[k - 1][0] if k > 0 else -np.inf, pts[k][0])


def fmr_at_fnmr(tar, non, x):
    """``(fmr, fnmr, threshold interval)``: the highest threshold with FNMR <= x."""
    pts = sweep(tar, non)
    k = max(k for k, p in enumerate(pts) if float(p[3]) <= x)
    return pts[k][4], pts[k][3], (pts[k - 1][0] if k > 0 else -np.inf, pts[k][0])


def auc_delong(tar, non):
    """Mann-Whitney AUC and DeLong's variance by the O(T*N) double sums of DeLong, DeLong &
    Clarke-Pearson (1988), eq. (2)-(4)."""
    psi = np.array([[1.0 if x > y else 0.5 if x == y else 0.0 for y in non] for x in tar])
    v10, v01 = psi.mean(axis=1), psi.mean(axis=0)
    a = psi.mean()
    s10 = ((v10 - a) ** 2).sum() / (len(tar) - 1)
    s01 = ((v01 - a) ** 2).sum() / (len(non) - 1)
    return a, s10 / len(tar) + s01 / len(non)
