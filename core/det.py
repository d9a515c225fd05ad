"""DET curves: ROC and ROCCH on probit axes, decimated for plotting, with DR30 points.

References: Brümmer & de Villiers (2011), sec. 2.6 (DET = ROC with ``x = probit(Pfa)``, ``y =
probit(Pmiss)``) and section 2.1.1 (DR30 flags); docs/conventions.md.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import ndtri

from ._repr import summary_repr
from ._sorting import SortedScores, pooled_blocks, sorted_input
from .rocch import ROC, ROCCH, _steppy

__all__ = ["DET_TICKS", "PROBIT_LIMIT", "DETCurve", "decimate", "det_axis_start", "det_curve",
           "det_dr30", "det_ticks", "probit"]

#: Probit coordinates are clipped to +-PROBIT_LIMIT (probabilities 0 and 1 map there);
#: ``ndtri(1e-15) = -7.94``, so the clip only affects exact zeros and ones.
PROBIT_LIMIT = 8.0


def probit(p):
    """``scipy.special.ndtri(p)`` clipped to ``[-PROBIT_LIMIT, PROBIT_LIMIT]``."""
    return np.clip(ndtri(np.asarray(p, dtype=np.float64)), -PROBIT_LIMIT, PROBIT_LIMIT)


#: Probabilities with a tick on DET axes (labelled in percent: 0.01 ... 99.9).
DET_TICKS = (0.0001, 0.0002, 0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.4,
             0.5, 0.6, 0.8, 0.9, 0.95, 0.98, 0.99, 0.995, 0.998, 0.999)
#: The order in which ticks are kept when labels would collide: decades and the middle,
#: then the rest.
_TICK_PRIORITY = (0.5, 0.1, 0.01, 0.001, 0.0001, 0.9, 0.99, 0.999, 0.2, 0.4, 0.02, 0.05,
                  0.002, 0.005, 0.0002, 0.0005, 0.6, 0.8, 0.95, 0.98, 0.995, 0.998)


def det_ticks(lo, hi, min_gap):
    """Tick positions (probits) of :data:`DET_TICKS` inside ``[lo, hi]``, at least
    ``min_gap`` probit units apart.

    Ticks are taken decades first (0.5, 0.1, 0.01, ...) and dropped when they would sit
    closer than ``min_gap`` to a tick already kept, so that labels never overlap whatever
    the range and the font size.

    Examples
    --------
    >>> from scipy.special import ndtr
    >>> [f"{100 * p:.2g}" for p in ndtr(det_ticks(probit(0.001), probit(0.4), 0.2))]
    ['0.1', '0.2', '0.5', '1', '2', '5', '10', '20', '40']
    >>> [f"{100 * p:.2g}" for p in ndtr(det_ticks(probit(0.001), probit(0.4), 0.4))]
    ['0.1', '1', '10', '20', '40']
    """
    kept = []
    for p in _TICK_PRIORITY:
        x = float(probit(p))
        if lo - 1e-9 <= x <= hi + 1e-9 and all(abs(x - k) >= min_gap for k in kept):
            kept.append(x)
    return sorted(kept)


def det_axis_start(n):
    """The lowest error rate a DET axis shows for a class of ``n`` trials.

    ``1/n``, the smallest non-zero error rate of the class, kept within 0.01 % and 1 % and
    snapped down to a tick of :data:`DET_TICKS`.

    Examples
    --------
    >>> det_axis_start(58000), det_axis_start(2000), det_axis_start(10)
    (0.0001, 0.0005, 0.01)
    """
    p = min(max(1.0 / max(int(n), 1), DET_TICKS[0]), 0.01)
    return max((t for t in DET_TICKS if t <= p), default=DET_TICKS[0])


@summary_repr("kind", "p_fa", "p_miss", "tolerance")
@dataclass(frozen=True, eq=False)
class DETCurve:
    """A curve in DET space, ordered by increasing threshold (``p_fa`` falling).

    Attributes
    ----------
    p_fa, p_miss : ndarray, shape (M,)
        Error rates of the kept points.
    x, y : ndarray, shape (M,)
        ``probit(p_fa)``, ``probit(p_miss)`` (clipped, see :data:`PROBIT_LIMIT`).
    kind : str
        ``"steppy"`` or ``"rocch"``.
    tolerance : float
        Largest distance (in probit units, L1 along the curve) between the full curve and
        the decimated one; 0 when nothing was dropped.
    """

    p_fa: np.ndarray
    p_miss: np.ndarray
    x: np.ndarray
    y: np.ndarray
    kind: str
    tolerance: float


def decimate(x, y, max_points):
    """Indices of at most ``max_points`` points of a monotone curve, keeping its shape.

    The curve is cut into ``max_points - 2`` pieces of equal L1 arc length ``delta``; the
    first point of each piece is kept, plus both ends.  Every dropped point lies on the
    curve between two kept points less than ``delta`` apart (along the curve), so the
    decimated polyline stays within ``delta`` of the original.

    Returns
    -------
    keep : ndarray of int
        Increasing indices.
    delta : float
        The arc length of a piece (0 when every point is kept).
    """
    n = len(x)
    if n <= max_points:
        return np.arange(n), 0.0
    if max_points < 3:
        raise ValueError("max_points must be at least 3")
    step = np.abs(np.diff(x)) + np.abs(np.diff(y))
    arc = np.concatenate([[0.0], np.cumsum(step)])
    delta = arc[-1] / (max_points - 2)
    if delta == 0:
        return np.array([0, n - 1]), 0.0
    piece = np.floor(arc / delta).astype(np.int64)
    keep = np.ones(n, dtype=bool)
    keep[1:] = piece[1:] != piece[:-1]
    keep[-1] = True
    return np.flatnonzero(keep), float(delta)


def _curve(p_fa, p_miss, kind, max_points):
    x, y = probit(p_fa), probit(p_miss)
    keep, delta = decimate(x, y, max_points)
    return DETCurve(p_fa[keep], p_miss[keep], x[keep], y[keep], kind, delta)


def _rocch_points(h: ROCCH, max_points):
    """Points along the ROCCH segments, dense enough to draw them as curves in DET space.

    A straight segment of the ROC is curved in DET space; each segment gets a number of
    interpolated points proportional to its length in probit units.
    """
    xv, yv = probit(h.p_fa), probit(h.p_miss)
    seg = np.abs(np.diff(xv)) + np.abs(np.diff(yv))
    budget = max(max_points - h.p_fa.size, 0)
    total = seg.sum()
    extra = np.zeros(seg.size, dtype=np.int64) if total == 0 else np.floor(
        budget * seg / total).astype(np.int64)
    counts = extra + 1  # each segment contributes its start vertex plus `extra` points
    seg_idx = np.repeat(np.arange(seg.size), counts)
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
    a = (np.arange(seg_idx.size) - starts[seg_idx]) / counts[seg_idx]
    pf = h.p_fa[seg_idx] + a * (h.p_fa[seg_idx + 1] - h.p_fa[seg_idx])
    pm = h.p_miss[seg_idx] + a * (h.p_miss[seg_idx + 1] - h.p_miss[seg_idx])
    return np.append(pf, h.p_fa[-1]), np.append(pm, h.p_miss[-1])


def _det(s: SortedScores, kind, max_points, blocks=None):
    if kind == "steppy":
        roc: ROC = _steppy(s)
        return _curve(roc.p_fa, roc.p_miss, kind, max_points)
    if kind == "rocch":
        h = ROCCH.from_blocks(blocks if blocks is not None else pooled_blocks(s))
        pf, pm = _rocch_points(h, max_points)
        return _curve(pf, pm, kind, max_points)
    raise ValueError(f"kind must be 'steppy' or 'rocch', got {kind!r}")


def det_curve(tar, non=None, *, kind="steppy", max_points=5000, tar_weights=None,
              non_weights=None) -> DETCurve:
    """DET curve of scores, steppy or ROCCH, with at most ``max_points`` points.

    Parameters
    ----------
    tar, non : array_like or Trials
    kind : {"steppy", "rocch"}
        The empirical ROC or its convex hull (Brümmer & de Villiers 2011, fig. 4).
    max_points : int
        Bound on the returned points (plots never need more than a few thousand); see
        :func:`decimate` for the shape guarantee.

    Notes
    -----
    ``x = probit(Pfa)``, ``y = probit(Pmiss)`` with ``probit = scipy.special.ndtri``;
    axes are labelled in percent by the plotting code.

    References
    ----------
    Brümmer & de Villiers (2011), sec. 2.6 and figure 4.

    Examples
    --------
    >>> c = det_curve([1.0, 2.0], [0.0, 1.5], kind="steppy")
    >>> c.p_fa.tolist(), c.p_miss.tolist()
    ([1.0, 0.5, 0.5, 0.0, 0.0], [0.0, 0.0, 0.5, 0.5, 1.0])
    """
    s = sorted_input(tar, non, tar_weights=tar_weights, non_weights=non_weights)
    return _det(s, kind, max_points)


def _det_dr30(s: SortedScores, kind, blocks=None, n_errors=30):
    """DR30 points on a DET curve: ``(p_fa, p_miss)`` of the FA point and of the miss point.

    The false-alarm point is where ``n_errors`` non-targets are accepted (threshold at the
    30th highest non-target score), the miss point where ``n_errors`` targets are rejected
    (threshold just above the 30th lowest target score).  On the ROCCH the points are
    interpolated at ``Pfa = 30/N`` and ``Pmiss = 30/T``.  A point is NaN when the class has
    fewer than ``n_errors`` trials.
    """
    nan = (np.nan, np.nan)
    if kind == "rocch":
        h = ROCCH.from_blocks(blocks if blocks is not None else pooled_blocks(s))
        fa = nan
        if s.count_non >= n_errors:
            pf = n_errors / s.count_non
            if s.weighted:
                pf = s.rates(s.non[s.count_non - n_errors])[1]
            fa = (float(pf), float(np.interp(pf, h.p_fa[::-1], h.p_miss[::-1])))
        miss = nan
        if s.count_tar >= n_errors:
            pm = n_errors / s.count_tar
            if s.weighted:
                pm = s.rates(np.nextafter(s.tar[n_errors - 1], np.inf))[0]
            miss = (float(np.interp(pm, h.p_miss, h.p_fa)), float(pm))
        return fa, miss
    fa = nan
    if s.count_non >= n_errors:
        pm, pf = s.rates(s.non[s.count_non - n_errors])
        fa = (float(pf), float(pm))
    miss = nan
    if s.count_tar >= n_errors:
        pm, pf = s.rates(np.nextafter(s.tar[n_errors - 1], np.inf))
        miss = (float(pf), float(pm))
    return fa, miss


def det_dr30(tar, non=None, *, kind="steppy", tar_weights=None, non_weights=None):
    """Doddington's rule-of-30 points on the DET curve.

    Returns
    -------
    fa_point, miss_point : tuple of float
        ``(p_fa, p_miss)`` where 30 false alarms, resp. 30 misses, remain; to the left of
        the first (lower Pfa) fewer than 30 false alarms support the curve, below the
        second fewer than 30 misses.  ``(nan, nan)`` when a class has fewer than 30 trials.

    References
    ----------
    Brümmer & de Villiers (2011), sec. 2.1.1; docs/conventions.md.
    """
    s = sorted_input(tar, non, tar_weights=tar_weights, non_weights=non_weights)
    return _det_dr30(s, kind)
