"""Exact measures on a fixed grid of operating points: what an offline page looks up.

An interactive page without a server (``llrlab report``) cannot search 10^7 sorted scores,
yet its numbers must equal :meth:`llrlab.core.Analysis.at`.  The counts behind actual and
minimum DCF change at every distinct score, so no table much smaller than the scores gives
them at *every* prior log-odds.  They are exact on a grid, though: :class:`OperatingPointGrid`
holds, for each prior log-odds of a grid, the numbers of misses and false alarms at the Bayes
threshold ``-plo`` and the index of the optimal ROCCH vertex, plus those vertices (only the
ones optimal somewhere on the grid).  The page moves the operating point to grid points only
(the nearest one, by binary search), where it reproduces ``Analysis.at`` exactly: the same
counts, rates divided the same way, and the DCF by the same formula.

The default grid is every multiple of 1/512 in [-20, 20] (20481 points; a power of two, so
each value ``-20 + i/512`` is exact in binary floating point) together with any prior
log-odds the caller asks to include (e.g. the operating point a report opens at).  It is
llrlab's one operating-point grid: :data:`GRID_STEP`, :data:`GRID_LIMIT` and
:func:`grid_plo` here are its only definition; the out-of-core analysis
(:func:`llrlab.core.scale.analyze_dask`) tabulates its counts at the same grid, so that
:func:`operating_point_grid` of a Dask analysis reads no partition.

References: Brümmer & de Villiers (2011), sec. 2.5 (actual DCF at the Bayes threshold) and
sec. 2.6.1 / 3.2 (minimum DCF on the ROCCH vertices, optimal vertex by the PAV LLRs).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import expit

from .analysis import Analysis
from .dcf import _combine, _optimal_vertex
from .errors import DataError

__all__ = ["GRID_LIMIT", "GRID_STEP", "OperatingPointGrid", "grid_plo",
           "operating_point_grid"]

#: Default spacing of the grid (prior log-odds): a power of two, so grid values are exact.
GRID_STEP = 1.0 / 512.0
#: Default grid range: ``[-GRID_LIMIT, GRID_LIMIT]`` (the dashboard's operating-point range).
GRID_LIMIT = 20.0


def grid_plo(*, limit=GRID_LIMIT, step=GRID_STEP, include=()):
    """The sorted grid ``-limit + i * step`` (``i = 0 .. 2 limit / step``) plus ``include``.

    Examples
    --------
    >>> grid_plo(limit=1.0, step=0.5, include=[0.1]).tolist()
    [-1.0, -0.5, 0.0, 0.1, 0.5, 1.0]
    """
    limit, step = float(limit), float(step)
    if not (limit > 0 and step > 0 and np.isfinite(limit) and np.isfinite(step)):
        raise DataError(f"the grid needs a positive, finite limit and step, got "
                        f"limit={limit!r}, step={step!r}")
    n = round(2 * limit / step)
    if n > 10_000_000:
        raise DataError(f"a grid of {n + 1} points is too fine; choose a larger step")
    g = -limit + np.arange(n + 1) * step
    extra = np.asarray(include, dtype=np.float64).ravel()
    if extra.size and not np.all(np.isfinite(extra)):
        raise DataError("the prior log-odds to include must be finite")
    return np.unique(np.concatenate([g, extra]))


@dataclass(frozen=True, eq=False)
class OperatingPointGrid:
    """The measures of one score set at every prior log-odds of a grid (see the module
    docstring).

    Attributes
    ----------
    plo : ndarray of float64, shape (G,)
        Strictly increasing prior log-odds.
    misses, false_alarms : ndarray of int64, shape (G,)
        Trials with ``tar < -plo`` and ``non >= -plo`` (actual DCF).
    p_miss, p_fa : ndarray of float64, shape (G,)
        The actual error rates: ``misses / T`` and ``false_alarms / N`` when unweighted
        (one correctly rounded division each), weighted rates otherwise.
    vertex : ndarray of int64, shape (G,)
        Index into the ``vertex_*`` arrays of the ROCCH vertex optimal at ``plo[g]``.
    vertex_p_miss, vertex_p_fa : ndarray of float64, shape (V,)
        Those vertices' error rates (the minimum-DCF rates), in increasing ``p_miss``.
    vertex_misses, vertex_false_alarms : ndarray of int64, shape (V,)
        Trial counts at the vertices' thresholds.
    vertex_threshold : ndarray of float64, shape (V,)
        Score threshold of each vertex (``+inf``: reject everything).
    dr30_safe : ndarray of bool, shape (G,)
        Both minimum-DCF error counts are at least 30 (``Analysis.at(plo).dr30_safe``).
    n_tar, n_non : float
        Total target and non-target weight (the trial counts when unweighted).
    weighted : bool
    """

    plo: np.ndarray
    misses: np.ndarray
    false_alarms: np.ndarray
    p_miss: np.ndarray
    p_fa: np.ndarray
    vertex: np.ndarray
    vertex_p_miss: np.ndarray
    vertex_p_fa: np.ndarray
    vertex_misses: np.ndarray
    vertex_false_alarms: np.ndarray
    vertex_threshold: np.ndarray
    dr30_safe: np.ndarray
    n_tar: float
    n_non: float
    weighted: bool

    def __len__(self):
        return self.plo.size

    def act_dcf(self):
        """Normalized actual DCF at every grid point (the formula of ``Analysis.at``)."""
        return _combine(self.plo, self.p_miss, self.p_fa, True)

    def min_dcf(self):
        """Normalized minimum DCF at every grid point."""
        v = self.vertex
        return _combine(self.plo, self.vertex_p_miss[v], self.vertex_p_fa[v], True)

    def index(self, plo):
        """Index of the grid point nearest to ``plo`` (the lower one on an exact tie;
        clipped to the grid's ends): the rule by which a page snaps a drag."""
        x = np.asarray(plo, dtype=np.float64)
        g = self.plo
        if g.size == 1:
            return np.zeros(x.shape, dtype=np.intp)
        j = np.clip(np.searchsorted(g, x, side="left"), 1, g.size - 1)
        return np.where(g[j] - x < x - g[j - 1], j, j - 1)

    def row(self, i):
        """Every measure at grid point ``i`` as a dict (names as in ``OperatingPoint``)."""
        i = int(i)
        v = int(self.vertex[i])
        plo = float(self.plo[i])
        return {
            "plo": plo,
            "effective_prior": float(expit(plo)),
            "act_dcf": float(_combine(plo, self.p_miss[i], self.p_fa[i], True)),
            "min_dcf": float(_combine(plo, self.vertex_p_miss[v], self.vertex_p_fa[v], True)),
            "p_miss": float(self.p_miss[i]),
            "p_fa": float(self.p_fa[i]),
            "misses": int(self.misses[i]),
            "false_alarms": int(self.false_alarms[i]),
            "min_p_miss": float(self.vertex_p_miss[v]),
            "min_p_fa": float(self.vertex_p_fa[v]),
            "min_misses": int(self.vertex_misses[v]),
            "min_false_alarms": int(self.vertex_false_alarms[v]),
            "dr30_safe": bool(self.dr30_safe[i]),
        }


def operating_point_grid(analysis: Analysis, plo=None, *, include=()) -> OperatingPointGrid:
    """The exact measures of ``analysis`` at every point of a prior log-odds grid.

    Parameters
    ----------
    analysis : Analysis
        Of the LLRs (:func:`~llrlab.core.analysis.analyze`).
    plo : array_like, optional
        The grid (default :func:`grid_plo` with ``include``); sorted and made unique.
    include : sequence of float
        Prior log-odds added to the default grid.

    Returns
    -------
    OperatingPointGrid
        With ``row(i)`` equal to ``analysis.at(plo[i])``: actual DCF from the counts at the
        Bayes threshold ``-plo[i]``, minimum DCF from the optimal ROCCH vertex.

    Notes
    -----
    Cost: two binary searches per grid point in the sorted scores and one in the PAV LLRs
    (``O(G log n)``), no sort.

    Examples
    --------
    >>> from llrlab.core import analyze
    >>> a = analyze([1.0, 2.0, -0.5], [-2.0, 0.5, -1.0, -3.0])
    >>> g = operating_point_grid(a, [0.0])
    >>> g.row(0)["act_dcf"] == a.at(0.0).act_dcf, g.row(0)["min_dcf"] == a.at(0.0).min_dcf
    (True, True)
    """
    if not all(hasattr(analysis, a) for a in ("curves", "blocks", "sorted", "dr30")):
        raise TypeError("operating_point_grid takes an Analysis (llrlab.core.analyze)")
    g = grid_plo(include=include) if plo is None else np.unique(
        np.asarray(plo, dtype=np.float64).ravel())
    if g.size == 0 or not np.all(np.isfinite(g)):
        raise DataError("the grid of prior log-odds must be non-empty and finite")
    act, _ = analysis.curves(g)
    blocks = analysis.blocks
    k = _optimal_vertex(blocks, g)
    used, vertex = np.unique(k, return_inverse=True)
    p_fa_v, p_miss_v = blocks.vertices()
    thr = np.concatenate([blocks.lower, [np.inf]])[used]
    v_misses, v_fas = analysis.sorted.miss_fa_counts(thr)
    return OperatingPointGrid(
        plo=g,
        misses=np.asarray(act.misses, dtype=np.int64),
        false_alarms=np.asarray(act.false_alarms, dtype=np.int64),
        p_miss=np.asarray(act.p_miss, dtype=np.float64),
        p_fa=np.asarray(act.p_fa, dtype=np.float64),
        vertex=vertex.astype(np.int64).ravel(),
        vertex_p_miss=p_miss_v[used],
        vertex_p_fa=p_fa_v[used],
        vertex_misses=np.asarray(v_misses, dtype=np.int64),
        vertex_false_alarms=np.asarray(v_fas, dtype=np.int64),
        vertex_threshold=thr,
        dr30_safe=np.asarray(analysis.dr30.is_safe(g), dtype=bool),
        n_tar=float(analysis.sorted.n_tar),
        n_non=float(analysis.sorted.n_non),
        weighted=bool(analysis.sorted.weighted),
    )
