"""ROC, ROC convex hull (ROCCH) and the summaries that live on it: EER, UER, PRBEP.

References: Brümmer & de Villiers (2011), sec. 2.6 (2.6.1-2.6.4) and 3.2; docs/conventions.md.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._repr import summary_repr
from ._sorting import PooledBlocks, SortedScores, _run_starts, pooled_blocks, sorted_input
from ._validate import as_number
from .errors import DataError

__all__ = ["ROC", "ROCCH", "prbep", "rocch", "rocch_eer", "steppy_roc", "uer"]


@summary_repr("p_fa", "p_miss", "llr")
@dataclass(frozen=True, eq=False)
class ROCCH:
    """Vertices of the ROC convex hull, from ``(p_fa, p_miss) = (1, 0)`` to ``(0, 1)``.

    Attributes
    ----------
    p_fa, p_miss : ndarray, shape (B + 1,)
        Vertex ``k`` is the operating point when all trials in PAV blocks ``< k`` are
        rejected and all others accepted.  ``p_fa`` decreases, ``p_miss`` increases.
    threshold : ndarray, shape (B + 1,)
        Score threshold of vertex ``k`` (accept when ``score >= threshold``): the smallest
        score of block ``k`` (of positive weight: trials of weight 0 are in no block); ``+inf``
        for the last vertex.
    llr : ndarray, shape (B,)
        Slope of segment ``k`` as an LLR, ``-log(dPfa/dPmiss)`` -- the PAV LLR of block ``k``.
    """

    p_fa: np.ndarray
    p_miss: np.ndarray
    threshold: np.ndarray
    llr: np.ndarray

    @classmethod
    def from_blocks(cls, blocks: PooledBlocks):
        p_fa, p_miss = blocks.vertices()
        return cls(p_fa, p_miss, np.concatenate([blocks.lower, [np.inf]]), blocks.llr)


@summary_repr("p_fa", "p_miss")
@dataclass(frozen=True, eq=False)
class ROC:
    """The steppy ROC as a polyline through its corners, in increasing threshold order.

    Attributes
    ----------
    p_fa, p_miss : ndarray, shape (M,)
        Points at thresholds ``threshold``; consecutive points differ along one axis only,
        except across tied target and non-target scores (a diagonal step).  Points that lie
        inside a straight horizontal or vertical run are left out.
    threshold : ndarray, shape (M,)
        Accept when ``score >= threshold`` (``-inf`` for the first point, ``+inf`` for the
        last); a threshold ``nextafter(x, inf)`` means "just above score x".
    """

    p_fa: np.ndarray
    p_miss: np.ndarray
    threshold: np.ndarray


def _steppy(s: SortedScores) -> ROC:
    """The steppy ROC from the smaller class (``O(m log M)``).

    Thresholds are each distinct score ``x`` of the smaller class and just above it; between
    such thresholds only the other class is passed, along one axis.  Repeated points, and
    points inside a straight horizontal or vertical run (where consecutive thresholds pass
    single trials of the same class), are left out: the polyline, drawn straight between
    the kept points, is the same -- also in DET space, where a horizontal or vertical line
    stays one.
    """
    small = s.tar if s.tar.size <= s.non.size else s.non
    x = small[_run_starts(small)]  # its distinct scores
    xp = np.nextafter(x, np.inf)
    thr = np.empty(2 * x.size + 2)
    thr[0], thr[-1] = -np.inf, np.inf
    thr[1:-1:2] = x
    thr[2:-1:2] = xp
    p_miss, p_fa = s.rates(thr)
    p_miss[0], p_fa[0], p_miss[-1], p_fa[-1] = 0.0, 1.0, 1.0, 0.0
    keep = np.ones(thr.size, dtype=bool)
    keep[1:] = (np.diff(p_miss) != 0) | (np.diff(p_fa) != 0)  # drop repeated points
    p_fa, p_miss, thr = p_fa[keep], p_miss[keep], thr[keep]
    flat_fa = np.diff(p_fa) == 0  # vertical steps (only misses change)
    flat_miss = np.diff(p_miss) == 0  # horizontal steps
    inside = np.zeros(thr.size, dtype=bool)
    inside[1:-1] = (flat_fa[:-1] & flat_fa[1:]) | (flat_miss[:-1] & flat_miss[1:])
    return ROC(p_fa[~inside], p_miss[~inside], thr[~inside])


def steppy_roc(tar, non=None, *, tar_weights=None, non_weights=None) -> ROC:
    """The empirical (steppy) ROC of scores; see :class:`ROC`.

    Notes
    -----
    ``Pmiss(t) = #(tar < t)/T``, ``Pfa(t) = #(non >= t)/N``, at thresholds between distinct
    scores (Brümmer & de Villiers 2011, sec. 2.6; docs/conventions.md).

    Examples
    --------
    >>> r = steppy_roc([2.0, 3.0], [1.0])
    >>> r.p_fa.tolist(), r.p_miss.tolist()
    ([1.0, 0.0, 0.0], [0.0, 0.0, 1.0])

    Points inside a straight run are not repeated: every target lies between the second and
    third non-target here, so the curve goes straight down from (0.75, 0) to (0.75, 1).

    >>> r = steppy_roc([1.0, 2.0, 3.0], [0.0, 5.0, 6.0, 7.0])
    >>> r.p_fa.tolist(), r.p_miss.tolist()
    ([1.0, 0.75, 0.75, 0.0], [0.0, 0.0, 1.0, 1.0])
    """
    return _steppy(sorted_input(tar, non, tar_weights=tar_weights, non_weights=non_weights))


def rocch(tar, non=None, *, tar_weights=None, non_weights=None) -> ROCCH:
    """Vertices of the ROC convex hull, computed with PAV.

    Notes
    -----
    The lower-left convex hull of the steppy ROC from (0, 1) to (1, 0); its vertices are the
    boundaries of the PAV blocks and the slope of each segment is the PAV LLR of its block
    (Fawcett & Niculescu-Mizil 2007, cited as [18] in Brümmer & de Villiers 2011).

    References
    ----------
    Brümmer & de Villiers (2011), sec. 2.6.1 and 3.2.

    Examples
    --------
    >>> h = rocch([1.0, 3.0], [0.0, 2.0])
    >>> h.p_fa.tolist(), h.p_miss.tolist()
    ([1.0, 0.5, 0.0, 0.0], [0.0, 0.0, 0.5, 1.0])
    """
    s = sorted_input(tar, non, tar_weights=tar_weights, non_weights=non_weights)
    return ROCCH.from_blocks(pooled_blocks(s))


def _crossing(p_fa, p_miss, r):
    """The point ``(p_fa, p_miss)`` on the ROCCH polyline where ``p_fa = r * p_miss``.

    ``g = p_fa - r*p_miss`` falls from 1 at the first vertex to ``-r`` at the last; the root
    is interpolated linearly on the one segment where ``g`` changes sign.
    """
    g = p_fa - r * p_miss
    k = int(np.searchsorted(-g, 0.0, side="left"))  # first vertex with g <= 0
    if g[k] == 0.0:
        return float(p_fa[k]), float(p_miss[k])
    g0, g1 = g[k - 1], g[k]
    a = g0 / (g0 - g1)
    pf = p_fa[k - 1] + a * (p_fa[k] - p_fa[k - 1])
    pm = p_miss[k - 1] + a * (p_miss[k] - p_miss[k - 1])
    return float(pf), float(pm)


def _eer(blocks: PooledBlocks):
    p_fa, p_miss = blocks.vertices()
    pf, pm = _crossing(p_fa, p_miss, 1.0)
    # On the segment both coordinates are equal up to rounding; report their mean.
    return 0.5 * (pf + pm)


def _prbep(blocks: PooledBlocks):
    p_fa, p_miss = blocks.vertices()
    pf, pm = _crossing(p_fa, p_miss, blocks.n_tar / blocks.n_non)
    return 0.5 * (blocks.n_tar * pm + blocks.n_non * pf)


def rocch_eer(tar, non=None, *, tar_weights=None, non_weights=None):
    """ROCCH-EER: the point on the ROC convex hull where ``Pmiss == Pfa``.

    Notes
    -----
    Equal to ``max over pt of minDCF(pt, 1, 1)`` un-normalized (Brümmer & de Villiers 2011, eq.
    26): a tight upper bound on the Bayes error of ideally calibrated scores.

    References
    ----------
    Brümmer & de Villiers (2011), sec. 2.6.2; docs/conventions.md.

    Examples
    --------
    >>> rocch_eer([1.0, 3.0], [0.0, 2.0])
    0.25
    """
    s = sorted_input(tar, non, tar_weights=tar_weights, non_weights=non_weights)
    return _eer(pooled_blocks(s))


def uer(tar, non=None, r=1.0, *, tar_weights=None, non_weights=None):
    """Unequal error rate ``UER(r)``: ``Pfa`` at the ROCCH point where ``Pfa = r * Pmiss``.

    Notes
    -----
    ``UER(r) = max over pi of minDCF(pi, c_miss=r, c_fa=1)`` un-normalized (Brümmer & de Villiers
    2011, eq. 28);
    ``UER(1)`` is the EER.

    References
    ----------
    Brümmer & de Villiers (2011), sec. 2.6.3.
    """
    r = as_number(r, "the UER ratio r")
    if not r > 0 or not np.isfinite(r):
        raise DataError(f"UER needs a ratio r > 0, got {r!r}")
    s = sorted_input(tar, non, tar_weights=tar_weights, non_weights=non_weights)
    p_fa, p_miss = pooled_blocks(s).vertices()
    return _crossing(p_fa, p_miss, r)[0]


def prbep(tar, non=None, *, tar_weights=None, non_weights=None):
    """Precision-recall break-even point, as a number of errors.

    Notes
    -----
    The ROCCH point where the absolute error counts are equal, ``T*Pmiss = N*Pfa``
    (Brümmer & de Villiers 2011, eq. 29: ``PRBEP = N * UER(T/N)``); generally not a whole number.

    References
    ----------
    Brümmer & de Villiers (2011), sec. 2.6.4.

    Examples
    --------
    >>> prbep([1.0, 3.0], [0.0, 2.0])
    0.5
    """
    s = sorted_input(tar, non, tar_weights=tar_weights, non_weights=non_weights)
    return _prbep(pooled_blocks(s))
