"""Score histograms: per-class densities on common bins, from the sorted scores.

The dashboard, the offline report and the figures of :mod:`llrlab.core.plot` draw the
scores of targets and non-targets as densities on common bins.  The counts come from the
sort an :class:`~llrlab.core.analysis.Analysis` already holds: one binary search per bin
edge and class, whatever the number of trials.

Examples
--------
>>> from llrlab.core import analyze
>>> a = analyze([0.5, 1.5, 2.5, 9.0], [-1.0, 0.2, 0.4])
>>> h = score_histogram(a, histogram_edges(-2.0, 3.0, bins=5))
>>> h.tar.tolist(), h.non.tolist(), h.outside
([0.0, 0.0, 0.25, 0.25, 0.25], [0.0, 0.3333333333333333, 0.6666666666666666, 0.0, 0.0], (1.0, 0.0))
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._repr import summary_repr

__all__ = ["HIST_BINS", "TAIL", "Histogram", "histogram_edges", "histogram_range",
           "score_histogram"]

#: Default number of histogram bins.
HIST_BINS = 80
#: Default share of each class left out of the histogram's range at each end (0.1 %).
TAIL = 0.001


@summary_repr("edges", "outside")
@dataclass(frozen=True, eq=False)
class Histogram:
    """Per-class densities of scores on common bins.

    Attributes
    ----------
    edges : ndarray, shape (B + 1,)
        Bin edges, increasing; bin ``i`` holds the scores ``edges[i] <= s < edges[i+1]``.
    tar, non : ndarray, shape (B,)
        The class's share of trials in each bin divided by the bin's width (so each class
        integrates to at most 1; trials outside the edges are not counted).  With trial
        weights, shares of the class's total weight.
    outside : tuple of float
        ``(targets, non-targets)`` below the first edge or at or above the last one:
        numbers of trials (sums of weights, for weighted trials).
    """

    edges: np.ndarray
    tar: np.ndarray
    non: np.ndarray
    outside: tuple = (0.0, 0.0)


def _quantile_sorted(a, q):
    return float(a[min(int(q * (a.size - 1)), a.size - 1)])


def histogram_range(analyses, tail=TAIL):
    """Display range of the scores of several analyses: ``(lo, hi)``.

    The ``tail`` to ``1 - tail`` quantiles of each class (0.1 % to 99.9 % by default), over
    every analysis, padded by 4 % of the span on each side; ``(-1, 1)`` when there are no
    scores, and a span of 1 around a single value.
    """
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


def histogram_edges(lo, hi, bins=HIST_BINS):
    """``bins`` equal bins on ``[lo, hi]``: ``bins + 1`` edges."""
    return np.linspace(lo, hi, int(bins) + 1)


def score_histogram(a, edges) -> Histogram:
    """Class densities of the scores of an analysis on ``edges`` (binary searches only).

    Parameters
    ----------
    a : Analysis
        Any object with the sorted scores ``a.sorted`` of an
        :class:`~llrlab.core.analysis.Analysis`.
    edges : array_like, shape (B + 1,)
        Increasing bin edges.

    Returns
    -------
    Histogram

    Notes
    -----
    ``tar[i] = #(edges[i] <= tar < edges[i+1]) / (T * width_i)``, likewise for ``non``;
    with trial weights each trial counts by its weight and ``T``, ``N`` are the classes'
    total weights.
    """
    edges = np.asarray(edges, dtype=np.float64)
    s = a.sorted
    width = np.diff(edges)

    def dens(below, total):
        if not total > 0:
            return np.zeros(edges.size - 1)
        return np.diff(below(edges)) / (total * width)

    def outside(below):  # below the first edge, and at or above the last one
        lo, hi, every = below(np.array([edges[0], edges[-1], np.inf]))
        return float(lo + (every - hi))

    return Histogram(edges, dens(s.tar_below, s.n_tar), dens(s.non_below, s.n_non),
                     (outside(s.tar_below), outside(s.non_below)))
