"""Pieces of every dataset's results: analyses (cached, reused under calibration), histogram
bins, display ranges and the DET pick points.

Numbers come from ``llrlab.core``; this module only bins the sorted scores for histograms,
picks display ranges and assembles :class:`~.results.DatasetResult` records.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import numpy as np

from llrlab.core import Analysis, analyze, analyze_transformed, probit

from .results import DatasetResult, Histogram

__all__ = ["HIST_BINS", "TEACHING_TAIL", "bin_edges", "hist_range", "histogram", "make_dataset",
           "parallel", "raw_analysis", "transformed"]

#: Number of histogram bins.
HIST_BINS = 80
#: Prior log-odds grid used to map a click on the DET plot to an operating point.
_PICK_PLO = np.linspace(-20.0, 20.0, 4001)
_POOL = ThreadPoolExecutor(max_workers=2, thread_name_prefix="llrlab-compute")


def _quantile_sorted(a, q):
    return float(a[min(int(q * (a.size - 1)), a.size - 1)])


#: Tail of each class left out of the histogram's range (teaching mode: the true LLR of
#: Gaussian scores with unequal variances is quadratic in the score, and its target class has
#: a tail that made the 0.1 % range span -5 to 80, where the classes could not be read).
TAIL = 0.001
TEACHING_TAIL = 0.02


def hist_range(analyses, tail=TAIL):
    """Display range of the scores: the ``tail`` to ``1 - tail`` quantiles of each class
    (0.1 % to 99.9 % by default), over every analysis, padded by 4 %."""
    lo, hi = np.inf, -np.inf
    for a in analyses:
        for x in (a.sorted.tar, a.sorted.non):
            if x.size:
                lo = min(lo, _quantile_sorted(x, tail))
                hi = max(hi, _quantile_sorted(x, 1.0 - tail))
    if not np.isfinite(lo) or not np.isfinite(hi):
        return -1.0, 1.0
    if hi <= lo:
        lo, hi = lo - 0.5, hi + 0.5
    pad = 0.04 * (hi - lo)
    return lo - pad, hi + pad


def bin_edges(lo, hi):
    """The :data:`HIST_BINS` histogram bins on ``[lo, hi]``."""
    return np.linspace(lo, hi, HIST_BINS + 1)


def histogram(a: Analysis, edges) -> Histogram:
    """Class densities on ``edges`` from the sorted scores of an analysis (binary searches);
    with trial weights (a condition-weighted pool) each trial counts by its weight."""
    s = a.sorted
    width = np.diff(edges)

    def dens(below, total):
        if not total > 0:
            return np.zeros(edges.size - 1)
        return np.diff(below(edges)) / (total * width)

    def outside(below):  # below the first edge, and above the last one
        lo = below(edges[:1])[0]
        hi, every = below(np.array([edges[-1], np.inf]), side="right")
        return float(lo + (every - hi))

    return Histogram(edges, dens(s.tar_below, s.n_tar), dens(s.non_below, s.n_non),
                     (outside(s.tar_below), outside(s.non_below)))


def _pick_points(a: Analysis):
    """Min-DCF points on the DET plot for a fine plo grid, one per ROCCH vertex."""
    _, mn = a.curves(_PICK_PLO)
    x, y = probit(mn.p_fa), probit(mn.p_miss)
    change = np.flatnonzero((np.diff(x) != 0) | (np.diff(y) != 0)) + 1
    starts = np.concatenate([[0], change])
    ends = np.concatenate([change, [x.size]]) - 1
    mid = 0.5 * (_PICK_PLO[starts] + _PICK_PLO[ends])
    return x[starts], y[starts], mid


def make_dataset(role, label, raw, llr, edges, same_order=False, *, conditions=(),
                 trials=None, transform=None) -> DatasetResult:
    """A :class:`DatasetResult` with its histogram, DET pick points and DET curves computed
    (so that nothing is computed while drawing)."""
    px, py, pp = _pick_points(llr)
    return DatasetResult(role, label, raw, llr,
                         None if edges is None else histogram(raw, edges), px, py, pp,
                         same_order, tuple(conditions), trials, transform).warm()


def parallel(fn, items):
    """``{key: fn(key, value)}`` over a dict, two at a time (numpy releases the GIL)."""
    items = list(items.items())
    if len(items) < 2:
        return {k: fn(k, v) for k, v in items}
    futures = {k: _POOL.submit(fn, k, v) for k, v in items}
    return {k: f.result() for k, f in futures.items()}


def raw_analysis(cache, trials):
    """Analysis of a Trials' raw scores, cached by object identity."""
    key = id(trials)
    hit = cache.get(key)
    if hit is not None and hit[0] is trials:
        return hit[1]
    a = analyze(trials)
    cache[key] = (trials, a)
    return a


def transformed(raw: Analysis, cal) -> Analysis:
    """Analysis of calibrated scores: reuses the sort when the map is monotone."""
    if cal.monotone:
        try:
            return analyze_transformed(raw, cal.apply)
        except ValueError:
            pass
    s = raw.sorted
    return analyze(cal.apply(s.tar), cal.apply(s.non))
