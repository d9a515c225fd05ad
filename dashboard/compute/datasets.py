"""Pieces of every dataset's results: analyses (cached, reused under calibration), histogram
bins, display ranges and the DET pick points.

Numbers come from ``llrlab.core`` (the histograms from :mod:`llrlab.core.histogram`); this
module assembles :class:`~.results.DatasetResult` records.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import numpy as np

from llrlab.core import Analysis, analyze, analyze_transformed, probit
from llrlab.core.histogram import HIST_BINS, histogram_edges
from llrlab.core.histogram import histogram_range as hist_range
from llrlab.core.histogram import score_histogram as histogram

from .results import DatasetResult

__all__ = ["HIST_BINS", "TEACHING_TAIL", "bin_edges", "hist_range", "histogram", "make_dataset",
           "parallel", "raw_analysis", "transformed"]

#: Prior log-odds grid used to map a click on the DET plot to an operating point.
_PICK_PLO = np.linspace(-20.0, 20.0, 4001)
_POOL = ThreadPoolExecutor(max_workers=2, thread_name_prefix="llrlab-compute")


#: Tail of each class left out of the histogram's range in teaching mode (the true LLR of
#: Gaussian scores with unequal variances is quadratic in the score, and its target class has
#: a tail that made the 0.1 % range span -5 to 80, where the classes could not be read).
TEACHING_TAIL = 0.02


def bin_edges(lo, hi):
    """The :data:`HIST_BINS` histogram bins on ``[lo, hi]``."""
    return histogram_edges(lo, hi, HIST_BINS)


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
