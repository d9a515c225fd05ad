"""Forensic and calibration views of LLRs: units, Tippett plots and reliability diagrams.

* **Units.**  llrlab computes with natural-log LLRs.  Forensic reports state likelihood ratios
  as ``log10(LR)`` (Meuwly, Ramos & Haraksim 2017); information-theoretic texts use bits
  (``log2``).  :func:`llr_to_unit` / :func:`llr_from_unit` convert, :func:`llr_label` names
  the axis.
* **Tippett plot** (:func:`tippett`): for each class, the proportion of its LLRs that are
  greater than or equal to ``x``, against ``x``; with the rates of misleading evidence
  (Meuwly, Ramos & Haraksim 2017).  At the Bayes threshold ``x = -plo`` the target curve is
  ``1 - Pmiss`` and the non-target curve is ``Pfa`` (the accept rule ``llr >= -plo``).
* **Reliability diagram** (:func:`reliability`): the empirical posterior probability of the
  target hypothesis against the posterior the LLRs predict, at a prior ``sigmoid(plo)``
  (Murphy & Winkler 1977; DeGroot & Fienberg 1983): in bins of the predicted posterior, or
  with the PAV recalibration as the empirical posterior (Dimitriadis, Gneiting & Jordan
  2021), whose blocks are those of llrlab's ROCCH (Brümmer & de Villiers 2011, sec. 3.2).

Every function takes ``(tar, non)`` arrays, a :class:`~llrlab.core.trials.Trials` or an
:class:`~llrlab.core.analysis.Analysis` (whose sort and PAV solution are reused).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import expit

from ._sorting import PooledBlocks, _segment_sums, pooled_blocks, sort_scores
from ._validate import as_plo
from .det import decimate
from .errors import DataError

__all__ = [
    "LLR_UNITS",
    "ReliabilityDiagram",
    "TippettCurves",
    "llr_from_unit",
    "llr_label",
    "llr_to_unit",
    "reliability",
    "tippett",
]

#: Display units of log-likelihood-ratios: natural log (llrlab's own), log10 (the forensic
#: convention) and log2 (bits).
LLR_UNITS = ("ln", "log10", "bits")
_PER_NAT = {"ln": 1.0, "log10": 1.0 / np.log(10.0), "bits": 1.0 / np.log(2.0)}
_LABELS = {"ln": "LLR (natural log)", "log10": "log10(LR)", "bits": "log2(LR) (bits)"}


def _unit(unit):
    if unit not in _PER_NAT:
        raise DataError(f"unknown LLR unit {unit!r}; use one of {', '.join(LLR_UNITS)}")
    return unit


def llr_to_unit(llr, unit):
    """Natural-log LLRs expressed in ``unit``: ``llr / ln(10)`` for ``"log10"``,
    ``llr / ln(2)`` for ``"bits"``, unchanged for ``"ln"``.

    Examples
    --------
    >>> float(llr_to_unit(np.log(100.0), "log10"))
    2.0
    >>> float(llr_to_unit(np.log(8.0), "bits"))
    3.0
    """
    return np.asarray(llr, dtype=np.float64) * _PER_NAT[_unit(unit)]


def llr_from_unit(x, unit):
    """The inverse of :func:`llr_to_unit`: natural-log LLRs from values in ``unit``."""
    return np.asarray(x, dtype=np.float64) / _PER_NAT[_unit(unit)]


def llr_label(unit, what="LR"):
    """Axis label of LLRs in ``unit``: ``"LLR (natural log)"``, ``"log10(LR)"``,
    ``"log2(LR) (bits)"`` (``what`` replaces ``LR``, e.g. ``"posterior odds"``).

    Examples
    --------
    >>> llr_label("ln", "prior odds"), llr_label("log10", "prior odds")
    ('log prior odds (natural log)', 'log10(prior odds)')
    """
    text = _LABELS[_unit(unit)]
    return text if what == "LR" else text.replace("LLR", f"log {what}").replace("LR", what)


def _sorted_and_blocks(tar, non, tar_weights, non_weights, need_blocks):
    """``(SortedScores, PooledBlocks or None)`` of an Analysis, a Trials or two arrays."""
    from .analysis import Analysis
    from .trials import Trials

    if isinstance(tar, Analysis):
        if non is not None:
            raise TypeError("pass either an Analysis or tar and non arrays, not both")
        return tar.sorted, tar.blocks
    if isinstance(tar, Trials):
        if non is not None:
            raise TypeError("pass either a Trials object or tar and non arrays, not both")
        s = tar.sorted()
    else:
        if non is None:
            raise TypeError("non-target scores are missing: pass tar and non, a Trials or "
                            "an Analysis")
        s = sort_scores(tar, non, tar_weights=tar_weights, non_weights=non_weights)
    return s, (pooled_blocks(s) if need_blocks else None)


# ------------------------------------------------------------------------------ Tippett


def _weight_at_or_above(x, w, total, t):
    """Weight of the sorted values ``x >= t`` divided by ``total`` (``w`` None: counts).

    Unweighted, ``(n - i) / n`` is one correctly rounded division; weighted, the weight is
    summed from the top (no cancellation in the small tails)."""
    i = np.searchsorted(x, t, side="left")
    return _share_from(x.size, w, total, i)


def _share_from(n, w, total, i):
    """Weight of the sorted values from index ``i`` up, divided by ``total``."""
    if w is None:
        return (n - np.asarray(i)).astype(np.float64) / total
    above = np.zeros(n + 1)
    np.cumsum(w[::-1], out=above[-2::-1])
    return np.where(np.asarray(i) == 0, 1.0, np.minimum(above[i] / total, 1.0))


def _tippett_curve(x, w, total, max_points):
    """Corners of the step function ``S(t) = P(value >= t)`` of sorted values ``x``, and the
    decimation tolerance.

    With distinct values ``v_1 < ... < v_m``, ``S = S(v_j)`` on ``(v_{j-1}, v_j]`` and it
    drops to ``S(v_{j+1})`` just above ``v_j``: the corners are ``(v_1, S(v_1)),
    (v_1, S(v_2)), (v_2, S(v_2)), ..., (v_m, 0)``.  ``S(v_j)`` is the share of the values
    from the first occurrence of ``v_j`` up.

    With more than ``max_points / 2`` distinct values, the corner pairs of a subset are
    kept: the values at ``k / K`` of the sorted array and at ``K`` equal steps of the finite
    value range (``K = max_points / 4``), found by binary search (``O(K log n)`` besides one
    pass counting the distinct values), each with its exact ``S`` on both sides.  Between
    two kept values the curve falls by at most ``1/K`` when unweighted (at most ``n / K``
    values lie between them); the tolerance returned is the largest such fall, by which the
    drawn polyline can miss the curve vertically.
    """
    n = x.size
    distinct = int(np.count_nonzero(x[1:] != x[:-1])) + 1
    if 2 * distinct <= max_points:
        first = np.flatnonzero(np.concatenate([[True], x[1:] != x[:-1]]))
        nxt = np.append(first[1:], n)
        delta = 0.0
    else:
        k = max(max_points // 4, 1)
        fin = x[np.isfinite(x)]
        lo, hi = (float(fin[0]), float(fin[-1])) if fin.size else (0.0, 0.0)
        at_share = (np.arange(k + 1) * (n - 1)) // k
        at_value = np.searchsorted(x, lo + (hi - lo) * np.arange(k + 1) / k, side="left")
        idx = np.unique(np.concatenate([at_share, np.minimum(at_value, n - 1)]))
        first = np.unique(np.searchsorted(x, x[idx], side="left"))
        nxt = np.searchsorted(x, x[first], side="right")
        delta = None
    t = np.repeat(x[first], 2)
    y = np.empty(t.size)
    y[0::2] = _share_from(n, w, total, first)
    y[1::2] = _share_from(n, w, total, nxt)
    if delta is None:  # the drops left out between kept values
        delta = float(np.max(y[1:-1:2] - y[2::2], initial=0.0))
    return t, y, delta


@dataclass(frozen=True, eq=False)
class TippettCurves:
    """Tippett plot data: per class, the proportion of LLRs at or above ``x``.

    Attributes
    ----------
    tar_llr, tar_ge : ndarray, shape (M,)
        Corners of the target curve, in increasing ``tar_llr`` (natural log): element ``i``
        is the proportion (by weight, when the trials are weighted) of target LLRs
        ``>= tar_llr[i]`` just at or just above that value: at each distinct LLR ``v`` the
        curve has two corners, ``(v, P(llr >= v))`` then ``(v, P(llr > v))``.  May hold
        ``+-inf`` (LLRs of pure PAV blocks).
    non_llr, non_ge : ndarray, shape (K,)
        The same for the non-target LLRs.
    rme_tar : float
        Rate of misleading evidence among targets: the proportion of target LLRs ``< 0``
        (LR below 1, supporting the wrong hypothesis); equal to ``Pmiss`` at threshold 0.
    rme_non : float
        Rate of misleading evidence among non-targets: the proportion of non-target LLRs
        ``> 0`` (an LLR of exactly 0 supports neither hypothesis).
    tolerance : float
        0 when every corner is kept; otherwise the largest fall of the curve between two
        kept LLRs (a proportion): the polyline through the corners stays within it,
        vertically, of the exact curve.
    """

    tar_llr: np.ndarray
    tar_ge: np.ndarray
    non_llr: np.ndarray
    non_ge: np.ndarray
    rme_tar: float
    rme_non: float
    tolerance: float

    def at(self, llr):
        """``(P(tar >= llr), P(non >= llr))`` read off the stored corners (exact when nothing
        was decimated)."""
        return _read_ge(self.tar_llr, self.tar_ge, llr), _read_ge(self.non_llr, self.non_ge,
                                                                    llr)


def _read_ge(t, s, x):
    """``P(value >= x)`` from the corners of :func:`_tippett_curve` (``x`` scalar or
    array): the first corner pair at or above ``x`` carries it."""
    x = np.asarray(x, dtype=np.float64)
    # corners come in pairs (v, S(v)), (v, S(v+)); the value at x is S of the first
    # distinct value >= x, i.e. the first even corner with t >= x
    v = t[0::2]
    j = np.searchsorted(v, x, side="left")
    sv = np.append(s[0::2], 0.0)
    return sv[j]


def tippett(tar, non=None, *, max_points=4000, tar_weights=None, non_weights=None):
    """Tippett plot: for each class, the proportion of LLRs greater than or equal to ``x``.

    Parameters
    ----------
    tar, non : array_like, or a Trials or Analysis as ``tar``
        Target (same-source, H1 true) and non-target (different-source, H2 true) LLRs,
        natural log.
    max_points : int, default 4000
        Largest number of corners returned per curve (see :class:`TippettCurves`): beyond
        ``max_points / 2`` distinct LLRs, the pairs of corners of a subset of them.
    tar_weights, non_weights : array_like, optional
        Per-trial weights (proportions are then by weight).

    Returns
    -------
    TippettCurves

    Notes
    -----
    ``T(x) = #(tar >= x) / T`` and ``N(x) = #(non >= x) / N``, both falling from 1 to 0 as
    ``x`` grows; plotted against ``log10(LR)`` in the forensic convention (see
    :func:`llr_to_unit`).  At the Bayes threshold ``x = -plo``, ``T = 1 - Pmiss`` and
    ``N = Pfa``.  The rates of misleading evidence are ``#(tar < 0) / T`` and
    ``#(non > 0) / N``.  Cost: one pass over the sorted LLRs (no search).

    References
    ----------
    D. Meuwly, D. Ramos and R. Haraksim (2017), "A guideline for the validation of
    likelihood ratio methods used for forensic evidence evaluation", Forensic Science
    International 276:142-153 (Tippett plots, rates of misleading evidence, log10 LR).

    Examples
    --------
    >>> c = tippett([-1.0, 2.0, 2.0], [-3.0, 0.0, 1.0, 5.0])
    >>> c.tar_llr.tolist(), [round(v, 4) for v in c.tar_ge.tolist()]
    ([-1.0, -1.0, 2.0, 2.0], [1.0, 0.6667, 0.6667, 0.0])
    >>> round(c.rme_tar, 4), c.rme_non
    (0.3333, 0.5)
    """
    s, _ = _sorted_and_blocks(tar, non, tar_weights, non_weights, need_blocks=False)
    max_points = int(max_points)
    if max_points < 4:
        raise DataError(f"max_points must be at least 4, got {max_points}")
    tt, ty, d1 = _tippett_curve(s.tar, s.tar_w, s.n_tar, max_points)
    nt, ny, d2 = _tippett_curve(s.non, s.non_w, s.n_non, max_points)
    rme_tar = float(s.tar_below(0.0) / s.n_tar)  # Pmiss at threshold 0
    rme_non = float(_weight_at_or_above(s.non, s.non_w, s.n_non,
                                        np.nextafter(0.0, np.inf)))
    return TippettCurves(tt, ty, nt, ny, rme_tar, rme_non, max(d1, d2))


# --------------------------------------------------------------------------- reliability


@dataclass(frozen=True, eq=False)
class ReliabilityDiagram:
    """Empirical against predicted posterior probability of the target hypothesis.

    The posteriors are those of a population with target prior ``sigmoid(plo)``: the
    predicted posterior of a trial is ``q = sigmoid(llr + plo)``, and each class is weighted
    to that prior (every target counts ``prior / T``, every non-target ``(1 - prior) / N``)
    whatever the proportion of targets among the trials.

    Attributes
    ----------
    method : {"bins", "pav"}
    plo : float
        Prior log-odds of the posteriors.
    predicted, empirical : ndarray, shape (K,)
        ``"bins"``: one point per non-empty bin, the bin's mean predicted posterior and its
        proportion of targets (both prior-weighted as above).  ``"pav"``: the corners of the
        step function from the predicted posterior to the PAV-recalibrated one -- two
        corners per PAV block, at its smallest and largest LLR.
    n_tar, n_non : ndarray, shape (K,)
        Target and non-target trials (weights, when weighted) in each bin, or in the block of
        each corner.
    edges : ndarray, shape (B + 1,) or None
        ``"bins"``: the bin edges on the predicted posterior (equal widths on [0, 1]).
    llr, pav_llr : ndarray, shape (K,) or None
        ``"pav"``: the same corners on the LLR scale (prior-free): the LLR and the PAV LLR of
        its block, ``log(b_tar / b_non) - log(T / N)``; the posteriors at any other prior
        are ``sigmoid(llr + plo)`` and ``sigmoid(pav_llr + plo)`` (see :meth:`at_plo`).
    """

    method: str
    plo: float
    predicted: np.ndarray
    empirical: np.ndarray
    n_tar: np.ndarray
    n_non: np.ndarray
    edges: np.ndarray | None = None
    llr: np.ndarray | None = None
    pav_llr: np.ndarray | None = None

    def at_plo(self, plo):
        """The PAV diagram at another prior log-odds (no new PAV: the blocks do not depend
        on the prior)."""
        if self.method != "pav":
            raise DataError("only the PAV reliability diagram can move to another prior "
                            "without the scores; compute the binned one again")
        plo = float(as_plo(plo))
        return ReliabilityDiagram("pav", plo, expit(self.llr + plo), expit(self.pav_llr + plo),
                                  self.n_tar, self.n_non, None, self.llr, self.pav_llr)


def _pav_corners(blocks: PooledBlocks, max_points):
    """Two corners per PAV block (its smallest and largest LLR at the block's PAV LLR),
    decimated to ``max_points`` in the LLR domain (block ends kept)."""
    x = np.empty(2 * blocks.n_blocks)
    x[0::2], x[1::2] = blocks.lower, blocks.upper
    y = np.repeat(blocks.llr, 2)
    bt, bn = np.repeat(blocks.tar, 2), np.repeat(blocks.non, 2)
    if x.size > max_points:
        fx = x[np.isfinite(x)]
        lo, hi = (float(fx[0]), float(fx[-1])) if fx.size else (0.0, 1.0)
        cx = np.clip(x, lo, hi)
        cy = np.clip(y, lo - 1.0, hi + 1.0)
        span = (hi - lo) or 1.0
        keep, _ = decimate((cx - lo) / span, (cy - lo) / span, max_points)
        x, y, bt, bn = x[keep], y[keep], bt[keep], bn[keep]
    return x, y, bt, bn


def _class_sums(x, w, edges_llr, plo):
    """Per bin of LLR edges: weight of the sorted values ``x`` in the bin and the sum of
    their predicted posteriors ``sigmoid(x + plo)`` (weighted)."""
    idx = np.searchsorted(x, edges_llr, side="left")
    idx[0], idx[-1] = 0, x.size
    q = expit(x + plo)
    if w is None:
        counts = np.diff(idx).astype(np.float64)
        sums = _segment_sums(q, idx)
    else:
        counts = _segment_sums(w, idx)
        sums = _segment_sums(q * w, idx)
    return counts, sums


def reliability(tar, non=None, *, plo=0.0, method="pav", bins=10, max_points=4000,
                tar_weights=None, non_weights=None) -> ReliabilityDiagram:
    """Reliability diagram of LLRs at the prior ``sigmoid(plo)``: binned or PAV.

    Parameters
    ----------
    tar, non : array_like, or a Trials or Analysis as ``tar``
        Target and non-target LLRs (natural log).
    plo : float, default 0
        Prior log-odds of the posteriors (0: even odds, the posterior of the LR alone; the
        dashboard uses the operating point's).
    method : {"pav", "bins"}
        ``"bins"``: ``bins`` equal-width bins of the predicted posterior (bin ``k`` holds
        the LLRs with ``logit(e_k) - plo <= llr < logit(e_{k+1}) - plo``, the last bin
        also ``+inf``); ``"pav"``: the
        PAV-recalibrated posterior as the empirical one, as a step function (no bin width to
        choose).
    bins : int, default 10
        Number of bins (``"bins"``).
    max_points : int, default 4000
        Largest number of corners of the PAV step function (decimated beyond).
    tar_weights, non_weights : array_like, optional
        Per-trial weights.

    Returns
    -------
    ReliabilityDiagram

    Notes
    -----
    The prior ``p = sigmoid(plo)`` weights each target ``p / T`` and each non-target
    ``(1 - p) / N``, so that the empirical posterior estimates ``P(target | bin)`` in a
    population with target prior ``p``.  In bin ``k``, with target and non-target counts
    ``t_k``, ``n_k`` and sums of predicted posteriors ``Q_k^tar``, ``Q_k^non``:

        W_k = p t_k / T + (1 - p) n_k / N,
        empirical_k = (p t_k / T) / W_k,
        predicted_k = (p Q_k^tar / T + (1 - p) Q_k^non / N) / W_k.

    For ``"pav"`` the empirical posterior of a block with counts ``t``, ``n`` is
    ``sigmoid(log(t / n) - log(T / N) + plo)``: the PAV LLR of the block shifted by the
    prior.  The PAV blocks do not depend on the weighting of the classes, so the PAV diagram
    at any prior comes from one PAV (:meth:`ReliabilityDiagram.at_plo`).  Calibrated LLRs
    lie on the diagonal.

    References
    ----------
    A. H. Murphy and R. L. Winkler (1977), "Reliability of subjective probability forecasts
    of precipitation and temperature", Applied Statistics 26(1):41-47;
    M. H. DeGroot and S. E. Fienberg (1983), "The comparison and evaluation of forecasters",
    The Statistician 32(1/2):12-22;
    T. Dimitriadis, T. Gneiting and A. I. Jordan (2021), "Stable reliability diagrams for
    probabilistic classifiers", PNAS 118(8):e2016191118 (the PAV-based diagram);
    Brümmer & de Villiers (2011), sec. 3.2 (PAV LLRs of the blocks).

    Examples
    --------
    >>> r = reliability([1.0, 2.0, -0.5], [-2.0, 0.5, -1.0, -3.0], method="pav")
    >>> [round(v, 4) for v in r.empirical.tolist()]
    [0.0, 0.0, 0.5714, 0.5714, 1.0, 1.0]
    >>> r = reliability([1.0, 2.0, -0.5], [-2.0, 0.5, -1.0, -3.0], method="bins", bins=2)
    >>> r.n_tar.tolist(), r.n_non.tolist()
    ([1.0, 2.0], [3.0, 1.0])
    """
    plo = float(as_plo(plo))
    if method not in ("pav", "bins"):
        raise DataError(f"unknown reliability method {method!r}; use 'pav' or 'bins'")
    s, blocks = _sorted_and_blocks(tar, non, tar_weights, non_weights,
                                   need_blocks=method == "pav")
    if method == "pav":
        if int(max_points) < 4:
            raise DataError(f"max_points must be at least 4, got {max_points}")
        x, y, bt, bn = _pav_corners(blocks, int(max_points))
        return ReliabilityDiagram("pav", plo, expit(x + plo), expit(y + plo), bt, bn,
                                  None, x, y)
    bins = int(bins)
    if bins < 1:
        raise DataError(f"bins must be at least 1, got {bins}")
    edges = np.linspace(0.0, 1.0, bins + 1)
    with np.errstate(divide="ignore"):
        edges_llr = np.log(edges) - np.log1p(-edges) - plo  # logit(edge) - plo
    t_cnt, t_sum = _class_sums(s.tar, s.tar_w, edges_llr, plo)
    n_cnt, n_sum = _class_sums(s.non, s.non_w, edges_llr, plo)
    p = float(expit(plo))
    wt, wn = p / s.n_tar, (1.0 - p) / s.n_non
    total = wt * t_cnt + wn * n_cnt
    keep = (t_cnt + n_cnt) > 0
    with np.errstate(invalid="ignore", divide="ignore"):
        emp = wt * t_cnt / total
        pred = (wt * t_sum + wn * n_sum) / total
    return ReliabilityDiagram("bins", plo, pred[keep], emp[keep], t_cnt[keep], n_cnt[keep],
                              edges)

